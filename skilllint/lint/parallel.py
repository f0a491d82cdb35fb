"""Lint packages in worker processes when a tree is large.

Packages are independent, so on a large tree each worker lints a share of them
and sends back its diagnostics and the skills' catalog entries; the main process
then judges what needs the whole tree (the catalogs). Workers are a process pool
with the fork context: they inherit the loaded rules, settings and package list,
so nothing but batch bounds and the results crosses a pipe, and no worker
re-imports or re-reads the configuration.

Where ``fork`` is not available (Windows, macOS's default is spawn and fork is
unsafe there with system frameworks loaded), in a process with other threads (the
language server), or when the tree is small, everything runs in the main process:
a fork costs a few milliseconds, a package a few more.

A worker that fails or dies (killed, out of memory) loses nothing: the main
process lints whatever no worker sent back itself, and says so in ``failures``.
A worker whose main process dies (killed, even with SIGKILL) ends at once: it
would lint on for no one.

:class:`Background` runs one function in a forked process meanwhile (the
catalogs of a warm run, while the main process fetches the skills' results).
"""

from __future__ import annotations

import contextlib
import gc
import marshal
import os
import signal
import sys
import threading
from functools import lru_cache, partial
from typing import Callable, Sequence

# Below this many packages per worker the forks cost more than they save.
MIN_PACKAGES_PER_WORKER = 24
MAX_WORKERS = 8


def usable_cpus() -> int:
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def can_fork() -> bool:
    """Whether this process may fork: Linux, and no other thread (a fork copies only this
    thread: a lock another thread holds would never be released)."""
    return sys.platform == "linux" and threading.active_count() == 1


def worker_count(packages: int, jobs: int | None) -> int:
    """How many workers lint ``packages`` packages: ``jobs`` (None or 0: as many as
    the CPUs this process may use and the tree is worth); 1 means in-process."""
    if not can_fork():
        return 1
    if jobs:
        return max(1, min(jobs, packages))
    return max(1, min(usable_cpus(), MAX_WORKERS, packages // MIN_PACKAGES_PER_WORKER))


def _same(value):
    return value


# What the pool's workers run, set before they are forked: they inherit it, so the items
# (packages, with what they have read) are never pickled; only batch bounds go to a worker
# and plain results come back.
_JOB: tuple | None = None


class PendingMap:
    """``function`` applied to every item, in worker processes when ``workers`` > 1.

    Start it, do other work, then call :meth:`results` for the list in item order.

    The workers are a :class:`concurrent.futures.ProcessPoolExecutor` with the fork
    context (imported only here: one process needs none of it). They take the next batch
    of items when they finish one, so one worker's run of large skills does not leave the
    other idle. ``to_plain`` turns a value into what crosses back to this process and
    ``from_plain`` turns it back. A batch whose function raised, whose result could not be
    sent, or whose worker died is done again here, and ``failures`` says why.

    ``first``, when given, is the index of an item done in this process before the workers
    are forked: whatever it loads lazily (modules, compiled patterns, a tokenizer's tables)
    every worker then inherits, instead of each loading it again.
    """

    def __init__(
        self,
        function: Callable,
        items: Sequence,
        workers: int,
        to_plain: Callable = _same,
        from_plain: Callable = _same,
        first: int | None = None,
    ) -> None:
        self.function = function
        self.items = items
        self.from_plain = from_plain
        self.failures: list[str] = []
        self._pool = None
        self._futures: list = []  # (start, stop, future)
        self._frozen = False
        self._done_here: dict[int, object] = {}  # index -> value, of the item done before the fork
        if workers > 1:
            if first is not None and 0 <= first < len(items):
                self._done_here[first] = function(items[first])
            self._start(workers, to_plain)

    def _start(self, workers: int, to_plain: Callable) -> None:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        global _JOB
        _JOB = (self.function, to_plain, self.items, frozenset(self._done_here))
        _prctl()  # looked up here once, not in every worker
        gc.freeze()  # see Background: the collector's writes would copy the shared pages
        self._frozen = True
        pool = ProcessPoolExecutor(workers, multiprocessing.get_context("fork"), initializer=_die_with, initargs=(os.getpid(),))
        try:
            # The first submit forks every worker (the fork context starts them all at once,
            # before the pool's own thread): a fork that fails raises here.
            self._futures = [(start, stop, pool.submit(_work, start, stop)) for start, stop in _batches(len(self.items))]
        except OSError as exc:
            self.failures.append(f"could not start worker processes ({exc}); linted in the main process")
            self._futures = []
            for process in list(pool._processes.values()):  # those forked before the failure wait for work
                process.kill()
            pool.shutdown(wait=True, cancel_futures=True)
            self._unfreeze()
            return
        self._pool = pool

    def results(self) -> list:
        results: list = [None] * len(self.items)
        done = [False] * len(self.items)
        try:
            for start, _stop, future in self._futures:
                try:
                    outcome, message, values = future.result()
                except Exception as exc:  # noqa: BLE001 - the worker died, or its values could not be sent
                    outcome, message, values = "error", _why(exc), []
                for index, value in enumerate(values, start):
                    if index not in self._done_here:
                        results[index] = self.from_plain(value)
                        done[index] = True
                if outcome != "ok":
                    failure = f"a worker process failed ({message}); its skills were linted in the main process"
                    if failure not in self.failures:  # a dead worker fails every batch not done
                        self.failures.append(failure)
        finally:
            self._stop()
        for index, value in self._done_here.items():
            results[index] = value
            done[index] = True
        for index, item in enumerate(self.items):
            if not done[index]:
                results[index] = self.function(item)
        return results

    def _stop(self) -> None:
        """Shut the pool down (when results() was interrupted: after the batches running, dropping the others)."""
        global _JOB
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        self._futures = []
        _JOB = None
        self._unfreeze()

    def _unfreeze(self) -> None:
        if self._frozen:
            gc.unfreeze()
            self._frozen = False


def _why(exc: BaseException) -> str:
    from concurrent.futures.process import BrokenProcessPool

    if isinstance(exc, BrokenProcessPool):
        return f"it died: {exc}"
    return f"could not send the result: {type(exc).__name__}: {exc}"


# At most this many batches, so that a large tree does not cost a pickled task an item.
_MAX_BATCHES = 512


def _batches(count: int) -> list[tuple[int, int]]:
    """Consecutive batches covering ``count`` items: single items up to _MAX_BATCHES,
    then as many items a batch as keeps the number of batches within it."""
    size = max(1, -(-count // _MAX_BATCHES))
    return [(start, min(start + size, count)) for start in range(0, count, size)]


def _work(start: int, stop: int) -> tuple:
    """In a worker: the items [start, stop) of the job; (outcome, message, plain values of
    the items done, from ``start``; None for one done before the fork), stopping at the
    first that raises."""
    function, to_plain, items, done_before = _JOB
    values: list = []
    for index in range(start, stop):
        if index in done_before:
            values.append(None)
            continue
        try:
            values.append(to_plain(function(items[index])))
        except BaseException as exc:  # noqa: BLE001 - reported; the main process redoes what is not sent
            import traceback  # only on failure: kept off start-up
            return "error", f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=4)}", values
    return "ok", "", values


class Background:
    """``function()`` in a forked process while the caller goes on; :meth:`result` waits for
    its value, which must be plain data (what :mod:`marshal` writes: numbers, strings, lists,
    tuples, dicts). Plain ``os.fork``, a pipe and marshal: importing ``multiprocessing`` and
    pickling would cost a good part of what a background task here saves. When the fork
    fails, or the process fails or dies, :meth:`result` runs ``function`` in this process
    and ``failure`` says why.
    """

    def __init__(self, function: Callable) -> None:
        self.function = function
        self.failure: str | None = None
        self._pid: int | None = None
        self._fd: int | None = None
        # Until the child is done, neither process lets the collector walk the objects they
        # share: each walk writes to every object's header, and a written page is copied
        # (copy-on-write), which cost the child as much as its work.
        gc.freeze()
        try:
            pid, read_fd, write_fd = _pipe_and_fork()
        except OSError as exc:
            gc.unfreeze()
            self.failure = f"could not start a background process ({exc}); ran in the main process"
            return
        if pid == 0:
            gc.disable()  # a short life: whatever it allocates goes with it
            os.close(read_fd)
            _run_and_send(function, write_fd)  # never returns
        os.close(write_fd)  # the child holds its own copy: EOF means it is done or gone
        self._pid, self._fd = pid, read_fd

    def result(self):
        if self._fd is None:
            return self.function()
        with os.fdopen(self._fd, "rb") as pipe:
            data = pipe.read()
        self._fd = None
        _, status = os.waitpid(self._pid, 0)
        gc.unfreeze()
        try:
            outcome, payload = marshal.loads(data)  # our own child's bytes, never a file's
        except Exception:  # nothing or a torn message: the process died
            outcome, payload = "died", f"exit status {os.waitstatus_to_exitcode(status)}"
        if outcome == "ok":
            return payload
        self.failure = f"a background process failed ({payload}); ran in the main process"
        return self.function()


def _pipe_and_fork() -> tuple[int, int, int]:
    """(pid, read end, write end): a new pipe and a forked process (pid 0 in the child,
    which ends when the parent is gone). OSError when either cannot be made, with nothing
    left open."""
    read_fd, write_fd = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(read_fd)
        os.close(write_fd)
        raise
    if pid == 0:
        _exit_when_orphaned(write_fd)
    return pid, read_fd, write_fd


def _exit_when_orphaned(write_fd: int) -> None:
    """In a forked child: exit as soon as the parent is gone, however it ended (SIGKILL
    runs no handler of the parent's). ``write_fd`` is the write end of the pipe only the
    parent reads: once no process holds its read end, poll() reports POLLERR on it
    (Linux). A thread waits for that, in poll(), without the GIL. It watches a duplicate,
    which the child never closes: the child closes ``write_fd`` itself when it is done."""
    import select

    watched = os.dup(write_fd)

    def watch() -> None:
        poller = select.poll()
        poller.register(watched, 0)  # no event asked for: errors and hang-ups are always reported
        events = poller.poll()
        if any(mask & (select.POLLERR | select.POLLHUP) for _, mask in events):
            os._exit(1)

    threading.Thread(target=watch, name="skilllint-orphan-watch", daemon=True).start()


def _run_and_send(function: Callable, fd: int) -> None:
    """The forked child: run, send (outcome, payload) down ``fd``, exit without cleanup
    (the parent's buffered output and exit handlers are the parent's)."""
    code = 0
    try:
        try:
            message = ("ok", function())
        except BaseException as exc:  # noqa: BLE001 - reported to the parent, which runs it again
            import traceback
            message = ("error", f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=4)}")
        try:
            data = marshal.dumps(message)
        except ValueError as exc:  # not plain data: say so
            data = marshal.dumps(("error", f"could not send the result: {type(exc).__name__}: {exc}"))
        with os.fdopen(fd, "wb") as pipe:
            pipe.write(data)
    except BaseException:  # noqa: BLE001 - a broken pipe: the parent reads EOF and runs it itself
        code = 1
    finally:
        os._exit(code)


class ForkFailed(Exception):
    """A :class:`Forked` call raised, could not send its value, died, or could not start."""


class Forked:
    """``function()`` in a forked process that an event loop awaits and that can be stopped.

    For the language server: its loop goes on answering requests while the child
    works (a thread would not do: a regular expression, or any C code, holds the
    interpreter lock until it returns), and a call made stale by a newer text is
    killed, not waited for. :meth:`result` returns the value, which must be plain
    data as for :class:`Background`, or raises :class:`ForkFailed`; cancelling the
    awaiting task, or :meth:`stop`, kills the child, and so does the end of the parent.
    ``in_child`` runs in the child before ``function`` (to close the parent's own
    descriptors, say). The caller checks :func:`can_fork` first.
    """

    def __init__(self, function: Callable, in_child: Callable | None = None) -> None:
        self.function = function
        self._pid: int | None = None
        self._fd: int | None = None
        parent = os.getpid()
        _prctl()  # looked up here once, not in every child
        try:
            pid, read_fd, write_fd = _pipe_and_fork()
        except OSError as exc:
            raise ForkFailed(f"could not start a process ({exc})") from None
        if pid == 0:
            os.close(read_fd)
            _run_and_send(partial(_forked_child, function, in_child, parent), write_fd)  # never returns
        os.close(write_fd)  # the child holds its own copy: EOF means it is done or gone
        os.set_blocking(read_fd, False)
        self._pid, self._fd = pid, read_fd

    async def result(self):
        import asyncio

        if self._fd is None:
            raise ForkFailed("stopped before its result")
        loop = asyncio.get_running_loop()
        fd = self._fd
        chunks: list[bytes] = []
        eof = loop.create_future()

        def readable() -> None:
            try:
                data = os.read(fd, 1 << 16)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                data = b""
            if data:
                chunks.append(data)
            elif not eof.done():
                eof.set_result(None)

        loop.add_reader(fd, readable)
        try:
            await eof
        except BaseException:  # cancelled: the value is no longer wanted
            self.stop()
            raise
        loop.remove_reader(fd)
        os.close(fd)
        self._fd = None
        # EOF: the child closed the pipe on its way out, so waiting for it is brief.
        _, status = os.waitpid(self._pid, 0)
        self._pid = None
        try:
            outcome, payload = marshal.loads(b"".join(chunks))  # our own child's bytes, never a file's
        except Exception:  # nothing or a torn message: the process died
            raise ForkFailed(f"the process died ({_how_it_ended(status)})") from None
        if outcome != "ok":
            raise ForkFailed(payload)
        return payload

    def stop(self) -> None:
        """Kill the child (if still running) and reap it; idempotent."""
        if self._fd is not None:
            with contextlib.suppress(Exception):  # no running loop, or it never watched the pipe
                import asyncio

                asyncio.get_running_loop().remove_reader(self._fd)
            os.close(self._fd)
            self._fd = None
        if self._pid is not None:
            pid, self._pid = self._pid, None
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
            _reap(pid)


def _forked_child(function: Callable, in_child: Callable | None, parent: int):
    _die_with(parent)
    gc.freeze()  # the collector never walks (so never copies) the pages shared with the parent
    if in_child is not None:
        in_child()
    return function()


def _die_with(parent: int) -> None:
    """Have the kernel kill this process when ``parent`` ends (Linux): a parent killed
    outright (an editor ending its language server) leaves no work running behind it."""
    prctl = _prctl()
    if prctl is None:
        return  # the child ends with its work
    prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:  # the parent ended before the request took effect
        os._exit(1)


@lru_cache(maxsize=None)
def _prctl():
    """libc's prctl, or None (not Linux, no ctypes)."""
    if sys.platform != "linux":
        return None
    try:
        import ctypes

        return ctypes.CDLL(None).prctl
    except (ImportError, OSError, AttributeError):
        return None


def _how_it_ended(status: int) -> str:
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            return f"signal {signal.Signals(number).name}"
        except ValueError:
            return f"signal {number}"
    return f"exit status {os.waitstatus_to_exitcode(status)}"


def _reap(pid: int, tries: int = 500) -> None:
    """Collect a killed child. It is gone within milliseconds, unless it sits in an
    uninterruptible read: then try again later from the event loop (if one runs)
    rather than wait here, and give up after ~5 s (it stays a zombie)."""
    import asyncio
    import time

    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        loop = None
    for left in range(tries, 0, -1):
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return
        if done:
            return
        if loop is not None:
            loop.call_later(0.01, _reap, pid, left - 1)
            return
        time.sleep(0.01)
