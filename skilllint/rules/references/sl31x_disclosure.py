"""SL31x: progressive disclosure: load conditions, generic pointers, tables of contents in long references."""

from __future__ import annotations

import posixpath
from typing import Iterator

from ...diagnostics import Finding, Span
from ...skill.package import SkillPackage
from ...rule import Option, Rule, RuleContext, severities

# =============================================================================
# SL310 reference-without-load-condition
# =============================================================================


class ReferenceWithoutLoadCondition(Rule):
    code = "SL310"
    name = "reference-without-load-condition"
    summary = "SKILL.md references a bundled document or script without saying when to load or run it"
    severity = severities("warning: all")
    content_rule = True

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        from ...skill.references.disclosure_graph import mention_span
        from ...skill.inventory import is_script
        from ...skill.references.load_conditions import load_conditions

        for condition in load_conditions(package):
            if condition.cue is not None:
                continue
            target, first = condition.target, condition.mentions[0]
            what = "script" if is_script(target) else "document"
            verb = "run" if what == "script" else "load"
            yield Finding(
                f"SKILL.md references the {what} `{target}` without saying when to {verb} it: "
                f"name the situation (\"{verb.capitalize()} `{posixpath.basename(target)}` when …\")",
                mention_span(first),
            )


class GenericReferencePointer(Rule):
    code = "SL311"
    name = "generic-reference-pointer"
    summary = "A pointer to a folder or to 'the references' that names no file"
    severity = severities("warning: all")
    content_rule = True

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        from ...skill.references.generic_pointers import generic_pointers
        from ...skill.references.checks import Places, reached_from

        where = Places(package)
        for pointer in generic_pointers(package, ctx.memo):
            if not ctx.admits(where(pointer.source), pointer.line):
                continue
            yield Finding(
                pointer.message,
                Span(pointer.line, pointer.column, pointer.line, pointer.end_column),
                path=where(pointer.source),
                related=reached_from(package, pointer.source),
            )


class LongReferenceWithoutToc(Rule):
    code = "SL312"
    name = "long-reference-without-toc"
    summary = "A referenced document over 100 lines has no table of contents near its top"
    severity = severities("info: all")
    content_rule = True
    opt_in = True
    options = {
        "max-lines": Option(int, 100, "longest document allowed without a table of contents", minimum=1, maximum=1_000_000),
        "toc-within": Option(int, 40, "lines from the top in which the table of contents must start", minimum=1, maximum=1_000_000),
    }

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        from ...skill.references.graph import reference_graph
        from ...skill.references.disclosure_graph import is_document, suffix_of
        from ...skill.references.document_toc import has_toc

        graph = reference_graph(package)
        skill_md = package.skill_md_name or "SKILL.md"
        limit, window = ctx.options["max-lines"], ctx.options["toc-within"]
        for target, depth in graph.scanned.items():
            if target == skill_md or depth == 0 or not is_document(target) or suffix_of(target) == ".txt":
                continue
            text = graph.texts.get(target)
            if text is None:
                continue
            lines = text.split("\n")
            count = len(lines) - (1 if lines and lines[-1] == "" else 0)
            if count <= limit or has_toc(lines, window):
                continue
            yield Finding(
                f"`{target}` is {count:,} lines with no table of contents in its first {window} lines: an agent that "
                "previews the top cannot see what the rest covers",
                Span.point(1),
                path=package.root / target,
            )


RULES = [ReferenceWithoutLoadCondition, GenericReferencePointer, LongReferenceWithoutToc]
