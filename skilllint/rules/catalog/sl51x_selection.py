"""SL51x: choosing a skill from the catalog: overlapping descriptions, duplicate names, no trigger, confusion pairs."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Iterator

from ...diagnostics import Finding, Related, Severity
from ...skill.package import SkillPackage
from ...rule import CatalogRule, Option, Rule, RuleContext, severities

if TYPE_CHECKING:  # types only: the analysis is imported by the rule that runs it
    from ...catalog.model import Catalog


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
        from ...catalog.render import LISTED_CHARS, description_span, shown_path

        from ...catalog.model import name_key

        # One skill per name: same-named skills (copies of one skill in two folders a surface
        # scans) are a clash of names, SL511's problem, not two descriptions to tell apart.
        first: dict[str, object] = {}
        for s in catalog.visible:
            if s.description.strip():
                key = name_key(catalog.surface, s.name)
                if key not in first or (first[key].context and not s.context):
                    first[key] = s
        skills = list(first.values())
        # Listings cut descriptions (Codex at 1,024, Claude Code at 1,536 characters):
        # what the model compares is the start.
        texts = [s.description[:LISTED_CHARS] for s in skills]
        from ...catalog import overlap

        from ...catalog.distinguish import Distinctions

        found_overlaps = overlap.find_overlaps(texts, threshold=ctx.options["threshold"], kept=ctx.kept)
        # What a router reads to tell two near-duplicates apart: the words one has and the other lacks,
        # by their rarity in this catalog (a product name): catalog.distinguish.
        distinctions = Distinctions(texts) if found_overlaps else None
        for found in found_overlaps:
            skill, partner = skills[found.index], skills[found.partner]
            if skill.context:
                continue  # never reported (and its span would parse a sibling's frontmatter for nothing)
            if not found.identical and distinctions.distinguishable(found.index, found.partner):
                continue
            where = shown_path(catalog, skill, partner.package.skill_md_path)
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
                description_span(skill.package),
                severities={catalog.target: level},
                related=(Related(f"closest: '{partner.name}'", partner.package.skill_md_path, description_span(partner.package)),),
            )


class DuplicateName(CatalogRule):
    code = "SL511"
    name = "duplicate-name"
    summary = "Two skills in one catalog share a name"
    severity = severities("warning: all; error: codex")
    judges_listings = True  # a surface that lists both copies shows the clash, whatever the run lints for

    def check_catalog(self, catalog: Catalog, ctx: RuleContext):
        from ...catalog.model import name_key
        from ...catalog.render import MAX_PARTNERS, NameGroup, duplicate_effect, name_span, shown_path

        groups: dict[str, list] = {}
        for skill in catalog.skills:
            groups.setdefault(name_key(catalog.surface, skill.name), []).append(skill)
        for skills in groups.values():
            if len(skills) < 2:
                continue
            group = NameGroup(skills)
            for skill in self._told(skills):
                # A few of the others by path, and how many more: with every one of N
                # same-named skills naming all the others, output grows with N squared.
                others = [s for s in skills[: MAX_PARTNERS + 1] if s is not skill][:MAX_PARTNERS]
                more = len(skills) - 1 - len(others)
                where = "; ".join(
                    (f"{o.scope} scope: " if o.scope != "repo" else "") + shown_path(catalog, skill, o.package.skill_md_path)
                    for o in others
                ) + (f"; and {more} more" if more else "")
                effect, level = duplicate_effect(catalog, skill, group)
                if level is None and catalog.surface.scope_precedence is not None and self._copies(skills):
                    # One skill shipped twice, byte for byte: the surface shows it twice or one of the
                    # two, the same either way, until one copy is edited alone.
                    effect = (
                        "the copies' SKILL.md files are identical: each surface named lists one skill twice, or either "
                        "copy; link one folder to the other so that every surface reads one copy"
                    )
                    level = Severity.INFO
                yield skill.package, Finding(
                    f"another skill in the same catalog is also named '{skill.name}' ({where})",
                    name_span(skill.package),
                    effect=effect,
                    severities={catalog.target: level} if level else None,
                    related=tuple(
                        Related(f"also named '{o.name}' ({o.scope} scope)", o.package.skill_md_path, name_span(o.package))
                        for o in others
                    ),
                )


    @staticmethod
    def _copies(skills: list) -> bool:
        """Whether every skill of the group has the same SKILL.md, byte for byte."""
        first = skills[0].package.raw
        return bool(first) and all(s.package.raw == first for s in skills[1:])

    @staticmethod
    def _told(skills: list) -> list:
        """The skills of one name group that carry the finding: one per problem. Each linted skill
        the surface shadows (its own problem: it is never listed); where none is, the first linted
        one by path, naming the others (installed and sibling skills are not this run's to report)."""
        linted = [s for s in skills if not s.context]
        shadowed = [s for s in linted if s.shadowed_by is not None]
        if shadowed:
            return shadowed
        if any(s.shadowed_by is not None for s in skills):
            return [s for s in linted if any(o.shadowed_by is s for o in skills)][:1]  # the winner, told what it hides
        return sorted(linted, key=lambda s: str(s.package.skill_md_path))[:1]


# How many skills of one catalog must share a line for it to be a template's: one skill's
# line, or one a pair that split a subject share, still says what they are about.
TEMPLATE_LINE_SKILLS = 3


class RoutingConfusion(CatalogRule):
    code = "SL513"
    name = "routing-confusion"
    summary = "The skill's own headings and opening route first to a sibling's catalog line: the model may confuse the two"
    severity = severities("info: all")
    opt_in = True
    # What routes is a lexical proxy (catalog/lexical_router.py): it reads words, not meaning,
    # so it points at pairs worth a look; opt-in until its precision on real collections is known.

    def check_catalog(self, catalog: Catalog, ctx: RuleContext):
        from ...catalog.lexical_router import DEFAULT_FLOOR, LexicalIndex
        from ...catalog.render import catalog_options, description_span, rendered_skills, shown_path
        from ...catalog.routing import SkillView
        from ...catalog.own_words import line_keys, own_words

        rendered = [r for r in rendered_skills(catalog, catalog_options(ctx.settings)) if not r.skill.hidden]
        if len(rendered) < 2:
            return
        views = [SkillView(r.skill.name, r.skill.package.skill_md_path, r.shown, r.full, r.included) for r in rendered]
        index = LexicalIndex(views)
        by_name = {r.skill.name: r.skill for r in rendered}
        # A line several skills of the catalog share is their template's (its section titles,
        # "Core Workflows", "Known Pitfalls"; its standard opening), not what one of them is about.
        seen = Counter(key for r in rendered if r.skill.package.readable for key in line_keys(r.skill.package.body))
        shared = frozenset(key for key, count in seen.items() if count >= TEMPLATE_LINE_SKILLS)
        for item in rendered:
            skill = item.skill
            if skill.context or not item.included or not item.shown.strip() or not skill.package.readable:
                continue  # left out or cut to nothing: SL501/SL503 say so
            query = own_words(skill.package.body, shared)
            if not query:
                continue
            ranked = index.rank(query)
            if not ranked or ranked[0].name == skill.name or ranked[0].share < DEFAULT_FLOOR:
                continue
            own = next((r for r in ranked if r.name == skill.name), None)
            winner = ranked[0]
            if own is not None and own.score >= winner.score:
                continue  # a tie: not routed away
            partner = by_name.get(winner.name)
            if partner is None or partner is skill:
                continue
            where = shown_path(catalog, skill, partner.package.skill_md_path)
            standing = f"it ranks {ranked.index(own) + 1}" if own is not None and own.score > 0 else "its own line shares none of them"
            yield skill.package, Finding(
                f"this skill's own headings and opening, read as a request, route first to '{partner.name}' ({where}) and not to it "
                f"({standing}; a lexical proxy over the catalog lines as rendered): say in the description what this "
                f"skill is for that '{partner.name}' is not",
                description_span(skill.package),
                severities={catalog.target: Severity.INFO},
                related=(Related(f"routes here: '{partner.name}'", partner.package.skill_md_path, description_span(partner.package)),),
            )


class DescriptionWithoutTrigger(Rule):
    code = "SL512"
    name = "description-without-trigger"
    summary = "The description says what the skill does but not when to use it"
    severity = severities("info: all")

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        from ...catalog.description_trigger import find_trigger
        from ...skill.fields.field_checks import value_span

        view = package.canonical
        mapping = view.mapping
        if not isinstance(mapping, dict):
            return
        description = mapping.get("description")
        if not isinstance(description, str) or not description.strip():
            return  # SL111 / SL112
        if find_trigger(description):
            return
        targets = None
        when = mapping.get("when_to_use")
        if isinstance(when, str) and when.strip():
            # Claude Code lists `when_to_use` after the description; other surfaces ignore the key.
            targets = tuple(t.id for t in ctx.targets if not t.lists_when_to_use)
            if not targets:
                return
        yield Finding(
            "`description` says what the skill does but not when to use it: agents pick a skill from its "
            "description alone; add the situations that call for it, e.g. \"Use when the user asks to …\"",
            value_span(view, "description", package),
            targets=targets,
        )


RULES = [DescriptionOverlap, DuplicateName, RoutingConfusion, DescriptionWithoutTrigger]
