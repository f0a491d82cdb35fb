"""Discovery: would the surface find the skill at all (SL520)?

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
  is listed, with no recursion (:func:`skilllint.targets.claude_code.unlisted`). A skill
  deeper down is no skill for Claude Code: the engine runs no rule about its frontmatter,
  name, description or size for claude-code (``Settings.not_listing``). It is reported here
  unless links lead to it from a skill listed in the same skills folder (to its SKILL.md or
  folder, from that skill's SKILL.md or a file it references, or on from a nested skill
  reached so: :func:`skilllint.targets.claude_code_links.reached`): then the author ships it
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
from typing import Iterator

from ..diagnostics import Finding, Span
from ..skill.package import SkillPackage
from ..registry import Rule, RuleContext, severities
from ..skill import claude_code_links
from ..targets import claude_code

LINE_ONE = Span(1, 1, 1, 1)

CODEX_ROOTS = ((".agents", "skills"), (".codex", "skills"))
OPENCODE_ROOTS = ((".opencode", "skills"), (".opencode", "skill"), (".claude", "skills"), (".agents", "skills"))
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


class NotDiscoverable(Rule):
    code = "SL520"
    name = "not-discoverable"
    summary = "The surface's skill discovery would never find this skill"
    severity = severities("warning: codex opencode claude-code")
    needs_skill_md = False

    # Counts the folders of the whole skills root (Codex's 2,000 cap): not this package's alone.
    cacheable = False

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        if package.skill_md_name != "SKILL.md":
            return  # SL002 reports a misnamed SKILL.md; no surface loads it either way
        folder = Path(os.path.normpath(package.root))
        for target in ctx.target_ids:
            if target == "codex":
                reason = self._codex(folder)
            elif target == "opencode":
                reason = self._opencode(folder)
            elif target == "claude-code":
                reason = self._claude_code(package, folder, ctx)
            else:
                continue
            if reason:
                yield Finding(reason, LINE_ONE, path=folder / "SKILL.md", targets=(target,))

    @staticmethod
    def _codex(folder: Path) -> str | None:
        placed = _placement(folder, CODEX_ROOTS)
        if placed is None:
            return None
        root, rel, where, hidden = placed
        if hidden:
            return (
                f"Codex never finds this skill: it lies at {where}, and Codex's skill scan skips every folder "
                f"whose name starts with `.` (`{hidden[0]}`)"
            )
        if len(rel.parts) > CODEX_MAX_DEPTH:
            return (
                f"Codex never finds this skill: it lies at {where}, {len(rel.parts)} folders deep, and Codex's skill "
                f"scan stops at depth {CODEX_MAX_DEPTH} (the root is depth 0)"
            )
        reached = codex_reached(str(root))
        if reached is not None and str(folder) not in reached:
            return (
                f"Codex may not find this skill: `{root.parent.name}/{root.name}` holds more than "
                f"{CODEX_MAX_DIRS:,} folders, Codex stops its skill scan after {CODEX_MAX_DIRS:,} folders per root, "
                f"and this skill at `{rel.as_posix()}` comes after the cap in a breadth-first walk"
            )
        return None

    @staticmethod
    def _opencode(folder: Path) -> str | None:
        placed = _placement(folder, OPENCODE_ROOTS)
        if placed is None:
            return None
        root, rel, where, hidden = placed
        if hidden:
            return (
                f"OpenCode never finds this skill: it lies at {where}, and OpenCode's skill scan skips hidden "
                f"folders (`{hidden[0]}`)"
            )
        if "node_modules" in rel.parts:
            return (
                f"OpenCode never finds this skill: it lies at {where}, and OpenCode's skill scan skips "
                "`node_modules`"
            )
        current = root
        for part in rel.parts[:-1]:
            current = current / part
            if os.path.isfile(current / "SKILL.md"):
                outer = current.relative_to(root).as_posix()
                return (
                    f"OpenCode never finds this skill: it lies inside the skill `{outer}` "
                    f"(at {where}), and OpenCode does not search a folder that holds SKILL.md any further"
                )
        return None

    @staticmethod
    def _claude_code(package: SkillPackage, folder: Path, ctx: RuleContext) -> str | None:
        settings = ctx.settings
        if settings is not None:
            stop = settings.manifest_search_stop(package)
            place = claude_code.unlisted(folder, stop, *settings.plugin_memos)
        else:
            stop = Path(os.path.normpath(package.lint_root))
            place = claude_code.unlisted(folder, stop)
        if place is None:
            return None
        if claude_code_links.reached(folder, place.skills_folder, package.max_bytes):
            return None  # a document of a listed skill, read when Claude follows a link to it
        where = f"`{place.below.as_posix()}` below `{place.skills_folder.parent.name}/{place.skills_folder.name}`"
        why = ""
        outer = place.outer_skill()
        if outer is not None:
            why = f"; no link from the skill `{outer.name}`, the skills beside it, or the nested skills they link leads to it"
        return (
            f"Claude Code never lists this skill: it lies at {where}, {place.levels} folders down, and Claude Code "
            f"loads only `<skills folder>/<name>/SKILL.md`, without searching deeper{why}"
        )


RULES = [NotDiscoverable]


def _placement(folder: Path, roots) -> tuple[Path, Path, str, list[str]] | None:
    """(root, path below it, how to name the place, hidden folder names on the way), or None
    when the skill is not under one of ``roots``."""
    root = surface_root(folder, roots)
    if root is None:
        return None
    rel = folder.relative_to(root)
    where = f"`{rel.as_posix()}` below `{root.parent.name}/{root.name}`"
    return root, rel, where, [part for part in rel.parts if part.startswith(".")]
