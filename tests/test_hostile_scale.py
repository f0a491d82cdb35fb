"""Scale: work that must grow linearly with the number of files, skills or links.

Each case builds a tree with thousands of one thing and runs skilllint in its own
process through tests/test_hostile.py's harness (time, peak RSS, file-access
audit). The bounds leave a linear run ten times its typical time; a run that
compares every thing with every other takes minutes at these sizes, past the
bound or the harness's hang timeout.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_hostile import check_json, skill, tree  # noqa: F401  (tree: a fixture)

SCALE_LIMIT = 20.0  # seconds per run, interpreter start-up included

# =============================================================================
# SL304 resource-unreferenced: thousands of unreferenced files
# =============================================================================

NOTES = 3000


def _notes(base: Path, shape: str, count: int = NOTES) -> None:
    folder = base / "notes"
    folder.mkdir()
    for i in range(count):
        name, text = f"f{i}.md", "A note.\n"
        if shape == "chain":  # SKILL.md names f0.md, each note the next: all reachable
            text = f"Next: f{i + 1}.md\n"
        elif shape == "folder":  # each note names the folder: one root, the rest under it
            text = "Others in notes/ too.\n"
        elif shape == "ring":  # a cycle of notes nothing reaches: one root, the rest under it
            text = f"Next: f{(i + 1) % count}.md\n"
        elif shape == "odd names":  # names with spaces and parentheses, in a ring
            name, text = f"f ({i}).md", f"Next: f ({(i + 1) % count}).md\n"
        (folder / name).write_text(text, encoding="utf-8")


@pytest.mark.parametrize(
    ("shape", "findings"),
    [("plain", NOTES), ("chain", 0), ("folder", 1), ("ring", 1), ("odd names", 1)],
)
def test_sl304_with_thousands_of_unreferenced_files_is_linear(tree, shape, findings):
    body = "See notes/f0.md." if shape == "chain" else "Nothing here."
    _notes(skill(tree.root, "notes-skill", body=body), shape)
    result = check_json(tree, ".", "--select", "SL304", "--no-cache", label=f"SL304, {NOTES} notes, {shape}", limit=SCALE_LIMIT)
    found = result.found("SL304")
    assert len(found) == findings
    if findings == 1:  # the rest are named only through the one reported
        assert f"{NOTES - 1} more files named only by it" in found[0]["message"]


# =============================================================================
# SL511 duplicate-name: a thousand skills of one name
# =============================================================================

SAME_NAMED = 1000


def test_sl511_with_a_thousand_same_named_skills_names_a_few_partners_each(tree):
    for i in range(SAME_NAMED):
        skill(tree.root, f"skills/deploy-{i}", name="deploy")
    result = check_json(
        tree, ".", "--select", "SL511", "--target", "agentskills", "--no-cache",
        label=f"SL511, {SAME_NAMED} skills named deploy", limit=60, timeout=120,
    )  # fmt: skip  (a thousand skills parsed take seconds; naming every partner took 1.7 GB)
    found = result.found("SL511")
    assert len(found) == SAME_NAMED
    assert len(result.out) < 10 * 1024 * 1024  # every finding naming every partner: 171 MB
    for diagnostic in found:
        assert len(diagnostic["related"]) == 10
        assert f"; and {SAME_NAMED - 11} more)" in diagnostic["message"]


def test_sl511_message_with_every_target_s_effect_is_clipped(tree):
    # Long folder names fill the message past its clipping; the effects of several
    # targets' catalogs come after it, and must be clipped with it.
    for i in range(12):
        skill(tree.root, f"skills/{'d' * 200}-{i}", name="deploy")
    result = check_json(tree, ".", "--select", "SL511", "--target", "codex,agentskills", "--no-cache", label="SL511, long paths")
    found = result.found("SL511")
    assert len(found) == 12
    for diagnostic in found:
        assert len(diagnostic["message"]) <= 2000
        assert diagnostic["message"].endswith("which one is not defined")  # the effects survive the clipping
