"""Safe access to an untrusted tree.

Every read goes through here: ``lstat`` before ``open``, ``O_NOFOLLOW`` so a
link swapped in after the check is not followed, ``O_NONBLOCK`` so a FIFO can
never block us, a final ``fstat`` to insist on a regular file, and a byte cap.

The language server lints unsaved editor buffers through :func:`overlay`: a
file that passes the same checks is read from the buffer instead of the disk.
``check --stdin-filename`` lints standard input through it too, as a file that
may not exist yet (:func:`list_folder`, :func:`added_entry` show it in listings).

What skilllint writes in a tree goes through :mod:`skilllint.safewrite`.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, Mapping

DEFAULT_MAX_BYTES = 1024 * 1024  # 1 MiB; configurable through SL011's option
MAX_READ_BYTES = 16 * 1024 * 1024  # the most any configuration raises that cap to


class UnsafeFile(Exception):
    """The path is not a regular file we may read (link, FIFO, device, socket, gone)."""


@dataclass(frozen=True, eq=False, repr=False)
class ReadResult:
    """The bytes read from a file, its size on disk, and whether the cap cut it."""

    data: bytes
    size: int  # size on disk
    truncated: bool  # True when size > cap and only ``cap`` bytes were read


_OVERLAY: ContextVar[Mapping[str, bytes] | None] = ContextVar("skilllint_overlay", default=None)
# folder -> {name: "file" or "dir"}: the entries an overlay adds where nothing is on disk
_ADDED: ContextVar[Mapping[str, Mapping[str, str]] | None] = ContextVar("skilllint_overlay_added", default=None)


@contextmanager
def overlay(contents: Mapping[str, bytes], new_files: Iterable[str] = ()) -> Iterator[None]:
    """Within the block, :func:`read_capped` returns ``contents[path]`` (keys:
    normalised absolute paths) for a file that is still a regular file on disk:
    the editor's text replaces what is on disk, never what kind of file it is.

    ``new_files`` (keys of ``contents``) may be absent on disk: an unsaved new file.
    While nothing is there, each is read from ``contents`` and listed in its folder, as
    are the folders on the way to it that are absent too (:func:`list_folder`,
    :func:`added_entry`); anything on disk in its place is read as it is."""
    added: dict[str, dict[str, str]] = {}
    for path in new_files:
        kind = "file"
        while not os.path.lexists(path):
            folder, name = os.path.split(path)
            if not name or folder == path:
                break
            added.setdefault(folder, {})[name] = kind
            path, kind = folder, "dir"
    token = _OVERLAY.set(contents)
    added_token = _ADDED.set(added or None)
    try:
        yield
    finally:
        _ADDED.reset(added_token)
        _OVERLAY.reset(token)


def added_entry(path: Path | str) -> tuple[str, int] | None:
    """(kind, size) of an entry the overlay adds at ``path`` (absent on disk), else None."""
    added = _ADDED.get()
    if not added:
        return None
    folder, name = os.path.split(os.path.normpath(os.path.abspath(path)))
    kind = added.get(folder, {}).get(name)
    if kind is None:
        return None
    contents = _OVERLAY.get() or {}
    return kind, len(contents.get(os.path.join(folder, name), b"")) if kind == "file" else 0


def overlay_adds_entries() -> bool:
    """Whether an overlay adds entries (new files) that a listing of the disk lacks."""
    return bool(_ADDED.get())


def overlaid_size(path: Path | str, size: int) -> int:
    """The size of a regular file as its overlaid text has it (``size``: on disk)."""
    contents = _OVERLAY.get()
    if not contents:
        return size
    text = contents.get(os.path.normpath(os.path.abspath(path)))
    return size if text is None else len(text)


def has_overlay() -> bool:
    """Whether an overlay (an editor's unsaved text) stands in for some file's content."""
    return bool(_OVERLAY.get())


def list_folder(path: Path | str) -> list[str]:
    """``os.listdir(path)`` with the entries an overlay adds there (an ``OSError`` as
    ``listdir`` raises it, unless the overlay adds the folder itself)."""
    added = _ADDED.get()
    extra = added.get(os.path.normpath(os.path.abspath(path))) if added else None
    if not extra:
        return os.listdir(path)
    try:
        names = os.listdir(path)
    except (FileNotFoundError, NotADirectoryError):
        if added_entry(path) is None:
            raise
        names = []
    return names + [name for name in extra if name not in names]


_O_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


def read_capped(path: Path | str, cap: int = DEFAULT_MAX_BYTES, *, dir_fd: int | None = None, whole: bool = False) -> ReadResult:
    """Read at most ``cap`` bytes of a regular file that is not a symlink (``path``
    relative to the open folder ``dir_fd`` when given, as :class:`SafeFolder` reads;
    ``whole``: a file over the cap is refused unread, as only all of it is of use)."""
    try:
        info = os.lstat(path, dir_fd=dir_fd)
    except OSError as exc:
        added = added_entry(path) if dir_fd is None and exc.errno in (errno.ENOENT, errno.ENOTDIR) else None
        if added is not None and added[0] == "file":  # a new file of the overlay: nothing on disk yet
            text = _OVERLAY.get()[os.path.normpath(os.path.abspath(path))]  # type: ignore[index]
            if whole and len(text) > cap:
                raise UnsafeFile(f"is larger than {cap:,} bytes") from None
            return ReadResult(text[:cap], len(text), len(text) > cap)
        raise UnsafeFile(f"cannot stat: {exc.strerror or exc}") from None
    if stat.S_ISLNK(info.st_mode):
        raise UnsafeFile("is a symbolic link")
    if not stat.S_ISREG(info.st_mode):
        raise UnsafeFile(f"is a {file_kind(info.st_mode)}, not a regular file")
    if whole and info.st_size > cap:
        raise UnsafeFile(f"is larger than {cap:,} bytes")
    buffers = _OVERLAY.get()
    if buffers and dir_fd is None:
        text = buffers.get(os.path.normpath(os.path.abspath(path)))
        if text is not None:
            return ReadResult(text[:cap], len(text), len(text) > cap)
    try:
        fd = os.open(path, _O_FLAGS, dir_fd=dir_fd)
    except OSError as exc:
        raise UnsafeFile(f"cannot open: {exc.strerror or exc}") from None
    try:
        opened = os.fstat(fd)
        if not stat.S_ISREG(opened.st_mode):
            raise UnsafeFile(f"is a {file_kind(opened.st_mode)}, not a regular file")
        if (opened.st_dev, opened.st_ino) != (info.st_dev, info.st_ino):
            raise UnsafeFile("changed while being opened")  # swapped between lstat and open
        info = opened
        chunks = []
        remaining = cap + 1  # one byte more tells us the file is over the cap
        while remaining > 0:
            chunk = os.read(fd, min(remaining, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
    except OSError as exc:
        raise UnsafeFile(f"cannot read: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    data = b"".join(chunks)
    truncated = len(data) > cap
    return ReadResult(data[:cap] if truncated else data, max(info.st_size, len(data)), truncated)


def lstat_each(paths: Iterable[str | Path]) -> list[os.stat_result | None]:
    """The ``lstat`` of each of ``paths`` as it is now, None for one that cannot be stat-ed
    (gone, or a folder on the way no longer one): what a memo keyed on files compares."""
    found: list[os.stat_result | None] = []
    for path in paths:
        try:
            found.append(os.lstat(path))
        except OSError:
            found.append(None)
    return found


def file_stamp(info: os.stat_result) -> tuple[int, int, int, int, int]:
    """(mode, size, mtime, inode, ctime) of an ``lstat``: what tells a file unchanged
    without reading it (as git's index does; ctime changes with any write or ``utime``)."""
    return (info.st_mode, info.st_size, info.st_mtime_ns, info.st_ino, info.st_ctime_ns)


def content_digest(path: Path | str, stamp: tuple, *, trusted: bool = False) -> str | None:
    """The sha256 (hex) of the regular file ``path`` (its first :data:`MAX_READ_BYTES` bytes at
    most: the result cache hashes no file larger than the read cap), or None when it is not
    the file ``stamp`` (:func:`file_stamp`) describes once open: changed
    since it was listed, a link, a FIFO, gone (a write while it is read changes its stamp,
    which the cache checks again before it files a result). Opened as :func:`read_capped`
    opens (no link followed, never blocking), unless ``trusted`` (skilllint's own code). With
    an overlay (an editor's text), None: what is on disk is not what is linted.

    A CI run with the cache restored hashes every file of every skill here (4,200 on the
    corpus), so the common case, a file read whole in one call, takes the shortest path."""
    if _OVERLAY.get() is not None:
        return None
    try:
        fd = os.open(path, _TRUSTED_FLAGS if trusted else _O_FLAGS)
    except OSError:
        return None
    try:
        opened = os.fstat(fd)
        size = opened.st_size
        if (opened.st_mode, size, opened.st_mtime_ns, opened.st_ino, opened.st_ctime_ns) != stamp or not stat.S_ISREG(opened.st_mode):
            return None
        if size < _ONE_READ:
            data = os.read(fd, size + 1)  # a short read is the file's end
            if len(data) <= size:
                return hashlib.sha256(data).hexdigest()
            digest = hashlib.sha256(data)  # it grew since: read on to the bound, as below
            remaining = MAX_READ_BYTES - len(data)
        else:
            digest = hashlib.sha256()
            remaining = MAX_READ_BYTES
        while remaining > 0:
            wanted = min(remaining, size + 1, _ONE_READ)
            chunk = os.read(fd, wanted)
            digest.update(chunk)
            remaining -= len(chunk)
            if len(chunk) < wanted:
                break
    except OSError:
        return None
    finally:
        os.close(fd)
    return digest.hexdigest()


_ONE_READ = 1 << 20
_TRUSTED_FLAGS = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0)


def kind_of_mode(mode: int) -> str:
    """The kind id of an lstat mode: file, dir, symlink, fifo, socket, char-device, block-device, other."""
    return _KIND_OF_FORMAT.get(stat.S_IFMT(mode), "other")  # one lookup: asked for every entry of every skill


_KIND_OF_FORMAT = {
    stat.S_IFREG: "file",
    stat.S_IFDIR: "dir",
    stat.S_IFLNK: "symlink",
    stat.S_IFIFO: "fifo",
    stat.S_IFSOCK: "socket",
    stat.S_IFCHR: "char-device",
    stat.S_IFBLK: "block-device",
}


_HUMAN_KIND = {
    "file": "regular file",
    "dir": "directory",
    "symlink": "symbolic link",
    "fifo": "FIFO",
    "socket": "socket",
    "char-device": "character device",
    "block-device": "block device",
    "other": "special file",
}


def file_kind(mode: int) -> str:
    """What a mode says a path is, in words ("FIFO", "symbolic link")."""
    return _HUMAN_KIND[kind_of_mode(mode)]


def is_within(root: Path, path: Path) -> bool:
    """Whether ``path`` is ``root`` or below it (both already absolute, normalised)."""
    if os.name == "posix":  # on strings: a hot path (discovery, catalogs), and relative_to builds Paths
        top, text = str(root), str(path)
        return text == top or text.startswith(top if top.endswith("/") else top + "/")
    try:
        path.relative_to(root)
    except ValueError:
        return False
    return True


MAX_LINK_HOPS = 40  # links followed in one resolution, as the kernel's ELOOP bound


def real_path(path: Path | str) -> str:
    """``os.path.realpath`` for a path in an untrusted tree: raises ``OSError`` where that
    one can fail in other ways, or never stop.

    Python before 3.13 lets the ``PermissionError`` of ``readlink`` escape when ``lstat``
    succeeded, as on ``/proc/1/cwd`` for a process that may not trace pid 1; it recurses
    once per link, so a chain of a few thousand links is a ``RecursionError``; and with no
    bound on the links it follows, resolving every link of a long chain is quadratic. Here
    the resolution is a loop, a link that cannot be read is an ``OSError`` (its errno), and
    more than :data:`MAX_LINK_HOPS` links is ``ELOOP``, as the kernel would say. A name
    that is missing or cannot be looked at is kept as it stands, as ``realpath`` does.
    """
    text = os.fspath(path)
    if os.name != "posix":
        try:
            return os.path.realpath(text)
        except (RecursionError, ValueError) as exc:
            raise OSError(errno.ELOOP, str(exc), text) from None
    if not text.startswith("/"):
        text = os.path.join(os.getcwd(), text)  # not abspath: it folds `link/..` before the link is read
    pending = [part for part in reversed(text.split("/")) if part]  # the next name last
    resolved = "/"
    hops = 0
    while pending:
        name = pending.pop()
        if name == ".":
            continue
        if name == "..":
            resolved = os.path.dirname(resolved)
            continue
        candidate = os.path.join(resolved, name)
        try:
            info = os.lstat(candidate)
        except (OSError, ValueError):
            resolved = candidate
            continue
        if not stat.S_ISLNK(info.st_mode):
            resolved = candidate
            continue
        hops += 1
        if hops > MAX_LINK_HOPS:
            raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), text)
        target = os.readlink(candidate)  # OSError: a link we may not read
        if target.startswith("/"):
            resolved = "/"
        pending.extend(part for part in reversed(target.split("/")) if part)
    return resolved


def real_path_or_given(path: Path | str) -> str:
    """:func:`real_path`, or the path as it stands (absolute, normalised) where a link on
    the way cannot be resolved: for naming a folder that was listed or stat-ed already."""
    try:
        return real_path(path)
    except OSError:
        return os.path.normpath(os.path.abspath(path))


def _through_real_folders(folder: str, parts: tuple[str, ...], memo: dict | None = None) -> os.stat_result | None:
    """The ``lstat`` of ``folder/parts…`` when every part but the last is a real folder (no link
    stat-ed through), else None. ``memo``: path -> its ``lstat`` (None: none), for questions
    asked together about one moment of the tree (many share the folders on the way)."""
    path = folder
    info = None
    for part in parts:
        if info is not None and not stat.S_ISDIR(info.st_mode):
            return None
        path = os.path.join(path, part)
        if memo is not None and path in memo:
            info = memo[path]
            if info is None:
                return None
            continue
        try:
            info = os.lstat(path)
        except (OSError, ValueError):  # ValueError: a NUL or a lone surrogate in a name read from a file
            info = None
        if memo is not None:
            memo[path] = info
        if info is None:
            return None
    return info


def plain_file(folder: str, *parts: str) -> os.stat_result | None:
    """The ``lstat`` of ``folder/parts…`` when every part is a real folder (no link) and the last
    a regular file, else None: what stands for a file found by name (a plugin manifest) without
    stat-ing anything through a link, which could lead outside the tree."""
    info = _through_real_folders(folder, parts)
    return info if info is not None and stat.S_ISREG(info.st_mode) else None


def plain_entry(folder: str, *parts: str, memo: dict | None = None) -> bool:
    """Whether ``folder/parts…`` is a regular file or a folder reached through real folders only
    (no link stat-ed on the way or at the end); ``memo`` as for :func:`_through_real_folders`."""
    info = _through_real_folders(folder, parts, memo)
    return info is not None and (stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode))


# -- folders skilllint writes in (the result cache) ---------------------------------------
