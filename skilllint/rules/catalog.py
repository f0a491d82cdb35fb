"""SL5xx: the catalog, the set of skills a surface lists together.

Catalog rules see a whole catalog (:mod:`skilllint.catalog.model`) and
report on its skills. So far: the Codex budget (SL501, SL502) and duplicate
names (SL511); description overlap (SL510) when its module lands.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..catalog.model import Catalog, codex_skip_reason, name_key
from ..diagnostics import Finding, Related, Severity, Span, counted
from ..fsafe import is_within
from ..registry import RuleContext, severities
from ..rule import CatalogRule, Option

if TYPE_CHECKING:  # the surfaces' models load when a catalog of theirs is judged (a run on
    # agentskills skills never renders a Codex catalog): they are a tenth of the rules' import
    from ..catalog import codex


def catalog_options(ctx: RuleContext) -> dict:
    """The run's ``[catalog]`` settings (none in a bare rule context)."""
    return ctx.settings.catalog if ctx.settings else {}


def codex_render(catalog: Catalog, options: dict) -> tuple[codex.CatalogRender, dict]:
    """Render a Codex catalog once per run (SL501 and SL502 share it).

    ``options`` are the ``[catalog]`` settings: ``context-window``,
    ``budget-chars`` or ``budget-tokens``; none set means an unknown window
    (Codex's 8,000 characters)."""
    from ..catalog import codex

    cached = getattr(catalog, "_codex_render", None)
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
    catalog._codex_render = result  # type: ignore[attr-defined]
    return result


def _budget_words(receipt: codex.RenderReceipt) -> str:
    return f"{receipt.budget_limit:,} {receipt.budget_unit}"


class CatalogDescriptionTruncated(CatalogRule):
    code = "SL501"
    name = "catalog-description-truncated"
    summary = "Codex would shorten this skill's description to fit its catalog budget"
    severity = severities("warning: codex")

    def check_catalog(self, catalog: Catalog, ctx: RuleContext):
        from ..catalog import codex

        render, by_path = codex_render(catalog, catalog_options(ctx))
        receipt = render.receipt
        if receipt.omitted_count:
            return  # descriptions all removed: SL502 says what is lost
        for skill in receipt.skills:
            if not skill.included or skill.truncated_chars <= 0:
                continue
            package = by_path[skill.path]
            level = Severity.WARNING if receipt.warning else Severity.INFO
            yield package, Finding(
                f"Codex ({codex.MODELLED_VERSION.split(' @ ')[0].split('/')[-1]} @ 0899b7c4) would show "
                f"{skill.chars_shown}/{skill.description_chars} characters of this description: the catalog of "
                f"{counted(receipt.total_count, 'skill')} exceeds its {_budget_words(receipt)} budget"
                + (f" ({receipt.warning})" if receipt.warning else ""),
                _description_span(package),
                severities={"codex": level},
            )

    def context_finding(self, catalog: Catalog, package, others, ctx: RuleContext) -> Finding | None:
        receipt = codex_render(catalog, catalog_options(ctx))[0].receipt
        level = Severity.WARNING if receipt.warning else Severity.INFO
        return Finding(
            f"Codex would shorten {_count(others, 'description')} of skills not linted in this run "
            f"({_names(others)}) to fit this skill's catalog of {counted(receipt.total_count, 'skill')} into its "
            f"{_budget_words(receipt)} budget" + (f" ({receipt.warning})" if receipt.warning else ""),
            _description_span(package),
            severities={"codex": level},
        )


class CatalogSkillOmitted(CatalogRule):
    code = "SL502"
    name = "catalog-skill-omitted"
    summary = "Codex would leave this skill out of the model-visible catalog"
    severity = severities("error: codex")

    def check_catalog(self, catalog: Catalog, ctx: RuleContext):
        render, by_path = codex_render(catalog, catalog_options(ctx))
        receipt = render.receipt
        for skill in receipt.skills:
            if skill.included:
                continue
            package = by_path[skill.path]
            yield package, Finding(
                f"Codex would not list this skill: its {receipt.total_count}-skill catalog needs more than the "
                f"{_budget_words(receipt)} budget even without descriptions; {counted(receipt.omitted_count, 'skill')} "
                f"{'is' if receipt.omitted_count == 1 else 'are'} left out ({receipt.warning})",
                Span(1, 1, 1, 4),
            )

    def context_finding(self, catalog: Catalog, package, others, ctx: RuleContext) -> Finding | None:
        receipt = codex_render(catalog, catalog_options(ctx))[0].receipt
        return Finding(
            f"this skill's Codex catalog of {counted(receipt.total_count, 'skill')} needs more than the {_budget_words(receipt)} "
            f"budget even without descriptions: Codex leaves out {_count(others, 'skill')} not linted in this run "
            f"({_names(others)}; {receipt.warning})",
            _description_span(package),
        )


def _count(findings, noun: str) -> str:
    return counted(len(findings), noun)


def _names(pairs, shown: int = 5) -> str:
    """A few of the skills concerned, by folder, for a message about many."""
    names = [package.folder_name for package, _ in pairs]
    return ", ".join(names[:shown]) + (f" and {len(names) - shown} more" if len(names) > shown else "")


class DuplicateName(CatalogRule):
    code = "SL511"
    name = "duplicate-name"
    summary = "Two skills in one catalog share a name"
    severity = severities("warning: all; error: codex")

    def check_catalog(self, catalog: Catalog, ctx: RuleContext):
        groups: dict[str, list] = {}
        for skill in catalog.skills:
            groups.setdefault(name_key(catalog.target, skill.name), []).append(skill)
        for skills in groups.values():
            if len(skills) < 2:
                continue
            group = _NameGroup(skills)
            for skill in skills:
                if skill.context:
                    continue  # installed or sibling skills are not this run's to report
                # A few of the others by path, and how many more: with every one of N
                # same-named skills naming all the others, output grows with N squared.
                others = [s for s in skills[: MAX_PARTNERS + 1] if s is not skill][:MAX_PARTNERS]
                more = len(skills) - 1 - len(others)
                where = "; ".join(
                    (f"{o.scope} scope: " if o.scope != "repo" else "") + _shown(catalog, skill, o.package.skill_md_path)
                    for o in others
                ) + (f"; and {more} more" if more else "")
                effect, level = _duplicate_effect(catalog, skill, group)
                yield skill.package, Finding(
                    f"another skill in the same catalog is also named '{skill.name}' ({where})",
                    _name_span(skill.package),
                    effect=effect,
                    severities={catalog.target: level} if level else None,
                    related=tuple(
                        Related(f"also named '{o.name}' ({o.scope} scope)", o.package.skill_md_path, _name_span(o.package))
                        for o in others
                    ),
                )


MAX_PARTNERS = 10  # same-named skills a finding names


class _NameGroup:
    """The skills of a catalog sharing one name, counted once for all of them: the scopes
    they hold, and the scopes each winner shadows."""

    def __init__(self, skills: list) -> None:
        self.scopes: dict[str, int] = {}
        self.shadowed: dict[int, set[str]] = {}  # id(winner) -> scopes of the skills it shadows
        for skill in skills:
            self.scopes[skill.scope] = self.scopes.get(skill.scope, 0) + 1
            if skill.shadowed_by is not None:
                self.shadowed.setdefault(id(skill.shadowed_by), set()).add(skill.scope)


_SURFACE_NAMES = {"claude-code": "Claude Code", "codex": "Codex", "copilot": "Copilot"}


def _duplicate_effect(catalog: Catalog, skill, group: _NameGroup) -> tuple[str, Severity | None]:
    """What the surface does with same-named skills, by its precedence (catalog.model). Said
    so that surfaces which do the same say the same (one finding lists them all)."""
    surface = _SURFACE_NAMES.get(catalog.target, f"the {catalog.target} surface")
    if catalog.target == "codex":
        return f"Codex lists both and ignores `${skill.name}` mentions because the name is ambiguous", None
    if skill.shadowed_by is not None:
        winner = skill.shadowed_by
        return (
            f"{surface} loads the {winner.scope}-scope skill "
            f"({_shown(catalog, skill, winner.package.skill_md_path)}) instead, so this {skill.scope}-scope skill "
            "is shadowed and never listed",
            Severity.ERROR,
        )
    shadowed = group.shadowed.get(id(skill))
    effects = []
    if shadowed:
        effects.append(f"this {skill.scope}-scope skill wins and {surface} hides the {', '.join(sorted(shadowed))}-scope one")
    if group.scopes[skill.scope] > 1:  # another skill of its scope
        effects.append(f"surfaces that keep one skill per name use one of the {skill.scope}-scope skills, and which one is not defined")
    return "; ".join(effects), None


_LISTED_CHARS = 1536


class DescriptionOverlap(CatalogRule):
    code = "SL510"
    name = "description-overlap"
    summary = "This skill's description is so close to another's in the same catalog that routing is ambiguous"
    severity = severities("warning: all")
    # Read on the corpus: of 66 pairs scoring 0.4-1.0, only about 40% were truly
    # ambiguous (template clones that one platform word tells apart score high),
    # so by default only near-identical descriptions are reported; lower it to audit.
    options = {
        "threshold": Option(
            float, 0.9, "Jaccard similarity of content words from which near-duplicates are reported", exclusive_minimum=0, maximum=1
        )
    }

    def check_catalog(self, catalog: Catalog, ctx: RuleContext):
        skills = [s for s in catalog.visible if s.description.strip()]
        # Listings cut descriptions (Codex at 1,024, Claude Code at 1,536 characters):
        # what the model compares is the start.
        texts = [s.description[:_LISTED_CHARS] for s in skills]
        from ..catalog import overlap

        for found in overlap.find_overlaps(texts, threshold=ctx.options["threshold"], kept=ctx.kept):
            skill, partner = skills[found.index], skills[found.partner]
            if skill.context:
                continue  # never reported (and its span would parse a sibling's frontmatter for nothing)
            where = _shown(catalog, skill, partner.package.skill_md_path)
            if found.identical:
                message = f"the description is identical to that of '{partner.name}' ({where}): the model cannot tell them apart"
                level = Severity.WARNING
            else:
                message = (
                    f"the description is {found.score:.0%} the same (shared content words) as that of "
                    f"'{partner.name}' ({where}): say what sets this skill apart and when to use it instead"
                )
                level = Severity.INFO
            yield skill.package, Finding(
                message,
                _description_span(skill.package),
                severities={catalog.target: level},
                related=(Related(f"closest: '{partner.name}'", partner.package.skill_md_path, _description_span(partner.package)),),
            )


def _shown(catalog: Catalog, skill, path) -> str:
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
    view = package.canonical
    pair = view.key_node(key) if view.mapping is not None else None
    return view.span(pair[1]) if pair else Span(1, 1, 1, 4)


def _description_span(package) -> Span:
    return _value_span(package, "description")


def _name_span(package) -> Span:
    return _value_span(package, "name")


RULES = [CatalogDescriptionTruncated, CatalogSkillOmitted, DescriptionOverlap, DuplicateName]
