"""The open specification at agentskills.io (S-SPEC, docs/surfaces.md §1)."""

from .base import SPEC_KEYS, Target

TARGET = Target(
    id="agentskills",
    title="Agent Skills specification",
    evidence="docs/surfaces.md §1",
    splitter="canonical",
    # The spec names no parser. Portable skills must survive the most common
    # one, PyYAML (YAML 1.1), where `yes` is a boolean and 2026-03-06 a date.
    semantics="yaml11",
    accepted_keys=SPEC_KEYS,
    unknown_keys="warn",  # the spec lists no other fields
    name_charset="ascii",  # the spec text lists a-z, 0-9 and hyphens
    # The spec asks for a non-empty description, 1-500 characters of compatibility and
    # string-to-string metadata (docs/surfaces.md §1).
    requires_description_text=True,
    requires_compatibility_text=True,
    checks_metadata_values=True,
)
