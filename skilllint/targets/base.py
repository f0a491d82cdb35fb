"""The shape of a surface profile (a *target*).

A profile is data: what keys the surface accepts and what it does with the
rest, which splitter and YAML semantics it reads frontmatter with, its name
and description constraints. Rules read these facts instead of hard-coding a
surface; the per-target *severities* live with each rule (the rule book is the
contract for those).
"""

from __future__ import annotations

from dataclasses import dataclass

SPEC_KEYS = frozenset({"name", "description", "license", "compatibility", "metadata", "allowed-tools"})

CLAUDE_CODE_KEYS = SPEC_KEYS | frozenset(
    {
        "when_to_use",
        "argument-hint",
        "arguments",
        "disable-model-invocation",
        "user-invocable",
        "disallowed-tools",
        "model",
        "effort",
        "context",
        "agent",
        "background",
        "hooks",
        "paths",
        "shell",
    }
)


@dataclass(frozen=True)
class Target:
    """A surface's profile: how it splits, parses and validates a skill and where it looks for one."""

    id: str
    title: str
    evidence: str  # docs/surfaces.md section(s)
    splitter: str  # key of frontmatter.SPLITTERS
    semantics: str  # yamltree.resolve_scalar semantics: strict | yaml11 | yaml12
    accepted_keys: frozenset[str]
    # What the surface does with a key outside accepted_keys:
    # "reject" (validation error), "warn" (spec says no such field), "ignore", or
    # None when the evidence does not say ([??]): then no finding.
    unknown_keys: str | None
    # Discovery: the file names the surface accepts for SKILL.md.
    skill_filenames: tuple[str, ...] = ("SKILL.md",)
    # Name rules.
    name_charset: str | None = "ascii"  # "ascii" (a-z0-9-), "unicode" (isalnum/-), None
    name_max: int | None = 64
    # How the surface measures a description's length: raw | strip | collapse.
    description_count: str = "raw"
    # Only the targets whose facts are [2ND]: their findings are capped at warning.
    secondary: bool = False
    # The manifest of the plugins this surface installs by copying the plugin's folder whole,
    # so that a skill's files may lean on the rest of its plugin; None: skills come alone.
    plugin_manifest: tuple[str, str] | None = None
