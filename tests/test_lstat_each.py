"""The ``lstat`` of a list of paths, None for one that cannot be stat-ed: the one helper the
catalog entry keys and the Claude Code link memo compare files by."""

from __future__ import annotations

import os

from skilllint.fsafe import lstat_each


def test_each_path_gets_its_lstat_or_none(tmp_path):
    (tmp_path / "file").write_bytes(b"abc")
    os.symlink(tmp_path / "gone", tmp_path / "dangling")
    (tmp_path / "plain").write_bytes(b"")
    found = lstat_each([tmp_path / "file", str(tmp_path / "missing"), tmp_path / "dangling", tmp_path / "plain" / "below"])
    assert found[0].st_size == 3
    assert found[1] is None
    assert found[2] is not None and os.path.islink(tmp_path / "dangling")  # the link itself, never its target
    assert found[3] is None  # a file where a folder should be: ENOTDIR, not an error
    assert lstat_each([]) == []
