"""Catalogs: which skills a surface lists together."""

from skilllint.catalog.model import build_catalogs
from skilllint.config.settings import load_settings
from skilllint.discovery.walk import discover
from skilllint.skill.package import SkillPackage
from skilllint.registry import registry

from conftest import lint_json, write_skill


def catalogs_of(tmp_path, *targets):
    settings = load_settings(registry(), tmp_path, overrides={"targets": list(targets)} if targets else None)
    packages = [SkillPackage(f.root, f.lint_root) for f in discover([str(tmp_path)], tmp_path).packages]
    return {(c.target, c.root.relative_to(tmp_path).as_posix(), c.kind): sorted(s.name for s in c.skills) for c in build_catalogs(packages, settings)}


SKILL = "---\nname: {n}\ndescription: Does {n}. Use when asked.\n---\n"


def test_codex_roots_of_one_repository_form_one_catalog(tmp_path):
    (tmp_path / ".git").mkdir()
    write_skill(tmp_path / ".agents" / "skills", "a", SKILL.format(n="a"))
    write_skill(tmp_path / "pkg" / ".agents" / "skills", "b", SKILL.format(n="b"))
    write_skill(tmp_path / ".codex" / "skills", "c", SKILL.format(n="c"))
    cats = catalogs_of(tmp_path)
    assert cats[("codex", ".", "surface-roots")] == ["a", "b", "c"]


def test_collections_and_plugins(tmp_path):
    write_skill(tmp_path / "skills", "x", SKILL.format(n="x"))
    write_skill(tmp_path / "skills" / "x", "nested", SKILL.format(n="nested"))
    plugin = tmp_path / "plugins" / "p"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text('{"name": "p"}')
    write_skill(plugin / "skills", "y", SKILL.format(n="y"))
    cats = catalogs_of(tmp_path)
    assert cats[("agentskills", "skills", "collection")] == ["nested", "x"]
    assert cats[("claude-code", "plugins/p", "plugin")] == ["y"]


def test_hidden_skills_stay_in_the_catalog_but_out_of_the_budget(tmp_path):
    write_skill(tmp_path / ".claude" / "skills", "h", "---\nname: h\ndescription: d\ndisable-model-invocation: true\n---\n")
    settings = load_settings(registry(), tmp_path)
    packages = [SkillPackage(f.root, f.lint_root) for f in discover([str(tmp_path)], tmp_path).packages]
    # Claude Code's alone: the surfaces that scan `.claude/skills` too list nothing else here
    (catalog,) = build_catalogs(packages, settings)
    assert [s.hidden for s in catalog.skills] == [True] and catalog.visible == []


def test_duplicate_names_are_reported_per_catalog_only(tmp_path):
    write_skill(tmp_path / "one" / "skills", "deploy", SKILL.format(n="deploy"))
    write_skill(tmp_path / "two" / "skills", "deploy", SKILL.format(n="deploy"))
    assert not lint_json(str(tmp_path), "--select", "SL511", cwd=tmp_path)["diagnostics"]
    write_skill(tmp_path / "one" / "skills", "deploy-docs", SKILL.format(n="deploy"))
    report = lint_json(str(tmp_path), "--select", "SL511", cwd=tmp_path)
    assert [d["path"] for d in report["diagnostics"]] == ["one/skills/deploy-docs/SKILL.md"]  # one finding per clash
    assert report["diagnostics"][0]["related"] and report["diagnostics"][0]["severity"] == "info"  # identical copies


def test_codex_leaves_skills_without_implicit_invocation_out_of_its_catalog(tmp_path):
    import json

    from conftest import run_cli

    write_skill(tmp_path, "listed", SKILL.format(n="listed"))
    quiet = write_skill(tmp_path, "quiet", SKILL.format(n="quiet"))
    (quiet / "agents").mkdir()
    (quiet / "agents" / "openai.yaml").write_text("policy:\n  allow_implicit_invocation: false\n")
    code, out, err = run_cli("catalog", str(tmp_path), "--output-format", "json")
    assert code == 0, err
    (receipt,) = json.loads(out)["catalogs"]
    assert [s["name"] for s in receipt["skills"]] == ["listed"]
    (quiet / "agents" / "openai.yaml").write_text("policy:\n  allow_implicit_invocation: true\n")
    code, out, err = run_cli("catalog", str(tmp_path), "--output-format", "json")
    assert [s["name"] for s in json.loads(out)["catalogs"][0]["skills"]] == ["listed", "quiet"]


def test_a_catalog_keeps_each_surfaces_render_in_a_declared_field(tmp_path):
    """The rules that judge one catalog share its render; it is kept in ``renders``, not in
    attributes set on the catalog from outside."""
    import dataclasses

    from skilllint.catalog.render import codex_render, copilot_listing_for, listing_for

    (tmp_path / ".git").mkdir()
    write_skill(tmp_path / ".agents" / "skills", "a", SKILL.format(n="a"))
    settings = load_settings(registry(), tmp_path, overrides={"targets": ["codex"]})
    packages = [SkillPackage(f.root, f.lint_root) for f in discover([str(tmp_path)], tmp_path).packages]
    (catalog,) = build_catalogs(packages, settings)
    for render in (codex_render, listing_for, copilot_listing_for):
        assert render(catalog, {}) is render(catalog, {})
    assert set(vars(catalog)) == {f.name for f in dataclasses.fields(catalog)}
    assert set(catalog.renders) == {"budgeted-catalog", "listing", "cli-listing"}  # by Target.catalog_model


def test_copilot_lists_same_named_skills_in_path_order_whatever_their_handles():
    """Ties between equal names are broken by the caller's order key (a path), never by the
    handle (a CatalogSkill, whose default text held a memory address)."""
    from skilllint.catalog import copilot

    class Handle:  # an object whose text says nothing stable
        pass

    entries = [copilot.ListingEntry("same", f"from {path}", key=Handle(), order=path) for path in ("b/SKILL.md", "a/SKILL.md", "c/SKILL.md")]
    for permutation in (entries, entries[::-1], entries[1:] + entries[:1]):
        listed = copilot.listing(permutation, 10_000)
        assert [s.key for s in listed.skills] == [entries[1].key, entries[0].key, entries[2].key]
