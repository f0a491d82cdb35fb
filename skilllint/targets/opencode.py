"""OpenCode (SURFACES.md §4; name rules are [2ND] and changed between versions)."""

from .base import Target

TARGET = Target(
    id="opencode",
    title="OpenCode",
    evidence="SURFACES.md §4",
    splitter="canonical",
    semantics="yaml12",
    accepted_keys=frozenset({"name", "description", "license", "compatibility", "metadata"}),
    unknown_keys="ignore",
    name_charset="ascii",
    secondary=True,
)
