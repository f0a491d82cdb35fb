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
from dataclasses import dataclass
from json.decoder import scanstring
from pathlib import Path
from typing import Any

from ..fsafe import UnsafeFile, read_capped

EVALS_FOLDER = "evals"
TASK_EVALS = "evals/evals.json"
TRIGGER_SET_NAMES = frozenset({"trigger_eval.json", "eval_set.json"})  # the names skill-creator gives one
MAX_PROBLEMS = 1000  # problems kept per file; the last says how many more there were
MAX_EVAL_FILES = 200  # eval files read per package

# Levels of nesting whose positions are kept (evals.json: object > evals > eval > files); a value
# deeper than this is decoded whole by the standard decoder and placed at its first character.
_TRACKED_DEPTH = 4
_WHITESPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


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


# -- JSON with positions ------------------------------------------------------


@dataclass
class _Node:
    value: Any  # the decoded value (for a tracked container: a list or dict built from its items)
    offset: int
    items: list["_Node"] | None = None  # a tracked array's elements
    pairs: list[tuple[str, int, "_Node"]] | None = None  # a tracked object's (key, key offset, value), in order


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


def _parse(text: str, at: int, depth: int) -> tuple[_Node, int]:
    """The value starting at ``at`` (whitespace skipped) and the offset after it."""
    at = _skip(text, at)
    char = text[at : at + 1]
    if char == "[" and depth < _TRACKED_DEPTH:
        items: list[_Node] = []
        start = at
        at = _skip(text, at + 1)
        if text[at : at + 1] == "]":
            return _Node([], start, items=items), at + 1
        while True:
            item, at = _parse(text, at, depth + 1)
            items.append(item)
            at = _skip(text, at)
            char = text[at : at + 1]
            if char == "]":
                break
            if char != ",":
                raise _JsonError("expected `,` or `]` after an array element", at)
            at += 1
        return _Node([item.value for item in items], start, items=items), at + 1
    if char == "{" and depth < _TRACKED_DEPTH:
        pairs: list[tuple[str, int, _Node]] = []
        start = at
        at = _skip(text, at + 1)
        if text[at : at + 1] == "}":
            return _Node({}, start, pairs=pairs), at + 1
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
            value, after = _parse(text, after + 1, depth + 1)
            pairs.append((key, at, value))
            at = _skip(text, after)
            char = text[at : at + 1]
            if char == "}":
                break
            if char != ",":
                raise _JsonError("expected `,` or `}` after a value", at)
            at = _skip(text, at + 1)
        return _Node({key: value.value for key, _, value in pairs}, start, pairs=pairs), at + 1
    try:
        value, end = _DECODER.raw_decode(text, at)
    except json.JSONDecodeError as exc:
        raise _JsonError(exc.msg, exc.pos) from None
    except RecursionError:
        raise _JsonError("nested too deeply to decode", at) from None
    return _Node(value, at), end


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


def _load(text: _Text) -> tuple[_Node | None, EvalProblem | None]:
    try:
        node, end = _parse(text.text, 0, 0)
        end = _skip(text.text, end)
        if end < len(text.text):
            raise _JsonError("extra data after the JSON value", end)
    except _JsonError as exc:
        return None, text.problem(exc.offset, f"is not valid JSON: {exc.message}")
    return node, None


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def _show(text: str, width: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


class _Problems:
    """Problems of one file, at most :data:`MAX_PROBLEMS`; the last one kept counts the rest."""

    def __init__(self, text: _Text | None):
        self.text = text
        self.items: list[EvalProblem] = []
        self.dropped = 0

    def add(self, problem: EvalProblem) -> None:
        if len(self.items) < MAX_PROBLEMS:
            self.items.append(problem)
        else:
            self.dropped += 1

    def at(self, offset: int, message: str) -> None:
        assert self.text is not None
        self.add(self.text.problem(offset, message))

    def result(self) -> tuple[EvalProblem, ...]:
        if self.dropped:
            last = self.items[-1]
            self.items[-1] = EvalProblem(last.line, f"{last.message} ({self.dropped:,} more problems in this file not listed)", last.column)
        return tuple(self.items)


def _duplicate_keys(node: _Node, problems: _Problems, what: str) -> dict[str, _Node]:
    """An object's keys -> the value a JSON reader keeps (the last); every repeated key a problem."""
    seen: dict[str, _Node] = {}
    for key, offset, value in node.pairs or ():
        if key in seen:
            problems.at(offset, f"{what} has the key `{key}` twice; JSON readers keep only the last")
        seen[key] = value
    return seen


# -- trigger sets ---------------------------------------------------------------


def _looks_like_trigger_set(node: _Node) -> bool:
    """The shape that says "trigger set": an array with an object holding ``query`` or ``should_trigger``."""
    return node.items is not None and any(
        item.pairs is not None and any(key in ("query", "should_trigger") for key, _, _ in item.pairs) for item in node.items
    )


def _trigger_set(path: Path, rel: str, data: bytes, known: bool) -> TriggerSet | None:
    """The trigger set in ``data``; None when the file is not named as one (``known``) and its shape is not one."""
    text, decode_problems = _decode(data)
    if text is None:
        return TriggerSet(path, (), tuple(decode_problems), rel) if known else None
    node, error = _load(text)
    if node is None or not _looks_like_trigger_set(node):
        if not known:
            return None  # not understood: some other eval format, never reported
    problems = _Problems(text)
    for problem in decode_problems:
        problems.add(problem)
    if node is None:
        problems.add(error)  # type: ignore[arg-type]
        return TriggerSet(path, (), problems.result(), rel)
    if node.items is None:
        problems.at(node.offset, f"a trigger set is a JSON array of {{\"query\", \"should_trigger\"}} objects; this file holds {_type_name(node.value)}")
        return TriggerSet(path, (), problems.result(), rel)
    cases: list[TriggerCase] = []
    first_line: dict[str, tuple[int, bool]] = {}
    for index, item in enumerate(node.items, 1):
        where = f"case {index}"
        if item.pairs is None:
            problems.at(item.offset, f"{where} is {_type_name(item.value)}, not an object with `query` and `should_trigger`")
            continue
        fields = _duplicate_keys(item, problems, where)
        query_node, trigger_node = fields.get("query"), fields.get("should_trigger")
        query = should_trigger = None
        if query_node is None:
            problems.at(item.offset, f"{where} has no `query`")
        elif not isinstance(query_node.value, str):
            problems.at(query_node.offset, f"{where}: `query` is {_type_name(query_node.value)}, not a string")
        elif not query_node.value.strip():
            problems.at(query_node.offset, f"{where}: `query` is empty")
        else:
            query = query_node.value
        if trigger_node is None:
            problems.at(item.offset, f"{where} has no `should_trigger`")
        elif not isinstance(trigger_node.value, bool):
            problems.at(
                trigger_node.offset,
                f"{where}: `should_trigger` is {_type_name(trigger_node.value)}, not true or false"
                " (run_eval.py tests its truth: a string such as \"false\" counts as true)",
            )
        else:
            should_trigger = trigger_node.value
        if query is None or should_trigger is None:
            continue
        line = text.position(item.offset)[0]
        key = query  # run_eval.py's key: the exact text
        if key in first_line:
            other, expected = first_line[key]
            clash = "" if expected == should_trigger else ", once expected to trigger and once not"
            problems.at(
                query_node.offset,  # type: ignore[union-attr]
                f"{where} repeats the query of line {other}{clash}: \"{_show(query)}\"; "
                "run_eval.py keys its results by query text, so the two are merged",
            )
            continue
        first_line[key] = (line, should_trigger)
        cases.append(TriggerCase(query, should_trigger, line))
    if not node.items:
        problems.at(node.offset, "the trigger set holds no case")
    elif cases:
        if not any(case.should_trigger for case in cases):
            problems.at(node.offset, "the trigger set has no positive case (`\"should_trigger\": true`): recall cannot be measured")
        if all(case.should_trigger for case in cases):
            problems.at(node.offset, "the trigger set has no negative case (`\"should_trigger\": false`): precision cannot be measured")
    return TriggerSet(path, tuple(cases), problems.result(), rel)


def read_trigger_set(path: Path, text: str) -> TriggerSet:
    """The trigger set in ``text`` (a file given by the user: read as a trigger set whatever its name)."""
    return _trigger_set(path, "", text.encode("utf-8", errors="surrogatepass"), known=True)  # type: ignore[return-value]


def trigger_sets(package) -> list[TriggerSet]:
    """Every trigger set of ``package``, in path order."""
    return list(package.evals.trigger_sets)


# -- task evals -------------------------------------------------------------------


def _strings(node: _Node, problems: _Problems, what: str) -> tuple[str, ...] | None:
    if node.items is None:
        problems.at(node.offset, f"{what} is {_type_name(node.value)}, not an array of strings")
        return None
    good = []
    for item in node.items:
        if isinstance(item.value, str):
            good.append(item.value)
        else:
            problems.at(item.offset, f"{what} holds {_type_name(item.value)}, not a string")
    return tuple(good)


def _task_evals(package, path: Path, data: bytes) -> TaskEvals:
    text, decode_problems = _decode(data)
    problems = _Problems(text)
    for problem in decode_problems:
        problems.add(problem)
    if text is None:
        return TaskEvals(path, None, (), problems.result())
    node, error = _load(text)
    if node is None:
        problems.add(error)  # type: ignore[arg-type]
        return TaskEvals(path, None, (), problems.result())
    if node.pairs is None:
        problems.at(node.offset, f"evals.json is an object with `skill_name` and `evals`; this file holds {_type_name(node.value)}")
        return TaskEvals(path, None, (), problems.result())
    top = _duplicate_keys(node, problems, "evals.json")
    skill_name = None
    name_node = top.get("skill_name")
    if name_node is not None:
        if not isinstance(name_node.value, str):
            problems.at(name_node.offset, f"`skill_name` is {_type_name(name_node.value)}, not a string")
        else:
            skill_name = name_node.value
            own = _skill_name(package)
            if own is not None and skill_name != own:
                problems.at(name_node.offset, f"`skill_name` is `{_show(skill_name)}`, but the skill's `name` is `{_show(own)}`")
    evals_node = top.get("evals")
    evals: list[TaskEval] = []
    if evals_node is None:
        problems.at(node.offset, "evals.json has no `evals` array")
    elif evals_node.items is None:
        problems.at(evals_node.offset, f"`evals` is {_type_name(evals_node.value)}, not an array")
    else:
        ids: dict[int, int] = {}
        for index, item in enumerate(evals_node.items, 1):
            where = f"eval {index}"
            if item.pairs is None:
                problems.at(item.offset, f"{where} is {_type_name(item.value)}, not an object")
                continue
            fields = _duplicate_keys(item, problems, where)
            line = text.position(item.offset)[0]
            ok = True
            eval_id = fields.get("id")
            if eval_id is None:
                problems.at(item.offset, f"{where} has no `id`")
                ok = False
            elif not isinstance(eval_id.value, int) or isinstance(eval_id.value, bool):
                problems.at(eval_id.offset, f"{where}: `id` is {_type_name(eval_id.value)}, not an integer")
                ok = False
            elif eval_id.value in ids:
                problems.at(eval_id.offset, f"{where}: `id` {eval_id.value} is also the id of the eval on line {ids[eval_id.value]}; ids must be unique")
            else:
                ids[eval_id.value] = line
            prompt = fields.get("prompt")
            if prompt is None:
                problems.at(item.offset, f"{where} has no `prompt`")
                ok = False
            elif not isinstance(prompt.value, str):
                problems.at(prompt.offset, f"{where}: `prompt` is {_type_name(prompt.value)}, not a string")
                ok = False
            elif not prompt.value.strip():
                problems.at(prompt.offset, f"{where}: `prompt` is empty")
                ok = False
            expected = fields.get("expected_output")
            if expected is not None and not isinstance(expected.value, str):
                problems.at(expected.offset, f"{where}: `expected_output` is {_type_name(expected.value)}, not a string")
                expected = None
            files: tuple[str, ...] = ()
            if "files" in fields:
                files = _strings(fields["files"], problems, f"{where}: `files`") or ()
                for file_node in fields["files"].items or ():
                    if isinstance(file_node.value, str):
                        _check_file(package, file_node, problems, where)
            expectations: tuple[str, ...] = ()
            if "expectations" in fields:
                expectations = _strings(fields["expectations"], problems, f"{where}: `expectations`") or ()
            if ok:
                evals.append(
                    TaskEval(eval_id.value, prompt.value, line, expected.value if expected else None, files, expectations)  # type: ignore[union-attr]
                )
    return TaskEvals(path, skill_name, tuple(evals), problems.result())


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
        problems.at(node.offset, f"{where}: `files` names `{_show(rel)}`, outside the skill's folder (paths are from the skill's folder)")
    elif status in ("missing", "loop"):
        problems.at(node.offset, f"{where}: `files` names `{_show(rel)}`, which is not in the skill's folder (paths are from the skill's folder)")


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
    read = 0
    for rel, entry in sorted(inventory.entries.items()):
        if entry.kind != "file" or rel == ".":
            continue
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
        if rel == TASK_EVALS:
            task = _task_evals(package, path, data)
            continue
        found = _trigger_set(path, rel, data, named)
        if found is not None:
            sets.append(found)
    return PackageEvals(tuple(sets), task)
