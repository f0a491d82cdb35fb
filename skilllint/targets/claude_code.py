"""The Claude Code CLI loader (S-CC, docs/surfaces.md §2b), modelled at v2.1.218+.

Lenient: unknown keys are ignored without a report; malformed YAML loads the
skill with no fields set; name defaults to the folder name.
"""

import os
from dataclasses import dataclass
from pathlib import Path

from ..fsafe import is_within, plain_file
from .base import CLAUDE_CODE_KEYS, Target

PLUGIN_MANIFEST = (".claude-plugin", "plugin.json")
SKILLS_LOCATION = (".claude", "skills")  # the skills folder Claude Code scans (see "discovery" below)

TARGET = Target(
    id="claude-code",
    title="Claude Code",
    evidence="docs/surfaces.md §2b",
    splitter="canonical",
    semantics="yaml12",
    accepted_keys=CLAUDE_CODE_KEYS,
    unknown_keys="ignore",
    name_charset=None,
    name_max=None,
    # Plugins are copied whole into the plugin cache; files outside the plugin's folder are
    # not (code.claude.com/docs/en/plugins-reference, "Plugin caching and file resolution").
    plugin_manifest=PLUGIN_MANIFEST,
    # docs/surfaces.md §2b: the name defaults to the folder's; malformed YAML loads the skill
    # with no fields set; `synced` and `anthropic-skills` are reserved.
    name_defaults_to_folder=True,
    lenient_loader=True,
    reserves_anthropic_names=True,
    # Discovery (§2b): `.claude/skills/<name>/SKILL.md` alone, no recursion, only its own
    # plugin manifest; the CLI's listing hides `disable-model-invocation` skills, shows
    # `when_to_use` and, with no description, the first body line; Enterprise > Personal >
    # Project > bundled; names compare ignoring case.
    project_skill_folders=(SKILLS_LOCATION,),
    lists_only_direct_children=True,
    loads_nested_skills=False,
    catalog_plugin_manifests=(PLUGIN_MANIFEST,),
    scope_precedence=("admin", "user", "repo", "system"),
    hides_disabled_skills=True,
    lists_when_to_use=True,
    lists_first_body_line=True,
    catalog_model="listing",
    discovery_model="direct-children",
    prose_name="Claude Code",
    # Anthropic's skill-creator (scripts/run_eval.py) asks Claude Code this way; `--` keeps
    # a query that starts with a dash the prompt.
    agent_command=("claude", "-p", "--output-format", "stream-json", "--verbose", "--include-partial-messages", "--"),
    agent_stream="claude-stream-json",
)


_BOOLEANS = {"true", "false", "yes", "no", "on", "off", "1", "0"}


def read_bool(value) -> bool | None:
    """Claude Code's reading of a boolean field (v2.1.218+: true/false/yes/no/on/off/1/0,
    any case), None when it is not one."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower() if isinstance(value, (str, int)) else None
    if text not in _BOOLEANS:
        return None
    return text in ("true", "yes", "on", "1")


# -- discovery ---------------------------------------------------------------------------
#
# Claude Code lists a skill only as `<skills folder>/<name>/SKILL.md`, one level below the
# folder it scans: `.claude/skills` (enterprise, personal, project, and the nested
# `<subdir>/.claude/skills` of a monorepo, each a scanned folder of its own) and a plugin's
# `skills/` folder or the folders its plugin.json `skills` field names. It does not recurse
# (docs/surfaces.md §2b; anthropics/claude-code#39138, #18192, #28266; vercel-labs/agent-skills#122).

@dataclass(frozen=True, eq=False, repr=False)
class Unlisted:
    """Where a skill lies that Claude Code never lists: the skills folder it scans and the
    skill folder's path below it (more than one folder deep)."""

    skills_folder: Path
    below: Path

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


def unlisted(
    skill_dir: Path, stop_at: Path | None = None, manifests: dict | None = None, declared: dict | None = None
) -> Unlisted | None:
    """Where ``skill_dir`` (absolute, normalised) lies when it is below a folder Claude Code
    scans for skills yet deeper than ``<skills folder>/<name>``; None when Claude Code lists
    it, or when it lies below no such folder (Claude Code may still be pointed at it another
    way: ``--add-dir``, a copy).

    A ``.claude/skills`` folder above the skill is the one scanned (as the catalogs take it,
    :mod:`skilllint.catalog.model`); else the nearest plugin (``.claude-plugin/plugin.json``,
    searched no higher than ``stop_at``) whose skills folders hold it
    (:mod:`skilllint.targets.plugins`). ``manifests`` (folder -> whether it holds a plugin
    manifest) and ``declared`` (plugin -> its manifest's ``skills`` folders) spare siblings
    the same reads."""
    parts = skill_dir.parts
    for index in range(len(parts) - 3, -1, -1):  # the pair must lie above the skill folder
        if parts[index : index + 2] == SKILLS_LOCATION:
            folder = Path(*parts[: index + 2])
            below = Path(*parts[index + 2 :])
            return Unlisted(folder, below) if len(below.parts) > 1 else None
    plugin = plugin_root(skill_dir, stop_at, {} if manifests is None else manifests)
    if plugin is None:
        return None
    from .plugins import declared_skill_paths, plugin_loads

    cache = {} if declared is None else declared
    if plugin_loads(plugin, skill_dir, cache):
        return None
    scanned = [plugin / "skills", *(declared_skill_paths(plugin, cache) or ())]
    holding = [folder for folder in scanned if folder != skill_dir and is_within(folder, skill_dir)]
    if not holding:
        return None  # elsewhere in the plugin: not in a folder Claude Code scans for skills
    folder = max(holding, key=lambda f: len(f.parts))
    return Unlisted(folder, skill_dir.relative_to(folder))


def plugin_root(skill_dir: Path, stop_at: Path | None, memo: dict) -> Path | None:
    """The nearest folder above the skill, no higher than ``stop_at``, holding Claude Code's
    plugin manifest (a regular file in real folders: no link is stat-ed)."""
    stop = None if stop_at is None else str(stop_at)
    folder = os.path.dirname(str(skill_dir))
    while True:
        held = memo.get(folder)
        if held is None:
            held = memo[folder] = plain_file(folder, *PLUGIN_MANIFEST) is not None
        if held:
            return Path(folder)
        parent = os.path.dirname(folder)
        if folder == stop or parent == folder:
            return None
        folder = parent
