"""SL9xx: skilllint's own comments in a skill.

SL901 reports a suppression comment (:mod:`skilllint.suppress`) that suppressed nothing in
this run, as ruff's RUF100 reports an unused ``noqa``: the problem it was written for is
gone, and the comment would silently swallow the next one on its lines. A code is judged
only when a rule it names ran on the skill (selected, and applying to one of its targets):
a comment for a rule this run did not select is not unused.

It works in two steps. In the package's own pass the engine runs it after every other rule
(``reads_suppressions``), so it sees what each comment silenced there and reports the rest
(:meth:`UnusedSuppression.check`); those findings are cached with the package's. When the
run ends, :meth:`UnusedSuppression.settle` drops those that a later pass used (the catalog
rules, and with a cache the rules never cached) or that no rule ran for, and attaches the
fixes, which depend on every code of a comment.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Iterator

from ..diagnostics import Diagnostic, Finding, Fix, Span
from ..skill.package import SkillPackage
from ..registry import Rule, RuleContext, severities
from ..skill.suppress import ALL, UNUSED_SUPPRESSION, Directive, Hits, Prefixes, Suppressions, parse


def _tokens(directive: Directive) -> list[tuple[str, int, int]]:
    """(written code, start, end) of each code of ``directive``; for a comment that names
    none, one entry for ``ALL`` over its keyword."""
    return list(directive.codes) or [(ALL, *directive.keyword)]


def _message(parsed: Suppressions, index: int, written: str) -> str:
    what = "this suppression comment" if written == ALL else f"`{written}` in this suppression comment"
    span = parsed.covers.get((index, written))
    if span is None:  # a `disable` of a code whose range is open already
        return f"{what} suppressed nothing: an earlier comment disabled {'every code' if written == ALL else written} here already"
    first, last = span
    if parsed.directives[index].kind == "disable-file":
        where = "in this file"
    else:
        where = f"on line {first}" if first == last else f"on lines {first}-{last}"
    return f"{what} suppressed nothing: no {'' if written == ALL else written + ' '}finding {where}"


class UnusedSuppression(Rule):
    code = UNUSED_SUPPRESSION
    name = "unused-suppression"
    summary = "A suppression comment that suppressed nothing in this run"
    severity = severities("info: all")
    fixable = "safe"
    reads_suppressions = True  # the engine runs it after the others, with ctx.suppressions

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        run = ctx.suppressions
        parsed = run.parsed if run is not None else None
        if parsed is None or not parsed.directives:
            return
        judged = Prefixes(run.ran | run.elsewhere)
        hits = Hits(parsed.hits)
        for index, directive in enumerate(parsed.directives):
            if directive.kind == "enable":
                continue
            for written, start, end in _tokens(directive):
                if not judged.covers_any(written):
                    continue  # no rule it names runs here or later: not judged
                if parsed.silenced(index, written, hits) or not ctx.admits(None, directive.line):
                    continue
                yield Finding(_message(parsed, index, written), Span(directive.line, start + 1, directive.line, end + 1))

    def settle(self, diagnostics: list[Diagnostic], packages: list[SkillPackage], usage: dict, rules_run) -> list[Diagnostic]:
        """``diagnostics`` with this rule's findings judged against the whole run: ``usage``
        maps a SKILL.md path to ([(code, line)] silenced, [codes run]) of the passes this
        rule did not see; ``rules_run(package)`` the package rules that ran on it."""
        mine: dict[str, list[Diagnostic]] = defaultdict(list)
        out = []
        for diagnostic in diagnostics:
            if diagnostic.code == self.code:
                mine[str(diagnostic.path)].append(diagnostic)
            else:
                out.append(diagnostic)
        if not mine:
            return diagnostics
        by_path = {str(p.skill_md_path): p for p in packages if p.skill_md_name is not None}
        for path, found in mine.items():
            package = by_path.get(path)
            if package is None or not package.readable:
                out.extend(found)
                continue
            out.extend(self._settle_file(package, found, usage.get(path, ((), ())), rules_run(package)))
        return out

    def _settle_file(self, package: SkillPackage, found: list[Diagnostic], usage, ran: set[str]) -> list[Diagnostic]:
        other_hits, other_ran = usage
        judged = ran | set(other_ran)
        covered = Prefixes(judged)
        split = package.split("canonical")
        parsed = parse(package.source.lines, split.close_line + 1 if split.status == "ok" else 0)
        at = {}
        for index, directive in enumerate(parsed.directives):
            for written, start, _ in _tokens(directive):
                at[(directive.line, start + 1)] = (index, written)
        hits = Hits(other_hits)
        unused: dict[int, set[str]] = defaultdict(set)
        kept = []
        for diagnostic in found:
            where = at.get((diagnostic.span.line, diagnostic.span.column))
            if where is None:
                continue  # the file changed since this was found
            index, written = where
            if parsed.silenced(index, written, hits) or not covered.covers_any(written):
                continue
            unused[index].add(written)
            kept.append((diagnostic, index, written))
        fixes = _Fixes(package, parsed, unused, judged)
        for diagnostic, index, written in kept:
            diagnostic.fix = fixes.fix(index, written, diagnostic.span.column - 1)
        return [diagnostic for diagnostic, _, _ in kept]


class _Fixes:
    """The fix of each unused code: remove the whole comment when none of its codes is used
    (safe when each names one rule: an unused code names a rule that ran), else the code
    alone (safe when it names one rule). A prefix or a comment without codes may be meant
    for rules this run did not select: removing it is unsafe."""

    def __init__(self, package: SkillPackage, parsed: Suppressions, unused: dict[int, set[str]], judged: set[str]) -> None:
        from ..edits import LineIndex

        self.package, self.parsed, self.unused, self.judged = package, parsed, unused, judged
        self.index = None
        if not package.truncated:
            try:
                self.index = LineIndex(package.raw.decode("utf-8"))
            except UnicodeDecodeError:
                pass

    def fix(self, index: int, written: str, start: int) -> Fix | None:
        if self.index is None:
            return None
        directive = self.parsed.directives[index]
        codes = [code for code, _, _ in directive.codes]
        if not codes or set(codes) <= self.unused[index]:
            safe = bool(codes) and all(code in self.judged for code in codes)
            return Fix("remove the unused suppression comment", "safe" if safe else "unsafe", (self._remove_comment(directive),))
        applicability = "safe" if written in self.judged else "unsafe"
        return Fix(f"remove `{written}` from the suppression comment", applicability, (self._remove_code(directive, start),))

    def _offsets(self, directive: Directive, start: int, end: int) -> tuple[int, int]:
        return self.index.offset(directive.line, start + 1), self.index.offset(directive.line, end + 1)

    def _remove_comment(self, directive: Directive):
        from ..edits import edit

        line = self.parsed_line(directive)
        start, end = directive.start, directive.end
        if not line[:start].strip() and not line[end:].strip():  # the comment is the whole line: the line goes
            row = directive.line - 1
            first = self.index.line_start(row)
            if row + 1 < self.index.line_count:
                last = self.index.line_start(row + 1)
            else:  # the last line: take the line break before it
                last = self.index.line_end(row)
                first = self.index.line_end(row - 1) if row > 0 else first
            return edit(self.package.skill_md_path, self.index, first, last, "", trim=False)
        while start > 0 and line[start - 1] in " \t":
            start -= 1
        if start == directive.start:  # nothing before it on the line: the blanks after it go
            while end < len(line) and line[end] in " \t":
                end += 1
        return edit(self.package.skill_md_path, self.index, *self._offsets(directive, start, end), "", trim=False)

    def _remove_code(self, directive: Directive, start: int):
        from ..edits import edit

        tokens = list(directive.codes)
        at = next(i for i, token in enumerate(tokens) if token[1] == start)
        if at + 1 < len(tokens):  # up to the next code, with the separator
            first, last = tokens[at][1], tokens[at + 1][1]
        else:  # from the end of the code before, with the separator
            first, last = tokens[at - 1][2], tokens[at][2]
        return edit(self.package.skill_md_path, self.index, *self._offsets(directive, first, last), "", trim=False)

    def parsed_line(self, directive: Directive) -> str:
        return self.package.source.lines[directive.line - 1]


RULES = [UnusedSuppression]
