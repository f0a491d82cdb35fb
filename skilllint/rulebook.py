"""The rule book: one folder per rule (``rulebook/SL106-name-folder-mismatch/``)
whose README.md is the single source of the rule's documentation.

Installed, it ships inside the package as ``skilllint/rulebook``; in a
checkout it is the top-level ``rulebook/`` folder.
"""

from __future__ import annotations

from pathlib import Path


def rulebook_dir() -> Path | None:
    packaged = Path(__file__).parent / "rulebook"
    if packaged.is_dir():
        return packaged
    checkout = Path(__file__).resolve().parent.parent / "rulebook"
    if checkout.is_dir():
        return checkout
    return None


def rule_folders() -> dict[str, Path]:
    """Code -> folder, for every folder named ``CODE-name``."""
    base = rulebook_dir()
    if base is None:
        return {}
    folders = {}
    for entry in sorted(base.iterdir()):
        if entry.is_dir() and "-" in entry.name:
            folders[entry.name.split("-", 1)[0]] = entry
    return folders


def rule_page(code: str) -> str | None:
    folder = rule_folders().get(code)
    if folder is None:
        return None
    readme = folder / "README.md"
    try:
        return readme.read_text(encoding="utf-8")
    except OSError:
        return None
