"""What a result cache key is made of besides the package's own files: where it lies (:func:`path_below`), the
plugin manifests above it, a linked SKILL.md, skilllint's code, the rule plugins and the run's settings."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from ... import __file__ as _PACKAGE_INIT  # skilllint/__init__.py: its folder is the code stamped
from ... import __version__
from ...fsafe import file_stamp, plain_file
from ...discovery.plugins import LAYOUT_FILES  # manifests and marketplaces: a key holds each above the package
from . import folder as cache_folder
from .folder import FORMAT
from .memo import FileHashes, StampKeys


def path_below(anchor: str, path: str) -> str | None:
    """``path`` from ``anchor`` ("." for itself), None when it does not lie below it (both normalised)."""
    if path == anchor:
        return "."
    prefix = anchor if anchor.endswith(os.sep) else anchor + os.sep
    return path[len(prefix) :] if path.startswith(prefix) else None


def manifest_stamps(package, memo: dict) -> list:
    """The plugin manifests and marketplaces above the package, inside its lint root (``memo``: per folder, for siblings)."""
    stamps = []
    lint_root = os.path.normpath(package.lint_root)
    folder = os.path.dirname(str(package.root))
    while folder.startswith(lint_root):
        found = memo.get(folder)
        if found is None:
            found = memo[folder] = []
            for parts in LAYOUT_FILES:
                info = plain_file(folder, *parts)  # as the rules find them: no link followed
                if info is not None:
                    found.append((folder, *parts, info.st_size, info.st_mtime_ns, info.st_ino))
        stamps.extend(found)
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    return stamps


def linked_skill_md(package, now_ns: int) -> tuple | None:
    """When SKILL.md is a link, the file read in its place (its real path and ``lstat``): what the
    key must cover besides the package's own entries; () when it is no link, None when it is racy."""
    name = package.skill_md_name
    entry = package.inventory.entries.get(name) if name else None
    if entry is None or entry.kind != "symlink":
        return ()
    source = package.skill_md_source  # a real path inside the linted tree, or why it is not read
    if not isinstance(source, Path):
        return (str(source),)
    try:
        info = os.lstat(source)
    except OSError as exc:
        return (str(source), exc.errno)
    if now_ns - info.st_mtime_ns < cache_folder.RACY_SECONDS * 1e9:
        return None
    return (str(source), info.st_mode, info.st_size, info.st_mtime_ns, info.st_ino)


def _code_stamp() -> list:
    """The installed skilllint code (an editable checkout changes without a version bump):
    (path from the package, path, :func:`skilllint.fsafe.file_stamp`) of each module, by path.
    Walked with ``os.scandir``: every run pays for it, and ``Path.rglob`` took four times as long."""
    here = os.path.dirname(_PACKAGE_INIT)
    stamps = []
    folders = [""]
    while folders:
        folder = folders.pop()
        with os.scandir(os.path.join(here, folder) if folder else here) as entries:
            for entry in entries:
                rel = f"{folder}/{entry.name}" if folder else entry.name
                if entry.name.endswith(".py") and entry.is_file():
                    stamps.append((rel, entry.path, file_stamp(entry.stat())))
                elif entry.is_dir() and entry.name != "__pycache__":
                    folders.append(rel)
    stamps.sort()
    return stamps


# Stamped once, when this module is imported: a process that loaded older code and runs
# on after the files change must not file its results under the new code's stamp.
_CODE_STAMP = _code_stamp()
_code_digests: dict[str, str | None] = {}  # the digest of the code, once per process


def code_digest(hashes: FileHashes, keys: StampKeys | None = None) -> str | None:
    """A hash of the contents of skilllint's code as this process loaded it (the same in a fresh
    install of the same code: CI installs it anew every run), or None when a module changed since."""
    if "code" not in _code_digests:
        quick = hashlib.sha256(repr(_CODE_STAMP).encode("utf-8", "surrogatepass")).hexdigest()
        found = keys.get("code", quick) if keys is not None else None
        if found is None:
            parts = []
            settled = True
            for rel, path, stamp in _CODE_STAMP:
                digest, ok = hashes.digest(path, stamp, trusted=True)
                if digest is None:
                    break
                settled = settled and ok
                parts.append((rel, digest))
            else:
                found = hashlib.sha256(repr([FORMAT, __version__, parts]).encode()).hexdigest()
                if settled and keys is not None:
                    keys.put("code", quick, found)
        _code_digests["code"] = found
    return _code_digests["code"]


def _plugin_stamp(rules, hashes: FileHashes) -> list:
    """The contents of rule plugins' modules (third-party code changes without skilllint's)."""
    import sys

    stamps = []
    for module in sorted({r.__module__ for r in rules if not r.__module__.startswith("skilllint.")}):
        path = getattr(sys.modules.get(module), "__file__", None)
        try:
            info = os.stat(path) if path else None
        except OSError:
            info = None
        stamps.append((module, hashes.digest(path, file_stamp(info), trusted=True)[0] if info else None))
    return stamps


def settings_salt(settings, hashes: FileHashes, keys: StampKeys | None = None) -> str | None:
    """What every key starts from: skilllint's code and version, rule plugins, the run's settings
    (None when the code changed since this process loaded it: nothing is cached then)."""
    code = code_digest(hashes, keys)
    if code is None:
        return None
    rules = [r for r in settings.enabled_rules()]
    parts = {
        "format": FORMAT,
        "version": __version__,
        "code": code,
        "plugins": _plugin_stamp(rules, hashes),
        "rules": [(r.code, r.__module__, settings.options_for(r), str(settings.severity_override(r))) for r in rules],
        "targets": settings.targets,
        "per_file_ignores": settings.per_file_ignores,
        "max_findings_per_rule_per_file": settings.max_findings_per_rule_per_file,
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()
