"""OpenCode (docs/surfaces.md §4; name rules are [2ND] and changed between versions)."""

from .base import SPEC_KEYS, Target

TARGET = Target(
    id="opencode",
    title="OpenCode",
    evidence="docs/surfaces.md §4",
    splitter="canonical",
    semantics="yaml12",
    # Spec keys are standard; what OpenCode does with allowed-tools is [??]
    # (docs/surfaces.md §5), and an unconfirmed fact gives no finding.
    accepted_keys=SPEC_KEYS,
    unknown_keys="ignore",
    name_charset="ascii",
    secondary=True,
    # docs/surfaces.md §4: `.opencode/skills`, and the compatibility folders `.claude/skills`, `.agents/skills`.
    project_skill_folders=((".opencode", "skills"), (".claude", "skills"), (".agents", "skills")),
    # docs/surfaces.md §4: the scan stops at the first SKILL.md, so a skill nested in another
    # skill's folder is never loaded.
    loads_nested_skills=False,
    discovery_model="first-skill-md",
)
