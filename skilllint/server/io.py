"""The language server's transport: JSON-RPC messages framed on stdin and stdout,
read within bounds.

pygls's own loop (``JsonRPCServer.start_io``) trusts the client: a message's
``Content-Length`` is allocated whole before a byte of it arrives (10^12 ends the
server with a MemoryError), a header line is read to its end however long it
is, and stdin is read in a thread, which keeps the process from forking its lint
workers safely (:func:`skilllint.lint.parallel.can_fork`). This module reads the
messages itself and hands each to pygls's protocol, as pygls's loop does:

* stdin is read by the event loop when it is a pipe, socket or terminal (no
  thread); in a thread otherwise (a regular file; Windows);
* a header line is at most ``MAX_HEADER_LINE`` bytes: a longer one is read in
  pieces, each an unknown header, ignored;
* a message body is at most ``MAX_MESSAGE_BYTES``: a longer one is read past in
  chunks and dropped, and the client is told in a log message (when its
  ``Content-Length`` was true, the next message is read as usual);
* the protocol reads and writes its own copies of the two descriptors: fd 0
  becomes /dev/null and fd 1 stderr, so that a stray ``print`` (a plugin rule's,
  say, here or in a forked lint) lands in the editor's log rather than inside a
  message, and nothing else can read the client's bytes.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Callable

# A didOpen carries a whole file: skilllint reads at most a few MiB of one
# (SL011's cap), so a message this large is not one an editor sends for a skill.
MAX_MESSAGE_BYTES = 32 * 1024 * 1024
MAX_HEADER_LINE = 4096
_CHUNK = 1 << 16


class _Input:
    """Bytes from a file descriptor, read by the event loop or, where it cannot
    watch the descriptor, by a thread."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = bytearray()
        self.ended = False
        self.watched = False
        self.was_blocking = True

    def open(self, loop: asyncio.AbstractEventLoop) -> None:
        try:
            loop.add_reader(self.fd, lambda: None)  # refused for a regular file (and on Windows)
        except (OSError, ValueError, NotImplementedError):
            return
        loop.remove_reader(self.fd)
        self.was_blocking = os.get_blocking(self.fd)
        os.set_blocking(self.fd, False)
        self.watched = True

    def close(self) -> None:
        if self.watched:  # a terminal's flag is shared with the shell that started us
            os.set_blocking(self.fd, self.was_blocking)

    async def _fill(self) -> bool:
        """Append what arrives next to the buffer; False at the end of input."""
        if self.ended:
            return False
        loop = asyncio.get_running_loop()
        if not self.watched:
            data = await loop.run_in_executor(None, os.read, self.fd, _CHUNK)
        else:
            while True:
                try:
                    data = os.read(self.fd, _CHUNK)
                    break
                except (BlockingIOError, InterruptedError):
                    ready = loop.create_future()
                    loop.add_reader(self.fd, lambda: ready.done() or ready.set_result(None))
                    try:
                        await ready
                    finally:
                        loop.remove_reader(self.fd)
        if not data:
            self.ended = True
            return False
        self.buffer += data
        return True

    async def line(self) -> bytes:
        """The next line, at most MAX_HEADER_LINE bytes of it; b"" at the end of input."""
        while True:
            end = self.buffer.find(b"\n", 0, MAX_HEADER_LINE)
            if end >= 0:
                return self._take(end + 1)
            if len(self.buffer) >= MAX_HEADER_LINE:
                return self._take(MAX_HEADER_LINE)
            if not await self._fill():
                return self._take(len(self.buffer))

    async def exactly(self, count: int) -> bytes | None:
        """The next ``count`` bytes; None when the input ends before them."""
        while len(self.buffer) < count:
            if not await self._fill():
                return None
        return self._take(count)

    async def skip(self, count: int) -> bool:
        """Read past ``count`` bytes, holding at most a chunk; False when the input ends first."""
        while count > 0:
            if not self.buffer and not await self._fill():
                return False
            taken = min(count, len(self.buffer))
            del self.buffer[:taken]
            count -= taken
        return True

    def _take(self, count: int) -> bytes:
        data = bytes(self.buffer[:count])
        del self.buffer[:count]
        return data


class _Output:
    """pygls's writer: each message written whole and flushed. ``close`` (pygls calls it
    on ``exit``) only flushes: the process's own stdout stays usable to the end."""

    def __init__(self, fd: int) -> None:
        self.file = os.fdopen(fd, "wb")

    def write(self, data: bytes) -> None:
        self.file.write(data)
        self.file.flush()

    def close(self) -> None:
        self.file.flush()


_PROTOCOL_FDS: list[int] = []


def close_protocol_in_child() -> None:
    """In a forked process: close the protocol's descriptors, so that the client sees
    the end of the server's output when the server ends, whatever its children do."""
    for fd in _PROTOCOL_FDS:
        try:
            os.close(fd)
        except OSError:
            pass


def _take_stdio() -> tuple[int, int]:
    """(input, output): private copies of fds 0 and 1 for the protocol; fd 0 then reads
    /dev/null and fd 1 writes to stderr."""
    sys.stdout.flush()
    protocol_in, protocol_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    try:
        os.dup2(2, 1)
    except OSError:  # no stderr: then nowhere
        os.dup2(null, 1)
    os.close(null)
    _PROTOCOL_FDS[:] = [protocol_in, protocol_out]
    return protocol_in, protocol_out


def content_length(line: bytes) -> int | None:
    """The length a ``Content-Length`` header line gives (None: another header).
    Names are case-insensitive, as in HTTP; the value is ASCII digits."""
    name, colon, value = line.partition(b":")
    if not colon or name.strip().lower() != b"content-length":
        return None
    value = value.strip()
    if not value.isdigit():
        return None
    return int(value)  # a header line is at most MAX_HEADER_LINE bytes: within int()'s digit limit


async def _read_messages(source: _Input, protocol, report: Callable[[str], None], on_error: Callable[[Exception], None]) -> None:
    """Hand each message to ``protocol`` until the input ends."""
    source.open(asyncio.get_running_loop())
    try:
        while True:
            length = None
            while True:  # the header block: lines up to an empty one
                line = await source.line()
                if not line:
                    return
                if not line.strip():
                    if length is not None:
                        break
                    continue  # an empty line before any Content-Length: nothing to frame
                if length is None:
                    length = content_length(line)
            if length > MAX_MESSAGE_BYTES:
                report(
                    f"a message of {length:,} bytes from the client was ignored: "
                    f"the limit is {MAX_MESSAGE_BYTES:,} bytes"
                )
                if not await source.skip(length):
                    return
                continue
            body = await source.exactly(length)
            if body is None:
                return
            try:
                message = json.loads(body, object_hook=protocol.structure_message)
                protocol.handle_message(message)
            except Exception as exc:  # noqa: BLE001 - one bad message must not end the server
                on_error(exc)
    finally:
        source.close()


def run_stdio(server, report: Callable[[str], None]) -> int | None:
    """Serve ``server`` (a pygls server) on stdin and stdout until the client sends
    ``exit`` (its exit status: 0 after ``shutdown``, else 1, as pygls decides) or
    the input ends (None). ``report`` tells the client about a message refused."""
    protocol_in, protocol_out = _take_stdio()
    server.protocol.set_writer(_Output(protocol_out))
    try:
        asyncio.run(_read_messages(_Input(protocol_in), server.protocol, report, lambda exc: server.report_server_error(exc, None)))
    except SystemExit as exc:  # pygls's `exit` handler
        return exc.code if isinstance(exc.code, int) else 1
    return None
