"""SL520 not-discoverable: skills below a surface's root that its discovery never reaches."""

from __future__ import annotations

import json
import os
import time

import pytest

from skilllint.lint.engine import BACKGROUND_MIN_PACKAGES
from skilllint.discovery import reach as catalog_discovery
from skilllint.discovery.reach import CODEX_MAX_DIRS, codex_reached

from conftest import cache_pack, rewrite_cache_pack, run_cli, write_skill
from test_cache import age

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


# -- Claude Code: `<skills folder>/<name>/SKILL.md` only ----------------------------------

# A skill with a finding for each per-skill rule of this family: SL106 (name), SL121 (key),
# SL201 (lines), SL202 (tokens), SL512 (no trigger in the description).
FLAWED = "---\nname: other-name\ndescription: Formats release notes.\nfoo: 1\n---\n\n" + "Write the notes well, in order.\n" * 700
PER_SKILL = {"SL106", "SL121", "SL201", "SL202", "SL512"}


def codes_by_skill(tmp_path, *args):
    code, out, err = run_cli("check", str(tmp_path), "--output-format", "json", *args)
    assert code in (0, 1), err
    result: dict[str, set] = {}
    for diag in json.loads(out)["diagnostics"]:
        rel = os.path.relpath(os.path.abspath(diag["path"]), tmp_path).removesuffix("/SKILL.md")
        for target_id in diag["targets"]:
            result.setdefault(rel, set()).add((diag["code"], target_id))
    return result


def claude_plugin(base, text=FLAWED, manifest='{"name": "p"}'):
    (base / ".claude-plugin").mkdir(parents=True)
    (base / ".claude-plugin" / "plugin.json").write_text(manifest)
    write_skill(base, "skills/a", text)
    write_skill(base, "skills/a/b", FLAWED)


def test_a_skill_nested_in_a_plugin_skill_is_no_claude_code_skill(tmp_path):
    claude_plugin(tmp_path)
    found = codes_by_skill(tmp_path)
    assert {c for c, t in found["skills/a"] if t == "claude-code"} >= PER_SKILL  # the listed one: all of them
    # the nested one: Claude Code never lists it, so only that is said, once
    assert found["skills/a/b"] == {("SL520", "claude-code")}
    code, out, _ = run_cli("check", str(tmp_path), "--select", "SL520", "--output-format", "concise")
    assert "Claude Code never lists this skill: it lies at `a/b` below" in out and "2 folders down" in out
    assert "no link from the skill `a`" in out


def test_a_nested_skill_the_outer_skill_links_is_one_of_its_documents(tmp_path):
    # zoom-plugin's meeting-sdk links `android/SKILL.md`: the author ships it as a document of
    # meeting-sdk, read when Claude follows the link. No SL520, and no skill rule for claude-code.
    claude_plugin(tmp_path, text=FLAWED + "\nFor Android read [android](b/SKILL.md).\n")
    found = codes_by_skill(tmp_path)
    assert "skills/a/b" not in found
    assert {c for c, t in found["skills/a"] if t == "claude-code"} >= PER_SKILL


def test_a_nested_skill_a_sibling_skill_links_is_a_document_too(tmp_path):
    # zoom-plugin's general skill links `../meeting-sdk/web/component-view/SKILL.md`: Claude reads
    # it by following that link, whichever listed skill of the plugin holds the link.
    claude_plugin(tmp_path)
    write_skill(tmp_path, "skills/c", TEXT.format(name="c") + "\nFor the details read [b](../a/b/SKILL.md#setup).\n")
    found = codes_by_skill(tmp_path)
    assert "skills/a/b" not in found
    assert ("SL520", "claude-code") not in found.get("skills/c", set())


# A nested skill's SKILL.md that is also flawed as a document: a link to a heading its reference
# lacks (SL307), a path in one user's home folder (SL407), a file nothing in it links (which the
# listed skill may link itself: no SL304), and `$1` in an awk program (SL704: Claude Code
# substitutes arguments in a skill it invokes, not in a file it reads).
DOCUMENT = (
    FLAWED
    + "\nBuild first: read [the setup](references/setup.md#instal).\n\n```awk\n{ print $1 }\n```\n"
)
SETUP = "# Setup\n\n## Install\n\nRun `/Users/mkowalski/src/video-sdk/build.sh` once.\n"
DOCUMENT_FINDINGS = {("SL307", "claude-code"), ("SL407", "claude-code")}


def nested_document(base, linked: bool):
    """zoom-plugin's shape: the listed skill `skills/a` links (or not) the nested `skills/a/b`."""
    claude_plugin(base, text=FLAWED + ("\nFor Windows read [windows](b/SKILL.md).\n" if linked else ""))
    write_skill(base, "skills/a/b", DOCUMENT)
    (base / "skills/a/b/references").mkdir()
    (base / "skills/a/b/references/setup.md").write_text(SETUP)
    (base / "skills/a/b/references/unlinked.md").write_text("# Notes\n")


def test_a_nested_skill_a_listed_skill_links_is_linted_as_a_document(tmp_path):
    # Claude reads the linked SKILL.md and the files it links: what they say is judged for
    # claude-code (anchors, paths, scripts), what makes a skill a skill (name, keys, size,
    # description) is not.
    nested_document(tmp_path, linked=True)
    found = codes_by_skill(tmp_path)
    assert found["skills/a/b"] | found.get("skills/a/b/references/setup.md", set()) == DOCUMENT_FINDINGS
    assert {c for c, t in found["skills/a"] if t == "claude-code"} >= PER_SKILL


def test_a_nested_skill_no_link_reaches_is_not_linted_as_a_document(tmp_path):
    nested_document(tmp_path, linked=False)
    found = codes_by_skill(tmp_path)
    assert found["skills/a/b"] == {("SL520", "claude-code")}
    assert "skills/a/b/references/setup.md" not in found


@pytest.mark.parametrize("others", [0, BACKGROUND_MIN_PACKAGES])
def test_a_nested_document_is_linted_again_when_the_link_to_it_changes(tmp_path, others):
    """The nested skill's files are unchanged, but whether its content rules run depends on the
    listed skill's SKILL.md: the result cache must not answer from the other case. With many
    skills a warm run checks that answer only once the background process has read the links."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    nested_document(repo, linked=False)
    for number in range(others):
        skill(repo, f"skills/other-{number}")
    age(repo)  # once: the nested skill's files keep their stamps, so its key changes only if the link counts
    cache = ["--cache-dir", str(tmp_path / "cache")]
    listed = repo / "skills/a/SKILL.md"
    past = time.time() - 60
    for linked in (False, True, False):
        listed.write_text(FLAWED + ("\nFor Windows read [windows](b/SKILL.md).\n" if linked else ""))
        os.utime(listed, (past, past))  # not racily fresh
        for _ in range(2):  # the first run fills the cache, the second reads it
            found = codes_by_skill(repo, *cache)
            nested = found["skills/a/b"] | found.get("skills/a/b/references/setup.md", set())
            assert nested == (DOCUMENT_FINDINGS if linked else {("SL520", "claude-code")}), linked
    assert cache_pack(tmp_path, "cache")


def test_a_forged_answer_in_a_nested_document_s_cache_entry_is_a_miss(tmp_path):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    nested_document(repo, linked=True)
    age(repo)
    cache = tmp_path / "cache"
    expected = codes_by_skill(repo, "--cache-dir", str(cache))
    (real,) = [json.loads(entry) for entry in cache_pack(tmp_path, "cache").values() if b'"documents"' in entry]
    assert real["documents"] == ["claude-code"]
    forged_finding = dict(real["diagnostics"][0], code="SL307", name="anchor-missing", message="planted by hand")
    for documents in ("claude-code", [["claude-code"]], ["not-a-surface"], ["claude-code"] * 100_000, [], None):
        forged = json.dumps({"diagnostics": [forged_finding], "documents": documents}).encode()
        rewrite_cache_pack(tmp_path, lambda entry, forged=forged: forged if b'"documents"' in entry else entry, "cache")
        code, out, err = run_cli("check", str(repo), "--output-format", "json", "--cache-dir", str(cache))
        assert "Traceback" not in err and "planted by hand" not in out, documents
        assert codes_by_skill(repo, "--cache-dir", str(cache)) == expected


def test_links_reach_a_nested_skill_through_the_skills_it_links(tmp_path):
    write_skill(tmp_path, ".claude/skills/a", TEXT.format(name="a") + "\nSee [web](web/SKILL.md).\n")
    write_skill(tmp_path, ".claude/skills/a/web", TEXT.format(name="web") + "\nSee [view](view/) and [guide](references/guide.md).\n")
    write_skill(tmp_path, ".claude/skills/a/web/references", "")  # (a folder to hold the guide)
    (tmp_path / ".claude/skills/a/web/references/SKILL.md").unlink()
    (tmp_path / ".claude/skills/a/web/references/guide.md").write_text("Read [the tool](../tool/SKILL.md).\n")
    skill(tmp_path, ".claude/skills/a/web/view")  # linked by its folder from web
    skill(tmp_path, ".claude/skills/a/web/tool")  # linked from a file web references
    skill(tmp_path, ".claude/skills/a/web/orphan")  # linked by nothing
    assert found(tmp_path, "claude-code") == {(".claude/skills/a/web/orphan", "claude-code")}


def test_a_skill_grouped_below_claude_skills_is_no_claude_code_skill(tmp_path):
    write_skill(tmp_path, ".claude/skills/group/x", FLAWED)
    write_skill(tmp_path, ".claude/skills/y", FLAWED)
    found = codes_by_skill(tmp_path)
    assert {(c, t) for c, t in found[".claude/skills/group/x"] if t == "claude-code"} == {("SL520", "claude-code")}
    assert {c for c, _ in found[".claude/skills/y"]} >= PER_SKILL
    code, out, _ = run_cli("check", str(tmp_path), "--select", "SL520", "--output-format", "concise")
    assert "`group/x` below `.claude/skills`, 2 folders down" in out and "no link" not in out  # group is no skill
    # Named explicitly, it is the same: the target is claude-code, and Claude Code never lists it.
    found = codes_by_skill(tmp_path / ".claude/skills/group/x", "--target", "claude-code")
    assert found == {"SKILL.md": {("SL520", "claude-code")}}


def test_a_nested_claude_skills_folder_still_loads(tmp_path):
    # `packages/web/.claude/skills/x` is a skills folder of its own (loaded when Claude works there)
    write_skill(tmp_path, "packages/web/.claude/skills/x", FLAWED)
    found = codes_by_skill(tmp_path)
    codes = found["packages/web/.claude/skills/x"]
    assert {c for c, t in codes if t == "claude-code"} >= PER_SKILL
    assert not any(c == "SL520" for c, _ in codes)


def test_a_folder_plugin_json_names_lists_one_level_too(tmp_path):
    (tmp_path / ".claude-plugin").mkdir()
    (tmp_path / ".claude-plugin" / "plugin.json").write_text('{"name": "p", "skills": ["./extra", "./tools/one"]}')
    skill(tmp_path, "extra/c")  # listed: <named folder>/<name>
    skill(tmp_path, "extra/c/d")
    skill(tmp_path, "tools/one")  # a named folder holding SKILL.md is that skill
    skill(tmp_path, "tools/one/part")
    skill(tmp_path, "drafts/e")  # in no folder Claude Code scans: not judged
    assert found(tmp_path, "claude-code") == {("extra/c/d", "claude-code"), ("tools/one/part", "claude-code")}
    code, out, _ = run_cli("check", str(tmp_path), "--select", "SL520", "--output-format", "concise")
    assert "no link from the skill `one`" in out and "no link from the skill `c`" in out


def test_a_link_through_a_linked_folder_reaches_no_skill(tmp_path):
    """A listed skill links `../gate/x/SKILL.md` where `gate` is a symbolic link to a folder outside
    the linted tree holding a skill: the reach walks real folders from the skills folder only, so
    that skill is none of the plugin's, and the unlinked nested skill is still reported."""
    outside = tmp_path / "outside"
    write_skill(outside, "x", TEXT.format(name="x"))
    tree = tmp_path / "tree"
    claude_plugin(tree, text=FLAWED + "\nSee [x](../gate/x/SKILL.md).\n")
    (tree / "skills" / "gate").symlink_to(outside)
    found = codes_by_skill(tree, "--select", "SL520")
    assert found.get("skills/a/b") == {("SL520", "claude-code")}  # b is still unreached


def test_a_skill_inside_another_skill_s_folder_is_its_data(tmp_path):
    # A skill-testing skill ships a sample skill under assets/ as input for its scripts: that
    # SKILL.md is a file of the tester's package, not a skill its author expects to be listed.
    claude_plugin(tmp_path)
    write_skill(tmp_path, "skills/tester", TEXT.format(name="tester"))
    write_skill(tmp_path, "skills/tester/assets/sample-skill", FLAWED)
    skill(tmp_path, ".claude/skills/tester")
    skill(tmp_path, ".claude/skills/tester/fixtures/broken")
    skill(tmp_path, ".agents/skills/tester")
    skill(tmp_path, ".agents/skills/tester/.samples/x")
    assert found(tmp_path, "codex,opencode,claude-code") == {("skills/a/b", "claude-code")}
    # a sub-skill right below a skill stays reported, inside a skills folder or a plugin's
    skill(tmp_path, ".claude/skills/tester/rollback")
    assert found(tmp_path, "codex,opencode,claude-code") == {
        ("skills/a/b", "claude-code"),
        (".claude/skills/tester/rollback", "claude-code"),
        (".claude/skills/tester/rollback", "opencode"),
    }
