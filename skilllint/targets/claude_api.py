"""claude.ai uploads, the Skills API and package_skill.py: Anthropic's
quick_validate.py (S-AQV, docs/surfaces.md §2a). PyYAML safe_load semantics."""

from .base import SPEC_KEYS, Target

TARGET = Target(
    id="claude-api",
    title="claude.ai / Skills API (quick_validate)",
    evidence="docs/surfaces.md §2a",
    splitter="quick-validate",
    semantics="yaml11",
    accepted_keys=SPEC_KEYS,
    unknown_keys="reject",
    name_charset="ascii",
    description_count="strip",
    # quick_validate.py (docs/surfaces.md §2a, §3c): strips the name, checks optional fields when truthy.
    quick_validate=True,
    name_read="strip",
)
