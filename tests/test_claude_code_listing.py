"""Claude Code's skill listing model (docs/surfaces.md §2b) and SL503."""

from __future__ import annotations

import textwrap

from skilllint.catalog import claude_code
from skilllint.catalog.claude_code import ListingEntry, listing


def E(name, description="", when="", hidden=False):
    return ListingEntry(name, description, when, hidden=hidden, key=name)


def test_budget_defaults():
    assert claude_code.budget_for()[0] == 8000  # unknown window: 200k assumed
    assert claude_code.budget_for(200_000)[0] == 8000
    assert claude_code.budget_for(1_000_000)[0] == 40_000
    assert claude_code.budget_for(1_000_000, budget_chars=500)[0] == 500  # fixed budget wins


def test_line_cost_is_the_documented_approximation():
    receipt = listing([E("ab", "xyz")])
    (skill,) = receipt.skills
    assert skill.cost == len("- ab: xyz\n") == 10
    assert skill.name_cost == len("- ab\n") == 5
    assert receipt.used == 10 and receipt.over_by == 0 and not receipt.over_budget
    assert receipt.descriptions_at_risk == 0 and receipt.descriptions_to_drop == 0


def test_description_and_when_to_use_are_joined_and_capped():
    receipt = listing([E("a", "d" * 1000, "w" * 1000)])
    (skill,) = receipt.skills
    assert skill.text_chars == 1536
    assert skill.cut_chars == 1000 + 1 + 1000 - 1536
    assert skill.cost == len("- a: ") + 1536 + 1
    receipt = listing([E("a", "d" * 10, "w" * 5)], max_desc_chars=12)
    assert receipt.skills[0].text_chars == 12 and receipt.skills[0].cut_chars == 4


def test_hidden_skills_are_not_listed():
    receipt = listing([E("a", "x" * 100), E("b", "y" * 5000, hidden=True)], budget_chars=200)
    assert receipt.total == 2 and receipt.included == 1 and receipt.hidden == 1
    assert [s.name for s in receipt.skills] == ["a"]
    assert not receipt.over_budget


def test_over_budget_marks_all_at_risk_and_estimates_drops_most_expensive_first():
    entries = [E("a", "x" * 100), E("b", "y" * 300), E("c", "z" * 200), E("d")]
    # costs: a 106, b 306, c 206, d (name only) 4 -> 622; names only 4 * 4 = 16
    receipt = listing(entries, budget_chars=400)
    assert receipt.used == 622 and receipt.over_by == 222
    assert receipt.descriptions_at_risk == 3  # d has none to lose
    assert receipt.descriptions_to_drop == 1  # dropping b (300 saved) fits
    assert receipt.used_after_drop == 622 - 302 <= 400  # b's line shrinks from 306 to 4
    assert {s.name for s in receipt.skills if s.estimated_dropped} == {"b"}
    assert receipt.fits_without_descriptions
    tighter = listing(entries, budget_chars=150)
    assert tighter.descriptions_to_drop == 2  # b, then c: 622 - 302 - 202 = 118
    assert tighter.used_after_drop == 118


def test_names_alone_over_budget():
    receipt = listing([E("alpha", "x" * 50), E("beta", "y" * 50)], budget_chars=10)
    assert not receipt.fits_without_descriptions
    assert receipt.descriptions_to_drop == 2 and receipt.used_after_drop == len("- alpha\n- beta\n")
    assert receipt.included == 2  # names are always listed


def test_context_window_budget():
    entries = [E(f"s{i}", "x" * 990) for i in range(10)]  # ~10,000 characters
    assert listing(entries).over_budget  # 8,000 at an unknown window
    assert not listing(entries, context_window=1_000_000).over_budget  # 40,000


def test_input_order_does_not_change_the_result():
    entries = [E("a", "x" * 100), E("b", "y" * 100), E("c", "z" * 300)]
    one = listing(entries, budget_chars=300).as_dict()
    two = listing(list(reversed(entries)), budget_chars=300).as_dict()
    assert {k: v for k, v in one.items() if k != "skills"} == {k: v for k, v in two.items() if k != "skills"}
    assert sorted(one["skills"], key=lambda s: s["name"]) == sorted(two["skills"], key=lambda s: s["name"])
    # equal costs: ties broken by name, so the same skill is estimated dropped either way
    same = [E("b", "y" * 100), E("a", "x" * 100)]
    for order in (same, list(reversed(same))):
        dropped = [s.name for s in listing(order, budget_chars=120).skills if s.estimated_dropped]
        assert dropped == ["a"]


def test_receipt_json_shape():
    data = listing([E("a", "x" * 100)], budget_chars=50).as_dict()
    assert data["budget"] == {"unit": "characters", "limit": 50, "source": "set directly"}
    assert data["over_by"] == 56 and data["descriptions_at_risk"] == 1 and data["descriptions_to_drop_estimate"] == 1
    assert "estimate" in data["note"] and "approximation" in data["line_format"]
    assert data["skills"][0] == {
        "name": "a", "chars": 100, "cut_chars": 0, "cost": 106, "name_cost": 4, "at_risk": True, "estimated_dropped": True,
    }


# -- SL503 through the engine ------------------------------------------------------


def _skill(root, name, description, extra=""):
    folder = root / ".claude" / "skills" / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {description}\n{extra}---\n\n# {name}\n", encoding="utf-8"
    )


def _run(root, config=""):
    from skilllint.config.settings import load_settings
    from skilllint.lint.engine import lint_paths
    from skilllint.registry import registry

    REGISTRY = registry()

    (root / "skilllint.toml").write_text(textwrap.dedent(config), encoding="utf-8")
    settings = load_settings(REGISTRY, root, config_path=str(root / "skilllint.toml"))
    settings.select = ["SL503"]
    result = lint_paths([str(root)], settings, root)
    assert not result.internal_errors, result.internal_errors
    return result.diagnostics


def test_sl503_over_budget(tmp_path):
    (tmp_path / ".git").mkdir()
    _skill(tmp_path, "one", "a" * 300)
    _skill(tmp_path, "two", "b" * 300, extra="when_to_use: " + "c" * 200 + "\n")
    _skill(tmp_path, "hidden", "h" * 3000, extra="disable-model-invocation: true\n")
    found = _run(tmp_path, 'targets = ["claude-code"]\n[catalog]\nbudget-chars = 600\n')
    assert sorted(d.path.parent.name for d in found) == ["one", "two"]
    messages = {d.path.parent.name: d.message for d in found}
    # one: "- one: " + 300 + "\n" = 308; two: "- two: " + 501 + "\n" = 509; total 817
    assert "~817 characters, ~217 over its 600-character budget" in messages["one"]
    assert "~1 of its 2 descriptions must be dropped" in messages["two"]
    assert "estimate" in messages["one"]
    assert "this skill's entry costs ~509 characters" in messages["two"]
    assert all(d.code == "SL503" for d in found)


def test_sl503_fits_default_budget(tmp_path):
    (tmp_path / ".git").mkdir()
    _skill(tmp_path, "one", "a" * 300)
    _skill(tmp_path, "two", "b" * 300)
    assert not _run(tmp_path, 'targets = ["claude-code"]\n')
    assert not _run(tmp_path, 'targets = ["claude-code"]\n[catalog]\ncontext-window = 200000\n')
    assert _run(tmp_path, 'targets = ["claude-code"]\n[catalog]\ncontext-window = 10000\n')  # 400 characters


def test_sl503_missing_description_lists_first_body_line(tmp_path):
    from skilllint.catalog.model import build_catalogs  # noqa: F401 - the model the rule reads

    (tmp_path / ".git").mkdir()
    folder = tmp_path / ".claude" / "skills" / "nodesc"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: nodesc\n---\n\n" + "x" * 500 + "\n", encoding="utf-8")
    found = _run(tmp_path, 'targets = ["claude-code"]\n[catalog]\nbudget-chars = 100\n')
    assert len(found) == 1 and "~511 characters" in found[0].message  # "- nodesc: " + 500 + newline
