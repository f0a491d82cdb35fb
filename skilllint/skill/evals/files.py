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

Both are read through the package, once (:func:`package_evals`), each file whole or not at all
(over the package's read cap it is refused unread), and parsed with the standard library's JSON
decoder, walked by hand over the few levels whose positions a finding needs: each problem is an
:class:`EvalProblem` on its line. What Python's ``json`` refuses (skill-creator's scripts read the
files with it) is a problem here too: a byte-order mark, text that is not UTF-8, trailing data.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from pathlib import Path

from ...fsafe import UnsafeFile, read_capped
from .json_positions import (
    EvalProblem,
    JsonError,
    JsonObject,
    JsonText,
    Node,
    Pairs,
    Problems,
    array_items,
    decode_json,
    end_of_text,
    is_array,
    parse_node,
    shorten,
    skip_blanks,
    type_name,
)

EVALS_FOLDER = "evals"
TASK_EVALS = "evals/evals.json"
TRIGGER_SET_NAMES = frozenset({"trigger_eval.json", "eval_set.json"})  # the names skill-creator gives one
MAX_EVAL_FILES = 200  # eval files read per package



@dataclass(frozen=True)
class TriggerCase:
    """One query of a trigger set and whether the skill should be picked for it."""

    query: str
    should_trigger: bool
    line: int


@dataclass(frozen=True, eq=False)
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


@dataclass(frozen=True, eq=False, repr=False)
class TaskEval:
    """One task eval of ``evals/evals.json``."""

    id: int
    prompt: str
    line: int
    expected_output: str | None = None
    files: tuple[str, ...] = ()
    expectations: tuple[str, ...] = ()


@dataclass(frozen=True, eq=False, repr=False)
class TaskEvals:
    """``evals/evals.json``: its well-formed evals and the problems of the file."""

    path: Path
    skill_name: str | None
    evals: tuple[TaskEval, ...]
    problems: tuple[EvalProblem, ...]
    rel: str = TASK_EVALS


@dataclass(frozen=True, eq=False, repr=False)
class PackageEvals:
    """Every eval file of a package that skilllint reads."""

    trigger_sets: tuple[TriggerSet, ...] = ()
    task_evals: TaskEvals | None = None
    texts: dict[str, str] = field(default_factory=dict)  # each file read (path from the skill's folder) -> its text


# -- trigger sets ---------------------------------------------------------------

_CASE_KEYS = ("query", "should_trigger")


class _TriggerSetReader:
    """Reads a trigger set's elements one at a time, keeping the good cases and the problems."""

    def __init__(self, text: JsonText, problems: Problems):
        self.text = text
        self.problems = problems
        self.cases: list[TriggerCase] = []
        self.first_line: dict[str, tuple[int, bool]] = {}  # query -> (line, should_trigger): run_eval.py's key
        self.count = 0
        self.shaped = False  # an element was an object with a case's key: the file is a trigger set

    def element(self, node: Node) -> None:
        self.count += 1
        where = f"case {self.count}"
        problems = self.problems
        if not isinstance(node.value, Pairs):
            problems.at(node.offset, f"{where} is {type_name(node.value)}, not an object with `query` and `should_trigger`")
            return
        case = JsonObject(self.text.text, node)
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
                f"{where}: `should_trigger` is {type_name(should_trigger)}, not true or false"
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
    text, decode_problems = decode_json(data)
    if text is None:
        return TriggerSet(path, (), tuple(decode_problems), rel) if known else None
    problems = Problems(text, decode_problems)
    source = text.text
    start = skip_blanks(source, 0)
    if source[start : start + 1] != "[":
        if not known:
            return None
        try:
            node, end = parse_node(source, start, 0)
            end_of_text(source, end)
        except JsonError as exc:
            problems.invalid(exc)
        else:
            problems.at(node.offset, f"a trigger set is a JSON array of {{\"query\", \"should_trigger\"}} objects; this file holds {type_name(node.value)}")
        return TriggerSet(path, (), problems.result(), rel)
    reader = _TriggerSetReader(text, problems)
    try:
        end = start + 1
        for node, end in array_items(source, start, 0):
            reader.element(node)
        if end == start + 1:
            end = skip_blanks(source, start + 1) + 1  # an empty array: after its `]`
        end_of_text(source, end)
    except JsonError as exc:
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


def package_evals(package) -> PackageEvals:
    """The eval files of ``package`` (a :class:`~skilllint.skill.package.SkillPackage`): its trigger sets
    and ``evals/evals.json``, each read once per package (:meth:`SkillPackage.once`)."""
    return package.once(read_package_evals)


def trigger_sets(package) -> list[TriggerSet]:
    """Every trigger set of ``package`` (a :class:`~skilllint.skill.package.SkillPackage`), in path order."""
    return list(package_evals(package).trigger_sets)


# -- task evals -------------------------------------------------------------------


def _strings(node: Node, problems: Problems, what: str) -> tuple[str, ...]:
    """The strings of an array placed by hand; each other element (or a value that is no array) a problem."""
    if node.items is None:
        problems.at(node.offset, f"{what} is {type_name(node.value)}, not an array of strings")
        return ()
    good = []
    for item in node.items:
        if isinstance(item.value, str):
            good.append(item.value)
        else:
            problems.at(item.offset, f"{what} holds {type_name(item.value)}, not a string")
    return tuple(good)


def _task_evals(package, path: Path, data: bytes) -> TaskEvals:
    text, decode_problems = decode_json(data)
    if text is None:
        return TaskEvals(path, None, (), tuple(decode_problems))
    problems = Problems(text, decode_problems)
    source = text.text
    try:
        node, end = parse_node(source, 0, 0)
        end_of_text(source, end)
    except JsonError as exc:
        problems.invalid(exc)
        return TaskEvals(path, None, (), problems.result())
    if not isinstance(node.value, Pairs):
        problems.at(node.offset, f"evals.json is an object with `skill_name` and `evals`; this file holds {type_name(node.value)}")
        return TaskEvals(path, None, (), problems.result())
    top = JsonObject(source, node)
    problems.repeated_keys(top, "evals.json")
    skill_name = top.fields.get("skill_name")
    if "skill_name" in top.fields:
        if not isinstance(skill_name, str):
            problems.at(top.at("skill_name"), f"`skill_name` is {type_name(skill_name)}, not a string")
            skill_name = None
        else:
            own = _skill_name(package)
            if own is not None and skill_name != own:
                problems.at(top.at("skill_name"), f"`skill_name` is `{shorten(skill_name)}`, but the skill's `name` is `{shorten(own)}`")
    evals: list[TaskEval] = []
    if "evals" not in top.fields:
        problems.at(node.offset, "evals.json has no `evals` array")
    elif not is_array(top.fields["evals"]):
        problems.at(top.at("evals"), f"`evals` is {type_name(top.fields['evals'])}, not an array")
    else:
        ids: dict[int, int] = {}
        for index, item in enumerate(top.node("evals").items or (), 1):
            found = _task_eval(package, text, item, f"eval {index}", ids, problems)
            if found is not None:
                evals.append(found)
    return TaskEvals(path, skill_name, tuple(evals), problems.result())


def _task_eval(package, text: JsonText, node: Node, where: str, ids: dict[int, int], problems: Problems) -> TaskEval | None:
    """One eval of ``evals``, checked; None when it has no usable id or prompt."""
    if not isinstance(node.value, Pairs):
        problems.at(node.offset, f"{where} is {type_name(node.value)}, not an object")
        return None
    item = JsonObject(text.text, node)
    problems.repeated_keys(item, where)
    fields = item.fields
    line = text.position(node.offset)[0]
    ok = True
    eval_id, prompt, expected = fields.get("id"), fields.get("prompt"), fields.get("expected_output")
    if "id" not in fields:
        problems.at(node.offset, f"{where} has no `id`")
        ok = False
    elif not isinstance(eval_id, int) or isinstance(eval_id, bool):
        problems.at(item.at("id"), f"{where}: `id` is {type_name(eval_id)}, not an integer")
        ok = False
    elif eval_id in ids:
        problems.at(item.at("id"), f"{where}: `id` {eval_id} is also the id of the eval on line {ids[eval_id]}; ids must be unique")
    else:
        ids[eval_id] = line
    ok = _text_field(problems, item, node.offset, where, "prompt") and ok
    if "expected_output" in fields and not isinstance(expected, str):
        problems.at(item.at("expected_output"), f"{where}: `expected_output` is {type_name(expected)}, not a string")
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


def _check_file(package, node: Node, problems: Problems, where: str) -> None:
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
    """Read every eval file of ``package`` (what :func:`package_evals` keeps)."""
    from ..scripts.lexers import SKIPPED_FOLDERS

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
        problems.at(item.at(key), f"{where}: `{key}` is {type_name(value)}, not a string")
    elif not value.strip():
        problems.at(item.at(key), f"{where}: `{key}` is empty")
    else:
        return True
    return False
