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
    # docs/surfaces.md §1b: skilllint quotes its messages; it reads a name as NFKC, stripped;
    # it rejects an empty description, checks metadata values, and reads past a NUL byte.
    reference_validator=True,
    name_read="nfkc",
    requires_description_text=True,
    checks_metadata_values=True,
    reads_nul_bytes=True,
)
