"""skilllint.output.display_path: a report's paths, relative to the working folder as
``os.path.relpath`` makes them, with ``/`` separators (a path below the folder is cut, not
worked out: relpath was most of a warm run's report)."""

from __future__ import annotations

import itertools
import os
from pathlib import Path, PurePosixPath

import pytest

from skilllint.output import display_path

PARTS = ("a", "ab", "b", "..", ".", "", "a b", "é")


def _paths(depth: int):
    for size in range(depth + 1):
        for parts in itertools.product(PARTS, repeat=size):
            yield "/" + "/".join(parts)


@pytest.mark.skipif(os.sep != "/", reason="POSIX paths")
def test_it_says_what_relpath_says_for_every_path_and_folder():
    """Paths and folders with ``..``, ``.``, doubled separators and shared prefixes (``/ab``
    is not below ``/a``), as strings and as :class:`Path` (which keeps ``..``)."""
    display_path.cache_clear()
    folders = sorted(set(_paths(2)) | {"//a", "//a/b", "/a/", "/"})
    paths = sorted(set(_paths(3)) | {"//a/b", "//a/b/c", "/a//b"})
    for folder in folders:
        for path in paths:
            for given, cwd in ((Path(path), Path(folder)), (PurePosixPath(path), PurePosixPath(folder)), (path, folder)):
                assert display_path(given, cwd) == os.path.relpath(given, cwd), (path, folder)
