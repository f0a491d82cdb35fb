"""How each skill appears in the catalogs, remembered between runs.

A catalog rule needs every skill of the catalog, and pre-commit names one: the
other skills of a 1,000-skill catalog would each be read and their frontmatter
parsed on every commit. Their catalog entries (name, description, hidden, and
what Claude Code's listing shows) depend only on SKILL.md and, for Codex, on
agents/openai.yaml, so they are kept in ``catalog-entries.json`` beside the
result cache and read back while those files are unchanged.

The key of an entry hashes the contents of SKILL.md and, when the folder lists an
``agents`` entry, of ``agents/openai.yaml`` (the key's shape changes when one
appears), by way of the result cache's stat memo (:class:`skilllint.lint.cache.memo.StampKeys`:
while their ``lstat`` is as remembered, they are not read); the skill folder's name (an
entry without a name takes it); the target; the size limit; skilllint's version
and code. No path: the entry is the same in a checkout elsewhere (a cache restored
in CI). When SKILL.md is a link, the key is the skill's path and its SKILL.md's real
path and the ``lstat`` (size, mtime, inode, ctime) of SKILL.md and of the file read
in its place (inside the linted tree: one leading out is never read, nor stat-ed
through); a link at ``agents/`` or ``openai.yaml`` makes the entry uncached, as
``openai.yaml`` is found through the package's links. A file changed within the
last two seconds is not stored (as :mod:`skilllint.lint.cache.store` does), nor one changed
while its entry was read. One JSON file,
read as a cache file is (:class:`skilllint.lint.cache.folder.CacheFolder`: no link, size-capped,
each entry checked against its shape), written under a temporary name and
renamed into place: concurrent runs never see half of it; the last one wins.

The same file keeps catalog rules' costly answers (:class:`KeptAnswers`: SL510's
overlap search over a catalog, keyed by the catalog's normalised descriptions).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import time
from pathlib import Path

from .folder import CacheFolder, parse_json
from .memo import FileHashes, StampKeys, value_hash, used_first
from ...fsafe import UnsafeFile, file_stamp, lstat_each
from ...skill.package import SkillPackage
from ...catalog.model import CatalogSkill, read_entry

FILENAME = "catalog-entries.json"
RACY_SECONDS = 2.0
# Entries not used by this run are kept up to this many (other subsets of the tree, other targets).
MAX_KEPT = 50_000
# The largest file read or written (~420 bytes an entry); older entries give way to stay under it.
MAX_FILE_BYTES = 16 * 1024 * 1024


def entries_beside(cache) -> CatalogEntries | None:
    """The skills' catalog entries of earlier runs, kept beside a :class:`skilllint.lint.cache.store.ResultCache`'s
    results and made once per cache (None when the cache cannot be used). Made here rather than by
    the cache, so that this module builds on the cache and not the other way round."""
    if cache.catalog_entries is None and cache.usable:
        cache.catalog_entries = CatalogEntries(cache.folder, cache.salt, cache.hashes, cache.stamp_keys)
    return cache.catalog_entries


class CatalogEntries:
    """Entries of earlier runs in ``folder`` (a :class:`skilllint.lint.cache.folder.CacheFolder`, or a trusted
    path); :meth:`save` writes this run's back."""

    def __init__(
        self, folder: CacheFolder | Path, salt: str, hashes: FileHashes | None = None, keys: StampKeys | None = None
    ) -> None:
        self.folder = folder if isinstance(folder, CacheFolder) else CacheFolder(folder)
        self.salt = salt
        self.hashes = hashes if hashes is not None else FileHashes()  # the result cache's memos
        self.keys = keys if keys is not None else StampKeys()
        self._stored: dict | None = None
        self._used: dict[str, list | None] = {}
        # per skill folder, shared by its targets: (what the key hashes, whether it may be stored)
        self._stamps: dict[str, tuple[str, bool] | None] = {}
        self._read: dict[str, list] = {}  # per skill folder: the (path, lstat) its content key read
        self._new = False
        self._kept: KeptAnswers | None = None

    def lookup(self, package: SkillPackage, target) -> tuple[str | None, object]:
        """(key, fields) of a stored entry; fields is :data:`MISSING` when there is none
        (and the key None when the entry cannot be kept now)."""
        key, storable = self._key(package, target.id)
        if key is None:
            return None, MISSING
        return (key if storable else None), self.load().get(key, MISSING)

    def remember(self, key: str, fields: list | None) -> None:
        if self.load().get(key, MISSING) != fields:
            self._new = True
        self._used[key] = fields

    def read(self, package: SkillPackage, target) -> CatalogSkill | None:
        """:func:`skilllint.catalog.model.read_entry`, from the store when the files are unchanged."""
        key, fields = self.lookup(package, target)
        if fields is MISSING:
            fields = entry_fields(read_entry(package, target))
            if key is not None and not self.unchanged(package):
                key = None
        if key is not None:
            self.remember(key, fields)
        return skill_from_fields(package, fields)

    @property
    def kept(self) -> KeptAnswers:
        """Answers of catalog rules kept between runs (SL510's overlap search), saved with the entries."""
        self.load()
        return self._kept

    def save(self) -> None:
        if not self._new and not (self._kept is not None and self._kept.changed):
            return
        answers = self._kept.to_save() if self._kept is not None else {}
        data = self._dump(used_first(self._used, self.load(), MAX_KEPT), answers)
        if len(data) > MAX_FILE_BYTES:  # older entries give way; past that, nothing is kept
            data = self._dump(self._used, {key: answers[key] for key in self._kept.used if key in answers})
        if len(data) > MAX_FILE_BYTES:
            return
        try:
            self.folder.write(FILENAME, data)
        except (OSError, UnsafeFile):
            pass  # a read-only tree: the next run reads the skills again

    def _dump(self, entries: dict, answers: dict) -> bytes:
        text = json.dumps({"salt": self.salt, "entries": entries, "kept": answers}, ensure_ascii=False)
        return text.encode("utf-8", "surrogatepass")

    def load(self) -> dict:
        if self._stored is None:
            self._stored = {}
            answers = {}
            data = self.folder.read(FILENAME, MAX_FILE_BYTES)
            data = parse_json(data) if data is not None else None  # absent or torn: every entry is a miss
            if isinstance(data, dict) and data.get("salt") == self.salt and isinstance(data.get("entries"), dict):
                self._stored = {k: v for k, v in data["entries"].items() if _valid_key(k) and (v is None or _valid(v))}
                kept = data.get("kept")
                # an answer's rows are checked where they are used (overlap._from_kept)
                answers = {k: v for k, v in kept.items() if type(v) is list} if isinstance(kept, dict) else {}
            self._kept = KeptAnswers(answers)
        return self._stored

    def unchanged(self, package: SkillPackage) -> bool:
        """Whether the files the package's content key read are as they were then (an entry read
        from a file written meanwhile must not be stored under the key of its earlier content)."""
        try:
            return all(file_stamp(os.lstat(path)) == stamp for path, stamp in self._read.get(str(package.root), ()))
        except OSError:
            return False

    def _key(self, package: SkillPackage, target_id: str) -> tuple[str | None, bool]:
        """(the entry's key, whether an entry may be stored under it now); (None, False) when
        it cannot be kept."""
        root = str(package.root)
        stamps = self._stamps.get(root, False)
        if stamps is False:
            stamps = self._stamps[root] = self._stamps_of(package)
        if stamps is None:
            return None, False
        text, storable = stamps
        return hashlib.sha256(f"{text}\0{target_id}".encode("utf-8", "surrogatepass")).hexdigest(), storable

    def _stamps_of(self, package: SkillPackage) -> tuple[str, bool] | None:
        found = entry_digests(package, self.hashes, self.keys)
        if found is not None:
            text, storable, read = found
            self._read[str(package.root)] = read
            return text, storable
        stamps = entry_stamps(package)  # a link: by lstat and paths
        return None if stamps is None else (stamps, True)


def _entry_files(package: SkillPackage) -> list[str]:
    """The files a catalog entry is made from: SKILL.md, then agents/ and agents/openai.yaml
    where the folder's listing (read already, to find SKILL.md) says agents/ can be there:
    most skills have none, and two stat calls per skill are a third of a pre-commit run's
    store lookups."""
    root = str(package.root)
    paths = [os.path.join(root, package.skill_md_name)]
    if any(name.casefold() == "agents" for name in package.listing):
        paths += [os.path.join(root, "agents"), os.path.join(root, "agents", "openai.yaml")]
    return paths


def entry_digests(package: SkillPackage, hashes: FileHashes, keys: StampKeys) -> tuple[str, bool, list] | None:
    """What an entry depends on, by content, for every target at once (a hash); whether it may be
    stored now (no file changed within the last two seconds) and the (path, lstat) of what was
    read. Found in the stat memo by those ``lstat`` while none changed, else made from each
    file's content hash, read. None where the content form does not apply:
    no SKILL.md, a link at SKILL.md or agents/, a file over the read cap (:func:`entry_stamps`
    judges those)."""
    if package.skill_md_name is None:
        return None
    root = str(package.root)
    paths = _entry_files(package)
    now_ns = time.time_ns()
    read: list = []
    stamps: list = []
    storable = True
    for path, info in zip(paths, lstat_each(paths)):
        if info is None:
            stamps.append(None)
            continue
        if stat.S_ISLNK(info.st_mode) or (stat.S_ISREG(info.st_mode) and info.st_size > package.max_bytes):
            return None  # never read past the read cap to key it
        stamp = file_stamp(info)
        read.append((path, stamp))
        stamps.append(stamp)
        if now_ns - max(info.st_mtime_ns, info.st_ctime_ns) < RACY_SECONDS * 1e9:
            storable = False  # may change again within the same timestamp tick
    if stamps[0] is None:
        return None
    quick = value_hash((root, package.skill_md_name, package.max_bytes, stamps))
    slot = f"e:{root}"
    text = keys.get(slot, quick)
    if text is None:
        parts: list = []
        for path, stamp in zip(paths, stamps):
            if stamp is None or not stat.S_ISREG(stamp[0]):
                parts.append(None if stamp is None else stat.S_IFMT(stamp[0]))
                continue
            digest, _ = hashes.digest(path, stamp)
            storable = storable and digest is not None
            parts.append((stamp[1], digest))
        made = (os.path.basename(root), package.skill_md_name, package.max_bytes, parts)
        text = value_hash(made)
        if storable:
            keys.put(slot, quick, text)
    return text, storable, read


def entry_stamps(package: SkillPackage) -> str | None:
    """What an entry depends on, for every target at once; None when it cannot be kept now."""
    if package.skill_md_name is None:
        return None
    root = str(package.root)
    stamps = []
    now_ns = time.time_ns()
    for index, info in enumerate(lstat_each(_entry_files(package))):
        if info is None:
            stamps.append(None)
            continue
        infos = [info]
        if stat.S_ISLNK(info.st_mode):
            if index:
                return None  # agents/ or openai.yaml through a link: read afresh (rare)
            source = package.skill_md_source  # the file read in SKILL.md's place: inside the tree, or none
            if isinstance(source, Path):
                try:
                    infos.append(os.lstat(source))
                except OSError:
                    return None
        for info in infos:
            if now_ns - info.st_mtime_ns < RACY_SECONDS * 1e9 or now_ns - info.st_ctime_ns < RACY_SECONDS * 1e9:
                return None  # may change again within the same timestamp tick
            stamps.append((info.st_size, info.st_mtime_ns, info.st_ino, info.st_ctime_ns))
    if stamps[0] is None:
        return None
    return repr((root, package.real_skill_md, package.max_bytes, stamps))  # repr: a third of json.dumps's cost


class KeptAnswers(dict):
    """A dict that knows whether it changed and which keys this run used; :meth:`to_save`
    keeps those first, up to :data:`MAX_ANSWERS` (a catalog's answer is one JSON list)."""

    def __init__(self, data: dict) -> None:
        super().__init__(data)
        self.changed = False
        self.used: list[str] = []

    def get(self, key, default=None):
        self.used.append(key)
        return super().get(key, default)

    def __setitem__(self, key, value) -> None:
        if super().get(key, MISSING) != value:
            self.changed = True
        self.used.append(key)
        super().__setitem__(key, value)

    def to_save(self) -> dict:
        return used_first({key: self[key] for key in self.used if key in self}, self, MAX_ANSWERS)


MAX_ANSWERS = 256  # answers of other runs kept (other subsets of the tree, other thresholds)
MISSING = object()
_FIELDS = ("name", "description", "hidden", "when_to_use", "first_body_line")
_SPANS = ("name", "description")  # the frontmatter values whose place an entry keeps, in this order


def entry_fields(skill: CatalogSkill | None) -> list | None:
    """A catalog entry as JSON (None: the target does not load the skill): its fields, then where
    the name and the description are written (what a catalog rule's finding points at)."""
    if skill is None:
        return None
    package = skill.package
    if package.kept_spans is None:
        from ...catalog.render import value_span_of

        package.kept_spans = {key: _span_tuple(value_span_of(package, key)) for key in _SPANS}
    return [*(getattr(skill, name) for name in _FIELDS), [list(package.kept_spans[key]) for key in _SPANS]]


def _span_tuple(span) -> tuple[int, int, int, int]:
    return (span.line, span.column, span.end_line, span.end_column)


def skill_from_fields(package: SkillPackage, fields: list | None) -> CatalogSkill | None:
    if fields is None:
        return None
    name, description, hidden, when_to_use, first_body_line, spans = fields
    if package.kept_spans is None:
        package.kept_spans = {key: tuple(span) for key, span in zip(_SPANS, spans)}
    return CatalogSkill(package, name, description, hidden=hidden, when_to_use=when_to_use, first_body_line=first_body_line)


def _valid_key(key: str) -> bool:
    return len(key) == 64  # a sha256 in hex (JSON keys are strings)


def _valid(fields) -> bool:
    return (
        type(fields) is list
        and len(fields) == len(_FIELDS) + 1
        and all(type(fields[i]) is str for i in (0, 1, 3, 4))
        and type(fields[2]) is bool
        and type(fields[5]) is list
        and len(fields[5]) == len(_SPANS)
        and all(_valid_span(span) for span in fields[5])
    )


def _valid_span(span) -> bool:
    return type(span) is list and len(span) == 4 and all(type(n) is int and 0 < n < 1 << 31 for n in span)
