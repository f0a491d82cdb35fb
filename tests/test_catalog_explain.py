"""`skilllint catalog --explain` (the discovery log) and `--tiers` (the disclosure ladder)."""

import json
from pathlib import Path

import jsonschema
import pytest

from skilllint.app.disclosure_tiers import skill_tiers
from skilllint.catalog import claude_code, codex
from skilllint.catalog.discovery_log import DiscoveryLog
from skilllint.catalog.model import build_catalogs
from skilllint.skill.package import SkillPackage
from skilllint.skill.size.tokens import count_tokens

from conftest import run_cli, write_skill

SCHEMA = json.loads((Path(__file__).parent.parent / "skilllint" / "schemas" / "catalog.schema.json").read_text())


def explain_json(*args, cwd=None) -> dict:
    code, out, err = run_cli("catalog", *args, "--explain", "--output-format", "json", cwd=cwd)
    assert code == 0, err
    report = json.loads(out)
    jsonschema.validate(report, SCHEMA)
    return report


def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    return root


def skill(base: Path, folder: str, name: str, description: str = "Does a thing. Use when asked.", extra: str = "") -> Path:
    return write_skill(base, folder, f"---\nname: {name}\ndescription: {description}\n{extra}---\n# {name}\n")


def candidates(receipt: dict) -> dict:
    return {(c["name"], c["scope"]): c for c in receipt["explain"]["candidates"]}


def test_a_shadowed_skill_names_its_winner_under_the_surface_precedence(tmp_path):
    root = repo(tmp_path)
    skill(root / ".claude" / "skills", "deploy", "deploy")
    skill(root / ".claude" / "skills", "other", "other")
    skill(tmp_path / "home", "deploy", "deploy", "The user's own deploy. Use when deploying.")
    report = explain_json(".claude/skills", "--target", "claude-code", "--catalog-root", f"user={tmp_path / 'home'}", cwd=root)
    (receipt,) = report["catalogs"]
    found = candidates(receipt)
    shadowed = found[("deploy", "repo")]
    assert shadowed["fate"] == "shadowed" and shadowed["linted"]
    assert str(tmp_path / "home" / "deploy" / "SKILL.md") in shadowed["reason"] and "user-scope" in shadowed["reason"]
    assert found[("deploy", "user")]["fate"] == "listed" and not found[("deploy", "user")]["linted"]
    assert found[("other", "repo")]["fate"] == "listed"
    assert receipt["explain"]["precedence"] == ["admin", "user", "repo", "system"]
    (collision,) = receipt["explain"]["collisions"]
    assert collision["name"] == "deploy" and {s["fate"] for s in collision["skills"]} == {"shadowed", "listed"}
    # the receipt agrees: the shadowed skill is not in the listing
    assert sorted((s["name"], s["scope"]) for s in receipt["skills"]) == [("deploy", "user"), ("other", "repo")]


def test_codex_keeps_both_same_named_skills_and_says_so(tmp_path):
    root = repo(tmp_path)
    skill(root / ".agents" / "skills", "deploy", "deploy")
    skill(tmp_path / "home", "deploy", "deploy")
    (receipt,) = explain_json(".agents/skills", "--catalog-root", f"user={tmp_path / 'home'}", cwd=root)["catalogs"]
    assert receipt["explain"]["precedence"] is None
    assert {c["fate"] for c in receipt["explain"]["candidates"]} == {"listed"}
    (collision,) = receipt["explain"]["collisions"]
    assert "keeps and lists every one" in collision["effect"]


def test_precedence_across_every_scope_and_the_roots_searched(tmp_path):
    root = repo(tmp_path)
    skill(root / ".claude" / "skills", "fmt", "fmt")
    for scope in ("user", "admin", "system"):
        skill(tmp_path / scope, "fmt", "fmt", f"The {scope} formatter. Use when formatting.")
    roots = [f"{scope}={tmp_path / scope}" for scope in ("system", "user", "admin")]
    args = [a for r in roots for a in ("--catalog-root", r)] + ["--catalog-root", f"user={tmp_path / 'nowhere'}"]
    report = explain_json(".claude/skills", "--target", "claude-code", *args, cwd=root)
    (receipt,) = report["catalogs"]
    fates = {c["scope"]: c["fate"] for c in receipt["explain"]["candidates"]}
    assert fates == {"repo": "shadowed", "user": "shadowed", "admin": "listed", "system": "shadowed"}
    assert all(str(tmp_path / "admin") in c["reason"] for c in receipt["explain"]["candidates"] if c["fate"] == "shadowed")
    searched = {(Path(r["path"]), r["scope"], r["how"]): (r["found"], r["note"]) for r in report["explain"]["searched"]}
    assert searched[(root / ".claude" / "skills", "repo", "named")] == (1, None)
    for scope in ("user", "admin", "system"):
        assert searched[(tmp_path / scope, scope, "configured")] == (1, None)
    assert searched[(tmp_path / "nowhere", "user", "configured")] == (0, "not a folder; skipped")


def test_siblings_searched_for_a_skill_named_alone(tmp_path):
    root = repo(tmp_path)
    skill(root / ".agents" / "skills", "one", "one")
    skill(root / ".agents" / "skills", "two", "two")
    report = explain_json(".agents/skills/one", cwd=root)
    searched = {(Path(r["path"]), r["how"]): r["found"] for r in report["explain"]["searched"]}
    assert searched[(root / ".agents" / "skills" / "one", "named")] == 1
    assert searched[(root, "siblings")] == 2  # the repository's surface roots, walked for the rest of the catalog
    (receipt,) = report["catalogs"]
    assert {(c["name"], c["linted"]) for c in receipt["explain"]["candidates"]} == {("one", True), ("two", False)}


def test_rejected_candidates_say_why(tmp_path):
    root = repo(tmp_path)
    skills = root / ".claude" / "skills"
    skill(skills, "good", "good")
    skill(skills / "good" / "parts", "inner", "inner")  # nested in another skill, and two folders deep
    write_skill(skills, "lower", "---\nname: lower\ndescription: x\n---\n")
    (skills / "lower" / "SKILL.md").rename(skills / "lower" / "skill.md")
    (skills / "empty").mkdir()  # a folder of a skills root without SKILL.md
    report = explain_json(".claude/skills", "--target", "claude-code", cwd=root)
    rejected = {Path(item["path"]).relative_to(skills).as_posix(): item["reason"] for item in report["explain"]["rejected"]}
    assert set(rejected) == {"good/parts/inner/SKILL.md", "lower/skill.md", "empty/SKILL.md"}
    assert "folders deep below" in rejected["good/parts/inner/SKILL.md"] and "lists `<skills folder>/<name>/SKILL.md` only" in rejected["good/parts/inner/SKILL.md"]
    assert "reads `SKILL.md` only" in rejected["lower/skill.md"]
    assert "no readable SKILL.md" in rejected["empty/SKILL.md"]
    (receipt,) = report["catalogs"]
    assert [c["name"] for c in receipt["explain"]["candidates"]] == ["good"]


def test_codex_rejections_and_hidden_skills(tmp_path):
    root = repo(tmp_path)
    skills = root / ".agents" / "skills"
    skill(skills, "good", "good")
    write_skill(skills, "broken", "---\nname: [unclosed\n---\nbody\n")  # frontmatter Codex cannot read
    skill(skills / ".drafts", "draft", "draft")  # under a dot-folder
    skill(skills, "quiet", "quiet")
    (skills / "quiet" / "agents").mkdir()
    (skills / "quiet" / "agents" / "openai.yaml").write_text("policy:\n  allow_implicit_invocation: false\n")
    write_skill(skills, "blank", "---\nname: blank\n---\nbody\n")  # no description
    report = explain_json(".agents/skills", cwd=root)
    rejected = {Path(item["path"]).parent.name: item["reason"] for item in report["explain"]["rejected"]}
    assert "cannot read" in rejected["broken"]
    assert "dot-folder `.drafts`" in rejected["draft"]
    (receipt,) = report["catalogs"]
    found = {c["name"]: c for c in receipt["explain"]["candidates"]}
    assert found["quiet"]["fate"] == "hidden" and "allow_implicit_invocation: false" in found["quiet"]["reason"]
    assert found["blank"]["fate"] == "not loaded" and "no description" in found["blank"]["reason"]
    assert found["good"]["fate"] == "listed"


def test_disabled_model_invocation_is_hidden_on_claude_code(tmp_path):
    root = repo(tmp_path)
    skill(root / ".claude" / "skills", "manual", "manual", extra="disable-model-invocation: true\n")
    (receipt,) = explain_json(".claude/skills", "--target", "claude-code", cwd=root)["catalogs"]
    (item,) = receipt["explain"]["candidates"]
    assert item["fate"] == "hidden" and "disable-model-invocation: true" in item["reason"]


def test_cut_and_omitted_entries_follow_the_codex_render(tmp_path):
    skill(tmp_path, "alpha", "alpha", "abcdefghij")
    skill(tmp_path, "beta", "beta", "klmnopqrst")
    paths = [str((tmp_path / s / "SKILL.md").absolute()) for s in ("alpha", "beta")]
    minimum = [codex.line_cost(codex.Characters(1), codex.minimum_line(n, p)) for n, p in zip(("alpha", "beta"), paths)]
    # both shortest lines and a few description characters: both cut
    (receipt,) = explain_json(str(tmp_path), "--budget-chars", str(sum(minimum) + 6))["catalogs"]
    found = {c["name"]: c for c in receipt["explain"]["candidates"]}
    shown = {s["name"]: s["chars_shown"] for s in receipt["skills"]}
    assert {c["fate"] for c in found.values()} == {"shortened"}
    for name in ("alpha", "beta"):
        assert f"description cut to {shown[name]} of 10 characters" in found[name]["reason"]
        assert shown[name] < 10
        assert f"over the budget of {sum(minimum) + 6:,} characters" in found[name]["reason"]
    # room for one shortest line only: the other is left out
    (receipt,) = explain_json(str(tmp_path), "--budget-chars", str(max(minimum)))["catalogs"]
    fates = {c["name"]: c["fate"] for c in receipt["explain"]["candidates"]}
    included = {s["name"]: s["included"] for s in receipt["skills"]}
    assert sorted(fates.values()) == ["omitted", "shortened"]
    assert all((fates[name] == "omitted") == (not included[name]) for name in fates)
    omitted = next(c for c in receipt["explain"]["candidates"] if c["fate"] == "omitted")
    assert "shortest lines cost" in omitted["reason"] and "leaves this one out" in omitted["reason"]
    removed = next(c for c in receipt["explain"]["candidates"] if c["fate"] == "shortened")
    assert "description removed" in removed["reason"] and "shortest lines alone cost" in removed["reason"]


def test_claude_code_cut_at_the_entry_cap_and_dropped_by_the_budget(tmp_path):
    skill(tmp_path, "long", "long", "x" * (claude_code.MAX_DESC_CHARS + 40))
    skill(tmp_path, "short", "short", "Short one. Use when short.")
    (receipt,) = explain_json(str(tmp_path), "--target", "claude-code", "--budget-chars", "100")["catalogs"]
    found = {c["name"]: c for c in receipt["explain"]["candidates"]}
    assert found["long"]["fate"] == "shortened"
    assert "cut at 1,536 characters" in found["long"]["reason"] and "40 characters lost" in found["long"]["reason"]
    assert "dropped (an estimate)" in found["long"]["reason"]  # the most expensive goes first in the estimate
    assert found["short"]["fate"] == "listed" and "at risk" in found["short"]["reason"]  # which go depends on usage


def test_a_plugin_skill_claude_code_never_reaches(tmp_path):
    plugin = tmp_path / "plugin"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text('{"name": "plugin"}')
    skill(plugin / "skills", "top", "top")
    skill(plugin / "skills" / "group", "deep", "deep")  # skills/group/deep: below a folder that is no skill
    report = explain_json(str(plugin), "--target", "claude-code")
    (item,) = report["explain"]["rejected"]
    assert Path(item["path"]) == plugin / "skills" / "group" / "deep" / "SKILL.md"
    assert f"the plugin `plugin` ({plugin}) loads" in item["reason"] and "looks no deeper" in item["reason"]
    (receipt,) = explain_json(str(plugin), "--target", "codex")["catalogs"]  # Codex walks the tree: both listed
    assert {c["name"]: c["fate"] for c in receipt["explain"]["candidates"]} == {"top": "listed", "deep": "listed"}


def test_copilot_omits_after_the_first_that_does_not_fit(tmp_path):
    skill(tmp_path, "a-skill", "a-skill", "Short. Use when a.")
    skill(tmp_path, "b-skill", "b-skill", "y" * 400)
    skill(tmp_path, "c-skill", "c-skill", "Short. Use when c.")
    (receipt,) = explain_json(str(tmp_path), "--target", "copilot", "--budget-chars", "200")["catalogs"]
    fates = {c["name"]: c["fate"] for c in receipt["explain"]["candidates"]}
    assert fates == {"a-skill": "listed", "b-skill": "omitted", "c-skill": "omitted"}


def test_text_output_has_the_log(tmp_path):
    root = repo(tmp_path)
    skill(root / ".claude" / "skills", "deploy", "deploy")
    skill(root / ".claude" / "skills" / "deploy" / "x", "deep", "deep")
    skill(tmp_path / "home", "deploy", "deploy")
    code, out, err = run_cli("catalog", ".claude/skills", "--target", "claude-code", "--explain", "--catalog-root", f"user={tmp_path / 'home'}", cwd=root)
    assert code == 0, err
    assert "Discovery log: folders searched" in out and "a configured catalog root" in out
    assert "Rejected (in no catalog of this surface):" in out and "deep/SKILL.md" in out
    assert "SHADOWED deploy [repo]" in out and "Name collision `deploy`" in out
    code, out, _ = run_cli("catalog", ".claude/skills", "--target", "claude-code", cwd=root)
    assert "Discovery log" not in out and "Candidates" not in out  # only when asked


def test_the_log_changes_no_decision(tmp_path):
    """Catalogs built with a log are the catalogs built without one."""
    from skilllint.config.settings import load_settings
    from skilllint.registry import registry

    root = repo(tmp_path)
    skill(root / ".claude" / "skills", "a", "a")
    skill(root / ".claude" / "skills" / "a" / "deeper", "b", "b")
    skill(root / "skills", "c", "c", extra="disable-model-invocation: true\n")
    packages = [SkillPackage(p.parent, root) for p in sorted(root.rglob("SKILL.md"))]

    def shape(catalogs):
        return sorted((c.target, str(c.root), [(s.name, s.scope, s.hidden, s.shadowed_by is not None) for s in c.skills]) for c in catalogs)

    settings = load_settings(registry(), root)
    log = DiscoveryLog()
    assert shape(build_catalogs(packages, settings, log=log)) == shape(build_catalogs(packages, settings))
    assert log.rejections  # and the log did record something


FORMS = "# Forms\n\nHow to fill a form. See [the field list](fields.md).\n"
FIELDS = "# Fields\n\n| name | type |\n|---|---|\n| a | int |\n"


def test_tiers_figures_match_counts_made_here(tmp_path):
    body = (
        "# Filler\n\n"
        "When the user hands you a PDF form, read [forms](references/forms.md).\n\n"
        "Also see `references/notes.md`.\n\n"
        "Run `scripts/fill.py` to fill the fields.\n"
    )
    text = "---\nname: filler\ndescription: Fills PDF forms. Use when a form must be filled.\n---\n" + body
    folder = write_skill(tmp_path, "filler", text)
    (folder / "references").mkdir()
    (folder / "references" / "forms.md").write_text(FORMS)
    (folder / "references" / "fields.md").write_text(FIELDS)
    (folder / "references" / "notes.md").write_text("notes " * 50)
    (folder / "scripts").mkdir()
    (folder / "scripts" / "fill.py").write_text("print('fill')\n")
    code, out, err = run_cli("catalog", str(tmp_path), "--tiers", "--output-format", "json")
    assert code == 0, err
    report = json.loads(out)
    jsonschema.validate(report, SCHEMA)
    (receipt,) = report["catalogs"]
    (ladder,) = receipt["tiers"]
    path = str((folder / "SKILL.md").absolute())
    line = f"- filler: Fills PDF forms. Use when a form must be filled. (file: {path})"
    assert ladder["catalog_line"] == {"text": line, "characters": len(line), "tokens": count_tokens(line)}
    assert ladder["catalog_line"]["text"] == receipt["rendered"]
    assert ladder["body"]["tokens"] == count_tokens(body) and ladder["body"]["truncated"] is False
    files = {f["path"]: f for f in ladder["files"]}
    assert list(files) == ["references/forms.md", "references/notes.md", "scripts/fill.py", "references/fields.md"]
    assert files["references/forms.md"]["tokens"] == count_tokens(FORMS) and files["references/forms.md"]["bytes"] == len(FORMS)
    assert files["scripts/fill.py"]["tokens"] == count_tokens("print('fill')\n")
    forms = files["references/forms.md"]["condition"]
    assert forms["line"] == 7 and "condition" in forms["cue"] and forms["text"].startswith("When the user hands you a PDF form")
    assert files["references/notes.md"]["condition"] == {"cue": None, "line": 9, "text": "Also see `references/notes.md`."}
    assert files["scripts/fill.py"]["condition"]["cue"] is not None  # "to fill the fields": a purpose
    deep = files["references/fields.md"]
    assert (deep["depth"], deep["via"], deep["condition"]) == (2, "references/forms.md", None)
    assert ladder["files_tokens"] == sum(count_tokens(t) for t in (FORMS, FIELDS, "notes " * 50, "print('fill')\n"))
    # SL310 reports exactly the file the ladder shows without a condition
    from conftest import lint_json

    findings = lint_json(str(folder), "--select", "SL310")["diagnostics"]
    assert [f["message"].split("`")[1] for f in findings] == ["references/notes.md"]


def test_tiers_text_and_a_file_that_is_not_text(tmp_path):
    folder = write_skill(tmp_path, "pic", "---\nname: pic\ndescription: Shows a picture. Use when asked.\n---\nWhen drawing, open `assets/logo.bin`.\n")
    (folder / "assets").mkdir()
    (folder / "assets" / "logo.bin").write_bytes(b"\x89PNG\x00\x01\xff" * 10)
    code, out, err = run_cli("catalog", str(tmp_path), "--tiers", "--target", "claude-code")
    assert code == 0, err
    assert "tier 1, catalog line: " in out and "tier 2, body: " in out
    assert "assets/logo.bin: 70 bytes (not text)" in out


def test_tiers_count_with_the_configured_encoding(tmp_path):
    folder = write_skill(tmp_path, "enc", "---\nname: enc\ndescription: Encodes. Use when asked.\n---\n" + "día über straße " * 30)
    (tmp_path / ".skilllint.toml").write_text('[rules.SL202]\nencoding = "cl100k_base"\n')
    package = SkillPackage(folder, tmp_path)
    code, out, err = run_cli("catalog", str(tmp_path), "--tiers", "--output-format", "json", cwd=tmp_path)
    assert code == 0, err
    (ladder,) = json.loads(out)["catalogs"][0]["tiers"]
    assert ladder["encoding"] == "cl100k_base"
    assert ladder["body"]["tokens"] == count_tokens(package.body, "cl100k_base") != count_tokens(package.body, "o200k_base")
    assert skill_tiers(package, "enc", "", "cl100k_base")["body"] == ladder["body"]


@pytest.mark.parametrize("target", ["codex", "claude-code", "copilot"])
def test_every_surface_explains_and_tiers_the_corpus_collection(corpus, target):
    """The two options on a real collection: every candidate accounted for, the schema holds."""
    args = [str(corpus / "anthropics__skills" / "skills"), "--target", target, "--explain", "--tiers", "--output-format", "json"]
    code, out, err = run_cli("catalog", *args)
    assert code == 0, err
    report = json.loads(out)
    jsonschema.validate(report, SCHEMA)
    (receipt,) = report["catalogs"]
    fates = [c["fate"] for c in receipt["explain"]["candidates"]]
    listed = sum(1 for f in fates if f in ("listed", "shortened"))
    assert listed == receipt["included"]
    assert len(receipt["tiers"]) == sum(1 for c in receipt["explain"]["candidates"] if c["linted"])


@pytest.mark.parametrize("target", ["codex", "claude-code", "copilot"])
def test_the_log_and_the_ladder_escape_what_the_tree_says(tmp_path, target):
    from test_catalog_cli import HOSTILE_FRONTMATTER, TERMINAL_HOSTILE

    folder = write_skill(tmp_path, "evil", HOSTILE_FRONTMATTER + "When \x1b[2J ready, read `references/a\x1b]0;x\x07.md`.\n")
    (folder / "references").mkdir()
    (folder / "references" / "a\x1b]0;x\x07.md").write_text("\x1b[31mred\n")
    write_skill(folder / "nested\x1b[2J", "inner\u202e", HOSTILE_FRONTMATTER)
    code, out, err = run_cli("catalog", "--target", target, "--explain", "--tiers", str(tmp_path))
    assert code == 0, err
    raw = sorted({f"U+{ord(c):04X}" for c in TERMINAL_HOSTILE.findall(out + err)})
    assert not raw, f"raw {raw} in the {target} log"
    assert "evil\\x1b]0;pwned\\x07\\x9b31m" in out and "Discovery log" in out and "tier 2, body" in out
