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


@contextlib.contextmanager
def deadline(seconds: float = 20):
    """Raise :class:`Hung` in the main thread after ``seconds``: turns a hang
    (a blocking open or read) into a test failure instead of a stuck run."""

    def _fire(signum, frame):
        raise Hung(f"skilllint did not finish within {seconds} s")

    previous = signal.signal(signal.SIGALRM, _fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


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
