"""The engine: a run's scheduler. It finds the skills, looks each up in the result cache,
hands the others to worker processes (:mod:`skilllint.lint.package_lint` lints each), runs
the catalog phase (:mod:`skilllint.lint.catalogs`), in a forked process when that pays, and
owns what no single pass does: settling, the cap's tally and sorting."""

from __future__ import annotations

import gc
import os
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from ..discovery import claude_code_links
from ..skill.size import tokens
from .catalogs import catalog_fields, catalog_phase
from ..config.settings import Settings
from ..diagnostics import Diagnostic
from ..discovery.walk import discover
from ..findingcap import left_out_summary
from ..skill.package import SkillPackage
from .package_lint import add_usage, lint_package, package_rules_run, reads_suppressions, to_diagnostic
from .parallel import Background, PendingMap, can_fork, worker_count
from ..registry import Rule


# A background process for the catalogs pays off from this many skills (below, the fork costs more than it saves).
BACKGROUND_MIN_PACKAGES = 48


@dataclass(eq=False, repr=False)
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
    """Lint the skills under ``paths``; ``cache`` (a :class:`skilllint.lint.cache.store.ResultCache`)
    returns the package-rule findings of unchanged skills from an earlier run, and keeps
    token counts of text parts; ``jobs`` is the number of worker processes (None: as many
    as the tree and the CPUs are worth)."""
    counts = cache.token_counts() if cache is not None else None
    tokens.use_count_store(counts)
    try:
        with claude_code_links.one_run():
            result = _lint(paths, settings, cwd, force_exclude, cache, jobs, counts)
    finally:
        tokens.use_count_store(None)
        gc.unfreeze()  # what _uncollected froze: a later full collection walks it again (a caller that lints on)
    _save(cache, counts)  # what came after the background process's answer, if anything (a save writes only what is new)
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
        from ..safewrite import is_abandoned_fix_temp

        result.abandoned_fix_temps = [path for path in found.fix_temps if is_abandoned_fix_temp(path)]
    rules = [rule() for rule in settings.enabled_rules()]
    result.diagnostics.extend(_endless_link_diagnostics(found.endless_links, rules, settings))
    package_rules = [r for r in rules if not r.catalog_rule]
    catalog_rules = [r for r in rules if r.catalog_rule]
    max_bytes = settings.read_cap()
    packages = [SkillPackage(item.root, item.lint_root, max_bytes, item.real, item.names, found.listings) for item in found.packages]
    # Catalog entries of earlier runs (loaded below, or by the background process that reads them)
    store = None
    if cache is not None and catalog_rules:
        from .cache.catalog_entries import entries_beside

        store = entries_beside(cache)
    # With a cache, rules that cannot be cached (SL520 reads its skills root) run apart; without one, in one pass.
    cached_rules = [r for r in package_rules if cache is None or r.cacheable]
    always_rules = [r for r in package_rules if cache is not None and not r.cacheable]
    warm = cache is not None and cache.has_results()
    judging = any(reads_suppressions(r) for r in package_rules)  # SL901 runs: tell it what the catalogs silenced
    catalogs = partial(catalog_phase, packages, paths, settings, cwd, max_bytes, catalog_rules, store=store, judging=judging)
    background = None
    if catalog_rules and warm and jobs != 1 and len(packages) >= BACKGROUND_MIN_PACKAGES and can_fork():
        # Most results come from the cache: the catalogs (every skill's entry, the overlap
        # search) take as long as fetching them, so a forked process judges the catalogs
        # meanwhile, reading the entries itself (from the store; changed skills afresh),
        # and runs the rules that are never cached, which leaves the two even.
        background = Background(partial(_background_phase, catalogs, packages, always_rules, settings))
        always_rules = []  # run there
    elif store is not None:
        store.load()  # before the workers fork, so each inherits the entries (a background process reads them itself)
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
            _save(cache, counts)  # while the background process works: what the lookups made is complete
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


def _save(cache, counts) -> None:
    if counts is not None:
        counts.save()
    if cache is not None:
        cache.save()


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
    """The findings on the links the search met outside every skill folder, each by the rules
    that report its kind (:attr:`skilllint.rule.Rule.tree_links`): those that never end
    (``plugins/x -> ..``, SL404), those to nothing where skill folders are looked for
    (``skills/x -> ../gone``, SL403). No package holds them, so no package rule sees them."""
    reporting = [r for r in rules if r.tree_links]  # each says which kinds of link it reports
    if not reporting or not links:
        return []
    from types import SimpleNamespace

    diagnostics = []
    for link, rule in ((link, rule) for link in links for rule in reporting if link.kind in rule.tree_links):
        # The targets the link's place implies, as for a skill in its folder.
        place = SimpleNamespace(root=link.path.parent, lint_root=link.lint_root, listing=())
        applicable = tuple(t for t in settings.targets_for(place) if rule.applies_to(t.id))
        finding = rule.check_tree_link(link)
        diagnostic = to_diagnostic(rule, finding, applicable, None, settings) if applicable else None
        if diagnostic is not None and not settings.ignored_by_path(diagnostic.code, diagnostic.path):
            diagnostics.append(diagnostic)
    return diagnostics


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
    from .cache.entries import encode

    diagnostics, *rest = result
    return [encode(d) for d in diagnostics], *rest


class _FromPlainData:
    """The inverse of :func:`_as_plain_data`; one Path object per path over all it decodes."""

    def __init__(self) -> None:
        self.paths: dict = {}

    def __call__(self, data: tuple) -> tuple:
        from .cache.entries import decode

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
    (``counts``: the run's :class:`skilllint.lint.cache.memo.TokenCounts`, or None), from the cache
    where it has them, the (code, line) pairs suppressions silenced of the rules never
    cached, and the keys made from the files read to key it (:class:`skilllint.lint.cache.memo.StampKeys`).

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
    fields = None if entries is False else catalog_fields(package, settings, entries)
    new_counts = (counts.take_new() or None) if counts is not None else None
    new_keys = cache.take_new() if cache is not None else None
    return diagnostics, errors, fields, _truncation_warnings(package), new_counts, hits, new_keys


def _truncation_warnings(package: SkillPackage) -> list[str]:
    """What the user must be told about a listing or a reference scan cut at its bound."""
    warnings = []
    inventory = package.__dict__.get("inventory")  # listed by a rule or the cache key; not listed for this
    if inventory is not None and inventory.truncation_warning():
        warnings.append(inventory.truncation_warning())
    # Built by a rule, or not at all: where no rule imported the graph's module (a run answered from
    # the cache), none was built, and importing it only to ask would cost every warm run.
    graph_module = sys.modules.get("skilllint.skill.references.graph")
    graph = package.kept(graph_module.build) if graph_module is not None else None
    if graph is not None and graph.truncation_warning(package.root):
        warnings.append(graph.truncation_warning(package.root))
    return warnings
