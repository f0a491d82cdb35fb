"""The skills a catalog needs beyond the ones being linted.

Catalog rules judge a whole catalog, but a run may name only part of it:
pre-commit passes the changed files, an editor one skill. Two sources fill the
catalog in, and neither is ever reported on (its findings are not the run's):

* **siblings**: the other skills of each linted skill's catalog, found by the
  same discovery (``.gitignore`` and excludes apply) inside the *boundary*,
  the repository holding the working folder (else the working folder). Nothing
  outside it is searched, so naming one skill never reads the whole disk.
* **configured roots** (``[catalog] roots`` or ``--catalog-root SCOPE=PATH``):
  folders of skills a team's members have installed, such as
  ``~/.claude/skills``, with the scope a surface gives them (``user``,
  ``admin``, ``system``; docs/surfaces.md §1a, §2b, §3a). Each root is its own lint
  root: links out of it are not followed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from ..config.settings import ConfigError
from ..discovery.walk import DiscoveryError, discover
from ..fsafe import is_within, real_path_or_given
from ..skill.package import SkillPackage
from ..catalog.model import SCOPES, catalog_key


class CatalogRootError(ConfigError):
    """A configured catalog root is unusable (exit 2 with this message)."""


@dataclass(frozen=True, eq=False, repr=False)
class CatalogRoot:
    """A configured folder of installed skills that joins the catalogs."""

    path: Path
    scope: str
    targets: tuple[str, ...] | None = None  # None: whichever targets the skills' location implies


@dataclass(eq=False, repr=False)
class CatalogContext:
    """What completes the linted skills' catalogs."""

    boundary: Path | None = None  # sibling searches stay inside it; None: no sibling search
    siblings: list[SkillPackage] = field(default_factory=list)
    extra: list[ScopedPackage] = field(default_factory=list)
    # Where each skill lies in its surfaces' catalogs, as the siblings' search worked it out
    # (:func:`skilllint.catalog.model.placement`'s memo): building the catalogs reads it again.
    placements: dict = field(default_factory=dict)


def complete_catalogs(packages, paths, settings, cwd: Path, max_bytes: int, warnings: list[str], log=None) -> CatalogContext:
    """Siblings (unless ``[catalog] context = false``) and configured roots for ``packages``;
    ``log`` (a :class:`~skilllint.catalog.discovery_log.DiscoveryLog`) records the folders searched."""
    taken = {p.real_root for p in packages}
    completion = CatalogContext()
    if settings.catalog.get("context", True):
        completion.boundary = boundary_of(cwd)
        searched = [p for p in (Path(os.path.normpath(cwd / raw)) for raw in (paths or ["."])) if os.path.isdir(p)]
        completion.siblings = load_siblings(packages, settings, completion.boundary, searched, max_bytes, taken, log, completion.placements)
    completion.extra, notes = load_roots(configured_roots(settings), settings, max_bytes, taken, log)
    warnings.extend(notes)
    return completion


@dataclass(frozen=True, eq=False, repr=False)
class ScopedPackage:
    """A skill loaded for a catalog's sake, with the scope its root gives it."""

    package: SkillPackage
    scope: str
    targets: tuple[str, ...] | None = None


def add_command_line_roots(settings, values: list[str] | None, cwd: Path) -> None:
    """``--catalog-root SCOPE=PATH`` (paths relative to the working folder) join the configured roots."""
    tables = list(settings.catalog.get("roots", ()))
    for text in values or ():
        scope, sep, path = text.partition("=")
        if not sep or not path:
            raise CatalogRootError(f"--catalog-root {text!r}: expected SCOPE=PATH, e.g. user=~/.claude/skills")
        root = make_root({"scope": scope.strip(), "path": path}, cwd)
        tables.append({"scope": root.scope, "path": str(root.path)})
    if values:
        settings.catalog = {**settings.catalog, "roots": tables}


def make_root(table: dict, base: Path) -> CatalogRoot:
    scope = table["scope"]
    if scope not in SCOPES or scope == "repo":
        raise CatalogRootError(f"catalog root {table['path']!r}: scope must be one of user, admin, system (got {scope!r})")
    path = Path(os.path.expanduser(table["path"]))
    if not path.is_absolute():
        path = base / path
    targets = table.get("targets")
    return CatalogRoot(Path(os.path.normpath(path)), scope, tuple(targets) if targets else None)


def configured_roots(settings) -> list[CatalogRoot]:
    return [make_root(table, settings.base) for table in settings.catalog.get("roots", ())]


def boundary_of(cwd: Path) -> Path:
    """The repository holding ``cwd`` (the nearest folder with ``.git``), else ``cwd``."""
    for folder in (cwd, *cwd.parents):
        if os.path.lexists(folder / ".git"):
            return folder
    return cwd


def load_roots(
    roots: list[CatalogRoot], settings, max_bytes: int, taken: set[str], log=None
) -> tuple[list[ScopedPackage], list[str]]:
    """The skills under each configured root, each SKILL.md once."""
    found: list[ScopedPackage] = []
    warnings: list[str] = []
    for root in roots:
        if not os.path.isdir(root.path):
            warnings.append(f"catalog root {root.path} ({root.scope}): not a folder; skipped")
            if log is not None:
                log.searched(root.path, root.scope, "configured", 0, "not a folder; skipped")
            continue
        try:
            discovered = discover([str(root.path)], root.path, use_gitignore=settings.respect_gitignore)
        except DiscoveryError as exc:
            warnings.append(f"catalog root {root.path} ({root.scope}): {exc}; skipped")
            if log is not None:
                log.searched(root.path, root.scope, "configured", 0, f"{exc}; skipped")
            continue
        if log is not None:
            log.searched(root.path, root.scope, "configured", len(discovered.packages))
        for item in discovered.packages:
            if item.missing_skill_md or not _claim(item, taken):
                continue
            found.append(ScopedPackage(SkillPackage(item.root, item.lint_root, max_bytes, item.real, item.names), root.scope, root.targets))
    return found, warnings


def load_siblings(
    packages: list[SkillPackage], settings, boundary: Path, searched: list[Path], max_bytes: int, taken: set[str], log=None,
    keys: dict | None = None,
) -> list[SkillPackage]:
    """The other skills of the catalogs the linted ``packages`` belong to.

    ``searched`` are the folders the run already walked whole: a catalog root
    inside one of them has no sibling left to find. ``keys``: the placement memo to fill."""
    roots: set[Path] = set()
    keys = {} if keys is None else keys
    for package in packages:
        if not is_within(boundary, package.root):
            continue
        for target in settings.targets_for(package):
            key = catalog_key(package, target, settings.units, boundary, keys)
            if key is not None:
                roots.add(key[1])
    walked = [str(r) for r in sorted(roots) if is_within(boundary, r) and not any(is_within(done, r) for done in searched)]

    def walk(paths: list[str]) -> list:
        options = {"exclude": settings.exclude, "exclude_base": settings.base, "use_gitignore": settings.respect_gitignore}
        return discover(paths, boundary, force_exclude=True, **options).packages

    # One search for all roots: a root inside another (the repository and its .agents/skills)
    # is listed once, not walked twice. A root that cannot be searched is left out alone.
    try:
        found = walk(walked) if walked else []
    except DiscoveryError:
        found = []
        for root in walked:
            try:
                found += walk([root])
            except DiscoveryError as exc:
                if log is not None:
                    log.searched(Path(root), "repo", "siblings", 0, f"{exc}; skipped")
                continue
    if log is not None:
        for root in walked:
            held = [item for item in found if is_within(Path(root), item.root)]
            if held or not any(r.path == Path(root) for r in log.roots):
                log.searched(Path(root), "repo", "siblings", len(held))
    siblings: list[SkillPackage] = []
    for item in found:
        if item.missing_skill_md or not _claim(item, taken):
            continue
        siblings.append(SkillPackage(item.root, item.lint_root, max_bytes, item.real, item.names))
    return siblings


def _claim(item, taken: set[str]) -> bool:
    """Whether a discovered skill is new to this run (each real folder once)."""
    real = item.real or real_path_or_given(item.root)
    if real in taken:
        return False
    taken.add(real)
    return True
