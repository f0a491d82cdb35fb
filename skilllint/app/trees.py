"""Which configuration each linted path uses, and one run per configuration.

As ruff finds it: the nearest configuration going up from each path given (a file:
from its folder), to the root of the path's git repository; outside a repository,
in the path's own folder only. A path with none of its own uses the working
folder's (or the defaults). ``--config FILE`` is used for every path. Paths that
share a configuration are linted in one run; each other configuration gets a run
of its own and the results are merged. A configuration below a folder being
searched is not read: the folder's configuration covers what is found in it. Two
paths with different configurations where one holds the other would lint the same
skills twice, so that is refused.

A configuration found from a linted path, not from the working folder, came with
the linted tree: the folders it names must lie in its own folder
(:attr:`skilllint.config.settings.Settings.project`), as those of every configuration
must lie in its repository (an error otherwise: the settings check it).
"""

from __future__ import annotations

import copy
import os
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from ..config.settings import ConfigError, Settings, find_config, read_config_file, settings_from
from ..fsafe import is_within


@dataclass(eq=False, repr=False)
class Tree:
    """The paths given that share a configuration, and its settings."""

    settings: Settings
    paths: list[str]  # as given


def plan_trees(registry, paths: list[str], cwd: Path, config_path: str | None, overrides: dict, catalog_roots=None) -> list[Tree]:
    """The runs ``paths`` (default: the working folder) take, each with its settings."""
    from ..lint.catalog_context import add_command_line_roots

    paths = list(paths) or ["."]
    if config_path:
        groups = {None: (read_config_file(config_path, cwd), False, paths)}
    else:
        groups = {}
        memo: dict = {}  # each folder looked at once (pre-commit gives a path per changed file)
        for raw in paths:
            found, from_tree = config_for(raw, cwd, memo)
            key = str(found[0]) if found else None
            if key not in groups:
                groups[key] = (found, from_tree, [])
            groups[key][2].append(raw)
    trees = []
    for found, from_tree, members in groups.values():
        settings = settings_from(registry, found, cwd, overrides, from_tree=from_tree)
        tree = Tree(settings, members)
        add_command_line_roots(settings, catalog_roots, cwd)
        if catalog_roots:
            settings.given["catalog-roots"] = list(catalog_roots)
        trees.append(tree)
    if len(trees) > 1:
        _refuse_overlap(trees, cwd)
    return trees


def config_for(raw: str, cwd: Path, memo: dict) -> tuple[tuple[Path, dict] | None, bool]:
    """The configuration path ``raw`` uses, as (its file, its keys), or None (the defaults):
    the nearest from ``raw`` up to its repository's root, else the working folder's; and
    whether it came with the linted tree (the user's own when its folder holds the working
    folder). ``memo`` keeps each folder's answer (:func:`skilllint.config.settings.find_config`): a
    caller that outlives a run (the language server) drops it when a configuration changes."""
    found = find_config(Path(_start(raw, cwd)), memo) or find_config(cwd, memo)  # else the working folder's
    from_tree = found is not None and not is_within(Path(os.path.normpath(found[0].parent)), Path(os.path.normpath(cwd)))
    return found, from_tree


def _start(raw: str, cwd: Path) -> str:
    """The folder a path's configuration is looked for from: the path, or a file's folder."""
    path = os.path.normpath(os.path.join(cwd, raw))
    return path if os.path.isdir(path) else os.path.dirname(path)


def _refuse_overlap(trees: list[Tree], cwd: Path) -> None:
    """A ConfigError when a folder given holds a path given with another configuration."""
    by_path = [(os.path.normpath(os.path.join(cwd, raw)), raw, tree) for tree in trees for raw in tree.paths]
    folders = [(path, raw, tree) for path, raw, tree in by_path if os.path.isdir(path)]
    for path, raw, tree in by_path:
        for folder, folder_raw, other in folders:
            if other is not tree and is_within(Path(folder), Path(path)):
                raise ConfigError(
                    f"{raw} uses the configuration {_name(tree)}, but {folder_raw}, also given, holds it and uses "
                    f"{_name(other)}: lint them in separate runs, or choose one configuration with --config"
                )


def _name(tree: Tree) -> str:
    return str(tree.settings.config_path) if tree.settings.config_path else "the defaults"


def run_settings(trees: list[Tree]) -> Settings:
    """The settings that say how the run reports (output format, SARIF's rule list) and when it
    fails: the one configuration's; over several, the first path's, failing at the lowest
    ``fail-on`` among them (no configuration's failure is hidden)."""
    if len(trees) == 1:
        return trees[0].settings
    settings = copy.copy(trees[0].settings)
    settings.fail_on = min(tree.settings.fail_on for tree in trees)
    return settings


def lint_trees(
    trees: list[Tree], cwd: Path, force_exclude: bool, no_cache: bool, cache_dir: str | None, jobs: int | None
):
    """``lint_paths`` once per tree (each with its cache), the results merged."""
    from ..lint.engine import lint_paths

    results = []
    for tree in trees:
        cache = None
        if tree.settings.cache and not no_cache:
            from ..lint.cache.store import open_cache

            cache = open_cache(tree.settings, cwd, cache_dir)
        result = lint_paths(tree.paths, tree.settings, cwd, force_exclude=force_exclude, cache=cache, jobs=jobs)
        results.append(result)
    return merge_results(results)


def fix_trees(trees: list[Tree], cwd: Path, force_exclude: bool, unsafe: bool, write: bool, stdin=None):
    """``fix_paths`` once per tree, the runs merged."""
    from .fixes import fix_paths

    runs = []
    for tree in trees:
        run = fix_paths(tree.paths, tree.settings, cwd, force_exclude=force_exclude, unsafe=unsafe, write=write, stdin=stdin)
        runs.append(run)
    if len(runs) == 1:
        return runs[0]
    merged = runs[0]
    merged.result = merge_results([run.result for run in runs])
    for run in runs[1:]:
        merged.fixed += run.fixed
        merged.applied += run.applied
        merged.changed.update(run.changed)
        merged.refused.update(run.refused)
        merged.passes = max(merged.passes, run.passes)
        merged.converged = merged.converged and run.converged
        merged.written += run.written
        merged.write_errors.update(run.write_errors)
        merged.not_written += run.not_written
        merged.removed_temps += run.removed_temps
        merged.kept_temps.update(run.kept_temps)
    return merged


def merge_results(results: list):
    """One LintResult of the runs of several trees."""
    if len(results) == 1:
        return results[0]
    from ..diagnostics import Diagnostic
    from ..lint.engine import LintResult, left_out_by_code

    merged = LintResult()
    fixed: Counter = Counter()
    for result in results:
        merged.diagnostics.extend(result.diagnostics)
        merged.packages += result.packages
        merged.warnings.extend(w for w in result.warnings if w not in merged.warnings)
        merged.internal_errors.extend(result.internal_errors)
        merged.abandoned_fix_temps.extend(p for p in result.abandoned_fix_temps if p not in merged.abandoned_fix_temps)
        fixed.update(result.fixed)
    merged.fixed = dict(fixed)
    merged.diagnostics.sort(key=Diagnostic.sort_key)
    merged.left_out = left_out_by_code(merged.diagnostics)
    return merged
