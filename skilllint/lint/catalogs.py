"""The catalog phase of a run: the catalog rules (SL5xx) over the catalogs the linted skills
form, with the skills loaded for context; the catalog entries each package's linter reads
for it, and the entries of earlier runs."""

from __future__ import annotations

from pathlib import Path

from ..config.settings import Settings
from ..diagnostics import Diagnostic, clipped
from ..findingcap import cap
from ..registry import Rule, RuleContext
from ..skill.suppressions import comments as suppress
from ..skill.package import SkillPackage
from .catalog_context import CatalogContext, complete_catalogs
from .package_lint import MAX_MESSAGE_CHARS, add_usage, suppressed, to_diagnostic


def catalog_phase(packages, paths, settings, cwd, max_bytes, rules, known: dict, store, judging: bool = False) -> tuple[list, list[str], list[str], dict]:
    """(diagnostics, warnings, internal errors, suppression usage when ``judging``) of the catalog
    rules; ``known``: the catalog entries the package linters read, by id(package); the store is saved here."""
    warnings: list[str] = []
    errors: list[str] = []
    usage: dict = {}
    completion = complete_catalogs(packages, paths, settings, cwd, max_bytes, warnings)
    kept = store.kept if store is not None else None
    diagnostics = lint_catalogs(packages, rules, settings, errors, completion, _entry_reader(known, store), kept, usage if judging else None)
    if store is not None:
        store.save()
    return diagnostics, warnings, errors, usage


def catalog_fields(package: SkillPackage, settings: Settings, store) -> dict | None:
    """target -> (store key, entry fields) for each target of the package."""
    from .cache.catalog_entries import MISSING, entry_fields
    from ..catalog.model import read_entry

    if package.skill_md_name != "SKILL.md":
        return None  # no catalog lists it
    targets = settings.targets_for(package)
    found = {t.id: store.lookup(package, t) if store is not None else (None, MISSING) for t in targets}
    for target in targets:  # a stored entry spares reading SKILL.md (read_entry says None if it cannot be read)
        key, fields = found[target.id]
        if fields is MISSING:
            fields = entry_fields(read_entry(package, target))
            found[target.id] = (key if key is None or store.unchanged(package) else None, fields)
    return found


def _entry_reader(known: dict, store):
    """Catalog entries as the linted packages' linters read them, else from the store or the skill."""
    from .cache.catalog_entries import skill_from_fields
    from ..catalog.model import read_entry

    def read(package: SkillPackage, target):
        got = known.get(id(package), {}).get(target.id)
        if got is None:
            return store.read(package, target) if store is not None else read_entry(package, target)
        key, fields = got
        if key is not None and store is not None:
            store.remember(key, fields)
        return skill_from_fields(package, fields)

    return read


def lint_catalogs(
    packages: list[SkillPackage],
    rules: list[Rule],
    settings: Settings,
    internal_errors: list[str],
    completion: CatalogContext | None = None,
    reader=None,
    kept=None,
    usage: dict | None = None,
) -> list[Diagnostic]:
    """Run catalog rules over the catalogs the linted skills form (SL5xx).

    Findings land only on linted skills. A catalog-wide rule (a budget) whose
    findings all fall on skills loaded for context, siblings or installed
    skills, still tells each linted member of that catalog what happens, so a
    pre-commit run on one changed skill says that its catalog now overflows.

    ``usage``, when given, receives per linted SKILL.md what suppressions silenced and which
    catalog rules judged it (:func:`add_usage`), for SL901."""
    from ..catalog.model import build_catalogs

    completion = completion or CatalogContext()
    diagnostics: list[tuple[Diagnostic, str]] = []  # with the finding's effect
    suppressions: dict[Path, suppress.Suppressions] = {}
    linted = {id(p) for p in packages}
    for catalog in build_catalogs(packages, settings, completion.siblings, completion.extra, completion.boundary, reader, memo=completion.placements):
        target = catalog.surface
        # Members listed by a surface the run does not lint them for (catalog.model's `surveyed`):
        # only a rule that judges every listing reports on them, or judges a catalog of them alone.
        surveyed = {id(s.package) for s in catalog.skills if s.surveyed}
        linted_here = any(not s.surveyed for s in catalog.skills)
        for rule in rules:
            if not rule.applies_to(target.id) or not (linted_here or rule.judges_listings):
                continue
            ctx = RuleContext((target,), settings.options_for(type(rule)), settings, kept=kept)
            if usage is not None:
                for skill in catalog.skills:
                    if id(skill.package) in linted and skill.package.skill_md_name is not None:
                        add_usage(usage, str(skill.package.skill_md_path), ran=(rule.code,))
            try:
                findings = list(rule.check_catalog(catalog, ctx))
                mine = [(p, f) for p, f in findings if id(p) in linted and (rule.judges_listings or id(p) not in surveyed)]
                if len(mine) < len(findings):
                    told = linted if rule.judges_listings else {i for i in linted if i not in surveyed}
                    mine += _context_findings(rule, catalog, mine, findings, ctx, told)
            except Exception as exc:  # one rule's bug must not hide the others' findings
                import traceback  # only when a rule fails: kept off start-up
                internal_errors.append(
                    f"internal error in {rule.code} on the {catalog.target} catalog of {catalog.root}: "
                    f"{type(exc).__name__}: {exc}\n" + traceback.format_exc(limit=6)
                )
                continue
            for package, finding in mine:
                diagnostic = to_diagnostic(rule, finding, (target,), package, settings)
                if diagnostic is None or settings.ignored_by_path(diagnostic.code, diagnostic.path):
                    continue
                if not suppressed(diagnostic, package, suppressions):
                    diagnostics.append((diagnostic, finding.effect))
    if usage is not None:
        for path, parsed in suppressions.items():
            if parsed.hits:
                add_usage(usage, str(path), hits=parsed.hits)
    return cap(_merge_across_targets(diagnostics), settings.max_findings_per_rule_per_file)


def _context_findings(rule, catalog, mine, findings, ctx, linted) -> list:
    """Catalog-wide effects on context skills, told to the linted members without a finding of their own."""
    describe = rule.context_finding
    if describe is None:
        return []
    others = [(p, f) for p, f in findings if id(p) not in linted]  # (``linted``: the members it may tell)
    reported = {id(p) for p, _ in mine}
    out = []
    for skill in catalog.loaded:
        package = skill.package
        if id(package) in linted and id(package) not in reported:
            finding = describe(catalog, package, others, ctx)
            if finding is not None:
                out.append((package, finding))
    return out


def _merge_across_targets(diagnostics: list[tuple[Diagnostic, str]]) -> list[Diagnostic]:
    """One finding per problem: the same catalog finding from several targets'
    catalogs (same code, place and message) becomes one, listing them all, and
    after its message each distinct effect the targets gave (``Finding.effect``)."""
    merged: dict[tuple, tuple[Diagnostic, list[str]]] = {}
    for diagnostic, effect in diagnostics:
        key = (diagnostic.code, str(diagnostic.path), diagnostic.span.line, diagnostic.span.column, diagnostic.message)
        first = merged.get(key)
        if first is None:
            merged[key] = (diagnostic, [effect] if effect else [])
            continue
        kept, effects = first
        kept.targets = kept.targets + tuple(t for t in diagnostic.targets if t not in kept.targets)
        kept.severity = max(kept.severity, diagnostic.severity)
        if effect and effect not in effects:
            effects.append(effect)
    out = []
    for diagnostic, effects in merged.values():
        if effects:  # clipped again: the effects come after the message's own clipping
            diagnostic.message = clipped(f"{diagnostic.message}: {'; '.join(effects)}", MAX_MESSAGE_CHARS)
        out.append(diagnostic)
    return out
