"""The language server under load and on hostile input, end to end (a `skilllint server`
subprocess, as in tests/test_lsp.py).

A slow lint is made deterministic with a test-only plugin rule, installed for the
server alone through the ``skilllint.rules`` entry-point group (a dist-info folder on
its PYTHONPATH, outside the linted tree). On a line ``XL-SLOW n`` of SKILL.md it
sleeps ``n`` seconds in C *holding the interpreter lock* (``ctypes.PyDLL``), as a
backtracking regular expression does, so a lint in a thread of the server would
block its event loop as surely as one on the loop; ``XL-FAIL`` raises, ``XL-DIE``
kills the process the rule runs in. Each check writes ``start``/``end`` with its
pid to a record file, so a test knows when the lint began, in which process, and
whether it ran to the end.

Bounds: no answer is judged by its seconds (a busy machine stretches them). The slow lint
sleeps SLOW_SECONDS and records its ``end``; a request answered "while the lint runs" is one
answered before that record (and the lint is still there): a server that waits for the
lint fails that, however fast or slow the machine. Waits for an event are hang guards
(conftest.HANG_GUARD): they return at the event and only a broken server reaches them.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path

import pytest
from lsprotocol import types as lsp
from conftest import HANG_GUARD
from test_lsp import ALPHA, BETA, HELLO, Session, codes, make_project, messages_in, notification, request, run, start_server

pytestmark = pytest.mark.e2e

SLOW_SECONDS = 120  # the slow lint; no test waits for it to end (each answer must come before it does)

PLUGIN = '''
import ctypes, os, re, signal

from skilllint.diagnostics import Finding, Span
from skilllint.registry import Rule, severities

_HOLDING_THE_LOCK = ctypes.PyDLL(None)  # a PyDLL call keeps the interpreter lock, as re does
_COMMAND = re.compile(r"XL-(SLOW|FAIL|DIE|MARK)(?: ([0-9]+))?")


def _record(what):
    with open(os.environ["XL_RECORD"], "a", encoding="utf-8") as handle:
        handle.write(f"{what} {os.getpid()}\\n")


class LoadTest(Rule):
    code = "XL001"
    name = "load-test"
    summary = "test-only: slow, failing or dying on command"
    severity = severities("warning: all")

    def check(self, package, ctx):
        _record("start")
        for number, line in enumerate(package.source.lines, start=1):
            command = _COMMAND.search(line)
            if command is None:
                continue
            if command.group(1) == "SLOW":
                _HOLDING_THE_LOCK.sleep(int(command.group(2)))
            elif command.group(1) == "FAIL":
                raise RuntimeError("the load-test rule failed on purpose")
            elif command.group(1) == "DIE":
                os.kill(os.getpid(), signal.SIGKILL)
            yield Finding("marked", Span(number, 1, number, 8))
        _record("end")


RULES = [LoadTest]
'''


@pytest.fixture
def load_rules(tmp_path) -> tuple[dict[str, str], Path]:
    """(environment for the server, record file): the test-only rule, installed outside the project."""
    site = tmp_path / "plugin-site"
    dist = site / "skilllint_load_rules-0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: skilllint-load-rules\nVersion: 0\n")
    (dist / "entry_points.txt").write_text("[skilllint.rules]\nXL = skilllint_load_rules:RULES\n")
    (site / "skilllint_load_rules.py").write_text(PLUGIN)
    record = tmp_path / "record.txt"
    record.touch()
    return {"PYTHONPATH": str(site), "XL_RECORD": str(record)}, record


@pytest.fixture
def project(tmp_path) -> dict[str, Path]:
    root = tmp_path / "project"
    root.mkdir()
    return make_project(root)


def records(record: Path) -> list[tuple[str, int]]:
    return [(what, int(pid)) for what, pid in (line.split() for line in record.read_text().splitlines())]


async def lint_started(record: Path, count: int = 1) -> int:
    """The pid of the ``count``-th check that started (bounded wait)."""
    deadline = time.monotonic() + HANG_GUARD  # a hang guard
    while time.monotonic() < deadline:
        starts = [pid for what, pid in records(record) if what == "start"]
        if len(starts) >= count:
            return starts[count - 1]
        await asyncio.sleep(0.02)
    raise AssertionError(f"no lint started; record: {records(record)}")


async def gone(pid: int, within: float = HANG_GUARD) -> bool:
    """Whether process ``pid`` is gone (killed and reaped: a zombie still answers signal 0)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        await asyncio.sleep(0.05)
    return False


async def answered(awaitable, record: Path | None = None, running: int | None = None):
    """The answer to ``awaitable`` (under the hang guard); with ``running``, the pid of a slow lint,
    it must come while that lint runs: before the lint records its end, and the lint still there."""
    try:
        result = await asyncio.wait_for(awaitable, HANG_GUARD)
    except asyncio.TimeoutError:
        raise AssertionError(f"no answer within {HANG_GUARD} s (a hang guard)") from None
    if running is not None:
        assert ("end", running) not in records(record), "answered only once the slow lint had ended"
        os.kill(running, 0)  # the lint still runs (ProcessLookupError: it does not)
    return result


def hover(s: Session, uri: str, line: int = 0):
    return s.client.text_document_hover_async(
        lsp.HoverParams(text_document=lsp.TextDocumentIdentifier(uri=uri), position=lsp.Position(line=line, character=0))
    )


def slow(text: str, seconds: int = SLOW_SECONDS) -> str:
    return text + f"\nXL-SLOW {seconds}\n"


linux_only = pytest.mark.skipif(sys.platform != "linux", reason="lints run in forked processes on Linux only")


# -- a long lint: the server answers meanwhile, and a newer text stops it ---------------------


@linux_only
def test_requests_are_answered_while_a_lint_holds_the_interpreter_lock(project, load_rules):
    env, record = load_rules

    async def scenario():
        async with Session(project["alpha"].parents[2], env) as s:
            alpha = s.open(project["alpha"], slow(ALPHA))
            pid = await lint_started(record)
            for _ in range(3):
                await answered(hover(s, alpha), record, pid)
                action = s.client.text_document_code_action_async(
                    lsp.CodeActionParams(
                        text_document=lsp.TextDocumentIdentifier(uri=alpha),
                        range=lsp.Range(start=lsp.Position(line=0, character=0), end=lsp.Position(line=0, character=1)),
                        context=lsp.CodeActionContext(diagnostics=[]),
                    )
                )
                await answered(action, record, pid)
            assert pid != s.client._server.pid  # the lint runs in a process of its own

            # A newer text: the slow lint is killed, the new one published, the old never.
            version = s.change(alpha, ALPHA)
            assert await gone(pid)
            assert codes(await s.published(alpha, version=version)) == []
            assert [p.version for p in s.diagnostics[alpha]] == [version]
            assert ("end", pid) not in records(record)

    run(scenario)


@linux_only
def test_a_burst_of_changes_during_a_lint_is_linted_once(project, load_rules):
    env, record = load_rules
    bodies = [ALPHA + f"\nEdit {n}.\nXL-MARK\n" for n in range(60)]

    async def scenario():
        async with Session(project["alpha"].parents[2], env) as s:
            alpha = s.open(project["alpha"], slow(ALPHA))
            slow_pid = await lint_started(record)
            for body in bodies:
                version = s.change(alpha, body)
            found = await s.published(alpha, version=version)
            assert ("end", slow_pid) not in records(record)  # published without waiting for the slow lint
            assert codes(found) == ["XL001"]  # the last text's finding
            assert [p.version for p in s.diagnostics[alpha]] == [version]  # no stale or intermediate version
            assert await gone(slow_pid)
            await asyncio.sleep(1.0)  # no lint of an intermediate text comes after
            assert [p.version for p in s.diagnostics[alpha]] == [version]
            starts = [pid for what, pid in records(record) if what == "start"]
            assert len(starts) <= 3, starts  # the slow one, the burst's (a pause in sending may make two)

    run(scenario)


@linux_only
def test_closing_a_document_during_its_lint_stops_the_lint(project, load_rules):
    env, record = load_rules

    async def scenario():
        async with Session(project["alpha"].parents[2], env) as s:
            # Alone: the lint has no one to publish to and stops.
            alpha = s.open(project["alpha"], slow(ALPHA))
            pid = await lint_started(record)
            s.close(alpha)
            assert await gone(pid)
            await s.published(alpha, count=1)
            assert not s.diagnostics[alpha][-1].diagnostics

            # With a sibling open: alpha's package is linted again from the disk for it, and
            # alpha is never published again.
            beta = s.open(project["beta"])
            assert codes(await s.published(beta, version=1)) == ["SL310"]
            alpha = s.open(project["alpha"], slow(ALPHA))
            pid = await lint_started(record, count=3)
            published = len(s.diagnostics[alpha])
            s.close(alpha)
            assert await gone(pid)
            await answered(hover(s, beta))
            await asyncio.sleep(1.0)
            assert len(s.diagnostics[alpha]) == published + 1 and not s.diagnostics[alpha][-1].diagnostics
            assert codes(await s.published(beta)) == ["SL310"]

    run(scenario)


@linux_only
def test_shutdown_during_a_long_lint_is_answered_and_stops_it(tmp_path, project, load_rules):
    env, record = load_rules
    root = project["alpha"].parents[2]
    server = start_server(root, env)
    uri = project["alpha"].as_uri()
    opened = notification(
        "textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "markdown", "version": 1, "text": slow(ALPHA)}}
    )
    try:
        server.stdin.write(HELLO + opened)
        server.stdin.flush()
        pid = asyncio.run(lint_started(record))
        server.stdin.write(request(2, "shutdown") + notification("exit"))
        server.stdin.close()
        status = server.wait(timeout=HANG_GUARD)  # a hang guard; no wait for the lint: its end is never recorded (below)
    finally:
        if server.poll() is None:
            server.kill()
    out, err = server.stdout.read(), server.stderr.read()
    assert status == 0, err.decode(errors="replace")
    assert {"jsonrpc": "2.0", "id": 2, "result": None} in messages_in(out)
    assert asyncio.run(gone(pid))
    assert ("end", pid) not in records(record)


def test_where_the_server_cannot_fork_lints_run_in_a_thread_and_stale_ones_are_dropped(project, load_rules):
    """A process with another thread must not fork (see skilllint.lint.parallel.can_fork): a
    thread started at interpreter start-up (sitecustomize, as a debugger or profiler
    would) leaves the server that fallback. A lint overtaken by a newer text is not
    stopped there, but its findings are never published."""
    env, record = load_rules
    (Path(env["PYTHONPATH"]) / "sitecustomize.py").write_text(
        "import threading\nthreading.Thread(target=threading.Event().wait, daemon=True).start()\n"
    )

    async def scenario():
        async with Session(project["alpha"].parents[2], env) as s:
            alpha = s.open(project["alpha"], slow(ALPHA + "XL-MARK\n", 3))
            pid = await lint_started(record)
            assert pid == s.client._server.pid  # in the server's own process
            version = s.change(alpha, ALPHA)
            assert codes(await s.published(alpha, version=version)) == []
            assert [p.version for p in s.diagnostics[alpha]] == [version]
            assert ("end", pid) in records(record)  # the overtaken lint ran to its end, unpublished

    run(scenario)


# -- a lint that fails: logged, and the server goes on ------------------------------------------


@pytest.mark.parametrize(
    ("command", "said"),
    [("XL-FAIL", "internal error in XL001"), pytest.param("XL-DIE", "the process died (signal SIGKILL)", marks=linux_only)],
    ids=["rule-raises", "lint-process-dies"],
)
def test_a_failed_lint_is_logged_and_the_server_goes_on(project, load_rules, command, said):
    env, _ = load_rules

    async def scenario():
        async with Session(project["alpha"].parents[2], env) as s:
            beta = s.open(project["beta"], BETA + f"\n{command}\n")
            message = await s.until(lambda: next((m for m in s.logs if said in m.message), None), f"a log line saying {said!r}")
            assert message.type == lsp.MessageType.Error and "please report this bug" in message.message
            await answered(hover(s, beta))
            version = s.change(beta, BETA)
            assert codes(await s.published(beta, version=version)) == ["SL310"]

    run(scenario)


# -- hostile framing: a message's length is the client's word ----------------------------------


class RawServer:
    """A server process driven with raw bytes; its messages read as they come."""

    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd
        self.process = start_server(cwd)
        self.output = b""

    def send(self, data: bytes) -> None:
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def messages(self) -> list[dict]:
        return messages_in(self.output)

    def until(self, predicate, what: str, within: float = HANG_GUARD):
        """Read the server's output until one of its messages satisfies ``predicate``."""
        import select

        deadline = time.monotonic() + within
        fd = self.process.stdout.fileno()
        while True:
            complete = self.output[: self._complete_length()]
            found = next((m for m in messages_in(complete) if predicate(m)), None)
            if found is not None:
                return found
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise AssertionError(f"timed out waiting for {what}; got {messages_in(complete)}")
            data = os.read(fd, 1 << 16)
            if not data:
                raise AssertionError(f"the server ended before {what}: {self.finish()[1]}")
            self.output += data

    def _complete_length(self) -> int:
        """The length of the whole messages at the start of the output read so far."""
        end = 0
        while True:
            header_end = self.output.find(b"\r\n\r\n", end)
            if header_end < 0:
                return end
            lines = self.output[end:header_end].split(b"\r\n")
            length = next(int(line.split(b":")[1]) for line in lines if line.lower().startswith(b"content-length:"))
            if header_end + 4 + length > len(self.output):
                return end
            end = header_end + 4 + length

    def start(self) -> float:
        """Initialize, and lint a skill (so the server is at its working size); its peak memory then."""
        files = make_project(self.cwd)
        uri = files["alpha"].as_uri()
        self.send(HELLO)
        self.until(lambda m: m.get("id") == 1, "the initialize answer")
        self.send(
            notification(
                "textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "markdown", "version": 1, "text": ALPHA}}
            )
        )
        self.until(lambda m: m.get("method") == "textDocument/publishDiagnostics", "the first diagnostics")
        return self.peak_rss_mb()

    def peak_rss_mb(self) -> float:
        """The server's peak resident memory so far (VmHWM), in MiB."""
        with open(f"/proc/{self.process.pid}/status", encoding="ascii") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:")) / 1024

    def finish(self, within: float = HANG_GUARD) -> tuple[int, str]:
        """Close the input; (exit status, stderr)."""
        try:
            self.process.stdin.close()
        except BrokenPipeError:
            pass
        try:
            self.output += self.process.stdout.read()
            status = self.process.wait(timeout=within)
        finally:
            if self.process.poll() is None:
                self.process.kill()
        return status, self.process.stderr.read().decode(errors="replace")


def ignored_note(message: dict) -> bool:
    return message.get("method") == "window/logMessage" and "was ignored" in message["params"]["message"]


linux_proc = pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="peak memory is read from /proc")
MORE_MEMORY_MB = 24  # what a refused message may add to the server's peak (a chunk is 64 KiB; a 40 MiB one held: > 80)


@linux_proc
def test_an_oversized_message_is_read_past_and_the_server_goes_on(tmp_path):
    """A true Content-Length over the limit: the message is dropped (with a log line, in
    bounded memory) and the next one is answered."""
    from skilllint.server.io import MAX_MESSAGE_BYTES

    text = "x" * (40 * 1024 * 1024)
    assert len(text) > MAX_MESSAGE_BYTES
    uri = (tmp_path / "big.md").as_uri()
    big = notification(
        "textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "markdown", "version": 1, "text": text}}
    )
    server = RawServer(tmp_path)
    try:
        working = server.start()
        start = time.perf_counter()
        server.send(big + request(2, "textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}}))
        answer = server.until(lambda m: m.get("id") == 2, "the hover answer")
        took = time.perf_counter() - start
        peak = server.peak_rss_mb()
        note = server.until(ignored_note, "a note that the message was ignored")
        server.send(request(3, "shutdown") + notification("exit"))
    finally:
        status, err = server.finish()
    print(f"\n{len(big) / 2**20:.0f} MiB message: read past in {took:.2f} s, server peak {working:.0f} -> {peak:.0f} MiB, exit status {status}")
    assert answer.get("result") is None and "error" not in answer  # no such document: nothing to show
    assert f"{len(big) - len(big.partition(b'{')[0]):,} bytes" in note["params"]["message"]
    assert peak - working < MORE_MEMORY_MB
    assert status == 0 and "Traceback" not in err, err


@linux_proc
@pytest.mark.parametrize(
    "header",
    [b"Content-Length: 1000000000000\r\n\r\n", b"Content-Length: " + b"9" * 100_000 + b"\r\n\r\n"],
    ids=["10^12", "100,000-digit"],
)
def test_a_huge_content_length_costs_no_memory_and_ends_cleanly(tmp_path, header):
    """A Content-Length no client could mean: pygls allocated it whole (MemoryError) or
    could not parse it (int's digit limit), and the server died with a traceback. Now
    it is read past in chunks, said once, and the end of input ends the server."""
    server = RawServer(tmp_path)
    try:
        working = server.start()
        server.send(header)
        note = server.until(ignored_note, "a note that the message was ignored")
        for _ in range(64):  # 64 MiB of what would be its body
            server.send(b"x" * (1 << 20))
        peak = server.peak_rss_mb()
    finally:
        status, err = server.finish()
    print(f"\nContent-Length {header[16:30].decode()}...: server peak {working:.0f} -> {peak:.0f} MiB after 64 MiB of body, exit status {status}")
    assert "the limit is" in note["params"]["message"]
    assert peak - working < MORE_MEMORY_MB
    assert status == 1 and "Traceback" not in err, err  # no shutdown came: 1, as for exit without it


def test_an_endless_header_line_is_read_in_pieces(tmp_path):
    """A header line of 8 MiB: read in pieces (each an unknown header), the message after it answered."""
    server = RawServer(tmp_path)
    try:
        server.send(HELLO)
        server.until(lambda m: m.get("id") == 1, "the initialize answer")
        server.send(b"X-Junk: " + b"y" * (8 << 20) + b"\r\n" + request(2, "shutdown"))
        answer = server.until(lambda m: m.get("id") == 2, "the shutdown answer")
        server.send(notification("exit"))
    finally:
        status, err = server.finish()
    assert answer == {"jsonrpc": "2.0", "id": 2, "result": None}
    assert status == 0 and "Traceback" not in err, err
