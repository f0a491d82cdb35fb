"""Configuration discovery, validation, selection and per-rule settings."""

import os
from pathlib import Path

import pytest

from skilllint.config.settings import ConfigError, load_settings
from skilllint.diagnostics import Severity
from skilllint.registry import registry

from conftest import deadline, lint_json, run_cli, write_skill

REG = registry()
BAD_NAME = "---\nname: Bad_Name\ndescription: Does things. Use when asked.\n---\nbody\n"


def settings_in(tmp_path: Path, text: str, name: str = ".skilllint.toml"):
    (tmp_path / name).write_text(text, encoding="utf-8")
    return load_settings(REG, tmp_path)


def enabled(settings):
    return {rule.code for rule in settings.enabled_rules()}


def test_defaults_enable_every_rule_but_opt_in_ones(tmp_path):
    codes = enabled(load_settings(REG, tmp_path))
    assert "SL201" in codes and "SL106" in codes
    assert "SL203" not in codes  # opt-in


def test_select_prefix_includes_opt_in_rules(tmp_path):
    codes = enabled(settings_in(tmp_path, 'select = ["SL2"]'))
    assert codes == {"SL201", "SL202", "SL203", "SL204", "SL205"}


def test_all_selects_everything(tmp_path):
    assert "SL203" in enabled(settings_in(tmp_path, 'select = ["ALL"]'))


def test_more_specific_selector_wins_and_ignore_wins_ties(tmp_path):
    codes = enabled(settings_in(tmp_path, 'ignore = ["SL1"]\nextend-select = ["SL106"]'))
    assert "SL106" in codes and "SL104" not in codes
    codes = enabled(settings_in(tmp_path, 'select = ["SL106"]\nignore = ["SL106"]'))
    assert "SL106" not in codes


def test_extend_select_adds_opt_in_to_the_defaults(tmp_path):
    codes = enabled(settings_in(tmp_path, 'extend-select = ["SL203"]'))
    assert "SL203" in codes and "SL201" in codes


def test_pyproject_section_is_found_walking_up(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.skilllint]\nignore = ["SL106"]\n', encoding="utf-8")
    (tmp_path / ".git").mkdir()
    nested = tmp_path / "a" / "b"
    nested.mkdir(parents=True)
    settings = load_settings(REG, nested)
    assert settings.config_path == tmp_path / "pyproject.toml"
    assert "SL106" not in enabled(settings)


def test_pyproject_without_section_is_skipped(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n", encoding="utf-8")
    (tmp_path / "skilllint.toml").write_text('fail-on = "info"\n', encoding="utf-8")
    assert load_settings(REG, tmp_path).fail_on == Severity.INFO


def test_discovery_stops_at_the_repository_root(tmp_path):
    (tmp_path / ".skilllint.toml").write_text('ignore = ["SL1"]\n', encoding="utf-8")
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    assert load_settings(REG, repo).config_path is None


@pytest.mark.parametrize("name", [".skilllint.toml", "skilllint.toml", "pyproject.toml"])
def test_outside_a_repository_only_the_working_folder_is_searched(tmp_path, name):
    # A configuration above a downloaded skill (in /tmp, a shared folder) is nobody's choice:
    # it must neither silence findings nor place the cache (ruff climbs to /, yamllint to ~).
    text = 'ignore = ["ALL"]\ncache-dir = "elsewhere"\n'
    (tmp_path / name).write_text(text if name != "pyproject.toml" else "[tool.skilllint]\n" + text, encoding="utf-8")
    download = tmp_path / "download"
    write_skill(download, "bad", BAD_NAME)
    assert load_settings(REG, download).config_path is None
    assert any(d["code"] == "SL104" for d in lint_json(".", cwd=download)["diagnostics"])
    assert not (tmp_path / "elsewhere").exists()
    (download / name).write_text(text if name != "pyproject.toml" else "[tool.skilllint]\n" + text, encoding="utf-8")
    assert load_settings(REG, download).config_path == download / name  # the working folder's own


def test_inside_a_repository_discovery_climbs_to_its_root(tmp_path):
    (tmp_path / "skilllint.toml").write_text('ignore = ["SL1"]\n', encoding="utf-8")
    (tmp_path / ".git").write_text("gitdir: /elsewhere/.git/worktrees/x\n")  # a worktree's .git is a file
    nested = tmp_path / "a" / "b"
    nested.mkdir(parents=True)
    assert load_settings(REG, nested).config_path == tmp_path / "skilllint.toml"


def _integer_options(schema: dict, where: str = ""):
    """(place, schema) of every integer in the configuration schema."""
    if schema.get("type") == "integer":
        yield where, schema
    for key in ("properties", "additionalProperties", "items"):
        value = schema.get(key)
        if isinstance(value, dict):
            children = value.items() if key == "properties" else [(key, value)]
            for name, child in children:
                if isinstance(child, dict):
                    yield from _integer_options(child, f"{where}.{name}")


def test_every_size_or_count_option_has_a_ceiling():
    from skilllint.config.settings import config_schema

    options = list(_integer_options(config_schema(REG)))
    assert len(options) >= 10  # SL011's max-bytes, the rules' limits, the catalog's budgets
    assert [where for where, schema in options if "maximum" not in schema] == []


def test_max_bytes_over_its_ceiling_is_an_error_and_reading_stays_bounded(tmp_path):
    from skilllint.fsafe import MAX_READ_BYTES

    with pytest.raises(ConfigError) as info:
        settings_in(tmp_path, f"[rules.SL011]\nmax-bytes = {2**32}\n")
    assert "max-bytes" in str(info.value) and f"{MAX_READ_BYTES}" in str(info.value)
    assert settings_in(tmp_path, f"[rules.SL011]\nmax-bytes = {MAX_READ_BYTES}\n").read_cap() == MAX_READ_BYTES
    settings = load_settings(REG, tmp_path)
    settings.rule_config["SL011"] = {"max-bytes": 2**32}  # settings made without the schema
    assert settings.read_cap() == MAX_READ_BYTES


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("select = [", "invalid TOML"),
        ('selekt = ["SL1"]', "selekt"),
        ('select = ["SL999"]', "matches no rule"),
        ('targets = ["nosuch"]', "nosuch"),
        ('fail-on = "fatal"', "fail-on"),
        ("[rules.SL201]\nmax-lines = -3", "max-lines"),
        ("[rules.SL201]\nmax-line = 3", "max-line"),
        ("[rules.SL999]\nseverity = 'error'", "SL999"),
        ("[rules.SL201]\nseverity = 'fatal'", "severity"),
    ],
)
def test_bad_config_is_a_clear_error(tmp_path, text, fragment):
    with pytest.raises(ConfigError) as info:
        settings_in(tmp_path, text)
    assert fragment in str(info.value)


@pytest.mark.parametrize("kind", ["fifo", "folder", "broken-link"])
def test_a_discovered_config_that_is_no_regular_file_is_an_error_not_skipped(tmp_path, kind):
    # Passing over it would lint with the next config up (or none): settings the user did not choose.
    (tmp_path / ".git").mkdir()
    (tmp_path / "pyproject.toml").write_text('[tool.skilllint]\nignore = ["SL1"]\n', encoding="utf-8")
    config = tmp_path / "skilllint.toml"
    if kind == "fifo":
        os.mkfifo(config)  # read_capped opens with O_NONBLOCK after lstat: it never blocks
    elif kind == "folder":
        config.mkdir()
    else:
        os.symlink("nowhere.toml", config)
    reason = {"fifo": "is a FIFO", "folder": "is a directory", "broken-link": "is a symbolic link"}[kind]
    with deadline(), pytest.raises(ConfigError) as info:
        load_settings(REG, tmp_path)
    assert str(info.value).startswith(f"{config}: cannot read the configuration ({reason}")


def test_an_explicit_config_that_is_no_regular_file_says_what_it_is(tmp_path):
    os.mkfifo(tmp_path / "pipe.toml")
    with deadline(), pytest.raises(ConfigError) as info:
        load_settings(REG, tmp_path, "pipe.toml")
    assert str(info.value) == f"{tmp_path / 'pipe.toml'}: cannot read the configuration (is a FIFO, not a regular file)"
    os.symlink("gone.toml", tmp_path / "dangling.toml")
    for missing in ("absent.toml", "dangling.toml"):  # nothing there, directly or at the end of a link
        with pytest.raises(ConfigError, match="config file not found"):
            load_settings(REG, tmp_path, missing)


def test_bad_config_exits_2_without_traceback(tmp_path):
    (tmp_path / ".skilllint.toml").write_text("select = [\n", encoding="utf-8")
    code, out, err = run_cli("check", str(tmp_path), cwd=tmp_path)
    assert code == 2
    assert "invalid TOML" in err and "Traceback" not in err


def test_an_exclude_pattern_git_cannot_read_is_a_config_error(tmp_path):
    """`exclude = ["a\\"]` or a per-file-ignores key `!` would match nothing: exit 2, saying which."""
    write_skill(tmp_path, "skills/a", "---\nname: a\ndescription: Does a. Use when a.\n---\nBody.\n")
    for config, key, pattern in (
        ('exclude = ["drafts/", "a\\\\"]\n', "exclude", "'a\\\\'"),
        ('extend-exclude = ["!"]\n', "extend-exclude", "'!'"),
        ('[per-file-ignores]\n"!" = ["SL101"]\n', "per-file-ignores", "'!'"),
    ):
        (tmp_path / ".skilllint.toml").write_text(config, encoding="utf-8")
        code, out, err = run_cli("check", str(tmp_path), cwd=tmp_path)
        assert code == 2, (config, err)
        assert f"{key}: {pattern} is not a gitignore pattern git can read" in err and "Traceback" not in err, err


def test_rule_options_and_severity_override_by_code_or_name(tmp_path):
    body = "\n".join(f"line {i}" for i in range(30))
    write_skill(tmp_path, "long-skill", f"---\nname: long-skill\ndescription: Long. Use when testing.\n---\n{body}\n")
    (tmp_path / ".skilllint.toml").write_text(
        '[rules.skill-md-too-long]\nmax-lines = 10\nseverity = "error"\n', encoding="utf-8"
    )
    report = lint_json(str(tmp_path), cwd=tmp_path)
    found = [d for d in report["diagnostics"] if d["code"] == "SL201"]
    assert len(found) == 1 and found[0]["severity"] == "error"
    assert "over 10" in found[0]["message"]


def test_per_file_ignores(tmp_path):
    write_skill(tmp_path / "legacy", "Bad_Name", BAD_NAME)
    write_skill(tmp_path / "current", "Bad_Name", BAD_NAME)
    (tmp_path / ".skilllint.toml").write_text('[per-file-ignores]\n"legacy/**" = ["SL104"]\n', encoding="utf-8")
    report = lint_json(str(tmp_path), cwd=tmp_path)
    paths = {d["path"] for d in report["diagnostics"] if d["code"] == "SL104"}
    assert paths == {"current/Bad_Name/SKILL.md"}


def test_targets_from_config_override_inference(tmp_path):
    write_skill(tmp_path, "Bad_Name", BAD_NAME)
    (tmp_path / ".skilllint.toml").write_text('targets = ["skills-ref", "claude-api"]\n', encoding="utf-8")
    report = lint_json(str(tmp_path), cwd=tmp_path)
    targets = {t for d in report["diagnostics"] for t in d["targets"]}
    assert targets <= {"skills-ref", "claude-api"} and targets


def test_command_line_overrides_config(tmp_path):
    write_skill(tmp_path, "Bad_Name", BAD_NAME)
    (tmp_path / ".skilllint.toml").write_text('select = ["SL104"]\n', encoding="utf-8")
    report = lint_json(str(tmp_path), "--select", "SL106", cwd=tmp_path)
    assert {d["code"] for d in report["diagnostics"]} == set()  # folder matches: SL106 silent, SL104 deselected
    report = lint_json(str(tmp_path), cwd=tmp_path)
    assert {d["code"] for d in report["diagnostics"]} == {"SL104"}


def test_each_setting_is_declared_once_in_the_table_of_keys(tmp_path):
    """The schema, the defaults, the loader and `config --show` all come from config/keys.py's KEYS:
    the schema's keys are the table's; a fresh Settings holds each key's default; `config --show`
    prints a line for each key that is a value of its own."""
    from skilllint.config.keys import KEYS
    from skilllint.config.settings import config_schema, settings_from
    from skilllint.cli.config_show import settings_lines

    assert list(config_schema(REG)["properties"]) == [key.name for key in KEYS]
    settings = settings_from(REG, None, tmp_path)
    for key in KEYS:
        if key.attr is not None:
            assert getattr(settings, key.attr) == key.default, key.name
    shown = {line.split(" = ", 1)[0] for line in settings_lines(settings, tmp_path) if not line.startswith("#")}
    assert shown == {key.name for key in KEYS if key.attr is not None and not key.table and key.name != "rules"}
    # a default is a fresh copy: one run's settings never share a list with another's
    other = settings_from(REG, None, tmp_path)
    other.exclude.append("x/")
    assert settings.exclude == []
