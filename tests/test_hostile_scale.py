"""Scale: work that must grow linearly with the number of files, skills or links.

Each case builds a tree with thousands of one thing and runs skilllint in its own
process through tests/test_hostile.py's harness (bytes read, peak RSS, file-access
audit, a hang guard). Where the case is about scale, it is built at a quarter of
the size too and the function calls of the two runs are compared (``scales``:
counted by cProfile in the child, the same on a busy machine): four times the
things, about four times the calls; a run that compares every thing with every
other counts sixteen times (and takes minutes at these sizes).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_hostile import LINEAR_CALLS_AT_4X, check_json, scales, skill, tree  # noqa: F401  (tree: a fixture)

pytestmark = pytest.mark.e2e


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
        elif shape == "odd folders":  # a folder each, with spaces and parentheses, in a ring
            name, text = f"d ({i})/f{i}.md", f"See ./notes/d ({(i + 1) % count}) and notes/d ({(i + 2) % count})/ too.\n"
            (folder / name).parent.mkdir()
        (folder / name).write_text(text, encoding="utf-8")


@pytest.mark.parametrize(
    ("shape", "findings"),
    [
        ("plain", NOTES), ("chain", 0), ("folder", 1), ("ring", 1), ("odd names", 1),
        # was quadratic: resource_reach._odd_folder_keys made {len(folder) for every odd folder} for
        # each file's text (750 -> 3,000 notes: 0.97 M -> 10.3 M calls, x10.5)
        ("odd folders", 1),
    ],
)
def test_sl304_with_thousands_of_unreferenced_files_is_linear(tmp_path, shape, findings):
    body = "See notes/f0.md." if shape == "chain" else "Nothing here."

    def build(tree, count):
        _notes(skill(tree.root, "notes-skill", body=body), shape, count)

    result, ratio = scales(tmp_path, build, NOTES, ".", "--select", "SL304", "--no-cache", label=f"SL304, notes, {shape}")
    assert ratio < LINEAR_CALLS_AT_4X, ratio
    found = result.found("SL304")
    assert len(found) == findings
    if findings == 1:  # the rest are named only through the one reported
        assert f"{NOTES - 1} more files named only by it" in found[0]["message"]


# =============================================================================
# SL511 duplicate-name: a thousand skills of one name
# =============================================================================

SAME_NAMED = 1000


def test_sl511_with_a_thousand_same_named_skills_names_a_few_partners_each(tmp_path):
    def build(tree, count):
        for i in range(count):
            skill(tree.root, f"skills/deploy-{i}", name="deploy")

    result, ratio = scales(
        tmp_path, build, SAME_NAMED, ".", "--select", "SL511", "--target", "agentskills", "--no-cache",
        label="SL511, skills named deploy",
    )  # fmt: skip  (naming every partner took 1.7 GB)
    assert ratio < LINEAR_CALLS_AT_4X, ratio
    (diagnostic,) = result.found("SL511")  # one clash, one finding
    assert len(result.out) < 1024 * 1024  # every skill's finding naming every partner: 171 MB
    assert len(diagnostic["related"]) == 10
    assert f"; and {SAME_NAMED - 11} more)" in diagnostic["message"]


def test_sl511_message_with_every_target_s_effect_is_clipped(tree):
    # Long folder names fill the message past its clipping; the effects of several
    # targets' catalogs come after it, and must be clipped with it.
    for i in range(12):
        skill(tree.root, f"skills/{'d' * 200}-{i}", f"Copy {i}.", name="deploy")  # not byte-identical copies
    result = check_json(tree, ".", "--select", "SL511", "--target", "codex,agentskills", "--no-cache", label="SL511, long paths")
    (diagnostic,) = result.found("SL511")
    assert len(diagnostic["message"]) <= 2000
    assert diagnostic["message"].endswith("which one is not defined")  # the effects survive the clipping


# =============================================================================
# SL404 symlink-loop: cycles and chains of any length
# =============================================================================


def _links(folder: Path, count: int, cycle: bool) -> None:
    """``a0 -> a1 -> … -> a{count-1}``, and then back to ``a0`` (a cycle) or on to a file."""
    folder.mkdir(parents=True)
    for i in range(count):
        (folder / f"a{i}").symlink_to(f"a{(i + 1) % count}" if cycle else f"a{i + 1}")
    if not cycle:
        (folder / f"a{count}").write_text("the end\n", encoding="utf-8")


def _sl404_run(tree, tmp_path, count: int, cycle: bool):
    """SL404 on a run of ``count`` links outside every skill folder; a long run compared with one
    a quarter as long (its work must grow linearly)."""
    kind = "cycle" if cycle else "chain"
    if count >= 1000:

        def build(tree, n):
            skill(tree.root, "s")
            _links(tree.root / "links", n, cycle=cycle)

        result, ratio = scales(tmp_path / "sizes", build, count, ".", "--select", "SL404", "--no-cache", label=f"SL404, a {kind} of links")
        assert ratio < LINEAR_CALLS_AT_4X, ratio
        return result
    skill(tree.root, "s")
    _links(tree.root / "links", count, cycle=cycle)
    return check_json(tree, ".", "--select", "SL404", "--no-cache", label=f"SL404, a {kind} of {count} links")


@pytest.mark.parametrize("count", [41, 42, 100, 3000])
def test_sl404_a_cycle_of_any_length_outside_every_skill_folder(tree, tmp_path, count):
    result = _sl404_run(tree, tmp_path, count, cycle=True)
    found = result.found("SL404")
    assert len(found) == count
    assert all("a cycle of links" in d["message"] for d in found)


@pytest.mark.parametrize("count", [40, 45, 3000])
def test_sl404_a_chain_longer_than_the_system_follows_outside_every_skill_folder(tree, tmp_path, count):
    result = _sl404_run(tree, tmp_path, count, cycle=False)
    found = result.found("SL404")
    # a{i} reaches the file after count - i links; the system follows 40
    assert sorted(d["path"].rsplit("/", 1)[-1] for d in found) == sorted(f"a{i}" for i in range(count - 40))
    if found:
        assert f"only after {count} links" in next(d for d in found if d["path"].endswith("/a0"))["message"]


def test_sl404_a_cycle_of_3000_links_in_a_skill_shows_a_few_links_each(tmp_path):
    def build(tree, n):
        _links(skill(tree.root, "s") / "links", n, cycle=True)

    result, ratio = scales(tmp_path, build, 3000, ".", "--select", "SL404", "--no-cache", label="SL404, a cycle of links in a skill")
    assert ratio < LINEAR_CALLS_AT_4X, ratio
    found = result.found("SL404")
    assert len(found) == 3000  # one per link
    assert len(result.out) < 10 * 1024 * 1024  # every link's chain in full: 29 MB
    for diagnostic in found:
        assert len(diagnostic["related"]) <= 4
        assert "and at least 36 more links)" in diagnostic["message"]
