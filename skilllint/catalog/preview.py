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
        mapping = package.view(target).mapping
        if mapping is None:
            skipped.append(Skipped(package.skill_md_path, "frontmatter Codex cannot read (SL003-SL006)"))
            continue
        name, description = mapping.get("name"), mapping.get("description")
        name = " ".join(name.split()) if isinstance(name, str) else ""
        description = " ".join(description.split()) if isinstance(description, str) else ""
        if not description:
            skipped.append(Skipped(package.skill_md_path, "no description: Codex does not load it (SL111/SL112)"))
            continue
        if len(description) > 1024 or len(name or package.folder_name) > 64:
            skipped.append(Skipped(package.skill_md_path, "over Codex's length limits (SL103/SL113)"))
            continue
        path = str(Path(package.skill_md_path).absolute())
        entries.append(codex.CatalogEntry(name or package.folder_name, description, path, scope="repo"))
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
