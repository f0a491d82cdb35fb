"""The Claude Code CLI loader (S-CC, SURFACES.md §2b), modelled at v2.1.218+.

Lenient: unknown keys are ignored without a report; malformed YAML loads the
skill with no fields set; name defaults to the folder name.
"""

from .base import CLAUDE_CODE_KEYS, Target

TARGET = Target(
    id="claude-code",
    title="Claude Code",
    evidence="SURFACES.md §2b",
    splitter="canonical",
    semantics="yaml12",
    accepted_keys=CLAUDE_CODE_KEYS,
    unknown_keys="ignore",
    name_charset=None,
    name_max=None,
)
