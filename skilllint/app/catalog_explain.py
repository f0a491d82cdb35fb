"""`skilllint catalog --explain`: why a surface lists a skill, shortens it, or never shows it.

The answers are the decisions as they were made, never worked out again here:

* the folders searched, and the skills no catalog takes with the reason, from the
  :class:`~skilllint.catalog.discovery_log.DiscoveryLog` the search filled in;
* per catalog, every candidate (linted skills, their siblings, installed skills) and its
  fate: hidden (:func:`~skilllint.catalog.model.hidden_reason`), shadowed (the winner
  :func:`~skilllint.catalog.model.apply_precedence` recorded), not loaded by Codex
  (:func:`~skilllint.catalog.model.codex_skip_reason`), or what the budget made of it: the
  surface's own render of the catalog (:mod:`skilllint.catalog.render`, made once per run
  and shared with the receipt), read skill by skill;
* the name collisions: who won under the surface's precedence, or that the surface keeps
  both (Codex), or that which one is used is not defined (same scope: SL511).
"""

from __future__ import annotations

from ..catalog.discovery_log import DiscoveryLog
from ..catalog.model import Catalog, CatalogSkill, codex_skip_reason, hidden_reason, name_key
from ..output import printable

FATES = ("listed", "shortened", "omitted", "hidden", "shadowed", "not loaded")
HOW_SEARCHED = {
    "named": "named on the command line",
    "siblings": "searched for the rest of a linted skill's catalog",
    "configured": "a configured catalog root (--catalog-root, [catalog] roots)",
}


def search_explanation(log: DiscoveryLog, target_id: str) -> dict:
    """The folders searched and the skills ``target_id`` loads into no catalog, each once."""
    rejected, seen = [], set()
    for item in log.rejections:
        key = (str(item.path), item.reason)
        if item.target != target_id or key in seen:
            continue
        seen.add(key)
        rejected.append({"path": str(item.path), "scope": item.scope, "reason": item.reason})
    searched = [
        {"path": str(root.path), "scope": root.scope, "how": root.how, "found": root.found, "note": root.note}
        for root in log.roots
    ]
    return {"searched": searched, "rejected": rejected}


def catalog_explanation(catalog: Catalog, options: dict) -> dict:
    """Every candidate of ``catalog`` with its fate, and its name collisions (``options``: the
    ``[catalog]`` settings the receipt was rendered with)."""
    fates = _budget_fates(catalog, options)
    candidates = []
    for skill in catalog.skills:
        fate, reason = _fate(catalog, skill, fates)
        candidates.append(
            {
                "name": skill.name,
                "path": str(skill.package.skill_md_path),
                "scope": skill.scope,
                "linted": not skill.context,
                "fate": fate,
                "reason": reason,
            }
        )
    order = catalog.surface.scope_precedence
    return {
        "precedence": list(order) if order is not None else None,
        "candidates": candidates,
        "collisions": _collisions(catalog, candidates),
    }


def _fate(catalog: Catalog, skill: CatalogSkill, fates: dict) -> tuple[str, str | None]:
    surface = catalog.surface.called
    if skill.shadowed_by is not None:
        winner = skill.shadowed_by
        order = " > ".join(catalog.surface.scope_precedence or ())
        return "shadowed", (
            f"the {winner.scope}-scope skill of the same name ({winner.package.skill_md_path}) wins under "
            f"{surface}'s precedence ({order}): this one is not loaded"
        )
    if skill.hidden:
        mapping = skill.package.view(catalog.surface).mapping
        return "hidden", (hidden_reason(skill.package, mapping, catalog.surface) if mapping is not None else None) or "hidden"
    if catalog.surface.catalog_model == "budgeted-catalog":
        skipped = codex_skip_reason(skill)
        if skipped is not None:
            return "not loaded", skipped
    return fates.get(id(skill), ("listed", None))


def _budget_fates(catalog: Catalog, options: dict) -> dict:
    """id(skill) -> (fate, reason) for every skill the budget shortened or left out, read from
    the surface's render of the catalog (the one the receipt shows)."""
    model = catalog.surface.catalog_model
    if model == "budgeted-catalog":
        return _codex_fates(catalog, options)
    if model == "listing":
        return _claude_code_fates(catalog, options)
    return _copilot_fates(catalog, options)


def _codex_fates(catalog: Catalog, options: dict) -> dict:
    from ..catalog.render import codex_render

    render, _ = codex_render(catalog, options)
    receipt = render.receipt
    by_path = {str(s.package.skill_md_path.absolute()): s for s in catalog.visible}
    budget = f"{receipt.budget_limit:,} {receipt.budget_unit}"
    full = sum(item.full_cost for item in receipt.skills)
    minimum = sum(item.minimum_cost for item in receipt.skills)
    fates = {}
    for item in receipt.skills:
        skill = by_path[item.path]
        if not item.included:
            fates[id(skill)] = (
                "omitted",
                f"the {receipt.total_count} skills' shortest lines cost {minimum:,} {receipt.budget_unit}, over the budget "
                f"of {budget}: Codex keeps the lines that fit in its order and leaves this one out",
            )
        elif item.chars_shown < item.description_chars and receipt.phase == "descriptions-removed":
            fates[id(skill)] = (
                "shortened",
                f"description removed: the {receipt.total_count} skills' shortest lines alone cost {minimum:,} "
                f"{receipt.budget_unit}, over the budget of {budget}, so Codex lists no description",
            )
        elif item.chars_shown < item.description_chars:
            fates[id(skill)] = (
                "shortened",
                f"description cut to {item.chars_shown:,} of {item.description_chars:,} characters: the whole catalog would cost "
                f"{full:,} {receipt.budget_unit}, over the budget of {budget}; Codex shares what the shortest lines "
                f"({minimum:,}) leave among the descriptions",
            )
    return fates


def _claude_code_fates(catalog: Catalog, options: dict) -> dict:
    from ..catalog import claude_code
    from ..catalog.render import listing_for

    receipt = listing_for(catalog, options)
    fates = {}
    for item in receipt.skills:
        reasons = []
        if item.cut_chars:
            reasons.append(
                f"description and when_to_use cut at {claude_code.MAX_DESC_CHARS:,} characters "
                f"(skillListingMaxDescChars): {item.cut_chars:,} characters lost"
            )
        if item.estimated_dropped:
            reasons.append(
                f"description dropped (an estimate): the listing costs {receipt.used:,} of a {receipt.budget:,}-character "
                "budget; Claude Code drops the descriptions of the least-used skills first, so only the name may be listed"
            )
        if reasons:
            fates[id(item.key)] = ("shortened", "; ".join(reasons))
        elif item.at_risk:
            fates[id(item.key)] = (
                "listed",
                "listed whole in the estimate, but at risk: the listing is over budget and which descriptions Claude Code drops depends on usage",
            )
    return fates


def _copilot_fates(catalog: Catalog, options: dict) -> dict:
    from ..catalog.render import copilot_listing_for

    listing = copilot_listing_for(catalog, options)
    return {
        id(item.key): (
            "omitted",
            f"Copilot CLI lists skills in name order until the first that does not fit its {listing.budget:,}-character "
            "budget, and none after it",
        )
        for item in listing.skills
        if not item.included
    }


def _collisions(catalog: Catalog, candidates: list[dict]) -> list[dict]:
    groups: dict[str, list[int]] = {}
    for index, skill in enumerate(catalog.skills):
        groups.setdefault(name_key(catalog.surface, skill.name), []).append(index)
    surface = catalog.surface.called
    found = []
    for indexes in groups.values():
        if len(indexes) < 2:
            continue
        skills = [catalog.skills[i] for i in indexes]
        shadowed = [s for s in skills if s.shadowed_by is not None]
        kept = [s for s in skills if s.shadowed_by is None]
        if catalog.surface.scope_precedence is None:
            effect = f"{surface} keeps and lists every one; `${skills[0].name}` mentions select none (SL511)"
        elif shadowed:
            effect = f"the {kept[0].scope}-scope skill wins under {surface}'s precedence; {len(shadowed)} shadowed"
            if len(kept) > 1:
                effect += f"; which of the {len(kept)} {kept[0].scope}-scope skills {surface} uses is not defined (SL511)"
        else:
            effect = f"same scope ({skills[0].scope}): which one {surface} uses is not defined (SL511)"
        found.append(
            {
                "name": skills[0].name,
                "skills": [{"path": candidates[i]["path"], "scope": candidates[i]["scope"], "fate": candidates[i]["fate"]} for i in indexes],
                "effect": effect,
            }
        )
    return found


def search_text(explain: dict) -> list[str]:
    """The folders searched and the skills rejected, for a terminal (every text from the tree escaped)."""
    out = ["Discovery log: folders searched"]
    for root in explain["searched"]:
        note = f"; {printable(root['note'])}" if root["note"] else ""
        out.append(f"  - {printable(root['path'])} [{root['scope']}] {HOW_SEARCHED[root['how']]}: {root['found']} skill folder(s){note}")
    if explain["rejected"]:
        out.append("Rejected (in no catalog of this surface):")
        out += [f"  - {printable(item['path'])} [{item['scope']}]: {printable(item['reason'])}" for item in explain["rejected"]]
    else:
        out.append("Rejected: none")
    return out + [""]


def catalog_text(explain: dict) -> list[str]:
    """One catalog's candidates and collisions, for a terminal."""
    order = explain["precedence"]
    out = [f"  Candidates ({len(explain['candidates'])}; precedence: {' > '.join(order) if order else 'none, same-named skills are all kept'}):"]
    for item in explain["candidates"]:
        origin = "" if item["linted"] else ", not linted"
        reason = f": {printable(item['reason'])}" if item["reason"] else ""
        out.append(f"  - {item['fate'].upper()} {printable(item['name'])} [{item['scope']}{origin}] {printable(item['path'])}{reason}")
    for collision in explain["collisions"]:
        out.append(f"  Name collision `{printable(collision['name'])}`: {printable(collision['effect'])}")
        out += [f"      {item['fate']} [{item['scope']}] {printable(item['path'])}" for item in collision["skills"]]
    return out


# -- every surface at once: one repository, several agents ---------------------------------------


def surface_names(catalogs: list[Catalog], log: DiscoveryLog, linted_paths: set[str]) -> dict:
    """Who wins, per surface, for every name a linted skill carries: each copy (a SKILL.md) with
    its fate on every surface that found it, from the catalogs of a run whose targets are inferred
    (each skill in the listing of every surface that scans its folder, catalog.model) and the
    rejections those surfaces' placements recorded. A copy is ``listed`` (as ``plugin:name`` in a
    plugin), ``clash`` (listed beside a same-named copy: which one the surface uses is not defined,
    or Codex keeps both and ``$name`` selects neither), ``shadowed`` (a copy that wins under the
    surface's precedence hides it), ``hidden`` (kept out of the model's listing) or ``rejected``
    (the surface does not load it where it lies, or reads the same SKILL.md through another path)."""
    copies: dict[str, dict[str, dict]] = {}  # name key -> path -> surface -> fate

    def note(name: str, path: str, surface: str, fate: str, why: str | None, shown: str) -> None:
        entry = copies.setdefault(name.casefold(), {}).setdefault(path, {"name": name, "surfaces": {}})
        entry["surfaces"].setdefault(surface, {"fate": fate, "why": why, "as": shown})

    for catalog in catalogs:
        surface = catalog.surface
        groups: dict[str, list[CatalogSkill]] = {}
        for skill in catalog.skills:
            groups.setdefault(name_key(surface, skill.name), []).append(skill)
        for group in groups.values():
            kept = [s for s in group if s.shadowed_by is None]
            for skill in group:
                path = str(skill.package.skill_md_path)
                shown = f"{catalog.plugin}:{skill.name}" if catalog.kind == "plugin" and catalog.plugin else skill.name
                if skill.shadowed_by is not None:
                    winner = skill.shadowed_by
                    why = f"{winner.package.skill_md_path} wins ({winner.scope} scope" + (
                        ", an earlier skills folder)" if winner.scope == skill.scope else f" over {skill.scope})"
                    )
                    note(skill.name, path, surface.id, "shadowed", why, shown)
                elif skill.hidden:
                    note(skill.name, path, surface.id, "hidden", "kept out of the model's listing", shown)
                elif len(kept) > 1:
                    why = (
                        "both listed; `$name` mentions select neither"
                        if surface.scope_precedence is None
                        else "listed beside a same-named copy: which one is used is not defined"
                    )
                    note(skill.name, path, surface.id, "clash", why, shown)
                else:
                    trust = surface.workspace_needs_trust and skill.scope == "repo" and catalog.kind == "surface-roots"
                    note(skill.name, path, surface.id, "listed", "once the user trusts the workspace (docs/surfaces.md §4)" if trust else None, shown)
    named = {path: entry["name"] for group in copies.values() for path, entry in group.items()}
    for item in log.rejections:
        path = str(item.path)
        name = named.get(path)
        if name is not None:
            note(name, path, item.target, "rejected", item.reason, name)
    names = []
    for group in copies.values():
        if not any(path in linted_paths for path in group):
            continue  # a name only siblings or installed skills carry
        entries = [{"path": path, "surfaces": entry["surfaces"]} for path, entry in sorted(group.items())]
        names.append({"name": next(iter(group.values()))["name"], "copies": entries})
    names.sort(key=lambda item: item["name"].casefold())
    return {"names": names}


def surface_names_text(explain: dict) -> list[str]:
    """The names whose copies fare differently across surfaces, for a terminal; the others counted."""
    out = ["Who wins, per surface (targets inferred; each surface lists the folders it scans):"]
    quiet = 0
    for item in explain["names"]:
        eventful = len(item["copies"]) > 1 or any(
            fate["fate"] != "listed" for copy in item["copies"] for fate in copy["surfaces"].values()
        )
        if not eventful:
            quiet += 1
            continue
        out.append(f"  {printable(item['name'])}")
        for copy in item["copies"]:
            out.append(f"    {printable(copy['path'])}")
            for surface, fate in sorted(copy["surfaces"].items()):
                shown = f" as `{printable(fate['as'])}`" if fate["as"] != item["name"] else ""
                why = f": {printable(fate['why'])}" if fate["why"] else ""
                out.append(f"      {surface}: {fate['fate']}{shown}{why}")
    if quiet:
        out.append(f"  ({quiet} other name(s): one copy each, listed by every surface that scans its folder)")
    return out + [""]
