"""SL00x: the skill package and its SKILL.md: present, named right, readable, with frontmatter that parses."""

from __future__ import annotations

from typing import Iterator

from ...diagnostics import Finding, Severity, Span
from ...skill.package import SkillPackage
from ...rule import Outcome, Rule, RuleContext, emit, severities

# Rules in this family judge the file itself; field rules (SL1xx) only run when
# the frontmatter parsed, so a broken file yields one clear finding.


class SkillMdMissing(Rule):
    code = "SL001"
    name = "skill-md-missing"
    summary = "A folder given or found as a skill has no SKILL.md"
    severity = severities("error: all")
    needs_skill_md = False

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        from ...skill.fields.skill_md_checks import stand_in_file

        if package.skill_md_name is not None:
            return
        for finding in emit(
            {
                t.id: Outcome(
                    f"skill folder '{package.folder_name}' has no SKILL.md",
                    Span(1, 1, 1, 1),
                    ref_message="Missing required file: SKILL.md",
                )
                for t in ctx.targets
            }
        ):
            finding.path = stand_in_file(package)
            yield finding


class SkillMdFilenameCase(Rule):
    code = "SL002"
    name = "skill-md-filename-case"
    summary = "SKILL.md is named in another letter case"
    severity = severities("error: all")
    needs_skill_md = False

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        actual = package.skill_md_name
        if actual is None or actual == "SKILL.md":
            return
        per_target: dict[str, Outcome | None] = {}
        for target in ctx.targets:
            if actual in target.skill_filenames:
                # skills-ref reads exactly `skill.md` too; others will not find it.
                per_target[target.id] = Outcome(
                    f"'{actual}' is accepted by {target.id} but not by other surfaces; rename it to SKILL.md",
                    Span(1, 1, 1, 1),
                    severity=Severity.INFO,
                )
            else:
                per_target[target.id] = Outcome(
                    f"the skill file is named '{actual}'; surfaces look for exactly 'SKILL.md'",
                    Span(1, 1, 1, 1),
                    ref_message="Missing required file: SKILL.md",
                )
        yield from emit(per_target)


class FrontmatterMissing(Rule):
    code = "SL003"
    name = "frontmatter-missing"
    summary = "SKILL.md does not start with a `---` frontmatter fence"
    severity = severities("error: all")
    fixable = "safe"

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        from ...skill.fields import frontmatter_fixes

        from ...skill.text.frontmatter import leading_junk

        junk = leading_junk(package.source)
        per_target: dict[str, Outcome | None] = {}
        for target in ctx.targets:
            # The canonical splitter tolerates a BOM (to report positions), but no
            # surveyed surface strips it: Python's utf-8 codec and Rust keep it.
            if package.split(target.splitter).status != "missing" and junk != "bom":
                continue
            if junk == "bom":
                message = "SKILL.md starts with a UTF-8 byte-order mark before `---`; the frontmatter is not recognised"
            elif junk == "blank-lines":
                message = "SKILL.md has blank lines before the opening `---`; the frontmatter must start on line 1"
            else:
                message = "SKILL.md does not start with YAML frontmatter: the first line must be `---`"
            per_target[target.id] = Outcome(
                message,
                Span(1, 1, 1, 1 + len(package.source.lines[0]) if package.source.lines else 1),
                ref_message="SKILL.md must start with YAML frontmatter (---)",
                fix=frontmatter_fixes.remove_bom(package) if junk == "bom" else None,
            )
        yield from emit(per_target)


class FrontmatterUnclosed(Rule):
    code = "SL004"
    name = "frontmatter-unclosed"
    summary = "The frontmatter has no closing `---` line, or is empty"
    severity = severities("error: all")

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        from ...skill.fields.field_checks import frontmatter_start

        per_target: dict[str, Outcome | None] = {}
        for target in ctx.targets:
            status = package.split(target.splitter).status
            canonical = package.split("canonical")
            if status == "unclosed" and canonical.status == "ok" and canonical.close_line == 1:
                # `---` then `---`: closed, but quick_validate's regex needs a line between.
                per_target[target.id] = Outcome(
                    "the frontmatter is empty",
                    frontmatter_start(package),
                    effect=f"{target.id} rejects it (Invalid frontmatter format)",
                )
            elif status == "unclosed":
                per_target[target.id] = Outcome(
                    "the frontmatter opened on line 1 is never closed by a `---` line",
                    frontmatter_start(package),
                    ref_message="SKILL.md frontmatter not properly closed with ---",
                )
            elif status == "empty":
                per_target[target.id] = Outcome(
                    f"the frontmatter is empty: {target.id} rejects the skill (missing YAML frontmatter delimited by ---)",
                    frontmatter_start(package),
                )
        yield from emit(per_target)


class YamlInvalid(Rule):
    code = "SL005"
    name = "yaml-invalid"
    summary = "The frontmatter is not valid YAML for the target's parser"
    severity = severities("error: all")
    fixable = "safe"

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        from ...skill.fields import frontmatter_fixes
        from ...skill.text.yamltree import AliasBombError, TooManyNodesError

        per_target: dict[str, Outcome | None] = {}
        for target in ctx.targets:
            view = package.view(target)
            error = view.error
            if view.split.status != "ok" or error is None or isinstance(error, TooManyNodesError):
                continue  # too many nodes is a size, not a YAML error: SL011
            line, column = view.file_position(error.line, error.column)
            fix = None
            if isinstance(error, AliasBombError):
                message = f"YAML aliases expand without bound ({error.message}); the frontmatter is refused"
            else:
                fix = frontmatter_fixes.quote_colon_value(package, line) if "mapping values are not allowed" in error.problem else None
                if fix is not None:
                    message = "a value holds an unquoted `: `, so YAML reads a second mapping: quote the value"
                else:
                    message = f"invalid YAML in the frontmatter: {error.message}"
            per_target[target.id] = Outcome(
                message,
                Span(line, column, line, column + 1),
                effect=f"{target.called} loads the skill with no fields set" if target.lenient_loader else None,
                ref_message=f"Invalid YAML in frontmatter: {error.message}",
                fix=fix,
            )
        yield from emit(per_target)


class FrontmatterNotMapping(Rule):
    code = "SL006"
    name = "frontmatter-not-mapping"
    summary = "The frontmatter's top level is not a mapping"
    severity = severities("error: all")

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        from ...skill.fields.field_checks import frontmatter_start

        per_target: dict[str, Outcome | None] = {}
        for target in ctx.targets:
            view = package.view(target)
            if not view.ok or isinstance(view.data, dict):
                continue
            kind = "empty" if view.data in (None, "") else f"a {type(view.data).__name__}"
            root = view.document.root if view.document else None
            span = view.span(root) if root is not None else frontmatter_start(package)
            per_target[target.id] = Outcome(
                f"the frontmatter must be a mapping of `key: value` lines, but it is {kind}",
                Span(span.line, span.column, span.line, span.column + 1),
                ref_message="SKILL.md frontmatter must be a YAML mapping",
            )
        yield from emit(per_target)


class DuplicateKey(Rule):
    code = "SL007"
    name = "duplicate-key"
    summary = "A key appears twice in one mapping"
    severity = severities("error: all")

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        # Per target: splitters may cut the frontmatter at different lines.
        by_place: dict[tuple, dict[str, Outcome | None]] = {}
        for target in ctx.targets:
            view = package.view(target)
            if view.split.status != "ok" or view.document is None:
                continue
            for key_node, first in view.document.duplicate_keys():
                span = view.span(key_node)
                first_line = view.file_position(first.line, 0)[0]
                by_place.setdefault((span.line, span.column), {})[target.id] = Outcome(
                    f"duplicate key `{key_node.value}` (first on line {first_line}); "
                    "loaders disagree on which value wins and strict ones reject the file",
                    span,
                    ref_message=f"Invalid YAML in frontmatter: Duplicate key '{key_node.value}' found",
                )
        for per_target in by_place.values():
            yield from emit(per_target)


class LineEndingHazard(Rule):
    code = "SL008"
    name = "line-ending-hazard"
    summary = "SKILL.md uses CRLF line endings"
    severity = severities("info: all")
    fixable = "safe"

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        from ...skill.fields import frontmatter_fixes

        source = package.source
        if not source.crlf_lines:
            return
        # SL003 over SL008: silent for every target whose parser finds no frontmatter.
        ids = tuple(t.id for t in ctx.targets if package.split(t.splitter).status != "missing")
        if not ids:
            return
        yield Finding(
            f"{source.crlf_lines} line(s) end with CRLF; surveyed loaders accept them, naive tools may not",
            Span(1, 1, 1, 1 + len(source.lines[0])),
            targets=ids,
            fix=frontmatter_fixes.crlf_to_lf(package),
        )


class NotUtf8(Rule):
    code = "SL009"
    name = "not-utf8"
    summary = "SKILL.md is not UTF-8 text or holds NUL bytes"
    severity = severities("error: all")
    needs_skill_md = "raw"

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        problem = package.decode_problem
        if problem is None:
            return
        reason, offset = problem
        line, column = package.byte_position(offset)
        if reason == "invalid UTF-8":
            yield Finding(
                f"SKILL.md is not valid UTF-8 at byte {offset}; surfaces read it as UTF-8 text and fail",
                Span(line, column, line, column + 1),
            )
            return
        # A NUL byte is valid UTF-8: Python-based validators read on (skills-ref
        # accepts it), while C-string and binary-sniffing tools stop there.
        targets = tuple(t.id for t in ctx.targets if not t.reads_nul_bytes)
        if targets:
            yield Finding(
                f"SKILL.md holds a NUL byte at byte {offset}; tools that sniff for binary files skip it",
                Span(line, column, line, column + 1),
                targets=targets,
            )


RULES = [SkillMdMissing, SkillMdFilenameCase, FrontmatterMissing, FrontmatterUnclosed, YamlInvalid, FrontmatterNotMapping, DuplicateKey, LineEndingHazard, NotUtf8]
