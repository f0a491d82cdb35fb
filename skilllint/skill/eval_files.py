"""A skill's eval files: trigger sets and task evals, in the formats skill-creator writes.

A **trigger set** is a JSON array of ``{"query": str, "should_trigger": bool}`` (skill-creator's
"Generate trigger eval queries": saved as ``evals/trigger_eval.json`` in its example runs, exported
by its review page as ``eval_set.json``, and read by ``scripts/run_eval.py --eval-set``). Read as
one: a file with either of those names anywhere in the package, and any other ``.json`` file under
``evals/`` whose top level is an array holding an object with a ``query`` or ``should_trigger`` key
(the shape is the signal; other formats under ``evals/``, such as getsentry's ``axis.config.json``
or a scenario object, are left alone and never reported).

The **task evals** are ``evals/evals.json`` (skill-creator's ``references/schemas.md``): an object
with ``skill_name`` and ``evals``, each eval with an integer ``id``, a ``prompt``, and optionally
``expected_output``, ``files`` (paths from the skill's folder) and ``expectations``.

Both are read through the package, once (:attr:`SkillPackage.evals`), each file whole or not at all
(over the package's read cap it is refused unread), and parsed with the standard library's JSON
decoder, walked by hand over the few levels whose positions a finding needs: each problem is an
:class:`EvalProblem` on its line. What Python's ``json`` refuses (skill-creator's scripts read the
files with it) is a problem here too: a byte-order mark, text that is not UTF-8, trailing data.
"""

from __future__ import annotations

import bisect
import json
import posixpath
import re
from dataclasses import dataclass, field
from json.decoder import scanstring
from pathlib import Path
from typing import Any, Iterator

from ..fsafe import UnsafeFile, read_capped

EVALS_FOLDER = "evals"
TASK_EVALS = "evals/evals.json"
TRIGGER_SET_NAMES = frozenset({"trigger_eval.json", "eval_set.json"})  # the names skill-creator gives one
MAX_PROBLEMS = 1000  # problems kept per file; the last says how many more there were
MAX_EVAL_FILES = 200  # eval files read per package

_WHITESPACE = re.compile(r"[ \t\n\r]*")


@dataclass(frozen=True)
class EvalProblem:
    """Something wrong with an eval file, on its 1-based line (and column)."""

    line: int
    message: str
    column: int = 1


@dataclass(frozen=True)
class TriggerCase:
    """One query of a trigger set and whether the skill should be picked for it."""

    query: str
    should_trigger: bool
    line: int


@dataclass(frozen=True)
class TriggerSet:
    """A trigger set: its well-formed cases and the problems of the rest.

    ``rel`` is the path from the skill's folder ("" when read from a file given on the command line)."""

    path: Path
    cases: tuple[TriggerCase, ...]
    problems: tuple[EvalProblem, ...]
    rel: str = ""

    @property
    def positives(self) -> tuple[TriggerCase, ...]:
        return tuple(case for case in self.cases if case.should_trigger)

    @property
    def negatives(self) -> tuple[TriggerCase, ...]:
        return tuple(case for case in self.cases if not case.should_trigger)


@dataclass(frozen=True)
class TaskEval:
    """One task eval of ``evals/evals.json``."""

    id: int
    prompt: str
    line: int
    expected_output: str | None = None
    files: tuple[str, ...] = ()
    expectations: tuple[str, ...] = ()


@dataclass(frozen=True)
class TaskEvals:
    """``evals/evals.json``: its well-formed evals and the problems of the file."""

    path: Path
    skill_name: str | None
    evals: tuple[TaskEval, ...]
    problems: tuple[EvalProblem, ...]
    rel: str = TASK_EVALS


@dataclass(frozen=True)
class PackageEvals:
    """Every eval file of a package that skilllint reads."""

    trigger_sets: tuple[TriggerSet, ...] = ()
    task_evals: TaskEvals | None = None
    texts: dict[str, str] = field(default_factory=dict)  # each file read (path from the skill's folder) -> its text


# -- JSON with positions ------------------------------------------------------
#
# Values are decoded by the standard library's decoder (its C scanner: as fast and as strict as the
# scripts that run the evals); positions are found by walking the text by hand, one or two levels,
# and only where they are needed: the elements of a trigger set (streamed, one at a time), the keys
# and values of an object a problem is reported in. Each part of the text is walked at most once.


class _Pairs(list):
    """A JSON object as the decoder read it: its (key, value) pairs in order (a key may repeat)."""


_DECODER = json.JSONDecoder(object_pairs_hook=_Pairs)


@dataclass
class _Node:
    value: Any  # the decoded value, an object as _Pairs (None for a container walked by hand)
    offset: int
    items: list["_Node"] | None = None  # a walked array's elements
    pairs: list[tuple[str, int, "_Node"]] | None = None  # a walked object's (key, key offset, value), in order


class _JsonError(Exception):
    def __init__(self, message: str, offset: int):
        super().__init__(message)
        self.message = message
        self.offset = offset


class _Text:
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


def _skip(text: str, at: int) -> int:
    return _WHITESPACE.match(text, at).end()  # type: ignore[union-attr]


def _decode_value(text: str, at: int) -> tuple[Any, int]:
    try:
        return _DECODER.raw_decode(text, at)
    except json.JSONDecodeError as exc:
        raise _JsonError(exc.msg, exc.pos) from None
    except RecursionError:
        raise _JsonError("nested too deeply to decode", at) from None


def _array_items(text: str, at: int, walk: int) -> Iterator[tuple[_Node, int]]:
    """Each element of the array opening at ``at`` and the offset after it (the last: after ``]``)."""
    at = _skip(text, at + 1)
    if text[at : at + 1] == "]":
        return
    while True:
        item, at = _parse(text, at, walk)
        at = _skip(text, at)
        char = text[at : at + 1]
        if char == "]":
            yield item, at + 1
            return
        if char != ",":
            raise _JsonError("expected `,` or `]` after an array element", at)
        yield item, at + 1
        at += 1


def _parse(text: str, at: int, walk: int) -> tuple[_Node, int]:
    """The value at ``at`` (whitespace skipped) and the offset after it; ``walk`` levels of
    containers walked by hand (their parts placed), what is below decoded whole."""
    at = _skip(text, at)
    char = text[at : at + 1]
    if walk > 0 and char == "[":
        items, end = [], _skip(text, at + 1) + 1
        for item, end in _array_items(text, at, walk - 1):
            items.append(item)
        return _Node(None, at, items=items), end
    if walk > 0 and char == "{":
        pairs: list[tuple[str, int, _Node]] = []
        start = at
        at = _skip(text, at + 1)
        if text[at : at + 1] == "}":
            return _Node(None, start, pairs=pairs), at + 1
        while True:
            if text[at : at + 1] != '"':
                raise _JsonError("expected a key in double quotes", at)
            try:
                key, after = scanstring(text, at + 1)
            except json.JSONDecodeError as exc:
                raise _JsonError(exc.msg, exc.pos) from None
            after = _skip(text, after)
            if text[after : after + 1] != ":":
                raise _JsonError("expected `:` after a key", after)
            value, after = _parse(text, after + 1, walk - 1)
            pairs.append((key, at, value))
            at = _skip(text, after)
            char = text[at : at + 1]
            if char == "}":
                break
            if char != ",":
                raise _JsonError("expected `,` or `}` after a value", at)
            at = _skip(text, at + 1)
        return _Node(None, start, pairs=pairs), at + 1
    value, end = _decode_value(text, at)
    return _Node(value, at), end


def _end_of_text(text: str, end: int) -> None:
    end = _skip(text, end)
    if end < len(text):
        raise _JsonError("extra data after the JSON value", end)


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, _Pairs):
        return "an object"
    return "an array"


def _is_array(value: Any) -> bool:
    return isinstance(value, list) and not isinstance(value, _Pairs)


class _Object:
    """A decoded JSON object: its fields as a JSON reader keeps them (the last of a repeated key),
    and, walked by hand the first time a problem needs one, the place of each key and value."""

    def __init__(self, text: str, node: _Node):
        self.offset = node.offset
        self.pairs: _Pairs = node.value
        self.fields = dict(self.pairs)
        self._text = text
        self._walked: dict[str, _Node] | None = None
        self._keys: list[tuple[str, int]] = []

    def _walk(self) -> dict[str, _Node]:
        if self._walked is None:
            node, _ = _parse(self._text, self.offset, 2)
            self._keys = [(key, offset) for key, offset, _ in node.pairs or ()]
            self._walked = {key: value for key, _, value in node.pairs or ()}
        return self._walked

    def node(self, key: str) -> _Node:
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


def _decode(data: bytes) -> tuple[_Text | None, list[EvalProblem]]:
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
    return _Text(text), problems


def shorten(text: str, width: int = 60) -> str:
    """``text`` on one line, cut with an ellipsis past ``width`` characters (for messages)."""
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


class _Problems:
    """Problems of one file, at most :data:`MAX_PROBLEMS`; the last one kept counts the rest."""

    def __init__(self, text: _Text, first: list[EvalProblem]):
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

    def invalid(self, error: _JsonError) -> None:
        self.at(error.offset, f"is not valid JSON: {error.message}")

    def repeated_keys(self, obj: _Object, what: str) -> None:
        for key, offset in obj.repeated_keys():
            self.at(offset, f"{what} has the key `{key}` twice; JSON readers keep only the last")

    def result(self) -> tuple[EvalProblem, ...]:
        if self.dropped:
            last = self.items[-1]
            self.items[-1] = EvalProblem(last.line, f"{last.message} ({self.dropped:,} more problems in this file not listed)", last.column)
        return tuple(self.items)


# -- trigger sets ---------------------------------------------------------------

_CASE_KEYS = ("query", "should_trigger")


class _TriggerSetReader:
    """Reads a trigger set's elements one at a time, keeping the good cases and the problems."""

    def __init__(self, text: _Text, problems: _Problems):
        self.text = text
        self.problems = problems
        self.cases: list[TriggerCase] = []
        self.first_line: dict[str, tuple[int, bool]] = {}  # query -> (line, should_trigger): run_eval.py's key
        self.count = 0
        self.shaped = False  # an element was an object with a case's key: the file is a trigger set

    def element(self, node: _Node) -> None:
        self.count += 1
        where = f"case {self.count}"
        problems = self.problems
        if not isinstance(node.value, _Pairs):
            problems.at(node.offset, f"{where} is {_type_name(node.value)}, not an object with `query` and `should_trigger`")
            return
        case = _Object(self.text.text, node)
        fields = case.fields
        if not self.shaped and any(key in fields for key in _CASE_KEYS):
            self.shaped = True
        problems.repeated_keys(case, where)
        query, should_trigger = fields.get("query"), fields.get("should_trigger")
        good = _text_field(problems, case, node.offset, where, "query")
        if "should_trigger" not in fields:
            problems.at(node.offset, f"{where} has no `should_trigger`")
            good = False
        elif not isinstance(should_trigger, bool):
            problems.at(
                case.at("should_trigger"),
                f"{where}: `should_trigger` is {_type_name(should_trigger)}, not true or false"
                " (run_eval.py tests its truth: a string such as \"false\" counts as true)",
            )
            good = False
        if not good:
            return
        line = self.text.position(node.offset)[0]
        if query in self.first_line:
            other, expected = self.first_line[query]
            clash = "" if expected == should_trigger else ", once expected to trigger and once not"
            problems.at(
                case.at("query"),
                f"{where} repeats the query of line {other}{clash}: \"{shorten(query)}\"; "
                "run_eval.py keys its results by query text, so the two are merged",
            )
            return
        self.first_line[query] = (line, should_trigger)
        self.cases.append(TriggerCase(query, should_trigger, line))

    def finish(self, offset: int) -> None:
        problems, cases = self.problems, self.cases
        if not self.count:
            problems.at(offset, "the trigger set holds no case")
        elif cases:
            if not any(case.should_trigger for case in cases):
                problems.at(offset, "the trigger set has no positive case (`\"should_trigger\": true`): recall cannot be measured")
            if all(case.should_trigger for case in cases):
                problems.at(offset, "the trigger set has no negative case (`\"should_trigger\": false`): precision cannot be measured")


def _trigger_set(path: Path, rel: str, data: bytes, known: bool) -> TriggerSet | None:
    """The trigger set in ``data``; None when the file is not named as one (``known``) and its shape
    is not one (another format: not understood, never reported)."""
    text, decode_problems = _decode(data)
    if text is None:
        return TriggerSet(path, (), tuple(decode_problems), rel) if known else None
    problems = _Problems(text, decode_problems)
    source = text.text
    start = _skip(source, 0)
    if source[start : start + 1] != "[":
        if not known:
            return None
        try:
            node, end = _parse(source, start, 0)
            _end_of_text(source, end)
        except _JsonError as exc:
            problems.invalid(exc)
        else:
            problems.at(node.offset, f"a trigger set is a JSON array of {{\"query\", \"should_trigger\"}} objects; this file holds {_type_name(node.value)}")
        return TriggerSet(path, (), problems.result(), rel)
    reader = _TriggerSetReader(text, problems)
    try:
        end = start + 1
        for node, end in _array_items(source, start, 0):
            reader.element(node)
        if end == start + 1:
            end = _skip(source, start + 1) + 1  # an empty array: after its `]`
        _end_of_text(source, end)
    except _JsonError as exc:
        if not (known or reader.shaped):
            return None
        problems.invalid(exc)
        return TriggerSet(path, (), problems.result(), rel)  # JSON readers refuse the whole file: nothing runs
    if not (known or reader.shaped):
        return None
    reader.finish(start)
    return TriggerSet(path, tuple(reader.cases), problems.result(), rel)


def read_trigger_set(path: Path, text: str) -> TriggerSet:
    """The trigger set in ``text`` (a file given by the user: read as a trigger set whatever its name)."""
    return _trigger_set(path, "", text.encode("utf-8", errors="surrogatepass"), known=True)  # type: ignore[return-value]


def trigger_sets(package) -> list[TriggerSet]:
    """Every trigger set of ``package`` (a :class:`~skilllint.skill.package.SkillPackage`), in path order."""
    return list(package.evals.trigger_sets)


# -- task evals -------------------------------------------------------------------


def _strings(node: _Node, problems: _Problems, what: str) -> tuple[str, ...]:
    """The strings of an array placed by hand; each other element (or a value that is no array) a problem."""
    if node.items is None:
        problems.at(node.offset, f"{what} is {_type_name(node.value)}, not an array of strings")
        return ()
    good = []
    for item in node.items:
        if isinstance(item.value, str):
            good.append(item.value)
        else:
            problems.at(item.offset, f"{what} holds {_type_name(item.value)}, not a string")
    return tuple(good)


def _task_evals(package, path: Path, data: bytes) -> TaskEvals:
    text, decode_problems = _decode(data)
    if text is None:
        return TaskEvals(path, None, (), tuple(decode_problems))
    problems = _Problems(text, decode_problems)
    source = text.text
    try:
        node, end = _parse(source, 0, 0)
        _end_of_text(source, end)
    except _JsonError as exc:
        problems.invalid(exc)
        return TaskEvals(path, None, (), problems.result())
    if not isinstance(node.value, _Pairs):
        problems.at(node.offset, f"evals.json is an object with `skill_name` and `evals`; this file holds {_type_name(node.value)}")
        return TaskEvals(path, None, (), problems.result())
    top = _Object(source, node)
    problems.repeated_keys(top, "evals.json")
    skill_name = top.fields.get("skill_name")
    if "skill_name" in top.fields:
        if not isinstance(skill_name, str):
            problems.at(top.at("skill_name"), f"`skill_name` is {_type_name(skill_name)}, not a string")
            skill_name = None
        else:
            own = _skill_name(package)
            if own is not None and skill_name != own:
                problems.at(top.at("skill_name"), f"`skill_name` is `{shorten(skill_name)}`, but the skill's `name` is `{shorten(own)}`")
    evals: list[TaskEval] = []
    if "evals" not in top.fields:
        problems.at(node.offset, "evals.json has no `evals` array")
    elif not _is_array(top.fields["evals"]):
        problems.at(top.at("evals"), f"`evals` is {_type_name(top.fields['evals'])}, not an array")
    else:
        ids: dict[int, int] = {}
        for index, item in enumerate(top.node("evals").items or (), 1):
            found = _task_eval(package, text, item, f"eval {index}", ids, problems)
            if found is not None:
                evals.append(found)
    return TaskEvals(path, skill_name, tuple(evals), problems.result())


def _task_eval(package, text: _Text, node: _Node, where: str, ids: dict[int, int], problems: _Problems) -> TaskEval | None:
    """One eval of ``evals``, checked; None when it has no usable id or prompt."""
    if not isinstance(node.value, _Pairs):
        problems.at(node.offset, f"{where} is {_type_name(node.value)}, not an object")
        return None
    item = _Object(text.text, node)
    problems.repeated_keys(item, where)
    fields = item.fields
    line = text.position(node.offset)[0]
    ok = True
    eval_id, prompt, expected = fields.get("id"), fields.get("prompt"), fields.get("expected_output")
    if "id" not in fields:
        problems.at(node.offset, f"{where} has no `id`")
        ok = False
    elif not isinstance(eval_id, int) or isinstance(eval_id, bool):
        problems.at(item.at("id"), f"{where}: `id` is {_type_name(eval_id)}, not an integer")
        ok = False
    elif eval_id in ids:
        problems.at(item.at("id"), f"{where}: `id` {eval_id} is also the id of the eval on line {ids[eval_id]}; ids must be unique")
    else:
        ids[eval_id] = line
    ok = _text_field(problems, item, node.offset, where, "prompt") and ok
    if "expected_output" in fields and not isinstance(expected, str):
        problems.at(item.at("expected_output"), f"{where}: `expected_output` is {_type_name(expected)}, not a string")
        expected = None
    files: tuple[str, ...] = ()
    if "files" in fields:
        files = _strings(item.node("files"), problems, f"{where}: `files`")
        for file_node in item.node("files").items or ():
            if isinstance(file_node.value, str):
                _check_file(package, file_node, problems, where)
    expectations: tuple[str, ...] = ()
    if "expectations" in fields:
        expectations = _strings(item.node("expectations"), problems, f"{where}: `expectations`")
    if not ok:
        return None
    return TaskEval(eval_id, prompt, line, expected, files, expectations)  # type: ignore[arg-type]


def _skill_name(package) -> str | None:
    if package is None:
        return None
    mapping = package.canonical.mapping
    name = mapping.get("name") if mapping else None
    return name if isinstance(name, str) else None


def _check_file(package, node: _Node, problems: _Problems, where: str) -> None:
    """A ``files`` entry must name a file of the skill (paths are from the skill's folder)."""
    if package is None:
        return
    rel = node.value
    if not rel.strip():
        problems.at(node.offset, f"{where}: `files` holds an empty path")
        return
    status, _ = package.inventory.resolve(rel.replace("\\", "/"))
    if status == "outside":
        problems.at(node.offset, f"{where}: `files` names `{shorten(rel)}`, outside the skill's folder (paths are from the skill's folder)")
    elif status in ("missing", "loop"):
        problems.at(node.offset, f"{where}: `files` names `{shorten(rel)}`, which is not in the skill's folder (paths are from the skill's folder)")


# -- the package's eval files -------------------------------------------------------


def _is_trigger_set_candidate(rel: str) -> tuple[bool, bool]:
    """(candidate, named): whether ``rel`` may hold a trigger set, and whether its name says it does."""
    name = posixpath.basename(rel)
    if name in TRIGGER_SET_NAMES:
        return True, True
    return rel.startswith(EVALS_FOLDER + "/") and name.lower().endswith(".json") and rel != TASK_EVALS, False


def read_package_evals(package) -> PackageEvals:
    """Read every eval file of ``package`` once (what :attr:`SkillPackage.evals` holds)."""
    from .script_lexers import SKIPPED_FOLDERS

    inventory = package.inventory
    sets: list[TriggerSet] = []
    task: TaskEvals | None = None
    texts: dict[str, str] = {}
    candidates = sorted(
        rel
        for rel, entry in inventory.entries.items()
        if entry.kind == "file" and (rel.startswith(EVALS_FOLDER + "/") or posixpath.basename(rel) in TRIGGER_SET_NAMES)
    )
    read = 0
    for rel in candidates:
        candidate, named = _is_trigger_set_candidate(rel)
        if not candidate and rel != TASK_EVALS:
            continue
        if any(part in SKIPPED_FOLDERS for part in rel.split("/")[:-1]) or inventory.in_nested_skill(rel):
            continue
        if read >= MAX_EVAL_FILES:
            break
        read += 1
        path = package.root / rel
        try:
            data = read_capped(path, package.max_bytes, whole=True).data
        except UnsafeFile as exc:
            if rel == TASK_EVALS:
                task = TaskEvals(path, None, (), (EvalProblem(1, f"was not read: it {exc}"),))
            elif named:
                sets.append(TriggerSet(path, (), (EvalProblem(1, f"was not read: it {exc}"),), rel))
            continue
        if b"\x00" not in data[:8192]:  # as package_texts reads a text: it takes this one from here
            texts[rel] = data.decode("utf-8", errors="replace")
        if rel == TASK_EVALS:
            task = _task_evals(package, path, data)
            continue
        found = _trigger_set(path, rel, data, named)
        if found is not None:
            sets.append(found)
    return PackageEvals(tuple(sets), task, texts)


def _text_field(problems, item, offset: int, where: str, key: str) -> bool:
    """Whether ``key`` of the object ``item`` (whose node starts at ``offset``) holds text; a
    problem where it is missing, not a string, or blank."""
    value = item.fields.get(key)
    if key not in item.fields:
        problems.at(offset, f"{where} has no `{key}`")
    elif not isinstance(value, str):
        problems.at(item.at(key), f"{where}: `{key}` is {_type_name(value)}, not a string")
    elif not value.strip():
        problems.at(item.at(key), f"{where}: `{key}` is empty")
    else:
        return True
    return False
