"""Surface profiles (docs/surfaces.md); which targets a skill's location implies is
:mod:`skilllint.discovery.units`'s."""

from __future__ import annotations

from . import (
    agentskills,
    claude_api,
    claude_code,
    codex,
    codex_validator,
    copilot,
    cursor,
    gemini,
    opencode,
    skills_ref,
)
from .base import Target

TARGETS: dict[str, Target] = {
    module.TARGET.id: module.TARGET
    for module in (
        agentskills,
        skills_ref,
        claude_code,
        claude_api,
        codex,
        codex_validator,
        copilot,
        opencode,
        gemini,
        cursor,
    )
}
TARGET_IDS: tuple[str, ...] = tuple(TARGETS)

def resolve_target_names(names: list[str]) -> tuple[str, ...]:
    """Expand ``all`` and validate ids; raises ValueError naming the bad one."""
    result: list[str] = []
    for name in names:
        for part in name.split(","):
            part = part.strip()
            if not part:
                continue
            if part == "all":
                result.extend(t for t in TARGET_IDS if t not in result)
                continue
            if part not in TARGETS:
                raise ValueError(f"unknown target {part!r}; choose from: all, {', '.join(TARGET_IDS)}")
            if part not in result:
                result.append(part)
    return tuple(result)


__all__ = ["TARGETS", "TARGET_IDS", "Target", "resolve_target_names"]
