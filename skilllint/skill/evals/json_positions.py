"""Eval files' JSON, read with positions: where in the text each problem of a file lies.

Values are decoded by the standard library's decoder (its C scanner: as fast and as strict as the
scripts that run the evals); positions are found by walking the text by hand, one or two levels,
and only where they are needed: the elements of a trigger set (streamed, one at a time), the keys
and values of an object a problem is reported in. Each part of the text is walked at most once.
"""

from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass
from json.decoder import scanstring
from typing import Any, Iterator

MAX_PROBLEMS = 1000  # problems kept per file; the last says how many more there were
WHITESPACE = re.compile(r"[ \t\n\r]*")


@dataclass(frozen=True, eq=False)
class EvalProblem:
    """Something wrong with an eval file, on its 1-based line (and column)."""

    line: int
    message: str
    column: int = 1


class Pairs(list):
    """A JSON object as the decoder read it: its (key, value) pairs in order (a key may repeat)."""


DECODER = json.JSONDecoder(object_pairs_hook=Pairs)


@dataclass(eq=False, repr=False)
class Node:
    value: Any  # the decoded value, an object as Pairs (None for a container walked by hand)
    offset: int
    items: list["Node"] | None = None  # a walked array's elements
    pairs: list[tuple[str, int, "Node"]] | None = None  # a walked object's (key, key offset, value), in order


class JsonError(Exception):
    def __init__(self, message: str, offset: int):
        super().__init__(message)
        self.message = message
        self.offset = offset


class JsonText:
    """A text and where its lines start: offsets become (line, column), in logarithmic time."""

    def __init__(self, text: str):
        self.text = text
        starts = [0]
        find = text.find
        at = find("\n")
        while at >= 0:
            starts.append(at + 1)
            at = find("\n", at + 1)
        self.starts = starts

    def position(self, offset: int) -> tuple[int, int]:
        index = bisect.bisect_right(self.starts, offset) - 1
        return index + 1, offset - self.starts[index] + 1

    def problem(self, offset: int, message: str) -> EvalProblem:
        line, column = self.position(offset)
        return EvalProblem(line, message, column)


def skip_blanks(text: str, at: int) -> int:
    return WHITESPACE.match(text, at).end()  # type: ignore[union-attr]


def decode_value(text: str, at: int) -> tuple[Any, int]:
    try:
        return DECODER.raw_decode(text, at)
    except json.JSONDecodeError as exc:
        raise JsonError(exc.msg, exc.pos) from None
    except RecursionError:
        raise JsonError("nested too deeply to decode", at) from None


def array_items(text: str, at: int, walk: int) -> Iterator[tuple[Node, int]]:
    """Each element of the array opening at ``at`` and the offset after it (the last: after ``]``)."""
    at = skip_blanks(text, at + 1)
    if text[at : at + 1] == "]":
        return
    while True:
        item, at = parse_node(text, at, walk)
        at = skip_blanks(text, at)
        char = text[at : at + 1]
        if char == "]":
            yield item, at + 1
            return
        if char != ",":
            raise JsonError("expected `,` or `]` after an array element", at)
        yield item, at + 1
        at += 1


def parse_node(text: str, at: int, walk: int) -> tuple[Node, int]:
    """The value at ``at`` (whitespace skipped) and the offset after it; ``walk`` levels of
    containers walked by hand (their parts placed), what is below decoded whole."""
    at = skip_blanks(text, at)
    char = text[at : at + 1]
    if walk > 0 and char == "[":
        items, end = [], skip_blanks(text, at + 1) + 1
        for item, end in array_items(text, at, walk - 1):
            items.append(item)
        return Node(None, at, items=items), end
    if walk > 0 and char == "{":
        pairs: list[tuple[str, int, Node]] = []
        start = at
        at = skip_blanks(text, at + 1)
        if text[at : at + 1] == "}":
            return Node(None, start, pairs=pairs), at + 1
        while True:
            if text[at : at + 1] != '"':
                raise JsonError("expected a key in double quotes", at)
            try:
                key, after = scanstring(text, at + 1)
            except json.JSONDecodeError as exc:
                raise JsonError(exc.msg, exc.pos) from None
            after = skip_blanks(text, after)
            if text[after : after + 1] != ":":
                raise JsonError("expected `:` after a key", after)
            value, after = parse_node(text, after + 1, walk - 1)
            pairs.append((key, at, value))
            at = skip_blanks(text, after)
            char = text[at : at + 1]
            if char == "}":
                break
            if char != ",":
                raise JsonError("expected `,` or `}` after a value", at)
            at = skip_blanks(text, at + 1)
        return Node(None, start, pairs=pairs), at + 1
    value, end = decode_value(text, at)
    return Node(value, at), end


def end_of_text(text: str, end: int) -> None:
    end = skip_blanks(text, end)
    if end < len(text):
        raise JsonError("extra data after the JSON value", end)


def type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, Pairs):
        return "an object"
    return "an array"


def is_array(value: Any) -> bool:
    return isinstance(value, list) and not isinstance(value, Pairs)


class JsonObject:
    """A decoded JSON object: its fields as a JSON reader keeps them (the last of a repeated key),
    and, walked by hand the first time a problem needs one, the place of each key and value."""

    def __init__(self, text: str, node: Node):
        self.offset = node.offset
        self.pairs: Pairs = node.value
        self.fields = dict(self.pairs)
        self._text = text
        self._walked: dict[str, Node] | None = None
        self._keys: list[tuple[str, int]] = []

    def _walk(self) -> dict[str, Node]:
        if self._walked is None:
            node, _ = parse_node(self._text, self.offset, 2)
            self._keys = [(key, offset) for key, offset, _ in node.pairs or ()]
            self._walked = {key: value for key, _, value in node.pairs or ()}
        return self._walked

    def node(self, key: str) -> Node:
        """The value of ``key`` placed (an array's elements placed too)."""
        return self._walk()[key]

    def at(self, key: str) -> int:
        return self.node(key).offset

    def repeated_keys(self) -> list[tuple[str, int]]:
        """Each key given again after its first time, and where."""
        if len(self.fields) == len(self.pairs):
            return []
        self._walk()
        seen: set[str] = set()
        repeated = []
        for key, offset in self._keys:
            if key in seen:
                repeated.append((key, offset))
            seen.add(key)
        return repeated


def decode_json(data: bytes) -> tuple[JsonText | None, list[EvalProblem]]:
    """The file's text (None when it is not UTF-8) and what Python's ``json`` would refuse in it."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        return None, [EvalProblem(line, f"is not UTF-8 text ({exc.reason} at byte {exc.start:,}): JSON readers refuse it")]
    problems = []
    if text.startswith("\ufeff"):
        problems.append(EvalProblem(1, "starts with a byte-order mark, which Python's `json` (skill-creator's scripts) refuses"))
        text = " " + text[1:]  # keep every column where it is
    return JsonText(text), problems


def shorten(text: str, width: int = 60) -> str:
    """``text`` on one line, cut with an ellipsis past ``width`` characters (for messages)."""
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


class Problems:
    """Problems of one file, at most :data:`MAX_PROBLEMS`; the last one kept counts the rest."""

    def __init__(self, text: JsonText, first: list[EvalProblem]):
        self.text = text
        self.items: list[EvalProblem] = list(first)
        self.dropped = 0

    def add(self, problem: EvalProblem) -> None:
        if len(self.items) < MAX_PROBLEMS:
            self.items.append(problem)
        else:
            self.dropped += 1

    def at(self, offset: int, message: str) -> None:
        self.add(self.text.problem(offset, message))

    def invalid(self, error: JsonError) -> None:
        self.at(error.offset, f"is not valid JSON: {error.message}")

    def repeated_keys(self, obj: JsonObject, what: str) -> None:
        for key, offset in obj.repeated_keys():
            self.at(offset, f"{what} has the key `{key}` twice; JSON readers keep only the last")

    def result(self) -> tuple[EvalProblem, ...]:
        if self.dropped:
            last = self.items[-1]
            self.items[-1] = EvalProblem(last.line, f"{last.message} ({self.dropped:,} more problems in this file not listed)", last.column)
        return tuple(self.items)
