"""Which plugin installs a skill: plugin manifests and marketplaces, read as the surfaces read them.

A plugin is a folder installed as one unit: its root is copied whole, and its skills are
namespaced ``plugin:skill``. Two files make one (docs/surfaces.md §4a):

* a **manifest**, ``.claude-plugin/plugin.json`` (Claude Code) or ``.codex-plugin/plugin.json``
  (Codex): its folder is the plugin's root;
* an entry of a **marketplace**, ``.claude-plugin/marketplace.json`` (Claude Code; the folder
  holding ``.claude-plugin/`` is the marketplace root) or ``.agents/plugins/marketplace.json``
  (Codex): each entry of ``plugins`` whose ``source`` is a relative path (a string, or Codex's
  ``{"source": "local", "path": …}``) installs the folder it names as a plugin called by the
  entry's ``name``. A path starting ``./`` resolves from the marketplace root, a bare name from
  ``metadata.pluginRoot``; a source that leaves the marketplace root, or a GitHub, git or npm
  source, is fetched from elsewhere and installs nothing of this tree. Several entries may share
  one root (``"source": "./"`` with a ``skills`` array each: plugins cut out of one shared tree);
  each is its own plugin. An entry whose root holds a manifest installs that plugin, with the
  entry's fields added to the manifest's.

Claude Code's plugins reference ("Component path fields", "Path behavior rules") says which
skills a plugin loads: each ``<name>/SKILL.md`` of its default ``skills/`` folder, plus the
folders its ``skills`` paths name (relative to the plugin root; one holding a SKILL.md directly is
that skill, else each ``<name>/SKILL.md`` in it); a plugin with neither is one skill when a
SKILL.md sits at its root. A skill lies in the plugin that loads it, the nearest first; a skill
inside a plugin's root that no plugin loads is in none (SL520 tells why).
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from ..fsafe import UnsafeFile, is_within, plain_file, read_capped

CLAUDE_MANIFEST = (".claude-plugin", "plugin.json")
CODEX_MANIFEST = (".codex-plugin", "plugin.json")
CLAUDE_MARKETPLACE = (".claude-plugin", "marketplace.json")
CODEX_MARKETPLACE = (".agents", "plugins", "marketplace.json")
# The files whose contents decide where skills are installed: a result cache key stamps each
# one above a package (lint.cache.keys), as the rules read them.
LAYOUT_FILES = (CLAUDE_MANIFEST, CODEX_MANIFEST, CLAUDE_MARKETPLACE, CODEX_MARKETPLACE)
LAYOUT_FOLDERS = frozenset(parts[0] for parts in LAYOUT_FILES)  # a folder without these makes no plugin


def may_make_plugins(names) -> bool:
    """Whether a folder whose entries are ``names`` may hold a manifest or a marketplace itself
    (the ``own`` of :meth:`PluginIndex.candidates`): without one of :data:`LAYOUT_FOLDERS` its
    plugins are its parent's, and its siblings share the answer."""
    return not LAYOUT_FOLDERS.isdisjoint(names)
MANIFEST_MAX_BYTES = 4 * 1024 * 1024  # far above any real manifest or marketplace (the largest public one: 170 kB)


@dataclass(frozen=True, eq=False, repr=False)
class Plugin:
    """A folder a surface installs whole as one plugin."""

    root: Path  # what is copied on install (normalised)
    name: str  # its namespace: the marketplace entry's name, else the manifest's, else the folder's
    declared: tuple[Path, ...] | None  # the folders its `skills` paths name (entry and manifest); None: none named
    manifest: Path | None = None  # the plugin.json that makes it a plugin, if any
    marketplace: Path | None = None  # the marketplace.json whose entry installs it, if any

    @property
    def scanned(self) -> tuple[Path, ...]:
        """The folders its skills are read from: ``skills/`` and the declared ones."""
        return (self.root / "skills", *(self.declared or ()))

    def loads(self, skill: Path, nested: bool = False) -> bool:
        """Whether the skill folder ``skill`` is one of the plugin's skills. ``nested``: the
        surface walks the skills folders' trees (Codex, §3a) rather than reading
        ``<name>/SKILL.md`` only (Claude Code), so a skill anywhere below them counts."""
        default = self.root / "skills"
        if skill.parent == default or (nested and is_within(default, skill) and skill != default):
            return True
        for folder in self.declared or ():
            if skill == folder or (nested and is_within(folder, skill)):
                return True
            if skill.parent == folder and plain_file(str(folder), "SKILL.md") is None:
                return True
        return skill == self.root and self.declared is None and not _is_folder(default)


class PluginIndex:
    """Every manifest and marketplace a run asks about, each read once (one per run, or per
    language-server project: a changed manifest is read again when settings are)."""

    def __init__(self) -> None:
        self._files: dict[tuple[str, tuple[str, ...]], dict | None] = {}
        self._at: dict[tuple[str, tuple, tuple], tuple[Plugin, ...]] = {}
        self._above: dict[tuple[str, str | None, tuple, tuple], tuple[Plugin, ...]] = {}

    def read(self, folder: str, parts: tuple[str, ...]) -> dict | None:
        """The JSON object in ``folder/parts`` (a regular file through real folders, no link
        followed), or None when there is none or it is no readable JSON object."""
        key = (folder, parts)
        if key not in self._files:
            self._files[key] = _read_object(folder, parts)
        return self._files[key]

    def plugins_at(self, folder: str, manifests: tuple, marketplaces: tuple) -> tuple[Plugin, ...]:
        """The plugins a folder's own files make: its marketplaces' local entries (whose roots lie
        at or below it), and the plugin of its manifest (which :meth:`candidates` drops where a
        marketplace entry installs the folder: the entry read the manifest too)."""
        key = (folder, manifests, marketplaces)
        found = self._at.get(key)
        if found is None:
            found = self._at[key] = tuple(self._make(folder, manifests, marketplaces))
        return found

    def candidates(self, skill: Path, stop: Path | None, manifests: tuple, marketplaces: tuple, own: bool = True) -> list[Plugin]:
        """The plugins whose roots hold ``skill`` (at or above it, no higher than ``stop``), the
        nearest root first; entries of one marketplace in its order. ``own``: whether the skill
        folder may hold a manifest or marketplace itself (False when its listing shows none of
        :data:`LAYOUT_FOLDERS`: its parent's answer is the whole answer, and siblings share it)."""
        stop_text = None if stop is None else os.path.normpath(stop)
        folder = os.path.normpath(skill)
        if not own and folder != stop_text:
            folder = os.path.dirname(folder)
        made = self.made_above(folder, stop_text, manifests, marketplaces)
        if not made:
            return []
        found = [plugin for plugin in made if is_within(plugin.root, skill)]
        # A manifest a marketplace entry installs is that entry's plugin (the entry read it too).
        by_entry = {p.root for p in found if p.marketplace is not None}
        found = [p for p in found if p.marketplace is not None or p.root not in by_entry]
        found.sort(key=lambda p: -len(p.root.parts))  # stable: a marketplace's order kept within a root
        return found

    def made_above(self, folder: str, stop: str | None, manifests: tuple, marketplaces: tuple) -> tuple[Plugin, ...]:
        """Every plugin the files of ``folder`` and of the folders above it (up to ``stop``) make,
        nearest first; kept per folder, so siblings share their parent's answer."""
        # A loop, not recursion: a tree may nest folders thousands deep.
        chain: list[str] = []  # folders not answered yet, nearest first
        above: tuple[Plugin, ...] = ()
        while True:
            known = self._above.get((folder, stop, manifests, marketplaces))
            if known is not None:
                above = known
                break
            chain.append(folder)
            parent = os.path.dirname(folder)
            if folder == stop or parent == folder:
                break
            folder = parent
        for folder in reversed(chain):  # from the top down, each on what lies above it
            above = self._above[(folder, stop, manifests, marketplaces)] = self.plugins_at(folder, manifests, marketplaces) + above
        return above

    def _make(self, folder: str, manifests: tuple, marketplaces: tuple):
        root = Path(folder)
        for parts in marketplaces:
            data = self.read(folder, parts)
            if data is None:
                continue
            for name, plugin_root, skills, strict in _local_entries(root, data):
                manifest = self._manifest(str(plugin_root), manifests)
                declared = _declared(plugin_root, skills)
                if manifest is not None and strict:  # `"strict": false`: the entry is the whole definition
                    more = _declared(plugin_root, manifest[1].get("skills", _ABSENT))
                    if more is not None:
                        declared = (declared or ()) + tuple(f for f in more if f not in (declared or ()))
                yield Plugin(plugin_root, name, declared, manifest[0] if manifest else None, root.joinpath(*parts))
        manifest = self._manifest(folder, manifests)
        if manifest is not None:
            path, data = manifest
            name = data.get("name")
            yield Plugin(root, name if isinstance(name, str) and name.strip() else root.name, _declared(root, data.get("skills", _ABSENT)), path)

    def _manifest(self, folder: str, manifests: tuple) -> tuple[Path, dict] | None:
        for parts in manifests:
            data = self.read(folder, parts)
            if data is not None:
                return Path(folder).joinpath(*parts), data
        return None


_ABSENT = object()


def _declared(root: Path, field) -> tuple[Path, ...] | None:
    """The folders a ``skills`` field names, normalised and inside ``root`` (others are dropped:
    Claude Code refuses paths that leave the plugin); None when there is no such field."""
    if field is _ABSENT or field is None:
        return None
    entries = [field] if isinstance(field, str) else field if isinstance(field, list) else []
    folders = []
    for entry in entries:
        if not isinstance(entry, str) or os.path.isabs(entry):
            continue
        folder = Path(os.path.normpath(root / entry))
        if is_within(root, folder) and folder not in folders:
            folders.append(folder)
    return tuple(folders)


def _local_entries(root: Path, data: dict):
    """(name, plugin root, its `skills` field or _ABSENT, whether it is strict) of each entry of a
    marketplace at ``root`` that installs a folder of this tree. A strict entry (the default) adds to
    the manifest of the folder it installs; one with ``"strict": false`` is the plugin's whole
    definition, and the manifest's components do not count (S-CCMKT, "Strict mode")."""
    plugins = data.get("plugins")
    if not isinstance(plugins, list):
        return
    meta = data.get("metadata")
    base = meta.get("pluginRoot") if isinstance(meta, dict) else None
    base = base if isinstance(base, str) and not os.path.isabs(base) else ""
    for entry in plugins:
        if not isinstance(entry, dict):
            continue
        name, source = entry.get("name"), entry.get("source")
        if isinstance(source, dict) and source.get("source") == "local":  # Codex's form
            source = source.get("path")
        if not isinstance(name, str) or not name.strip() or not isinstance(source, str) or not source or os.path.isabs(source):
            continue
        relative = source in (".", "..") or source.startswith(("./", "../"))
        plugin_root = Path(os.path.normpath(root / (source if relative else os.path.join(base, source))))
        if is_within(root, plugin_root):
            yield name, plugin_root, entry.get("skills", _ABSENT), entry.get("strict", True) is not False


def _read_object(folder: str, parts: tuple[str, ...]) -> dict | None:
    if plain_file(folder, *parts) is None:
        return None
    try:
        data = json.loads(read_capped(Path(folder).joinpath(*parts), MANIFEST_MAX_BYTES).data.decode("utf-8"))
    except (UnsafeFile, OSError, UnicodeDecodeError, ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def _is_folder(path: Path) -> bool:
    """Whether ``path`` is a real folder (a link is not followed)."""
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False
