"""Configuration per linted tree, `config --show`, `check --show-files` and `init`.

`skilllint check ../other` uses ../other's configuration (the nearest going up from
each path, as ruff finds it); paths in different trees each use their own; a
configuration that came with a linted tree never makes skilllint read or write
outside it. `config --show` says where each setting comes from, `--show-files` what
would be linted, and `init` writes a starting configuration that loads back.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import lint_json, run_cli, write_skill
from test_hostile import Tree as AuditedTree, run as run_audited  # the audited child-process harness

from skilllint.config.settings import load_settings
from skilllint.registry import registry

# SL122 (top-level version) and SL310 (a reference without a load condition)
SKILL = "---\nname: {name}\ndescription: Formats {name} tables. Use when the user pastes one.\nversion: 1\n---\n# T\n\nSee [x](references/x.md).\n"


def make_skill(base: Path, folder: str) -> Path:
    skill = write_skill(base, folder, SKILL.format(name=Path(folder).name))
    (skill / "references").mkdir()
    (skill / "references" / "x.md").write_text("# X\n", encoding="utf-8")
    return skill


def repo(path: Path, config: str | None = None, name: str = "skilllint.toml") -> Path:
    (path / ".git").mkdir(parents=True)
    if config is not None:
        (path / name).write_text(config, encoding="utf-8")
    return path


def codes(*args: str, cwd: Path) -> dict[str, set[str]]:
    """path -> the codes found there."""
    found: dict[str, set[str]] = {}
    for d in lint_json(*args, cwd=cwd)["diagnostics"]:
        found.setdefault(d["path"], set()).add(d["code"])
    return found


@pytest.fixture
def two(tmp_path: Path) -> tuple[Path, Path]:
    """work/ (where the user is; ignores SL310) and other/ (ignores SL122), both repositories with a skill."""
    work = repo(tmp_path / "work", 'ignore = ["SL310"]\n')
    other = repo(tmp_path / "other", 'ignore = ["SL122"]\n')
    make_skill(work, "skills/w")
    make_skill(other, "skills/o")
    return work, other


# -- which configuration -----------------------------------------------------------------------


def test_a_tree_linted_from_elsewhere_uses_its_own_configuration(two):
    work, other = two
    assert codes("../other", cwd=work) == {"../other/skills/o/SKILL.md": {"SL310"}}
    assert codes("../other/skills/o/SKILL.md", cwd=work) == {"../other/skills/o/SKILL.md": {"SL310"}}  # from a file
    assert codes(".", cwd=work) == {"skills/w/SKILL.md": {"SL122"}}  # the working folder's own, as before


def test_pyproject_section_is_found_from_the_linted_path(two):
    work, other = two
    (other / "skilllint.toml").unlink()
    (other / "pyproject.toml").write_text('[project]\nname = "o"\n\n[tool.skilllint]\nignore = ["SL122"]\n', encoding="utf-8")
    assert codes("../other/skills", cwd=work) == {"../other/skills/o/SKILL.md": {"SL310"}}


def test_a_path_without_a_configuration_uses_the_working_folders(two):
    work, other = two
    (other / "skilllint.toml").unlink()
    assert codes("../other", cwd=work) == {"../other/skills/o/SKILL.md": {"SL122"}}  # work's: SL310 ignored


def test_outside_a_repository_only_the_linted_folder_is_searched(tmp_path):
    (tmp_path / "skilllint.toml").write_text('ignore = ["ALL"]\n', encoding="utf-8")  # above a download: nobody's
    download = tmp_path / "download"
    make_skill(download, "s")
    work = repo(tmp_path / "work")
    assert codes("../download", cwd=work) == {"../download/s/SKILL.md": {"SL122", "SL310"}}
    (download / ".skilllint.toml").write_text('ignore = ["SL310"]\n', encoding="utf-8")  # the download's own
    assert codes("../download", cwd=work) == {"../download/s/SKILL.md": {"SL122"}}


def test_paths_in_different_trees_each_use_their_own(two):
    work, other = two
    assert codes(".", "../other", cwd=work) == {"skills/w/SKILL.md": {"SL122"}, "../other/skills/o/SKILL.md": {"SL310"}}
    report = lint_json(".", "../other", cwd=work)
    assert report["summary"]["packages"] == 2


def test_the_fail_on_of_each_tree_counts(two):
    work, other = two
    (work / "skilllint.toml").write_text('ignore = ["SL1", "SL3"]\n', encoding="utf-8")  # nothing left in work
    (other / "skilllint.toml").write_text('fail-on = "warning"\n', encoding="utf-8")
    assert run_cli("check", ".", cwd=work)[0] == 0
    assert run_cli("check", "../other", cwd=work)[0] == 1  # its warnings fail it: its own fail-on
    assert run_cli("check", ".", "../other", cwd=work)[0] == 1


def test_fix_in_another_tree_uses_its_configuration(two):
    work, other = two
    code, _, err = run_cli("check", "--fix", "../other", cwd=work)
    assert "version: 1" in (other / "skills/o/SKILL.md").read_text(encoding="utf-8")  # SL122 ignored there: not fixed
    code, _, err = run_cli("check", "--fix", ".", cwd=work)
    assert "version: 1" not in (work / "skills/w/SKILL.md").read_text(encoding="utf-8"), err


def test_catalog_of_a_tree_elsewhere_uses_its_configuration(two):
    work, other = two
    (other / "skilllint.toml").write_text("[catalog]\nbudget-chars = 77\n", encoding="utf-8")
    code, out, err = run_cli("catalog", "--output-format", "json", "../other", cwd=work)
    assert code == 0, err
    assert json.loads(out)["catalogs"][0]["budget"]["limit"] == 77
    code, _, err = run_cli("catalog", ".", "../other", cwd=work)
    assert code == 2 and "different configurations" in err


def test_config_option_overrides_every_tree(two):
    work, other = two
    found = codes("--config", "skilllint.toml", ".", "../other", cwd=work)
    assert found == {"skills/w/SKILL.md": {"SL122"}, "../other/skills/o/SKILL.md": {"SL122"}}


def test_a_folder_holding_a_path_with_another_configuration_is_refused(two):
    work, other = two
    nested = make_skill(work, "vendor/v")
    (nested / "skilllint.toml").write_text('ignore = ["ALL"]\n', encoding="utf-8")
    code, out, err = run_cli("check", ".", "vendor/v", cwd=work)
    assert code == 2 and "vendor/v uses the configuration" in err and "separate runs" in err
    # alone, the nested folder uses its own; the walk of `.` reads no configuration below it
    assert codes("vendor/v", cwd=work) == {}
    assert codes(".", cwd=work) == {"skills/w/SKILL.md": {"SL122"}, "vendor/v/SKILL.md": {"SL122"}, "vendor/v/skilllint.toml": {"SL304"}}


# -- a configuration that came with the tree stays in it --------------------------------------


def test_cache_dir_of_a_tree_configuration_must_lie_in_its_folder(tmp_path):
    work = repo(tmp_path / "work")
    outer = repo(tmp_path / "outer")  # a repository holding a vendored skill with its own configuration
    vendored = make_skill(outer, "vendor/v")
    (vendored / "skilllint.toml").write_text('cache-dir = "../../escape"\n', encoding="utf-8")
    code, _, err = run_cli("check", "../outer/vendor/v", cwd=work)
    assert code == 2 and "cache-dir" in err and "leads outside" in err
    code, _, err = run_cli("check", "vendor/v", cwd=outer)  # from the repository too: the folder is its own
    assert code == 2 and "leads outside" in err
    assert not (outer / "escape").exists()
    (vendored / "skilllint.toml").write_text('cache-dir = ".cache"\n', encoding="utf-8")
    assert run_cli("check", "../outer/vendor/v", cwd=work)[0] == 0
    assert (vendored / ".cache").is_dir()  # inside: used


@pytest.mark.e2e
@pytest.mark.parametrize("where", ["tree", "work"])
def test_a_configuration_never_makes_skilllint_read_outside_its_repository(tmp_path, where):
    """Audited in a child process: a configuration's catalog root outside its repository is refused
    (exit 2, naming --catalog-root) whether the tree is linted from elsewhere or from inside it, as
    pre-commit and a CI job run it; nothing beside the root is ever read."""
    outside = tmp_path / "outside"
    installed = write_skill(outside, "skills/o", SKILL.format(name="o"))
    canary = installed / "canary.txt"
    canary.write_text("CANARY\n")
    tree = repo(tmp_path / "tree")
    make_skill(tree, "skills/t")
    (tree / "skilllint.toml").write_text(
        '[[catalog.roots]]\npath = "skills"\nscope = "user"\n\n[[catalog.roots]]\npath = "../outside/skills"\nscope = "user"\n',
        encoding="utf-8",
    )
    work = tmp_path / "work"
    work.mkdir()
    args = ("check", "--output-format", "json") + ((str(tree),) if where == "tree" else ())
    done = run_audited(AuditedTree(tree, canary), *args, label="config roots", cwd=work if where == "tree" else tree, expect=(2,))
    assert "catalog.roots: '../outside/skills' leads outside" in done.err and "--catalog-root" in done.err
    assert not [path for _, path in done.events if path.startswith(str(outside))]


def test_a_catalog_root_in_the_users_home_comes_only_from_the_command_line(tmp_path, monkeypatch):
    home = tmp_path / "home"
    write_skill(home / ".claude" / "skills", "deploy", SKILL.format(name="deploy"))
    monkeypatch.setenv("HOME", str(home))
    work = repo(tmp_path / "work", '[[catalog.roots]]\npath = "~/.claude/skills"\nscope = "user"\n')
    make_skill(work, ".claude/skills/deploy")
    code, _, err = run_cli("check", ".", cwd=work)
    assert code == 2 and "'~/.claude/skills' leads outside" in err
    code, out, _ = run_cli("config", "--show", cwd=work)
    assert code == 2
    (work / "skilllint.toml").write_text("")
    report = lint_json(".", "--select", "SL511", "--catalog-root", "user=~/.claude/skills", cwd=work)
    assert [d["code"] for d in report["diagnostics"]] == ["SL511"]  # the user's own root: obeyed


def test_a_link_inside_the_repository_that_leads_out_is_outside(tmp_path):
    installed = write_skill(tmp_path / "installed", "o", SKILL.format(name="o")).parent
    work = repo(tmp_path / "work", '[[catalog.roots]]\npath = "vendor"\nscope = "user"\n')
    make_skill(work, "skills/w")
    (work / "vendor").symlink_to(installed, target_is_directory=True)
    code, _, err = run_cli("check", ".", cwd=work)
    assert code == 2 and "'vendor' leads outside" in err
    (work / "vendor").unlink()
    write_skill(work / "vendor", "v", SKILL.format(name="v"))
    code, _, err = run_cli("check", ".", cwd=work)
    assert code == 1 and "leads outside" not in err  # a folder of the repository is fine


# -- config --show -------------------------------------------------------------------------------


def _shown(out: str) -> dict[str, tuple[str, str]]:
    """key -> (value, source) of `config --show`."""
    rows = {}
    for line in out.splitlines():
        if line.startswith("#") or not line:
            continue
        key, _, rest = line.partition(" = ")
        value, _, source = rest.rpartition("  # ")
        rows[key] = (value, source)
    return rows


def test_config_show_says_where_each_setting_comes_from(tmp_path):
    text = (
        "#:schema x\n"
        'ignore = ["SL131"]\n'
        'extend-select = ["SL203"]\n'
        "exclude = [\n"
        '  "a = b",\n'  # a line of a value, not a key
        "]\n"
        'output-format = "concise"\n'
        "\n"
        "[rules.skill-md-too-long]\n"  # a rule by its name
        "max-lines = 400\n"
        "\n"
        "[catalog]\n"
        "context-window = 200000\n"
    )
    work = repo(tmp_path, text)
    code, out, err = run_cli("config", "--show", "--extend-select", "SL1", "--fail-on", "warning", cwd=work)
    assert code == 0, err
    rows = _shown(out)
    assert rows["ignore"] == ('["SL131"]', "skilllint.toml:2")
    assert rows["extend-select"] == ('["SL203", "SL1"]', "skilllint.toml:3 + command line")
    assert rows["exclude"] == ('["a = b"]', "skilllint.toml:4")
    assert rows["output-format"] == ('"concise"', "skilllint.toml:7")
    assert rows["fail-on"] == ('"warning"', "command line")
    assert rows["select"][1] == "default" and rows["targets"][1] == "default"
    assert rows["rules.SL201.max-lines"] == ("400", "skilllint.toml:10")
    assert rows["catalog.context-window"] == ("200000", "skilllint.toml:13")
    assert "# configuration: skilllint.toml" in out


def test_config_show_reads_pyproject_lines_and_keys_in_strings_are_not_keys(tmp_path):
    text = '[project]\nname = "x"\ndescription = """\nignore = 3\n"""\n\n[tool.skilllint]\nignore = ["SL131"]\nrules = { SL201 = { max-lines = 10 } }\n'
    work = repo(tmp_path, text, name="pyproject.toml")
    rows = _shown(run_cli("config", "--show", cwd=work)[1])
    assert rows["ignore"] == ('["SL131"]', "pyproject.toml:8")
    assert rows["rules.SL201.max-lines"] == ("10", "pyproject.toml:9")  # an inline table: its key's line


def test_config_show_for_a_tree_elsewhere(two):
    work, other = two
    code, out, _ = run_cli("config", "--show", "../other", cwd=work)
    assert code == 0
    assert _shown(out)["ignore"] == ('["SL122"]', "../other/skilllint.toml:1")
    assert "came with the linted tree" in out
    code, out, _ = run_cli("config", "--show", ".", "../other", cwd=work)
    assert out.count("# configuration:") == 2


def test_config_show_with_a_bad_configuration_is_an_error(tmp_path):
    work = repo(tmp_path, "ignore = [\n")
    code, out, err = run_cli("config", "--show", cwd=work)
    assert code == 2 and "invalid TOML" in err and "Traceback" not in err


# -- check --show-files ----------------------------------------------------------------------------


def test_show_files_lists_each_skill_with_its_targets(two):
    work, other = two
    write_skill(work, ".claude/skills/c", SKILL.format(name="c"))
    write_skill(work, "drafts/d", SKILL.format(name="d"))
    (work / "skilllint.toml").write_text('exclude = ["drafts/"]\n', encoding="utf-8")
    code, out, err = run_cli("check", "--show-files", ".", "../other", cwd=work)
    assert code == 0, err
    assert out.splitlines() == ["../other/skills/o\tagentskills", ".claude/skills/c\tclaude-code", "skills/w\tagentskills"]
    assert lint_json(".", "../other", cwd=work)["summary"]["packages"] == 3  # what check lints
    code, out, _ = run_cli("check", "--show-files", "--target", "codex,copilot", "skills", cwd=work)
    assert out == "skills/w\tcodex,copilot\n"


# -- init ----------------------------------------------------------------------------------------


def _settings_fields(settings) -> dict:
    return {
        name: getattr(settings, name)
        for name in ("targets", "select", "extend_select", "ignore", "per_file_ignores", "exclude", "respect_gitignore",
                     "fail_on", "output_format", "rule_config", "catalog", "cache", "cache_dir", "max_findings_per_rule_per_file")
    }


def test_init_writes_a_configuration_that_loads_back(tmp_path):
    work = repo(tmp_path / "work")
    write_skill(work, ".claude/skills/a", SKILL.format(name="a"))
    write_skill(work, ".claude/skills/b", SKILL.format(name="b"))
    without = lint_json(".", cwd=work)
    code, out, err = run_cli("init", cwd=work)
    assert code == 0, err
    written = (work / "skilllint.toml").read_text(encoding="utf-8")
    # no public home yet (skilllint.HOMEPAGE): the first line says how to make the schema line offline
    assert written.startswith("# For completion in an editor: `skilllint config --schema > .skilllint.schema.json`")
    assert 'targets = ["claude-code"]' in written
    loaded = load_settings(registry(), work)
    assert loaded.config_path == work / "skilllint.toml"
    expected = _settings_fields(load_settings(registry(), tmp_path / "nowhere", overrides={"targets": ["claude-code"]}))
    assert _settings_fields(loaded) == expected
    assert lint_json(".", cwd=work)["diagnostics"] == without["diagnostics"]  # the same run as without it


def test_init_leaves_inference_on_where_skills_imply_different_targets(tmp_path):
    work = repo(tmp_path / "work")
    write_skill(work, ".claude/skills/a", SKILL.format(name="a"))
    write_skill(work, "skills/b", SKILL.format(name="b"))
    sub = work / "sub"
    sub.mkdir()
    assert run_cli("init", "sub", cwd=work)[0] == 0  # the folder given
    assert (sub / "skilllint.toml").is_file()
    assert run_cli("init", cwd=work)[0] == 0
    written = (work / "skilllint.toml").read_text(encoding="utf-8")
    assert "\ntargets =" not in written and "claude-code: .claude/skills/a" in written
    assert load_settings(registry(), work).targets is None


@pytest.mark.parametrize(
    "name, text",
    [("skilllint.toml", "ignore = []\n"), (".skilllint.toml", ""), ("pyproject.toml", "[tool.skilllint]\nignore = []\n")],
)
def test_init_never_overwrites_nor_shadows_a_configuration(tmp_path, name, text):
    work = repo(tmp_path / "work", text, name=name)
    code, out, err = run_cli("init", cwd=work)
    assert code == 2 and f"{name} exists already" in err
    assert (work / name).read_text(encoding="utf-8") == text
    assert (name == "skilllint.toml") == (work / "skilllint.toml").exists()


def test_init_beside_a_pyproject_without_a_section_and_into_no_folder(tmp_path):
    work = repo(tmp_path / "work", '[project]\nname = "x"\n', name="pyproject.toml")
    assert run_cli("init", cwd=work)[0] == 0 and (work / "skilllint.toml").is_file()
    code, _, err = run_cli("init", "missing", cwd=work)
    assert code == 2 and "not a folder" in err


def test_init_never_writes_through_a_link(tmp_path):
    work = repo(tmp_path / "work")
    (work / "skilllint.toml").symlink_to(tmp_path / "elsewhere.toml")  # dangling
    code, _, err = run_cli("init", cwd=work)
    assert code == 2 and "exists already" in err
    assert not (tmp_path / "elsewhere.toml").exists()
