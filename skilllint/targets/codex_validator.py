"""The validator bundled with Codex's skill-creator (S-CX-QV, docs/surfaces.md §3c).

A copy of Anthropic's quick_validate.py whose allowlist lacks ``compatibility``.
Opt-in: never inferred from a skill's location.
"""

from .base import Target

TARGET = Target(
    id="codex-validator",
    title="Codex skill-creator quick_validate",
    evidence="docs/surfaces.md §3c",
    splitter="quick-validate",
    semantics="yaml11",
    accepted_keys=frozenset({"name", "description", "license", "allowed-tools", "metadata"}),
    unknown_keys="reject",
    name_charset="ascii",
    description_count="strip",
    # quick_validate.py (docs/surfaces.md §2a, §3c): strips the name, checks optional fields when truthy.
    quick_validate=True,
    name_read="strip",
)
