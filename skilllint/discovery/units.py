"""What installs each skill, on each surface: the one model every rule reads layout from.

A skill reaches a surface through an **install unit** (docs/surfaces.md §4a):

* a **plugin** (:mod:`skilllint.discovery.plugins`): a manifest's folder, or a folder a
  marketplace entry installs; copied whole, namespaced ``plugin:skill``;
* an **agent folder**: a ``.claude/skills``, ``.agents/skills``, ``.github/skills``, … folder a
  surface scans in place in a repository (the project scope);
* otherwise a **collection**: a plain folder of skills an author hands over to be installed.

From the unit follow the targets a skill is linted for by default (:meth:`InstallUnits.targets`),
the plugin that installs it whole (what its links may lean on, SL301/SL302), its namespace, and
whether a surface lists it at all where it lies (:meth:`InstallUnits.unlisted`, SL520).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..fsafe import is_within, plain_file
from ..targets import TARGETS, Target
from .plugins import Plugin, PluginIndex

# The agent folders a surface scans in a repository, as (dot-folder, "skills") pairs, and the
# targets a skill found below one is linted for by default (docs/configuration.md, "Targets").
AGENT_FOLDER_TARGETS = (
    ((".claude", "skills"), ("claude-code",)),
    ((".agents", "skills"), ("codex", "agentskills")),
    ((".codex", "skills"), ("codex", "agentskills")),
    ((".github", "skills"), ("copilot",)),
    ((".opencode", "skills"), ("opencode",)),
    ((".gemini", "skills"), ("gemini",)),
    ((".cursor", "skills"), ("cursor",)),
)
_TARGETS_BY_FOLDER = dict(AGENT_FOLDER_TARGETS)
CLAUDE_SKILLS_FOLDER = (".claude", "skills")  # the one Claude Code scans (enterprise, personal, project)
_CLAUDE = TARGETS["claude-code"]


@dataclass(frozen=True, eq=False, repr=False)
class Unlisted:
    """Where a skill lies that Claude Code never lists: the skills folder it scans and the
    skill folder's path below it (more than one folder deep)."""

    skills_folder: Path
    below: Path
    # A skill folder a plugin's `skills` paths name beside this one (its manifest or marketplace
    # entry lists its neighbours but not it): the skill lies where the author installs skills.
    beside: Path | None = None
    plugin: str | None = None  # that plugin's name

    @property
    def levels(self) -> int:
        return len(self.below.parts)

    def outer_skill(self) -> Path | None:
        """The listed skill this one lies in: the skills folder itself when it is one skill (a
        folder plugin.json names), else ``<skills folder>/<name>`` when that holds SKILL.md; None
        when it holds none (a group folder such as ``.claude/skills/team``)."""
        top = self.skills_folder
        outer = top if plain_file(str(top), "SKILL.md") is not None else top / self.below.parts[0]
        return outer if outer == top or plain_file(str(outer), "SKILL.md") is not None else None


class InstallUnits:
    """The install-unit model of one run (or one language-server project): every manifest and
    marketplace read once, every answer kept per skill folder and surface."""

    def __init__(self) -> None:
        self.index = PluginIndex()
        self._plugins: dict[tuple, tuple[Plugin | None, Plugin | None]] = {}

    # -- plugins ------------------------------------------------------------------------------

    def _plugins_for(self, skill: Path, stop: Path | None, target: Target, own: bool = True) -> tuple[Plugin | None, Plugin | None]:
        key = (str(skill), None if stop is None else str(stop), target.id)
        found = self._plugins.get(key)
        if found is None:
            candidates = self.index.candidates(skill, stop, target.catalog_plugin_manifests, target.plugin_marketplaces, own)
            loading = next((p for p in candidates if p.loads(skill, nested=target.loads_nested_skills)), None)
            found = self._plugins[key] = (loading, candidates[0] if candidates else None)
        return found

    def plugin_of(self, skill: Path, stop: Path | None, target: Target, own: bool = True) -> Plugin | None:
        """The plugin that installs the skill folder ``skill`` (absolute, normalised) for
        ``target``: the nearest whose manifest or marketplace entry loads it. ``stop``: the
        highest folder searched for manifests and marketplaces; ``own``: whether the skill folder
        may hold such files itself (:meth:`PluginIndex.candidates`)."""
        return self._plugins_for(skill, stop, target, own)[0]

    def holding_plugin(self, skill: Path, stop: Path | None, target: Target, own: bool = True) -> Plugin | None:
        """The plugin that installs the skill, else the nearest whose root holds it though it
        does not load it (its files still ship with that plugin); None outside every plugin."""
        loading, nearest = self._plugins_for(skill, stop, target, own)
        return loading or nearest

    def plugins_above(self, folder: Path, stop: Path | None, target: Target) -> bool:
        """Whether any manifest or marketplace ``target`` reads lies at or above ``folder`` (no
        higher than ``stop``): without one, no skill below the folder is a plugin's."""
        stop_text = None if stop is None else os.path.normpath(stop)
        return bool(self.index.made_above(os.path.normpath(folder), stop_text, target.catalog_plugin_manifests, target.plugin_marketplaces))

    # -- targets ------------------------------------------------------------------------------

    def targets(self, skill: Path, stop: Path | None) -> tuple[str, ...]:
        """The targets a skill's install units imply (docs/configuration.md, "Targets"): those of
        each agent folder above it, Claude Code when a Claude Code plugin (a manifest, or a
        marketplace entry) loads it or would load it but for where it lies (:meth:`unlisted`: SL520
        says why not), else the generic ``agentskills``. ``skill`` is absolute."""
        parts = skill.parts
        found: list[str] = []
        for pair in zip(parts, parts[1:]):
            ids = _TARGETS_BY_FOLDER.get(pair)
            if ids is not None:
                found.extend(t for t in ids if t not in found)
        if "claude-code" not in found and (self.plugin_of(skill, stop, _CLAUDE) is not None or self.unlisted(skill, stop)):
            found.append("claude-code")  # a plugin installs it, or it lies where one would (SL520 says why not)
        return tuple(found) or ("agentskills",)

    # -- Claude Code's listing ----------------------------------------------------------------
    #
    # Claude Code lists a skill only as `<skills folder>/<name>/SKILL.md`, one level below the
    # folder it scans: `.claude/skills` (enterprise, personal, project, and the nested
    # `<subdir>/.claude/skills` of a monorepo, each a scanned folder of its own) and a plugin's
    # `skills/` folder or the folders its manifest or marketplace entry names. It does not recurse
    # (docs/surfaces.md §2b; anthropics/claude-code#39138, #18192, #28266; vercel-labs/agent-skills#122).

    def unlisted(self, skill: Path, stop: Path | None) -> Unlisted | None:
        """Where ``skill`` (absolute, normalised) lies when it is below a folder Claude Code
        scans for skills yet deeper than ``<skills folder>/<name>``; None when Claude Code lists
        it, or when it lies below no such folder (Claude Code may still be pointed at it another
        way: ``--add-dir``, a copy).

        A ``.claude/skills`` folder above the skill is the one scanned (as the catalogs take it,
        :mod:`skilllint.catalog.model`); else the plugins holding it (:meth:`plugin_of`)."""
        folder, below = claude_skills_folder(skill)
        if folder is not None:
            if synced_from_claude_ai(skill):
                return None  # Claude Code's own copy of a claude.ai skill, which it loads from there
            return Unlisted(folder, below) if len(below.parts) > 1 else None
        loading, nearest = self._plugins_for(skill, stop, _CLAUDE)
        if loading is not None or nearest is None:
            return None
        candidates = self.index.candidates(skill, stop, _CLAUDE.catalog_plugin_manifests, _CLAUDE.plugin_marketplaces)
        holding = [f for p in candidates for f in p.scanned if f != skill and is_within(f, skill)]
        if holding:
            scanned = max(holding, key=lambda f: len(f.parts))
            return Unlisted(scanned, skill.relative_to(scanned))
        for plugin in candidates:  # beside the skills a plugin names one by one, yet not named itself
            for folder in plugin.declared or ():
                if folder.parent == skill.parent and plain_file(str(folder), "SKILL.md") is not None:
                    return Unlisted(skill.parent, Path(skill.name), beside=folder, plugin=plugin.name)
        return None  # elsewhere in the plugin: not where Claude Code looks for skills

    def not_listing(self, skill: Path, target_ids, stop: Path | None) -> tuple[str, ...]:
        """Those of ``target_ids`` whose discovery never lists the skill where it lies, though it
        lies in a folder the surface scans (docs/configuration.md, "Targets"): for them the skill
        is no skill, so the engine runs only the rules about the folder itself (SL520 tells why).

        Claude Code lists ``<skills folder>/<name>/SKILL.md`` alone (:meth:`unlisted`). Codex and
        OpenCode skip some skills too, but only SL520 reports those so far."""
        if "claude-code" in target_ids and self.unlisted(skill, stop) is not None:
            return ("claude-code",)
        return ()


def synced_from_claude_ai(skill: Path) -> bool:
    """Whether the skill folder is ``<.claude/skills>/synced/<name>``: where Claude Code keeps the
    skills it syncs from a claude.ai account, named ``anthropic-skills:<name>`` (docs/surfaces.md
    §2b; CHANGELOG 2.1.269). The folder name is reserved elsewhere (SL107)."""
    folder, below = claude_skills_folder(skill)
    return folder is not None and len(below.parts) == 2 and below.parts[0].casefold() == "synced"


def in_agent_folder(skill: Path) -> bool:
    """Whether the skill folder lies below an agent folder some surface scans (``.agents/skills``, …)."""
    parts = skill.parts
    return any(pair in _TARGETS_BY_FOLDER for pair in zip(parts, parts[1:-1]))


def claude_skills_folder(skill: Path) -> tuple[Path | None, Path]:
    """The innermost ``.claude/skills`` folder above ``skill`` and the path below it, or
    ``(None, skill)``."""
    parts = skill.parts
    for index in range(len(parts) - 3, -1, -1):  # the pair must lie above the skill folder
        if parts[index : index + 2] == CLAUDE_SKILLS_FOLDER:
            return Path(*parts[: index + 2]), Path(*parts[index + 2 :])
    return None, skill


__all__ = ["AGENT_FOLDER_TARGETS", "InstallUnits", "Plugin", "Unlisted", "claude_skills_folder", "in_agent_folder", "synced_from_claude_ai"]
