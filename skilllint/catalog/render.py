"""Catalogs as surfaces render them, for the SL50x and SL51x rules and ``skilllint catalog``.

A catalog is the set of skills a surface lists together (:mod:`skilllint.catalog.model`).
Rendered once per run: the Codex catalog and its budget (SL501, SL502), a skill listing
over its budget for Claude Code (docs/surfaces.md §2b) and Copilot CLI ([2ND], §4)
(SL503); and the words findings about catalogs share (SL510, SL511).

The Claude Code listing model is :mod:`skilllint.catalog.claude_code`; its line format and
the drop order are approximations (see there). Copilot's CLI budget (15,000
characters, [2ND]) is modelled in :mod:`skilllint.catalog.copilot`: skills in name
order until the first that does not fit; the rest are not listed at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .model import Catalog, CatalogSkill, codex_skip_reason
from ..diagnostics import Severity, Span, counted
from ..fsafe import is_within

if TYPE_CHECKING:  # the surfaces' models load when a catalog of theirs is judged (a run on
    # agentskills skills never renders a Codex catalog): they are a tenth of the rules' import.
    from . import claude_code, codex, copilot


def catalog_options(settings) -> dict:
    """The run's ``[catalog]`` settings, from its :class:`skilllint.config.settings.Settings` (none when
    there are none: a bare rule context)."""
    return settings.catalog if settings else {}


def codex_render(catalog: Catalog, options: dict) -> tuple[codex.CatalogRender, dict]:
    """Render a Codex catalog once per run (SL501 and SL502 share it).

    ``options`` are the ``[catalog]`` settings: ``context-window``,
    ``budget-chars`` or ``budget-tokens``; none set means an unknown window
    (Codex's 8,000 characters)."""
    from . import codex

    cached = catalog.renders.get("budgeted-catalog")
    if cached is not None:
        return cached
    if options.get("budget-chars"):
        budget = codex.Characters(options["budget-chars"])
    else:
        budget = codex.budget_for(options.get("context-window"), options.get("budget-tokens"))
    by_path: dict[str, object] = {}
    entries = []
    for skill in catalog.visible:
        if codex_skip_reason(skill) is not None:
            continue  # Codex does not load it
        path = str(skill.package.skill_md_path.absolute())
        by_path[path] = skill.package
        entries.append(codex.CatalogEntry(skill.name, skill.description, path, scope=skill.scope))
    result = (codex.render_catalog(entries, budget), by_path)
    catalog.renders["budgeted-catalog"] = result
    return result


def budget_words(receipt: codex.RenderReceipt) -> str:
    return f"{receipt.budget_limit:,} {receipt.budget_unit}"


def count(findings, noun: str) -> str:
    return counted(len(findings), noun)


def some_names(pairs, shown: int = 5) -> str:
    """A few of the skills concerned, by folder, for a message about many."""
    names = [package.folder_name for package, _ in pairs]
    return ", ".join(names[:shown]) + (f" and {len(names) - shown} more" if len(names) > shown else "")


MAX_PARTNERS = 10  # same-named skills a finding names


class NameGroup:
    """The skills of a catalog sharing one name, counted once for all of them: the scopes
    they hold, the scopes each winner shadows, and how many of its own scope it ranks above."""

    def __init__(self, skills: list) -> None:
        self.scopes: dict[str, int] = {}
        self.shadowed: dict[int, set[str]] = {}  # id(winner) -> scopes of the skills it shadows
        self.hidden_alike: dict[int, int] = {}  # id(winner) -> skills of its own scope it shadows
        for skill in skills:
            self.scopes[skill.scope] = self.scopes.get(skill.scope, 0) + 1
            winner = skill.shadowed_by
            if winner is not None:
                self.shadowed.setdefault(id(winner), set()).add(skill.scope)
                if winner.scope == skill.scope:
                    self.hidden_alike[id(winner)] = self.hidden_alike.get(id(winner), 0) + 1


def duplicate_effect(catalog: Catalog, skill, group: NameGroup) -> tuple[str, Severity | None]:
    """What the surface does with same-named skills, by its precedence (catalog.model). Said
    so that surfaces which do the same say the same (one finding lists them all)."""
    surface = catalog.surface.called
    if catalog.surface.scope_precedence is None:  # every same-named skill is kept (Codex)
        return f"{surface} lists both and ignores `${skill.name}` mentions because the name is ambiguous", None
    if skill.shadowed_by is not None and skill.shadowed_by.scope == skill.scope:  # a ranked project folder (Gemini CLI)
        winner = skill.shadowed_by
        return (
            f"{surface} loads the one in `{_folder_of(catalog, winner)}` "
            f"({shown_path(catalog, skill, winner.package.skill_md_path)}) instead, so this copy in "
            f"`{_folder_of(catalog, skill)}` is shadowed and never listed",
            Severity.WARNING,
        )
    if skill.shadowed_by is not None:
        winner = skill.shadowed_by
        return (
            f"{surface} loads the {winner.scope}-scope skill "
            f"({shown_path(catalog, skill, winner.package.skill_md_path)}) instead, so this {skill.scope}-scope skill "
            "is shadowed and never listed",
            Severity.ERROR,
        )
    shadowed = group.shadowed.get(id(skill))
    effects = []
    if shadowed == {skill.scope}:
        effects.append(f"{surface} uses this one, in `{_folder_of(catalog, skill)}`, and hides the copies in its other skills folders")
    elif shadowed:
        effects.append(f"this {skill.scope}-scope skill wins and {surface} hides the {', '.join(sorted(shadowed - {skill.scope}))}-scope one")
    if group.scopes[skill.scope] > 1 + group.hidden_alike.get(id(skill), 0):  # another skill of its scope, not ranked below it
        effects.append(f"surfaces that keep one skill per name use one of the {skill.scope}-scope skills, and which one is not defined")
    return "; ".join(effects), None


LISTED_CHARS = 1536


def _folder_of(catalog: Catalog, skill) -> str:
    """The project skills folder (``.agents/skills``) holding a skill of a surface-roots catalog."""
    parts = skill.package.root.parts
    for index in range(len(parts) - 2, -1, -1):
        if tuple(parts[index : index + 2]) in catalog.surface.project_skill_folders:
            return "/".join(parts[index : index + 2])
    return skill.package.root.parent.name


def shown_path(catalog: Catalog, skill, path) -> str:
    """Another skill's path in a finding on ``skill``: relative to the tree ``skill`` was linted in
    when inside the catalog, so every target's catalog names it alike; else as :func:`_in_catalog`."""
    import os

    if is_within(catalog.root, path):
        base = os.path.normpath(skill.package.lint_root)
        return os.path.relpath(path, base).replace(os.sep, "/")
    return _in_catalog(catalog, path)


def _in_catalog(catalog: Catalog, path) -> str:
    """A skill's path as the catalog knows it: relative to the catalog's root,
    or in full (home as ~) for an installed skill outside it."""
    import os

    if is_within(catalog.root, path):
        return os.path.relpath(path, catalog.root).replace(os.sep, "/")
    home = os.path.expanduser("~")
    text = str(path)
    return "~" + text[len(home) :] if home != "~" and is_within(Path(home), Path(text)) else text


def _value_span(package, key: str) -> Span:
    kept = package.kept_spans
    if kept is not None:
        return Span(*kept[key])
    return value_span_of(package, key)


def value_span_of(package, key: str) -> Span:
    """Where the value of a top-level ``key`` of SKILL.md's frontmatter is written (the fence's first
    characters when it is not there), from the frontmatter."""
    view = package.canonical
    pair = view.key_node(key) if view.mapping is not None else None
    return view.span(pair[1]) if pair else Span(1, 1, 1, 4)


def description_span(package) -> Span:
    return _value_span(package, "description")


def name_span(package) -> Span:
    return _value_span(package, "name")


def listing_for(catalog: Catalog, options: dict) -> claude_code.ListingReceipt:
    """The Claude Code listing of one catalog, computed once per run."""
    from . import claude_code

    cached = catalog.renders.get("listing")
    if cached is not None:
        return cached
    entries = []
    for skill in catalog.loaded:  # a shadowed skill is not loaded, so not listed
        description = skill.description or skill.first_body_line
        entries.append(claude_code.ListingEntry(skill.name, description, skill.when_to_use, hidden=skill.hidden, key=skill))
    receipt = claude_code.listing(entries, context_window=options.get("context-window"), budget_chars=options.get("budget-chars"))
    catalog.renders["listing"] = receipt
    return receipt


def copilot_listing_for(catalog: Catalog, options: dict) -> copilot.CopilotListing:
    """The Copilot CLI listing of one catalog, computed once per run."""
    from . import copilot

    cached = catalog.renders.get("cli-listing")
    if cached is None:
        entries = [copilot.ListingEntry(s.name, s.description, key=s, order=str(s.package.root)) for s in catalog.visible]
        cached = catalog.renders["cli-listing"] = copilot.listing(entries, options.get("budget-chars"))
    return cached


@dataclass(frozen=True, eq=False, repr=False)
class RenderedSkill:
    """One skill of a catalog as its surface renders it: ``shown``, the description the model
    reads ("" when the budget left it out), and ``full``, what the surface would list uncut."""

    skill: CatalogSkill
    shown: str
    full: str
    included: bool


def rendered_skills(catalog: Catalog, options: dict) -> list[RenderedSkill]:
    """Every skill of ``catalog`` in its surface's own rendering, in the renderer's order: what
    ``skilllint catalog`` reports and what the routing of ``skilllint eval`` and SL513 reads. A
    surface with no listing model (``Target.catalog_model`` None) lists them as written."""
    from . import claude_code

    model = catalog.surface.catalog_model
    if model == "budgeted-catalog":
        render, _ = codex_render(catalog, options)
        by_path = {str(s.package.skill_md_path.absolute()): s for s in catalog.visible}
        found = []
        for item in render.receipt.skills:
            skill = by_path[item.path]
            found.append(RenderedSkill(skill, skill.description[: item.chars_shown] if item.included else "", skill.description, item.included))
        return found
    if model == "listing":
        found = []
        for item in listing_for(catalog, options).skills:
            skill = item.key
            full, _ = claude_code.entry_text(skill.description or skill.first_body_line, skill.when_to_use, max_desc_chars=item.text_chars + item.cut_chars)
            found.append(RenderedSkill(skill, "" if item.estimated_dropped else item.text, full, True))  # the name is always listed
        return found
    if model == "cli-listing":
        return [RenderedSkill(item.key, item.key.description if item.included else "", item.key.description, item.included) for item in copilot_listing_for(catalog, options).skills]
    # A surface whose listing is not modelled: its skills as written, none cut or left out.
    return [RenderedSkill(skill, skill.description, skill.description, True) for skill in catalog.loaded]
