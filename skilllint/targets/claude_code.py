"""The Claude Code CLI loader (S-CC, docs/surfaces.md §2b), modelled at v2.1.218+.

Lenient: unknown keys are ignored without a report; malformed YAML loads the
skill with no fields set; name defaults to the folder name.
"""

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
    plugin_marketplaces=((".claude-plugin", "marketplace.json"),),
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
