"""Which skills a surface really lists together, and one finding per problem.

SL510 and SL511 judge a catalog: the set one surface loads at once. A pair in
``.agents/skills`` sits in Codex's catalog (every ``.agents/skills`` of the
repository) and in agentskills' (the folder): the same problem, one finding
that lists both targets.
"""

from __future__ import annotations

import json
from pathlib import Path

from conftest import lint_json, write_skill

SKILL = """---
name: {name}
description: {description}
---

# {name}
"""


def repo(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    return tmp_path


def skill(root: Path, folder: str, name: str | None = None, description: str | None = None) -> None:
    name = name or Path(folder).name
    description = description or f"Handles the {Path(folder).name} task end to end. Use when asked about {Path(folder).name}."
    write_skill(root, folder, SKILL.format(name=name, description=description))


def findings(root: Path, *args: str, select: str = "SL510,SL511") -> list[dict]:
    return lint_json("--select", select, *args, ".", cwd=root)["diagnostics"]


def test_a_pair_in_agents_skills_is_one_finding_listing_both_targets(tmp_path):
    # One problem, one finding: the clash of names (SL511) on the first of the pair by path, and no
    # SL510 besides, though the descriptions are the same too (same-named skills are one clash).
    root = repo(tmp_path)
    same = "Deploys the web app to staging or production. Use when the user asks to deploy."
    skill(root, ".agents/skills/deploy", "deploy", same)
    skill(root, ".agents/skills/deploy-web", "deploy", same)
    (root / ".agents/skills/deploy-web/SKILL.md").write_text(SKILL.format(name="deploy", description=same) + "\nFor the web app.\n")
    found = findings(root, "--target", "codex,agentskills")
    keys = sorted((d["code"], d["path"]) for d in found)
    assert keys == [("SL511", ".agents/skills/deploy-web/SKILL.md")], json.dumps(found, indent=1)
    for finding in found:
        assert sorted(finding["targets"]) == ["agentskills", "codex"], finding
    duplicate = next(d for d in found if d["code"] == "SL511")
    assert duplicate["severity"] == "error"  # Codex's: `$deploy` mentions select neither
    assert "Codex lists both" in duplicate["message"] and "which one is not defined" in duplicate["message"]


def test_every_target_on_one_collection_gives_one_finding(tmp_path):
    root = repo(tmp_path)
    skill(root, "skills/deploy", "deploy")
    skill(root, "skills/deploy-docs", "deploy")
    found = findings(root, "--target", "all", select="SL511")
    assert [d["path"] for d in found] == ["skills/deploy-docs/SKILL.md"]
    assert len(found[0]["targets"]) > 5


# -- what a surface loads together ---------------------------------------------------


def plugin(root: Path, folder: str, manifest: str = '{"name": "%s"}', kind: str = ".claude-plugin") -> None:
    (root / folder / kind).mkdir(parents=True)
    (root / folder / kind / "plugin.json").write_text(manifest.replace("%s", Path(folder).name))


def duplicates(root: Path, targets: str = "claude-code,codex,agentskills") -> list[tuple[str, tuple[str, ...]]]:
    found = findings(root, "--target", targets, select="SL511")
    return sorted((d["path"], tuple(sorted(d["targets"]))) for d in found)


def test_same_named_skills_of_two_plugins_are_never_one_catalog(tmp_path):
    # A marketplace checked out as `skills/` (trailofbits/skills, getsentry/skills): every plugin
    # folder sits under one outer `skills` folder, yet each plugin is installed and namespaced alone.
    root = repo(tmp_path) / "skills"
    for name in ("sales", "partner"):
        plugin(root, f"plugins/{name}")
        skill(root, f"plugins/{name}/skills/call-prep", "call-prep")
    assert duplicates(root) == []
    plugin(root, "plugins/codex-only", kind=".codex-plugin")
    skill(root, "plugins/codex-only/skills/call-prep", "call-prep")
    assert duplicates(root) == []


def test_a_folder_the_plugin_does_not_load_is_in_no_catalog_but_a_declared_one_is(tmp_path):
    root = repo(tmp_path)
    plugin(root, "plugins/ops", '{"name": "ops", "skills": ["./extra/"]}')
    skill(root, "plugins/ops/skills/deploy", "deploy")
    skill(root, "plugins/ops/drafts/deploy", "deploy")  # listed nowhere: no surface loads it
    assert duplicates(root) == []
    skill(root, "plugins/ops/extra/deploy-v2", "deploy")  # `skills` adds ./extra/ to the default skills/
    assert duplicates(root) == [("plugins/ops/extra/deploy-v2/SKILL.md", ("agentskills", "claude-code", "codex"))]


def test_a_manifest_path_naming_a_skill_folder_loads_that_skill_alone(tmp_path):
    root = repo(tmp_path)
    plugin(root, "plugins/ops", '{"name": "ops", "skills": "./tools/deploy"}')
    skill(root, "plugins/ops/skills/deploy", "deploy")
    skill(root, "plugins/ops/tools/deploy", "deploy")
    skill(root, "plugins/ops/tools/deploy/fragments/deploy", "deploy")  # inside the named skill: not loaded
    assert [p for p, _ in duplicates(root, "claude-code")] == ["plugins/ops/skills/deploy/SKILL.md"]


def test_a_copy_nested_in_a_skill_folder_counts_only_where_the_surface_loads_nested_skills(tmp_path):
    # Claude Code and OpenCode load `<skills folder>/<name>/SKILL.md` only; Codex walks the tree.
    root = repo(tmp_path)
    skill(root, ".agents/skills/review", "review")
    skill(root, ".agents/skills/review/build/review", "review")
    found = duplicates(root, "claude-code,opencode,codex")
    assert found == [(".agents/skills/review/SKILL.md", ("codex",))]


def test_codex_never_loads_a_copy_under_a_dot_folder(tmp_path):
    root = repo(tmp_path)
    skill(root, ".agents/skills/review", "review")
    skill(root, ".agents/skills/.preview/review", "review")
    assert duplicates(root, "codex") == []
    skill(root, ".agents/skills/review-two", "review")
    assert [p for p, _ in duplicates(root, "codex")] == [".agents/skills/review-two/SKILL.md"]


def test_a_plugin_that_is_one_skill_at_its_root(tmp_path):
    root = repo(tmp_path) / "plugins"
    plugin(root, "solo")
    skill(root, "solo", "solo")
    skill(root, "solo/examples/solo", "solo")  # no skills/ folder, no `skills` field: the root SKILL.md alone
    assert duplicates(root, "claude-code") == []


def test_claude_code_lists_one_level_below_claude_skills(tmp_path):
    # Claude Code loads `.claude/skills/<name>/SKILL.md` and does not search deeper
    # (anthropics/claude-code#39138): a grouped copy is no skill of its catalog.
    root = repo(tmp_path)
    skill(root, ".claude/skills/review", "review")
    skill(root, ".claude/skills/team/review", "review")
    assert duplicates(root, "claude-code") == []
    skill(root, "packages/web/.claude/skills/review", "review")  # a nested .claude/skills loads too
    assert [p for p, _ in duplicates(root, "claude-code")] == [".claude/skills/review/SKILL.md"]
