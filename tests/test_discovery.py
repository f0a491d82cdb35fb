"""Discovery: command-line paths -> skill packages, each linted once.

Checked two ways: ``skilllint.discovery.walk.discover`` directly, and the CLI's JSON
output. Every skill here lacks ``description`` on purpose, so each linted
package yields exactly one SL111 (an error for every target): the list of SL111
paths is the list of linted packages, and its ``targets`` field shows the
targets inferred for the package.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from conftest import deadline, lint_json, run_cli, write_skill
from skilllint.discovery.walk import discover

NO_DESCRIPTION = "---\nname: {name}\n---\nBody.\n"


@pytest.fixture
def repo(tmp_path) -> Path:
    """A repository root (so no config or .gitignore above it is picked up)."""
    (tmp_path / ".git").mkdir()
    return tmp_path


def skill(base: Path, folder: str) -> Path:
    return write_skill(base, folder, NO_DESCRIPTION.format(name=Path(folder).name))


def found(base: Path, *paths: str, **kwargs) -> list[str]:
    """Package folders discover() returns, relative to ``base``, in order."""
    result = discover(list(paths), base, **kwargs)
    return [f.root.relative_to(base).as_posix() for f in result.packages]


def linted(base: Path, *args: str) -> list[str]:
    """Package folders the CLI linted (one SL111 each), relative to ``base``, with repeats."""
    doc = lint_json("--select", "SL111", *args, cwd=base)
    packages = [d["path"].rsplit("/", 1)[0] for d in doc["diagnostics"] if d["code"] == "SL111"]
    assert doc["summary"]["packages"] == len(packages), doc["summary"]
    return sorted(packages)


def sl111_targets(base: Path, *args: str) -> dict[str, set[str]]:
    doc = lint_json("--select", "SL111", *args, cwd=base)
    return {d["path"].rsplit("/", 1)[0]: set(d["targets"]) for d in doc["diagnostics"] if d["code"] == "SL111"}


# -- collections and nesting ------------------------------------------------------


def test_collection_finds_each_skill_once(repo):
    for name in ("alpha", "beta", "gamma"):
        skill(repo, f"collection/{name}")
    (repo / "collection" / "README.md").write_text("# not a skill\n", encoding="utf-8")
    expected = ["collection/alpha", "collection/beta", "collection/gamma"]
    assert sorted(found(repo, "collection")) == expected
    assert linted(repo, "collection") == expected


def test_default_path_is_cwd(repo):
    skill(repo, "skills/one")
    assert found(repo) == ["skills/one"]
    assert linted(repo) == ["skills/one"]


def test_nested_skills_are_both_found(repo):
    skill(repo, "outer")
    skill(repo, "outer/inner")
    skill(repo, "outer/references/deeper")
    expected = ["outer", "outer/inner", "outer/references/deeper"]
    assert sorted(found(repo, "outer")) == expected
    assert linted(repo, "outer") == expected


def test_same_folder_given_twice_is_linted_once(repo):
    skill(repo, "s")
    assert found(repo, "s", "s", "./s") == ["s"]
    assert linted(repo, "s", "s", "./s") == ["s"]


def test_overlapping_arguments_lint_each_package_once(repo):
    skill(repo, "col/a")
    skill(repo, "col/b")
    assert sorted(found(repo, "col", "col/a")) == ["col/a", "col/b"]
    assert linted(repo, "col", "col/a", "col/b/SKILL.md") == ["col/a", "col/b"]


# -- ignores --------------------------------------------------------------------------


def test_gitignore_is_honoured(repo):
    skill(repo, "tree/kept")
    skill(repo, "tree/ignored")
    skill(repo, "tree/build/generated")
    (repo / "tree" / ".gitignore").write_text("ignored/\nbuild\n", encoding="utf-8")
    assert found(repo, "tree") == ["tree/kept"]
    assert linted(repo, "tree") == ["tree/kept"]
    assert linted(repo, ".") == ["tree/kept"]


def test_gitignore_negation_and_no_respect_flag(repo):
    skill(repo, "tree/kept")
    skill(repo, "tree/ignored")
    (repo / ".gitignore").write_text("tree/*\n!tree/kept/\n", encoding="utf-8")
    assert linted(repo, ".") == ["tree/kept"]
    assert linted(repo, "--no-respect-gitignore", ".") == ["tree/ignored", "tree/kept"]
    assert sorted(found(repo, ".", use_gitignore=False)) == ["tree/ignored", "tree/kept"]


def test_a_gitignore_line_git_cannot_read_is_left_out_and_the_others_apply(repo):
    """A lone `!` or a trailing backslash matches nothing in git; pathspec raises on it (a traceback
    before): the line is left out, the file's other lines still ignore what they name."""
    skill(repo, "tree/kept")
    skill(repo, "tree/ignored")
    (repo / ".gitignore").write_text("!\nignored/\nwhat\\\n[\n", encoding="utf-8")
    assert found(repo, ".") == ["tree/kept"]
    assert linted(repo, ".") == ["tree/kept"]


def test_gitignore_in_an_ancestor_of_the_linted_path(repo):
    skill(repo, "tree/kept")
    skill(repo, "tree/ignored")
    (repo / ".gitignore").write_text("tree/ignored/\n", encoding="utf-8")
    assert linted(repo, ".") == ["tree/kept"]  # passes: the root's .gitignore is met on the way down
    assert found(repo, "tree") == ["tree/kept"]
    assert linted(repo, "tree") == ["tree/kept"]


def test_config_exclude_is_honoured(repo):
    skill(repo, "tree/kept")
    skill(repo, "tree/vendored/thirdparty")
    skill(repo, "tree/drafts/wip")
    (repo / ".skilllint.toml").write_text('exclude = ["tree/vendored/", "drafts"]\n', encoding="utf-8")
    assert linted(repo, "tree") == ["tree/kept"]
    assert linted(repo, ".") == ["tree/kept"]
    assert found(repo, "tree", exclude=["tree/vendored/", "drafts"], exclude_base=repo) == ["tree/kept"]


def test_config_exclude_and_explicit_paths(repo):
    # Like ruff: an excluded folder named on the command line is still linted,
    # unless --force-exclude.
    skill(repo, "tree/drafts/wip")
    (repo / ".skilllint.toml").write_text('exclude = ["drafts/"]\n', encoding="utf-8")
    assert linted(repo, "tree/drafts/wip") == ["tree/drafts/wip"]
    assert linted(repo, "--force-exclude", "tree/drafts/wip") == []


def test_git_and_node_modules_are_skipped(repo):
    skill(repo, "kept")
    skill(repo, ".git/hooks/s")
    skill(repo, "node_modules/pkg/skills/s")
    skill(repo, "kept/node_modules/dep")
    skill(repo, "sub/.git/objects/s")
    (repo / ".gitignore").write_text("!node_modules/\n", encoding="utf-8")  # cannot re-include them
    assert found(repo, ".") == ["kept"]
    assert linted(repo, ".") == ["kept"]
    assert sorted(found(repo, ".", use_gitignore=False)) == ["kept"]


# -- symlinks -----------------------------------------------------------------------------


def test_symlinked_skill_inside_tree_is_linted_once(repo):
    skill(repo, "tree/real")
    os.symlink("real", repo / "tree" / "link")
    assert len(found(repo, "tree")) == 1
    assert len(linted(repo, "tree")) == 1
    # the same through a linked collection folder
    os.symlink("tree", repo / "tree-link")
    assert len(found(repo, ".")) == 1
    assert len(linted(repo, ".")) == 1


def test_real_folder_preferred_over_a_link_to_it(repo):
    skill(repo, "tree/real")
    os.symlink("real", repo / "tree" / "alias")  # 'alias' sorts before 'real'
    assert found(repo, "tree") == ["tree/real"]
    doc = lint_json("tree", cwd=repo)
    assert {d["path"] for d in doc["diagnostics"]} == {"tree/real/SKILL.md"}


@pytest.mark.parametrize("where", ["tree/plugins/x", "tree/s/plugins/x"], ids=["beside", "inside-skill"])
def test_link_cycle_does_not_hang_or_repeat(repo, where):
    skill(repo, "tree/s")
    skill(repo, "tree/t")
    link = repo / where
    link.parent.mkdir(parents=True, exist_ok=True)
    os.symlink("..", link)
    start = time.perf_counter()
    with deadline():
        packages = found(repo, "tree")
        cli = linted(repo, "tree")
    elapsed = time.perf_counter() - start
    print(f"\nTIME link cycle ({where}): {elapsed:.3f}s")  # the deadline catches a hang
    assert sorted(packages) == ["tree/s", "tree/t"]
    assert cli == ["tree/s", "tree/t"]


def test_self_and_mutual_link_loops_do_not_hang(repo, monkeypatch):
    skill(repo, "tree/s")
    os.symlink("self", repo / "tree" / "self")
    os.symlink("b", repo / "tree" / "a")
    os.symlink("a", repo / "tree" / "b")
    listed = []
    real_scandir = os.scandir

    def counting(path=".", *args, **kwargs):
        listed.append(os.fspath(path) if not isinstance(path, int) else path)
        return real_scandir(path, *args, **kwargs)

    monkeypatch.setattr(os, "scandir", counting)
    with deadline():  # a hang guard
        assert found(repo, "tree") == ["tree/s"]
    # The work counted: the two real folders listed, each once; a loop followed lists on and on.
    assert 0 < len(listed) <= 2, listed
    with deadline():
        assert linted(repo, "tree") == ["tree/s"]


def test_symlink_pointing_outside_the_tree_is_not_followed(repo, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside")
    skill(outside, "foreign")
    skill(outside, "col/other")
    skill(repo, "tree/local")
    os.symlink(outside / "foreign", repo / "tree" / "foreign")  # a skill folder outside
    os.symlink(outside / "col", repo / "tree" / "col")  # a collection outside
    os.symlink(outside, repo / "tree" / "everything")
    assert found(repo, "tree") == ["tree/local"]
    assert linted(repo, "tree") == ["tree/local"]


# -- file arguments -------------------------------------------------------------------------


def _skill_with_references(repo: Path) -> Path:
    root = skill(repo, "skill")
    (root / "references").mkdir()
    (root / "references" / "a.md").write_text("# A\n", encoding="utf-8")
    (root / "references" / "b.md").write_text("# B\n", encoding="utf-8")
    return root


def test_file_argument_maps_to_its_package(repo):
    _skill_with_references(repo)
    result = discover(["skill/references/a.md"], repo)
    assert [f.root for f in result.packages] == [repo / "skill"]
    assert linted(repo, "skill/references/a.md") == ["skill"]


def test_two_files_in_one_package_lint_it_once(repo):
    _skill_with_references(repo)
    assert found(repo, "skill/references/a.md", "skill/references/b.md") == ["skill"]
    assert linted(repo, "skill/references/a.md", "skill/references/b.md") == ["skill"]
    assert linted(repo, "skill/SKILL.md", "skill/references/a.md") == ["skill"]


def test_file_and_folder_arguments_lint_the_package_once(repo):
    _skill_with_references(repo)
    skill(repo, "skill/nested")
    assert linted(repo, "skill/SKILL.md", "skill") == ["skill", "skill/nested"]
    assert linted(repo, "skill", "skill/references/a.md") == ["skill", "skill/nested"]


def test_file_outside_any_skill_is_skipped_with_a_warning(repo):
    (repo / "notes.md").write_text("# notes\n", encoding="utf-8")
    code, out, err = run_cli("check", "notes.md", cwd=repo)
    assert code == 0, err
    assert "not inside a skill folder" in err
    assert "Traceback" not in err


# -- target inference -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "folder, expected",
    [
        (".claude/skills/x", {"claude-code"}),
        (".agents/skills/x", {"codex", "agentskills"}),
        (".codex/skills/x", {"codex", "agentskills"}),
        (".github/skills/x", {"copilot"}),
        (".opencode/skills/x", {"opencode"}),
        (".gemini/skills/x", {"gemini"}),
        (".cursor/skills/x", {"cursor"}),
        ("plugin/skills/x", {"claude-code"}),  # under plugin/.claude-plugin/plugin.json
        ("plugin/nested/deeper/x", {"agentskills"}),  # in the plugin, but where it loads no skill: not installed
        ("elsewhere/skills/x", {"agentskills"}),
        ("x", {"agentskills"}),
    ],
)
def test_target_inference(repo, folder, expected):
    (repo / "plugin" / ".claude-plugin").mkdir(parents=True)
    (repo / "plugin" / ".claude-plugin" / "plugin.json").write_text('{"name": "plugin"}\n', encoding="utf-8")
    skill(repo, folder)
    assert sl111_targets(repo, folder) == {folder: expected}
    # the same inference when the whole tree is linted, and from a file argument
    assert sl111_targets(repo, ".")[folder] == expected
    (repo / folder / "references").mkdir()
    (repo / folder / "references" / "r.md").write_text("# R\n", encoding="utf-8")
    assert sl111_targets(repo, f"{folder}/references/r.md") == {folder: expected}


def test_claude_plugin_needs_plugin_json(repo):
    (repo / "plugin" / ".claude-plugin").mkdir(parents=True)  # no plugin.json
    skill(repo, "plugin/skills/x")
    assert sl111_targets(repo, "plugin") == {"plugin/skills/x": {"agentskills"}}


def test_explicit_target_overrides_inference(repo):
    skill(repo, ".claude/skills/x")
    assert sl111_targets(repo, "--target", "copilot", ".claude/skills/x") == {".claude/skills/x": {"copilot"}}


# -- folders without SKILL.md ------------------------------------------------------------------


def test_explicit_folder_without_skill_md_is_sl001(repo):
    (repo / "almost" / "references").mkdir(parents=True)
    (repo / "almost" / "references" / "guide.md").write_text("# Guide\n", encoding="utf-8")
    result = discover(["almost"], repo)
    assert [(f.root, f.missing_skill_md) for f in result.packages] == [(repo / "almost", True)]
    doc = lint_json("almost", cwd=repo)
    assert [(d["code"], d["path"]) for d in doc["diagnostics"]] == [("SL001", "almost/references/guide.md")]  # a file of it


def test_broken_skill_under_claude_skills_is_sl001(repo):
    (repo / ".claude" / "skills" / "broken").mkdir(parents=True)
    skill(repo, ".claude/skills/fine")
    result = discover(["."], repo)
    assert {f.root.relative_to(repo).as_posix(): f.missing_skill_md for f in result.packages} == {
        ".claude/skills/broken": True,
        ".claude/skills/fine": False,
    }
    doc = lint_json(".", cwd=repo)
    assert ("SL001", ".claude/skills/broken/SKILL.md") in {(d["code"], d["path"]) for d in doc["diagnostics"]}  # (no file in it)
    assert "SL001" not in {d["code"] for d in doc["diagnostics"] if d["path"].startswith(".claude/skills/fine")}
    doc = lint_json(".claude/skills/broken", cwd=repo)
    assert [(d["code"], d["targets"]) for d in doc["diagnostics"]] == [("SL001", ["claude-code"])]


def test_empty_folder_warns_no_skills_found(repo):
    (repo / "empty").mkdir()
    code, out, err = run_cli("check", "empty", cwd=repo)
    assert code == 0, err
    assert "no skills found" in err
    assert "Traceback" not in err
    result = discover(["empty"], repo)
    assert result.packages == [] and any("no skills found" in w for w in result.warnings)
    code, out, err = run_cli("check", "--output-format", "json", "empty", cwd=repo)
    assert code == 0
    assert json.loads(out)["summary"]["packages"] == 0


def test_default_excludes_match_as_pathspec_matches_them():
    """The built-in excludes are matched without pathspec (~10 ms to import): same answers."""
    import pathspec
    from hypothesis import given
    from hypothesis import strategies as st

    from skilllint.discovery.gitignore import DEFAULT_EXCLUDE, _FolderNames

    names = [p.rstrip("/") for p in DEFAULT_EXCLUDE] + ["a", "skills", ".agents", "SKILL.md", ".git.bak", "x.venv", "node_modules2", "VENV"]
    reference = pathspec.GitIgnoreSpec.from_lines(DEFAULT_EXCLUDE)
    mine = _FolderNames(DEFAULT_EXCLUDE)

    @given(st.lists(st.sampled_from(names), min_size=1, max_size=5), st.booleans())
    def agree(parts, is_dir):
        rel = "/".join(parts) + ("/" if is_dir else "")
        assert mine.match_file(rel) == reference.match_file(rel), rel

    agree()


def test_gitignore_files_of_folder_names_or_nothing_match_as_pathspec_matches_them():
    """An empty .gitignore, or one that names folders only, is matched without pathspec: same answers."""
    import pathspec
    from hypothesis import given
    from hypothesis import strategies as st

    from skilllint.discovery.gitignore import _FolderNames, _spec_of_lines

    names = ["build", "dist", "a", "x.y", "__pycache__", "SKILL.md", "node_modules", "Build", ".git", ".venv", "-x"]
    lines = st.sampled_from(["", "   ", "# build/", "#", *[f"{n}/" for n in names]])
    paths = st.tuples(st.lists(st.sampled_from(names), min_size=1, max_size=4), st.booleans())

    @given(st.lists(lines, max_size=5), st.lists(paths, min_size=1, max_size=8))
    def agree(ignore_lines, probes):
        mine = _spec_of_lines(ignore_lines)
        assert mine is None or isinstance(mine, _FolderNames)  # never pathspec for these
        reference = pathspec.GitIgnoreSpec.from_lines(ignore_lines)
        for parts, is_dir in probes:
            rel = "/".join(parts) + ("/" if is_dir else "")
            assert (mine is not None and mine.match_file(rel)) == reference.match_file(rel), (ignore_lines, rel)

    agree()
    assert not isinstance(_spec_of_lines(["*.log"]), _FolderNames)  # anything else: pathspec
    assert not isinstance(_spec_of_lines(["/build/"]), _FolderNames)
    assert not isinstance(_spec_of_lines(["!keep/"]), _FolderNames)
    assert not isinstance(_spec_of_lines(["../"]), _FolderNames) and not isinstance(_spec_of_lines(["./"]), _FolderNames)


def _simple_gitignore_spec(lines):
    """pathspec's GitIgnoreSpec on its simple backend, the one skilllint asks for (its backends
    differ on some negations: `['!*', '?']` and the folder `a/`)."""
    import pathspec

    try:
        return pathspec.GitIgnoreSpec.from_lines(lines, backend="simple")
    except TypeError:  # pathspec 0.12: no backends
        return pathspec.GitIgnoreSpec.from_lines(lines)


def test_own_gitignore_lines_match_as_pathspec_matches_them():
    """`*.pyc`, `/.venv/`, `docs/*.md`, `*.py[cod]`, `**/.cache/`, `.agents/*` with
    `!.agents/plugins/`: matched without pathspec, with its answers (negations included)."""
    import warnings

    from hypothesis import example, given
    from hypothesis import strategies as st

    from skilllint.discovery.gitignore import _FolderNames, _GitignoreLines, _own_line, _spec_of_lines

    name = st.one_of(
        st.text(alphabet="ab.*?-_é #!", min_size=1, max_size=4),
        st.sampled_from(["*", "**", "[ab]", "[!a]", "[^.]", "x[a-c]", "[z-a]", "[a--]", "[[:alpha:]]", "\\#", "..", "a "]),
    )
    names = st.lists(name, min_size=1, max_size=3).map("/".join)
    line = st.tuples(st.booleans(), st.booleans(), names, st.booleans()).map(
        lambda t: ("!" if t[0] else "") + ("/" if t[1] else "") + t[2] + ("/" if t[3] else "")
    )
    component = st.sampled_from(["a", "b", "ab", ".a", "a.b", "x-y", "aa", "é", "_", "-a", "a?", "*", "a b", "#a", "!a", "a#", "xb", "["])
    paths = st.tuples(st.lists(component, min_size=1, max_size=4), st.booleans())

    @given(st.lists(line, min_size=1, max_size=4), st.lists(paths, min_size=1, max_size=8))
    @example(["*"], [(["a"], False)])
    @example(["*/"], [(["a", "b"], False)])
    @example(["/*"], [(["a"], True)])
    @example(["**/"], [(["a"], False), (["a", "b"], True)])
    @example([".."], [(["a"], False)])
    @example(["a/*"], [(["a"], True), (["a", "b"], False)])
    @example(["a/b"], [(["a", "b"], True), (["x", "a", "b"], False), (["a", "b", "c"], False)])
    @example(["a b/#a"], [(["a b", "#a"], False)])
    @example(["!*", "?"], [(["a"], True), (["a"], False)])
    @example([".agents/*", "!.agents/plugins/"], [([".agents", "plugins"], True), ([".agents", "x"], True), ([".agents", "plugins", "a"], False)])
    @example(["*.py[cod]", "**/.axis/", "a/**/b", "a/**"], [(["x", "y.pyc"], False), (["x", ".axis"], True), (["a", "x", "b"], False), (["a", "b"], False)])
    def agree(ignore_lines, probes):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)  # pathspec hands `[[:alpha:]]` to re as it is
            try:
                reference = _simple_gitignore_spec(ignore_lines)
            except Exception:  # noqa: BLE001 - a line pathspec cannot read (skilllint leaves it out): not compared
                assert any(_own_line(x) is None for x in ignore_lines if x.strip() and not x.startswith("#"))
                return
        mine = _spec_of_lines(ignore_lines)
        patterns = [x for x in ignore_lines if x.strip() and not x.startswith("#")]
        if patterns and all(_own_line(x) is not None for x in patterns):
            assert isinstance(mine, (_FolderNames, _GitignoreLines))  # no pathspec for these
        for parts, is_dir in probes:
            rel = "/".join(parts) + ("/" if is_dir else "")
            assert (mine is not None and mine.match_file(rel)) == bool(reference.match_file(rel)), (ignore_lines, rel, type(mine).__name__)

    agree()
    own = ["__pycache__/", "*.pyc", "/.venv/", "*.egg-info/", ".DS_Store", ".claude/settings.local.json", "docs/*.md", ".claude/# Python"]
    own += ["*.py[cod]", "**/.axis/", ".agents/*", "!.agents/plugins/", "[Bb]uild/", "x/**/y", "logs/**", "!keep.pyc"]
    assert isinstance(_spec_of_lines(own), _GitignoreLines)
    for other in (["\\#x"], ["a "], ["a/**/b/**"], ["a/../b"], ["a//b"], ["[z-a]"], ["[[:alpha:]]"], ["!!a"], ["[a--]"]):
        assert not isinstance(_spec_of_lines(other), (_FolderNames, _GitignoreLines)), other


def test_a_gitignore_line_re_cannot_read_is_left_out_quietly(repo):
    """`[z-a]` (a range that runs backwards) made `re` raise inside pathspec: a traceback. Git
    matches nothing with it; `[[:alpha:]]` made `re` warn on standard error on every run."""
    skill(repo, "skills/zeta")
    skill(repo, "skills/beta")
    (repo / ".gitignore").write_text("[z-a]\n[[:alpha:]]x\nskills/b*/\n", encoding="utf-8")
    code, out, err = run_cli("check", "--select", "SL111", ".", cwd=repo)
    assert code == 1 and "Traceback" not in err and "Warning" not in err, err
    assert found(repo, ".") == ["skills/zeta"]  # the other lines apply



def test_lines_pathspec_must_read_use_its_simple_backend_even_after_hyperscan_was_imported():
    """pathspec imported after hyperscan (a language server that linted before it first met such a
    line) defaults to its hyperscan backend, which raised hyperscan.error on `[z-a]`: a traceback."""
    import subprocess
    import sys

    pytest.importorskip("hyperscan")
    code = (
        "import hyperscan\n"
        "from skilllint.discovery.gitignore import gitignore_spec, unreadable_pattern\n"
        "print(unreadable_pattern('[z-a]'), unreadable_pattern('a\\\\'), unreadable_pattern('x[[:alpha:]]'))\n"
        "spec = gitignore_spec(['[z-a]', 'x[[:alpha:]]', 'b/'])\n"
        "print(spec.match_file('b/'), spec.match_file('z'))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.split() == ["True", "True", "False", "True", "False"], out.stderr

def _found_in_a_fresh_process(tmp_path: Path, exclude: list[str] | None = None) -> tuple[list[str], bool]:
    """The packages discover() finds in ``tmp_path`` from a new interpreter, and whether it imported pathspec."""
    import subprocess
    import sys

    code = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "from skilllint.discovery.walk import discover\n"
        f"found = discover(['.'], Path({str(tmp_path)!r}), exclude={exclude!r})\n"
        f"print(json.dumps(sorted(str(f.root.relative_to(Path({str(tmp_path)!r}))) for f in found.packages)))\n"
        "print('pathspec' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path).stdout
    packages, imported = out.splitlines()
    return json.loads(packages), imported == "True"


def test_a_gitignore_of_plain_globs_needs_no_pathspec(tmp_path):
    """Lines with a slash inside (`.claude/settings.local.json`, `docs/*.md`), as most .gitignore
    files hold: anchored to the file's folder, matched without importing pathspec (~17 ms)."""
    (tmp_path / ".git").mkdir()
    for folder in ("skills/keep", "drafts/old", "x/drafts/kept", "skills/gen-a", "skills/nested/gen-b"):
        write_skill(tmp_path, folder, f"---\nname: {folder.rsplit('/', 1)[-1]}\ndescription: D. Use when x.\n---\n")
    (tmp_path / ".gitignore").write_text(".claude/settings.local.json\n/drafts/\nskills/gen-*\n.claude/# Python\n*.pyc\n", encoding="utf-8")
    assert _found_in_a_fresh_process(tmp_path) == (["skills/keep", "skills/nested/gen-b", "x/drafts/kept"], False)


def test_configured_excludes_of_folder_names_need_no_pathspec(tmp_path):
    """`exclude = ["drafts/"]` in the configuration: matched as pathspec would, without importing it."""
    for folder in ("skills/keep", "skills/drafts/old", "drafts/top", "skills/nested/vendor/x"):
        write_skill(tmp_path, folder, f"---\nname: {folder.rsplit('/', 1)[-1]}\ndescription: D. Use when x.\n---\n")
    assert _found_in_a_fresh_process(tmp_path, ["drafts/", "vendor/"]) == (["skills/keep"], False)
    found = discover(["."], tmp_path, exclude=["drafts/", "vendor/", "*.tmp"])  # not only names: pathspec, same answer
    assert [str(f.root.relative_to(tmp_path)) for f in found.packages] == ["skills/keep"]


def test_siblings_share_an_inference_but_a_folder_named_skills_does_not(repo):
    """Settings.targets_for answers siblings from one inference per parent folder; a skill whose own
    folder is named `skills` is a location of its own (.claude/skills) and is inferred apart."""
    for folder in (".claude/skills/a", ".claude/skills/b", "plugin/skills/c", "plugin/skills/d", "elsewhere/skills/e"):
        skill(repo, folder)
    (repo / "plugin" / ".claude-plugin").mkdir(parents=True)
    (repo / "plugin" / ".claude-plugin" / "plugin.json").write_text('{"name": "plugin"}\n', encoding="utf-8")
    skill(repo, ".claude/other")  # inferred first (discovery sorts), with the same parent as:
    skill(repo, ".claude/skills")  # a SKILL.md in the skills root itself, a location of its own
    skill(repo, "elsewhere/skills")
    found = sl111_targets(repo, ".")
    assert found[".claude/skills/a"] == found[".claude/skills/b"] == {"claude-code"}
    assert found["plugin/skills/c"] == found["plugin/skills/d"] == {"claude-code"}
    assert found["elsewhere/skills/e"] == {"agentskills"}
    assert found[".claude/other"] == {"agentskills"} and found[".claude/skills"] == {"claude-code"}
    assert found["elsewhere/skills"] == {"agentskills"}


def test_only_a_linked_folder_outside_the_tree_is_said_not_followed(repo, tmp_path_factory):
    """The warning is about folders that may hold skills: a linked file (a shared
    .gitignore, a README) or a dangling link leading outside is no such folder."""
    outside = tmp_path_factory.mktemp("outside")
    (outside / "gitignore").write_text("build/\n", encoding="utf-8")
    (outside / "notes.md").write_text("# Notes\n", encoding="utf-8")
    skill(outside, "foreign")
    skill(repo, "tree/skills/local")
    for folder in (repo / "tree", repo / "tree" / "skills"):  # the folder named, and a skills folder
        os.symlink(outside / "gitignore", folder / ".gitignore")
        os.symlink(outside / "notes.md", folder / "NOTES.md")
        os.symlink(outside / "nothing-there", folder / "dangling")
        os.symlink(outside / "foreign", folder / "foreign")
    warnings = discover(["tree"], repo).warnings
    assert [w.split(":")[0] for w in warnings] == [str(repo / "tree" / "foreign"), str(repo / "tree" / "skills" / "foreign")]
    assert all("symbolic link leading outside the linted tree" in w for w in warnings)
    _, _, err = run_cli("check", "tree", cwd=repo)
    assert "gitignore" not in err and "NOTES.md" not in err and "dangling" not in err
    assert err.count("not followed (name the link itself to lint it)") == 2


def test_links_that_cannot_be_read_do_not_stop_discovery(repo, monkeypatch):
    """readlink may fail where lstat succeeded: /proc/1/cwd for a process that may not
    trace pid 1 (EACCES). Python before 3.13 lets os.path.realpath raise it. Every link in
    the tree refuses here: discovery, the package, the rules and the catalogs go on."""
    real_readlink = os.readlink
    skill(repo, "tree/real")
    (repo / "tree" / "real" / "references").mkdir()
    os.symlink("../real", repo / "tree" / "linked")  # a linked skill folder inside the tree
    os.symlink("/proc/1/cwd", repo / "tree" / "proc")
    os.symlink("/proc/1/root", repo / "tree" / "real" / "references" / "root")
    os.symlink("/proc/1/cwd", repo / "tree" / ".claude-plugin")
    (repo / "tree" / ".claude" / "skills").mkdir(parents=True)
    os.symlink("/proc/1/cwd", repo / "tree" / ".claude" / "skills" / "proc")
    lone = skill(repo, "tree/lone")
    (lone / "SKILL.md").rename(lone / "SKILL.real")
    os.symlink("SKILL.real", lone / "SKILL.md")

    def refuse(path, *args, **kwargs):
        if os.path.islink(path):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_readlink(path, *args, **kwargs)

    monkeypatch.setattr(os, "readlink", refuse)
    result = discover(["tree"], repo)
    assert sorted(f.root.relative_to(repo).as_posix() for f in result.packages) == ["tree/lone", "tree/real"]
    assert result.warnings == [f"{repo / 'tree' / '.claude' / 'skills' / 'proc'}: symbolic link that cannot be resolved (permission denied); not followed"]
    for verb in (("check", "--target", "all", "--no-cache"), ("catalog",), ("catalog", "--target", "claude-code")):
        code, out, err = run_cli(*verb, "tree", cwd=repo)
        assert "internal error" not in err and "Traceback" not in err, err
        assert code in (0, 1), err
