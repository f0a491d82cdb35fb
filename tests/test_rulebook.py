"""The rule book and the registry stay in step, and every rule's examples are tested.

Each rule folder ``rulebook/SLnnn-name/`` holds README.md (the documentation),
``fail/`` (a tree whose lint yields this rule's code) and ``pass/`` (a tree
that yields none of it). An optional ``skilllint.toml`` in the rule folder sets
targets and options for both examples.

An optional ``example-setup.toml`` lists entries the repository cannot carry:
``fifos = ["fail/x/pipe"]`` (git does not store FIFOs) and a ``[symlinks]``
table of link path = link text (``"fail/x/system" = "/etc"``) for links that
leave the repository, dangle or loop (git stores them, but the wheel and
sdist builds follow links and would pack ``/etc`` or fail). Paths are relative
to the rule folder. For such a folder every test below lints a copy in a
temporary folder where those entries have been created (as scripts/generate.py
does when it re-runs a page's examples).

Each page's first line, the kind on its ``Fix:`` line and the output shown under
its ``$ skilllint ...`` lines are generated: ``python scripts/generate.py``
(tests/test_generated.py checks them).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from skilllint.config.settings import load_settings
from skilllint.lint.engine import lint_paths
from skilllint.registry import registry
from skilllint.rulebook import rule_folders

from conftest import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
from generate import console_runs, prepared  # noqa: E402

RULEBOOK = ROOT / "rulebook"
REGISTRY = registry()
CODES = [rule.code for rule in REGISTRY.sorted()]
FOLDERS = rule_folders()


def test_every_registered_rule_has_a_folder():
    missing = [code for code in CODES if code not in FOLDERS]
    assert not missing, f"rules without a rule-book folder: {missing}"


def test_every_folder_names_a_registered_rule():
    for code, folder in FOLDERS.items():
        rule = REGISTRY.rules.get(code)
        assert rule is not None, f"{folder.name} names no registered rule"
        assert folder.name == f"{rule.code}-{rule.name}", f"{folder.name} should be {rule.code}-{rule.name}"


def _example_config(folder: Path, example: str) -> str | None:
    """``skilllint-pass.toml`` (or ``-fail``) when one example needs its own
    settings (a catalog budget, say), else the folder's ``skilllint.toml``."""
    for name in (f"skilllint-{example}.toml", "skilllint.toml"):
        if (folder / name).is_file():
            return str(folder / name)
    return None


def _lint(folder: Path, example: str, code: str):
    settings = load_settings(REGISTRY, folder, config_path=_example_config(folder, example))
    settings.select = [code]
    # kept: the rules a rule judges (SL901 judges suppressions of the rules that ran)
    settings.extend_select = list(settings.extend_select)
    settings.ignore = []
    result = lint_paths([str(folder / example)], settings, folder)
    assert not result.internal_errors, result.internal_errors
    return result.diagnostics


@pytest.mark.parametrize("code", CODES)
def test_fail_example_produces_the_code(code, tmp_path):
    folder = FOLDERS.get(code)
    if folder is None:
        pytest.fail(f"{code} has no rule-book folder")
    folder = prepared(folder, tmp_path)
    assert (folder / "fail").is_dir(), f"{folder.name} has no fail/ example"
    diagnostics = _lint(folder, "fail", code)
    assert diagnostics, f"{folder.name}/fail produced no {code}"
    assert {d.code for d in diagnostics} == {code}


@pytest.mark.parametrize("code", CODES)
def test_pass_example_is_clean(code, tmp_path):
    folder = FOLDERS.get(code)
    if folder is None:
        pytest.fail(f"{code} has no rule-book folder")
    folder = prepared(folder, tmp_path)
    assert (folder / "pass").is_dir(), f"{folder.name} has no pass/ example"
    diagnostics = _lint(folder, "pass", code)
    assert not diagnostics, [f"{d.path}:{d.span.line}: {d.message}" for d in diagnostics]


@pytest.mark.parametrize("code", CODES)
def test_page_follows_the_house_shape(code):
    folder = FOLDERS.get(code)
    if folder is None:
        pytest.fail(f"{code} has no rule-book folder")
    page = (folder / "README.md").read_text(encoding="utf-8")
    rule = REGISTRY.rules[code]
    assert page.startswith(f"# {code} {rule.name}\n"), "first line must be '# CODE name'"
    for heading in ("## What it checks", "## Why it matters", "## Example", "## Evidence"):
        assert heading in page, f"{folder.name}/README.md lacks '{heading}'"
    assert list(console_runs(page)), f"{folder.name}/README.md shows no `$ skilllint` example"
    targets_line = re.search(r"^Targets: (.+)$", page, re.MULTILINE)
    assert targets_line, "a 'Targets:' line is required"
    for target_id in rule.severity:
        assert target_id in targets_line.group(1) or "all targets" in targets_line.group(1), (
            f"{folder.name}: Targets line does not name {target_id}"
        )
