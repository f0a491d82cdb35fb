"""The package inventory: every entry by lstat, links judged without following them out."""

import os
from pathlib import Path

import pytest

from skilllint.skill.inventory import PackageInventory


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    skill = tmp_path / "skill"
    (skill / "references").mkdir(parents=True)
    (skill / "sub").mkdir()
    (skill / "references" / "a.md").write_text("x")
    os.symlink("../references/a.md", skill / "sub" / "link.md")
    os.symlink("/etc", skill / "etcdir")
    os.symlink("../..", skill / "up")
    os.symlink("loop2", skill / "loop1")
    os.symlink("loop1", skill / "loop2")
    os.symlink("missing.md", skill / "broken")
    os.symlink("references", skill / "refs")
    os.mkfifo(skill / "pipe")
    return skill


def test_entries_and_link_verdicts(hostile):
    inv = PackageInventory.scan(hostile)
    links = {e.rel: (e.link.status, e.link.resolved) for e in inv.symlinks()}
    assert links == {
        "sub/link.md": ("inside", "references/a.md"),
        "etcdir": ("escapes", None),
        "up": ("escapes", None),
        "loop1": ("loop", None),
        "loop2": ("loop", None),
        "broken": ("broken", "missing.md"),
        "refs": ("inside", "references"),
    }
    assert inv.entries["etcdir"].link.outside == "/etc"
    assert [e.rel for e in inv.specials()] == ["pipe"]


def test_resolution_stays_inside(hostile):
    inv = PackageInventory.scan(hostile)
    assert inv.resolve("refs/a.md") == ("ok", "references/a.md")
    assert inv.resolve("sub/link.md") == ("ok", "references/a.md")
    assert inv.resolve("../x")[0] == "outside"
    assert inv.resolve("etcdir/passwd")[0] == "outside"
    assert inv.resolve("loop1/x")[0] == "loop"
    assert inv.resolve("references/nope.md") == ("missing", "references/nope.md")
    assert inv.kind_of("refs") == "dir"
    assert inv.case_variants("References/A.md") == ["references/a.md"]
    assert inv.top_folders() == {"references", "refs", "sub"}


def test_scan_never_touches_link_targets(hostile, monkeypatch):
    touched = []
    real_lstat, real_listdir = os.lstat, os.listdir

    def lstat(path, *args, **kwargs):
        touched.append(str(path))
        return real_lstat(path, *args, **kwargs)

    def listdir(path="."):
        touched.append(str(path))
        return real_listdir(path)

    monkeypatch.setattr(os, "lstat", lstat)
    monkeypatch.setattr(os, "listdir", listdir)
    PackageInventory.scan(hostile)
    # Inside the package, or the path leading to it (the package's own real location).
    assert touched and all(p.startswith(str(hostile)) or hostile.is_relative_to(p) for p in touched)
    assert not any(p.startswith(str(hostile / "etcdir") + "/") for p in touched)


def test_nested_skills_and_documents_are_defined_once(tmp_path):
    from skilllint.skill.inventory import is_document, is_skill_md_name

    for rel in ("a/SKILL.md", "b/c/skill.md", "d/Skill.MD", "e/SKILL.md.bak", "f/notes.md"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x")
    (tmp_path / "SKILL.md").write_text("x")
    inventory = PackageInventory.scan(tmp_path)
    assert inventory.nested_skill_folders() == {"a", "b/c", "d"}  # the package's own SKILL.md is no nested skill
    assert inventory.in_nested_skill("b/c/x/y.md") and inventory.in_nested_skill("a/SKILL.md")
    assert not inventory.in_nested_skill("b/x.md") and not inventory.in_nested_skill("e/SKILL.md.bak")
    assert not inventory.in_nested_skill("SKILL.md")
    assert is_skill_md_name("sKiLl.Md") and not is_skill_md_name("SKILL.md.bak")
    assert [is_document(r) for r in ("a.md", "B.MARKDOWN", "c.mdx", "d.txt", "e.rst", "f.py", "md")] == [True] * 4 + [False] * 3


def test_a_script_is_defined_once():
    from skilllint.skill.inventory import is_script

    assert [is_script(r) for r in ("scripts/run.py", "x/Y.SH", "bin/tool", "scripts/tool", "tool", "notes.md", "a/b.ps1")] == [
        True, True, True, True, False, False, True
    ]  # fmt: skip


def test_a_run_lists_each_folder_of_a_skill_once(tmp_path, monkeypatch):
    """Discovery lists every folder (a skill may hold a nested one); the packages' inventories
    take those listings rather than listing each folder again."""
    import collections

    from skilllint import fsafe
    from skilllint.discovery import walk as discovery
    from skilllint.skill import inventory
    from skilllint.config.settings import load_settings
    from skilllint.lint.engine import lint_paths
    from skilllint.registry import registry

    for index in range(3):
        skill = tmp_path / "skills" / f"s{index}"
        (skill / "references" / "deep").mkdir(parents=True)
        (skill / "SKILL.md").write_text(f"---\nname: s{index}\ndescription: Does s{index} things. Use when testing.\n---\nSee references/deep/a.md\n")
        (skill / "references" / "deep" / "a.md").write_text("a")
    listed: collections.Counter = collections.Counter()
    real_scandir, real_list_folder = os.scandir, fsafe.list_folder

    def counting_scandir(path="."):
        listed[os.path.normpath(str(path))] += 1
        return real_scandir(path)

    def counting_list_folder(path):
        listed[os.path.normpath(str(path))] += 1
        return real_list_folder(path)

    monkeypatch.setattr(discovery.os, "scandir", counting_scandir)
    monkeypatch.setattr(inventory, "list_folder", counting_list_folder)
    settings = load_settings(registry(), tmp_path)
    result = lint_paths([str(tmp_path)], settings, tmp_path, jobs=1)
    assert result.packages == 3 and not result.internal_errors
    folders = [p for p in listed if p.startswith(str(tmp_path / "skills") + os.sep)]
    assert len(folders) == 9  # three skills of three folders each
    assert {p: listed[p] for p in folders if listed[p] > 1} == {}
