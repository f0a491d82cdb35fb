"""The Claude Code CLI loader (S-CC, SURFACES.md §2b), modelled at v2.1.218+.

Lenient: unknown keys are ignored without a report; malformed YAML loads the
skill with no fields set; name defaults to the folder name.
"""

from .base import CLAUDE_CODE_KEYS, Target

TARGET = Target(
    id="claude-code",
    title="Claude Code",
    evidence="SURFACES.md §2b",
    splitter="canonical",
    semantics="yaml12",
    accepted_keys=CLAUDE_CODE_KEYS,
    unknown_keys="ignore",
    name_charset=None,
    name_max=None,
    # Plugins are copied whole into the plugin cache; files outside the plugin's folder are
    # not (code.claude.com/docs/en/plugins-reference, "Plugin caching and file resolution").
    plugin_manifest=(".claude-plugin", "plugin.json"),
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
