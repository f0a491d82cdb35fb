"""Links that lead nowhere: one finding each, from the rule that says what is wrong.

A linked SKILL.md whose target does not exist is SL403's (not SL405's "surfaces load that
file", not SL013's "cannot stat", not SL401's "leads outside"); one in a cycle of links is
SL404's. A link outside every skill folder that leads back to a folder holding it
(``plugins/x -> ..``) or into a cycle is met only by the search: it reports it as SL404.
"""

from __future__ import annotations

import os
from pathlib import Path

from conftest import lint_json, write_skill

SKILL = """---
name: {name}
description: Test skill for link checks. Use when testing skilllint.
---

# {name}
"""


def repo(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    return tmp_path


def found(tmp_path: Path, select: str = "SL0,SL4", *args: str) -> list[tuple[str, str]]:
    report = lint_json("--target", "agentskills,codex", "--select", select, *args, ".", cwd=tmp_path)
    return sorted((d["code"], d["path"]) for d in report["diagnostics"])


def test_skill_md_linked_to_a_missing_file_elsewhere_in_the_tree_is_one_sl403(tmp_path):
    root = repo(tmp_path)
    (root / "skills" / "deploy").mkdir(parents=True)
    os.symlink("../../shared/deploy/SKILL.md", root / "skills" / "deploy" / "SKILL.md")
    report = lint_json("--target", "agentskills,codex", "--select", "SL0,SL4", ".", cwd=root)["diagnostics"]
    assert [(d["code"], d["path"]) for d in report] == [("SL403", "skills/deploy/SKILL.md")]
    message = report[0]["message"]
    assert "`shared/deploy/SKILL.md` in the linted tree" in message and "does not exist" in message
    assert "load that file" not in message


def test_skill_md_linked_to_a_missing_file_in_its_folder_is_one_sl403(tmp_path):
    root = repo(tmp_path)
    (root / "skills" / "deploy").mkdir(parents=True)
    os.symlink("README.md", root / "skills" / "deploy" / "SKILL.md")
    assert found(root) == [("SL403", "skills/deploy/SKILL.md")]


def test_skill_md_in_a_cycle_of_links_is_sl404_alone(tmp_path):
    root = repo(tmp_path)
    for name, other in (("one", "two"), ("two", "one")):
        (root / "skills" / name).mkdir(parents=True)
        os.symlink(f"../{other}/SKILL.md", root / "skills" / name / "SKILL.md")
    assert found(root) == [("SL404", "skills/one/SKILL.md"), ("SL404", "skills/two/SKILL.md")]


def test_a_skill_md_link_that_resolves_is_still_sl405(tmp_path):
    root = repo(tmp_path)
    write_skill(root, "shared/deploy", SKILL.format(name="deploy"))
    (root / "skills" / "deploy").mkdir(parents=True)
    os.symlink("../../shared/deploy/SKILL.md", root / "skills" / "deploy" / "SKILL.md")
    codes = [c for c, p in found(root, "SL405") if p == "skills/deploy/SKILL.md"]
    assert codes == ["SL405"]


def test_a_plugin_folder_linking_to_its_parent_is_reported_by_the_search(tmp_path):
    root = repo(tmp_path)
    write_skill(root, "plugins/tools/skills/deploy", SKILL.format(name="deploy"))
    os.symlink("..", root / "plugins" / "tools" / "all-plugins")
    report = lint_json("--target", "agentskills", "--select", "SL404", ".", cwd=root)["diagnostics"]
    assert [(d["code"], d["path"], d["severity"]) for d in report] == [("SL404", "plugins/tools/all-plugins", "error")]
    assert "`plugins`, which holds the link itself" in report[0]["message"]


def test_a_cycle_of_links_outside_every_skill_is_reported_once_per_link(tmp_path):
    root = repo(tmp_path)
    write_skill(root, "skills/deploy", SKILL.format(name="deploy"))
    os.symlink("b", root / "a")
    os.symlink("a", root / "b")
    report = lint_json("--target", "agentskills", "--select", "SL404", ".", cwd=root)["diagnostics"]
    assert sorted(d["path"] for d in report) == ["a", "b"]


def test_an_endless_link_in_an_ignored_folder_or_not_selected_is_not_reported(tmp_path):
    root = repo(tmp_path)
    write_skill(root, "skills/deploy", SKILL.format(name="deploy"))
    (root / "build").mkdir()
    os.symlink("..", root / "build" / "up")
    (root / ".gitignore").write_text("build/\n")
    assert lint_json("--target", "agentskills", "--select", "SL404", ".", cwd=root)["diagnostics"] == []
    (root / ".gitignore").unlink()
    assert lint_json("--target", "agentskills", "--select", "SL403", ".", cwd=root)["diagnostics"] == []


def test_a_dangling_link_where_skills_are_looked_for_is_sl403(tmp_path):
    # `skills/release -> ../shared/release` with the folder moved away: the skill is not there
    # for any surface. Dangling links elsewhere outside skill folders are no skill's concern.
    root = repo(tmp_path)
    write_skill(root, "skills/deploy", SKILL.format(name="deploy"))
    os.symlink("../shared/release", root / "skills" / "release")
    (root / ".claude" / "skills").mkdir(parents=True)
    os.symlink("../../gone", root / ".claude" / "skills" / "notes")
    (root / "node_modules" / ".bin").mkdir(parents=True)
    os.symlink("../tool/cli.js", root / "node_modules" / ".bin" / "tool")
    (root / "docs").mkdir()
    os.symlink("old.md", root / "docs" / "guide.md")
    (root / "ignored" / "skills").mkdir(parents=True)
    os.symlink("../gone", root / "ignored" / "skills" / "x")
    (root / ".gitignore").write_text("ignored/\n")
    assert found(root) == [("SL403", ".claude/skills/notes"), ("SL403", "skills/release")]
    report = lint_json("--target", "agentskills", "--select", "SL403", ".", cwd=root)["diagnostics"]
    message = next(d["message"] for d in report if d["path"] == "skills/release")
    assert "`shared/release` in the linted tree" in message and "does not exist" in message
    assert found(root, "SL404") == []
