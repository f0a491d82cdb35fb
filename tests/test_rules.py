"""Behaviour of individual rules beyond their rule-book examples."""

from conftest import lint_json, write_skill


def codes_and_targets(report):
    return {(d["code"], tuple(d["targets"])) for d in report["diagnostics"]}


def test_codex_counts_the_plugin_prefix_toward_the_name_limit(tmp_path):
    name = "a" * 55
    (tmp_path / ".codex-plugin").mkdir()
    (tmp_path / ".codex-plugin" / "plugin.json").write_text('{"name": "my-plugin-namespace"}')
    write_skill(tmp_path / "skills", name, f"---\nname: {name}\ndescription: D. Use when x.\n---\n")
    report = lint_json(str(tmp_path), "--target", "codex,agentskills", "--select", "SL103", cwd=tmp_path)
    assert [(d["targets"], "my-plugin-namespace" in d["message"]) for d in report["diagnostics"]] == [(["codex"], True)]


def test_a_key_known_to_one_selected_target_is_sl127_not_sl121(tmp_path):
    write_skill(tmp_path, "x", "---\nname: x\ndescription: D. Use when x.\nargument-hint: '[file]'\ncolour: red\n---\n")
    report = lint_json(str(tmp_path), "--target", "claude-code,claude-api", "--select", "SL121,SL127", cwd=tmp_path)
    found = {(d["code"], d["message"].split(" ")[0], tuple(d["targets"])) for d in report["diagnostics"]}
    assert ("SL127", "`argument-hint`", ("claude-api",)) in found
    assert ("SL121", "unknown", ("claude-code", "claude-api")) in found
    assert not any(code == "SL121" and key == "`argument-hint`" for code, key, _ in found)


def test_version_is_sl122_only(tmp_path):
    write_skill(tmp_path, "x", "---\nname: x\ndescription: D. Use when x.\nversion: 1.0\n---\n")
    report = lint_json(str(tmp_path), "--target", "all", cwd=tmp_path)
    assert {d["code"] for d in report["diagnostics"]} == {"SL122"}


def test_bom_is_named_as_the_cause(tmp_path):
    write_skill(tmp_path, "x", "\ufeff---\nname: x\ndescription: D. Use when x.\n---\n")
    report = lint_json(str(tmp_path), cwd=tmp_path)
    assert [d["code"] for d in report["diagnostics"]] == ["SL003"]
    assert "byte-order mark" in report["diagnostics"][0]["message"]


def test_fence_inside_block_scalar_closes_codex_early(tmp_path):
    text = "---\nname: x\ndescription: |\n  Steps:\n  ---\n  Use when x.\n---\nbody\n"
    write_skill(tmp_path, "x", text)
    report = lint_json(str(tmp_path), "--target", "codex,agentskills", "--select", "SL010", cwd=tmp_path)
    assert [(d["targets"], d["line"]) for d in report["diagnostics"]] == [(["codex"], 5)]


def test_yes_as_a_name_is_a_boolean_for_pyyaml_readers_only(tmp_path):
    write_skill(tmp_path, "yes", "---\nname: yes\ndescription: D. Use when x.\n---\n")
    report = lint_json(str(tmp_path), "--target", "claude-api,skills-ref,copilot", "--select", "SL102", cwd=tmp_path)
    assert [d["targets"] for d in report["diagnostics"]] == [["claude-api"]]
    assert "got bool" in report["diagnostics"][0]["message"]


def test_block_list_value_points_at_its_key(tmp_path):
    write_skill(tmp_path, "x", "---\nname: x\ndescription: D. Use when x.\nallowed-tools:\n  - Read\n  - Grep\n---\n")
    report = lint_json(str(tmp_path), "--select", "SL125", cwd=tmp_path)
    assert [(d["line"], d["column"]) for d in report["diagnostics"]] == [(4, 1)]


def test_a_correct_key_of_another_surface_gets_no_self_suggestion(tmp_path):
    write_skill(tmp_path, "x", "---\nname: x\ndescription: D. Use when x.\nargument-hint: '[file]'\neffort: high\n---\n")
    messages = [d["message"] for d in lint_json(str(tmp_path), "--select", "SL121", cwd=tmp_path)["diagnostics"]]
    assert len(messages) == 2 and not any("did you mean" in m for m in messages)


def test_a_typo_still_gets_its_suggestion(tmp_path):
    write_skill(tmp_path, "x", "---\nname: x\ndescription: D. Use when x.\ndescripton: typo\nallowed_tools: Read\n---\n")
    messages = sorted(d["message"] for d in lint_json(str(tmp_path), "--select", "SL121", cwd=tmp_path)["diagnostics"])
    assert "did you mean `allowed-tools`?" in messages[0] and "did you mean `description`?" in messages[1]


def test_argument_hint_written_as_a_flow_list_is_reported_for_claude_code(tmp_path):
    write_skill(tmp_path, "x", "---\nname: x\ndescription: D. Use when x.\nargument-hint: [apk-file]\n---\n")
    report = lint_json(str(tmp_path), "--select", "SL126", "--target", "claude-code", cwd=tmp_path)
    assert [(d["severity"], "quote it" in d["message"]) for d in report["diagnostics"]] == [("warning", True)]


def test_sl104_names_every_character_class_that_is_not_allowed(tmp_path):
    write_skill(tmp_path, "x", "---\nname: My Skill.v2\ndescription: D. Use when x.\n---\n")
    report = lint_json(str(tmp_path), "--target", "agentskills,skills-ref", "--select", "SL104", cwd=tmp_path)
    by_target = {d["targets"][0]: d["message"] for d in report["diagnostics"] if "may only hold" in d["message"]}
    assert by_target["agentskills"].endswith(
        "uppercase 'M' and 'S' (use 'm', 's') and a space and '.' are not allowed"
    )
    ref = [d["message"] for d in report["diagnostics"] if d["targets"] == ["skills-ref"]]
    assert any("contains invalid characters" in m for m in ref)  # the validator's own words stay verbatim


def _sl131(tmp_path, frontmatter):
    write_skill(tmp_path, "csv-cleaner", f"---\n{frontmatter}---\n# x\n")
    report = lint_json(str(tmp_path), "--target", "codex", "--select", "SL131", cwd=tmp_path)
    return [d["message"] for d in report["diagnostics"]]


def test_sl131_reports_a_layout_the_one_line_catalog_loses(tmp_path):
    listed = "description: |\n  Cleans CSV exports. Use when:\n  - dates are mixed\n  - columns shift\n"
    assert _sl131(tmp_path, "name: csv-cleaner\n" + listed) == [
        "`description` lays out a list on separate lines; Codex joins them into one run-on line"
    ]


def test_sl131_is_silent_on_wrapped_prose_and_doubled_spaces(tmp_path):
    wrapped = "description: |\n  Cleans CSV exports before analysis. Use when a CSV has\n  mixed date  formats.\n\n  Also for TSV.\n"
    assert _sl131(tmp_path, "name: csv-cleaner\n" + wrapped) == []


def test_sl131_reports_any_collapse_in_a_name(tmp_path):
    assert _sl131(tmp_path, "name: 'csv  cleaner'\ndescription: Cleans CSV. Use when asked.\n") == [
        "`name` holds runs of whitespace; Codex collapses them to single spaces"
    ]
