"""Which skills a plugin loads.

Claude Code's plugins reference (code.claude.com/docs/en/plugins-reference,
"Component path fields" and "Path behavior rules"; read through the mirror
zhalice2011/claude-code-docs ``docs/plugins-reference.md`` @ 021fb779):

* the default ``skills/`` folder is always scanned: each ``skills/<name>/SKILL.md``;
* ``skills`` in ``.claude-plugin/plugin.json`` (a path or a list, relative to the
  plugin root, ``./``-prefixed, or ``.``) adds folders: one holding a SKILL.md
  directly is that skill, else each ``<name>/SKILL.md`` in it;
* a plugin with no ``skills/`` folder and no ``skills`` field is loaded as a
  single skill when a SKILL.md sits at its root.

So a skill folder nested inside another skill, or anywhere else in the plugin,
is not one of the plugin's skills. Each plugin's skills are namespaced
``plugin:skill``: same-named skills of two plugins never collide (docs/surfaces.md §2b;
Codex prefixes plugin skills the same way, §3a). A Codex plugin's
``.codex-plugin/plugin.json`` has the same ``skills`` field and is read alike.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from ..fsafe import UnsafeFile, is_within, plain_file, read_capped

# Claude Code's manifest first; a Codex plugin's manifest has the same `skills` field.
MANIFESTS = ((".claude-plugin", "plugin.json"), (".codex-plugin", "plugin.json"))
MANIFEST_MAX_BYTES = 1024 * 1024  # far above any real manifest


def declared_skill_paths(plugin: Path, cache: dict | None = None) -> tuple[Path, ...] | None:
    """The folders the manifest's ``skills`` field names (normalised, inside the plugin),
    or None when it has no such field or cannot be read as JSON (Claude Code then scans
    ``skills/`` alone, as far as a linter can tell)."""
    key = str(plugin)
    if cache is not None and key in cache:
        return cache[key]
    found = _read_declared(plugin)
    if cache is not None:
        cache[key] = found
    return found


def _read_declared(plugin: Path) -> tuple[Path, ...] | None:
    manifest = next((plugin.joinpath(*m) for m in MANIFESTS if plain_file(str(plugin), *m) is not None), None)
    if manifest is None:
        return None
    try:
        data = json.loads(read_capped(manifest, MANIFEST_MAX_BYTES).data.decode("utf-8"))
    except (UnsafeFile, OSError, UnicodeDecodeError, ValueError):
        return None
    if not isinstance(data, dict) or "skills" not in data:
        return None
    field = data["skills"]
    entries = [field] if isinstance(field, str) else field if isinstance(field, list) else []
    folders = []
    for entry in entries:
        if not isinstance(entry, str) or os.path.isabs(entry):
            continue
        folder = Path(os.path.normpath(plugin / entry))
        if is_within(plugin, folder):
            folders.append(folder)
    return tuple(folders)


def plugin_loads(plugin: Path, skill: Path, cache: dict | None = None, nested: bool = False) -> bool:
    """Whether the skill folder ``skill`` is one of ``plugin``'s skills. ``nested``: the surface
    walks the skills folders' trees (Codex, §3a) rather than reading ``<name>/SKILL.md`` only
    (Claude Code), so a skill anywhere below them counts."""
    default = plugin / "skills"
    if skill.parent == default or (nested and is_within(default, skill) and skill != default):
        return True
    declared = declared_skill_paths(plugin, cache)
    for folder in declared or ():
        if skill == folder:
            return True
        if nested and is_within(folder, skill):
            return True
        if skill.parent == folder and plain_file(str(folder), "SKILL.md") is None:
            return True
    return skill == plugin and declared is None and not has_folder(default)


def has_folder(path: Path) -> bool:
    """Whether ``path`` is a real folder (a link is not followed)."""
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False
