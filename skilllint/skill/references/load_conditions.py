"""What SKILL.md says about when to load or run each bundled document or script it references.

SL310 reports a reference that says nothing of it; the disclosure ladder (``skilllint catalog
--tiers``) prints what it says beside the file's cost. Both read the answer here. A mention
has a condition when its context names the situation (:class:`~skilllint.skill.references.mention_context.BodyContext`),
or when it is one of a set of alternatives whose names differ by the word that picks the
file (:class:`~skilllint.skill.references.resource_reach.Alternatives`).
"""

from __future__ import annotations

from dataclasses import dataclass

from .disclosure_graph import is_document
from ..inventory import is_script
from ..package import SkillPackage
from .graph import reference_graph

ALTERNATIVE = "alternative (a sibling file named in the same block)"


@dataclass(frozen=True, eq=False, repr=False)
class LoadCondition:
    """The references from SKILL.md to one bundled document or script, and the condition they give it."""

    target: str  # package-relative path of the file
    mentions: tuple  # its references from SKILL.md (skilllint.skill.references.graph.Reference), in file order
    cue: str | None  # what in SKILL.md gives the condition (BodyContext.explain's answer, ALTERNATIVE), None when nothing does
    line: int  # the SKILL.md line that gives it, else the first mention's


def referenced_files(package: SkillPackage) -> dict[str, list]:
    """The documents and scripts SKILL.md references (not images, not itself, not another
    skill's), each with its mentions, in order of first mention."""
    graph = reference_graph(package)
    skill_md = package.skill_md_name or "SKILL.md"
    groups: dict[str, list] = {}
    for reference in graph.references:
        target = reference.resolved
        if (
            reference.source != skill_md
            or reference.status != "ok"
            or reference.target_kind != "file"
            or reference.kind == "image"
            or target is None
            or target == skill_md
            or not (is_document(target) or is_script(target))
            or package.inventory.in_nested_skill(target)
        ):
            continue
        groups.setdefault(target, []).append(reference)
    return groups


def load_conditions(package: SkillPackage) -> list[LoadCondition]:
    """One :class:`LoadCondition` per file of :func:`referenced_files`."""
    from .mention_context import BodyContext
    from .resource_reach import Alternatives

    groups = referenced_files(package)
    if not groups:
        return []
    body = BodyContext(package.source.lines, package.body_start_line)
    alternatives: Alternatives | None = None  # built when a mention first lacks a condition
    found = []
    for target, mentions in groups.items():
        places = [(r.line, r.column) for r in mentions]
        for r in mentions:
            if r.kind == "definition":  # `[api]: references/api.md`: judged where `[api]` is used
                places.extend(body.label_uses(r.line))
        cue, line = None, mentions[0].line
        for place_line, column in places:
            cue = body.explain(place_line, column, target)
            if cue is not None:
                line = place_line
                break
        if cue is None:
            if alternatives is None:
                alternatives = Alternatives(groups, body)
            sibling = next((r for r in mentions if alternatives.has_sibling(r)), None)
            if sibling is not None:
                cue, line = ALTERNATIVE, sibling.line
        found.append(LoadCondition(target, tuple(mentions), cue, line))
    return found
