"""The test tiers: `python -m pytest -m "not slow"` (the fast tier) leaves out the whole corpus,
bounds at scale and end-to-end runs, and still runs every rule's rule-book examples; CI runs
every test. The markers are declared in pyproject.toml and enforced (`--strict-markers`)."""

from __future__ import annotations

import pytest


def test_the_tier_markers_are_declared_and_enforced(request: pytest.FixtureRequest) -> None:
    declared = {line.split(":", 1)[0].strip() for line in request.config.getini("markers")}
    assert {"slow", "e2e"} <= declared
    assert "--strict-markers" in request.config.getini("addopts")


def test_end_to_end_and_corpus_tests_are_slow_and_the_rule_book_is_not(request: pytest.FixtureRequest) -> None:
    for item in request.session.items:
        kind = "e2e" if item.get_closest_marker("e2e") else "corpus" if "corpus" in item.fixturenames else None
        if kind:
            assert item.get_closest_marker("slow"), f"{item.nodeid} ({kind}) is not marked slow"
        if item.nodeid.startswith("tests/test_rulebook.py"):
            assert not item.get_closest_marker("slow"), f"{item.nodeid}: the fast tier must run every rule"


def test_no_property_overrides_the_profile_s_example_count() -> None:
    """How many examples a property runs is the hypothesis profile's (tests/conftest.py: `ci` in
    CI, `long` for a campaign); a literal count in a test would hold in both."""
    import re
    from pathlib import Path

    literal = re.compile(r"max_examples\s*=\s*\d")
    found = [
        f"{path.name}:{number}: {line.strip()}"
        for path in sorted(Path(__file__).parent.glob("*.py"))
        if path.name != "conftest.py"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if literal.search(line)
    ]
    assert not found, "\n".join(found)


# -- no bound in seconds -------------------------------------------------------------------

CLOCKS = {"perf_counter", "perf_counter_ns", "time", "time_ns", "monotonic", "monotonic_ns", "process_time", "thread_time"}
HANG_GUARD_MIN = 120  # seconds: below this, a deadline or timeout is a speed claim, not a hang guard


def _is_clock(node) -> bool:
    """``time.perf_counter()`` and the like, or ``perf_counter()`` imported by name."""
    import ast

    if not isinstance(node, ast.Call):
        return False
    func = node.func
    if isinstance(func, ast.Attribute):
        return func.attr in CLOCKS and isinstance(func.value, ast.Name) and func.value.id == "time"
    return isinstance(func, ast.Name) and func.id in CLOCKS - {"time"}


def second_bounds(source: str) -> list[tuple[int, str]]:
    """Where ``source`` (a test module) judges speed by a number of seconds:

    * an ``assert`` that compares a measured duration with a number: the duration is a
      subtraction with a clock call in it (``time.perf_counter() - start``), a name assigned one
      (``elapsed = …``; tuple targets assigned from a timing function's call included), or a call
      of a module function that returns one (``_seconds(f, x) < 5``); the number is a literal or
      a module-level name bound to one (``TIME_LIMIT``). A ratio of two measurements
      (``large / small < 8``) or a comparison of two (``large < small * 100``) is no such bound;
    * ``deadline(n)`` or ``timeout=n`` with a literal ``n`` under ``HANG_GUARD_MIN`` seconds: a
      hang guard is generous (tests/conftest.py's HANG_GUARD), or it is a speed claim.
    """
    import ast

    tree = ast.parse(source)
    numbers = {
        target.id
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, (int, float))
        for target in node.targets
        if isinstance(target, ast.Name)
    }

    def clock_difference(node) -> bool:
        return any(
            isinstance(sub, ast.BinOp) and isinstance(sub.op, ast.Sub) and any(_is_clock(part) for part in ast.walk(sub))
            for sub in ast.walk(node)
        )

    timers: dict[str, set[int] | None] = {}  # functions returning a duration: None, or which items of a tuple
    timed: set[str] = set()  # names holding one

    def measured(node) -> bool:
        return clock_difference(node) or any(
            (isinstance(sub, ast.Name) and sub.id in timed)
            or (isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id in timers)
            for sub in ast.walk(node)
        )

    for _ in range(3):  # names and functions feed each other: a few rounds reach the fixpoint
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and measured(node.value):
                call = node.value
                items = timers.get(call.func.id) if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) else None
                for target in node.targets:
                    if isinstance(target, ast.Tuple) and items is not None:
                        timed.update(e.id for i, e in enumerate(target.elts) if i in items and isinstance(e, ast.Name))
                    else:
                        timed.update(sub.id for sub in ast.walk(target) if isinstance(sub, ast.Name))
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for sub in ast.walk(node):
                    if isinstance(sub, ast.Return) and sub.value is not None and measured(sub.value):
                        if isinstance(sub.value, ast.Tuple):
                            timers[node.name] = {i for i, e in enumerate(sub.value.elts) if measured(e)}
                        else:
                            timers[node.name] = None

    def duration(node) -> bool:  # measured, and no ratio of two measurements
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) and measured(node.left) and measured(node.right):
            return False
        return measured(node)

    def number(node) -> bool:
        return (isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool)) or (
            isinstance(node, ast.Name) and node.id in numbers
        )

    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert):
            for compare in (sub for sub in ast.walk(node.test) if isinstance(sub, ast.Compare)):
                sides = [compare.left, *compare.comparators]
                if any(duration(side) for side in sides) and any(number(side) for side in sides):
                    found.append((compare.lineno, "a duration compared with a number of seconds"))
        elif isinstance(node, ast.Call):
            small = lambda value: isinstance(value, ast.Constant) and isinstance(value.value, (int, float)) and value.value < HANG_GUARD_MIN  # noqa: E731
            if isinstance(node.func, ast.Name) and node.func.id == "deadline" and node.args and small(node.args[0]):
                found.append((node.lineno, f"deadline({node.args[0].value}): a hang guard under {HANG_GUARD_MIN} s"))
            for keyword in node.keywords:
                if keyword.arg == "timeout" and small(keyword.value):
                    found.append((node.lineno, f"timeout={keyword.value.value}: a hang guard under {HANG_GUARD_MIN} s"))
    return sorted(found)


def test_the_scan_for_bounds_in_seconds_finds_each_kind() -> None:
    source = """
import time
from time import perf_counter
LIMIT = 2.0
def _seconds(f):
    start = time.process_time()
    f()
    return time.process_time() - start
def _timed():
    start = perf_counter()
    return 1, perf_counter() - start
def test():
    start = time.perf_counter()
    assert time.perf_counter() - start < 5
    elapsed = time.monotonic() - start
    assert elapsed < LIMIT
    assert _seconds(print) < 1.5
    found, took = _timed()
    assert found == 1 and took < 3
    with deadline(20):
        pass
    subprocess.run([], timeout=60)
    assert _seconds(print) / _seconds(print) < 8  # a ratio: allowed
    assert elapsed < took * 3  # two measurements: allowed
    with deadline():
        subprocess.run([], timeout=300)
"""
    assert [line for line, _ in second_bounds(source)] == [14, 16, 17, 19, 20, 22]


# Sites still to rewrite (a count per file), each a bound in seconds left from before the rule.
# The list only shrinks: a file here with fewer sites, or a site elsewhere, fails the test.
NOT_YET_REWRITTEN: dict[str, int] = {}


def test_no_test_judges_speed_by_a_number_of_seconds() -> None:
    """The project's rule (tests/conftest.py, HANG_GUARD): a test proves a bound by counting work or
    by comparing two sizes in one run, never by seconds; speed is benchmarks/' business."""
    from pathlib import Path

    found = {}
    for path in sorted(Path(__file__).parent.glob("*.py")):
        if path.name == "test_tiers.py":
            continue
        sites = second_bounds(path.read_text(encoding="utf-8"))
        if sites:
            found[path.name] = sites
    counts = {name: len(sites) for name, sites in found.items()}
    report = "\n".join(f"{name}:{line}: {what}" for name, sites in found.items() for line, what in sites)
    assert counts == NOT_YET_REWRITTEN, report
