"""The open specification at agentskills.io (S-SPEC, SURFACES.md §1)."""

from .base import SPEC_KEYS, Target

TARGET = Target(
    id="agentskills",
    title="Agent Skills specification",
    evidence="SURFACES.md §1",
    splitter="canonical",
    semantics="yaml12",
    accepted_keys=SPEC_KEYS,
    unknown_keys="warn",  # the spec lists no other fields
    name_charset="ascii",  # the spec text lists a-z, 0-9 and hyphens
)
