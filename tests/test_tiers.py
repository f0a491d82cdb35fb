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
