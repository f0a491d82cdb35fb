"""Generated files are current: scripts/generate.py --check passes on the checkout, and on a
stale copy it names what is stale, exits 1, and a plain run rewrites it to the current text."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from conftest import ROOT

GENERATOR = Path("scripts") / "generate.py"
RULE_TABLE = Path("docs") / "rules.md"  # the rule table, between its markers


def _generate(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(root / GENERATOR), *args], capture_output=True, text=True, cwd=root, timeout=600
    )


def test_generated_files_are_current():
    proc = _generate(ROOT, "--check")
    assert proc.returncode == 0, proc.stdout + proc.stderr + "\nrun `python scripts/generate.py`"


def _copy_of_the_checkout(dest: Path) -> Path:
    skip = shutil.ignore_patterns("__pycache__", "rulebook")
    shutil.copytree(ROOT / "skilllint", dest / "skilllint", ignore=skip)
    shutil.copytree(ROOT / "rulebook", dest / "rulebook", symlinks=True)
    (dest / "scripts").mkdir()
    shutil.copy2(ROOT / GENERATOR, dest / GENERATOR)
    (dest / "docs").mkdir()
    shutil.copy2(ROOT / RULE_TABLE, dest / RULE_TABLE)
    return dest


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_check_names_each_stale_file_and_a_run_rewrites_it(tmp_path):
    copy = _copy_of_the_checkout(tmp_path)
    schema = Path("skilllint") / "schemas" / "config.schema.json"
    title = Path("rulebook") / "SL003-frontmatter-missing" / "README.md"  # a safe fix
    output = Path("rulebook") / "SL106-name-folder-mismatch" / "README.md"
    _edit(copy / RULE_TABLE, "| SL003 | `frontmatter-missing` |", "| SL003 | `frontmatter-lost` |")
    _edit(copy / schema, "\n", "\n\n")
    _edit(copy / title, "# SL003 frontmatter-missing\n", "# SL003 frontmatter-gone\n")
    _edit(copy / title, "Fix: safe — ", "Fix: unsafe — ")
    page = (copy / output).read_text(encoding="utf-8")
    recorded = page.split("```console\n", 1)[1].split("\n")[1]  # the first line a command printed
    _edit(copy / output, recorded, recorded + " (edited)")

    check = _generate(copy, "--check")
    assert check.returncode == 1, check.stdout + check.stderr
    for path in (str(RULE_TABLE), str(schema), str(title), str(output)):
        assert f"{path} is stale" in check.stdout, check.stdout
    assert "frontmatter-lost" in check.stdout and "(edited)" in check.stdout  # the diff summary
    assert "4 generated file(s) stale" in check.stdout

    assert _generate(copy).returncode == 0
    for path in (RULE_TABLE, schema, title, output):
        assert (copy / path).read_bytes() == (ROOT / path).read_bytes(), path
    assert _generate(copy, "--check").returncode == 0


def test_a_fix_without_its_words_is_an_error(tmp_path):
    copy = _copy_of_the_checkout(tmp_path)
    page = copy / "rulebook" / "SL003-frontmatter-missing" / "README.md"
    line = next(line for line in page.read_text(encoding="utf-8").split("\n") if line.startswith("Fix:"))
    _edit(page, line, "Fix: none")
    proc = _generate(copy, "--check")
    assert proc.returncode == 1
    assert "SL003-frontmatter-missing/README.md: the safe fix needs its words" in proc.stderr
