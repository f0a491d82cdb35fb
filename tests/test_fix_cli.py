"""`skilllint check --fix / --unsafe-fixes / --diff`: what is written, what never is.

Writing is atomic and keeps the file mode and line endings; a symbolic link,
a file outside the linted tree, a file over the size cap or one that changed
meanwhile is never written; fixes loop until none applies (bounded); `--diff`
writes nothing. The corpus test runs `--fix` twice over a copy of
../shared/corpus. The pre-commit test runs the `skilllint-fix` hook's entry.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import stat
from collections import Counter
from pathlib import Path

import jsonschema
import pytest

from skilllint.app import fixes
from skilllint.config.settings import load_settings
from skilllint.diagnostics import Finding, Fix, Span
from skilllint.edits import FixError, LineIndex, edit
from skilllint.app.fixes import fix_paths, refusal, write_atomic
from skilllint.registry import Registry, Rule, registry, severities

from conftest import ROOT, run_cli, write_skill

SCHEMA = json.loads((ROOT / "skilllint" / "schemas" / "output.schema.json").read_text(encoding="utf-8"))

# A realistic broken skill: an unquoted `: ` (SL005) hides everything else until it is fixed;
# then top-level version (SL122), list-form allowed-tools (SL125), a name that differs from
# the folder only in case (SL106, unsafe).
BROKEN = (
    "---\n"
    "# Owned by the forms team.\n"
    "name: Release-Notes   # display name\n"
    "description: Drafts release notes. Use when: the user asks for a changelog\n"
    "version: 0.4.0  # bump with the plugin\n"
    "allowed-tools:\n"
    "  - Read\n"
    "  - Bash(git:*)\n"
    "---\n"
    "# Release notes\n\nRun `git log --oneline` since the last tag and group the commits.\n"
)
SAFE = (
    "---\n"
    "# Owned by the forms team.\n"
    "name: Release-Notes   # display name\n"
    'description: "Drafts release notes. Use when: the user asks for a changelog"\n'
    "metadata:\n"
    '  version: "0.4.0"  # bump with the plugin\n'
    "allowed-tools: Read Bash(git:*)\n"
    "---\n"
    "# Release notes\n\nRun `git log --oneline` since the last tag and group the commits.\n"
)
UNSAFE = SAFE.replace("name: Release-Notes ", "name: release-notes ")


@pytest.fixture
def skill(tmp_path: Path) -> Path:
    return write_skill(tmp_path, "release-notes", BROKEN)


def snapshot(root: Path) -> dict[str, tuple[bytes, int, int]]:
    """Every file under ``root``: content, mode and mtime."""
    out = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_symlink():
            info = path.stat()
            out[str(path.relative_to(root))] = (path.read_bytes(), info.st_mode, info.st_mtime_ns)
    return out


# -- --fix ---------------------------------------------------------------------------------------


def test_fix_applies_safe_fixes_reports_what_remains_and_settles(skill, tmp_path):
    code, out, err = run_cli("check", "--fix", "release-notes", cwd=tmp_path)
    assert (skill / "SKILL.md").read_text(encoding="utf-8") == SAFE
    assert "Fixed 3 problems." in out
    # What remains is printed: SL104/SL106 on the name, with their unsafe fix shown as available.
    assert "warning[SL106] `name` 'Release-Notes'" in out and "error[SL104] `name`" in out and "[SL122]" not in out
    assert "2 fixes available with `--fix --unsafe-fixes`." in out
    assert code == 1  # SL104 (an error) remains
    before = snapshot(tmp_path)
    code, out, _ = run_cli("check", "--fix", "release-notes", cwd=tmp_path)
    assert snapshot(tmp_path) == before, "a second --fix changes nothing"
    assert "Fixed" not in out


def test_unsafe_fixes_with_fix(skill, tmp_path):
    code, out, err = run_cli("check", "--fix", "--unsafe-fixes", "release-notes", cwd=tmp_path)
    assert (skill / "SKILL.md").read_text(encoding="utf-8") == UNSAFE
    assert code == 0 and "Fixed 5 problems." in out and "All checks passed" in out


def test_unsafe_fixes_alone_only_marks_them(skill, tmp_path):
    (skill / "SKILL.md").write_text(SAFE, encoding="utf-8")
    before = snapshot(tmp_path)
    _, plain, _ = run_cli("check", "--output-format", "concise", "release-notes", cwd=tmp_path)
    code, marked, _ = run_cli("check", "--output-format", "concise", "--unsafe-fixes", "release-notes", cwd=tmp_path)
    assert snapshot(tmp_path) == before
    assert "[*]" not in plain
    assert [line for line in marked.splitlines() if "[*]" in line] == [
        line.replace(": `name`", ": [*] `name`") for line in plain.splitlines()
    ]


def test_fix_output_in_other_formats(skill, tmp_path):
    code, out, err = run_cli("check", "--fix", "--output-format", "json", "release-notes", cwd=tmp_path)
    report = json.loads(out)
    jsonschema.Draft202012Validator(SCHEMA).validate(report)
    assert "Fixed 3 problems (SL005, SL122, SL125)." in err
    remaining = {d["code"]: d["fix"] for d in report["diagnostics"]}
    assert set(remaining) == {"SL104", "SL106"}
    for fix in remaining.values():  # the same fix for both: `name` -> the folder name
        assert fix["applicability"] == "unsafe"
        assert fix["edits"] == [
            # narrowed to what changes: "Release-N" -> "release-n"
            {"path": "release-notes/SKILL.md", "line": 3, "column": 7, "end_line": 3, "end_column": 16, "content": "release-n"}
        ]


def test_fix_keeps_the_file_mode(skill, tmp_path):
    path = skill / "SKILL.md"
    os.chmod(path, 0o751)
    run_cli("check", "--fix", "release-notes", cwd=tmp_path)
    assert path.read_text(encoding="utf-8") == SAFE
    assert stat.S_IMODE(path.stat().st_mode) == 0o751
    assert [p.name for p in skill.iterdir()] == ["SKILL.md"], "no temporary file is left behind"


def test_fix_keeps_crlf_line_endings_and_a_bom_when_not_selected(tmp_path):
    skill = write_skill(tmp_path, "release-notes", BROKEN.replace("\n", "\r\n").encode())
    run_cli("check", "--fix", "--ignore", "SL008", "release-notes", cwd=tmp_path)
    assert (skill / "SKILL.md").read_bytes() == SAFE.replace("\n", "\r\n").encode()
    run_cli("check", "--fix", "release-notes", cwd=tmp_path)  # now SL008 too: LF
    assert (skill / "SKILL.md").read_bytes() == SAFE.encode()


def test_fix_keeps_cr_only_line_endings(tmp_path):
    skill = write_skill(tmp_path, "release-notes", BROKEN.replace("\n", "\r").encode())
    code, out, err = run_cli("check", "--fix", "--output-format", "concise", "release-notes", cwd=tmp_path)
    assert "Fixed 3 problems" in err
    assert (skill / "SKILL.md").read_bytes() == SAFE.replace("\n", "\r").encode()


# A file of mixed line endings: CR the most common (7), then CRLF (3), then LF (2).
MIXED_ENDINGS = ["\n", "\r\n", "\r", "\r", "\r\n", "\r", "\r", "\r", "\n", "\r\n", "\r", "\r"]


def test_fix_in_a_file_of_mixed_line_endings_writes_the_most_common_one(tmp_path):
    """The lines a fix writes end in the file's most common line ending; the lines it
    leaves alone keep theirs."""
    lines = BROKEN.split("\n")[:-1]
    assert len(lines) == len(MIXED_ENDINGS)
    skill = write_skill(tmp_path, "release-notes", "".join(l + e for l, e in zip(lines, MIXED_ENDINGS)).encode())
    run_cli("check", "--fix", "--ignore", "SL008", "release-notes", cwd=tmp_path)
    kept = dict(zip(lines, MIXED_ENDINGS))  # the unchanged lines are unique in this text
    expected = "".join(line + kept.get(line, "\r") for line in SAFE.split("\n")[:-1])
    assert (skill / "SKILL.md").read_bytes() == expected.encode()


def test_the_most_common_line_ending_of_a_file():
    from skilllint.skill.text.frontmatter import SourceText

    for text, ending in [
        ("a\rb\rc\r", "\r"),
        ("a\r\nb\r\nc\n", "\r\n"),
        ("a\r\nb\nc\rd\n", "\n"),
        ("a\r\nb\rc\n", "\r\n"),  # a tie goes to CRLF, then LF
        ("a\rb\n", "\n"),
        ("no line break", "\n"),
    ]:
        assert SourceText.from_text(text).line_ending == ending, text


def _refuse_temporary_files_in(monkeypatch, folder: Path) -> None:
    """The folder is read-only: creating the temporary file of an atomic write fails there."""
    from skilllint.safewrite import SafeFolder

    real_write = SafeFolder.write_atomic

    def write_atomic(self, name, *args, **kwargs):
        if Path(self.path) == folder:
            raise PermissionError(13, "Permission denied", os.path.join(self.path, name))
        return real_write(self, name, *args, **kwargs)

    monkeypatch.setattr(SafeFolder, "write_atomic", write_atomic)


def test_a_fix_that_cannot_be_written_is_not_counted_and_is_an_error(tmp_path, monkeypatch):
    version_only = "---\nname: {name}\ndescription: Drafts notes for {name}. Use when asked.\nversion: 0.4.0\n---\n# {name}\n"
    write_skill(tmp_path, "one", version_only.format(name="one"))
    locked = write_skill(tmp_path, "two", version_only.format(name="two"))
    _refuse_temporary_files_in(monkeypatch, locked)
    code, out, err = run_cli("check", "--fix", ".", cwd=tmp_path)
    assert code == 2
    assert "Fixed 1 problem." in out and "Fixed 2" not in out
    assert "skilllint: error: cannot write two/SKILL.md: Permission denied (1 problem left unfixed)" in err
    assert "version: 0.4.0" in (locked / "SKILL.md").read_text(encoding="utf-8")
    assert "two/SKILL.md:4:1: warning[SL122]" in out  # linted again: what is on disk is reported
    write_skill(tmp_path, "one", version_only.format(name="one"))
    code, out, err = run_cli("check", "--fix", "--output-format", "json", ".", cwd=tmp_path)
    assert code == 2 and "Fixed 1 problem (SL122)." in err
    run = fix_paths(["."], load_settings(registry(), tmp_path, None, {}), tmp_path)
    assert run.total == 0 and run.not_written == Counter({locked / "SKILL.md": 1}) and not run.written


# -- --diff --------------------------------------------------------------------------------------


def test_diff_prints_a_unified_diff_and_writes_nothing(skill, tmp_path):
    before = snapshot(tmp_path)
    code, out, err = run_cli("check", "--diff", "release-notes", cwd=tmp_path)
    assert code == 1
    assert snapshot(tmp_path) == before
    assert out.startswith("--- a/release-notes/SKILL.md\n+++ b/release-notes/SKILL.md\n@@ ")
    removed = [line[1:] for line in out.splitlines() if line.startswith("-") and not line.startswith("---")]
    added = [line[1:] for line in out.splitlines() if line.startswith("+") and not line.startswith("+++")]
    assert removed == [
        "description: Drafts release notes. Use when: the user asks for a changelog",
        "version: 0.4.0  # bump with the plugin",
        "allowed-tools:",
        "  - Read",
        "  - Bash(git:*)",
    ]
    assert added == [
        'description: "Drafts release notes. Use when: the user asks for a changelog"',
        "metadata:",
        '  version: "0.4.0"  # bump with the plugin',
        "allowed-tools: Read Bash(git:*)",
    ]
    assert "Would fix 3 problems in 1 file." in err
    code, out, _ = run_cli("check", "--diff", "--unsafe-fixes", "release-notes", cwd=tmp_path)
    assert code == 1 and "+name: release-notes   # display name" in out
    assert snapshot(tmp_path) == before


def test_diff_with_nothing_to_fix_exits_zero(tmp_path):
    write_skill(tmp_path, "release-notes", UNSAFE)
    code, out, err = run_cli("check", "--diff", "release-notes", cwd=tmp_path)
    assert (code, out) == (0, "") and "No fixes available." in err


# -- what is never written -----------------------------------------------------------------------


def test_a_symlinked_skill_md_is_never_written(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "notes.md").write_text(BROKEN, encoding="utf-8")
    skill = tmp_path / "release-notes"
    skill.mkdir()
    (skill / "SKILL.md").symlink_to("../shared/notes.md")
    code, out, err = run_cli("check", "--fix", ".", cwd=tmp_path)
    assert "not fixed: release-notes/SKILL.md is a symbolic link" in err
    assert (shared / "notes.md").read_text(encoding="utf-8") == BROKEN
    assert (skill / "SKILL.md").is_symlink()
    code, out, err = run_cli("check", "--diff", ".", cwd=tmp_path)
    assert code == 0 and out == ""


def test_refusal_outside_the_linted_tree_and_through_links(tmp_path):
    inside, outside = tmp_path / "tree", tmp_path / "elsewhere"
    inside.mkdir(), outside.mkdir()
    (outside / "x.md").write_text("x", encoding="utf-8")
    (inside / "y.md").write_text("y", encoding="utf-8")
    (inside / "link.md").symlink_to(outside / "x.md")
    (inside / "dir").symlink_to(outside)
    assert refusal(inside / "y.md", [inside]) is None
    assert "outside the linted tree" in refusal(outside / "x.md", [inside])
    assert "symbolic link" in refusal(inside / "link.md", [inside])
    assert "outside the linted tree" in refusal(inside / "dir" / "x.md", [inside])  # through a linked folder
    with pytest.raises(FixError):
        write_atomic(outside / "x.md", b"changed", b"x", [inside])
    assert (outside / "x.md").read_text(encoding="utf-8") == "x"


def test_a_file_changed_meanwhile_is_not_written(tmp_path):
    path = tmp_path / "SKILL.md"
    path.write_text("new content", encoding="utf-8")
    with pytest.raises(FixError, match="changed on disk"):
        write_atomic(path, b"fixed", b"old content", [tmp_path])
    assert path.read_text(encoding="utf-8") == "new content"
    write_atomic(path, b"fixed", b"new content", [tmp_path])
    assert path.read_text(encoding="utf-8") == "fixed"


def test_a_file_over_the_size_cap_is_not_fixed(tmp_path):
    write_skill(tmp_path, "release-notes", BROKEN + "x" * 3000)
    (tmp_path / "skilllint.toml").write_text("[rules.SL011]\nmax-bytes = 1024\n", encoding="utf-8")
    before = snapshot(tmp_path)
    code, out, err = run_cli("check", "--fix", "release-notes", cwd=tmp_path)
    assert snapshot(tmp_path) == before
    # Only the first 1,024 bytes were read: no fix is offered on a partial text.
    assert code == 1 and "error[SL011]" in out and "error[SL005]" in out and "[*]" not in out and "Fixed" not in out


# -- the loop ------------------------------------------------------------------------------------


def _fake_rule(make_fixes):
    class Fake(Rule):
        code = "XT001"
        name = "fake"
        summary = "a rule whose fixes the test controls"
        severity = severities("error: all")
        fixable = "safe"

        def check(self, package, ctx):
            text = package.raw.decode("utf-8")
            for fix in make_fixes(package, LineIndex(text)):
                yield Finding("fake problem", Span(1, 1, 1, 1), fix=fix)

    reg = Registry()
    reg.add(Fake)
    return reg


def test_overlapping_fixes_wait_for_the_next_pass(tmp_path):
    skill = write_skill(tmp_path, "s", "---\nname: s\n---\nabc\n")

    def make(package, index):
        text = index.text
        if "abc" not in text:
            return
        at = text.index("abc")
        yield Fix("upper a-b", "safe", (edit(package.skill_md_path, index, at, at + 2, "AB"),))
        yield Fix("upper b-c", "safe", (edit(package.skill_md_path, index, at + 1, at + 3, "BC"),))

    settings = load_settings(_fake_rule(make), tmp_path, None, {"targets": ["agentskills"]})
    run = fix_paths(["s"], settings, tmp_path)
    # Pass 1 applies a-b; b-c overlaps and waits; in pass 2 "abc" is gone, so no fix is left.
    assert (skill / "SKILL.md").read_text() == "---\nname: s\n---\nABc\n"
    assert run.passes == 1 and run.converged and run.fixed == Counter({"XT001": 1})


def test_the_loop_is_bounded(tmp_path):
    skill = write_skill(tmp_path, "s", "---\nname: s\n---\nx\n")

    def make(package, index):  # never settles: always one more x
        end = len(index.text)
        yield Fix("add x", "safe", (edit(package.skill_md_path, index, end, end, "x"),))

    settings = load_settings(_fake_rule(make), tmp_path, None, {"targets": ["agentskills"]})
    run = fix_paths(["s"], settings, tmp_path, max_passes=3)
    assert not run.converged and run.passes == 3
    assert (skill / "SKILL.md").read_text() == "---\nname: s\n---\nx\nxxx"


def test_a_fix_that_changes_nothing_is_not_counted(tmp_path):
    write_skill(tmp_path, "s", "---\nname: s\n---\nx\n")

    def make(package, index):
        yield Fix("no-op", "safe", (edit(package.skill_md_path, index, 0, 3, "---", trim=False),))

    settings = load_settings(_fake_rule(make), tmp_path, None, {"targets": ["agentskills"]})
    run = fix_paths(["s"], settings, tmp_path)
    assert run.total == 0 and not run.changed and run.converged


def test_a_fix_outside_the_linted_tree_is_refused(tmp_path):
    outside = tmp_path / "outside.md"
    outside.write_text("keep me\n", encoding="utf-8")
    write_skill(tmp_path / "tree", "s", "---\nname: s\n---\nx\n")

    def make(package, index):
        other = LineIndex(outside.read_text(encoding="utf-8"))
        yield Fix("reach out", "safe", (edit(outside, other, 0, 4, "lost"),))

    settings = load_settings(_fake_rule(make), tmp_path / "tree", None, {"targets": ["agentskills"]})
    run = fix_paths(["."], settings, tmp_path / "tree")
    assert outside.read_text(encoding="utf-8") == "keep me\n"
    assert "outside the linted tree" in run.refused[outside] and run.total == 0


def test_a_fix_on_a_file_read_only_in_part_is_refused(tmp_path):
    from skilllint.rules.fields.sl01x_parsing import FileTooLarge

    skill = write_skill(tmp_path, "s", "---\nname: s\n---\n" + "x" * 3000)
    (tmp_path / "skilllint.toml").write_text("[rules.SL011]\nmax-bytes = 1024\n", encoding="utf-8")

    def make(package, index):  # a careless plugin: a fix computed from the first 1,024 bytes
        yield Fix("rewrite", "safe", (edit(package.skill_md_path, index, 0, len(index.text), "---\nname: s\n---\n"),))

    reg = _fake_rule(make)
    reg.add(FileTooLarge)
    run = fix_paths(["s"], load_settings(reg, tmp_path, None, {"targets": ["agentskills"]}), tmp_path)
    assert "larger than the size cap" in run.refused[skill / "SKILL.md"] and run.total == 0
    assert (skill / "SKILL.md").stat().st_size == 3016


# -- the pre-commit hook -------------------------------------------------------------------------


def _hook_entry() -> str:
    """The `skilllint-fix` hook's entry from .pre-commit-hooks.yaml, else the documented one."""
    hooks_file = ROOT / ".pre-commit-hooks.yaml"
    if hooks_file.is_file():
        import yaml

        hooks = {h["id"]: h for h in yaml.safe_load(hooks_file.read_text(encoding="utf-8")) or []}
        if "skilllint-fix" in hooks:
            return hooks["skilllint-fix"]["entry"]
    return "skilllint check --fix"


def test_the_skilllint_fix_hook_fixes_a_broken_skill(skill, tmp_path):
    words = shlex.split(_hook_entry())
    assert words[0] == "skilllint" and "--fix" in words
    # pre-commit appends the changed files to the entry.
    code, out, err = run_cli(*words[1:], "release-notes/SKILL.md", cwd=tmp_path)
    assert (skill / "SKILL.md").read_text(encoding="utf-8") == SAFE
    assert code == 1  # SL104 remains: pre-commit fails the hook, as it does for any change it made
    code, _, _ = run_cli(*words[1:], "release-notes/SKILL.md", cwd=tmp_path)
    assert (skill / "SKILL.md").read_text(encoding="utf-8") == SAFE


# -- the real corpus -----------------------------------------------------------------------------


def _parsed_by(path: Path) -> set[str]:
    """The targets whose parser reads ``path``'s frontmatter as a mapping."""
    from skilllint.skill.package import SkillPackage
    from skilllint.targets import TARGETS

    package = SkillPackage(path.parent)
    return {t.id for t in TARGETS.values() if package.view(t).mapping is not None}


@pytest.mark.parametrize("unsafe", [False, True], ids=["fix", "unsafe-fixes"])
def test_fix_twice_over_a_copy_of_the_corpus(corpus, tmp_path, unsafe):
    copy = tmp_path / "corpus"
    shutil.copytree(corpus, copy, symlinks=True)
    reg = registry()
    settings = load_settings(reg, copy, None, {"targets": ["all"], "ignore": ["SL5"]})
    before = snapshot(copy)
    run = fix_paths(["."], settings, copy, unsafe=unsafe)
    assert run.converged and not run.write_errors and not run.result.internal_errors
    after = snapshot(copy)
    changed = [rel for rel in after if after[rel][0] != before[rel][0]]
    assert sorted(changed) == sorted(str(p.relative_to(copy)) for p in run.written)
    assert len(changed) >= 10 and set(after) == set(before)
    for rel in changed:
        assert after[rel][1] == before[rel][1]  # mode kept
        after[rel][0].decode("utf-8")
        if rel.endswith("SKILL.md"):  # every parser that read the frontmatter still does
            assert _parsed_by(corpus / rel) <= _parsed_by(copy / rel), rel
    # No finding that a fix claimed to fix remains, and nothing fixable is left.
    remaining = {(d.code, str(d.path), d.message) for d in run.result.diagnostics}
    assert not [d for d in run.applied if (d.code, str(d.path), d.message) in remaining]
    assert not [d for d in run.result.diagnostics if fixes.applicable(d.fix, unsafe)]
    second = fix_paths(["."], load_settings(reg, copy, None, {"targets": ["all"], "ignore": ["SL5"]}), copy, unsafe=unsafe)
    assert second.total == 0 and not second.changed and snapshot(copy) == after
    print(f"\ncorpus --fix{' --unsafe-fixes' if unsafe else ''}: {len(changed)} files changed; {dict(sorted(run.fixed.items()))}")
