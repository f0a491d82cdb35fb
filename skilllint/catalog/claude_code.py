"""Claude Code's skill listing (docs/surfaces.md §2b), as a linter can model it.

What is documented (S-CC, S-CCSET):

* each listed skill's text is ``description`` + ``when_to_use``, cut at
  ``skillListingMaxDescChars`` (default 1,536 characters);
* the listing budget is ``context_window_tokens × 4 × skillListingBudgetFraction``
  characters (fraction 0.01 by default; formula [2ND], binary v2.1.159/v2.1.220),
  or a fixed ``SLASH_COMMAND_TOOL_CHAR_BUDGET``; with the window unknown a
  200k window is assumed: 8,000 characters [2ND];
* skills with ``disable-model-invocation: true`` are not listed at all;
* every listed skill's name is always shown; when the listing is over budget
  Claude Code drops whole descriptions, starting with the least-invoked skills.

What is NOT known, and how this module approximates it:

* the line format of the listing is unpublished [2ND/unknown]. We cost a skill
  as ``"- {name}: {text}\\n"`` and a name-only entry as ``"- {name}\\n"``; the
  two texts are joined with one space (SL115 counts the same separator). Real
  costs may differ by a few characters per skill.
* usage (which skills are least invoked) is unknown to a linter. So in an
  over-budget listing every description is **at risk**, and the number that
  must go is an **estimate**: descriptions are dropped most expensive first
  (the fewest drops that fit). Claude Code drops by usage, so it may drop more
  (cheap ones) than this estimate says, never fewer than needed to fit. A new
  user has used no skill: which of equals goes first is undocumented (the
  listing is in load order, plugin registration then file system order:
  anthropics/claude-code#53464, 2.1.119), so for a new user every description
  of an over-budget listing may be the one dropped, the worst case the receipt
  reports per source (app.catalog_preview).
"""

from __future__ import annotations

from dataclasses import dataclass, field

MAX_DESC_CHARS = 1536  # skillListingMaxDescChars default
BUDGET_FRACTION = 0.01  # skillListingBudgetFraction default
CHARS_PER_TOKEN = 4
ASSUMED_WINDOW = 200_000  # window unknown -> 200k assumed
DEFAULT_BUDGET_CHARS = int(ASSUMED_WINDOW * CHARS_PER_TOKEN * BUDGET_FRACTION)  # 8,000

LINE_FORMAT = '"- {name}: {text}\\n" (name only: "- {name}\\n"); an approximation, the real format is unpublished'


@dataclass(frozen=True, eq=False, repr=False)
class ListingEntry:
    name: str
    description: str = ""
    when_to_use: str = ""
    hidden: bool = False  # disable-model-invocation: true -> not listed
    key: object = None  # caller's handle (a path, a package)


@dataclass(eq=False, repr=False)
class ListedSkill:
    name: str
    key: object
    text_chars: int  # characters of description + when_to_use shown (after the cap)
    cut_chars: int  # characters lost to the per-entry cap
    cost: int  # characters of its full line
    name_cost: int  # characters of its name-only line
    at_risk: bool = False  # its description may be dropped (listing over budget)
    text: str = ""  # the listed text itself (description + when_to_use, after the cap)
    estimated_dropped: bool = False  # dropped in the most-expensive-first estimate

    @property
    def chars(self) -> int:
        return self.text_chars


@dataclass(eq=False, repr=False)
class ListingReceipt:
    total: int  # skills in the catalog (listed or not)
    included: int  # skills listed (names always shown)
    hidden: int  # left out: disable-model-invocation
    budget: int  # characters
    budget_source: str
    used: int  # characters of the full listing (before any drop)
    over_by: int  # characters over budget (0 when it fits)
    descriptions_at_risk: int  # descriptions that may be dropped (all, when over)
    descriptions_to_drop: int  # estimate: fewest drops (most expensive first) that fit
    used_after_drop: int  # estimated listing size after those drops
    fits_without_descriptions: bool
    skills: list[ListedSkill] = field(default_factory=list)
    line_format: str = LINE_FORMAT
    estimate_note: str = (
        "usage is unknown to a linter: Claude Code drops least-used descriptions first; "
        "descriptions_to_drop is an estimate dropping the most expensive first"
    )

    @property
    def over_budget(self) -> bool:
        return self.over_by > 0

    def as_dict(self) -> dict:
        return {
            "total": self.total,
            "included": self.included,
            "hidden": self.hidden,
            "budget": {"unit": "characters", "limit": self.budget, "source": self.budget_source},
            "used": self.used,
            "over_by": self.over_by,
            "descriptions_at_risk": self.descriptions_at_risk,
            "descriptions_to_drop_estimate": self.descriptions_to_drop,
            "used_after_drop_estimate": self.used_after_drop,
            "fits_without_descriptions": self.fits_without_descriptions,
            "line_format": self.line_format,
            "note": self.estimate_note,
            "skills": [
                {
                    "name": s.name,
                    "chars": s.text_chars,
                    "cut_chars": s.cut_chars,
                    "cost": s.cost,
                    "name_cost": s.name_cost,
                    "at_risk": s.at_risk,
                    "estimated_dropped": s.estimated_dropped,
                }
                for s in self.skills
            ],
        }


def budget_for(context_window: int | None = None, budget_chars: int | None = None) -> tuple[int, str]:
    """(characters, how it was set)."""
    if budget_chars:
        return int(budget_chars), "set directly"
    if context_window:
        chars = int(context_window * CHARS_PER_TOKEN * BUDGET_FRACTION)
        return chars, f"1% of a {int(context_window):,}-token window at 4 characters per token"
    return DEFAULT_BUDGET_CHARS, "context window unknown: 200,000 tokens assumed"


def entry_text(description: str, when_to_use: str = "", max_desc_chars: int = MAX_DESC_CHARS) -> tuple[str, int]:
    """The listed text and how many characters the cap cut."""
    parts = [p for p in (description or "", when_to_use or "") if p]
    full = " ".join(parts)
    return full[:max_desc_chars], max(0, len(full) - max_desc_chars)


def line(name: str, text: str) -> str:
    return f"- {name}: {text}\n" if text else f"- {name}\n"


def listing(
    entries,
    context_window: int | None = None,
    budget_chars: int | None = None,
    max_desc_chars: int = MAX_DESC_CHARS,
) -> ListingReceipt:
    """Cost a Claude Code skill listing and say which descriptions are at risk.

    ``entries``: :class:`ListingEntry` items (order does not matter: the result
    does not depend on it, ties broken by name then input position)."""
    entries = list(entries)
    budget, source = budget_for(context_window, budget_chars)
    skills: list[ListedSkill] = []
    hidden = 0
    for entry in entries:
        if entry.hidden:
            hidden += 1
            continue
        text, cut = entry_text(entry.description, entry.when_to_use, max_desc_chars)
        skills.append(
            ListedSkill(
                name=entry.name,
                key=entry.key,
                text_chars=len(text),
                text=text,
                cut_chars=cut,
                cost=len(line(entry.name, text)),
                name_cost=len(line(entry.name, "")),
            )
        )
    used = sum(s.cost for s in skills)
    names_only = sum(s.name_cost for s in skills)
    over_by = max(0, used - budget)
    to_drop = 0
    after = used
    if over_by:
        with_text = [s for s in skills if s.text_chars]
        for s in with_text:
            s.at_risk = True
        # Estimate: fewest drops that fit = most expensive descriptions first.
        order = sorted(range(len(with_text)), key=lambda i: (-(with_text[i].cost - with_text[i].name_cost), with_text[i].name, i))
        for i in order:
            if after <= budget:
                break
            s = with_text[i]
            s.estimated_dropped = True
            after -= s.cost - s.name_cost
            to_drop += 1
    return ListingReceipt(
        total=len(entries),
        included=len(skills),
        hidden=hidden,
        budget=budget,
        budget_source=source,
        used=used,
        over_by=over_by,
        descriptions_at_risk=sum(1 for s in skills if s.at_risk),
        descriptions_to_drop=to_drop,
        used_after_drop=after,
        fits_without_descriptions=names_only <= budget,
        skills=skills,
    )
