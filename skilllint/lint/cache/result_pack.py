"""The result cache's entries, kept in one file: ``results.pack``.

One file a run instead of one per skill: a cold run over a thousand skills wrote a
thousand files (and up to 256 folders) under temporary names and renamed each into
place, and a CI run with the cache restored opened and read a thousand files to look
them up. The pack is read once; a run that made entries appends them at the end (a
pre-commit run files one entry: rewriting the whole pack for it cost more than linting
the file). When an append would take the pack over :data:`MAX_PACK_BYTES`, or cannot be
made, the pack is rewritten: this run's entries, then the newest earlier ones while the
file stays under half the bound (room for appends again), so it never grows without end.

The format is a header line and one line per entry: the key (64 hex digits), a space,
and the entry as one line of JSON (JSON escapes every line end inside a string); a later
line for a key replaces an earlier one. Reading splits lines and keeps each entry's
bytes; an entry is parsed, and checked against its shape, only when it is looked up
(:mod:`skilllint.lint.cache.store` does both). A line that is not of this form is skipped: a
torn or foreign file is a run of misses, and each append starts on a line of its own.
A rewrite goes under a temporary name renamed into place
(:meth:`skilllint.lint.cache.folder.CacheFolder.write`): a concurrent run sees the old
pack or the new one, and an append to the old one is lost (a miss, later).

Workers look up in the pack the main process loaded before they forked and hand what
they add back to it (:meth:`ResultPack.take_new`, :meth:`ResultPack.add`); only the main
process saves.
"""

from __future__ import annotations

from .folder import CacheFolder
from ...fsafe import UnsafeFile

FILENAME = "results.pack"
HEADER = b"skilllint results 1\n"
# The largest pack read or written: far above a large monorepo's results (a skill's
# entry is a few hundred bytes to a few kilobytes), far below what a run may hold.
MAX_PACK_BYTES = 64 * 1024 * 1024
_HEX = frozenset(b"0123456789abcdef")


class ResultPack:
    """The entries of ``folder``'s pack by key (bytes of JSON, unparsed), and this run's."""

    def __init__(self, folder: CacheFolder) -> None:
        self.folder = folder
        self._stored: dict[str, bytes] | None = None
        self._stored_size: int | None = None  # the pack file's size when read whole and well formed
        self._used: dict[str, bytes] = {}  # found or made in this run: written first
        self._new: dict[str, bytes] = {}  # made in this process since the last take_new()
        self._changed = False

    def load(self) -> dict[str, bytes]:
        if self._stored is None:
            self._stored = {}
            data = self.folder.read(FILENAME, MAX_PACK_BYTES)
            if data is not None and data.startswith(HEADER):
                self._stored_size = len(data)
                stored = self._stored
                for line in data[len(HEADER) :].split(b"\n"):
                    if len(line) > 66 and line[64] == 32 and _HEX.issuperset(line[:64]):  # 32: a space
                        stored[line[:64].decode("ascii")] = line[65:]
        return self._stored

    def has_entries(self) -> bool:
        return bool(self.load())

    def get(self, key: str) -> bytes | None:
        """The entry filed under ``key``, as the bytes of its JSON (None: none)."""
        found = self._used.get(key)
        if found is None:
            found = self.load().get(key)
            if found is not None:
                self._used[key] = found
        return found

    def put(self, key: str, entry: bytes) -> None:
        """File ``entry`` (one line of JSON) under ``key``."""
        if b"\n" in entry:
            raise ValueError("an entry is one line of JSON")
        self._used[key] = self._new[key] = entry
        self._changed = True

    def take_new(self) -> dict[str, bytes]:
        """What this process filed since the last call (what a worker sends back)."""
        new, self._new = self._new, {}
        return new

    def add(self, entries: dict[str, bytes]) -> None:
        """A worker's :meth:`take_new`."""
        if entries:
            self._used.update(entries)
            self._changed = True

    def save(self) -> None:
        """Keep what this run filed: appended to the pack when it stays under
        :data:`MAX_PACK_BYTES`, else in a pack rewritten around it (see the module's text)."""
        if not self._changed:
            return
        self._changed = False
        stored = self.load()
        made = [self._line(key, entry) for key, entry in self._used.items() if stored.get(key) != entry]
        if not made:
            return
        block = b"".join([b"\n", *made])  # a line of its own, after a tail another run may have torn
        try:
            if self._stored_size is not None and self._stored_size + len(block) <= MAX_PACK_BYTES:
                appended = self.folder.append(FILENAME, block)
            else:
                appended = False
            if not appended:
                self.folder.write(FILENAME, self._rewritten())
        except (OSError, UnsafeFile):
            return  # a read-only tree: the next run lints again
        self._stored = self._stored_size = None  # a later save compares with the pack as it is now

    @staticmethod
    def _line(key: str, entry: bytes) -> bytes:
        return b"%s %s\n" % (key.encode("ascii"), entry)

    def _rewritten(self) -> bytes:
        """This run's entries (while under :data:`MAX_PACK_BYTES`), then the newest earlier
        ones while the pack stays under half of it; oldest first, as appends leave them."""
        size = len(HEADER)
        ours: list[bytes] = []
        for key, entry in self._used.items():
            line = self._line(key, entry)
            if size + len(line) <= MAX_PACK_BYTES:
                ours.append(line)
                size += len(line)
        earlier: list[bytes] = []
        for key, entry in reversed(self.load().items()):
            if key in self._used:
                continue
            line = self._line(key, entry)
            if size + len(line) <= MAX_PACK_BYTES // 2:  # else a smaller one may still fit
                earlier.append(line)
                size += len(line)
        earlier.reverse()
        return b"".join([HEADER, *earlier, *ours])
