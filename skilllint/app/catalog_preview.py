"""`skilllint catalog`: what a surface would list for the skills under some paths.

The skills are grouped into catalogs exactly as the SL5xx rules see them
(:mod:`skilllint.catalog.model`, completed by :mod:`skilllint.lint.catalog_context`:
siblings in the repository and configured roots of installed skills), and each
catalog of the chosen target is rendered by that surface's model:

* codex: :mod:`skilllint.catalog.codex`, the renderer exactly;
* claude-code: :mod:`skilllint.catalog.claude_code`, an approximation;
* copilot: :mod:`skilllint.catalog.copilot`, an approximation from [2ND] sources.

Every surface's result is reported in one receipt shape (the JSON Schema is
``skilllint/schemas/catalog.schema.json``), with the surface's own receipt kept
under ``surface``.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..catalog.discovery_log import DiscoveryLog
from ..fsafe import is_within
from ..discovery.walk import discover
from ..output import printable, root_relative, source_root
from ..skill.package import SkillPackage
from ..targets import TARGETS
from ..catalog import claude_code, copilot
from ..lint.catalog_context import complete_catalogs
from ..catalog.model import Catalog, build_catalogs, catalog_roots, codex_skip_reason, read_entry

SCHEMA_VERSION = "2"
# How close each catalog model (Target.catalog_model) is to its surface.
EXACTNESS = {"budgeted-catalog": "exact", "listing": "approximation", "cli-listing": "approximation [2ND]"}


def catalog_report(
    paths: list[str],
    cwd: Path,
    settings,
    target_id: str,
    options: dict,
    *,
    explain: bool = False,
    tiers: bool = False,
    texts: bool = False,
    inferred=None,
) -> dict:
    """The receipts of every ``target_id`` catalog the skills under ``paths`` belong to. Their
    siblings elsewhere in the repository are loaded so that each catalog is whole, but a
    catalog of siblings only is none of these.

    ``explain``: with the discovery log (:mod:`skilllint.app.catalog_explain`): the folders
    searched, the skills no catalog takes and why, and each catalog's candidates and what
    became of them. ``tiers``: with each linted skill's disclosure ladder
    (:mod:`skilllint.app.disclosure_tiers`). ``texts``: each skill of a receipt also carries
    ``shown``, its description as the surface renders it ("" when left out), and ``full``,
    the text the surface would list uncut (``skilllint eval`` routes on them; the catalog
    report's schema has neither). ``inferred``: with ``explain``, the same configuration with
    its targets inferred, for who wins on every surface (:func:`~skilllint.app.catalog_explain.surface_names`)."""
    log = DiscoveryLog() if explain else None
    found = discover(paths, cwd, exclude=settings.exclude, exclude_base=settings.base, use_gitignore=settings.respect_gitignore)
    if log is not None:
        for raw in paths:
            path = Path(os.path.normpath(cwd / raw))
            log.searched(path, "repo", "named", sum(1 for item in found.packages if is_within(path, item.root)))
    target = TARGETS[target_id]
    packages, not_loaded = [], []
    for item in found.packages:
        package = SkillPackage(item.root, item.lint_root)
        reason = _unloadable(package, target)
        if reason:
            not_loaded.append({"path": str(package.skill_md_path or package.root), "reason": reason})
        packages.append(package)
    warnings = list(found.warnings)
    completion = complete_catalogs(packages, paths, settings, cwd, 1024 * 1024, warnings, log)
    catalogs = [
        c
        for c in build_catalogs(packages, settings, completion.siblings, completion.extra, completion.boundary, log=log, memo=completion.placements)
        if c.target == target_id and any(not skill.context for skill in c.skills)
    ]
    receipts = []
    for catalog in sorted(catalogs, key=lambda c: str(c.root)):
        receipt = _RECEIPTS[target.catalog_model](catalog, options)
        receipt["sources"] = _sources(catalog, receipt)
        not_loaded += receipt.pop("_not_loaded")
        listed = receipt.pop("_listed")
        if texts:
            from ..catalog.render import rendered_skills  # the surface's render, made once: the receipt's

            for skill, rendered in zip(receipt["skills"], rendered_skills(catalog, options)):
                skill["shown"], skill["full"] = rendered.shown, rendered.full
        if explain:
            from .catalog_explain import catalog_explanation

            receipt["explain"] = catalog_explanation(catalog, options)
        if tiers:
            from .disclosure_tiers import catalog_tiers

            receipt["tiers"] = catalog_tiers(catalog, listed, settings)
        receipts.append(receipt)
    report = {
        "version": SCHEMA_VERSION,
        "target": target_id,
        "catalogs": receipts,
        "not_loaded": not_loaded,
        "warnings": warnings,
    }
    if log is not None:
        from .catalog_explain import search_explanation

        report["explain"] = search_explanation(log, target_id)
        if inferred is not None:
            report["explain"]["surfaces"] = _every_surface(packages, paths, cwd, inferred)
    return report


def _every_surface(packages: list[SkillPackage], paths: list[str], cwd: Path, settings) -> dict:
    """Who wins on every surface: the catalogs a run with inferred targets forms (each skill also
    in the listing of every surface that scans its folder), read by name."""
    from .catalog_explain import surface_names

    log = DiscoveryLog()
    completion = complete_catalogs(packages, paths, settings, cwd, 1024 * 1024, [], log)
    catalogs = build_catalogs(packages, settings, completion.siblings, completion.extra, completion.boundary, log=log, memo=completion.placements)
    return surface_names(catalogs, log, {str(p.skill_md_path) for p in packages})


def _unloadable(package: SkillPackage, target) -> str | None:
    if package.skill_md_name not in target.skill_filenames or not package.readable or package.decode_problem:
        return f"{target.title} finds no readable SKILL.md"
    if read_entry(package, target) is None:
        return f"frontmatter {target.title} cannot read (SL003-SL006)"
    return None


def _base(catalog: Catalog) -> dict:
    roots = [str(root) for root in catalog_roots(catalog)]
    return {
        "root": str(catalog.root),
        "roots": roots,
        "kind": catalog.kind,
        "plugin": catalog.plugin or None,
        "model": EXACTNESS[catalog.surface.catalog_model],
    }


def _skill(skill, *, description_chars, chars_shown, included, minimum_cost, full_cost) -> dict:
    return {
        "name": skill.name,
        "path": str(skill.package.skill_md_path),
        "scope": skill.scope,
        "linted": not skill.context,
        "description_chars": description_chars,
        "chars_shown": chars_shown,
        "included": included,
        "minimum_cost": minimum_cost,
        "full_cost": full_cost,
    }


def _codex(catalog: Catalog, options: dict) -> dict:
    from ..catalog.render import codex_render

    render, _ = codex_render(catalog, options)
    receipt = render.receipt
    by_path = {str(s.package.skill_md_path.absolute()): s for s in catalog.visible}
    skills, listed = [], []
    lines = iter(render.lines)
    for item in receipt.skills:
        skills.append(
            _skill(
                by_path[item.path],
                description_chars=item.description_chars,
                chars_shown=item.chars_shown,
                included=item.included,
                minimum_cost=item.minimum_cost,
                full_cost=item.full_cost,
            )
        )
        listed.append((by_path[item.path], skills[-1], next(lines, "") if item.included else ""))  # rendered in receipt order
    skipped = [
        {"path": str(s.package.skill_md_path), "reason": reason}
        for s in catalog.visible
        if (reason := codex_skip_reason(s)) is not None and not s.context
    ]
    return {
        **_base(catalog),
        "total": receipt.total_count,
        "included": receipt.included_count,
        "omitted": receipt.omitted_count,
        "descriptions_truncated": receipt.truncated_description_count,
        "truncated_characters": receipt.truncated_description_chars,
        "budget": {"unit": receipt.budget_unit, "limit": receipt.budget_limit, "source": _codex_budget_source(options)},
        "budget_used": receipt.budget_used,
        "warning": receipt.warning,
        "skills": skills,
        "rendered": render.text,
        "surface": receipt.to_dict(),
        "_not_loaded": skipped,
        "_listed": listed,
    }


def _codex_budget_source(options: dict) -> str:
    if options.get("budget-chars"):
        return "set directly"
    if options.get("budget-tokens"):
        return "skills.max_context_tokens"
    if options.get("context-window"):
        return f"2% of a {options['context-window']:,}-token window"
    return "context window unknown: 8,000 characters"


def _claude_code(catalog: Catalog, options: dict) -> dict:
    from ..catalog.render import listing_for

    receipt = listing_for(catalog, options)
    skills, lines, listed = [], [], []
    for item in receipt.skills:
        skill = item.key
        shown = 0 if item.estimated_dropped else item.text_chars
        skills.append(
            _skill(
                skill,
                description_chars=item.text_chars + item.cut_chars,
                chars_shown=shown,
                included=True,  # Claude Code always lists the name
                minimum_cost=item.name_cost,
                full_cost=item.cost,
            )
        )
        lines.append(claude_code.line(item.name, "" if item.estimated_dropped else item.text))
        listed.append((skill, skills[-1], lines[-1].rstrip("\n")))
    return {
        **_base(catalog),
        "total": receipt.total,
        "included": receipt.included,
        "omitted": 0,
        "descriptions_truncated": sum(1 for s in receipt.skills if s.cut_chars or s.estimated_dropped),
        "truncated_characters": sum(s.cut_chars + (s.text_chars if s.estimated_dropped else 0) for s in receipt.skills),
        "budget": {"unit": "characters", "limit": receipt.budget, "source": receipt.budget_source},
        "budget_used": receipt.used_after_drop,
        "warning": None,  # Claude Code tells only its debug log, /doctor and /context
        "skills": skills,
        "rendered": "".join(lines).rstrip("\n"),
        "surface": receipt.as_dict(),
        "_not_loaded": [],
        "_listed": listed,
    }


def _copilot(catalog: Catalog, options: dict) -> dict:
    from ..catalog.render import copilot_listing_for

    listing = copilot_listing_for(catalog, options)
    skills = [
        _skill(
            item.key,
            description_chars=item.description_chars,
            chars_shown=item.description_chars if item.included else 0,
            included=item.included,
            minimum_cost=item.cost,  # a skill is listed whole or not at all
            full_cost=item.cost,
        )
        for item in listing.skills
    ]
    return {
        **_base(catalog),
        "total": listing.total,
        "included": listing.included,
        "omitted": listing.omitted,
        "descriptions_truncated": 0,
        "truncated_characters": 0,
        "budget": {"unit": "characters", "limit": listing.budget, "source": "set directly" if options.get("budget-chars") else copilot.EVIDENCE},
        "budget_used": listing.used,
        "warning": listing.notice,
        "skills": skills,
        "rendered": listing.text,
        "surface": {"sources": copilot.SOURCES, "location": copilot.LOCATION},
        "_not_loaded": [],
        "_listed": [
            (item.key, skill, copilot.block(item.name, item.key.description) if item.included else "")
            for item, skill in zip(listing.skills, skills)
        ],
    }


_RECEIPTS = {"budgeted-catalog": _codex, "listing": _claude_code, "cli-listing": _copilot}


def _sources_text(receipt: dict) -> list[str]:
    """Each source's share of the budget, when more than one source shares it or one overflows it."""
    sources = receipt["sources"]
    if len(sources) < 2 and all(s["fits_alone"] for s in sources):
        return []
    unit = receipt["budget"]["unit"]
    out = ["  Budget shares:"]
    for source in sources:
        alone = "fits alone" if source["fits_alone"] else "over the budget alone"
        risk = f"; {source['at_risk']} of its skills at risk together" if source["at_risk"] else ""
        out.append(
            f"  - [{source['scope']}] {printable(source['root'])}: {source['skills']} skill(s), {source['cost']:,} {unit} = "
            f"{source['share']:.0%} of the budget ({alone}){risk}"
        )
    return out


def _sources(catalog: Catalog, receipt: dict) -> list[dict]:
    """The share of the budget each source of the catalog's skills takes: the linted tree's (and
    its siblings'), and each installed root's; whether its lines fit alone; how many of its skills
    are at risk as installed together (a description shortened or dropped, or a skill left out).
    Claude Code drops the descriptions of the least-used skills first: for a new user, who has
    used none, any of them may go, so every description of an over-budget listing is at risk."""
    by_path = {str(s.package.skill_md_path): s for s in catalog.visible}
    limit = receipt["budget"]["limit"] or 1
    over = receipt["surface"].get("over_by", 0) if catalog.surface.catalog_model == "listing" else 0
    groups: dict[tuple[str, str], list[dict]] = {}
    for item in receipt["skills"]:
        skill = by_path.get(item["path"])
        root = catalog.root if skill is None or skill.scope == "repo" else skill.package.lint_root
        groups.setdefault((item["scope"], str(root)), []).append(item)
    out = []
    for (scope, root), items in groups.items():
        cost = sum(i["full_cost"] for i in items)
        risky = sum(1 for i in items if not i["included"] or i["chars_shown"] < i["description_chars"] or (over and i["description_chars"]))
        out.append(
            {"scope": scope, "root": root, "skills": len(items), "cost": cost, "share": round(cost / limit, 4), "fits_alone": cost <= limit, "at_risk": risky}
        )
    return out


def _folder_name(folder: Path, cwd: Path) -> str:
    """A catalog's folder as the repository knows it (``.agents/skills`` from any folder of it:
    a catalog is the repository's, not the working folder's), else its full path."""
    relative = root_relative(folder, source_root(cwd))
    return relative if relative not in (None, ".") else str(folder)


def report_text(report: dict, cwd: Path) -> str:
    """The report for a terminal. Names, descriptions and paths come from the linted tree:
    every character that could drive the terminal or end a line is escaped
    (:func:`skilllint.output.printable`), and the rendered catalog, whose lines are the
    surface's own (a description may hold a line feed, which the model sees as one), is
    indented by four spaces, so no line of it can pass for a line of the receipt. A catalog is
    named by the folders it is read from (:func:`_folder_name`)."""
    out: list[str] = []
    if "explain" in report:
        from .catalog_explain import search_text

        out += search_text(report["explain"])
        if "surfaces" in report["explain"]:
            from .catalog_explain import surface_names_text

            out += surface_names_text(report["explain"]["surfaces"])
    if not report["catalogs"]:
        out.append(f"no {report['target']} catalog: no loadable skill under the given paths")
    for receipt in report["catalogs"]:
        named = ", ".join(printable(_folder_name(Path(root), cwd)) for root in receipt["roots"])
        out += [f"== {report['target']} catalog of {named} ({receipt['kind']}; model: {receipt['model']})", ""]
        if receipt["rendered"]:
            out += ["    " + printable(line) for line in receipt["rendered"].split("\n")] + [""]
        budget = receipt["budget"]
        out.append(f"Render receipt: budget {budget['limit']:,} {budget['unit']} ({budget['source']}), used {receipt['budget_used']:,}")
        out.append(
            f"  total {receipt['total']}, included {receipt['included']}, omitted {receipt['omitted']}, "
            f"descriptions truncated {receipt['descriptions_truncated']} ({receipt['truncated_characters']:,} characters)"
        )
        for skill in receipt["skills"]:
            state = "included" if skill["included"] else "OMITTED"
            out.append(
                f"  - {printable(skill['name'])}: {state}, description {skill['chars_shown']}/{skill['description_chars']} characters shown, "
                f"line costs {skill['minimum_cost']} (minimum) / {skill['full_cost']} (full) [{skill['scope']}] {printable(skill['path'])}"
            )
        out.append(f"  warning: {printable(receipt['warning'])}" if receipt["warning"] else "  warning: none")
        out += _sources_text(receipt)
        if "explain" in receipt:
            from .catalog_explain import catalog_text

            out += catalog_text(receipt["explain"])
        if "tiers" in receipt:
            from .disclosure_tiers import tiers_text

            out += tiers_text(receipt["tiers"])
        out.append("")
    for item in report["not_loaded"]:
        out.append(f"not loaded: {printable(item['path'])}: {printable(item['reason'])}")
    return "\n".join(out).rstrip("\n") + "\n"
