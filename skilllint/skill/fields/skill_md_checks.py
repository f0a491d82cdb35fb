"""The package and SKILL.md's parse: what the SL00x and SL01x rules share."""

from __future__ import annotations

from typing import Iterator

from ...diagnostics import Finding, Related, Span
from ..package import SkillPackage
from ..references.graph import reference_graph


def stand_in_file(package: SkillPackage):
    """The file an SL001 finding is reported on. GitHub's annotations and code scanning place a
    finding on a file, and an editor shows it in an open file, so not on the folder: its first
    Markdown file, else its first file (the shallowest first, then by name), or, in a folder
    holding no file at all, the SKILL.md that is missing."""
    files = [entry.rel for entry in package.inventory.files()]
    if not files:
        return package.root / "SKILL.md"
    first = min(files, key=lambda rel: (not rel.lower().endswith(".md"), rel.count("/"), rel))
    return package.root / first


def unreadable_references(package: SkillPackage) -> Iterator[Finding]:
    """Referenced files that are there but cannot be opened (mode 000): not missing (SL301),
    yet neither skilllint nor an agent running as this user can read them. The reference
    graph holds the text of the Markdown files it read; every other target is opened once."""
    from ...fsafe import UnsafeFile, read_capped

    graph = reference_graph(package)
    seen: set[str] = set()
    for reference in graph.references:
        target = reference.resolved
        if reference.status != "ok" or reference.target_kind != "file" or target is None:
            continue
        if target in seen or target in graph.texts:
            continue
        seen.add(target)
        try:
            read_capped(package.root / target, 0)
        except UnsafeFile as exc:
            source = package.root / reference.source
            span = Span(reference.line, reference.column, reference.line, reference.column)
            yield Finding(
                f"`{target}` cannot be read ({exc}); skilllint did not check it and an agent cannot load it",
                Span(1, 1, 1, 1),
                path=package.root / target,
                related=(Related(f"`{target}` is referenced here", source, span),),
            )
