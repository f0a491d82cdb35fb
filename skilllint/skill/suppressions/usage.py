"""Which suppression comments were used: what SL901 reads and how it settles its findings.

SL901 reports a suppression comment (:mod:`skilllint.skill.suppressions.comments`) that suppressed nothing in
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

from ...diagnostics import Fix
from ..package import SkillPackage
from .comments import (
    ALL,
    Directive,
    Suppressions,
)


def code_tokens(directive: Directive) -> list[tuple[str, int, int]]:
    """(written code, start, end) of each code of ``directive``; for a comment that names
    none, one entry for ``ALL`` over its keyword."""
    return list(directive.codes) or [(ALL, *directive.keyword)]


def message(parsed: Suppressions, index: int, written: str) -> str:
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


class Fixes:
    """The fix of each unused code: remove the whole comment when none of its codes is used
    (safe when each names one rule: an unused code names a rule that ran), else the code
    alone (safe when it names one rule). A prefix or a comment without codes may be meant
    for rules this run did not select: removing it is unsafe."""

    def __init__(self, package: SkillPackage, parsed: Suppressions, unused: dict[int, set[str]], judged: set[str]) -> None:
        from ...edits import LineIndex

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
        from ...edits import edit

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
        from ...edits import edit

        tokens = list(directive.codes)
        at = next(i for i, token in enumerate(tokens) if token[1] == start)
        if at + 1 < len(tokens):  # up to the next code, with the separator
            first, last = tokens[at][1], tokens[at + 1][1]
        else:  # from the end of the code before, with the separator
            first, last = tokens[at - 1][2], tokens[at][2]
        return edit(self.package.skill_md_path, self.index, *self._offsets(directive, first, last), "", trim=False)

    def parsed_line(self, directive: Directive) -> str:
        return self.package.source.lines[directive.line - 1]
