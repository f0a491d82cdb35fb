"""SL50x: the catalog budget: descriptions shortened or skills left out of a surface's catalog or listing."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...diagnostics import Finding, Severity, Span, counted
from ...rule import CatalogRule, RuleContext, severities

if TYPE_CHECKING:  # types only: the analysis is imported by the rule that runs it
    from ...catalog.model import Catalog


class CatalogDescriptionTruncated(CatalogRule):
    code = "SL501"
    name = "catalog-description-truncated"
    summary = "Codex would shorten this skill's description to fit its catalog budget"
    severity = severities("warning: codex")

    def check_catalog(self, catalog: Catalog, ctx: RuleContext):
        from ...catalog.render import budget_words, catalog_options, codex_render, description_span

        from ...catalog import codex

        render, by_path = codex_render(catalog, catalog_options(ctx.settings))
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
                f"{counted(receipt.total_count, 'skill')} exceeds its {budget_words(receipt)} budget"
                + (f" ({receipt.warning})" if receipt.warning else ""),
                description_span(package),
                severities={"codex": level},
            )

    def context_finding(self, catalog: Catalog, package, others, ctx: RuleContext) -> Finding | None:
        from ...catalog.render import budget_words, catalog_options, codex_render, count, description_span, some_names

        receipt = codex_render(catalog, catalog_options(ctx.settings))[0].receipt
        level = Severity.WARNING if receipt.warning else Severity.INFO
        return Finding(
            f"Codex would shorten {count(others, 'description')} of skills not linted in this run "
            f"({some_names(others)}) to fit this skill's catalog of {counted(receipt.total_count, 'skill')} into its "
            f"{budget_words(receipt)} budget" + (f" ({receipt.warning})" if receipt.warning else ""),
            description_span(package),
            severities={"codex": level},
        )


class CatalogSkillOmitted(CatalogRule):
    code = "SL502"
    name = "catalog-skill-omitted"
    summary = "Codex would leave this skill out of the model-visible catalog"
    severity = severities("error: codex")

    def check_catalog(self, catalog: Catalog, ctx: RuleContext):
        from ...catalog.render import budget_words, catalog_options, codex_render

        render, by_path = codex_render(catalog, catalog_options(ctx.settings))
        receipt = render.receipt
        for skill in receipt.skills:
            if skill.included:
                continue
            package = by_path[skill.path]
            yield package, Finding(
                f"Codex would not list this skill: its {receipt.total_count}-skill catalog needs more than the "
                f"{budget_words(receipt)} budget even without descriptions; {counted(receipt.omitted_count, 'skill')} "
                f"{'is' if receipt.omitted_count == 1 else 'are'} left out ({receipt.warning})",
                Span(1, 1, 1, 4),
            )

    def context_finding(self, catalog: Catalog, package, others, ctx: RuleContext) -> Finding | None:
        from ...catalog.render import budget_words, catalog_options, codex_render, count, description_span, some_names

        receipt = codex_render(catalog, catalog_options(ctx.settings))[0].receipt
        return Finding(
            f"this skill's Codex catalog of {counted(receipt.total_count, 'skill')} needs more than the {budget_words(receipt)} "
            f"budget even without descriptions: Codex leaves out {count(others, 'skill')} not linted in this run "
            f"({some_names(others)}; {receipt.warning})",
            description_span(package),
        )


class ListingOverBudget(CatalogRule):
    code = "SL503"
    name = "listing-over-budget"
    summary = "The skill listing exceeds its budget: Claude Code drops descriptions, Copilot CLI drops whole skills"
    severity = severities("warning: claude-code copilot")

    def check_catalog(self, catalog: Catalog, ctx: RuleContext):
        from ...catalog.render import catalog_options, description_span, listing_for

        if catalog.surface.catalog_model == "cli-listing":
            yield from self._copilot(catalog, ctx)
            return
        if catalog.surface.catalog_model != "listing":
            return
        receipt = listing_for(catalog, catalog_options(ctx.settings))
        if not receipt.over_budget:
            return
        if receipt.fits_without_descriptions:
            loss = (
                f"~{receipt.descriptions_to_drop} of its {counted(receipt.descriptions_at_risk, 'description')} must be dropped "
                f"to fit (estimate, most expensive first; Claude Code drops the least-used, so which is unknown)"
            )
        else:
            at_risk = receipt.descriptions_at_risk
            dropped = f"all {at_risk} descriptions" if at_risk != 1 else "its one description"
            loss = f"even without descriptions the names do not fit: {dropped} would be dropped"
        for skill in receipt.skills:
            entry = skill.key
            if skill.text_chars:
                cost = f"this skill's entry costs ~{skill.cost:,} characters (~{skill.name_cost:,} without description)"
            else:
                cost = f"this skill's entry costs ~{skill.cost:,} characters (name only)"
            yield entry.package, Finding(
                f"Claude Code's skill listing of {receipt.included} skill{'' if receipt.included == 1 else 's'} is ~{receipt.used:,} characters, "
                f"~{receipt.over_by:,} over its {receipt.budget:,}-character budget ({receipt.budget_source}): {loss}; {cost}",
                description_span(entry.package),
            )


    def _copilot(self, catalog: Catalog, ctx: RuleContext):
        from ...catalog.render import catalog_options, copilot_listing_for, description_span

        from ...catalog import copilot

        shown = copilot_listing_for(catalog, catalog_options(ctx.settings))
        for skill in shown.skills:
            if not skill.included:
                yield skill.key.package, Finding(
                    f"Copilot CLI would not list this skill: it lists skills by name until its {shown.budget:,}-character "
                    f"budget is spent and stops at the first that does not fit ({shown.included} of {shown.total} shown; "
                    f"this skill's entry costs {skill.cost:,} characters) [2ND: {copilot.EVIDENCE}]",
                    description_span(skill.key.package),
                )

    def context_finding(self, catalog: Catalog, package, others, ctx: RuleContext):
        from ...catalog.render import catalog_options, copilot_listing_for, count, description_span, some_names

        if catalog.surface.catalog_model != "cli-listing":
            return None  # Claude Code's finding goes to every listed skill, linted ones included
        from ...catalog import copilot

        shown = copilot_listing_for(catalog, catalog_options(ctx.settings))
        return Finding(
            f"this skill's Copilot CLI listing overflows its {shown.budget:,}-character budget: "
            f"{count(others, 'skill')} not linted in this run are past the cut and invisible to the model "
            f"({some_names(others)}; {shown.included} of {shown.total} shown) [2ND: {copilot.EVIDENCE}]",
            description_span(package),
        )


RULES = [CatalogDescriptionTruncated, CatalogSkillOmitted, ListingOverBudget]
