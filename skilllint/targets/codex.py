"""The Codex CLI loader (S-CX-LOAD, SURFACES.md §3a).

serde_yaml into ``{name, description, metadata.short-description}``; other
keys are ignored; name and description are whitespace-collapsed; names have no
character rule but count a ``plugin:`` prefix toward the 64-character limit.
"""

from .base import SPEC_KEYS, Target

TARGET = Target(
    id="codex",
    title="Codex CLI",
    evidence="SURFACES.md §3a",
    splitter="codex",
    semantics="yaml12",
    # Only name, description and metadata are read; the other spec keys are
    # standard and silently ignored, so they are not "unknown" to an author.
    accepted_keys=SPEC_KEYS,
    unknown_keys="ignore",
    name_charset=None,
    description_count="collapse",
)
