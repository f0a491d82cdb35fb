"""The reference validator, skills-ref (S-REF, docs/surfaces.md §1b).

Reads SKILL.md (or skill.md), splits with ``content.split("---", 2)`` and
parses with strictyaml: every scalar is a string; flow style, anchors, tags
and duplicate keys are rejected.
"""

from .base import SPEC_KEYS, Target

TARGET = Target(
    id="skills-ref",
    title="skills-ref reference validator",
    evidence="docs/surfaces.md §1b",
    splitter="skills-ref",
    semantics="strict",
    accepted_keys=SPEC_KEYS,
    unknown_keys="reject",
    skill_filenames=("SKILL.md", "skill.md"),
    name_charset="unicode",
    description_count="raw",
)
