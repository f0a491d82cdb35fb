"""The rule book and the registry stay in step, and every rule's examples are tested.

Each rule folder ``rules/SLnnn-name/`` holds README.md (the documentation),
``fail/`` (a tree whose lint yields this rule's code) and ``pass/`` (a tree
that yields none of it). An optional ``skilllint.toml`` in the rule folder sets
targets and options for both examples.

An optional ``example-setup.toml`` lists entries the repository cannot carry:
``fifos = ["fail/x/pipe"]`` (git does not store FIFOs) and a ``[symlinks]``
table of link path = link text (``"fail/x/system" = "/etc"``) for links that
leave the repository, dangle or loop (git stores them, but the wheel and
sdist builds follow links and would pack ``/etc`` or fail). Paths are relative
to the rule folder. For such a folder every test below lints a copy in a
temporary folder where those entries have been created (``--refresh`` too).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from skilllint.config import load_settings
from skilllint.engine import lint_paths
from skilllint.registry import registry
from skilllint.rulebook import rule_folders

from conftest import ROOT

RULEBOOK = ROOT / "rules"
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


SETUP = "example-setup.toml"


def _prepared(folder: Path, scratch: Path) -> Path:
    """``folder``, or a copy of it under ``scratch`` with its example-setup.toml entries created."""
    setup = folder / SETUP
    if not setup.is_file():
        return folder
    import os
    import shutil

    try:
        import tomllib
    except ModuleNotFoundError:  # Python < 3.11
        import tomli as tomllib

    spec = tomllib.loads(setup.read_text(encoding="utf-8"))
    unknown = set(spec) - {"fifos", "symlinks"}
    assert not unknown, f"{folder.name}/{SETUP}: unknown keys {sorted(unknown)}"
    copy = scratch / folder.name
    shutil.copytree(folder, copy, symlinks=True)
    for rel in spec.get("fifos", []):
        (copy / rel).parent.mkdir(parents=True, exist_ok=True)
        os.mkfifo(copy / rel)
    for rel, text in spec.get("symlinks", {}).items():
        (copy / rel).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(text, copy / rel)
    return copy


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
    settings.extend_select = []
    settings.ignore = []
    result = lint_paths([str(folder / example)], settings, folder)
    assert not result.internal_errors, result.internal_errors
    return result.diagnostics


@pytest.mark.parametrize("code", CODES)
def test_fail_example_produces_the_code(code, tmp_path):
    folder = FOLDERS.get(code)
    if folder is None:
        pytest.fail(f"{code} has no rule-book folder")
    folder = _prepared(folder, tmp_path)
    assert (folder / "fail").is_dir(), f"{folder.name} has no fail/ example"
    diagnostics = _lint(folder, "fail", code)
    assert diagnostics, f"{folder.name}/fail produced no {code}"
    assert {d.code for d in diagnostics} == {code}


@pytest.mark.parametrize("code", CODES)
def test_pass_example_is_clean(code, tmp_path):
    folder = FOLDERS.get(code)
    if folder is None:
        pytest.fail(f"{code} has no rule-book folder")
    folder = _prepared(folder, tmp_path)
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
    targets_line = re.search(r"^Targets: (.+)$", page, re.MULTILINE)
    assert targets_line, "a 'Targets:' line is required"
    for target_id in rule.severity:
        assert target_id in targets_line.group(1) or "all targets" in targets_line.group(1), (
            f"{folder.name}: Targets line does not name {target_id}"
        )


# -- Recorded example output --------------------------------------------------
# Each page shows `$ skilllint ...` console blocks with the output they print.
# The test re-runs them from the rule folder; `python tests/test_rulebook.py
# --refresh` rewrites the blocks after a deliberate message change.

CONSOLE = re.compile(r"```console\n(.*?)```", re.DOTALL)


def _console_runs(page: str):
    """(command line, recorded output) for every `$ skilllint` line of a page."""
    for block in CONSOLE.finditer(page):
        command, output = None, []
        for line in block.group(1).splitlines():
            if line.startswith("$ "):
                if command is not None:
                    yield command, "\n".join(output)
                command, output = line[2:], []
            else:
                output.append(line)
        if command is not None:
            yield command, "\n".join(output)


def _run_console(command: str, folder: Path) -> str:
    import shlex

    from conftest import run_cli

    words = shlex.split(command)
    assert words[0] == "skilllint", command
    _, out, _ = run_cli(*words[1:], cwd=folder)
    return out.rstrip("\n")


@pytest.mark.parametrize("code", sorted(FOLDERS))
def test_recorded_example_output_is_current(code, tmp_path):
    folder = FOLDERS[code]
    page = (folder / "README.md").read_text(encoding="utf-8")
    runs = list(_console_runs(page))
    assert runs, f"{folder.name}/README.md shows no `$ skilllint` example"
    prepared = _prepared(folder, tmp_path)
    for command, recorded in runs:
        assert _run_console(command, prepared) == recorded, (
            f"{folder.name}: output of `{command}` changed; run `python tests/test_rulebook.py --refresh`"
        )


def refresh() -> None:
    import tempfile

    for folder in FOLDERS.values():
        readme = folder / "README.md"
        page = readme.read_text(encoding="utf-8")
        scratch = tempfile.TemporaryDirectory()
        prepared = _prepared(folder, Path(scratch.name))

        def replace(block: re.Match) -> str:
            lines = []
            for command, _ in _console_runs(block.group(0)):
                lines.append(f"$ {command}")
                output = _run_console(command, prepared)
                if output:
                    lines.append(output)
            return "```console\n" + "\n".join(lines) + "\n```"

        updated = CONSOLE.sub(replace, page)
        scratch.cleanup()
        if updated != page:
            readme.write_text(updated, encoding="utf-8")
            print(f"refreshed {folder.name}")


if __name__ == "__main__":
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    if "--refresh" in sys.argv:
        refresh()
