"""Cursor 2.4+ (docs/surfaces.md §4, [2ND]): name, description, disable-model-invocation."""

from .base import Target

TARGET = Target(
    id="cursor",
    title="Cursor",
    evidence="docs/surfaces.md §4",
    splitter="canonical",
    semantics="yaml12",
    accepted_keys=frozenset({"name", "description", "disable-model-invocation"}),
    unknown_keys=None,
    name_charset=None,
    name_max=None,
    secondary=True,
    # docs/surfaces.md §4 [2ND]: `.cursor/skills`, and the `.agents/skills` and Claude Code folders.
    project_skill_folders=((".cursor", "skills"), (".agents", "skills"), (".claude", "skills")),
    hides_disabled_skills=True,  # docs/surfaces.md §4: disable-model-invocation is honoured
)
