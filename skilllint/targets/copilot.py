"""GitHub Copilot / VS Code agent skills (docs/surfaces.md §4).

What Copilot does with keys outside its documented set is not known ([??]),
so unknown keys give no finding for this target.
"""

from .base import SPEC_KEYS, Target

TARGET = Target(
    id="copilot",
    title="GitHub Copilot / VS Code",
    evidence="docs/surfaces.md §4",
    splitter="canonical",
    semantics="yaml12",
    accepted_keys=SPEC_KEYS | frozenset({"argument-hint", "user-invocable", "disable-model-invocation"}),
    unknown_keys=None,
    name_charset="ascii",
)
