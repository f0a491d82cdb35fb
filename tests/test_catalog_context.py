"""Catalogs made whole: sibling skills when only some files are linted (pre-commit),
and configured roots of installed skills with each surface's precedence."""

from conftest import lint_json, run_cli, write_skill


def skill_text(name: str, description: str | None = None) -> str:
    description = description or f"Does {name} work for the project. Use when the user asks for {name}."
    return f"---\nname: {name}\ndescription: {description}\n---\n# {name}\n"


def codex_repo(tmp_path, count: int):
    """A repository whose .agents/skills hold ``count`` skills."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    for i in range(count):
        write_skill(repo / ".agents" / "skills", f"skill-{i:03}", skill_text(f"skill-{i:03}"))
    return repo


def codes(report) -> list[tuple[str, str]]:
    return sorted((d["code"], d["path"]) for d in report["diagnostics"])


def test_one_changed_skill_still_sees_its_overflowing_catalog(tmp_path):
    repo = codex_repo(tmp_path, 300)  # 300 names and paths alone exceed 8,000 characters
    whole = lint_json(".", "--target", "codex", "--select", "SL502", cwd=repo)
    omitted = {d["path"] for d in whole["diagnostics"]}
    assert omitted and len(omitted) < 300
    listed = next(f".agents/skills/skill-{i:03}/SKILL.md" for i in range(300) if f".agents/skills/skill-{i:03}/SKILL.md" not in omitted)
    # pre-commit passes only the changed file: the finding still says the catalog overflows
    report = lint_json(listed, "--target", "codex", "--select", "SL502", cwd=repo)
    (finding,) = report["diagnostics"]
    assert finding["path"] == listed and finding["severity"] == "error"
    assert f"leaves out {len(omitted)} skills not linted in this run" in finding["message"]
    # an omitted skill named alone gets its own finding, as in the whole run
    one = sorted(omitted)[0]
    (own,) = lint_json(one, "--target", "codex", "--select", "SL502", cwd=repo)["diagnostics"]
    assert own["path"] == one and own["message"] == next(d["message"] for d in whole["diagnostics"] if d["path"] == one)


def test_a_references_file_change_relints_its_package_with_catalog_context(tmp_path):
    repo = codex_repo(tmp_path, 60)
    ref = repo / ".agents" / "skills" / "skill-007" / "references" / "notes.md"
    ref.parent.mkdir()
    ref.write_text("# notes\n")
    report = lint_json(str(ref.relative_to(repo)), "--target", "codex", "--select", "SL501", cwd=repo)
    (finding,) = report["diagnostics"]
    assert finding["path"] == ".agents/skills/skill-007/SKILL.md" and "catalog of 60 skills" in finding["message"]


def test_catalog_context_can_be_switched_off(tmp_path):
    repo = codex_repo(tmp_path, 300)
    (repo / ".skilllint.toml").write_text("[catalog]\ncontext = false\n")
    report = lint_json(".agents/skills/skill-000/SKILL.md", "--target", "codex", "--select", "SL5", cwd=repo)
    assert report["diagnostics"] == []


def test_siblings_are_never_reported_on(tmp_path):
    repo = codex_repo(tmp_path, 3)
    write_skill(repo / ".agents" / "skills", "twin-a", skill_text("twin"))
    write_skill(repo / ".agents" / "skills", "twin-b", skill_text("twin"))
    report = lint_json(".agents/skills/twin-a/SKILL.md", "--target", "codex", "--select", "SL511", cwd=repo)
    assert codes(report) == [("SL511", ".agents/skills/twin-a/SKILL.md")]


def test_siblings_stay_inside_the_repository_of_the_working_folder(tmp_path):
    repo = codex_repo(tmp_path, 300)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    # run from outside the repository: the named skill is linted, its catalog is not searched
    report = lint_json(str(repo / ".agents/skills/skill-000/SKILL.md"), "--target", "codex", "--select", "SL502", cwd=elsewhere)
    assert report["diagnostics"] == []


def test_sibling_roots_inside_one_another_are_searched_once(tmp_path, monkeypatch):
    """Codex's catalog root is the repository, agentskills' is .agents/skills inside it: one walk lists both."""
    import os
    import sys
    from collections import Counter

    from skilllint.discovery import walk as discovery

    repo = codex_repo(tmp_path, 40)
    listed: Counter = Counter()
    real_scandir = os.scandir

    def counting_scandir(path):
        if sys._getframe(1).f_globals["__name__"] == "skilllint.discovery.walk":  # the walk, not a rule
            listed[os.fspath(path)] += 1
        return real_scandir(path)

    monkeypatch.setattr(discovery.os, "scandir", counting_scandir)
    report = lint_json(".agents/skills/skill-000/SKILL.md", "--target", "codex,agentskills", "--select", "SL5", cwd=repo)
    assert report["diagnostics"] == []
    skills = str(repo / ".agents" / "skills")
    assert listed[skills] == 1 and listed[str(repo)] == 1
    assert max(listed.values()) == 1, [folder for folder, count in listed.items() if count > 1]


def test_each_skill_is_placed_once_per_target_in_a_run(tmp_path, monkeypatch):
    """The siblings' search and the catalogs it completes share where each skill lies."""
    from collections import Counter

    from skilllint.catalog import model

    repo = codex_repo(tmp_path, 12)
    placed: Counter = Counter()
    real = model._placement

    def counting(package, target, units, stop, memo):
        placed[(str(package.root), target.id)] += 1
        return real(package, target, units, stop, memo)

    monkeypatch.setattr(model, "_placement", counting)
    lint_json(".agents/skills/skill-000/SKILL.md", "--target", "codex,agentskills", "--select", "SL5", "--no-cache", cwd=repo)
    assert len(placed) == 24 and set(placed.values()) == {1}, placed


def installed(tmp_path, folder: str, names: list[str]):
    root = tmp_path / folder
    for name in names:
        write_skill(root, name, skill_text(name, f"The installed {name} skill. Use when the user asks for {name}."))
    return root


def test_a_user_scope_skill_shadows_a_project_skill_in_claude_code(tmp_path):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    write_skill(repo / ".claude" / "skills", "deploy", skill_text("deploy"))
    write_skill(repo / ".claude" / "skills", "review", skill_text("review"))
    home = installed(tmp_path, "home/.claude/skills", ["deploy", "lint"])
    report = lint_json(".", "--select", "SL511", "--catalog-root", f"user={home}", cwd=repo)
    (finding,) = report["diagnostics"]  # the installed skills themselves are never reported on
    assert finding["path"] == ".claude/skills/deploy/SKILL.md" and finding["severity"] == "error"
    assert "Claude Code loads the user-scope skill" in finding["message"] and "shadowed and never listed" in finding["message"]
    assert finding["related"][0]["message"].endswith("(user scope)")


def test_client_guidance_lets_the_project_skill_win(tmp_path):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    write_skill(repo / "skills", "deploy", skill_text("deploy"))
    home = installed(tmp_path, "home/.agents/skills", ["deploy"])
    (finding,) = lint_json(".", "--target", "agentskills", "--select", "SL511", "--catalog-root", f"user={home}", cwd=repo)["diagnostics"]
    assert finding["severity"] == "warning"
    assert "this repo-scope skill wins and the agentskills surface hides the user-scope one" in finding["message"]


def test_codex_lists_same_named_skills_of_every_scope(tmp_path):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    write_skill(repo / ".agents" / "skills", "deploy", skill_text("deploy"))
    admin = installed(tmp_path, "etc/codex/skills", ["deploy"])
    (finding,) = lint_json(".", "--target", "codex", "--select", "SL511", "--catalog-root", f"admin={admin}", cwd=repo)["diagnostics"]
    assert finding["severity"] == "error" and "Codex lists both" in finding["message"] and "admin scope: " in finding["message"]


def test_installed_skills_count_toward_the_budget(tmp_path):
    repo = codex_repo(tmp_path, 1)
    home = installed(tmp_path, "home/.agents/skills", [f"tool-{i:03}" for i in range(300)])
    report = lint_json(".", "--target", "codex", "--select", "SL502", "--catalog-root", f"user={home}", cwd=repo)
    # repo scope renders before user scope (render.rs), so the project skill stays and is told why others go
    (finding,) = report["diagnostics"]
    assert finding["path"] == ".agents/skills/skill-000/SKILL.md" and "(tool-" in finding["message"]
    assert "catalog of 301 skills" in finding["message"]


def test_configured_roots_resolve_against_the_config_file_and_refuse_bad_scopes(tmp_path):
    repo = codex_repo(tmp_path, 1)
    installed(repo, "vendor/skills", ["deploy"])
    (repo / ".skilllint.toml").write_text('[[catalog.roots]]\npath = "vendor/skills"\nscope = "root"\n')
    code, _, err = run_cli("check", ".", cwd=repo)
    assert code == 2 and "scope" in err
    code, _, err = run_cli("check", ".", "--catalog-root", "vendor/skills", cwd=tmp_path)
    assert code == 2 and "expected SCOPE=PATH" in err
    code, _, err = run_cli("check", ".", "--catalog-root", "repo=vendor/skills", cwd=tmp_path)
    assert code == 2 and "scope must be one of user, admin, system" in err


def test_a_missing_root_is_a_warning_not_a_failure(tmp_path):
    repo = codex_repo(tmp_path, 1)
    code, _, err = run_cli("check", ".", "--catalog-root", f"user={tmp_path / 'nope'}", cwd=repo)
    assert code == 0 and "not a folder; skipped" in err
