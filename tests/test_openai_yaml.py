"""agents/openai.yaml as Codex reads it (SL601-SL606, skilllint/skill/openai_yaml/reader.py).

Each case writes a skill with an agents/openai.yaml and checks what Codex's
loader (serde_yaml into loader.rs's structs, docs/surfaces.md §3b) would make of it:
which findings, where they point (line and column in agents/openai.yaml), and
whether :func:`implicit_invocation_allowed` takes the skill out of the catalog.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import lint_json, write_skill

from skilllint.skill.openai_yaml.reader import implicit_invocation_allowed, load
from skilllint.skill.package import SkillPackage

SKILL = """---
name: {name}
description: A test skill for agents/openai.yaml checks. Use when testing skilllint.
---

# {name}
"""


def make(base: Path, yaml: str | bytes | None, name: str = "demo", files: tuple[str, ...] = ()) -> Path:
    (base / ".git").mkdir(parents=True, exist_ok=True)  # a repository root: no config above is read
    skill = write_skill(base, name, SKILL.format(name=name))
    if yaml is not None:
        (skill / "agents").mkdir(exist_ok=True)
        target = skill / "agents" / "openai.yaml"
        if isinstance(yaml, bytes):
            target.write_bytes(yaml)
        else:
            target.write_text(yaml, encoding="utf-8")
    for rel in files:
        (skill / rel).parent.mkdir(parents=True, exist_ok=True)
        (skill / rel).write_bytes(b"<svg/>")
    return skill


def findings(skill: Path, select: str = "SL6", target: str = "codex") -> list[dict]:
    result = lint_json("--target", target, "--select", select, str(skill), cwd=skill.parent)
    return result["diagnostics"]


def only(found: list[dict], code: str) -> dict:
    matching = [d for d in found if d["code"] == code]
    assert len(matching) == 1, [(d["code"], d["message"]) for d in found]
    return matching[0]


# -- a valid file: nothing, and the catalog keeps the skill -------------------------------

VALID = """interface:
  display_name: "Figma"
  short_description: "Use Figma MCP for design-to-code work"
  icon_small: "./assets/figma-small.svg"
  icon_large: "assets/figma.png"
  brand_color: "#3B82F6"
  default_prompt: "Use $demo to help with design-to-code implementation."

dependencies:
  tools:
    - type: "mcp"
      value: "figma"
      description: "Figma MCP server"
      transport: "streamable_http"
      url: "https://mcp.figma.com/mcp"
policy:
  allow_implicit_invocation: true
  products: [codex, CHATGPT]
"""


def test_a_valid_file_gives_nothing(tmp_path):
    skill = make(tmp_path, VALID, files=("assets/figma-small.svg", "assets/figma.png"))
    assert findings(skill) == []
    assert implicit_invocation_allowed(SkillPackage(skill)) is True


def test_json_form_and_empty_file_give_nothing(tmp_path):
    skill = make(tmp_path / "a", '{"interface": {"display_name": "UI Skill"}, "policy": {}}\n')
    assert findings(skill) == []
    skill = make(tmp_path / "b", "# only a comment\n")
    assert findings(skill) == []


def test_only_the_codex_target_is_concerned(tmp_path):
    skill = make(tmp_path, "interface:\n  brand_color: blue\n")
    assert findings(skill, target="agentskills") == []
    assert findings(skill, target="claude-code") == []
    assert [d["code"] for d in findings(skill, target="codex")] == ["SL603"]


# -- SL601: Codex ignores the whole file ------------------------------------------------


def test_yaml_syntax_error_points_at_the_problem(tmp_path):
    skill = make(tmp_path, "interface:\n  display_name: [unclosed\npolicy:\n  allow_implicit_invocation: false\n")
    d = only(findings(skill), "SL601")
    assert d["path"].endswith("agents/openai.yaml")
    assert d["line"] >= 2
    assert "not valid YAML" in d["message"] and "ignores all of it" in d["message"]
    # the policy the author wrote is lost with the file: say so
    assert "allow_implicit_invocation: false" in d["message"]
    assert implicit_invocation_allowed(SkillPackage(skill)) is True


def test_top_level_list_or_scalar_is_not_a_mapping(tmp_path):
    d = only(findings(make(tmp_path / "a", "- interface\n- policy\n")), "SL601")
    assert "holds a list, not a mapping" in d["message"] and (d["line"], d["column"]) == (1, 1)
    d = only(findings(make(tmp_path / "b", "\"just text\"\n")), "SL601")
    assert "not a mapping" in d["message"]


def test_a_known_field_written_twice_makes_serde_reject_the_file(tmp_path):
    skill = make(tmp_path, "interface:\n  display_name: A\n  display_name: B\n")
    d = only(findings(skill), "SL601")
    assert (d["line"], d["column"]) == (3, 3)
    assert "written twice in `interface` (first on line 2)" in d["message"]
    assert "duplicate field" in d["message"]


def test_an_unknown_key_written_twice_is_not_a_serde_error(tmp_path):
    skill = make(tmp_path, "interface:\n  display_name: A\nnotes: 1\nnotes: 2\n")
    assert {d["code"] for d in findings(skill)} == {"SL602"}


def test_not_utf8_is_reported_at_the_byte(tmp_path):
    skill = make(tmp_path, b"interface:\n  display_name: \"caf\xe9\"\n")
    d = only(findings(skill), "SL601")
    assert (d["line"], d["column"]) == (2, 21)
    assert "not UTF-8" in d["message"]


def test_a_misnamed_file_is_never_read(tmp_path):
    skill = make(tmp_path, None)
    (skill / "agents").mkdir()
    (skill / "agents" / "openai.yml").write_text("policy:\n  allow_implicit_invocation: false\n")
    d = only(findings(skill), "SL601")
    assert d["path"].endswith("agents/openai.yml")
    assert "opens only `agents/openai.yaml`" in d["message"]
    assert implicit_invocation_allowed(SkillPackage(skill)) is True


def test_a_byte_order_mark_is_accepted(tmp_path):
    skill = make(tmp_path, "\ufeffpolicy:\n  allow_implicit_invocation: false\n".encode("utf-8"))
    assert findings(skill) == []
    assert implicit_invocation_allowed(SkillPackage(skill)) is False


# -- SL602: fields dropped or ignored ---------------------------------------------------


def test_limits_after_whitespace_collapse(tmp_path):
    name = "x" * 60 + "   \n    " + "y" * 3  # 64 characters once collapsed: kept
    skill = make(tmp_path / "a", f"interface:\n  display_name: \"{name}\"\n")
    assert findings(skill) == []
    skill = make(tmp_path / "b", "interface:\n  display_name: \"" + "z" * 65 + "\"\n")
    d = only(findings(skill), "SL602")
    assert (d["line"], d["column"]) == (2, 17)
    assert "65 characters, over Codex's 64-character limit" in d["message"]
    assert d["severity"] == "warning"


def test_dependency_limits_drop_the_whole_entry(tmp_path):
    skill = make(tmp_path, "dependencies:\n  tools:\n    - type: \"" + "m" * 65 + "\"\n      value: github\n")
    d = only(findings(skill), "SL602")
    assert "dependencies.tools[0].type" in d["message"] and "whole `dependencies.tools` entry" in d["message"]


def test_empty_strings_are_dropped_but_a_bare_key_is_just_absent(tmp_path):
    skill = make(tmp_path, "interface:\n  display_name: \"  \"\n  short_description:\n  default_prompt: ~\n")
    d = only(findings(skill), "SL602")
    assert "`interface.display_name` is empty" in d["message"]


def test_wrong_type_makes_codex_ignore_the_whole_file(tmp_path):
    skill = make(tmp_path, "interface:\n  display_name: [a, b]\npolicy:\n  allow_implicit_invocation: false\n")
    d = only(findings(skill), "SL602")
    assert (d["line"], d["column"]) == (2, 17)
    assert "is a list, where Codex expects a string" in d["message"]
    assert "ignores all of it" in d["message"]
    # serde fails on the whole file, so the valid-looking policy is lost too
    assert implicit_invocation_allowed(SkillPackage(skill)) is True


def test_scalars_are_strings_to_serde(tmp_path):
    skill = make(tmp_path, "interface:\n  display_name: 123\n  short_description: true\n")
    assert findings(skill) == []


def test_section_of_the_wrong_kind(tmp_path):
    d = only(findings(make(tmp_path / "a", "interface: \"Figma\"\n")), "SL602")
    assert "`interface` is the string 'Figma', where Codex expects a mapping" in d["message"]
    d = only(findings(make(tmp_path / "b", "dependencies:\n  tools:\n    type: mcp\n    value: x\n")), "SL602")
    assert "`dependencies.tools` is a mapping, where Codex expects a list of tools" in d["message"]


def test_unknown_keys_are_info_with_a_suggestion(tmp_path):
    skill = make(tmp_path, "interface:\n  displayName: X\n  display-name: Y\nallow_implicit_invocation: false\nextra: 1\n")
    found = sorted(findings(skill), key=lambda d: d["line"])
    assert [d["code"] for d in found] == ["SL602"] * 4
    assert all(d["severity"] == "info" for d in found)
    assert "did you mean `display_name`?" in found[0]["message"]
    assert "did you mean `display_name`?" in found[1]["message"]
    assert "belongs under `policy:`" in found[2]["message"]
    assert found[3]["message"].startswith("`extra` is not a field Codex reads")
    # a policy at the wrong level is not read
    assert implicit_invocation_allowed(SkillPackage(skill)) is True


def test_merge_keys_are_not_applied(tmp_path):
    text = "base: &base\n  display_name: X\ninterface:\n  <<: *base\n"
    found = findings(make(tmp_path, text))
    merge = [d for d in found if "merge key" in d["message"]]
    assert len(merge) == 1 and (merge[0]["line"], merge[0]["column"]) == (4, 3)


# -- SL603 brand colour -----------------------------------------------------------------


@pytest.mark.parametrize(
    "value, expected",
    [
        ("\"blue\"", "'blue', not `#RRGGBB`"),
        ("\"#abc\"", "write the six-digit form `#aabbcc`"),
        ("\"3B82F6\"", "add the `#`: `#3B82F6`"),
        ("\"#3B82F6FF\"", "drop the alpha digits: `#3B82F6`"),
        ("\"\"", "`interface.brand_color` is empty"),
    ],
)
def test_brand_color(tmp_path, value, expected):
    d = only(findings(make(tmp_path, f"interface:\n  brand_color: {value}\n")), "SL603")
    assert expected in d["message"]
    assert d["line"] == 2


def test_an_unquoted_colour_is_a_comment(tmp_path):
    d = only(findings(make(tmp_path, "interface:\n  brand_color: #D83A34\n")), "SL603")
    assert (d["line"], d["column"], d["end_column"]) == (2, 16, 23)
    assert "starts a YAML comment" in d["message"] and '`brand_color: "#D83A34"`' in d["message"]


def test_a_commented_out_value_that_is_no_colour_is_left_alone(tmp_path):
    assert findings(make(tmp_path, "interface:\n  brand_color: # TODO pick one\n")) == []


# -- SL604 icons ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path, expected",
    [
        ("/opt/icons/x.png", "absolute path"),
        ("icon.png", "is not under `assets/`"),
        ("Assets/icon.png", "spelled `assets` exactly"),
        ("assets\\\\icon.png", "not `\\`"),
        ("../icon.png", "contains `..`"),
        ("./assets/../icon.png", "contains `..`"),
        ("assets/missing.png", "does not exist in the skill"),
        ("assets", "a folder, not an image"),
    ],
)
def test_icon_paths(tmp_path, path, expected):
    skill = make(tmp_path, f"interface:\n  icon_small: \"{path}\"\n", files=("assets/icon.png",))
    d = only(findings(skill), "SL604")
    assert expected in d["message"], d["message"]
    assert (d["line"], d["column"]) == (2, 15)


def test_icon_case_mismatch_names_the_real_file(tmp_path):
    skill = make(tmp_path, "interface:\n  icon_large: ./assets/Logo.svg\n", files=("assets/logo.svg",))
    d = only(findings(skill), "SL604")
    assert "did you mean `assets/logo.svg`?" in d["message"]


def test_icon_in_a_folder_is_fine(tmp_path):
    skill = make(tmp_path, "interface:\n  icon_large: ./assets/img/logo.svg\n", files=("assets/img/logo.svg",))
    assert findings(skill) == []


def test_plugin_shared_icons(tmp_path):
    plugin = tmp_path / "plug"
    (plugin / ".codex-plugin").mkdir(parents=True)
    (plugin / ".codex-plugin" / "plugin.json").write_text('{"name": "plug"}')
    (tmp_path / ".git").mkdir()
    skill = write_skill(plugin / "skills", "demo", SKILL.format(name="demo"))
    (skill / "agents").mkdir()
    (skill / "agents" / "openai.yaml").write_text(
        "interface:\n  icon_small: ../../assets/icon.png\n  icon_large: ../../other/icon.png\n"
    )
    d = only(findings(plugin), "SL604")
    assert d["line"] == 3 and "does not lead into the plugin's `assets/` folder" in d["message"]
    # Linted on its own, the plugin is above the linted folder: a `..` into some assets/ is not judged.
    assert [x["line"] for x in findings(skill)] == [3]


def test_an_icon_link_out_of_the_skill_is_not_followed(tmp_path):
    outside = tmp_path / "outside.png"
    outside.write_bytes(b"x")
    skill = make(tmp_path / "repo", "interface:\n  icon_small: assets/icon.png\n")
    (skill / "assets").mkdir()
    os.symlink(outside, skill / "assets" / "icon.png")
    d = only(findings(skill), "SL604")
    assert "outside the skill" in d["message"]


# -- SL605 dependencies -----------------------------------------------------------------


def test_tools_entries_without_type_or_value_are_dropped(tmp_path):
    text = "dependencies:\n  tools:\n    - value: github\n    - type: mcp\n    -\n"
    found = [d for d in findings(make(tmp_path, text)) if d["code"] == "SL605"]
    assert [(d["line"], d["severity"]) for d in found] == [(3, "warning"), (4, "warning"), (5, "warning")]
    assert "has no `type`: Codex drops the whole entry" in found[0]["message"]
    assert "has no `value`" in found[1]["message"]
    assert "has no `type` or `value`" in found[2]["message"]


def test_a_non_mcp_type_is_documentation_only(tmp_path):
    text = "dependencies:\n  tools:\n    - type: cli\n      value: gh\n    - type: MCP\n      value: x\n"
    found = [d for d in findings(make(tmp_path, text)) if d["code"] == "SL605"]
    assert [(d["line"], d["column"], d["severity"]) for d in found] == [(3, 13, "info"), (5, 13, "info")]
    assert "documents only `mcp`" in found[0]["message"]
    assert "write `mcp` in lower case" in found[1]["message"]


# -- SL606 policy and the catalog --------------------------------------------------------


@pytest.mark.parametrize(
    "value, words",
    [
        ("\"false\"", ["the string 'false', not a boolean", "write `allow_implicit_invocation: false` unquoted", "`$demo`"]),
        ("no", ["`no`, not a boolean", "unquoted"]),
        ("yes", ["`yes`, not a boolean", "write `true` unquoted"]),
        ("0", ["`0`, not a boolean"]),
        ("[false]", ["a list, not a boolean"]),
    ],
)
def test_allow_implicit_invocation_must_be_a_plain_boolean(tmp_path, value, words):
    skill = make(tmp_path, f"interface:\n  display_name: X\npolicy:\n  allow_implicit_invocation: {value}\n")
    d = only(findings(skill), "SL606")
    for word in words:
        assert word in d["message"], d["message"]
    assert "ignores the whole `agents/openai.yaml`" in d["message"]
    assert (d["line"], d["column"]) == (4, 30)
    assert implicit_invocation_allowed(SkillPackage(skill)) is True


@pytest.mark.parametrize("value", ["false", "False", "FALSE", "!!bool false"])
def test_false_takes_the_skill_out_of_the_catalog(tmp_path, value):
    skill = make(tmp_path, f"policy:\n  allow_implicit_invocation: {value}\n")
    assert findings(skill) == []
    assert implicit_invocation_allowed(SkillPackage(skill)) is False


def test_no_file_or_null_policy_keeps_the_skill(tmp_path):
    assert implicit_invocation_allowed(SkillPackage(make(tmp_path / "a", None))) is True
    assert implicit_invocation_allowed(SkillPackage(make(tmp_path / "b", "policy:\n  allow_implicit_invocation:\n"))) is True


def test_false_through_an_alias(tmp_path):
    skill = make(tmp_path, "x: &off false\npolicy:\n  allow_implicit_invocation: *off\n")
    assert implicit_invocation_allowed(SkillPackage(skill)) is False


# -- robustness -------------------------------------------------------------------------


def test_an_alias_bomb_is_reported_not_expanded(tmp_path):
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 9):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]")
    lines.append("interface: *a8")
    found = findings(make(tmp_path, "\n".join(lines) + "\n"))
    assert found and {d["code"] for d in found} <= {"SL601", "SL602"}


def test_a_link_out_of_the_skill_is_not_read(tmp_path):
    outside = tmp_path / "secret.yaml"
    outside.write_text("policy:\n  allow_implicit_invocation: false\n")
    skill = make(tmp_path / "repo", None)
    (skill / "agents").mkdir()
    os.symlink(outside, skill / "agents" / "openai.yaml")
    assert findings(skill) == []
    model = load(SkillPackage(skill))
    assert model.text is None and implicit_invocation_allowed(SkillPackage(skill)) is True


def test_a_link_inside_the_skill_is_read(tmp_path):
    skill = make(tmp_path, None)
    (skill / "agents").mkdir()
    (skill / "agents" / "real.yaml").write_text("policy:\n  allow_implicit_invocation: false\n")
    os.symlink("real.yaml", skill / "agents" / "openai.yaml")
    assert implicit_invocation_allowed(SkillPackage(skill)) is False


def test_a_folder_named_openai_yaml(tmp_path):
    skill = make(tmp_path, None)
    (skill / "agents" / "openai.yaml").mkdir(parents=True)
    d = only(findings(skill), "SL601")
    assert "is a folder" in d["message"]


def test_the_real_openai_yaml_files_in_the_corpus_are_clean(corpus):
    files = sorted(corpus.rglob("agents/openai.yaml"))
    assert len(files) >= 70
    skills = sorted({str(f.parent.parent) for f in files})
    result = lint_json("--target", "codex", "--select", "SL6", *skills, cwd=corpus)
    assert result["diagnostics"] == []
    assert result["summary"]["packages"] == len(skills)
