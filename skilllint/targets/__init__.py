"""Surface profiles and target inference (docs/configuration.md, "Targets")."""

from __future__ import annotations

from pathlib import Path

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
    """The targets a skill's location implies (docs/configuration.md, "Targets").

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
    if "claude-code" not in found:
        if claude_code.plugin_root(skill_dir, stop_at, {} if manifests is None else manifests) is not None:
            found.append("claude-code")
    return tuple(found) or ("agentskills",)


def not_listing(
    skill_dir: Path, target_ids, stop_at: Path | None = None, manifests: dict | None = None, declared: dict | None = None
) -> tuple[str, ...]:
    """Those of ``target_ids`` whose discovery never lists the skill where it lies, though it
    lies in a folder the surface scans (docs/configuration.md, "Targets"): for them the skill is no skill,
    so the engine runs only the rules about the folder itself (SL520 tells why).

    Claude Code lists ``<skills folder>/<name>/SKILL.md`` alone (:func:`claude_code.unlisted`).
    Codex and OpenCode skip some skills too, but only SL520 reports those so far."""
    if "claude-code" in target_ids and claude_code.unlisted(skill_dir, stop_at, manifests, declared) is not None:
        return ("claude-code",)
    return ()


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


__all__ = ["TARGETS", "TARGET_IDS", "Target", "infer_targets", "not_listing", "resolve_target_names"]
