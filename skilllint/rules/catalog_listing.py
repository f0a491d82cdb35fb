"""SL503: a skill listing over its budget: Claude Code (docs/surfaces.md §2b) and Copilot CLI ([2ND], §4).

The listing model is :mod:`skilllint.catalog.claude_code`; its line format and
the drop order are approximations (see there). Copilot's CLI budget (15,000
characters, [2ND]) is modelled in :mod:`skilllint.catalog.copilot`: skills in name
order until the first that does not fit; the rest are not listed at all.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..catalog.model import Catalog
from ..diagnostics import Finding, counted
from ..registry import RuleContext, severities
from .catalog import CatalogRule, _count, _description_span, _names, catalog_options

if TYPE_CHECKING:  # loaded when a Claude Code or Copilot catalog is judged
    from ..catalog import claude_code, copilot


def listing_for(catalog: Catalog, options: dict) -> claude_code.ListingReceipt:
    """The Claude Code listing of one catalog, computed once per run."""
    from ..catalog import claude_code

    cached = getattr(catalog, "_claude_code_listing", None)
    if cached is not None:
        return cached
    entries = []
    for skill in catalog.loaded:  # a shadowed skill is not loaded, so not listed
        description = skill.description or skill.first_body_line
        entries.append(claude_code.ListingEntry(skill.name, description, skill.when_to_use, hidden=skill.hidden, key=skill))
    receipt = claude_code.listing(entries, context_window=options.get("context-window"), budget_chars=options.get("budget-chars"))
    catalog._claude_code_listing = receipt  # type: ignore[attr-defined]
    return receipt


class ListingOverBudget(CatalogRule):
    code = "SL503"
    name = "listing-over-budget"
    summary = "The skill listing exceeds its budget: Claude Code drops descriptions, Copilot CLI drops whole skills"
    severity = severities("warning: claude-code copilot")

    def check_catalog(self, catalog: Catalog, ctx: RuleContext):
        if catalog.target == "copilot":
            yield from self._copilot(catalog, ctx)
            return
        if catalog.target != "claude-code":
            return
        receipt = listing_for(catalog, catalog_options(ctx))
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
                _description_span(entry.package),
            )


    def _copilot(self, catalog: Catalog, ctx: RuleContext):
        from ..catalog import copilot

        shown = copilot_listing_for(catalog, catalog_options(ctx))
        for skill in shown.skills:
            if not skill.included:
                yield skill.key.package, Finding(
                    f"Copilot CLI would not list this skill: it lists skills by name until its {shown.budget:,}-character "
                    f"budget is spent and stops at the first that does not fit ({shown.included} of {shown.total} shown; "
                    f"this skill's entry costs {skill.cost:,} characters) [2ND: {copilot.EVIDENCE}]",
                    _description_span(skill.key.package),
                )

    def context_finding(self, catalog: Catalog, package, others, ctx: RuleContext):
        if catalog.target != "copilot":
            return None  # Claude Code's finding goes to every listed skill, linted ones included
        from ..catalog import copilot

        shown = copilot_listing_for(catalog, catalog_options(ctx))
        return Finding(
            f"this skill's Copilot CLI listing overflows its {shown.budget:,}-character budget: "
            f"{_count(others, 'skill')} not linted in this run are past the cut and invisible to the model "
            f"({_names(others)}; {shown.included} of {shown.total} shown) [2ND: {copilot.EVIDENCE}]",
            _description_span(package),
        )


def copilot_listing_for(catalog: Catalog, options: dict) -> copilot.CopilotListing:
    """The Copilot CLI listing of one catalog, computed once per run."""
    from ..catalog import copilot

    cached = getattr(catalog, "_copilot_listing", None)
    if cached is None:
        entries = [copilot.ListingEntry(s.name, s.description, key=s) for s in catalog.visible]
        cached = catalog._copilot_listing = copilot.listing(entries, options.get("budget-chars"))  # type: ignore[attr-defined]
    return cached


RULES = [ListingOverBudget]
