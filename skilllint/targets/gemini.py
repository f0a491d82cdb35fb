"""Gemini CLI (docs/surfaces.md §4, [DOC]/[2ND]): name and description."""

from .base import Target

TARGET = Target(
    id="gemini",
    title="Gemini CLI",
    evidence="docs/surfaces.md §4",
    splitter="canonical",
    semantics="yaml12",
    accepted_keys=frozenset({"name", "description"}),
    unknown_keys=None,
    name_charset=None,
    name_max=None,
    secondary=True,
)
