"""`skilllint catalog`: each surface's model-visible catalog for the skills under some paths, with a receipt."""

import json
import re
from pathlib import Path

import jsonschema
import pytest

from skilllint.catalog import codex, copilot

from conftest import run_cli, write_skill

SCHEMA = json.loads((Path(__file__).parent.parent / "skilllint" / "schemas" / "catalog.schema.json").read_text())


def catalog_json(*args, cwd=None) -> dict:
    code, out, err = run_cli("catalog", *args, "--output-format", "json", cwd=cwd)
    assert code == 0, err
    report = json.loads(out)
    jsonschema.validate(report, SCHEMA)  # every report the tests see is checked against the published schema
    return report


def two_skills(tmp_path):
    write_skill(tmp_path, "alpha", "---\nname: alpha\ndescription: abcdef\n---\n")
    write_skill(tmp_path, "beta", "---\nname: beta\ndescription: uvwxyz\n---\n")
    write_skill(tmp_path, "broken", "---\nname: broken\n---\n")


def test_renders_the_codex_catalog_with_its_receipt(tmp_path):
    two_skills(tmp_path)
    paths = [str((tmp_path / s / "SKILL.md").absolute()) for s in ("alpha", "beta")]
    minimum = sum(codex.line_cost(codex.Characters(1), codex.minimum_line(n, p)) for n, p in zip(("alpha", "beta"), paths))
    report = catalog_json(str(tmp_path), "--budget-chars", str(minimum + 6))
    (receipt,) = report["catalogs"]
    assert (receipt["total"], receipt["included"], receipt["omitted"]) == (2, 2, 0)
    assert receipt["budget"] == {"unit": "characters", "limit": minimum + 6, "source": "set directly"}
    assert [s["chars_shown"] for s in receipt["skills"]] == [2, 2]  # the first character pays for its separator
    # a full line adds the description and one space to the minimum line
    assert [s["full_cost"] - s["minimum_cost"] for s in receipt["skills"]] == [len("abcdef "), len("uvwxyz ")]
    assert receipt["rendered"].splitlines() == [f"- alpha: ab (file: {paths[0]})", f"- beta: uv (file: {paths[1]})"]
    assert (receipt["descriptions_truncated"], receipt["truncated_characters"]) == (2, 8)
    assert [item["reason"] for item in report["not_loaded"]] == ["no description: Codex does not load it (SL111/SL112)"]


def test_text_receipt_names_the_warning(tmp_path):
    two_skills(tmp_path)
    code, out, _ = run_cli("catalog", str(tmp_path), "--budget-chars", "10")
    assert code == 0
    assert "omitted 2" in out
    assert "warning: Exceeded skills context budget. All skill descriptions were removed and 2 additional skills" in out


def test_context_window_sets_a_token_budget(tmp_path):
    two_skills(tmp_path)
    (receipt,) = catalog_json(str(tmp_path), "--context-window", "200000")["catalogs"]
    assert (receipt["budget"]["unit"], receipt["budget"]["limit"]) == ("tokens", 4000)


def test_the_command_line_budget_replaces_the_configured_one(tmp_path):
    two_skills(tmp_path)
    (tmp_path / ".skilllint.toml").write_text("[catalog]\nbudget-chars = 10\n")
    assert catalog_json(str(tmp_path), cwd=tmp_path)["catalogs"][0]["budget"]["limit"] == 10
    assert catalog_json(str(tmp_path), "--context-window", "100000", cwd=tmp_path)["catalogs"][0]["budget"]["limit"] == 2000


def test_bad_budget_is_a_usage_error(tmp_path):
    code, _, err = run_cli("catalog", str(tmp_path), "--budget-chars", "0")
    assert code == 2 and "positive" in err


def test_claude_code_listing_receipt(tmp_path):
    write_skill(tmp_path, "alpha", "---\nname: alpha\ndescription: " + "a" * 300 + "\n---\n")
    write_skill(tmp_path, "hidden", "---\nname: hidden\ndescription: h\ndisable-model-invocation: true\n---\n")
    write_skill(tmp_path, "bodyline", "---\nname: bodyline\n---\n\nFirst body line lists the skill.\n")
    (receipt,) = catalog_json(str(tmp_path), "--target", "claude-code", "--budget-chars", "100")["catalogs"]
    surface = receipt["surface"]
    assert (surface["total"], surface["included"], surface["hidden"]) == (3, 2, 1)
    assert receipt["budget"]["limit"] == 100 and surface["over_by"] > 0 and surface["descriptions_to_drop_estimate"] == 1
    assert {s["name"]: s["chars_shown"] for s in receipt["skills"]} == {"alpha": 0, "bodyline": 32}  # the dearest goes
    assert receipt["rendered"].splitlines() == ["- alpha", "- bodyline: First body line lists the skill."]
    code, _, err = run_cli("catalog", str(tmp_path), "--target", "claude-code", "--budget-tokens", "5")
    assert code == 2 and "Codex's setting" in err


def test_copilot_listing_stops_at_the_first_skill_that_does_not_fit(tmp_path):
    for name, size in (("a-skill", 10), ("b-skill", 300), ("c-skill", 5)):
        write_skill(tmp_path, name, f"---\nname: {name}\ndescription: {'d' * size}\n---\n")
    first = len(copilot.block("a-skill", "d" * 10)) + 1
    (receipt,) = catalog_json(str(tmp_path), "--target", "copilot", "--budget-chars", str(first + 200))["catalogs"]
    # b-skill does not fit; c-skill would, but the loop has stopped (a hard stop, not a skip)
    assert [(s["name"], s["included"]) for s in receipt["skills"]] == [("a-skill", True), ("b-skill", False), ("c-skill", False)]
    assert (receipt["included"], receipt["omitted"], receipt["budget_used"]) == (1, 2, first)
    assert receipt["warning"] == "<!-- Showing 1 of 3 skills due to token limits -->"
    assert receipt["rendered"].endswith(receipt["warning"]) and "<name>a-skill</name>" in receipt["rendered"]


@pytest.mark.parametrize("target", ["codex", "claude-code", "copilot"])
def test_installed_skills_join_the_catalog_with_their_scope(tmp_path, target):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    write_skill(repo / "skills", "mine", "---\nname: mine\ndescription: Mine. Use when asked.\n---\n")
    write_skill(tmp_path / "home", "theirs", "---\nname: theirs\ndescription: Theirs. Use when asked.\n---\n")
    (receipt,) = catalog_json("skills", "--target", target, "--catalog-root", f"user={tmp_path / 'home'}", cwd=repo)["catalogs"]
    assert {(s["name"], s["scope"], s["linted"]) for s in receipt["skills"]} == {("mine", "repo", True), ("theirs", "user", False)}


def test_the_issue_example_runs_on_the_corpus(corpus):
    """The 417-skill awesome-copilot collection at a 200k window, per surface (figures in the session note).

    Codex's minimum line carries the absolute SKILL.md path, so how many skills it lists depends on where the
    corpus sits (135 under /work/shared/corpus, 128 under /check/work/shared/corpus): pin the shape instead.
    Claude Code loads `<skills folder>/<name>/SKILL.md` only: the 15 skills nested inside other skills'
    folders are not in its catalog.
    """
    expected = {"claude-code": (402, 402, 0), "copilot": (417, 32, 385)}
    for target, counts in expected.items():
        report = catalog_json("--target", target, "--context-window", "200000", str(corpus / "github__awesome-copilot" / "skills"))
        (receipt,) = report["catalogs"]
        assert (receipt["total"], receipt["included"], receipt["omitted"]) == counts
        if target != "claude-code":  # Claude Code's names alone exceed its 8,000 characters: nothing fits
            assert receipt["budget_used"] <= receipt["budget"]["limit"]
    report = catalog_json("--target", "codex", "--context-window", "200000", str(corpus / "github__awesome-copilot" / "skills"))
    (receipt,) = report["catalogs"]
    omitted = [s for s in receipt["skills"] if not s["included"]]
    assert receipt["total"] == 417 and receipt["budget"]["limit"] == 4000 and 100 < receipt["included"] < 200
    assert receipt["omitted"] == len(omitted) == 417 - receipt["included"]
    assert all(s["chars_shown"] == 0 for s in receipt["skills"])  # every description removed
    # full as it can be: no omitted skill's minimum line fits into what is left
    assert receipt["budget_used"] <= 4000 < receipt["budget_used"] + min(s["minimum_cost"] for s in omitted)
    assert f"{receipt['omitted']} additional skills were not included" in receipt["warning"]


# Names and descriptions that try to drive the terminal or forge receipt lines: OSC (set the
# title), CSI (colour, clear screen), 8-bit CSI, CR, LF, bidi override and isolate, DEL.
HOSTILE_FRONTMATTER = (
    "---\n"
    'name: "evil\\e]0;pwned\\a\\x9b31m"\n'
    'description: "Does things.\\r  - good: included, forged\\nRender receipt: forged \\u202egnp\\u2066 \\x7f\\e[2J end"\n'
    "---\n"
    "# Evil\n"
)
TERMINAL_HOSTILE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


@pytest.mark.parametrize("target", ["codex", "claude-code", "copilot"])
def test_the_text_receipt_escapes_names_and_descriptions(tmp_path, target):
    write_skill(tmp_path, "evil", HOSTILE_FRONTMATTER)
    code, out, err = run_cli("catalog", "--target", target, str(tmp_path))
    assert code == 0, err
    raw = sorted({f"U+{ord(c):04X}" for c in TERMINAL_HOSTILE.findall(out + err)})
    assert not raw, f"raw {raw} in the {target} receipt"
    assert "evil\\x1b]0;pwned\\x07\\x9b31m" in out and "\\u202egnp\\u2066" in out
    # Every line is the receipt's own, or indented into the rendered catalog: a line break in
    # a description (the model sees it) cannot start a line that passes for the receipt's.
    own = ("== ", "Render receipt: ", "  total ", "  - evil\\x1b", "  warning: ", "not loaded: ", "    ")
    assert all(line.startswith(own) or not line for line in out.splitlines()), out
    assert sum(line.startswith("Render receipt: ") for line in out.splitlines()) == 1


def test_the_json_receipt_is_utf8_and_keeps_hostile_text_as_escapes(tmp_path):
    root = write_skill(tmp_path, "evil", HOSTILE_FRONTMATTER)
    code, out, err = run_cli("catalog", "--target", "claude-code", "--output-format", "json", str(tmp_path))
    assert code == 0, err
    assert not re.search("[\x7f-\x9f\u202a-\u202e\u2066-\u2069]", out), "raw C1 or bidi controls in the JSON text"
    (receipt,) = json.loads(out)["catalogs"]
    (skill,) = receipt["skills"]
    assert skill["name"] == "evil\x1b]0;pwned\x07\x9b31m" and skill["path"] == str(root / "SKILL.md")  # the same values
    assert "Render receipt: forged \u202egnp\u2066 \x7f\x1b[2J end" in receipt["rendered"]


def _repository_with_three_catalogs(tmp_path):
    """Codex reads .agents/skills and .codex/skills together; skills/ is another catalog."""
    (tmp_path / ".git").mkdir()
    for folder in (".agents/skills/alpha", ".agents/skills/beta", ".codex/skills/gamma", "skills/delta", "other/skills/zeta"):
        name = folder.rsplit("/", 1)[1]
        write_skill(tmp_path / folder.rsplit("/", 1)[0], name, f"---\nname: {name}\ndescription: Drafts {name}. Use when asked.\n---\n")
    return tmp_path


@pytest.mark.parametrize("path", [".agents/skills/alpha", ".agents/skills", ".codex/skills/gamma/SKILL.md"])
def test_only_the_catalogs_the_paths_belong_to_labelled_by_their_real_roots(tmp_path, path):
    repo = _repository_with_three_catalogs(tmp_path)
    (receipt,) = catalog_json(path, cwd=repo)["catalogs"]  # not skills/ nor other/skills: no skill given is in them
    assert receipt["kind"] == "surface-roots"
    assert receipt["roots"] == [str(repo / ".agents" / "skills"), str(repo / ".codex" / "skills")]
    assert [s["name"] for s in receipt["skills"]] == ["alpha", "beta", "gamma"]  # the whole catalog, siblings included
    code, out, err = run_cli("catalog", path, cwd=repo)
    assert code == 0, err
    assert [line for line in out.splitlines() if line.startswith("==")] == [
        "== codex catalog of .agents/skills, .codex/skills (surface-roots; model: exact)"
    ]


def test_every_catalog_of_the_paths_and_each_named_by_its_folder(tmp_path):
    repo = _repository_with_three_catalogs(tmp_path)
    report = catalog_json(".", cwd=repo)
    assert [(c["kind"], c["roots"]) for c in report["catalogs"]] == [
        ("surface-roots", [str(repo / ".agents" / "skills"), str(repo / ".codex" / "skills")]),
        ("collection", [str(repo / "other" / "skills")]),
        ("collection", [str(repo / "skills")]),
    ]
    code, out, _ = run_cli("catalog", "skills", "other", cwd=repo)
    assert [line for line in out.splitlines() if line.startswith("==")] == [
        "== codex catalog of other/skills (collection; model: exact)",
        "== codex catalog of skills (collection; model: exact)",
    ]
    # from inside a skills folder too, a catalog is named as the repository knows its folders
    code, out, _ = run_cli("catalog", ".", cwd=repo / ".agents" / "skills")
    assert [line for line in out.splitlines() if line.startswith("==")] == [
        "== codex catalog of .agents/skills, .codex/skills (surface-roots; model: exact)"
    ]
