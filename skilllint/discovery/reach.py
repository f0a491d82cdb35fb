"""Discovery: whether a surface would find the skill at all (read by SL520).

Judged per package from the skill's path below the skills root the surface
scans, the innermost ``.agents/skills``-like pair above the skill folder:

* codex (``.agents/skills``, ``.codex/skills``; docs/surfaces.md §3a, S-CX-LOAD
  ``discover_skills_under_root``): a breadth-first walk from the root (depth 0)
  that skips every entry whose name starts with ``.``, does not enqueue a
  folder deeper than ``MAX_SCAN_DEPTH = 6`` and stops enqueueing after
  ``MAX_SKILLS_DIRS_PER_ROOT = 2000`` folders (the root counts);
* opencode (``.opencode/skills``, older ``.opencode/skill``, and the
  compatibility roots ``.claude/skills``, ``.agents/skills``; docs/surfaces.md §4):
  hidden folders and ``node_modules`` are skipped and a folder that holds
  SKILL.md is not searched further, so a skill nested in another is missed.

* claude-code (``.claude/skills``, a plugin's ``skills/`` folder or the folders its
  plugin.json ``skills`` field names; docs/surfaces.md §2b): only ``<skills folder>/<name>/SKILL.md``
  is listed, with no recursion (:meth:`skilllint.discovery.units.InstallUnits.unlisted`). A skill
  deeper down is no skill for Claude Code: the engine runs no rule about its frontmatter,
  name, description or size for claude-code (``Settings.not_listing``). It is reported here
  unless links lead to it from a skill listed in the same skills folder (to its SKILL.md or
  folder, from that skill's SKILL.md or a file it references, or on from a nested skill
  reached so: :func:`skilllint.discovery.claude_code_links.reached`): then the author ships it
  as a document of that skill, which Claude reads when it follows the link, and the engine
  runs the rules about its content for claude-code (``Settings.reads_as_document``).

A skill that does not lie under such a root is not judged: the surface may
still be pointed at it another way (a plugin, a configured path, a copy).
The folder cap is estimated with a bounded walk of the root (at most 2,000
folders, names in sorted order, links not followed): Codex reads folders in
the file system's order, so past the cap the message says "may".
"""

from __future__ import annotations

import os
from collections import deque
from functools import lru_cache
from pathlib import Path

from ..diagnostics import Span
from ..targets import TARGETS

LINE_ONE = Span(1, 1, 1, 1)


# The folders each surface scans come from its profile (skilllint.targets), as they do for the
# catalogs; OpenCode's older docs name `.opencode/skill` too.
CODEX_ROOTS = TARGETS["codex"].project_skill_folders


OPENCODE_ROOTS = TARGETS["opencode"].project_skill_folders + ((".opencode", "skill"),)


CODEX_MAX_DEPTH = 6


CODEX_MAX_DIRS = 2000


def surface_root(path: Path, pairs) -> Path | None:
    """The innermost ``.x/skills`` folder among ``pairs`` above ``path`` (not ``path`` itself)."""
    parts = path.parts
    for index in range(len(parts) - 2, -1, -1):
        if index + 2 > len(parts) - 1:
            continue  # the pair must lie above the skill folder
        if tuple(parts[index : index + 2]) in pairs:
            return Path(*parts[: index + 2])
    return None


@lru_cache(maxsize=64)
def codex_reached(root: str) -> frozenset[str] | None:
    """The folders Codex's walk of ``root`` enqueues before the cap, or None when the cap is not hit.

    Breadth first, dot-names skipped, depth at most 6, sorted names; symbolic links
    to folders count as folders but are not followed (Codex follows them)."""
    visited = [root]
    seen = {root}
    queue = deque([(root, 0)])
    truncated = False
    while queue:
        folder, depth = queue.popleft()
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            try:
                is_dir = entry.is_dir()
            except OSError:
                continue
            if not is_dir or depth + 1 > CODEX_MAX_DEPTH:
                continue
            if len(visited) >= CODEX_MAX_DIRS:
                truncated = True
                continue
            if entry.path in seen:
                continue
            seen.add(entry.path)
            visited.append(entry.path)
            if not entry.is_symlink():
                queue.append((entry.path, depth + 1))
    return frozenset(visited) if truncated else None


def placement(folder: Path, roots) -> tuple[Path, Path, str, list[str]] | None:
    """(root, path below it, how to name the place, hidden folder names on the way), or None
    when the skill is not under one of ``roots``."""
    root = surface_root(folder, roots)
    if root is None:
        return None
    rel = folder.relative_to(root)
    where = f"`{rel.as_posix()}` below `{root.parent.name}/{root.name}`"
    return root, rel, where, [part for part in rel.parts if part.startswith(".")]


def inside_skill_package(folder: Path, top: Path) -> Path | None:
    """The skill whose package holds ``folder`` (absolute, normalised) as data: the nearest folder
    above it, no higher than ``top``, that holds a SKILL.md, when ``folder`` lies two or more
    folders below that skill, inside one of its own folders (``tester/assets/sample-skill``: a
    sample a skill-testing skill ships as input to its scripts). Such a SKILL.md is a file of the
    outer skill's package, not a skill its author expects a surface to discover. A skill folder
    right below another skill (``deploy/rollback``) stands where a package's files are grouped, a
    sub-skill made in place of a resource folder: None, as for a skill inside no other."""
    if not folder.is_relative_to(top) or folder == top:
        return None
    current = folder.parent
    while True:
        if os.path.isfile(current / "SKILL.md"):
            return current if len(folder.relative_to(current).parts) >= 2 else None
        if current == top or current == current.parent:
            return None
        current = current.parent
