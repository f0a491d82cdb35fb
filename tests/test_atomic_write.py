"""Every file skilllint writes (a fixed file, a report, the baseline, the result cache) is
replaced the one way :meth:`skilllint.safewrite.SafeFolder.write_atomic` does it: a new temporary
file beside it, the mode and owner of the file it replaces, flushed to disk, renamed, the
rename flushed, the temporary file removed on failure."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from conftest import run_cli, write_skill
from skilllint.safewrite import SafeFolder


def _flushes(monkeypatch) -> list[str]:
    """What ``os.fsync`` is called on during the test: "file" or "folder"."""
    seen: list[str] = []
    real_fsync = os.fsync

    def fsync(fd):
        seen.append("folder" if stat.S_ISDIR(os.fstat(fd).st_mode) else "file")
        return real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    return seen


def test_the_data_and_the_rename_are_flushed_to_disk(tmp_path, monkeypatch):
    seen = _flushes(monkeypatch)
    with SafeFolder.trusted(str(tmp_path)) as folder:
        folder.write_atomic("entry.json", b"{}")
    assert seen == ["file", "folder"]
    assert (tmp_path / "entry.json").read_bytes() == b"{}" and os.listdir(tmp_path) == ["entry.json"]


@pytest.mark.parametrize("writer", ["report", "baseline", "cache", "fix"])
def test_every_writer_but_the_cache_flushes_what_it_writes(tmp_path, monkeypatch, writer):
    """A crash just after a run leaves each file it wrote whole: its data and its rename reached
    the disk (the baseline and a report's folder were not flushed). The result cache is not
    flushed: a lost entry is a miss, and a flush per entry would slow a cold run several times."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    write_skill(root, "notes", "---\nname: notes\ndescription: Drafts notes. Use when asked.\nversion: 0.4.0\n---\n# Notes\n")
    args = {
        "report": ["--no-cache", "--output-file", "out.txt"],
        "baseline": ["--no-cache", "--write-baseline", "b.json"],
        "cache": [],
        "fix": ["--no-cache", "--fix"],
    }[writer]
    seen = _flushes(monkeypatch)
    code, _, err = run_cli("check", *args, ".", cwd=root)
    assert code in (0, 1), err
    if writer == "cache":
        assert (root / ".skilllint_cache").is_dir() and seen == []
    else:
        assert "file" in seen and "folder" in seen


def test_a_rewritten_baseline_keeps_the_mode_its_owner_gave_it(tmp_path):
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    write_skill(root, "notes", "---\nname: notes\ndescription: Drafts notes. Use when asked.\n---\nRead `references/gone.md`.\n")
    assert run_cli("check", "--no-cache", "--write-baseline", "b.json", ".", cwd=root)[0] == 0
    os.chmod(root / "b.json", 0o640)
    assert run_cli("check", "--no-cache", "--write-baseline", "b.json", ".", cwd=root)[0] == 0
    assert stat.S_IMODE(os.stat(root / "b.json").st_mode) == 0o640


def test_a_new_file_gets_the_mode_asked_less_the_umask(tmp_path):
    mask = os.umask(0o027)
    try:
        with SafeFolder.trusted(str(tmp_path)) as folder:
            folder.write_atomic("new", b"x", mode=0o666)
    finally:
        os.umask(mask)
    assert stat.S_IMODE(os.stat(tmp_path / "new").st_mode) == 0o640


def test_a_failed_check_before_the_rename_leaves_the_file_and_no_temporary_file(tmp_path):
    (tmp_path / "kept").write_bytes(b"old")

    def refuse() -> None:
        raise RuntimeError("changed meanwhile")

    with SafeFolder.trusted(str(tmp_path)) as folder, pytest.raises(RuntimeError):
        folder.write_atomic("kept", b"new", before_rename=refuse)
    assert (tmp_path / "kept").read_bytes() == b"old" and os.listdir(tmp_path) == ["kept"]


def test_a_link_in_place_of_the_file_is_replaced_not_written_through(tmp_path):
    outside = tmp_path / "outside"
    outside.write_bytes(b"keep me")
    inside = tmp_path / "inside"
    inside.mkdir()
    os.symlink(outside, inside / "report.txt")
    os.chmod(outside, 0o600)
    with SafeFolder.trusted(str(inside)) as folder:
        folder.write_atomic("report.txt", b"new", mode=0o644)
    assert outside.read_bytes() == b"keep me"
    written = Path(inside / "report.txt")
    assert not written.is_symlink() and written.read_bytes() == b"new"
    assert stat.S_IMODE(os.stat(outside).st_mode) == 0o600  # nothing of the link's target was taken
