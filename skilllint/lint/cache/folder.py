"""The result cache's folders and files, opened as untrusted (:class:`CacheFolder`, :func:`parse_json`),
and the facts every part of the cache shares: its layout version and when a file counts as settled."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from ...fsafe import UnsafeFile
from ...safewrite import SafeFolder

FORMAT = "2"  # the layout version: results live in ``v2`` (1: a file per result)
# A file changed within this many seconds is "racily clean" (as git says): two writes of the
# same size inside one timestamp tick share a stamp, so it is not trusted to be settled.
RACY_SECONDS = 2.0
GITIGNORE = "# created by skilllint\n*\n"


class CacheFolder:
    """A folder of the cache: ``anchor`` is trusted (the user's choice, or the root of the
    repository), and each of ``parts`` below it must be a real folder, never a link.

    :meth:`open` walks down with :class:`skilllint.safewrite.SafeFolder` (``O_NOFOLLOW``
    at each level) and keeps the last level open for the run, so a link planted
    anywhere below the anchor is never followed. ``problem`` says why the folder
    cannot be used (a link or a file in the place of a folder). The folder at
    index ``ignored`` of the chain (0: the anchor) gets a ``.gitignore`` when made.
    """

    def __init__(self, anchor: str | Path, parts: tuple[str, ...] = (), ignored: int | None = None) -> None:
        self.anchor = str(anchor)
        self.parts = tuple(parts)
        self.path = Path(self.anchor, *self.parts)
        self.ignored = ignored
        self.problem: str | None = None
        self._open: SafeFolder | None = None

    def open(self, create: bool = False) -> SafeFolder | None:
        """The folder, made first when ``create`` (None: not there, or not usable;
        an OSError when it cannot be made)."""
        if self._open is not None or self.problem is not None:
            return self._open
        chain: list[SafeFolder] = []
        where = self.anchor
        try:
            made = create and not os.path.isdir(self.anchor)
            chain.append(SafeFolder.trusted(self.anchor, create))
            if made and self.ignored == 0:
                chain[-1].write_atomic(".gitignore", GITIGNORE.encode(), durable=False)
            for depth, name in enumerate(self.parts, 1):
                where = os.path.join(where, name)
                try:
                    chain.append(chain[-1].child(name))
                except FileNotFoundError:
                    if not create:
                        return None
                    chain.append(chain[-1].child(name, create=True))
                    if self.ignored == depth:  # never committed by accident, as ruff's cache does it
                        chain[-1].write_atomic(".gitignore", GITIGNORE.encode(), durable=False)
        except FileNotFoundError:
            return None
        except UnsafeFile as exc:
            self.problem = f"{where}: {exc}; the result cache is not used"
            return None
        finally:
            for folder in chain[:-1]:
                folder.close()
        self._open = chain[-1]
        return self._open

    def read(self, name: str, cap: int) -> bytes | None:
        """The bytes of the file ``name`` (None: absent, not a regular file, or over ``cap``)."""
        try:
            folder = self.open()
            return folder.read(name, cap).data if folder is not None else None
        except (UnsafeFile, OSError):
            return None

    def append(self, name: str, data: bytes) -> bool:
        """Add ``data`` to the end of the file ``name`` (:meth:`skilllint.safewrite.SafeFolder.append`:
        False, nothing written, unless it is a regular file of this user's with no other link)."""
        folder = self.open()
        return folder is not None and folder.append(name, data)

    def write(self, name: str, data: bytes) -> None:
        """Replace the file ``name`` atomically (OSError when the folder cannot be made or written)."""
        folder = self.open(create=True)
        if folder is None:
            raise OSError(self.problem or f"{self.path}: cannot be used")
        folder.write_atomic(name, data, durable=False)  # a lost or torn file reads as a miss


def dump_json(value: object) -> bytes:
    """``value`` as JSON in UTF-8 (a cache file, read back by :func:`parse_json`): by orjson where
    it is installed (a CI run rewrites the stat memo, some 3,000 entries: 0.7 ms against 4.7),
    else, or for what orjson refuses (a name that is not UTF-8, kept as lone surrogates), by the
    standard library."""
    orjson = _orjson()
    if orjson is not None:
        try:
            return orjson.dumps(value)
        except TypeError:  # orjson.JSONEncodeError is one
            pass
    return json.dumps(value).encode("ascii")


def parse_json(data: bytes) -> object:
    """The JSON value of a cache file, or None when it is not UTF-8 JSON, is nested deeper than
    the parser goes, or would take far more memory than its size once loaded (``[[],[],…]``
    takes 30 times its size: each value costs an object and a pointer, some 70 bytes)."""
    values = data.count(b",") + data.count(b"[") + data.count(b"{")
    if 72 * values > 5 * len(data) + 65536:  # skilllint's own files stay under 2.5 times
        return None
    orjson = _orjson()
    if orjson is not None:  # two to three times faster: a CI run parses every entry it reports
        try:
            return orjson.loads(data)
        except ValueError:  # orjson.JSONDecodeError: what the standard library may still read (a
            pass  # lone surrogate, which the cache writes for a name that is not UTF-8; NaN; deep nesting)
        # (orjson reads an integer past 64 bits as a float: out of every bound the entries are
        # checked against, as the int would be, so a miss either way)
    try:
        return json.loads(data.decode("utf-8", "surrogatepass"))
    except (ValueError, RecursionError):
        return None


def _orjson():
    """orjson when this process has imported it (a JSON or SARIF report does, before linting:
    :func:`skilllint.output.formats.prepare`), else None: importing it only for the cache would
    cost a small tree more (~4 ms with its imports) than it saves on its few entries."""
    return sys.modules.get("orjson")
