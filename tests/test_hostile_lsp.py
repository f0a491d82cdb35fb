"""The language server on hostile input and under load, end to end (a `skilllint server`
subprocess, as in tests/test_lsp.py).

Bounds: a healthy server answers in milliseconds; every bound here is seconds.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from test_lsp import ALPHA, HELLO, make_project, messages_in, notification, request, start_server


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

    def until(self, predicate, what: str, within: float = 30.0):
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

    def finish(self, within: float = 60) -> tuple[int, str]:
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
    from skilllint.server_io import MAX_MESSAGE_BYTES

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
