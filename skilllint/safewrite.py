"""What skilllint writes in a tree: the result cache, a baseline, a fixed file.

Everything goes through :class:`SafeFolder`: every level below a trusted folder is opened with
``O_NOFOLLOW`` and held open, and files are replaced atomically (a temporary file, then
``os.replace``), never written through a link. The temporary files of ``check --fix`` are
locked while in use, so one that a killed run left behind can be told from one in use
(:func:`is_abandoned_fix_temp`).
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
from typing import Callable

from .fsafe import _O_FLAGS, ReadResult, UnsafeFile, file_kind, read_capped

# -- temporary files of `check --fix` -------------------------------------------------------

FIX_TEMP_SUFFIX = ".skilllint-fix"
# `.SKILL.md.3f9a02c1.skilllint-fix`: "." + the fixed file's name + "." + 8 random characters
# + the suffix (see :meth:`SafeFolder.write_atomic`; earlier versions drew them from tempfile's
# alphabet, with "_").
_FIX_TEMP_NAME = re.compile(r"\..+\.[a-z0-9_]{8}" + re.escape(FIX_TEMP_SUFFIX), re.DOTALL)


def is_fix_temp_name(name: str) -> bool:
    """Whether ``name`` is one that ``check --fix`` gives its temporary files."""
    return name.endswith(FIX_TEMP_SUFFIX) and _FIX_TEMP_NAME.fullmatch(name) is not None


def hold_fix_temp(fd: int) -> None:
    """Mark an open temporary file as in use: ``check --fix`` holds an exclusive lock on it
    until it has renamed it over the file it fixes. The kernel drops the lock when the
    process ends, however it ends, so a temporary file nobody holds was abandoned."""
    import fcntl

    fcntl.flock(fd, fcntl.LOCK_EX)


def _open_abandoned(path: str) -> int | None:
    """An open descriptor, locked, of ``path`` when it is a regular file no running
    ``check --fix`` holds (see :func:`hold_fix_temp`); else None."""
    import fcntl

    try:
        fd = os.open(path, _O_FLAGS)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # BlockingIOError: in use
    except OSError:
        os.close(fd)
        return None
    return fd


def is_abandoned_fix_temp(path: str) -> bool:
    """Whether ``path`` (a name :func:`is_fix_temp_name` accepts) is a temporary file left
    by a ``check --fix`` that was stopped before it renamed it (killed, power cut)."""
    fd = _open_abandoned(path)
    if fd is None:
        return False
    os.close(fd)
    return True


def remove_abandoned_fix_temp(path: str) -> str | None:
    """Remove an abandoned temporary file of ``check --fix``; None when done, else why not.
    Only a regular file with such a name that no running ``check --fix`` holds, and
    only while it is still the file that was checked."""
    if not is_fix_temp_name(os.path.basename(path)):
        return "not a temporary file of skilllint"
    fd = _open_abandoned(path)
    if fd is None:
        return "in use, or no longer a regular file"
    try:
        opened, named = os.fstat(fd), os.lstat(path)
        if (opened.st_dev, opened.st_ino) != (named.st_dev, named.st_ino):
            return "replaced meanwhile"
        os.unlink(path)
    except OSError as exc:
        return exc.strerror or str(exc)
    finally:
        os.close(fd)
    return None


# Where names can be opened relative to an open folder, each level is opened with O_NOFOLLOW
# and held open, so a link swapped in for a checked folder is never followed; elsewhere
# (Windows) each level is checked with lstat before use.
_BY_FD = (
    {os.open, os.mkdir, os.stat, os.unlink, os.rename} <= os.supports_dir_fd
    and hasattr(os, "O_DIRECTORY")
    and hasattr(os, "O_NOFOLLOW")
)
_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
_APPEND_FLAGS = os.O_WRONLY | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
_WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


class SafeFolder:
    """A folder reached from a trusted one through real folders only, never a symbolic link.

    Files in it are read (:meth:`read`, as :func:`read_capped`) and written
    (:meth:`write_atomic`) without following a link, and :meth:`child` goes one
    level down the same way: a link planted in the place of a folder or a file
    makes the call fail (:class:`UnsafeFile`) instead of leading out of the tree.
    A missing folder is a ``FileNotFoundError`` unless ``create`` is set.
    """

    def __init__(self, path: str, fd: int | None) -> None:
        self.path = path
        self._fd = fd

    @classmethod
    def trusted(cls, path: str, create: bool = False) -> SafeFolder:
        """The folder ``path`` itself, as its owner chose it (a link in it is followed)."""
        if create:
            os.makedirs(path, exist_ok=True)
        if not _BY_FD:
            if not os.path.isdir(path):
                raise FileNotFoundError(path)
            return cls(path, None)
        return cls(path, os.open(path, _DIR_FLAGS))

    def child(self, name: str, create: bool = False) -> SafeFolder:
        """The folder ``name`` in this one, which must be a real folder (made first if missing and ``create``)."""
        path = os.path.join(self.path, name)
        try:
            return self._open_child(name, path)
        except FileNotFoundError:
            if not create:
                raise
        try:
            os.mkdir(self._name(name), dir_fd=self._fd)
        except FileExistsError:
            pass  # a concurrent run made it: judged as any other below
        return self._open_child(name, path)

    def _open_child(self, name: str, path: str) -> SafeFolder:
        info = os.lstat(self._name(name), dir_fd=self._fd)  # lstat before open: a link is never opened
        if not stat.S_ISDIR(info.st_mode):
            raise UnsafeFile(f"is a {file_kind(info.st_mode)}, not a folder")
        if self._fd is None:
            return SafeFolder(path, None)
        try:
            return SafeFolder(path, os.open(name, _DIR_FLAGS | os.O_NOFOLLOW, dir_fd=self._fd))
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                raise UnsafeFile("changed while being opened") from None  # a link swapped in since the lstat
            raise

    def lexists(self, name: str) -> bool:
        """Whether ``name`` is in this folder (a link counts, and is not followed)."""
        try:
            os.lstat(self._name(name), dir_fd=self._fd)
        except FileNotFoundError:
            return False
        return True

    def read(self, name: str, cap: int) -> ReadResult:
        """:func:`read_capped` of the file ``name`` in this folder, refused unread when over ``cap``."""
        return read_capped(self._name(name), cap, dir_fd=self._fd, whole=True)

    def write_atomic(
        self,
        name: str,
        data: bytes,
        mode: int = 0o600,
        *,
        temp_suffix: str = ".tmp",
        durable: bool = True,
        hold: bool = False,
        before_rename: Callable[[], None] | None = None,
    ) -> None:
        """Replace the file ``name`` with ``data``: every file skilllint writes (a fixed file, a
        report, the baseline, the result cache) is written this way. A new temporary file in
        this folder (``.<name>.<8 random characters><temp_suffix>``, never an existing file or
        a link) gets the data, the mode and owner of the regular file it replaces (else
        ``mode``, less the umask) and is flushed to disk; then it is renamed to ``name`` and the
        rename flushed too. A reader sees the old file or the new one, never half of one, a
        crash leaves one of the two whole, and a link at ``name`` is replaced, never written
        through. On any failure the temporary file is removed.

        ``durable=False`` skips the two flushes, for files whose loss costs nothing but work
        (the result cache: a torn entry reads as a miss): a flush per file would make a cold
        run with a cache several times slower than one without.

        ``hold``: lock the temporary file until it is renamed (:func:`hold_fix_temp`), so one
        a killed run left is known for abandoned. ``before_rename``: a last check, which may
        raise to leave ``name`` as it is."""
        try:
            replaced = os.lstat(self._name(name), dir_fd=self._fd)
        except FileNotFoundError:
            replaced = None
        if replaced is not None and not stat.S_ISREG(replaced.st_mode):
            replaced = None  # a link or other entry is replaced by a new file, nothing of it kept
        while True:
            temporary = f".{name}.{os.urandom(4).hex()}{temp_suffix}"
            try:
                fd = os.open(self._name(temporary), _WRITE_FLAGS, mode, dir_fd=self._fd)
                break
            except FileExistsError:
                continue  # another writer's: draw again
        try:
            try:
                if hold:
                    hold_fix_temp(fd)  # until the rename: the descriptor stays open so far
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
                if replaced is not None:
                    os.fchmod(fd, stat.S_IMODE(replaced.st_mode))
                    if hasattr(os, "fchown") and (replaced.st_uid, replaced.st_gid) != (os.getuid(), os.getgid()):
                        with contextlib.suppress(OSError):  # the owner where we may (root); else it becomes ours
                            os.fchown(fd, replaced.st_uid, replaced.st_gid)
                if durable:
                    os.fsync(fd)
                if before_rename is not None:
                    before_rename()
                os.replace(self._name(temporary), self._name(name), src_dir_fd=self._fd, dst_dir_fd=self._fd)
            finally:
                os.close(fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(self._name(temporary), dir_fd=self._fd)
            raise
        if durable:
            self._flush()

    def append(self, name: str, data: bytes) -> bool:
        """Add ``data`` at the end of ``name``, a regular file of this user's that no other name
        links to; False, and nothing written, otherwise (absent, a link, a FIFO, a hard link, or
        no way to open a name without following a link). Not flushed, and written with
        ``O_APPEND``: for a cache file, where a torn or lost tail reads as a miss."""
        if self._fd is None:
            return False
        try:
            fd = os.open(name, _APPEND_FLAGS, dir_fd=self._fd)
        except OSError:
            return False
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1 or info.st_uid != os.geteuid():
                return False
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            return True
        finally:
            os.close(fd)

    def _flush(self) -> None:
        """Flush the folder's entries to disk (a rename in it lasts through a crash)."""
        with contextlib.suppress(OSError):
            if self._fd is not None:
                os.fsync(self._fd)
            else:
                fd = os.open(self.path, os.O_RDONLY)
                try:
                    os.fsync(fd)
                finally:
                    os.close(fd)

    def _name(self, name: str) -> str:
        return name if self._fd is not None else os.path.join(self.path, name)

    def close(self) -> None:
        fd = self._fd
        if fd is not None and fd >= 0:
            self._fd = -1  # closed: any further use fails (EBADF)
            os.close(fd)

    def __enter__(self) -> SafeFolder:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:
        with contextlib.suppress(OSError):
            self.close()
