"""SL52x: discovery: whether a surface would find the skill at all."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

from ...diagnostics import Finding
from ...skill.package import SkillPackage
from ...rule import Rule, RuleContext, severities
from ...targets.base import Target


class NotDiscoverable(Rule):
    code = "SL520"
    name = "not-discoverable"
    summary = "The surface's skill discovery would never find this skill"
    severity = severities("warning: codex opencode claude-code")
    needs_skill_md = False

    # Counts the folders of the whole skills root (Codex's 2,000 cap): not this package's alone.
    cacheable = False

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        from ...discovery.reach import LINE_ONE

        if package.skill_md_name != "SKILL.md":
            return  # SL002 reports a misnamed SKILL.md; no surface loads it either way
        folder = package.normal_root
        for target in ctx.targets:
            if target.discovery_model == "walk":
                reason = self._codex(folder)
            elif target.discovery_model == "first-skill-md":
                reason = self._opencode(folder)
            elif target.discovery_model == "direct-children":
                reason = self._claude_code(package, folder, ctx, target)
            else:
                continue
            if reason:
                yield Finding(reason, LINE_ONE, path=folder / "SKILL.md", targets=(target.id,))

    @staticmethod
    def _codex(folder: Path) -> str | None:
        from ...discovery.reach import CODEX_MAX_DEPTH, CODEX_MAX_DIRS, CODEX_ROOTS, codex_reached, inside_skill_package, placement

        placed = placement(folder, CODEX_ROOTS)
        if placed is None:
            return None
        root, rel, where, hidden = placed
        if inside_skill_package(folder, root) is not None:
            return None  # a file of another skill's package (a sample it ships), not a skill of its own
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
        from ...discovery.reach import OPENCODE_ROOTS, inside_skill_package, placement

        placed = placement(folder, OPENCODE_ROOTS)
        if placed is None:
            return None
        root, rel, where, hidden = placed
        if inside_skill_package(folder, root) is not None:
            return None  # a file of another skill's package (a sample it ships), not a skill of its own
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
    def _claude_code(package: SkillPackage, folder: Path, ctx: RuleContext, target: Target) -> str | None:
        from ...discovery import claude_code_links
        from ...discovery.reach import inside_skill_package
        from ...discovery.units import InstallUnits

        settings = ctx.settings
        if settings is not None:
            if target.id not in settings.not_listing(package):
                return None  # listed where it lies: the run's answer to the question below, kept per skill
            stop = settings.manifest_search_stop(package)
            place = settings.units.unlisted(folder, stop)
        else:
            stop = Path(os.path.normpath(package.lint_root))
            place = InstallUnits().unlisted(folder, stop)
        if place is None:
            return None
        if inside_skill_package(folder, place.skills_folder) is not None:
            return None  # a file of another skill's package (a sample it ships), not a skill of its own
        if claude_code_links.reached(folder, place.skills_folder, package.max_bytes):
            return None  # a document of a listed skill, read when Claude follows a link to it
        if place.beside is not None:
            return (
                f"Claude Code never installs this skill: the plugin `{place.plugin}` names the skill folders it loads one "
                f"by one, `{place.beside.name}` beside this one among them, but not `{folder.name}`; add it to the "
                "`skills` paths of its manifest or marketplace entry, or move it away from the skills it ships with"
            )
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
