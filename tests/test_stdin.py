"""`skilllint check --stdin-filename PATH -`: standard input linted as the file PATH.

The text replaces PATH's content for every rule (SKILL.md, a references/ file, a new
file), the rest of the skill is read from disk, only PATH's findings are reported
under the path given, the result cache is neither read nor written, and `--fix`
prints the fixed text and writes nothing. Bad input is a clear message.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, run_cli, write_skill

GOOD = "---\nname: {name}\ndescription: Formats tables. Use when the user pastes a table.\n---\n# T\n\n{body}\n"
# a top-level `version` (SL122, a safe fix that moves it under `metadata`)
FIXABLE = "---\nname: a\ndescription: Formats tables. Use when the user pastes a table.\nversion: 1.0\n---\n# T\n"
FIXED = '---\nname: a\ndescription: Formats tables. Use when the user pastes a table.\nmetadata:\n  version: "1.0"\n---\n# T\n'


def run_stdin(data: bytes | str, *args: str, cwd: Path) -> tuple[int, str, str]:
    """``skilllint check *args`` in process with ``data`` on standard input."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    old = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8")
    try:
        return run_cli("check", *args, cwd=cwd)
    finally:
        sys.stdin = old


def diagnostics(data: bytes | str, path: str, cwd: Path, *args: str) -> list[dict]:
    code, out, err = run_stdin(data, "--output-format", "json", "--exit-zero", *args, "--stdin-filename", path, "-", cwd=cwd)
    assert code == 0, err
    return json.loads(out)["diagnostics"]


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else b"<dir>") for p in sorted(folder.rglob("*"))}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository with skills/a: SKILL.md (clean on disk) and references/x.md."""
    (tmp_path / ".git").mkdir()
    skill = write_skill(tmp_path, "skills/a", GOOD.format(name="a", body="Load [x](references/x.md) when the table is wide."))
    (skill / "references").mkdir()
    (skill / "references" / "x.md").write_text("# X\n\nWide tables.\n", encoding="utf-8")
    return tmp_path


# -- the text stands for the file ---------------------------------------------------------


def test_stdin_skill_md_links_resolve_against_the_skill_on_disk(repo):
    on_disk = diagnostics(GOOD.format(name="a", body="Load [x](references/x.md) when wide."), "skills/a/SKILL.md", repo)
    assert not [d for d in on_disk if d["code"] == "SL301"]
    missing = diagnostics(GOOD.format(name="a", body="Load [y](references/y.md) when wide."), "skills/a/SKILL.md", repo)
    sl301 = [d for d in missing if d["code"] == "SL301"]
    assert len(sl301) == 1 and "references/y.md" in sl301[0]["message"]
    assert sl301[0]["path"] == "skills/a/SKILL.md"  # the path given, relative to the working folder
    # the disk still holds the clean text: the finding came from standard input
    assert "references/y.md" not in (repo / "skills/a/SKILL.md").read_text(encoding="utf-8")


def test_output_names_the_path_as_given_from_another_folder(repo):
    (repo / "docs").mkdir()
    text = GOOD.format(name="a", body="Load [y](references/y.md) when wide.")
    code, out, err = run_stdin(text, "--output-format", "concise", "--stdin-filename", "../skills/a/SKILL.md", "-", cwd=repo / "docs")
    assert code == 1, err
    assert out.startswith("../skills/a/SKILL.md:7:"), out


def test_stdin_replaces_a_references_file_for_the_rules_that_read_it(repo):
    # x.md is clean on disk; standard input gives it a broken link, reported on x.md.
    found = diagnostics("# X\n\nSee [gone](gone.md).\n", "skills/a/references/x.md", repo)
    assert [(d["code"], d["path"]) for d in found] == [("SL301", "skills/a/references/x.md")], found


def test_only_the_findings_on_the_given_file_are_reported(repo):
    # SKILL.md on disk has a finding (SL122); standard input stands for x.md, which is clean.
    (repo / "skills/a/SKILL.md").write_text(FIXABLE.replace("# T\n", "# T\n\nLoad [x](references/x.md) when wide.\n"), encoding="utf-8")
    assert diagnostics("# X\n\nWide tables.\n", "skills/a/references/x.md", repo) == []
    whole = json.loads(run_cli("check", "--output-format", "json", "--exit-zero", "skills/a/references/x.md", cwd=repo)[1])
    assert {d["code"] for d in whole["diagnostics"]} == {"SL122"}  # a file argument reports its whole skill


def test_a_new_skill_md_that_is_not_on_disk(repo):
    before = snapshot(repo)
    found = diagnostics(FIXABLE.replace("name: a", "name: b"), "skills/b/SKILL.md", repo)
    # its own finding, and the catalog's: it joins skills/ beside `a`, with a's description
    assert sorted((d["code"], d["path"]) for d in found) == [("SL122", "skills/b/SKILL.md"), ("SL510", "skills/b/SKILL.md")]
    assert snapshot(repo) == before  # nothing written, no folder made


def test_a_new_references_file_in_a_new_folder_is_part_of_the_skill(repo):
    # SKILL.md on disk links references/new/y.md, which is not on disk: standard input is it,
    # so it is found, and its own broken link is reported on it.
    (repo / "skills/a/SKILL.md").write_text(GOOD.format(name="a", body="Load [y](references/new/y.md) when wide.\nLoad [x](references/x.md) when wide."), encoding="utf-8")
    found = diagnostics("# Y\n\nSee [gone](gone.md).\n", "skills/a/references/new/y.md", repo)
    assert [(d["code"], d["path"]) for d in found] == [("SL301", "skills/a/references/new/y.md")], found
    assert not (repo / "skills/a/references/new").exists()


def test_a_script_given_on_standard_input_is_read_for_the_script_rules(repo):
    # An empty script on disk is not read (nothing to check); standard input's text is.
    scripts = repo / "skills/a/scripts"
    scripts.mkdir()
    (scripts / "run.py").write_text("", encoding="utf-8")
    (repo / "skills/a/SKILL.md").write_text(GOOD.format(name="a", body="Run `python scripts/run.py` to format."), encoding="utf-8")
    assert diagnostics("", "skills/a/scripts/run.py", repo) == []
    found = diagnostics("name = input('Name? ')\n", "skills/a/scripts/run.py", repo)
    assert [(d["code"], d["path"]) for d in found] == [("SL701", "skills/a/scripts/run.py")], found


def test_non_utf8_stdin_is_the_diagnostic_of_a_non_utf8_file(repo):
    data = b"---\nname: a\ndescription: Formats tables\xff. Use when the user pastes one.\n---\n# T\n"
    from_stdin = diagnostics(data, "skills/a/SKILL.md", repo)
    (repo / "skills/a/SKILL.md").write_bytes(data)
    from_disk = json.loads(run_cli("check", "--output-format", "json", "--exit-zero", "skills/a", cwd=repo)[1])["diagnostics"]
    assert from_stdin == from_disk and any(d["code"] == "SL009" for d in from_stdin)


def test_the_result_cache_is_neither_read_nor_written(repo):
    assert run_cli("check", ".", cwd=repo)[0] == 0  # a warm cache at the repository root
    cache = repo / ".skilllint_cache"
    assert cache.is_dir()
    before = snapshot(cache)
    found = diagnostics(FIXABLE, "skills/a/SKILL.md", repo)
    assert [d["code"] for d in found] == ["SL122"]  # not the cached (clean) result of the file on disk
    assert snapshot(cache) == before


def test_the_configuration_applies(repo):
    (repo / "skilllint.toml").write_text('ignore = ["SL122"]\n', encoding="utf-8")
    assert diagnostics(FIXABLE, "skills/a/SKILL.md", repo) == []


# -- --fix and --diff ------------------------------------------------------------------------


def test_fix_prints_the_fixed_text_and_writes_nothing(repo):
    before = snapshot(repo)
    code, out, err = run_stdin(FIXABLE, "--fix", "--stdin-filename", "skills/a/SKILL.md", "-", cwd=repo)
    assert code == 0, err
    assert out == FIXED  # standard output carries the text alone
    assert "Fixed 1 problem" in err
    assert snapshot(repo) == before


def test_fix_without_a_fix_prints_the_text_unchanged(repo):
    text = GOOD.format(name="a", body="Load [y](references/y.md) when wide.")  # SL301: no fix
    code, out, err = run_stdin(text, "--fix", "--stdin-filename", "skills/a/SKILL.md", "-", cwd=repo)
    assert code == 1 and out == text and "SL301" in err
    code, out, err = run_stdin(text, "--fix", "--stdin-filename", "notes/n.md", "-", cwd=repo)  # in no skill
    assert code == 0 and out == text


def test_fix_of_a_new_file_creates_nothing(repo):
    before = snapshot(repo)
    code, out, err = run_stdin(FIXABLE.replace("name: a", "name: c"), "--fix", "--stdin-filename", "skills/c/SKILL.md", "-", cwd=repo)
    assert code == 0, err
    assert out == FIXED.replace("name: a", "name: c")
    assert snapshot(repo) == before


def test_diff_shows_the_fix_of_standard_input(repo):
    before = snapshot(repo)
    code, out, err = run_stdin(FIXABLE, "--diff", "--stdin-filename", "skills/a/SKILL.md", "-", cwd=repo)
    assert code == 1, err
    assert "--- a/skills/a/SKILL.md" in out and '+  version: "1.0"' in out
    assert snapshot(repo) == before


# -- bad input ---------------------------------------------------------------------------------


def test_dash_without_stdin_filename_is_a_usage_error(repo):
    code, out, err = run_stdin("x", "-", cwd=repo)
    assert code == 2 and out == ""
    assert "--stdin-filename" in err and "Traceback" not in err


def test_stdin_with_other_paths_is_a_usage_error(repo):
    code, _, err = run_stdin("x", "--stdin-filename", "skills/a/SKILL.md", "-", "skills", cwd=repo)
    assert code == 2 and "alone" in err


def test_stdin_filename_naming_a_folder_is_a_usage_error(repo):
    code, _, err = run_stdin("x", "--stdin-filename", "skills/a", "-", cwd=repo)
    assert code == 2 and "folder" in err


def test_stdin_filename_in_no_skill_behaves_as_such_a_file_argument(repo):
    (repo / "notes").mkdir()
    (repo / "notes/n.md").write_text("# N\n", encoding="utf-8")
    as_file = run_cli("check", "notes/n.md", cwd=repo)
    as_stdin = run_stdin("# N\n", "--stdin-filename", "notes/n.md", "-", cwd=repo)
    assert as_stdin == as_file
    assert as_stdin[0] == 0 and "not inside a skill folder" in as_stdin[2]
    new = run_stdin("# N\n", "--stdin-filename", "notes/new.md", "-", cwd=repo)  # not on disk either
    assert new[0] == 0 and "notes/new.md: not inside a skill folder" in new[2]


# -- end to end --------------------------------------------------------------------------------


def _command(*args: str, data: bytes, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "skilllint", *args], input=data, cwd=cwd, env=env, capture_output=True, timeout=120)


@pytest.mark.e2e
def test_a_pipe_through_the_command_keeps_the_bytes(repo):
    """As an editor runs it: `--fix` gives back the fixed text byte for byte (CRLF kept
    where SL008's fix, which makes it LF, is not selected)."""
    crlf = FIXABLE.replace("\n", "\r\n").encode("utf-8")
    done = _command("check", "--fix", "--ignore", "SL008", "--stdin-filename", "skills/a/SKILL.md", "-", data=crlf, cwd=repo)
    assert done.returncode == 0, done.stderr
    assert done.stdout == FIXED.replace("\n", "\r\n").encode("utf-8")
    bad = b"---\nname: a\ndescription: Tables\xff. Use when one is pasted.\n---\n"
    done = _command("check", "--fix", "--stdin-filename", "skills/a/SKILL.md", "-", data=bad, cwd=repo)
    assert done.stdout == bad and b"SL009" in done.stderr  # not valid UTF-8: given back as it came
    done = _command("check", "--output-format", "concise", "--stdin-filename", "skills/a/SKILL.md", "-", data=FIXABLE.encode(), cwd=repo)
    assert done.returncode == 0 and done.stdout.startswith(b"skills/a/SKILL.md:4:1: warning: [*] top-level `version`")
