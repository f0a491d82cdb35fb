"""Surface profiles and target inference (RULES.md "Targets")."""

from __future__ import annotations

import os
from pathlib import Path

from ..fsafe import plain_file
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

# Folder pairs under which a skill lives -> the targets that load it.
_LOCATION_TARGETS = (
    ((".claude", "skills"), ("claude-code",)),
    ((".agents", "skills"), ("codex", "agentskills")),
    ((".codex", "skills"), ("codex", "agentskills")),
    ((".github", "skills"), ("copilot",)),
    ((".opencode", "skills"), ("opencode",)),
    ((".gemini", "skills"), ("gemini",)),
    ((".cursor", "skills"), ("cursor",)),
)

_TARGETS_BY_LOCATION = dict(_LOCATION_TARGETS)


def infer_targets(skill_dir: Path, stop_at: Path | None = None, manifests: dict | None = None) -> tuple[str, ...]:
    """The targets a skill's location implies (RULES.md "Inference").

    ``skill_dir`` must be absolute. ``stop_at`` bounds the ancestor search for
    ``.claude-plugin/plugin.json`` (the linted root's filesystem top by default),
    a regular file in a real folder: a link is never stat-ed (it may lead out of
    the tree), as skilllint never reads a manifest through one.
    ``manifests`` (folder -> whether it holds one) spares sibling skills the
    same ancestor checks.
    """
    parts = skill_dir.parts
    found: list[str] = []
    for pair in zip(parts, parts[1:]):
        ids = _TARGETS_BY_LOCATION.get(pair)
        if ids is not None:
            found.extend(t for t in ids if t not in found)
    if "claude-code" not in found and _under_claude_plugin(skill_dir, stop_at, {} if manifests is None else manifests):
        found.append("claude-code")
    return tuple(found) or ("agentskills",)


def _under_claude_plugin(skill_dir: Path, stop_at: Path | None, manifests: dict) -> bool:
    stop = None if stop_at is None else str(stop_at)
    folder = os.path.dirname(str(skill_dir))
    while True:
        held = manifests.get(folder)
        if held is None:
            held = manifests[folder] = plain_file(folder, ".claude-plugin", "plugin.json") is not None
        if held:
            return True
        parent = os.path.dirname(folder)
        if folder == stop or parent == folder:
            return False
        folder = parent


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


__all__ = ["TARGETS", "TARGET_IDS", "Target", "infer_targets", "resolve_target_names"]
