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


def test_a_pair_in_agents_skills_is_one_finding_per_skill_and_rule_listing_both_targets(tmp_path):
    root = repo(tmp_path)
    same = "Deploys the web app to staging or production. Use when the user asks to deploy."
    skill(root, ".agents/skills/deploy", "deploy", same)
    skill(root, ".agents/skills/deploy-web", "deploy", same)
    found = findings(root, "--target", "codex,agentskills")
    keys = sorted((d["code"], d["path"]) for d in found)
    assert keys == [
        ("SL510", ".agents/skills/deploy-web/SKILL.md"),
        ("SL510", ".agents/skills/deploy/SKILL.md"),
        ("SL511", ".agents/skills/deploy-web/SKILL.md"),
        ("SL511", ".agents/skills/deploy/SKILL.md"),
    ], json.dumps(found, indent=1)
    for finding in found:
        assert sorted(finding["targets"]) == ["agentskills", "codex"], finding
    duplicate = next(d for d in found if d["code"] == "SL511")
    assert duplicate["severity"] == "error"  # Codex's: `$deploy` mentions select neither
    assert "Codex lists both" in duplicate["message"] and "which one is not defined" in duplicate["message"]


def test_every_target_on_one_collection_gives_one_finding_per_skill(tmp_path):
    root = repo(tmp_path)
    skill(root, "skills/deploy", "deploy")
    skill(root, "skills/deploy-docs", "deploy")
    found = findings(root, "--target", "all", select="SL511")
    assert sorted(d["path"] for d in found) == ["skills/deploy-docs/SKILL.md", "skills/deploy/SKILL.md"]
    assert len(found[0]["targets"]) > 5
