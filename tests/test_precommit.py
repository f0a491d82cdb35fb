"""The pre-commit hooks (.pre-commit-hooks.yaml), run by the real pre-commit in temporary git repositories.

pre-commit clones a hook repository at a commit and installs it with pip into its own
environment, as it does for every user. The hook repository here is this checkout as it is now:
its files (tracked and untracked, .gitignore'd ones left out) committed to a temporary
repository, because `pre-commit try-repo` snapshots only staged and modified tracked files of
a working tree, not new ones. The hook environment is built once per session (one shared
PRE_COMMIT_HOME); `try-repo` builds its own each time, so it is used once.

Most tests commit through the installed git hook (`pre-commit install`), with the README's
`.pre-commit-config.yaml` snippet pointed at the local hook repository.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import ROOT, run_cli

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed: pre-commit needs it"),
]

PRE_COMMIT = [sys.executable, "-m", "pre_commit"]


def clean_env(home: Path | None = None) -> dict[str, str]:
    """The environment for git and pre-commit: no GIT_* variables from a caller (tests run inside
    a git hook would otherwise act on the caller's repository), no user or system git
    configuration (hooksPath, signing), a fixed identity; pip's configuration is kept."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT")) and k != "SKIP"}
    env.update(
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_AUTHOR_NAME="skilllint tests",
        GIT_AUTHOR_EMAIL="tests@skilllint.invalid",
        GIT_COMMITTER_NAME="skilllint tests",
        GIT_COMMITTER_EMAIL="tests@skilllint.invalid",
    )
    if home is not None:
        env["PRE_COMMIT_HOME"] = str(home)
    return env


def git(*args: str, cwd: Path, env: dict | None = None) -> str:
    proc = subprocess.run(["git", *args], cwd=cwd, env=env or clean_env(), capture_output=True, text=True)
    assert proc.returncode == 0, f"git {' '.join(args)}: {proc.stderr}"
    return proc.stdout


@pytest.fixture(scope="session")
def hook_repo(tmp_path_factory) -> tuple[Path, str]:
    """This checkout as a hook repository: (path, commit)."""
    dest = tmp_path_factory.mktemp("hook-repo")
    if (ROOT / ".git").exists():
        listed = git("ls-files", "-z", "--cached", "--others", "--exclude-standard", cwd=ROOT).split("\0")
        for name in filter(None, listed):
            source = ROOT / name
            if not os.path.lexists(source) or (source.is_dir() and not source.is_symlink()):
                continue  # deleted in the working tree, or a submodule
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name, follow_symlinks=False)
    else:  # an unpacked sdist
        shutil.copytree(
            ROOT, dest, symlinks=True, dirs_exist_ok=True,
            ignore=shutil.ignore_patterns(".git", ".venv", ".ci-venv", "__pycache__", "*.egg-info", "build", "dist", ".*_cache", ".hypothesis"),
        )
    git("-c", "init.defaultBranch=main", "init", "-q", cwd=dest)
    git("add", "-A", cwd=dest)
    git("commit", "-q", "--no-verify", "-m", "skilllint as it is being tested", cwd=dest)
    return dest, git("rev-parse", "HEAD", cwd=dest).strip()


@pytest.fixture(scope="session")
def pre_commit_home(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("pre-commit-home")


def readme_config(repo: str, rev: str) -> dict:
    """The `.pre-commit-config.yaml` the README shows, pointed at ``repo`` and ``rev``."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## pre-commit\n", 1)[1].split("\n## ", 1)[0]
    snippet = re.search(r"```yaml\n(.*?)```", section, re.DOTALL).group(1)
    config = yaml.safe_load(snippet)
    (entry,) = config["repos"]
    assert entry["repo"].startswith("https://github.com/") and entry["rev"]
    entry.update(repo=repo, rev=rev)
    return config


class Project:
    """A temporary git repository with skilllint's hook installed."""

    def __init__(self, path: Path, env: dict[str, str]):
        self.path, self.env = path, env

    def write(self, name: str, text: str) -> Path:
        target = self.path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        return target

    def skill(self, folder: str, name: str, description: str | None = None) -> Path:
        description = description or f"Drafts {name} notes for the team. Use when the user asks for {name} notes."
        return self.write(f"{folder}/SKILL.md", f"---\nname: {name}\ndescription: {description}\n---\n# {name}\n")

    def commit(self, *names: str, verify: bool = True) -> subprocess.CompletedProcess:
        """Stage ``names`` (default: everything) and commit; output is stdout and stderr together."""
        git("add", "-A", "--", *(names or ["."]), cwd=self.path, env=self.env)
        command = ["git", "commit", "-m", "change"] + ([] if verify else ["--no-verify"])
        return subprocess.run(command, cwd=self.path, env=self.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    def pre_commit(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run([*PRE_COMMIT, *args], cwd=self.path, env=self.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    def head(self) -> str:
        return git("rev-parse", "HEAD", cwd=self.path, env=self.env).strip()


@pytest.fixture
def project(tmp_path, hook_repo, pre_commit_home) -> Project:
    path = tmp_path / "project"
    path.mkdir()
    env = clean_env(pre_commit_home)
    git("-c", "init.defaultBranch=main", "init", "-q", cwd=path, env=env)
    config = readme_config(str(hook_repo[0]), hook_repo[1])
    (path / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    proj = Project(path, env)
    installed = proj.pre_commit("install")
    assert installed.returncode == 0, installed.stdout
    first = proj.commit()  # the hook runs on the config file alone: nothing to lint
    assert first.returncode == 0, first.stdout
    return proj


def hook_failed(out: str) -> bool:
    return re.search(r"^skilllint\.+Failed$", out, re.MULTILINE) is not None


def hook_passed(out: str) -> bool:
    return re.search(r"^skilllint\.+Passed$", out, re.MULTILINE) is not None


# -- the hook manifest ------------------------------------------------------------------------


def test_the_manifest_is_valid_for_pre_commit():
    from pre_commit.clientlib import load_manifest

    hooks = {hook["id"]: hook for hook in load_manifest(str(ROOT / ".pre-commit-hooks.yaml"))}
    assert set(hooks) == {"skilllint", "skilllint-fix"}
    assert hooks["skilllint"]["entry"] == "skilllint check --force-exclude"
    assert hooks["skilllint-fix"]["entry"] == "skilllint check --fix --force-exclude"
    for hook in hooks.values():
        assert hook["language"] == "python" and hook["pass_filenames"] is True and hook["require_serial"] is True
        # no filter: a change to any file of a skill must reach skilllint, a symbolic link too
        # (pre-commit's default `types: [file]` leaves links out; a submodule is neither)
        assert hook["files"] == "" and hook["types"] == [] and hook["types_or"] == ["file", "symlink"] and hook["exclude"] == "^$"
        assert hook["minimum_pre_commit_version"] == "3.0.0"
    from pre_commit import constants

    installed = tuple(int(part) for part in constants.VERSION.split(".")[:2])
    assert installed >= (3, 0)


# -- through git commit ----------------------------------------------------------------------


def test_a_broken_skill_fails_the_commit_and_the_fixed_one_passes(project):
    before = project.head()
    project.skill("skills/release-notes", "Release_Notes")
    out = project.commit().stdout
    assert hook_failed(out), out
    assert "skills/release-notes/SKILL.md:2:7: error[SL104]" in out and "Found 2 problems" in out
    assert project.head() == before  # the commit did not happen
    project.skill("skills/release-notes", "release-notes")
    result = project.commit()
    assert result.returncode == 0 and hook_passed(result.stdout), result.stdout
    assert project.head() != before


@pytest.mark.parametrize("changed", ["references/x.md", "scripts/y.py"])
def test_a_change_to_any_file_of_a_skill_relints_the_whole_skill(project, changed):
    project.skill("skills/release-notes", "Release_Notes")
    project.write(f"skills/release-notes/{changed}", "first\n")
    assert project.commit(verify=False).returncode == 0  # the broken skill is already in the history
    project.write(f"skills/release-notes/{changed}", "second\n")
    out = project.commit(f"skills/release-notes/{changed}").stdout
    assert hook_failed(out), out
    assert "skills/release-notes/SKILL.md:2:7: error[SL104]" in out
    assert re.search(r"in 1 skill\.$", out, re.MULTILINE)


def test_a_commit_outside_skills_passes_quietly(project):
    project.skill("skills/release-notes", "Release_Notes")
    assert project.commit(verify=False).returncode == 0
    project.write("src/app.py", "print('hi')\n")
    project.write("docs/guide.md", "# Guide\n")
    project.write("README.md", "# Project\n")
    result = project.commit()
    assert result.returncode == 0 and hook_passed(result.stdout), result.stdout
    assert "warning" not in result.stdout and "checks passed" not in result.stdout
    # asked to show its output, the hook says once that there was nothing to lint
    shown = project.pre_commit("run", "skilllint", "--verbose", "--files", "src/app.py", "docs/guide.md", "README.md")
    assert shown.returncode == 0, shown.stdout
    assert "3 files are not inside a skill folder" in shown.stdout and shown.stdout.count("not inside a skill") == 1


def test_files_outside_skills_add_nothing_to_a_failing_run(project):
    for name in ("src/a.py", "src/b.py", "docs/c.md", "docs/d.md", "Makefile"):
        project.write(name, "x\n")
    project.skill("skills/release-notes", "Release_Notes")
    out = project.commit().stdout
    assert hook_failed(out) and "error[SL104]" in out, out
    assert "not inside a skill folder" not in out and "warning: " not in out.replace("warning[", "")


def test_each_skill_is_linted_once_however_many_of_its_files_change(project):
    """require_serial: without it pre-commit splits these 13 files across processes (on a machine
    with more than one CPU) and the skill is linted, and reported, once per process."""
    project.skill("skills/release-notes", "Release_Notes")
    refs = [project.write(f"skills/release-notes/references/part-{i:02}.md", f"part {i}\n") for i in range(12)]
    links = "".join(f"- [part {i}](references/{ref.name})\n" for i, ref in enumerate(refs))
    (project.path / "skills/release-notes/SKILL.md").write_text(
        "---\nname: Release_Notes\ndescription: Drafts release notes. Use when the user asks for release notes.\n---\n" + links,
        encoding="utf-8",
    )
    out = project.commit().stdout
    assert hook_failed(out), out
    assert out.count("error[SL104]") == 1, out


@pytest.mark.parametrize("target", ["/etc/passwd", "/etc", "/nonexistent/x"], ids=["file", "folder", "dangling"])
def test_a_commit_of_only_a_symbolic_link_is_checked(project, target):
    """A link is no `file` to pre-commit: a commit holding nothing but a link that leads out of
    the skill must still reach skilllint, which lints the skill the link is in (SL401)."""
    project.skill("skills/release-notes", "release-notes")
    assert project.commit().returncode == 0
    before = project.head()
    (project.path / "skills/release-notes/references").mkdir()
    os.symlink(target, project.path / "skills/release-notes/references/x")
    out = project.commit("skills/release-notes/references/x").stdout
    assert hook_failed(out), out
    assert f"skills/release-notes/references/x:1:1: error[SL401] `references/x` is a symbolic link to `{target}`" in out
    assert re.search(r"in 1 skill\.$", out, re.MULTILINE) and project.head() == before


def test_a_link_outside_skills_passes_quietly(project):
    """Links now reach the hook: one in no skill, even a dangling one, is skipped like any file."""
    project.skill("skills/release-notes", "release-notes")
    (project.path / "docs").mkdir()
    os.symlink("/nonexistent/x", project.path / "docs/dangling")
    os.symlink("../skills", project.path / "docs/skills")
    result = project.commit("docs/dangling", "docs/skills")
    assert result.returncode == 0 and hook_passed(result.stdout), result.stdout


def test_excluded_skills_stay_quiet(project):
    project.write(".skilllint.toml", 'exclude = ["fixtures/"]\n')
    project.skill("fixtures/broken-on-purpose", "Broken_On_Purpose")
    result = project.commit()
    assert result.returncode == 0 and hook_passed(result.stdout), result.stdout


# -- catalogs keep their context ---------------------------------------------------------------


def test_a_longer_description_is_told_that_codex_now_shortens_it(project):
    """SL501 on the one changed skill, from the catalog of four it belongs to."""
    names = ("alpha", "beta", "gamma", "delta")
    for name in names:
        project.skill(f".agents/skills/{name}", name)
    code, out, err = run_cli("catalog", "--target", "codex", "--output-format", "json", ".", cwd=project.path)
    assert code == 0, err
    (catalog,) = json.loads(out)["catalogs"]
    used = catalog["budget_used"]
    assert catalog["descriptions_truncated"] == 0
    # a budget with room for 200 more characters; warnings fail the hook
    project.write(".skilllint.toml", f'fail-on = "warning"\n[catalog]\nbudget-chars = {used + 200}\n')
    result = project.commit()
    assert result.returncode == 0 and hook_passed(result.stdout), result.stdout
    long = "Drafts beta notes for the team. " + "It covers the agenda, the decisions, the owners and the dates. " * 13
    project.skill(".agents/skills/beta", "beta", long + "Use when the user asks for beta notes.")
    out = project.commit().stdout
    assert hook_failed(out), out
    assert re.search(r"^\.agents/skills/beta/SKILL\.md:3:14: warning\[SL501\] Codex .* of this description: the catalog of 4 skills", out, re.MULTILINE), out
    assert re.search(r"in 1 skill\.$", out, re.MULTILINE)


def test_a_new_skill_is_told_that_the_catalog_leaves_skills_out(project):
    """SL502 on the one added skill of a catalog of 300 whose names and paths alone exceed Codex's 8,000 characters."""
    for i in range(300):
        project.skill(f".agents/skills/skill-{i:03}", f"skill-{i:03}")
    assert project.commit(verify=False).returncode == 0
    project.skill(".agents/skills/aaa-new", "aaa-new")
    out = project.commit().stdout
    assert hook_failed(out), out
    assert re.search(r"^\.agents/skills/aaa-new/SKILL\.md:\d+:\d+: error\[SL502\] ", out, re.MULTILINE), out
    assert "not linted in this run" in out and re.search(r"in 1 skill\.$", out, re.MULTILINE)


# -- pre-commit try-repo ---------------------------------------------------------------------


def test_try_repo_runs_the_hook_of_this_checkout(project, hook_repo):
    """try-repo builds a fresh hook environment on every call (~25 s): one call."""
    project.skill("skills/good", "good")
    project.skill("skills/bad", "Bad_Name")
    git("add", "-A", cwd=project.path, env=project.env)
    result = project.pre_commit("try-repo", str(hook_repo[0]), "skilllint", "--ref", hook_repo[1], "--files", "skills/good/SKILL.md", "skills/bad/SKILL.md")
    assert result.returncode == 1 and hook_failed(result.stdout), result.stdout
    assert "skills/bad/SKILL.md:2:7: error[SL104]" in result.stdout and "skills/good" not in result.stdout
    assert re.search(r"in 2 skills\.$", result.stdout, re.MULTILINE)


# -- discovery, in process: the contract the hook relies on ------------------------------------


def test_files_outside_skills_are_skipped_quietly_when_a_skill_is_linted(tmp_path):
    (tmp_path / ".git").mkdir()
    skill = tmp_path / "skills" / "notes"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: notes\ndescription: Drafts notes. Use when the user asks for notes.\n---\n# n\n")
    (tmp_path / "app.py").write_text("x = 1\n")
    (tmp_path / "b.txt").write_text("b\n")
    code, out, err = run_cli("check", "app.py", "skills/notes/SKILL.md", "b.txt", cwd=tmp_path)
    assert code == 0 and err == "" and "1 skill checked" in out
    code, out, err = run_cli("check", "app.py", "b.txt", cwd=tmp_path)
    assert code == 0 and err.count("warning") == 1 and "2 files are not inside a skill folder" in err
    code, out, err = run_cli("check", "app.py", cwd=tmp_path)
    assert code == 0 and "app.py: not inside a skill folder" in err


def test_a_link_given_by_name_lints_the_skill_it_is_in(tmp_path):
    """pre-commit passes a committed link like a file: inside a skill, the skill is linted (its
    SL401 says where the link leads) and the link is never searched, even when it leads to a
    folder or nowhere; in no skill, it is skipped like a file, dangling or not."""
    (tmp_path / ".git").mkdir()
    refs = tmp_path / "skills" / "notes" / "references"
    refs.mkdir(parents=True)
    (refs.parent / "SKILL.md").write_text("---\nname: notes\ndescription: Drafts notes. Use when the user asks for notes.\n---\n# n\n")
    outside = tmp_path.parent / f"{tmp_path.name}-outside"
    (outside / "skills" / "elsewhere").mkdir(parents=True)
    (outside / "skills" / "elsewhere" / "SKILL.md").write_text("---\nname: Bad_Name\ndescription: x\n---\n")
    (outside / "file.txt").write_text("secret\n")
    for name, target in (("file", outside / "file.txt"), ("folder", outside), ("dangling", outside / "nothing")):
        os.symlink(target, refs / name)
        code, out, err = run_cli("check", "--output-format", "json", f"skills/notes/references/{name}", cwd=tmp_path)
        assert code == 1 and err == "", (name, err)
        found = json.loads(out)["diagnostics"]
        assert {d["path"] for d in found} <= {f"skills/notes/references/{n}" for n in ("file", "folder", "dangling")}, name
        assert f"skills/notes/references/{name}" in {d["path"] for d in found if d["code"] == "SL401"}, name
        assert "Bad_Name" not in out  # the skill the folder link leads to was not searched
    (tmp_path / "docs").mkdir()
    os.symlink(outside / "nothing", tmp_path / "docs" / "dangling")
    code, out, err = run_cli("check", "docs/dangling", "skills/notes/SKILL.md", cwd=tmp_path)
    assert code == 1 and "error[SL401]" in out and err == ""
    code, out, err = run_cli("check", "docs/dangling", cwd=tmp_path)
    assert code == 0 and "docs/dangling: not inside a skill folder" in err
