"""SL520 not-discoverable: skills below a surface's root that its discovery never reaches."""

from __future__ import annotations

import json
import os

from skilllint.rules import catalog_discovery
from skilllint.rules.catalog_discovery import CODEX_MAX_DIRS, codex_reached

from conftest import run_cli, write_skill

TEXT = "---\nname: {name}\ndescription: Does {name} things. Use when asked about {name}.\n---\n\n# {name}\n"


def skill(base, rel):
    name = rel.rstrip("/").split("/")[-1].lstrip(".") or "x"
    return write_skill(base, rel, TEXT.format(name=name))


def found(tmp_path, target="codex,opencode"):
    code, out, err = run_cli("check", str(tmp_path), "--select", "SL520", "--target", target, "--output-format", "json")
    assert code in (0, 1), err
    result = set()
    for diag in json.loads(out)["diagnostics"]:
        assert diag["code"] == "SL520" and diag["severity"] == "warning"
        rel = os.path.relpath(os.path.abspath(diag["path"]), tmp_path)
        for target_id in diag["targets"]:
            result.add((rel.removesuffix("/SKILL.md"), target_id))
    return result


def test_plain_skills_under_the_roots_are_found(tmp_path):
    for rel in (".agents/skills/a", ".codex/skills/b", ".opencode/skills/c", ".claude/skills/d", ".agents/skills/a1/b/c/d/e/f"):
        skill(tmp_path, rel)
    assert found(tmp_path) == set()


def test_dot_folder_below_the_root(tmp_path):
    skill(tmp_path, ".agents/skills/.drafts/notes")
    skill(tmp_path, ".codex/skills/.hidden")  # the skill folder itself
    skill(tmp_path, ".opencode/skills/.wip/x")
    assert found(tmp_path) == {
        (".agents/skills/.drafts/notes", "codex"),
        (".agents/skills/.drafts/notes", "opencode"),
        (".codex/skills/.hidden", "codex"),  # .codex/skills is not an opencode root
        (".opencode/skills/.wip/x", "opencode"),  # nor .opencode/skills a codex root
    }


def test_depth_counts_from_the_root(tmp_path):
    skill(tmp_path, ".agents/skills/a/b/c/d/e/f")  # depth 6: found
    skill(tmp_path, ".agents/skills/a/b/c/d/e/f/g")  # depth 7: missed by codex
    # f holds SKILL.md, so for opencode g is nested inside another skill
    assert found(tmp_path) == {(".agents/skills/a/b/c/d/e/f/g", "codex"), (".agents/skills/a/b/c/d/e/f/g", "opencode")}
    code, out, _ = run_cli("check", str(tmp_path), "--select", "SL520", "--target", "codex", "--output-format", "concise")
    assert "7 folders deep" in out and "depth 6" in out


def test_nested_skill_is_missed_by_opencode_only(tmp_path):
    skill(tmp_path, ".claude/skills/deploy")
    skill(tmp_path, ".claude/skills/deploy/rollback")
    skill(tmp_path, ".agents/skills/group/inner")  # group has no SKILL.md: fine
    assert found(tmp_path) == {(".claude/skills/deploy/rollback", "opencode")}


def test_node_modules_for_opencode(tmp_path):
    folder = skill(tmp_path, ".opencode/skills/node_modules/pkg")
    # the tree search skips node_modules; name the skill itself
    code, out, err = run_cli("check", str(folder), "--select", "SL520", "--target", "opencode,codex", "--output-format", "concise")
    assert "OpenCode never finds this skill" in out and "node_modules" in out
    assert "Codex" not in out


def test_outside_any_surface_root_is_not_judged(tmp_path):
    skill(tmp_path, "skills/.hidden/x")
    skill(tmp_path, ".github/skills/y")  # copilot's root, not codex's or opencode's
    skill(tmp_path, "skills/a/b/c/d/e/f/g/h")
    skill(tmp_path, "skills/outer")
    skill(tmp_path, "skills/outer/inner")
    assert found(tmp_path, "all") == set()


def test_github_below_a_codex_root_is_reported(tmp_path):
    skill(tmp_path, ".agents/skills/.github/skills/z")
    result = found(tmp_path, "codex")
    assert result == {(".agents/skills/.github/skills/z", "codex")}


def test_other_targets_are_not_judged(tmp_path):
    skill(tmp_path, ".agents/skills/.drafts/notes")
    assert found(tmp_path, "claude-code,copilot,agentskills") == set()


def test_folder_cap(tmp_path):
    root = tmp_path / ".agents" / "skills"
    filler = root / "aaa"
    for index in range(CODEX_MAX_DIRS):
        (filler / f"d{index:04}").mkdir(parents=True)
    skill(tmp_path, ".agents/skills/zzz/late")  # depth 2, after aaa's 2,000 folders in a breadth-first walk
    skill(tmp_path, ".agents/skills/aaa/d0000")  # early in the walk
    skill(tmp_path, ".agents/skills/zzz")  # depth 1: reached
    catalog_discovery.codex_reached.cache_clear()
    assert found(tmp_path, "codex") == {(".agents/skills/zzz/late", "codex")}
    code, out, _ = run_cli("check", str(tmp_path), "--select", "SL520", "--target", "codex", "--output-format", "concise")
    assert "may not find" in out and "2,000" in out


def test_walk_not_truncated_below_the_cap(tmp_path):
    for index in range(10):
        (tmp_path / f"d{index}").mkdir()
    (tmp_path / ".hidden").mkdir()
    catalog_discovery.codex_reached.cache_clear()
    assert codex_reached(str(tmp_path)) is None
