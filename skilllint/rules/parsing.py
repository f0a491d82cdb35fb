"""SL0xx: the package and the parsing of SKILL.md."""

from __future__ import annotations

from typing import Iterator

from .. import yamledit
from ..diagnostics import Finding, Related, Severity, Span
from ..fsafe import MAX_READ_BYTES
from ..package import SkillPackage
from ..registry import Rule, RuleContext, severities
from ..rule import Option
from ..yamltree import MAX_NODES, AliasBombError, TooManyNodesError
from .common import Outcome, emit, frontmatter_start

# Rules in this family judge the file itself; field rules (SL1xx) only run when
# the frontmatter parsed, so a broken file yields one clear finding.


class SkillMdMissing(Rule):
    code = "SL001"
    name = "skill-md-missing"
    summary = "A folder given or found as a skill has no SKILL.md"
    severity = severities("error: all")
    needs_skill_md = False

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
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
        from ..frontmatter import leading_junk

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
                fix=yamledit.remove_bom(package) if junk == "bom" else None,
            )
        yield from emit(per_target)


class FrontmatterUnclosed(Rule):
    code = "SL004"
    name = "frontmatter-unclosed"
    summary = "The frontmatter has no closing `---` line, or is empty"
    severity = severities("error: all")

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
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
                fix = yamledit.quote_colon_value(package, line) if "mapping values are not allowed" in error.problem else None
                if fix is not None:
                    message = "a value holds an unquoted `: `, so YAML reads a second mapping: quote the value"
                else:
                    message = f"invalid YAML in the frontmatter: {error.message}"
            per_target[target.id] = Outcome(
                message,
                Span(line, column, line, column + 1),
                effect="Claude Code loads the skill with no fields set" if target.id == "claude-code" else None,
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
            fix=yamledit.crlf_to_lf(package),
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
        targets = tuple(t.id for t in ctx.targets if t.id != "skills-ref")
        if targets:
            yield Finding(
                f"SKILL.md holds a NUL byte at byte {offset}; tools that sniff for binary files skip it",
                Span(line, column, line, column + 1),
                targets=targets,
            )


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

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
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
        if package.skill_md_name is None:
            return
        if package.readable:
            yield from _unreadable_references(package)
            return
        if package.skill_md_dangles:
            return  # a linked SKILL.md leading nowhere: SL403 (missing target) or SL404 (cycle) says so
        reason = str(package.read_result)
        if "outside the linted tree" in reason:
            tail = "skilllint did not read it, and the skill loads only where the link's target exists"
        else:
            tail = "skilllint did not read it and surfaces cannot load it"
        yield Finding(f"{package.skill_md_name} {reason}; {tail}", Span(1, 1, 1, 1))


def _unreadable_references(package: SkillPackage) -> Iterator[Finding]:
    """Referenced files that are there but cannot be opened (mode 000): not missing (SL301),
    yet neither skilllint nor an agent running as this user can read them. The reference
    graph holds the text of the Markdown files it read; every other target is opened once."""
    from ..fsafe import UnsafeFile, read_capped

    graph = package.references
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


RULES = [
    SkillMdMissing,
    SkillMdFilenameCase,
    FrontmatterMissing,
    FrontmatterUnclosed,
    YamlInvalid,
    FrontmatterNotMapping,
    DuplicateKey,
    LineEndingHazard,
    NotUtf8,
    FenceInsideFrontmatter,
    FileTooLarge,
    YamlStrictSubset,
    SkillMdUnreadable,
]
