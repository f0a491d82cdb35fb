"""Install units (skilllint.discovery.units, .plugins): what installs each skill decides its
targets, the plugin its links may lean on, its namespace and its catalog.

Marketplaces of both kinds: one plugin cut out of a shared tree by a `skills` array
(`"source": "./"`), and separately installed plugins under `plugins/` with or without a
manifest of their own, beside a repository-root plugin.json. Plugins of one marketplace that
share a root are separate plugins; sources fetched from elsewhere install nothing of the tree;
a marketplace that is no JSON object is no marketplace, never a crash.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import cache_pack, lint_json, run_cli, write_skill
from test_cache import age

from skilllint.discovery.units import InstallUnits
from skilllint.targets import TARGETS

CLAUDE = TARGETS["claude-code"]
CODEX = TARGETS["codex"]


def skill_text(name: str, body: str = "# Body\n", extra: str = "") -> str:
    return f"---\nname: {name}\ndescription: Formats {name} tables. Use when the user pastes one.\n{extra}---\n{body}"


def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    return root


def marketplace(root: Path, plugins: list[dict], where: tuple[str, ...] = (".claude-plugin", "marketplace.json"), **extra) -> None:
    path = root.joinpath(*where)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"name": "m", "owner": {"name": "o"}, "plugins": plugins, **extra}), encoding="utf-8")


def manifest(folder: Path, data: dict, kind: str = ".claude-plugin") -> None:
    (folder / kind).mkdir(parents=True, exist_ok=True)
    (folder / kind / "plugin.json").write_text(json.dumps(data), encoding="utf-8")


def shown_targets(root: Path) -> dict[str, str]:
    code, out, _ = run_cli("check", "--show-files", ".", cwd=root)
    assert code == 0
    return dict(line.split("\t") for line in out.splitlines())


# -- a plugin cut out of a shared tree by a `skills` array -------------------------------------


def shared_tree(tmp_path: Path) -> Path:
    root = repo(tmp_path)
    for folder in ("01-arch/litgpt", "01-arch/mamba", "02-tok/bpe", "03-extra/lonely"):
        write_skill(root, folder, skill_text(Path(folder).name, extra="allowed-tools: Bash\nauthor: me\n"))
    marketplace(
        root,
        [
            {"name": "arch", "source": "./", "strict": False, "skills": ["./01-arch/litgpt", "./01-arch/mamba"]},
            {"name": "tok", "source": "./", "strict": False, "skills": ["./02-tok/bpe"]},
        ],
    )
    return root


def test_a_marketplace_skills_array_makes_its_skills_claude_code_plugin_skills(tmp_path):
    root = shared_tree(tmp_path)
    assert shown_targets(root) == {
        "01-arch/litgpt": "claude-code", "01-arch/mamba": "claude-code", "02-tok/bpe": "claude-code",
        "03-extra/lonely": "agentskills",  # in the plugin's root, but no entry installs it, nor any beside it
    }
    units = InstallUnits()
    litgpt, bpe, lonely = (root / "01-arch/litgpt", root / "02-tok/bpe", root / "03-extra/lonely")
    assert units.plugin_of(litgpt, root, CLAUDE).name == "arch" and units.plugin_of(bpe, root, CLAUDE).name == "tok"
    assert units.plugin_of(lonely, root, CLAUDE) is None and units.holding_plugin(lonely, root, CLAUDE).root == root
    grants = [d["path"] for d in lint_json(".", "--select", "SL805", cwd=root)["diagnostics"]]
    assert "01-arch/litgpt/SKILL.md" in grants  # Claude Code's rules run: its unrestricted `Bash` grant is told
    report = lint_json(".", "--select", "SL5", "--extend-select", "SL520", cwd=root)
    catalogs = run_cli("catalog", "--target", "claude-code", "--output-format", "json", ".", cwd=root)
    assert catalogs[0] == 0
    kept = {c["plugin"]: sorted(s["name"] for s in c["skills"]) for c in json.loads(catalogs[1])["catalogs"]}
    assert kept == {"arch": ["litgpt", "mamba"], "tok": ["bpe"]}  # two plugins of one root, the lonely skill in neither
    assert not [d for d in report["diagnostics"] if d["code"] == "SL511"]


def test_same_named_skills_of_two_plugins_sharing_a_root_are_no_duplicates(tmp_path):
    root = repo(tmp_path)
    write_skill(root, "a/deploy", skill_text("deploy"))
    write_skill(root, "b/deploy", skill_text("deploy"))
    marketplace(root, [{"name": "pa", "source": "./", "skills": ["./a/deploy"]}, {"name": "pb", "source": "./", "skills": ["./b/deploy"]}])
    assert not lint_json(".", "--select", "SL511", cwd=root)["diagnostics"]
    marketplace(root, [{"name": "pa", "source": "./", "skills": ["./a/deploy", "./b/deploy"]}])
    found = lint_json(".", "--select", "SL511", cwd=root)["diagnostics"]  # one plugin: a real duplicate
    assert [d["path"] for d in found] == ["a/deploy/SKILL.md"]  # one finding per clash


# -- separately installed plugins under plugins/ -------------------------------------------------


def plugins_repo(tmp_path: Path) -> Path:
    root = repo(tmp_path)
    manifest(root, {"name": "whole-repo"})  # a repository-root plugin.json beside the marketplace
    (root / "docs").mkdir()
    (root / "docs" / "guide.md").write_text("# Guide\n", encoding="utf-8")
    body = (
        "# Alpha\n\nRead [the guide](../../../../docs/guide.md) when setting up, and "
        "[beta's notes](../../../beta/skills/beta/notes.md) when comparing.\n"
        "Also [missing](../../absent.md) when lost.\n"
    )
    write_skill(root, "plugins/alpha/skills/alpha", skill_text("alpha", body))
    write_skill(root, "plugins/beta/skills/beta", skill_text("beta"))
    (root / "plugins/beta/skills/beta/notes.md").write_text("# Notes\n", encoding="utf-8")
    marketplace(root, [{"name": "alpha", "source": "./plugins/alpha"}, {"name": "beta", "source": "./plugins/beta", "strict": False}])
    return root


def test_each_plugin_of_a_marketplace_is_its_own_unit(tmp_path):
    root = plugins_repo(tmp_path)
    units = InstallUnits()
    alpha = units.plugin_of(root / "plugins/alpha/skills/alpha", root, CLAUDE)
    assert (alpha.name, alpha.root) == ("alpha", root / "plugins/alpha")  # not the repository's plugin.json
    found = lint_json(".", "--select", "SL301,SL302", cwd=root)["diagnostics"]
    outside = sorted(d["message"].split(" ")[1] for d in found if d["code"] == "SL302")
    assert outside == ["`../../../../docs/guide.md`", "`../../../beta/skills/beta/notes.md`"]  # they leave plugin alpha
    (missing,) = [d for d in found if d["code"] == "SL301"]
    assert "the plugin `alpha`" in missing["message"] and "whole-repo" not in missing["message"]


def test_a_marketplace_plugin_root_and_bare_names_resolve_from_plugin_root(tmp_path):
    root = repo(tmp_path)
    write_skill(root, "packs/fmt/skills/fmt", skill_text("fmt"))
    marketplace(root, [{"name": "fmt", "source": "fmt"}], metadata={"pluginRoot": "./packs"})
    assert InstallUnits().plugin_of(root / "packs/fmt/skills/fmt", root, CLAUDE).root == root / "packs/fmt"


def test_remote_and_escaping_sources_install_nothing_of_the_tree(tmp_path):
    root = repo(tmp_path)
    write_skill(root, "plugins/x/skills/x", skill_text("x"))
    marketplace(
        root,
        [
            {"name": "gh", "source": {"source": "github", "repo": "o/x"}},
            {"name": "up", "source": "../.."},
            {"name": "abs", "source": str(root / "plugins/x")},
        ],
    )
    assert InstallUnits().holding_plugin(root / "plugins/x/skills/x", root, CLAUDE) is None
    assert shown_targets(root) == {"plugins/x/skills/x": "agentskills"}


def test_a_codex_marketplace_installs_a_local_plugin_for_codex(tmp_path):
    root = repo(tmp_path)
    write_skill(root, "plugins/note/skills/note", skill_text("note"))
    marketplace(root, [{"name": "note-taker", "source": {"source": "local", "path": "./plugins/note"}}], where=(".agents", "plugins", "marketplace.json"))
    units = InstallUnits()
    assert units.plugin_of(root / "plugins/note/skills/note", root, CODEX).name == "note-taker"
    assert units.holding_plugin(root / "plugins/note/skills/note", root, CLAUDE) is None  # Claude Code reads its own


@pytest.mark.parametrize("text", ["[]", "{", '{"plugins": 3}', '{"plugins": [1, {"name": 2}]}', "[" * 100_000 + "]" * 100_000, '{"plugins": [{"name": "x", "source": "./", "skills": {"a": 1}}]}'])
def test_a_broken_marketplace_is_no_marketplace(tmp_path, text):
    root = repo(tmp_path)
    write_skill(root, "skills/x", skill_text("x"))
    (root / ".claude-plugin").mkdir()
    (root / ".claude-plugin" / "marketplace.json").write_text(text, encoding="utf-8")
    code, _, err = run_cli("check", ".", cwd=root)
    assert code in (0, 1) and "Traceback" not in err


def test_a_changed_marketplace_is_seen_by_a_cached_run(tmp_path):
    """The targets stay Claude Code's; only the plugin's root moves, and with it what a link leaves."""
    root = repo(tmp_path)
    write_skill(root, "01-arch/litgpt", skill_text("litgpt", "# L\n\nRead [the tokenizer](../../02-tok/bpe/notes.md) when tokenizing.\n"))
    write_skill(root, "02-tok/bpe", skill_text("bpe"))
    (root / "02-tok/bpe/notes.md").write_text("# Notes\n", encoding="utf-8")
    marketplace(root, [{"name": "arch", "source": "./", "skills": ["./01-arch/litgpt"]}])
    age(root)
    assert not lint_json(".", "--select", "SL302", cwd=root)["diagnostics"]  # the whole tree ships
    assert cache_pack(root)  # the results are kept
    marketplace(root, [{"name": "arch", "source": "./01-arch", "skills": ["./litgpt"]}])
    age(root)
    (finding,) = lint_json(".", "--select", "SL302", cwd=root)["diagnostics"]
    assert finding["path"] == "01-arch/litgpt/SKILL.md"


# -- one repository, several agents: each surface lists the folders it scans -------------------


def test_a_twin_is_reported_under_the_surfaces_that_list_both_copies(tmp_path):
    root = repo(tmp_path)
    write_skill(root, ".claude/skills/review", skill_text("review"))
    write_skill(root, ".agents/skills/review", skill_text("review"))
    (finding,) = lint_json(".", "--select", "SL511", cwd=root)["diagnostics"]  # inferred: claude-code; codex, agentskills
    assert finding["path"] == ".agents/skills/review/SKILL.md"
    assert sorted(finding["targets"]) == ["copilot", "cursor", "opencode"]  # they scan both folders; Claude Code and Codex one each
    assert finding["severity"] == "info" and "identical" in finding["message"]  # one skill shipped twice
    assert not lint_json(".", "--select", "SL511", "--target", "claude-code,codex", cwd=root)["diagnostics"]  # the user chose
    write_skill(root, ".claude/skills/review", skill_text("review", "# Review\n\nEdited in one copy only.\n"))
    (finding,) = lint_json(".", "--select", "SL511", cwd=root)["diagnostics"]
    assert finding["severity"] == "warning" and "which one is not defined" in finding["message"]


def test_gemini_lists_agents_skills_before_gemini_skills(tmp_path):
    root = repo(tmp_path)
    write_skill(root, ".gemini/skills/init", skill_text("init"))
    write_skill(root, ".agents/skills/skills-init", skill_text("init"))
    found = lint_json(".", "--select", "SL511", cwd=root)["diagnostics"]
    gemini = [d for d in found if "gemini" in d["targets"]]
    (shadowed,) = gemini
    assert shadowed["path"] == ".gemini/skills/init/SKILL.md" and "loads the one in `.agents/skills`" in shadowed["message"]
    assert not [d for d in found if "claude-code" in d["targets"]]  # Claude Code reads neither folder
    every = lint_json(".", "--select", "SL511", "--target", "all", cwd=root)["diagnostics"]
    assert not [d for d in every if "claude-code" in d["targets"]]


def test_linked_agent_folders_are_one_copy(tmp_path):
    root = repo(tmp_path)
    write_skill(root, "dev-skills/review", skill_text("review"))
    for folder in (".claude", ".agents", ".github"):
        (root / folder).mkdir()
        (root / folder / "skills").symlink_to("../dev-skills", target_is_directory=True)
    assert not lint_json(".", "--select", "SL511", cwd=root)["diagnostics"]


def test_a_surveyed_listing_runs_only_the_rules_that_judge_every_listing(tmp_path):
    """Copilot lists `.claude/skills` too, but a run that infers claude-code alone does not judge
    Copilot's budget on them: only the clash of names is every surface's concern."""
    root = repo(tmp_path)
    for i in range(30):
        long = f"Formats table {i} of the ledger " + "with care " * 85 + ". Use when the user pastes one."
        write_skill(root, f".claude/skills/s{i}", f"---\nname: s{i}\ndescription: {long}\n---\n# S\n")
    inferred = lint_json(".", "--select", "SL5", cwd=root)["diagnostics"]
    assert inferred and not [d for d in inferred if "copilot" in d["targets"]]
    chosen = lint_json(".", "--select", "SL5", "--target", "copilot", cwd=root)["diagnostics"]
    assert [d for d in chosen if d["code"] == "SL503"]  # Copilot's own budget, when the run lints for it


def test_a_skill_beside_the_skills_a_marketplace_names_is_never_installed(tmp_path):
    root = shared_tree(tmp_path)
    write_skill(root, "01-arch/rwkv", skill_text("rwkv"))  # beside litgpt and mamba, named by no entry
    found = lint_json(".", "--select", "SL520", cwd=root)["diagnostics"]
    (finding,) = [d for d in found if d["path"] == "01-arch/rwkv/SKILL.md"]
    assert "the plugin `arch`" in finding["message"] and "`litgpt` beside this one" in finding["message"]
    assert "03-extra/lonely/SKILL.md" not in {d["path"] for d in found}  # beside no named skill: not where skills go
    assert shown_targets(root)["03-extra/lonely"] == "agentskills"  # no plugin installs it: no Claude Code skill


def test_catalog_explain_says_who_wins_on_every_surface(tmp_path):
    root = repo(tmp_path)
    write_skill(root, ".agents/skills/init", skill_text("init"))
    write_skill(root, ".gemini/skills/init", skill_text("init", "# Init\n\nThe Gemini copy.\n"))
    write_skill(root, ".claude/skills/init", skill_text("init"))
    code, out, err = run_cli("catalog", "--explain", "--output-format", "json", ".", cwd=root)
    assert code == 0, err
    (name,) = json.loads(out)["explain"]["surfaces"]["names"]
    fates = {Path(c["path"]).parent.parent.parent.name: {s: f["fate"] for s, f in c["surfaces"].items()} for c in name["copies"]}
    assert fates[".gemini"] == {"gemini": "shadowed"}  # Gemini CLI reads .agents/skills first
    assert fates[".agents"]["gemini"] == "listed" and fates[".agents"]["codex"] == "listed"
    assert fates[".claude"]["claude-code"] == "listed" and fates[".claude"]["copilot"] == "clash"
    code, text, _ = run_cli("catalog", "--explain", ".", cwd=root)
    assert "Who wins, per surface" in text and "gemini: shadowed" in text


def test_the_anthropic_skills_namespace_is_an_error_only_where_claude_code_does_not_give_it(tmp_path):
    home = tmp_path / "home"
    write_skill(home, ".claude/skills/synced/pdf", "---\nname: anthropic-skills:pdf\ndescription: Fills PDF forms. Use when a PDF form is given.\n---\n# P\n")
    write_skill(home, ".claude/skills/pdf", "---\nname: anthropic-skills:pdf\ndescription: Fills PDF forms. Use when a PDF form is given.\n---\n# P\n")
    found = lint_json(".", "--select", "SL107,SL520", "--no-cache", cwd=home)["diagnostics"]
    assert [(d["code"], d["path"]) for d in found] == [("SL107", ".claude/skills/pdf/SKILL.md")]  # the synced copy is Claude Code's own


def test_a_collection_installed_beside_others_shows_its_share_of_the_budget(tmp_path):
    root = repo(tmp_path)
    for i in range(5):
        write_skill(root, f".claude/skills/r{i}", skill_text(f"r{i}"))
    home = tmp_path / "home"
    for i in range(30):
        long = "Handles the collection's task with many words " * 8
        write_skill(home, f"c{i}", f"---\nname: c{i}\ndescription: {long}Use when asked.\n---\n# C\n")
    code, out, err = run_cli("catalog", "--target", "claude-code", "--output-format", "json", ".", cwd=root)
    assert code == 0, err
    ((alone,),) = [c["sources"] for c in json.loads(out)["catalogs"]]
    assert alone["scope"] == "repo" and alone["fits_alone"] and alone["at_risk"] == 0 and alone["share"] < 0.2
    code, out, err = run_cli("catalog", "--target", "claude-code", "--output-format", "json", "--catalog-root", f"user={home}", ".", cwd=root)
    (receipt,) = json.loads(out)["catalogs"]
    shares = {s["scope"]: s for s in receipt["sources"]}
    assert shares["repo"]["fits_alone"] and shares["repo"]["at_risk"] == 5  # the installed collection pushes it over
    assert not shares["user"]["fits_alone"] and shares["user"]["share"] > 1 and shares["user"]["skills"] == 30
    code, text, _ = run_cli("catalog", "--target", "claude-code", "--catalog-root", f"user={home}", ".", cwd=root)
    assert "Budget shares:" in text and "over the budget alone" in text


def test_a_surface_that_scans_one_folder_of_a_repository_adds_no_listing(tmp_path, monkeypatch):
    """Surveying a surface pays only where it joins two folders: one `.agents/skills` of 40 skills is
    listed by Codex already, and reading every entry again for Gemini CLI, Copilot, OpenCode and
    Cursor would find nothing new (a pre-commit run reads a 1,000-skill catalog)."""
    from collections import Counter

    from skilllint.catalog import model

    root = repo(tmp_path)
    for i in range(40):
        write_skill(root, f".agents/skills/s{i:02}", skill_text(f"s{i:02}"))
    read: Counter = Counter()
    real = model.read_entry

    def counting(package, target):
        read[target.id] += 1
        return real(package, target)

    monkeypatch.setattr(model, "read_entry", counting)
    lint_json(".", "--select", "SL5", "--no-cache", cwd=root)
    assert set(read) == {"codex", "agentskills"}
    write_skill(root, ".github/skills/s00", skill_text("s00"))  # Copilot now joins two folders
    read.clear()
    lint_json(".", "--select", "SL5", "--no-cache", cwd=root)
    assert read["copilot"] == 41 and "gemini" not in read


def test_a_path_a_skill_gives_from_its_plugins_root_is_found_where_the_plugin_ships(tmp_path):
    root = repo(tmp_path)
    body = "# Check\n\nRun `scripts/check.sh` before a release.\nSee [the notes](notes/release.md) when releasing.\n"
    write_skill(root, "plugins/ops/skills/check", skill_text("check", body))
    (root / "plugins/ops/scripts").mkdir()
    (root / "plugins/ops/scripts/check.sh").write_text("#!/bin/sh\n", encoding="utf-8")
    (root / "plugins/ops/notes").mkdir()
    (root / "plugins/ops/notes/release.md").write_text("# Notes\n", encoding="utf-8")
    marketplace(root, [{"name": "ops", "source": "./plugins/ops"}])
    found = lint_json(".", "--select", "SL301", cwd=root)["diagnostics"]
    assert [d["message"].split(" ")[1] for d in found] == ["`notes/release.md`"]  # a link's base is its file
    found = lint_json(".", "--select", "SL301", "--target", "claude-code,codex", cwd=root)["diagnostics"]
    mention = [d for d in found if "scripts/check.sh" in d["message"]]
    assert [d["targets"] for d in mention] == [["codex"]]  # Codex installs the skill alone


@pytest.mark.parametrize("strict", [True, False])
def test_a_strict_entry_adds_to_the_manifest_and_a_loose_one_replaces_it(tmp_path, strict):
    root = repo(tmp_path)
    write_skill(root, "plugins/p/skills/a", skill_text("a"))
    write_skill(root, "plugins/p/extra/b", skill_text("b"))
    manifest(root / "plugins/p", {"name": "p", "skills": ["./extra/b"]})
    marketplace(root, [{"name": "p", "source": "./plugins/p", "strict": strict}])
    units = InstallUnits()
    assert units.plugin_of(root / "plugins/p/skills/a", root, CLAUDE).name == "p"
    loaded = units.plugin_of(root / "plugins/p/extra/b", root, CLAUDE)
    assert (loaded is not None) is strict  # `"strict": false`: the entry is the whole definition
