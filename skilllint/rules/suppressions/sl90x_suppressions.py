"""SL90x: skilllint's own comments in a skill (unused suppressions)."""

from __future__ import annotations

from collections import defaultdict
from typing import Iterator

from ...diagnostics import Diagnostic, Finding, Span
from ...skill.package import SkillPackage
from ...rule import Rule, RuleContext, severities
from ...skill.suppressions.comments import UNUSED_SUPPRESSION


class UnusedSuppression(Rule):
    code = UNUSED_SUPPRESSION
    name = "unused-suppression"
    summary = "A suppression comment that suppressed nothing in this run"
    severity = severities("info: all")
    fixable = "safe"
    reads_suppressions = True  # the engine runs it after the others, with ctx.suppressions

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        from ...skill.suppressions.comments import Hits, Prefixes
        from ...skill.suppressions.usage import code_tokens, message

        run = ctx.suppressions
        parsed = run.parsed if run is not None else None
        if parsed is None or not parsed.directives:
            return
        judged = Prefixes(run.ran | run.elsewhere)
        hits = Hits(parsed.hits)
        for index, directive in enumerate(parsed.directives):
            if directive.kind == "enable":
                continue
            for written, start, end in code_tokens(directive):
                if not judged.covers_any(written):
                    continue  # no rule it names runs here or later: not judged
                if parsed.silenced(index, written, hits) or not ctx.admits(None, directive.line):
                    continue
                yield Finding(message(parsed, index, written), Span(directive.line, start + 1, directive.line, end + 1))

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
        from ...skill.suppressions.comments import Hits, Prefixes, parse
        from ...skill.suppressions.usage import Fixes, code_tokens

        other_hits, other_ran = usage
        judged = ran | set(other_ran)
        covered = Prefixes(judged)
        split = package.split("canonical")
        parsed = parse(package.source.lines, split.close_line + 1 if split.status == "ok" else 0)
        at = {}
        for index, directive in enumerate(parsed.directives):
            for written, start, _ in code_tokens(directive):
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
        fixes = Fixes(package, parsed, unused, judged)
        for diagnostic, index, written in kept:
            diagnostic.fix = fixes.fix(index, written, diagnostic.span.column - 1)
        return [diagnostic for diagnostic, _, _ in kept]


RULES = [UnusedSuppression]
