"""Shared test helpers."""

from __future__ import annotations

import contextlib
import json
import os
import signal
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORPUS = (ROOT.parent / "shared" / "corpus").resolve()

# Hypothesis: "ci" (the default) bounds each property; HYPOTHESIS_PROFILE=long runs a campaign.
from hypothesis import settings as _hypothesis_settings  # noqa: E402

_hypothesis_settings.register_profile("ci", max_examples=100, deadline=None)
_hypothesis_settings.register_profile("long", max_examples=5_000, deadline=None)
_hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def run_cli(*args: str, cwd: Path | None = None) -> tuple[int, str, str]:
    """Run skilllint's main() in-process, capturing output."""
    import contextlib
    import io

    from skilllint.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    old = os.getcwd()
    try:
        if cwd is not None:
            os.chdir(cwd)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(args))
    finally:
        os.chdir(old)
    return code, out.getvalue(), err.getvalue()


def lint_json(*args: str, cwd: Path | None = None) -> dict:
    code, out, err = run_cli("check", "--output-format", "json", "--exit-zero", *args, cwd=cwd)
    assert code == 0, err
    return json.loads(out)


def write_skill(base: Path, folder: str, text: str | bytes) -> Path:
    """Create ``base/folder/SKILL.md`` and return the folder."""
    skill = base / folder
    skill.mkdir(parents=True, exist_ok=True)
    target = skill / "SKILL.md"
    if isinstance(text, bytes):
        target.write_bytes(text)
    else:
        target.write_text(text, encoding="utf-8")
    return skill


@pytest.fixture
def corpus() -> Path:
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus is not present")
    return CORPUS


class Hung(Exception):
    """skilllint did not finish in time (raised by :func:`deadline`)."""


# A hang guard, not a speed claim: the time after which a run that should end counts as stuck
# (a FIFO opened blocking, /dev/zero read without a cap, a cycle followed). No test judges speed
# by a number of seconds (a busy machine is slow for every test alike); a bound is proved by
# counting work (calls, bytes read, opens) or by comparing two sizes in one run (:func:`growth`),
# and speed is benchmarks/' business. tests/test_tiers.py holds the suite to that.
HANG_GUARD = 300.0


@contextlib.contextmanager
def deadline(seconds: float = HANG_GUARD):
    """Raise :class:`Hung` in the main thread after ``seconds``: turns a hang
    (a blocking open or read) into a test failure instead of a stuck run. A hang guard only:
    generous, and never the test's only assertion."""

    def _fire(signum, frame):
        raise Hung(f"skilllint did not finish within {seconds} s (a hang guard)")

    previous = signal.signal(signal.SIGALRM, _fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# -- work, counted or compared between two sizes ------------------------------------------


def count_calls(function, *args, **kwargs):
    """``(function(*args, **kwargs), the number of function calls it made)``: Python functions and
    built-ins alike, counted by :mod:`cProfile` (deterministic: a busy machine counts the same)."""
    import cProfile

    profile = cProfile.Profile()
    profile.enable()
    try:
        result = function(*args, **kwargs)
    finally:
        profile.disable()
    return result, sum(entry.callcount for entry in profile.getstats())


def _cpu(function, argument) -> float:
    import gc
    import time

    enabled = gc.isenabled()
    gc.disable()
    try:
        start = time.process_time()
        function(argument)
        return time.process_time() - start
    finally:
        if enabled:
            gc.enable()


def growth(function, small, large, *, measure: str = "cpu", repeat: int = 3) -> float:
    """How much more work ``function(large)`` takes than ``function(small)``: a ratio of two sizes
    measured in one run, never a number of seconds.

    ``measure="calls"`` counts function calls (:func:`count_calls`: exact, for work done in Python);
    ``measure="cpu"`` compares this process's CPU time, the best of ``repeat`` interleaved runs of
    each with the garbage collector off (for work done inside C: a regex, ``str.find``). A busy
    machine slows both sizes alike, so the ratio stands where a bound in seconds fails. With
    ``large`` four times ``small``, linear work gives about 4 and quadratic work 16."""
    if measure == "calls":
        function(small)  # first-use costs (lazy imports, compiled patterns, caches) outside the count
        return count_calls(function, large)[1] / max(1, count_calls(function, small)[1])
    assert measure == "cpu", measure
    function(small)
    best_small = best_large = float("inf")
    for _ in range(repeat):
        best_small = min(best_small, _cpu(function, small))
        best_large = min(best_large, _cpu(function, large))
    return best_large / max(best_small, 1e-4)


# Linear work at four times the size: about 4 (less where a constant part dominates); quadratic: 16.
LINEAR_AT_4X = 8.0  # CPU time: room for a busy machine's noise
LINEAR_CALLS_AT_4X = 6.0  # counted calls: exact, a tighter bound


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark slow what is slow by its kind (pyproject.toml's markers say which), so that the fast
    tier (`-m "not slow"`) leaves it out without a second mark on each test."""
    for item in items:
        if "corpus" in getattr(item, "fixturenames", ()) or item.get_closest_marker("e2e"):
            item.add_marker(pytest.mark.slow)


def cache_pack(repo: Path, cache: str = ".skilllint_cache") -> dict[str, bytes]:
    """The result cache's entries in ``repo`` (key -> the entry's JSON bytes), from its results.pack."""
    from skilllint.lint.cache.folder import FORMAT
    from skilllint.lint.cache.result_pack import FILENAME, HEADER

    path = repo / cache / f"v{FORMAT}" / FILENAME
    if not path.is_file():
        return {}
    data = path.read_bytes()
    assert data.startswith(HEADER)
    return {line[:64].decode(): line[65:] for line in data[len(HEADER) :].split(b"\n") if line}


def rewrite_cache_pack(repo: Path, change, cache: str = ".skilllint_cache") -> None:
    """Replace each entry of ``repo``'s result pack by ``change(its JSON bytes)`` (bytes, one line)."""
    from skilllint.lint.cache.folder import FORMAT
    from skilllint.lint.cache.result_pack import FILENAME, HEADER

    path = repo / cache / f"v{FORMAT}" / FILENAME
    entries = cache_pack(repo, cache)
    path.write_bytes(HEADER + b"".join(key.encode() + b" " + change(entry) + b"\n" for key, entry in entries.items()))
