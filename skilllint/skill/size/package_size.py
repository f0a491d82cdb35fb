"""The size of a skill package on disk, as upload limits count it."""

from __future__ import annotations

import os
import stat

from ..package import SkillPackage


def readable_size(n: int) -> str:
    """``n`` bytes as a person reads them: "30 MB", "512 KB", "900 bytes"."""
    if n >= 1024 * 1024:
        return f"{n / 1048576:.3g} MB"
    if n >= 1024:
        return f"{n / 1024:.3g} KB"
    return f"{n:,} bytes"


def package_bytes(package: SkillPackage, stop_after: int) -> int:
    """Bytes of regular files in the package, links not followed: as its inventory lists
    them (an editor's buffer or standard input at its own size, a new file too), else,
    when the listing was cut at its bound, walking the folders until past ``stop_after``."""
    inventory = package.inventory
    if not inventory.truncated:
        return sum(entry.size for entry in inventory.entries.values() if entry.kind == "file")
    total = 0
    stack = [package.root]
    while stack:
        folder = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISDIR(info.st_mode):
                if entry.name not in (".git", "node_modules"):
                    stack.append(entry.path)
            elif stat.S_ISREG(info.st_mode):
                total += info.st_size
                if total > stop_after:
                    return total
    return total
