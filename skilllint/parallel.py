"""Lint packages in worker processes when a tree is large.

Packages are independent, so on a large tree each worker lints a share of them
and sends back its diagnostics and the skills' catalog entries; the main process
then judges what needs the whole tree (the catalogs). Workers are forked: they
inherit the loaded rules, settings and package list, so nothing but the results
crosses a pipe, and no worker re-imports or re-reads the configuration.

Where ``fork`` is not available (Windows, macOS's default is spawn and fork is
unsafe there with system frameworks loaded), in a process with other threads (the
language server), or when the tree is small, everything runs in the main process:
a fork costs a few milliseconds, a package a few more.

A worker that fails or dies (killed, out of memory) does not lose its share:
the main process lints it itself and says so in ``failures``.

:class:`Background` runs one function in a forked process meanwhile (the
catalogs of a warm run, while the main process fetches the skills' results).
"""

from __future__ import annotations

import gc
import marshal
import os
import sys
import threading
import traceback
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


class PendingMap:
    """``function`` applied to every item, in worker processes when ``workers`` > 1.

    Start it, do other work, then call :meth:`results` for the list in item order.
    """

    def __init__(self, function: Callable, items: Sequence, workers: int) -> None:
        self.function = function
        self.items = items
        self.failures: list[str] = []
        self._workers: list[tuple] = []  # (process, connection, indices)
        if workers > 1:
            self._start(workers)

    def _start(self, workers: int) -> None:
        from multiprocessing import get_context  # only here: importing it costs more than a small tree's lint

        context = get_context("fork")
        for number in range(workers):
            # interleaved shares: neighbouring skills are alike in size, so each worker gets its part of every kind
            indices = range(number, len(self.items), workers)
            receiver, sender = context.Pipe(duplex=False)
            process = context.Process(target=_work, args=(self.function, self.items, indices, sender), daemon=True)
            try:
                process.start()
            except OSError as exc:  # no more processes: the main process lints this share
                self.failures.append(f"could not start a worker process ({exc}); linted in the main process")
                receiver.close()
                sender.close()
                continue
            sender.close()  # the worker holds its own copy: EOF on `receiver` means it is gone
            self._workers.append((process, receiver, indices))

    def results(self) -> list:
        results: list = [None] * len(self.items)
        done = [False] * len(self.items)
        try:
            pending = {connection: (process, indices) for process, connection, indices in self._workers}
            if pending:
                from multiprocessing.connection import wait  # only with workers: 7 ms to import
            while pending:
                for connection in wait(list(pending)):
                    process, indices = pending.pop(connection)
                    try:
                        status, payload = connection.recv()
                    except Exception:  # EOF, a broken pipe, a torn message: the worker is gone
                        process.join()
                        status, payload = "died", f"exit code {process.exitcode}"
                    connection.close()
                    if status == "ok":
                        for index, value in zip(indices, payload):
                            results[index] = value
                            done[index] = True
                    else:
                        self.failures.append(f"a worker process failed ({payload}); its skills were linted in the main process")
        finally:
            self._stop()
        for index, item in enumerate(self.items):
            if not done[index]:
                results[index] = self.function(item)
        return results

    def _stop(self) -> None:
        for process, connection, _ in self._workers:
            if process.is_alive():
                process.terminate()
            process.join()
            connection.close()
        self._workers = []


def _work(function: Callable, items: Sequence, indices: range, connection) -> None:
    try:
        payload = ("ok", [function(items[index]) for index in indices])
    except BaseException as exc:  # noqa: BLE001 - reported to the main process, which redoes the share
        payload = ("error", f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=4)}")
    try:
        connection.send(payload)
    except Exception as exc:  # an unpicklable result: say so instead of dying silently
        connection.send(("error", f"could not send results: {type(exc).__name__}: {exc}"))
    connection.close()


class Background:
    """``function()`` in a forked process while the caller goes on; :meth:`result` waits for
    its value, which must be plain data (what :mod:`marshal` writes: numbers, strings, lists,
    tuples, dicts). Plain ``os.fork``, a pipe and marshal: ``multiprocessing`` costs ~15 ms
    to import and pickle ~5 ms, a third of what a background task here saves. When the fork
    fails, or the process fails or dies, :meth:`result` runs ``function`` in this process
    and ``failure`` says why.
    """

    def __init__(self, function: Callable) -> None:
        self.function = function
        self.failure: str | None = None
        self._pid: int | None = None
        self._fd: int | None = None
        try:
            read_fd, write_fd = os.pipe()
        except OSError as exc:
            self.failure = f"could not start a background process ({exc}); ran in the main process"
            return
        # Until the child is done, neither process lets the collector walk the objects they
        # share: each walk writes to every object's header, and a written page is copied
        # (copy-on-write), which cost the child as much as its work.
        gc.freeze()
        try:
            pid = os.fork()
        except OSError as exc:
            gc.unfreeze()
            os.close(read_fd)
            os.close(write_fd)
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


def _run_and_send(function: Callable, fd: int) -> None:
    """The forked child: run, send (outcome, payload) down ``fd``, exit without cleanup
    (the parent's buffered output and exit handlers are the parent's)."""
    code = 0
    try:
        try:
            message = ("ok", function())
        except BaseException as exc:  # noqa: BLE001 - reported to the parent, which runs it again
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
