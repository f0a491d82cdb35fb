"""GitHub Copilot CLI's skill listing, as far as public sources show it [2ND].

No Copilot source is published; two independent readings agree:

* github/copilot-cli#2314 quotes the bundled SDK (``Q3r`` in
  ``@github/copilot/sdk/index.js``): skills are formatted one by one, in the
  order they arrive (observed: by name), and the loop **stops at the first
  skill that does not fit** a fixed character budget, each skill costing its
  XML block plus one separator character; the listing then ends with
  ``<!-- Showing N of M skills due to token limits -->``. Descriptions are never
  shortened: a skill is listed whole or not at all, and everything after the
  cut is invisible to the model (github/copilot-cli#1464 saw it at ~32 skills).
* microsoft/GitHub-Copilot-for-Azure#1227 / #1120 give the budget, 15,000
  characters, and the block format their CI check reproduces::

      <skill>
        <name>{name}</name>
        <description>{description}</description>
        <location>{location}</location>
      </skill>

What this module cannot know: the ``location`` text (#1120 writes ``Custom``;
we do the same) and whether VS Code's Copilot Chat budgets the same way (its
listing code is not public). Results are estimates and are reported as such.
"""

from __future__ import annotations

from dataclasses import dataclass, field

BUDGET_CHARS = 15_000
LOCATION = "Custom"
SOURCES = "github/copilot-cli#2314 (SDK loop), microsoft/GitHub-Copilot-for-Azure#1227 (15,000 characters) [2ND]"
EVIDENCE = "github/copilot-cli#2314"  # the short citation findings carry


@dataclass(frozen=True, eq=False, repr=False)
class ListingEntry:
    name: str
    description: str
    key: object = None  # the caller's handle
    order: str = ""  # breaks a tie between equal names (a path), so the order never depends on the handle


@dataclass
class ListedSkill:
    name: str
    key: object
    description_chars: int
    cost: int  # the XML block plus its separator
    included: bool = False


@dataclass
class CopilotListing:
    text: str
    budget: int
    used: int
    total: int
    included: int
    skills: list[ListedSkill] = field(default_factory=list)

    @property
    def omitted(self) -> int:
        return self.total - self.included

    @property
    def notice(self) -> str | None:
        """The comment Copilot appends when skills are cut (the model sees it; the user does not)."""
        return f"<!-- Showing {self.included} of {self.total} skills due to token limits -->" if self.omitted else None


def block(name: str, description: str, location: str = LOCATION) -> str:
    return (
        f"<skill>\n  <name>{_xml(name)}</name>\n  <description>{_xml(description)}</description>\n"
        f"  <location>{_xml(location)}</location>\n</skill>"
    )


# As xml.sax.saxutils.escape with quotes added, without importing it (it imports urllib, which no run needs).
_XML_ENTITIES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;"})


def _xml(text: str) -> str:
    return text.translate(_XML_ENTITIES)


def listing(entries, budget_chars: int | None = None) -> CopilotListing:
    """List skills by name until the first one that does not fit (a hard stop, not a skip)."""
    budget = budget_chars or BUDGET_CHARS
    ordered = sorted(entries, key=lambda e: (e.name, e.order))
    skills: list[ListedSkill] = []
    blocks: list[str] = []
    used = 0
    stopped = False
    for entry in ordered:
        text = block(entry.name, entry.description)
        skill = ListedSkill(entry.name, entry.key, len(entry.description), len(text) + 1)
        skills.append(skill)
        if stopped or used + skill.cost > budget:
            stopped = True
            continue
        used += skill.cost
        skill.included = True
        blocks.append(text)
    result = CopilotListing("\n".join(blocks), budget, used, len(skills), len(blocks), skills)
    if result.notice:
        result.text += ("\n" if result.text else "") + result.notice
    return result
