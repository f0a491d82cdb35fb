"""`skilllint catalog`: Codex's model-visible catalog for the skills under some paths."""

import json

from skilllint.catalog import codex

from conftest import run_cli, write_skill


def two_skills(tmp_path):
    write_skill(tmp_path, "alpha", "---\nname: alpha\ndescription: abcdef\n---\n")
    write_skill(tmp_path, "beta", "---\nname: beta\ndescription: uvwxyz\n---\n")
    write_skill(tmp_path, "broken", "---\nname: broken\n---\n")


def test_renders_the_codex_catalog_with_its_receipt(tmp_path):
    two_skills(tmp_path)
    paths = [str((tmp_path / s / "SKILL.md").absolute()) for s in ("alpha", "beta")]
    minimum = sum(codex.line_cost(codex.Characters(1), codex.minimum_line(n, p)) for n, p in zip(("alpha", "beta"), paths))
    code, out, err = run_cli("catalog", str(tmp_path), "--budget-chars", str(minimum + 6), "--output-format", "json")
    assert code == 0, err
    report = json.loads(out)
    receipt = report["receipt"]
    assert (receipt["total_count"], receipt["included_count"], receipt["omitted_count"]) == (2, 2, 0)
    assert [s["chars_shown"] for s in receipt["skills"]] == [2, 2]  # the first character pays for its separator
    assert report["rendered"].splitlines() == [f"- alpha: ab (file: {paths[0]})", f"- beta: uv (file: {paths[1]})"]
    assert [item["reason"] for item in report["not_loaded"]] == ["no description: Codex does not load it (SL111/SL112)"]


def test_text_receipt_names_the_warning(tmp_path):
    two_skills(tmp_path)
    code, out, _ = run_cli("catalog", str(tmp_path), "--budget-chars", "10")
    assert code == 0
    assert "omitted 2" in out
    assert "warning: Exceeded skills context budget. All skill descriptions were removed and 2 additional skills" in out


def test_context_window_sets_a_token_budget(tmp_path):
    two_skills(tmp_path)
    report = json.loads(run_cli("catalog", str(tmp_path), "--context-window", "200000", "--output-format", "json")[1])
    assert (report["receipt"]["budget_unit"], report["receipt"]["budget_limit"]) == ("tokens", 4000)


def test_bad_budget_is_a_usage_error(tmp_path):
    code, _, err = run_cli("catalog", str(tmp_path), "--budget-chars", "0")
    assert code == 2 and "positive" in err


def test_claude_code_listing_receipt(tmp_path):
    write_skill(tmp_path, "alpha", "---\nname: alpha\ndescription: " + "a" * 300 + "\n---\n")
    write_skill(tmp_path, "hidden", "---\nname: hidden\ndescription: h\ndisable-model-invocation: true\n---\n")
    write_skill(tmp_path, "bodyline", "---\nname: bodyline\n---\n\nFirst body line lists the skill.\n")
    code, out, err = run_cli("catalog", str(tmp_path), "--target", "claude-code", "--budget-chars", "100", "--output-format", "json")
    assert code == 0, err
    receipt = json.loads(out)["receipt"]
    assert (receipt["total"], receipt["included"], receipt["hidden"]) == (3, 2, 1)
    assert receipt["budget"] == {"unit": "characters", "limit": 100, "source": "budget-chars"} or receipt["budget"]["limit"] == 100
    assert receipt["over_by"] > 0 and receipt["descriptions_to_drop_estimate"] == 1
    assert {s["name"] for s in receipt["skills"]} == {"alpha", "bodyline"}
    code, _, err = run_cli("catalog", str(tmp_path), "--target", "claude-code", "--budget-tokens", "5")
    assert code == 2 and "Codex's setting" in err
