"""Reading an agent's machine-readable output for its first tool call (``skilllint eval --agent``).

Claude Code's ``stream-json`` (as Anthropic's skill-creator reads it in ``scripts/run_eval.py``:
a ``Skill`` tool call naming a skill, or a ``Read`` of a skill's SKILL.md) and Codex's
``exec --json`` events (``codex-rs/exec/src/exec_events.rs``: a command, a file change or a
tool call; a shell command that names a skill's SKILL.md loads it). A line longer than
:data:`MAX_LINE_BYTES` is skipped, never held whole.
"""

from __future__ import annotations

import json
import queue
import shlex
import threading
import time
from dataclasses import dataclass
from typing import Iterator, Protocol

# A line of the agent's output longer than this is skipped (a tool call streaming megabytes).
MAX_LINE_BYTES = 4 * 1024 * 1024


class SkillFolders(Protocol):
    """The temporary project a run happens in: which skill each folder holds."""

    folders: dict[str, str]

    def skill_of_path(self, path: str, skills_folder: tuple[str, ...]) -> str | None: ...


@dataclass(frozen=True, eq=False, repr=False)
class Decision:
    status: str  # "ok", or "failed" for a stream that reports an error
    loaded: tuple[str, ...] = ()
    message: str = ""


def _lines(stream) -> Iterator[bytes]:
    """The lines of ``stream``; a line over :data:`MAX_LINE_BYTES` is skipped without
    being held whole."""
    while True:
        line = stream.readline(MAX_LINE_BYTES + 1)
        if not line:
            return
        if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
            while True:
                rest = stream.readline(MAX_LINE_BYTES + 1)
                if not rest or rest.endswith(b"\n"):
                    break
            continue
        yield line


class LineFeed:
    """The lines of an agent's output, read by a thread of their own so that waiting for
    the next one can time out: a process the run cannot kill (one that left the run's
    process group) may hold the output open for ever, and then only the reading thread
    waits, not the command."""

    TIMEOUT = object()

    def __init__(self, stream) -> None:
        self._lines: queue.Queue = queue.Queue(maxsize=8)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._pump, args=(stream,), daemon=True)
        self._thread.start()

    def _pump(self, stream) -> None:
        try:
            for line in _lines(stream):
                if not self._put(line):
                    return
            self._put(None)
        except (OSError, ValueError):
            self._put(None)
        finally:
            stream.close()

    def _put(self, item) -> bool:
        while not self._stop.is_set():
            try:
                self._lines.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def next(self, seconds: float):
        """The next line, None at the end, or :attr:`TIMEOUT`."""
        if seconds <= 0:
            self._stop.set()
            return self.TIMEOUT
        try:
            return self._lines.get(timeout=seconds)
        except queue.Empty:
            self._stop.set()
            return self.TIMEOUT

    def close(self) -> None:
        self._stop.set()


class _Stream:
    """Reads events until the first tool call decides the run."""

    def __init__(self, project: SkillFolders, skills_folder: tuple[str, ...]) -> None:
        self.project = project
        self.skills_folder = skills_folder
        self.events = 0
        self.version = ""
        self.model = ""

    def read(self, feed: "LineFeed", timeout: float) -> tuple[Decision | None, bool]:
        """The decision the stream reaches within ``timeout`` seconds, and whether the
        stream ended (False: the time ran out first)."""
        end = time.monotonic() + timeout
        while True:
            line = feed.next(end - time.monotonic())
            if line is LineFeed.TIMEOUT:
                return None, False
            if line is None:
                return None, True
            try:
                event = json.loads(line)
            except (ValueError, RecursionError):
                continue  # not an event: agents print other lines too
            if not isinstance(event, dict):
                continue
            self.events += 1
            decision = self.event(event)
            if decision is not None:
                return decision, True

    def event(self, event: dict) -> Decision | None:
        raise NotImplementedError

    def by_name(self, value) -> str | None:
        """The catalog skill a Skill tool call names (plugin skills go by ``plugin:name``)."""
        if not isinstance(value, str):
            return None
        names = set(self.project.folders.values())
        value = value.strip().lstrip("/")
        if value in names:
            return value
        tail = value.rsplit(":", 1)[-1]
        return tail if tail in names else None


class ClaudeStream(_Stream):
    FORMAT = "stream-json"
    END = "a result event"
    """``claude -p --output-format stream-json --verbose [--include-partial-messages]``.

    The first tool call decides: a ``Skill`` call naming a skill of the catalog, or a
    ``Read`` of one's SKILL.md, loads it; any other tool call loads nothing (skill-creator's
    ``run_eval.py`` judges the same way). With partial messages the call is known when its
    content block stops, before the tool runs; without them, from the assistant message."""

    def __init__(self, project: SkillFolders, skills_folder: tuple[str, ...]) -> None:
        super().__init__(project, skills_folder)
        self._tool: str | None = None
        self._input: list[str] = []
        self._input_size = 0

    def event(self, event: dict) -> Decision | None:
        kind = event.get("type")
        if kind == "system" and event.get("subtype") == "init":
            version, model = event.get("claude_code_version"), event.get("model")
            self.version = f"claude-code {version}"[:200] if isinstance(version, str) else ""
            self.model = model[:200] if isinstance(model, str) else ""
        elif kind == "stream_event" and isinstance(event.get("event"), dict):
            return self._partial(event["event"])
        elif kind == "assistant" and isinstance(event.get("message"), dict):
            content = event["message"].get("content")
            calls = [c for c in content if isinstance(c, dict) and c.get("type") == "tool_use"] if isinstance(content, list) else []
            if calls:
                return self._decide([(c.get("name"), c.get("input")) for c in calls])
        elif kind == "result":
            if event.get("is_error") is True or str(event.get("subtype", "")).startswith("error"):
                result = event.get("result")
                return Decision("failed", message=f"the agent reported an error: {str(result if result else event.get('subtype'))[:300]}")
            return Decision("ok")
        return None

    def _partial(self, inner: dict) -> Decision | None:
        kind = inner.get("type")
        if kind == "content_block_start" and isinstance(inner.get("content_block"), dict):
            block = inner["content_block"]
            if block.get("type") == "tool_use":
                self._tool = str(block.get("name"))
                self._input = []
                self._input_size = 0
                if isinstance(block.get("input"), dict) and block["input"]:
                    self._input.append(json.dumps(block["input"]))
        elif kind == "content_block_delta" and self._tool is not None and isinstance(inner.get("delta"), dict):
            delta = inner["delta"]
            if delta.get("type") == "input_json_delta" and isinstance(delta.get("partial_json"), str):
                self._input_size += len(delta["partial_json"])
                if self._input_size <= MAX_LINE_BYTES:  # past that it is no skill's name or path
                    self._input.append(delta["partial_json"])
        elif kind == "content_block_stop" and self._tool is not None:
            try:
                arguments = json.loads("".join(self._input) or "{}")
            except (ValueError, RecursionError):
                arguments = {}
            return self._decide([(self._tool, arguments)])
        return None

    def _decide(self, calls: list) -> Decision:
        loaded = []
        for name, arguments in calls:
            arguments = arguments if isinstance(arguments, dict) else {}
            skill = None
            if name == "Skill":
                skill = self.by_name(arguments.get("skill"))
            elif name == "Read" and isinstance(arguments.get("file_path"), str):
                skill = self.project.skill_of_path(arguments["file_path"], self.skills_folder)
            if skill is not None:
                loaded.append(skill)
        return Decision("ok", tuple(dict.fromkeys(loaded)))


class CodexStream(_Stream):
    """``codex exec --json``: JSON lines of thread, turn and item events. Codex has no
    skill tool; its model opens a skill by reading SKILL.md through a shell command, so
    the first ``command_execution`` item decides: it loads the skills whose SKILL.md its
    command names. Any other tool item (a file change, an MCP call, a web search) loads
    nothing; the turn ending without a tool call loads nothing."""

    FORMAT = "exec --json"
    END = "a turn.completed event"
    TOOL_ITEMS = ("command_execution", "file_change", "mcp_tool_call", "collab_tool_call", "web_search")

    def event(self, event: dict) -> Decision | None:
        kind = event.get("type")
        if kind in ("item.started", "item.completed") and isinstance(event.get("item"), dict):
            item = event["item"]
            item_type = item.get("type") or item.get("item_type")
            if item_type == "command_execution":
                return Decision("ok", self._named_in(str(item.get("command", ""))))
            if item_type in self.TOOL_ITEMS:
                return Decision("ok")
        elif kind == "turn.completed":
            return Decision("ok")
        elif kind in ("turn.failed", "error"):
            error = event.get("error") if isinstance(event.get("error"), dict) else event
            return Decision("failed", message=f"the agent reported an error: {str(error.get('message', kind))[:300]}")
        return None

    def _named_in(self, command: str) -> tuple[str, ...]:
        loaded = []
        for word in _shell_words(command):
            skill = self.project.skill_of_path(word, self.skills_folder)
            if skill is not None:
                loaded.append(skill)
        return tuple(dict.fromkeys(loaded))


def _shell_words(command: str) -> list[str]:
    """The words of a shell command and of a ``bash -lc '...'`` inside it."""
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    inner = [w for w in words if " " in w]
    for text in inner:
        try:
            words.extend(shlex.split(text))
        except ValueError:
            words.extend(text.split())
    return words
