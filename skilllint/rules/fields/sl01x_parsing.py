"""SL01x: parsing hazards in SKILL.md: fences in the frontmatter, size caps, YAML outside the safe subset, unreadable
files, and a code fence left open in the Markdown an agent reads."""

from __future__ import annotations

from typing import Iterator

from ...diagnostics import Finding, Span
from ...fsafe import MAX_READ_BYTES
from ...skill.package import SkillPackage
from ...rule import Option, Outcome, Rule, RuleContext, emit, severities


class FenceInsideFrontmatter(Rule):
    code = "SL010"
    name = "fence-inside-frontmatter"
    summary = "A `---` inside the frontmatter closes it early for some parsers"
    severity = severities("error: claude-api codex-validator codex; warning: skills-ref")

    _HOW = {
        "skills-ref": "splits at the first `---` anywhere",
        "quick-validate": "closes at the first line that starts with `---`",
        "codex": "closes at any line whose trimmed text is `---`",
    }

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        canonical = package.split("canonical")
        if canonical.status != "ok":
            return
        per_target: dict[str, Outcome | None] = {}
        for target in ctx.targets:
            split = package.split(target.splitter)
            if split.status != "ok" or split.close_line >= canonical.close_line:
                continue
            line = split.close_line + 1
            per_target[target.id] = Outcome(
                f"`---` on line {line} ends the frontmatter early for {target.id}, which "
                f"{self._HOW[target.splitter]}; the rest of the frontmatter is read as body",
                Span(line, split.close_column + 1, line, split.close_column + 4),
            )
        yield from emit(per_target)


class FileTooLarge(Rule):
    code = "SL011"
    name = "file-too-large"
    summary = "SKILL.md is larger than the size cap; it is not read past it"
    # The cap is skilllint's own safety bound; skills-ref reads files of any size
    # and judges only the frontmatter, which the capped read still covers.
    severity = severities("error: all; info: skills-ref")
    needs_skill_md = "raw"
    options = {"max-bytes": Option(int, 1024 * 1024, "size cap in bytes", minimum=1024, maximum=MAX_READ_BYTES)}
    read_cap_option = "max-bytes"  # every file is read under it, not SKILL.md alone

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        from ...skill.text.yamltree import MAX_NODES, TooManyNodesError

        if package.truncated:
            size = package.read_result.size  # type: ignore[union-attr]
            yield Finding(
                f"SKILL.md is {size:,} bytes, over the {ctx.options['max-bytes']:,}-byte cap; "
                "only the first part was checked",
                Span(1, 1, 1, 1),
            )
        problem = package.decode_problem
        if problem is not None and problem[0] == "invalid UTF-8":
            return  # no frontmatter is read from it (SL009)
        # A frontmatter written with more YAML nodes than skilllint builds: valid YAML that
        # surfaces load, but too large to check (an alias bomb is SL005).
        too_large: dict[str, Span] = {}
        for target in ctx.targets:
            view = package.view(target)
            if view.split.status == "ok" and isinstance(view.error, TooManyNodesError):
                line, column = view.file_position(view.error.line, view.error.column)
                too_large[target.id] = Span(line, column, line, column + 1)
        if too_large:
            yield Finding(
                f"the frontmatter is written with more than {MAX_NODES:,} YAML nodes, over skilllint's cap "
                "(real frontmatter holds a few dozen): its fields were not checked",
                min(too_large.values(), key=lambda span: (span.line, span.column)),
                targets=tuple(too_large),
            )


class YamlStrictSubset(Rule):
    code = "SL012"
    name = "yaml-strict-subset"
    summary = "YAML that strictyaml (skills-ref) rejects: flow style, anchors, aliases, tags"
    severity = severities("error: skills-ref")

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        for target in ctx.targets:
            view = package.view(target)
            if view.split.status != "ok" or view.document is None:
                continue
            for node, what, strict_text in view.document.strict_violations():
                span = view.span(node)
                yield Finding(
                    f"Invalid YAML in frontmatter: {strict_text} (strictyaml rejects {what})",
                    Span(span.line, span.column, span.line, span.column + 1),
                    targets=(target.id,),
                )


class SkillMdUnreadable(Rule):
    code = "SL013"
    name = "skill-md-unreadable"
    summary = "SKILL.md, or a file it references, cannot be read safely (not a regular file, link out of the tree, no permission)"
    severity = severities("error: all")
    needs_skill_md = False

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        from ...skill.fields.skill_md_checks import unreadable_references

        if package.skill_md_name is None:
            return
        if package.readable:
            yield from unreadable_references(package)
            return
        if package.skill_md_dangles:
            return  # a linked SKILL.md leading nowhere: SL403 (missing target) or SL404 (cycle) says so
        reason = str(package.read_result)
        if "outside the linted tree" in reason:
            tail = "skilllint did not read it, and the skill loads only where the link's target exists"
        else:
            tail = "skilllint did not read it and surfaces cannot load it"
        yield Finding(f"{package.skill_md_name} {reason}; {tail}", Span(1, 1, 1, 1))


class CodeFenceUnclosed(Rule):
    code = "SL014"
    name = "code-fence-unclosed"
    summary = "A fenced code block is never closed, so the rest of the file is code"
    severity = severities("warning: all")
    content_rule = True

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        from ...skill.references.checks import MARKDOWN_DOCUMENTS
        from ...skill.references.graph import reference_graph
        from ...skill.text.markdown import unclosed_fence

        texts = [(None, package.body, package.body_start_line)]
        graph = reference_graph(package)
        skill_md = package.skill_md_name or "SKILL.md"
        for target, depth in graph.scanned.items():  # the Markdown documents an agent reaches from SKILL.md
            if target != skill_md and depth > 0 and target.lower().endswith(MARKDOWN_DOCUMENTS) and target in graph.texts:
                texts.append((target, graph.texts[target], 0))
        for target, text, offset in texts:
            line = unclosed_fence(text, offset)
            if line is None:
                continue
            last = offset + text.rstrip().count("\n") + 1
            yield Finding(
                f"the code fence on line {line} is never closed: CommonMark reads the {last - line:,} lines after it, to the "
                "end of the file, as code, so headings, links and instructions there render as code and are skipped "
                "by what reads the Markdown; close it with a fence of the same character, at least as long",
                Span.point(line),
                path=None if target is None else package.root / target,
            )


RULES = [FenceInsideFrontmatter, FileTooLarge, YamlStrictSubset, SkillMdUnreadable, CodeFenceUnclosed]
