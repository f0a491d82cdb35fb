"""The OpenAI Codex "available skills" catalog renderer, modelled exactly.

Codex lists every model-visible skill as one line in the system prompt and
squeezes the list into a budget (docs/surfaces.md §3d). This module
reproduces that renderer as a pure function so skilllint can show an author,
before they commit, what Codex will list, what it will shorten and what it
will drop, with the exact warning text Codex shows.

Modelled version (:data:`MODELLED_VERSION`): ``openai/codex``
``codex-rs/core-skills/src/render.rs`` at commit 0899b7c4 ("R1"), including
its unit-test fixtures. The later ``codex-rs/ext/skills/src/render.rs``
generation ("R2", :data:`R2_VERSION`) is available through options:

* :func:`budget_for` with ``max_context_tokens`` (the ``skills.max_context_tokens``
  config, capped at 10,000 tokens);
* :data:`R2_HOST` - plain warning texts (no "2%"), descriptions pre-truncated to
  1,024 characters (1,021 + "..."), paths ordered as strings;
* :data:`R2_EXTENSION` - additionally provider order (no scope sort),
  ``short_description`` preferred, and the "- N additional skill(s) omitted
  from this bounded skills list." marker line.

Not modelled: the root-alias table (``r0`` = ``/abs/root``), which Codex tries
only when the absolute render omitted or shortened something and which needs
the loader's skill roots; and the combined executor/orchestrator/host render.

The algorithm, in Codex's order (``order`` = scope rank system, admin, repo,
user, then name, then path):

1. every full line fits: render all full, no warning;
2. every minimum line (``- name: (file: path)``) fits: reserve them, then hand
   out the rest one description character per skill per round-robin pass; a
   character is granted when its marginal cost fits the remaining budget. The
   first character also pays for the space that separates the description
   from ``(file: ...)`` (the ``": "`` after the name is already part of the
   minimum line), so in characters it costs 2 and each further one costs 1;
3. otherwise every description is dropped and minimum lines are taken in
   order while they fit; an entry that does not fit is omitted but scanning
   continues, so a later, cheaper entry can still be listed.

Costs are per line including its ``"\\n"``: Unicode scalar values for a
:class:`Characters` budget, ``ceil(utf8_bytes / 4)`` for a :class:`Tokens`
budget.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Iterable, NamedTuple, Optional, Union

__all__ = [
    "APPROX_BYTES_PER_TOKEN",
    "DEFAULT_SKILL_METADATA_CHAR_BUDGET",
    "MAX_CATALOG_SKILL_DESCRIPTION_CHARS",
    "MAX_CONFIGURED_SKILL_METADATA_TOKEN_BUDGET",
    "MODELLED_VERSION",
    "R1",
    "R2_EXTENSION",
    "R2_HOST",
    "R2_VERSION",
    "SCOPE_RANK",
    "SKILL_DESCRIPTION_TRUNCATION_WARNING_THRESHOLD_CHARS",
    "SKILL_METADATA_CONTEXT_WINDOW_PERCENT",
    "Budget",
    "CatalogEntry",
    "CatalogRender",
    "Characters",
    "ExcludedEntry",
    "RenderOptions",
    "RenderReceipt",
    "SkillReceipt",
    "Tokens",
    "budget_for",
    "cost",
    "line_cost",
    "full_line",
    "minimum_line",
    "omission_marker",
    "render_catalog",
    "truncate_catalog_description",
]

MODELLED_VERSION = (
    "openai/codex codex-rs/core-skills/src/render.rs @ 0899b7c42bf11847f78710966b362f756337c17d (R1)"
)
R2_VERSION = (
    "openai/codex codex-rs/ext/skills/src/render.rs (third parties pin rust-v0.153.4, 3d2ee51c) (R2)"
)

DEFAULT_SKILL_METADATA_CHAR_BUDGET = 8_000
SKILL_METADATA_CONTEXT_WINDOW_PERCENT = 2
MAX_CONFIGURED_SKILL_METADATA_TOKEN_BUDGET = 10_000  # R2 only
MAX_CATALOG_SKILL_DESCRIPTION_CHARS = 1_024  # R2 only
TRUNCATED_SKILL_DESCRIPTION_SUFFIX = "..."  # R2 only
SKILL_DESCRIPTION_TRUNCATION_WARNING_THRESHOLD_CHARS = 100
APPROX_BYTES_PER_TOKEN = 4

SKILL_DESCRIPTION_TRUNCATED_WARNING = (
    "Skill descriptions were shortened to fit the skills context budget. Codex can still see "
    "every skill, but some descriptions are shorter. Disable unused skills or plugins to leave "
    "more room for the rest."
)
SKILL_DESCRIPTION_TRUNCATED_WARNING_WITH_PERCENT = (
    "Skill descriptions were shortened to fit the 2% skills context budget. Codex can still see "
    "every skill, but some descriptions are shorter. Disable unused skills or plugins to leave "
    "more room for the rest."
)
SKILL_DESCRIPTIONS_REMOVED_WARNING_PREFIX = (
    "Exceeded skills context budget. All skill descriptions were removed and"
)
SKILL_DESCRIPTIONS_REMOVED_WARNING_PREFIX_WITH_PERCENT = (
    "Exceeded skills context budget of 2%. All skill descriptions were removed and"
)

#: Prompt priority (R1 ``prompt_scope_rank``); ``None`` is R2's unscoped rank 4.
SCOPE_RANK = {"system": 0, "admin": 1, "repo": 2, "user": 3, None: 4}


# --------------------------------------------------------------------------- budget


@dataclass(frozen=True)
class Tokens:
    """A budget in approximate tokens (``ceil(utf8_bytes / 4)`` per line)."""

    n: int
    unit = "tokens"

    @property
    def limit(self) -> int:
        return self.n


@dataclass(frozen=True)
class Characters:
    """A budget in Unicode scalar values per line."""

    n: int
    unit = "characters"

    @property
    def limit(self) -> int:
        return self.n


Budget = Union[Tokens, Characters]


def budget_for(context_window: Optional[int] = None, max_context_tokens: Optional[int] = None) -> Budget:
    """Codex's catalog budget.

    R1 (``default_skill_metadata_budget``): 2% of a positive context window in
    tokens, at least 1; otherwise (unknown, zero or negative window) 8,000
    characters. R2 (``skill_metadata_budget``): a configured
    ``skills.max_context_tokens`` wins and is capped at 10,000 tokens. Codex
    types it ``Option<NonZeroUsize>``, so ``None`` and ``0`` mean "not set";
    a negative value cannot be configured and raises ``ValueError``.
    """
    if max_context_tokens is not None:
        if max_context_tokens < 0:
            raise ValueError("max_context_tokens must be a positive integer")
        if max_context_tokens > 0:
            return Tokens(min(max_context_tokens, MAX_CONFIGURED_SKILL_METADATA_TOKEN_BUDGET))
    if context_window is not None and context_window > 0:
        return Tokens(max(1, context_window * SKILL_METADATA_CONTEXT_WINDOW_PERCENT // 100))
    return Characters(DEFAULT_SKILL_METADATA_CHAR_BUDGET)


def _cost_from_counts(budget: Budget, chars: int, utf8_bytes: int) -> int:
    if isinstance(budget, Tokens):
        return (utf8_bytes + APPROX_BYTES_PER_TOKEN - 1) // APPROX_BYTES_PER_TOKEN
    return chars


def _utf8_len(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def cost(budget: Budget, text: str) -> int:
    """Cost of ``text`` in the budget's unit."""
    return _cost_from_counts(budget, len(text), _utf8_len(text))


def line_cost(budget: Budget, line: str) -> int:
    """Cost of one catalog line, including its trailing newline."""
    return cost(budget, line + "\n")


# --------------------------------------------------------------------------- entries and options


@dataclass(frozen=True, eq=False)
class CatalogEntry:
    """One discovered skill as the catalog sees it.

    ``scope`` is ``"system"``, ``"admin"``, ``"repo"`` or ``"user"`` (``None``
    only for R2's unscoped entries). ``path`` is rendered as given, with
    backslashes turned into slashes. ``short_description`` and
    ``locator_kind`` matter only for R2 options.
    """

    name: str
    description: str
    path: str
    scope: Optional[str] = "repo"
    enabled: bool = True
    allow_implicit_invocation: bool = True
    short_description: Optional[str] = None
    locator_kind: str = "file"

    def __post_init__(self) -> None:
        if self.scope not in SCOPE_RANK:
            raise ValueError(f"unknown Codex skill scope {self.scope!r}")


@dataclass(frozen=True, eq=False)
class RenderOptions:
    """Which Codex generation to model. :data:`R1` is the default."""

    name: str = "R1"
    #: "of 2%" / "2% " warning variants for Tokens budgets (R1); R2 uses the plain texts.
    percent_in_warnings: bool = True
    #: R2: cut descriptions longer than this to ``limit - 3`` characters + "...".
    max_description_chars: Optional[int] = None
    #: Sort by scope, name, path (R1, R2 CoreCompatible); False keeps input order (R2 ExtensionCompatible).
    sort_by_scope: bool = True
    #: How paths are compared: "components" (R1: Rust ``Path`` order) or "string" (R2).
    path_order: str = "components"
    #: R2 ExtensionCompatible: use ``short_description`` when present.
    prefer_short_description: bool = False
    #: R2 ExtensionCompatible: append "- N additional skill(s) omitted ..." when anything is omitted.
    omission_marker: bool = False
    version: str = MODELLED_VERSION


R1 = RenderOptions()
R2_HOST = RenderOptions(
    name="R2-host",
    percent_in_warnings=False,
    max_description_chars=MAX_CATALOG_SKILL_DESCRIPTION_CHARS,
    path_order="string",
    version=R2_VERSION,
)
R2_EXTENSION = RenderOptions(
    name="R2-extension",
    percent_in_warnings=False,
    max_description_chars=MAX_CATALOG_SKILL_DESCRIPTION_CHARS,
    sort_by_scope=False,
    path_order="string",
    prefer_short_description=True,
    omission_marker=True,
    version=R2_VERSION,
)


# --------------------------------------------------------------------------- receipt


@dataclass(frozen=True)
class SkillReceipt:
    name: str
    path: str
    scope: Optional[str]
    description_chars: int  # characters of the description the renderer works with
    chars_shown: int
    included: bool
    minimum_cost: int  # cost of "- name: (file: path)\n"
    full_cost: int  # cost of "- name: description (file: path)\n"

    @property
    def truncated_chars(self) -> int:
        return self.description_chars - self.chars_shown


@dataclass(frozen=True)
class ExcludedEntry:
    name: str
    path: str
    scope: Optional[str]
    reason: str  # "disabled" or "implicit-invocation-disabled"


@dataclass(frozen=True)
class RenderReceipt:
    total_count: int
    included_count: int
    omitted_count: int
    truncated_description_chars: int
    truncated_description_count: int
    budget_unit: str
    budget_limit: int
    budget_used: int
    skills: tuple  # tuple[SkillReceipt, ...] in render order
    warning: Optional[str]
    phase: str  # "empty", "full", "descriptions-shortened", "descriptions-removed"
    excluded: tuple = field(default=())  # tuple[ExcludedEntry, ...]
    model: str = MODELLED_VERSION
    options: str = "R1"

    def to_dict(self) -> dict:
        data = asdict(self)
        for skill in data["skills"]:
            skill["truncated_chars"] = skill["description_chars"] - skill["chars_shown"]
        return data


class CatalogRender(NamedTuple):
    text: str  # the skill lines joined with "\n" (no intro, no trailing newline)
    receipt: RenderReceipt

    @property
    def lines(self) -> list:
        return self.text.split("\n") if self.text else []


# --------------------------------------------------------------------------- lines


def truncate_catalog_description(description: str, limit: int = MAX_CATALOG_SKILL_DESCRIPTION_CHARS) -> str:
    """R2 ``truncate_catalog_skill_description``: > limit chars -> first ``limit - 3`` + "..."."""
    if len(description) <= limit:
        return description
    keep = max(0, limit - len(TRUNCATED_SKILL_DESCRIPTION_SUFFIX))
    return description[:keep] + TRUNCATED_SKILL_DESCRIPTION_SUFFIX


def minimum_line(name: str, path: str, locator_kind: str = "file") -> str:
    return f"- {name}: ({locator_kind}: {path})"


def full_line(name: str, description: str, path: str, locator_kind: str = "file") -> str:
    if not description:
        return minimum_line(name, path, locator_kind)
    return f"- {name}: {description} ({locator_kind}: {path})"


def omission_marker(omitted: int) -> str:
    """R2 ExtensionCompatible marker line."""
    word = "skill" if omitted == 1 else "skills"
    return f"- {omitted} additional {word} omitted from this bounded skills list."


class _Line:
    __slots__ = ("entry", "name", "description", "path", "kind")

    def __init__(self, entry: CatalogEntry, options: RenderOptions) -> None:
        description = entry.description
        if options.prefer_short_description and entry.short_description is not None:
            description = entry.short_description
        if options.max_description_chars is not None:
            description = truncate_catalog_description(description, options.max_description_chars)
        self.entry = entry
        self.name = entry.name
        self.description = description
        self.path = entry.path.replace("\\", "/")
        self.kind = entry.locator_kind

    def render(self, chars: int) -> str:
        return full_line(self.name, self.description[:chars], self.path, self.kind)

    def minimum(self) -> str:
        return minimum_line(self.name, self.path, self.kind)

    def full(self) -> str:
        return self.render(len(self.description))


def _rust_path_key(path: str) -> tuple:
    """Sort key equal to Rust's ``Path`` ordering on Unix (component-wise).

    ``Component`` derives ``Ord`` as RootDir < CurDir < ParentDir < Normal;
    repeated and trailing separators and interior "." are not components.
    """
    key = []
    absolute = path.startswith("/")
    if absolute:
        key.append((1, b""))
    for index, part in enumerate(path.split("/")):
        if part == "":
            continue
        if part == ".":
            if index == 0 and not absolute:
                key.append((2, b""))
            continue
        if part == "..":
            key.append((3, b""))
        else:
            key.append((4, part.encode("utf-8", "surrogatepass")))
    return tuple(key)


def _order(entries: list, options: RenderOptions) -> list:
    if not options.sort_by_scope:
        return list(entries)
    if options.path_order == "components":
        path_key = _rust_path_key
    elif options.path_order == "string":
        path_key = lambda p: p.encode("utf-8", "surrogatepass")  # noqa: E731
    else:
        raise ValueError(f"unknown path_order {options.path_order!r}")
    # Codex sorts by (scope rank, name, path) and dedupes skills by path, so
    # the first three keys already decide. The remaining keys only make the
    # result independent of input order for inputs Codex cannot produce
    # (two entries with the same path).
    return sorted(
        entries,
        key=lambda e: (
            SCOPE_RANK[e.scope],
            e.name.encode("utf-8", "surrogatepass"),
            path_key(e.path),
            e.path,
            e.description,
            e.short_description or "",
            e.locator_kind,
        ),
    )


# --------------------------------------------------------------------------- render


def _allocate_description_chars(budget: Budget, lines: list, remaining: int) -> list:
    """Phase 2 round-robin (R1 ``render_lines_with_description_budget``)."""
    extra_costs = []
    for line in lines:
        minimum = line.minimum()
        min_chars = len(minimum) + 1  # + "\n"
        min_bytes = _utf8_len(minimum) + 1
        min_cost = _cost_from_counts(budget, min_chars, min_bytes)
        costs = [0]
        prefix_chars = prefix_bytes = 0
        for ch in line.description:
            prefix_chars += 1
            prefix_bytes += _utf8_len(ch)
            # + 1 for the space between the description and "(file: ...)"
            rendered = _cost_from_counts(budget, min_chars + prefix_chars + 1, min_bytes + prefix_bytes + 1)
            costs.append(max(0, rendered - min_cost))
        extra_costs.append(costs)

    alloc = [0] * len(lines)
    current = [0] * len(lines)
    changed = True
    while changed:
        changed = False
        for i, line in enumerate(lines):
            if alloc[i] >= len(line.description):
                continue
            next_cost = extra_costs[i][alloc[i] + 1]
            delta = max(0, next_cost - current[i])
            if delta <= remaining:
                alloc[i] += 1
                current[i] = next_cost
                remaining -= delta
                changed = True
    return alloc


def _warning(budget: Budget, options: RenderOptions, total: int, omitted: int, truncated_chars: int) -> Optional[str]:
    percent = options.percent_in_warnings and isinstance(budget, Tokens)
    if omitted > 0:
        prefix = SKILL_DESCRIPTIONS_REMOVED_WARNING_PREFIX_WITH_PERCENT if percent else SKILL_DESCRIPTIONS_REMOVED_WARNING_PREFIX
        word, verb = ("skill", "was") if omitted == 1 else ("skills", "were")
        return f"{prefix} {omitted} additional {word} {verb} not included in the model-visible skills list."
    average = 0 if total == 0 or truncated_chars == 0 else -(-truncated_chars // total)
    if average > SKILL_DESCRIPTION_TRUNCATION_WARNING_THRESHOLD_CHARS:
        return SKILL_DESCRIPTION_TRUNCATED_WARNING_WITH_PERCENT if percent else SKILL_DESCRIPTION_TRUNCATED_WARNING
    return None


def render_catalog(entries: Iterable[CatalogEntry], budget: Budget, options: RenderOptions = R1) -> CatalogRender:
    """Render the Codex catalog lines for ``entries`` within ``budget``.

    Entries that are disabled or have ``allow_implicit_invocation=False`` are
    not model-visible: they cost nothing and appear only in
    ``receipt.excluded``. With no visible entry Codex renders no skills
    section; here the text is empty and the receipt's phase is ``"empty"``.
    """
    if not isinstance(budget, (Tokens, Characters)):
        raise TypeError("budget must be Tokens(n) or Characters(n)")
    if budget.limit < 0:
        raise ValueError("budget limit must be >= 0")
    visible = []
    excluded = []
    for entry in entries:
        if not entry.enabled:
            excluded.append(ExcludedEntry(entry.name, entry.path, entry.scope, "disabled"))
        elif not entry.allow_implicit_invocation:
            excluded.append(ExcludedEntry(entry.name, entry.path, entry.scope, "implicit-invocation-disabled"))
        else:
            visible.append(entry)
    excluded.sort(key=lambda x: (x.path, x.name, x.reason, SCOPE_RANK[x.scope]))

    lines = [_Line(e, options) for e in _order(visible, options)]
    limit = budget.limit
    n = len(lines)
    min_costs = [line_cost(budget, l.minimum()) for l in lines]
    full_costs = [line_cost(budget, l.full()) for l in lines]
    desc_chars = [len(l.description) for l in lines]

    # shown[i] is the number of description characters shown, None = omitted.
    if n == 0:
        phase = "empty"
        shown: list = []
    elif sum(full_costs) <= limit:
        phase = "full"
        shown = list(desc_chars)
    elif sum(min_costs) <= limit:
        phase = "descriptions-shortened"
        shown = _allocate_description_chars(budget, lines, limit - sum(min_costs))
    else:
        phase = "descriptions-removed"
        shown = []
        used = 0
        for c in min_costs:
            if used + c <= limit:
                used += c
                shown.append(0)
            else:  # keep scanning: a later, cheaper line may still fit
                shown.append(None)

    # Truncation is counted over every line, omitted ones included (as Codex does).
    truncated_chars = sum(d - (s or 0) for d, s in zip(desc_chars, shown))
    truncated_count = sum(1 for d, s in zip(desc_chars, shown) if d - (s or 0) > 0)

    rendered = [(i, lines[i].render(s)) for i, s in enumerate(shown) if s is not None]
    marker = None
    if options.omission_marker and any(s is None for s in shown):
        # R2 render_catalog: pop rendered lines from the end until the marker fits.
        used = sum(line_cost(budget, text) for _, text in rendered)
        while True:
            omitted_now = n - len(rendered)
            candidate = omission_marker(omitted_now)
            if used + line_cost(budget, candidate) <= limit:
                marker = candidate
                break
            if not rendered:
                break
            i, text = rendered.pop()
            used -= line_cost(budget, text)
            shown[i] = None
    out_lines = [text for _, text in rendered] + ([marker] if marker else [])
    included = len(rendered)
    omitted = n - included

    skills = tuple(
        SkillReceipt(
            name=l.name,
            path=l.path,
            scope=l.entry.scope,
            description_chars=desc_chars[i],
            chars_shown=shown[i] or 0,
            included=shown[i] is not None,
            minimum_cost=min_costs[i],
            full_cost=full_costs[i],
        )
        for i, l in enumerate(lines)
    )
    receipt = RenderReceipt(
        total_count=n,
        included_count=included,
        omitted_count=omitted,
        truncated_description_chars=truncated_chars,
        truncated_description_count=truncated_count,
        budget_unit=budget.unit,
        budget_limit=limit,
        budget_used=sum(line_cost(budget, t) for t in out_lines),
        skills=skills,
        warning=_warning(budget, options, n, omitted, truncated_chars),
        phase=phase,
        excluded=tuple(excluded),
        model=options.version,
        options=options.name,
    )
    return CatalogRender("\n".join(out_lines), receipt)
