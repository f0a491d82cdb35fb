"""What the result cache keeps beside the results for the whole run: token counts of text parts
(:class:`TokenCounts`), the content hashes of files read to make keys (:class:`FileHashes`) and the
stat memo of keys (:class:`StampKeys`)."""

from __future__ import annotations

import hashlib
import marshal
import time
from pathlib import Path

from ...fsafe import UnsafeFile, content_digest
from . import folder as cache_folder
from .folder import CacheFolder, dump_json, parse_json


class TokenCounts:
    """Token counts of text parts by content hash (the store of :func:`skilllint.skill.size.tokens.use_count_store`),
    kept in one file beside the results: an edited long skill needs only its edited parts counted.

    A key names the encoding and the part's sha256, so an entry is right for any
    code and settings. Worker processes hand their new counts to the main process
    (:meth:`take_new`, :meth:`add`), which alone saves; a concurrent run's counts
    may be lost (the last to save wins), never mixed, as the file is written whole.
    """

    def __init__(self, folder: CacheFolder | Path) -> None:
        self.folder = folder if isinstance(folder, CacheFolder) else CacheFolder(folder)
        self._stored: dict[str, int] | None = None
        self._used: dict[str, int] = {}  # asked for or counted in this run: kept first
        self._new: dict[str, int] = {}  # counted here since the last take_new()
        self._changed = False

    def get(self, key: str) -> int | None:
        count = self._used.get(key)
        if count is None:
            count = self.load().get(key)
            if count is None or not _valid_count(key, count):
                return None
            self._used[key] = count
        return count

    def put(self, key: str, count: int) -> None:
        self._new[key] = count
        self.add({key: count})

    def take_new(self) -> dict[str, int]:
        """The counts made in this process since the last call (what a worker sends back)."""
        new, self._new = self._new, {}
        return new

    def add(self, counts: dict[str, int]) -> None:
        stored = self.load()
        for key, count in counts.items():
            if stored.get(key) != count:
                self._changed = True
            self._used[key] = count

    def save(self) -> None:
        if not self._changed:
            return
        stored = {k: v for k, v in self.load().items() if _valid_count(k, v)}
        kept = used_first(self._used, stored, MAX_TOKEN_COUNTS)
        try:
            self.folder.write(TOKEN_COUNTS_FILE, dump_json({"format": 1, "counts": kept}))
        except (OSError, UnsafeFile):
            pass  # a read-only tree: the next run counts again
        self._changed = False

    def load(self) -> dict[str, int]:
        if self._stored is None:
            self._stored = {}
            data = self.folder.read(TOKEN_COUNTS_FILE, MAX_TOKEN_COUNTS_BYTES)
            data = parse_json(data) if data is not None else None  # absent or torn: every part is counted again
            counts = data.get("counts") if isinstance(data, dict) and data.get("format") == 1 else None
            if isinstance(counts, dict):
                self._stored = counts  # each entry checked when it is asked for or kept (_valid_count)
        return self._stored


def _valid_count(key: str, count: object) -> bool:
    """A key names an encoding and a hash; a count is a whole number, never a bool (JSON true
    would load as one); tokens.py checks it against the bytes of its part."""
    return len(key) <= MAX_TOKEN_KEY and type(count) is int and 0 <= count <= MAX_COUNT


TOKEN_COUNTS_FILE = "token-counts.json"
MAX_TOKEN_COUNTS = 50_000  # parts of ~430 characters: some 20 MB of text, in a file of ~2.5 MB
MAX_TOKEN_COUNTS_BYTES = 8 * 1024 * 1024
MAX_TOKEN_KEY = 100  # "o200k_base:" and 32 hex digits
MAX_COUNT = 2**31


def used_first(used: dict, stored: dict, limit: int) -> dict:
    """What a bounded store file keeps: this run's entries, then earlier ones while there is room."""
    kept = dict(used)
    for key, value in stored.items():
        if len(kept) >= limit:
            break
        kept.setdefault(key, value)
    return kept


def value_hash(value) -> str:
    """The sha256 (hex) of ``value``, plain data (strings, numbers, tuples, lists, None): of its
    marshal form, version 2, which has no back-references (equal values give equal bytes) and
    tells a tuple from a list and ``1`` from ``"1"``; a third of repr's cost on a skill's lstat
    tuples, and a CI run makes several for every skill. What the stat memo's slots are checked
    against, and content keys: those are found again by the same skilllint code (the salt) on
    the Python that made them; another Python's marshal could only make them miss."""
    try:
        data = marshal.dumps(value, 2)
    except ValueError:  # a value marshal cannot write (none is made so today): its repr, told apart
        data = b"repr:" + repr(value).encode("utf-8", "surrogatepass")
    return hashlib.sha256(data).hexdigest()


class FileHashes:
    """Content hashes of the files read to make keys in this process (:func:`skilllint.fsafe.content_digest`),
    by path and ``lstat`` (:func:`skilllint.fsafe.file_stamp`): a skill's SKILL.md keys both its
    result and its catalog entry, and is read once. Kept for the run only (see :class:`StampKeys`)."""

    def __init__(self) -> None:
        self._known: dict[str, tuple] = {}

    def digest(self, path: str, stamp: tuple, trusted: bool = False) -> tuple[str | None, bool]:
        """(the content hash of the file ``path`` whose ``lstat`` is ``stamp``, whether it is
        settled: unchanged for two seconds, by its modification time as the lstat keys judge
        it); (None, False) when it cannot be read as that file. ``trusted``: skilllint's own
        code, read through links."""
        known = self._known.get(path)
        if known is not None and known[0] == stamp:
            return known[1], known[2]
        digest = content_digest(path, stamp, trusted=trusted)
        if digest is None:
            return None, False
        settled = time.time_ns() - stamp[2] >= cache_folder.RACY_SECONDS * 1e9
        self._known[path] = (stamp, digest, settled)
        return digest, settled


class StampKeys:
    """The stat memo: per slot (a package with the run's settings, a skill's catalog files,
    skilllint's code), the hash of the ``lstat`` of all its key was made from, and the content
    key (or the hash it is made from), in ``stamp-keys.json``: a package's files and manifests
    with its place, targets and settings (:meth:`ResultCache._content_key`); a skill's catalog
    files (:func:`skilllint.lint.cache.catalog_entries.entry_digests`); the code (:func:`code_digest`). A
    warm run finds every key here and reads no file; what it misses is read and hashed
    (:class:`FileHashes`). One entry a slot, so a checkout whose files keep changing (CI)
    replaces its entries rather than adding ever more. Kept only when nothing it was made
    from changed within the last two seconds (two writes in one timestamp tick would share
    a stamp). Slots name absolute paths: the memo says what files on this machine hold, and
    is of no use elsewhere.

    Each entry is checked where it is used. Worker processes hand what they added to the main
    process (:meth:`take_new`, :meth:`add`), which alone saves: the file is bounded and written
    whole, this run's entries first, as :class:`TokenCounts` is; a concurrent run's additions
    may be lost (the last to save wins), never mixed."""

    FILENAME = "stamp-keys.json"
    LIMIT = 100_000  # entries (~250 bytes each), this run's first
    MAX_BYTES = 32 * 1024 * 1024  # the largest file read or written

    def __init__(self, folder: CacheFolder | None = None) -> None:
        self.folder = folder
        self._stored: dict | None = None
        self._used: dict[str, list] = {}  # asked for or made in this run: kept first
        self._new: dict[str, list] = {}  # made here since the last take_new()
        self._changed = False

    @staticmethod
    def _valid(slot: str, value: object) -> bool:
        # the key names a result file (its first two characters a folder): letters and digits,
        # never a path; the stamps' hash is only ever compared with one made here
        if len(slot) > MAX_SLOT or type(value) is not list or len(value) != 2:
            return False
        stamps, key = value
        return type(stamps) is str and type(key) is str and len(key) == 64 and key.isascii() and key.isalnum()

    def get(self, slot: str, stamps: str) -> str | None:
        """The key kept in ``slot`` when it was made from what has the ``lstat`` hash ``stamps``."""
        known = self._known(slot)
        return known[1] if known is not None and known[0] == stamps else None

    def put(self, slot: str, stamps: str, key: str) -> None:
        if self._known(slot) != [stamps, key]:
            self._used[slot] = self._new[slot] = [stamps, key]
            self._changed = True

    def _known(self, slot: str) -> list | None:
        value = self._used.get(slot)
        if value is None:
            value = self.load().get(slot)
            if value is None or not self._valid(slot, value):
                return None
            self._used[slot] = value
        return value

    def take_new(self) -> dict:
        """What this process added since the last call (what a worker sends back)."""
        new, self._new = self._new, {}
        return new

    def add(self, entries: dict) -> None:
        if entries:
            self._used.update(entries)
            self._changed = True

    def save(self) -> None:
        if not self._changed or self.folder is None:
            return
        stored = {slot: value for slot, value in self.load().items() if self._valid(slot, value)}
        data = dump_json({"format": 1, "entries": used_first(self._used, stored, self.LIMIT)})
        if len(data) > self.MAX_BYTES:
            return  # it would not be read back
        try:
            self.folder.write(self.FILENAME, data)
        except (OSError, UnsafeFile):
            pass  # a read-only tree: the next run hashes again
        self._changed = False

    def load(self) -> dict:
        if self._stored is None:
            self._stored = {}
            data = self.folder.read(self.FILENAME, self.MAX_BYTES) if self.folder is not None else None
            data = parse_json(data) if data is not None else None  # absent or torn: every key is made again
            entries = data.get("entries") if isinstance(data, dict) and data.get("format") == 1 else None
            if isinstance(entries, dict):
                self._stored = entries
        return self._stored


STAMP_KEYS_FILE = StampKeys.FILENAME
MAX_SLOT = 4096 + 40  # PATH_MAX and the slot's prefix
