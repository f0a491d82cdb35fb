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
    # docs/surfaces.md §4, "Gemini CLI": the workspace tier reads `.gemini/skills` and
    # `.agents/skills`; within the tier `.agents/skills` wins (google-gemini/gemini-cli PR #19166).
    project_skill_folders=((".agents", "skills"), (".gemini", "skills")),
    ranks_project_folders=True,
    workspace_needs_trust=True,  # google-gemini/gemini-cli PR #19166
)
