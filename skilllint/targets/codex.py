"""The Codex CLI loader (S-CX-LOAD, docs/surfaces.md §3a).

serde_yaml into ``{name, description, metadata.short-description}``; other
keys are ignored; name and description are whitespace-collapsed; names have no
character rule but count a ``plugin:`` prefix toward the 64-character limit.
"""

from .base import SPEC_KEYS, Target

TARGET = Target(
    id="codex",
    title="Codex CLI",
    evidence="docs/surfaces.md §3a",
    splitter="codex",
    semantics="serde",
    # Only name, description and metadata are read; the other spec keys are
    # standard and silently ignored, so they are not "unknown" to an author.
    accepted_keys=SPEC_KEYS,
    unknown_keys="ignore",
    name_charset=None,
    description_count="collapse",
)


def plugin_namespace(package) -> str | None:
    """The ``name`` of the Codex plugin holding the skill (``.codex-plugin/plugin.json``).

    Codex prefixes plugin skills as ``{namespace}:{name}`` before checking the
    64-character limit (S-CX-LOAD). Only a manifest inside the linted tree is read.
    """
    import json

    from ..fsafe import UnsafeFile, read_capped

    folder = package.ancestor_with(".codex-plugin", "plugin.json")
    if folder is None:
        return None
    try:
        data = json.loads(read_capped(folder / ".codex-plugin" / "plugin.json", 256 * 1024).data)
    except (UnsafeFile, ValueError):
        return None
    name = data.get("name") if isinstance(data, dict) else None
    return name if isinstance(name, str) and name else None
