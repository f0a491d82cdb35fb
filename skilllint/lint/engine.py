"""The engine: runs the selected rules on each package and owns everything
rules do not: target filtering, severity combination and overrides,
suppression, per-file ignores and sorting."""

from __future__ import annotations

import gc
import os
import traceback
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from ..skill import suppress, tokens
from .catalog_context import CatalogContext, complete_catalogs
from ..config import Settings
from ..diagnostics import Diagnostic, Finding, Severity, clipped
from ..skill.discovery import discover
from ..findingcap import RuleTally, cap, left_out_summary
from ..skill.package import SkillPackage
from .parallel import Background, PendingMap, can_fork, worker_count
from ..registry import Rule, RuleContext


# A background process for the catalogs pays off from this many skills (below, the fork costs more than it saves).
BACKGROUND_MIN_PACKAGES = 48


@dataclass
class LintResult:
    """What a run found, and what it must tell the user besides."""

    diagnostics: list[Diagnostic] = field(default_factory=list)
    packages: int = 0
    warnings: list[str] = field(default_factory=list)
    internal_errors: list[str] = field(default_factory=list)
    fixed: dict[str, int] = field(default_factory=dict)  # problems `check --fix` fixed, per code
    abandoned_fix_temps: list[str] = field(default_factory=list)  # left by a killed `check --fix`
    unsafe_fixes: bool = False  # --unsafe-fixes: unsafe fixes count as available ([*])
    # Findings left out by the cap per rule and file (skilllint.findingcap), per code: the
    # reported diagnostics' ``left_out`` added up; formats that cut further start from it.
    left_out: dict[str, int] = field(default_factory=dict)
    baseline: Any = None  # a skilllint.app.baseline.Outcome when a baseline took out the findings it holds
    lint_roots: set[str] = field(default_factory=set)  # the trees searched (a file's skill folder), normalised


def lint_paths(
    paths: list[str],
    settings: Settings,
    cwd: Path,
    force_exclude: bool = False,
    cache=None,
    jobs: int | None = None,
) -> LintResult:
    """Lint the skills under ``paths``; ``cache`` (a :class:`skilllint.lint.cache.ResultCache`)
    returns the package-rule findings of unchanged skills from an earlier run, and keeps
    token counts of text parts; ``jobs`` is the number of worker processes (None: as many
    as the tree and the CPUs are worth)."""
    counts = cache.token_counts() if cache is not None else None
    tokens.use_count_store(counts)
    try:
        result = _lint(paths, settings, cwd, force_exclude, cache, jobs, counts)
    finally:
        tokens.use_count_store(None)
        gc.unfreeze()  # what _uncollected froze: a later full collection walks it again (a caller that lints on)
    if counts is not None:
        counts.save()
    if cache is not None:
        cache.save()
    if cache is not None and cache.problem:
        result.warnings.append(cache.problem)
    return result


def _lint(paths, settings: Settings, cwd: Path, force_exclude: bool, cache, jobs: int | None, counts) -> LintResult:
    with _uncollected():
        found = discover(
            paths,
            cwd,
            exclude=settings.exclude,
            exclude_base=settings.base,
            use_gitignore=settings.respect_gitignore,
            force_exclude=force_exclude,
        )
    result = LintResult(warnings=list(found.warnings))
    if found.fix_temps:
        from ..fsafe import is_abandoned_fix_temp

        result.abandoned_fix_temps = [path for path in found.fix_temps if is_abandoned_fix_temp(path)]
    rules = [rule() for rule in settings.enabled_rules()]
    result.diagnostics.extend(_endless_link_diagnostics(found.endless_links, rules, settings))
    package_rules = [r for r in rules if not r.catalog_rule]
    catalog_rules = [r for r in rules if r.catalog_rule]
    max_bytes = settings.read_cap()
    packages = [SkillPackage(item.root, item.lint_root, max_bytes, item.real, item.names, found.listings) for item in found.packages]
    # Catalog entries of earlier runs: loaded before the workers fork, so each inherits them.
    store = None
    if cache is not None and catalog_rules:
        from .catalog_entries import entries_beside

        store = entries_beside(cache)
    if store is not None:
        store.load()
    # With a cache, rules that cannot be cached (SL520 reads its skills root) run apart; without one, in one pass.
    cached_rules = [r for r in package_rules if cache is None or r.cacheable]
    always_rules = [r for r in package_rules if cache is not None and not r.cacheable]
    warm = cache is not None and cache.has_results()
    judging = any(_reads_suppressions(r) for r in package_rules)  # SL901 runs: tell it what the catalogs silenced
    catalogs = partial(_catalog_phase, packages, paths, settings, cwd, max_bytes, catalog_rules, store=store, judging=judging)
    background = None
    if catalog_rules and warm and jobs != 1 and len(packages) >= BACKGROUND_MIN_PACKAGES and can_fork():
        # Most results come from the cache: the catalogs (every skill's entry, the overlap
        # search) take as long as fetching them, so a forked process judges the catalogs
        # meanwhile, reading the entries itself (from the store; changed skills afresh),
        # and runs the rules that are never cached, which leaves the two even.
        background = Background(partial(_background_phase, catalogs, packages, always_rules, settings))
        always_rules = []  # run there
    entries = store if catalog_rules and background is None else False
    lint_one = partial(
        _lint_with_cache, rules=(cached_rules, always_rules), settings=settings, cache=cache, entries=entries, counts=counts
    )
    items = [(package, None) for package in packages]
    # id(package) -> the targets its cached result was made for as reading it through a link,
    # when the background process (which reads those links anyway, for SL520) is to confirm it
    deferred: dict[int, tuple] | None = {} if background is not None else None
    if warm:
        # An earlier run left results: look them up here first, and fork workers only
        # for the skills that changed (a fork costs more than a cached skill).
        with _uncollected():
            items = [(package, _look_up(cache, package, settings, deferred)) for package in packages]
        if deferred:  # a miss is linted afresh: nothing to confirm
            deferred = {id(p): deferred[id(p)] for p, found in items if id(p) in deferred and found[1] is not None}
    misses = sum(1 for _, cached in items if cached is None or cached[1] is None)
    workers = worker_count(misses, jobs)
    first = _largest_miss(items) if workers > 1 else None
    pending = PendingMap(lint_one, items, workers, _as_plain_data, _FromPlainData(), first=first)
    known: dict[int, dict] = {}  # id(package) -> target -> (key, fields), as the package's linter read them
    held: list[tuple[int, list[Diagnostic]]] = []  # (index, diagnostics) of the results in `deferred`
    usage: dict = {}  # what suppressions silenced outside the pass SL901 ran in (see suppression_usage)
    for index, (package, (diagnostics, errors, fields, warnings, new_counts, hits, new_keys)) in enumerate(zip(packages, pending.results())):
        if new_counts:  # counted in a worker: the main process saves them
            counts.add(new_counts)
        if new_keys:  # keys a worker made from the files it read: the main process remembers them
            cache.add(new_keys)
        if deferred and id(package) in deferred:
            held.append((index, diagnostics))
        else:
            result.diagnostics.extend(diagnostics)
        result.internal_errors.extend(errors)
        result.warnings.extend(warnings)
        if fields:
            known[id(package)] = fields
        if hits:
            add_usage(usage, str(package.skill_md_path), hits=hits)
    if catalog_rules:
        if background is not None:
            diagnostics, warnings, errors, elsewhere, documents = _FromPlainData()(background.result())
            for index, cached in held:
                package = packages[index]
                if tuple(documents.get(str(package.root), ())) != deferred[id(package)]:
                    # a link to the nested skill came or went since: lint it afresh, in this process
                    cached, fresh_errors = lint_one((package, (items[index][1][0], None)))[:2]
                    result.internal_errors.extend(fresh_errors)
                result.diagnostics.extend(cached)
        else:
            diagnostics, warnings, errors, elsewhere = catalogs(known=known)
        result.diagnostics.extend(diagnostics)
        result.warnings.extend(warnings)
        result.internal_errors.extend(errors)
        for path, (hits, ran) in elsewhere.items():
            add_usage(usage, path, hits, ran)
        if background is not None and background.failure:
            result.internal_errors.append(background.failure)
    result.internal_errors.extend(pending.failures)
    result.diagnostics = settle(result.diagnostics, rules, packages, usage, settings)
    result.packages = len(packages)
    result.lint_roots = {os.path.normpath(item.lint_root) for item in found.packages}
    result.diagnostics.sort(key=Diagnostic.sort_key)
    result.left_out = left_out_by_code(result.diagnostics)
    note = left_out_summary(result.left_out, settings.max_findings_per_rule_per_file)
    if note:
        result.warnings.append(note)
    return result


@contextmanager
def _uncollected():
    """Pause the cyclic collector, and freeze what is alive at the end (the collector never walks
    it again, as around a fork). The walk and the cache lookups make objects by the hundred
    thousand that live until the report (listings, findings, paths) and free the rest by their
    counts (no cycles): the collector would walk the survivors over and over, finding nothing."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def add_usage(usage: dict, path: str, hits=(), ran=()) -> None:
    """Add to ``usage`` (SKILL.md path -> ([(code, line) silenced], [codes run])) what one pass
    of rules on that file did: plain data, as it comes back from a worker or a forked process."""
    entry = usage.setdefault(path, ([], []))
    entry[0].extend(tuple(hit) for hit in hits)
    entry[1].extend(ran)


def settle(diagnostics: list[Diagnostic], rules: list[Rule], packages: list[SkillPackage], usage: dict, settings: Settings) -> list[Diagnostic]:
    """``diagnostics`` once every pass of the run is done: a rule with ``settle`` (SL901)
    revises what it found in its own pass with what the other passes silenced (``usage``)
    and which rules ran on each package."""
    package_rules = [r for r in rules if not r.catalog_rule]
    for rule in rules:
        revise = rule.settle
        if revise is not None:
            diagnostics = revise(diagnostics, packages, usage, lambda package: package_rules_run(package, package_rules, settings))
    return diagnostics


def left_out_by_code(diagnostics: list[Diagnostic]) -> dict[str, int]:
    """Findings left out by the cap, per code, as ``diagnostics`` tell (sorted by code)."""
    counts: dict[str, int] = {}
    for diagnostic in diagnostics:
        if diagnostic.left_out:
            counts[diagnostic.code] = counts.get(diagnostic.code, 0) + diagnostic.left_out
    return dict(sorted(counts.items()))


def _endless_link_diagnostics(links, rules: list[Rule], settings: Settings) -> list[Diagnostic]:
    """SL404 on the links the search met outside every skill folder that never end
    (``plugins/x -> ..``), SL403 on those to nothing where skill folders are looked for
    (``skills/x -> ../gone``): no package holds them, so no package rule sees them."""
    by_code = {r.code: r for r in rules if r.code in ("SL403", "SL404")}
    if not by_code or not links:
        return []
    from types import SimpleNamespace

    diagnostics = []
    for link in links:
        rule = by_code.get("SL403" if link.kind == "dangling" else "SL404")
        if rule is None:
            continue
        # The targets the link's place implies, as for a skill in its folder.
        place = SimpleNamespace(root=link.path.parent, lint_root=link.lint_root)
        applicable = tuple(t for t in settings.targets_for(place) if rule.applies_to(t.id))
        finding = rule.check_tree_link(link)
        diagnostic = _to_diagnostic(rule, finding, applicable, None, settings) if applicable else None
        if diagnostic is not None and not settings.ignored_by_path(diagnostic.code, diagnostic.path):
            diagnostics.append(diagnostic)
    return diagnostics


def _catalog_phase(packages, paths, settings, cwd, max_bytes, rules, known: dict, store, judging: bool = False) -> tuple[list, list[str], list[str], dict]:
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


def _background_phase(catalogs, packages: list[SkillPackage], always_rules: list[Rule], settings: Settings) -> tuple:
    """A warm run's background work: the catalog phase, and the rules no cache keeps, on every skill;
    (diagnostics, warnings, errors, suppression usage, the targets that read each unlisted skill as
    a document) as plain data (it runs in a forked process)."""
    diagnostics, warnings, errors, usage = catalogs(known={})
    for package in packages:
        hits: list = []
        diagnostics.extend(lint_package(package, always_rules, settings, errors, hits))
        if hits:
            add_usage(usage, str(package.skill_md_path), hits=hits)
    # For the skills some target never lists, the targets that read them through a link: the
    # main process checks its cached results of those skills against them (SL520 read the links).
    documents = {str(p.root): settings.reads_as_document(p) for p in packages if settings.not_listing(p)}
    return _as_plain_data((diagnostics, warnings, errors, usage, documents))


def _as_plain_data(result: tuple) -> tuple:
    """(diagnostics, *rest) as marshal-able data: what crosses from a worker or the background process."""
    from .cache_entries import encode

    diagnostics, *rest = result
    return [encode(d) for d in diagnostics], *rest


class _FromPlainData:
    """The inverse of :func:`_as_plain_data`; one Path object per path over all it decodes."""

    def __init__(self) -> None:
        self.paths: dict = {}

    def __call__(self, data: tuple) -> tuple:
        from .cache_entries import decode

        encoded, *rest = data
        return [decode(item, self.paths) for item in encoded], *rest


def _largest_miss(items: list) -> int | None:
    """The index of the package with the largest SKILL.md among those to lint afresh:
    linted before the workers fork, it loads what the others will need too (the
    tokenizer is wanted by long files only), and the workers inherit it."""
    best, best_size = None, -1
    for index, (package, cached) in enumerate(items):
        if cached is not None and cached[1] is not None:
            continue
        try:
            size = os.lstat(package.skill_md_path).st_size
        except (OSError, ValueError):
            continue
        if size > best_size:
            best, best_size = index, size
    return best


def _look_up(cache, package: SkillPackage, settings: Settings, deferred: dict | None = None) -> tuple[str | None, list[Diagnostic] | None]:
    """(key, cached diagnostics or None); the key is None when the package cannot be cached now.

    A nested skill's result rests on whether a listed skill links to it (``reads_as_document``):
    checked here, or, given ``deferred``, noted there (id(package) -> the answer the result
    was made for) for the caller to check once the background process has read the links."""
    targets = settings.targets_for(package)
    keyed = cache.key(package, targets)
    if keyed is None:
        return None, None
    key, settled = keyed

    def documents_hold(kept: tuple) -> bool:
        if deferred is None:
            return kept == settings.reads_as_document(package)
        deferred[id(package)] = kept
        return True

    # looked up even when a file changed just now (the content read is in the key); filed only once settled
    return (key if settled else None), cache.get(key, package, targets, documents_hold)


def _lint_with_cache(item: tuple, rules: tuple[list[Rule], list[Rule]], settings: Settings, cache, entries, counts=None) -> tuple:
    """One package's diagnostics, internal errors, catalog entries (when ``entries``
    is not False: the store of earlier runs, or None), warnings (a listing cut at the
    entry limit; the cache never keeps such a package), the token counts made for it
    (``counts``: the run's :class:`skilllint.lint.cache_memo.TokenCounts`, or None), from the cache
    where it has them, the (code, line) pairs suppressions silenced of the rules never
    cached, and the keys made from the files read to key it (:class:`skilllint.lint.cache_memo.StampKeys`).

    ``item`` is (package, what :func:`_look_up` found, or None: look it up here);
    ``rules`` the rules whose findings are cached and those run on every time. The
    catalog entries are read here, where the frontmatter is parsed already, so the
    main process (which builds the catalogs) need not parse every skill again."""
    package, found = item
    cached_rules, always_rules = rules
    errors: list[str] = []
    hits: list = []  # what suppressions silenced of the rules never cached (SL901 ran with the others)
    if cache is None:
        diagnostics = lint_package(package, cached_rules, settings, errors)
    else:
        key, diagnostics = found if found is not None else _look_up(cache, package, settings)
        if diagnostics is None:
            package.tree_probes.clear()  # what checking a stale entry looked up is not this result's
            diagnostics = lint_package(package, cached_rules, settings, errors)
            if key and not errors and not _truncation_warnings(package):  # a cut scan must be told every run
                documents = settings.reads_as_document(package) if settings.not_listing(package) else None
                cache.put(key, diagnostics, package.tree_probes, documents, package)
        if always_rules:
            diagnostics = diagnostics + lint_package(package, always_rules, settings, errors, hits)
    fields = None if entries is False else _catalog_fields(package, settings, entries)
    new_counts = (counts.take_new() or None) if counts is not None else None
    new_keys = cache.take_new() if cache is not None else None
    return diagnostics, errors, fields, _truncation_warnings(package), new_counts, hits, new_keys


def _truncation_warnings(package: SkillPackage) -> list[str]:
    """What the user must be told about a listing or a reference scan cut at its bound."""
    warnings = []
    inventory = package.__dict__.get("inventory")  # listed by a rule or the cache key; not listed for this
    if inventory is not None and inventory.truncation_warning():
        warnings.append(inventory.truncation_warning())
    graph = package.__dict__.get("references")  # built by a rule; not built for this
    if graph is not None and graph.truncation_warning(package.root):
        warnings.append(graph.truncation_warning(package.root))
    return warnings


def _catalog_fields(package: SkillPackage, settings: Settings, store) -> dict | None:
    """target -> (store key, entry fields) for each target of the package."""
    from .catalog_entries import MISSING, entry_fields
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
    from .catalog_entries import skill_from_fields
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
    from ..targets import TARGETS

    completion = completion or CatalogContext()
    diagnostics: list[tuple[Diagnostic, str]] = []  # with the finding's effect
    suppressions: dict[Path, suppress.Suppressions] = {}
    linted = {id(p) for p in packages}
    for catalog in build_catalogs(packages, settings, completion.siblings, completion.extra, completion.boundary, reader):
        target = TARGETS[catalog.target]
        for rule in rules:
            if not rule.applies_to(target.id):
                continue
            ctx = RuleContext((target,), settings.options_for(type(rule)), settings, kept=kept)
            if usage is not None:
                for skill in catalog.skills:
                    if id(skill.package) in linted and skill.package.skill_md_name is not None:
                        add_usage(usage, str(skill.package.skill_md_path), ran=(rule.code,))
            try:
                findings = list(rule.check_catalog(catalog, ctx))
                mine = [(p, f) for p, f in findings if id(p) in linted]
                if len(mine) < len(findings):
                    mine += _context_findings(rule, catalog, mine, findings, ctx, linted)
            except Exception as exc:  # one rule's bug must not hide the others' findings
                internal_errors.append(
                    f"internal error in {rule.code} on the {catalog.target} catalog of {catalog.root}: "
                    f"{type(exc).__name__}: {exc}\n" + traceback.format_exc(limit=6)
                )
                continue
            for package, finding in mine:
                diagnostic = _to_diagnostic(rule, finding, (target,), package, settings)
                if diagnostic is None or settings.ignored_by_path(diagnostic.code, diagnostic.path):
                    continue
                if not _suppressed(diagnostic, package, suppressions):
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
    others = [(p, f) for p, f in findings if id(p) not in linted]
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


def _runnable_needs(package: SkillPackage) -> tuple:
    """The ``needs_skill_md`` values of the rules that can run on ``package``: rules are
    gated on what they need, so a broken file yields one clear finding."""
    if package.skill_md_name is None or not package.readable:
        return (False,)
    problem = package.decode_problem
    if problem is not None and problem[0] == "invalid UTF-8":  # a NUL byte still decodes
        return (False, "raw")
    return (False, "raw", True)


def lint_package(
    package: SkillPackage,
    rules: list[Rule],
    settings: Settings,
    internal_errors: list[str] | None = None,
    hits: list | None = None,
) -> list[Diagnostic]:
    """The findings of ``rules`` on ``package``. ``hits``, when given, receives the (code,
    line) of each finding a suppression comment in SKILL.md silenced (for SL901, when it
    runs apart: see :func:`suppression_usage`)."""
    diagnostics: list[Diagnostic] = []
    suppressions: dict[Path, suppress.Suppressions] = {}
    memo: dict = {}
    ran: set[str] = set()  # the rules that ran to the end (SL901 judges suppressions of these)
    plan = _package_plan(package, rules, settings)
    runnable = None  # _runnable_needs, once a rule needs SKILL.md (reading it is not free)
    # Rules that judge the suppression comments (SL901) run after the others, on what they silenced.
    steps = [(step, _reads_suppressions(step[0])) for step in plan]
    steps = [item for item in steps if not item[1]] + [item for item in steps if item[1]]
    tally = RuleTally(settings.max_findings_per_rule_per_file)  # each rule's in turn, emptied by take()
    admission = _Admission(package, settings, suppressions, tally)
    for (rule, applicable, options, needs), judges in steps:
        if needs is not False:
            if runnable is None:
                runnable = _runnable_needs(package)
            if needs not in runnable:
                continue
        run = None
        if judges:
            parsed = _parsed(package, suppressions)
            if parsed is None or not parsed.directives:
                continue  # no suppression comment to judge (most skills)
            run = _SuppressionRun(parsed, frozenset(ran), _elsewhere(rules, settings))
        admission.start(rule, applicable)
        ctx = RuleContext(applicable, dict(options), settings, memo, admission=admission)  # options: a copy, a plugin rule may change its own
        ctx.suppressions = run
        try:
            for finding in rule.check(package, ctx):
                graded = _graded(rule, finding.targets, finding.severities, applicable, settings)
                if graded is None:
                    continue
                path = finding.path or package.skill_md_path
                if not tally.has_room(path, graded[1]):
                    admission.leave_out(path, finding.span.line)  # not built: the rule did not ask first
                    continue
                diagnostic = _diagnostic(rule, finding, graded, path)
                if _suppressed(diagnostic, package, suppressions) or settings.ignored_by_path(diagnostic.code, diagnostic.path):
                    continue
                tally.add(diagnostic)
        except Exception as exc:  # one rule's bug must not hide the others' findings
            if internal_errors is not None:
                internal_errors.append(
                    f"internal error in {rule.code} on {package.root}: {type(exc).__name__}: {exc}\n"
                    + traceback.format_exc(limit=6)
                )
            continue
        if not judges:
            ran.add(rule.code)
        diagnostics.extend(tally.take())
    if hits is not None:
        parsed = suppressions.get(package.skill_md_path) if package.skill_md_name is not None else None
        if parsed is not None:
            hits.extend(parsed.hits)
    return diagnostics


def _package_plan(package: SkillPackage, rules: list[Rule], settings: Settings) -> list[tuple[Rule, tuple, dict, object]]:
    """:func:`_plan` for ``package``'s targets."""
    selected = settings.targets_for(package)
    # A surface that does not find the skill file (say `Skill.md`), or never lists the skill
    # where it lies (nested below `<skills folder>/<name>/` for Claude Code), loads nothing:
    # for it only the rules about the folder itself apply (SL001, SL002, SL013, SL520). But
    # when a skill it lists links to that SKILL.md, the model reads it, and the files it links,
    # as documents of that skill: the rules about what they say apply too (``content_rule``),
    # judged from the nested SKILL.md, where the model starts reading them. (Walking the listed
    # skill's reference graph on into the nested folder instead would count every reference
    # of the nested skill as a hop too deep, and tie the listed skill's cached results to
    # every file below it.)
    unlisted = settings.not_listing(package)
    finds_file = tuple(t for t in selected if package.skill_md_name in t.skill_filenames)
    sees_file = tuple(t for t in finds_file if t.id not in unlisted)
    if len(sees_file) < len(finds_file):
        documents = settings.reads_as_document(package)
        reads_file = tuple(t for t in finds_file if t.id not in unlisted or t.id in documents)
    else:
        reads_file = sees_file
    return _plan(rules, settings, selected, sees_file, reads_file)


def package_rules_run(package: SkillPackage, rules: list[Rule], settings: Settings) -> set[str]:
    """The codes of ``rules`` (package rules) that run on ``package``: those that apply to one
    of its targets and whose needs of SKILL.md it meets (SL901 judges suppressions of these)."""
    runnable = _runnable_needs(package)
    return {
        rule.code
        for rule, _, _, needs in _package_plan(package, rules, settings)
        if needs in runnable and not _reads_suppressions(rule) and not rule.catalog_rule
    }


def _reads_suppressions(rule: Rule) -> bool:
    return rule.reads_suppressions


@dataclass(frozen=True)
class _SuppressionRun:
    """What SL901 sees of one package's run: its SKILL.md's suppressions, with what they
    silenced; the codes that ran in this pass; the enabled codes that run elsewhere (the
    catalog rules; with a cache, the rules never cached), judged when the run ends."""

    parsed: suppress.Suppressions | None
    ran: frozenset[str]
    elsewhere: frozenset[str]


def _elsewhere(rules: list[Rule], settings: Settings) -> frozenset[str]:
    here = {rule.code for rule in rules}
    return frozenset(rule.code for rule in settings.enabled_rules() if rule.code not in here and not _reads_suppressions(rule))


def _parsed(package: SkillPackage, cache: dict[Path, suppress.Suppressions]) -> suppress.Suppressions | None:
    """The suppressions of ``package``'s SKILL.md (None: it has none that can be read)."""
    if package.skill_md_name is None or not package.readable:
        return None
    path = package.skill_md_path
    parsed = cache.get(path)
    if parsed is None:
        split = package.split("canonical")
        end = split.close_line + 1 if split.status == "ok" else 0
        parsed = cache[path] = suppress.parse(package.source.lines, end)
    return parsed


class _Admission:
    """:meth:`RuleContext.admits` for the rule running on one package (:meth:`start` names it):
    whether the cap per rule and file leaves room for a finding, counting it as left out when
    not (unless suppressed)."""

    def __init__(self, package: SkillPackage, settings: Settings, suppressions: dict, tally: RuleTally):
        self.package, self.settings, self.suppressions, self.tally = package, settings, suppressions, tally
        self.rule: Rule | None = None
        self.applicable: tuple = ()
        self._ignored: dict[Path, bool] = {}  # the rule's per-file ignores, judged once per file

    def start(self, rule: Rule, applicable: tuple) -> None:
        self.rule, self.applicable = rule, applicable
        if self._ignored:
            self._ignored = {}

    def __call__(self, path, line: int, severities, targets) -> bool:
        graded = _graded(self.rule, targets, severities, self.applicable, self.settings)
        if graded is None:
            return False  # reported for none of the rule's targets
        path = path or self.package.skill_md_path
        if self.tally.has_room(path, graded[1]):
            return True
        self.leave_out(path, line)
        return False

    def leave_out(self, path: Path, line: int) -> None:
        """Count a finding at ``path``, ``line`` as left out, unless it would not be reported anyway."""
        ignored = self._ignored.get(path)
        if ignored is None:
            ignored = self._ignored[path] = self.settings.ignored_by_path(self.rule.code, path)
        if not ignored and not _suppressed_at(self.rule.code, path, line, self.package, self.suppressions):
            self.tally.leave_out(path)


def _plan(
    rules: list[Rule], settings: Settings, selected: tuple, sees_file: tuple, reads_file: tuple | None = None
) -> list[tuple[Rule, tuple, dict, object]]:
    """(rule, the targets it applies to, its options, what it needs of SKILL.md: False,
    "raw" or True) for each rule that applies to one of ``selected`` (``sees_file``: the
    targets that find the package's SKILL.md and list the skill; ``reads_file``: those and
    the ones that read it as a linked document, for the content rules), worked out once per
    run for all packages with the same targets: per package it was a fifth of the engine's
    own time."""
    reads_file = sees_file if reads_file is None else reads_file
    key = (tuple(rules), selected, sees_file, reads_file)
    plan = settings._rule_plans.get(key)
    if plan is None:
        plan = []
        for rule in rules:
            if rule.needs_skill_md is False:
                pool = selected
            else:
                pool = reads_file if rule.content_rule else sees_file
            applicable = tuple(t for t in pool if rule.applies_to(t.id))
            if applicable:
                needs = rule.needs_skill_md
                needs = False if needs is False else "raw" if needs == "raw" else True
                plan.append((rule, applicable, settings.options_for(type(rule)), needs))
        if len(settings._rule_plans) >= 64:  # keys hold rule instances: a long-lived Settings must not collect them
            settings._rule_plans.clear()
        settings._rule_plans[key] = plan
    return plan


def _to_diagnostic(
    rule: Rule,
    finding: Finding,
    applicable: tuple,
    package: SkillPackage,
    settings: Settings,
) -> Diagnostic | None:
    graded = _graded(rule, finding.targets, finding.severities, applicable, settings)
    if graded is None:
        return None
    return _diagnostic(rule, finding, graded, finding.path or package.skill_md_path)


def _graded(rule: Rule, targets, severities, applicable: tuple, settings: Settings) -> tuple[tuple[str, ...], Severity] | None:
    """(the targets a finding with these ``targets`` and ``severities`` is reported for, its
    severity), or None when it concerns none of the rule's ``applicable`` targets."""
    ids = tuple(t.id for t in applicable if targets is None or t.id in targets)
    if not ids:
        return None
    override = settings.severity_override(type(rule))
    if override is not None:
        return ids, override
    levels = []
    for target in applicable:
        if target.id not in ids:
            continue
        level = (severities or {}).get(target.id) or rule.severity[target.id]
        if target.secondary and level > Severity.WARNING:
            level = Severity.WARNING  # facts marked [2ND] give at most a warning
        levels.append(level)
    return ids, max(levels)


MAX_MESSAGE_CHARS = 2000


def _diagnostic(rule: Rule, finding: Finding, graded: tuple, path: Path) -> Diagnostic:
    ids, severity = graded
    return Diagnostic(
        code=rule.code,
        name=rule.name,
        severity=severity,
        targets=ids,
        # a rule that quotes the tree could quote a 400 KB path: the middle is elided
        message=clipped(finding.message, MAX_MESSAGE_CHARS),
        path=path,
        span=finding.span,
        fix=finding.fix,
        related=finding.related,
    )


def _suppressed(diagnostic: Diagnostic, package: SkillPackage, cache: dict[Path, suppress.Suppressions]) -> bool:
    return _suppressed_at(diagnostic.code, diagnostic.path, diagnostic.span.line, package, cache)


def _suppressed_at(code: str, path: Path, line: int, package: SkillPackage, cache: dict[Path, suppress.Suppressions]) -> bool:
    if path != package.skill_md_path or not package.readable:
        return False
    parsed = _parsed(package, cache)
    return parsed is not None and not parsed.empty and parsed.suppresses(code, line)
