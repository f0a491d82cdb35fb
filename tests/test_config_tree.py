"""Configuration per linted tree.

`skilllint check ../other` uses ../other's configuration (the nearest going up from
each path, as ruff finds it); paths in different trees each use their own; a
configuration that came with a linted tree never makes skilllint read or write
outside it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import lint_json, run_cli, write_skill
from test_hostile import Tree as AuditedTree, run as run_audited  # the audited child-process harness


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
def test_a_tree_configuration_never_makes_skilllint_read_outside_the_tree(tmp_path):
    """Audited in a child process: catalog roots outside the tree are skipped (a warning says
    so) and never listed; the canary beside them is never read."""
    outside = tmp_path / "outside"
    installed = write_skill(outside, "skills/o", SKILL.format(name="o"))
    canary = installed / "canary.txt"
    canary.write_text("CANARY\n")
    tree = repo(tmp_path / "tree")
    make_skill(tree, "skills/t")
    (tree / "skilllint.toml").write_text(
        '[[catalog.roots]]\npath = "../outside/skills"\nscope = "user"\n\n[[catalog.roots]]\npath = "skills"\nscope = "user"\n',
        encoding="utf-8",
    )
    work = tmp_path / "work"
    work.mkdir()
    done = run_audited(AuditedTree(tree, canary), "check", "--output-format", "json", str(tree), label="tree config roots", cwd=work)
    assert "../outside/skills' lies outside" in done.err and "skipped" in done.err
    assert not [path for _, path in done.events if path.startswith(str(outside))]
