"""`skilllint catalog`: what Codex would list for the skills under some paths.

A first cut of issue 4: every discovered skill that Codex would load joins one
repo-scope catalog, rendered by :mod:`skilllint.catalog.codex` with its
receipt. Catalog grouping by skills root, configured extra roots with scopes,
Claude Code's listing and the SL5xx rules are not built yet.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..discovery import discover
from ..package import SkillPackage
from ..targets import TARGETS
from . import codex
from .model import CatalogSkill, codex_skip_reason, read_entry


@dataclass(frozen=True)
class Skipped:
    path: Path
    reason: str


def codex_entries(paths: list[str], cwd: Path, settings) -> tuple[list[codex.CatalogEntry], list[Skipped]]:
    """Catalog entries as Codex's loader would produce them (S-CX-LOAD): name and
    description whitespace-collapsed, the folder name when `name` is empty; a
    skill whose description is missing, empty or over 1,024 characters is not loaded."""
    found = discover(paths, cwd, exclude=settings.exclude, exclude_base=settings.base, use_gitignore=settings.respect_gitignore)
    entries: list[codex.CatalogEntry] = []
    skipped: list[Skipped] = []
    target = TARGETS["codex"]
    for item in found.packages:
        package = SkillPackage(item.root, item.lint_root)
        if package.skill_md_name != "SKILL.md" or not package.readable or package.decode_problem:
            skipped.append(Skipped(package.root, "Codex finds no readable SKILL.md"))
            continue
        skill = read_entry(package, target)
        if skill is None:
            skipped.append(Skipped(package.skill_md_path, "frontmatter Codex cannot read (SL003-SL006)"))
            continue
        reason = codex_skip_reason(skill)
        if reason is not None:
            skipped.append(Skipped(package.skill_md_path, reason))
            continue
        path = str(Path(package.skill_md_path).absolute())
        entries.append(codex.CatalogEntry(skill.name, skill.description, path, scope="repo"))
    return entries, skipped


def receipt_text(render: codex.CatalogRender, skipped: list[Skipped]) -> str:
    receipt = render.receipt
    out = [render.text, "", "Render receipt (" + receipt.model + ")"]
    out.append(
        f"  budget: {receipt.budget_limit:,} {receipt.budget_unit}, used {receipt.budget_used:,}; phase: {receipt.phase}"
    )
    out.append(
        f"  total {receipt.total_count}, included {receipt.included_count}, omitted {receipt.omitted_count}, "
        f"descriptions truncated {receipt.truncated_description_count} ({receipt.truncated_description_chars:,} characters)"
    )
    for skill in receipt.skills:
        state = "included" if skill.included else "OMITTED"
        out.append(
            f"  - {skill.name}: {state}, description {skill.chars_shown}/{skill.description_chars} characters shown, "
            f"line costs {skill.minimum_cost} (minimum) / {skill.full_cost} (full) [{skill.scope}] {skill.path}"
        )
    for item in skipped:
        out.append(f"  - not loaded: {item.path}: {item.reason}")
    out.append(f"  warning: {receipt.warning}" if receipt.warning else "  warning: none")
    return "\n".join(out) + "\n"


def claude_code_entries(paths: list[str], cwd: Path, settings) -> tuple[list, list[Skipped]]:
    """Listing entries as Claude Code reads the skills (SURFACES.md §2b): the
    folder name when `name` is absent, the first body line when `description`
    is, `when_to_use` appended, `disable-model-invocation: true` not listed."""
    from ..rules.catalog_listing import _first_body_line
    from . import claude_code

    found = discover(paths, cwd, exclude=settings.exclude, exclude_base=settings.base, use_gitignore=settings.respect_gitignore)
    target = TARGETS["claude-code"]
    entries, skipped = [], []
    for item in found.packages:
        package = SkillPackage(item.root, item.lint_root)
        if package.skill_md_name != "SKILL.md" or not package.readable or package.decode_problem:
            skipped.append(Skipped(package.root, "Claude Code finds no readable SKILL.md"))
            continue
        # Malformed YAML: Claude Code loads the skill with no fields set.
        skill = read_entry(package, target) or CatalogSkill(package, package.folder_name, "")
        when = (package.view(target).mapping or {}).get("when_to_use")
        entries.append(
            claude_code.ListingEntry(
                skill.name,
                skill.description or _first_body_line(package),
                when if isinstance(when, str) else "",
                hidden=skill.hidden,
                key=str(package.skill_md_path),
            )
        )
    return entries, skipped


def listing_text(receipt, skipped: list[Skipped]) -> str:
    out = ["Claude Code skill listing receipt (" + receipt.line_format + ")"]
    out.append(f"  budget: {receipt.budget:,} characters ({receipt.budget_source}), listing {receipt.used:,}, over by {receipt.over_by:,}")
    out.append(
        f"  total {receipt.total}, listed {receipt.included}, hidden {receipt.hidden}, "
        f"descriptions at risk {receipt.descriptions_at_risk}, to drop (estimate) {receipt.descriptions_to_drop}"
    )
    for skill in receipt.skills:
        state = "at risk" if skill.at_risk else "kept"
        out.append(f"  - {skill.name}: {skill.text_chars} characters, line cost {skill.cost} (name only {skill.name_cost}), {state}")
    for item in skipped:
        out.append(f"  - not loaded: {item.path}: {item.reason}")
    out.append(f"  note: {receipt.estimate_note}")
    return "\n".join(out) + "\n"
