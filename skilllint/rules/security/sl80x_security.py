"""SL80x: security content: what the model reads and runs that a reviewer of the rendered skill does not see or weigh."""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from ...diagnostics import Edit, Finding, Fix, Span, clipped
from ...rule import FieldRule, Outcome, Rule, RuleContext, severities

if TYPE_CHECKING:
    from ...skill.package import FrontmatterView, SkillPackage
    from ...targets import Target

_ERROR = severities("error: all")


class HiddenUnicode(Rule):
    code = "SL801"
    name = "hidden-unicode"
    summary = "A character that renders as nothing or reorders text (bidi control, zero-width, tag character) where it has no use"
    severity = severities("warning: all")
    fixable = "safe"
    content_rule = True
    needs_skill_md = False
    # High: hidden text changes what the agent is told without a reviewer seeing it; not critical,
    # since the skill must first be installed (the rule book says why).
    security_severity = 7.0

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        from ...skill.security.hidden_text import escape_of, find_hidden
        from ...skill.security.package_texts import OTHER, SKILL_MD, package_texts

        for text in package_texts(package, ctx.memo):
            if text.kind == OTHER or text.text.isascii():
                continue
            code_at = text.in_code
            for hidden in find_hidden(text.text, code_at, text.marks.hidden_other):
                line, column = text.position(hidden.start)
                in_code = code_at(hidden.start)
                error = hidden.bidi and in_code
                path = None if text.kind == SKILL_MD else text.path
                if not ctx.admits(path, line, _ERROR if error else None):
                    continue
                end_line, end_column = text.position(hidden.end)
                span = Span(line, column, end_line, end_column)
                # Removing a character with no use changes nothing a reader sees; in code it may
                # change a string's value, and removing a hidden message changes what the model reads.
                applicability = "unsafe" if in_code or hidden.payload else "safe"
                edits = tuple(Edit(text.path, Span(*text.position(a), *text.position(b)), "") for a, b in hidden.removals())
                fix = Fix("remove the hidden characters", applicability, edits)
                it = "them" if hidden.end - hidden.start > 1 else "it"
                yield Finding(
                    f"{hidden.what}: the model reads {it}, a reviewer of the rendered or displayed text does not see {it}; "
                    + (f"remove {it}, or write an escape (`{escape_of(text.text[hidden.start])}`) where the code needs the character" if in_code else f"remove {it}"),
                    span,
                    path=path,
                    severities=_ERROR if error else None,
                    fix=fix,
                )


class HiddenInstructions(Rule):
    code = "SL802"
    name = "hidden-instructions"
    summary = "An HTML comment in SKILL.md's body or a document tells the agent to act (run, fetch, send, ignore, conceal)"
    severity = severities("warning: all")
    content_rule = True
    needs_skill_md = False
    # High: an instruction to run, send or conceal that a reviewer of the rendered page never sees.
    security_severity = 7.5

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        from ...skill.security.hidden_instructions import html_comments, instruction
        from ...skill.security.package_texts import SKILL_MD, package_texts

        for text in package_texts(package, ctx.memo):
            if not text.is_markdown or "<!--" not in text.marks:
                continue
            body_offset = text.body_offset()

            def skip(offset: int, text=text, body_offset=body_offset) -> bool:
                return offset < body_offset or text.in_code(offset)

            for comment in html_comments(text.text, skip):
                told = instruction(comment.body)
                if told is None:
                    continue
                path = None if text.kind == SKILL_MD else text.path
                line, column = text.position(comment.start)
                if not ctx.admits(path, line):
                    continue
                end_line, end_column = text.position(comment.end)
                yield Finding(
                    f"an HTML comment, which a rendered page does not show, {told.what}: “{clipped(told.sentence, 160)}”; "
                    "the model reads comments, a reviewer of the rendered Markdown does not: say it in the visible text "
                    "if it is meant, else delete it",
                    Span(line, column, end_line, end_column),
                    path=path,
                )


class SecretInPackage(Rule):
    """The secret is never shown: the message gives its kind, first characters and length, and
    ``secret_span`` tells the human output to blank the flagged text in the source line it shows
    and the baseline to record the line without it."""

    code = "SL803"
    name = "secret-in-package"
    summary = "A credential (API key, token, private key, password) written in a file of the package"
    severity = severities("error: all")
    content_rule = True
    needs_skill_md = False
    security_severity = 8.5
    secret_span = True

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        from ...skill.security.package_texts import SKILL_MD, package_texts
        from ...skill.security.secrets import find_secrets

        for text in package_texts(package, ctx.memo):
            if text.kind == SKILL_MD and package.truncated:
                continue  # read only in part: a file over the read cap is not scanned for secrets
            body = text.text[1:] if text.text.startswith("\ufeff") else text.text  # a BOM is on no column
            for secret in find_secrets(body, text.marks):
                paired = (
                    f", with its secret access key on line {secret.paired_line}" if secret.paired_line is not None else ""
                )
                yield Finding(
                    f"{secret.what} ({secret.masked}){paired} is written in this file: whoever gets the skill "
                    "can use it, and it stays in every copy and in the history; revoke it with its issuer, "
                    "then have the skill read it from an environment variable or a secret store",
                    Span(secret.line, secret.column, secret.line, secret.end_column),
                    path=text.path,
                )


class DownloadAndExecute(Rule):
    code = "SL804"
    name = "download-and-execute"
    summary = "A script or a SKILL.md command downloads code and runs it in one step (piped to a shell, `iwr`/`iex`, an install from a URL)"
    severity = severities("warning: all")
    content_rule = True
    # Medium (GitHub's 4.0-6.9): whatever the server sends runs with the user's rights, but an attacker
    # needs the server, the account or the connection first, and most such lines fetch a vendor's own
    # installer; a leaked credential (SL803) needs nothing, a reverse shell (SL812) is the attack itself.
    security_severity = 6.5

    def check(self, package, ctx: RuleContext) -> Iterator[Finding]:
        from ...skill.security.fetch_and_run import MAX_PER_FILE
        from ...skill.security.fetch_sites import package_script_fetch_runs, skill_md_fetch_runs
        from ...skill.security.fetch_commands import describe

        for item in skill_md_fetch_runs(package, ctx.memo)[:MAX_PER_FILE]:
            yield Finding(
                "SKILL.md has the agent run a command that " + describe(item.run),
                Span(item.line, item.column, item.line, item.column + max(item.run.length, 1)),
            )
        for script, runs in package_script_fetch_runs(package, ctx.memo):
            for run in runs[:MAX_PER_FILE]:
                line, column = script.masked.position(run.offset)
                yield Finding(
                    "This script " + describe(run),
                    Span(line, column, line, column + max(run.length, 1)),
                    path=Path(package.root) / script.rel,
                )


class UnrestrictedToolGrant(FieldRule):
    code = "SL805"
    name = "unrestricted-tool-grant"
    summary = "`allowed-tools` pre-approves every shell command or writes to any file"
    severity = severities("warning: claude-code")
    # Medium: the grant itself runs nothing; any instruction the model follows then runs unasked, so it
    # widens what another fault (a poisoned file, a malicious instruction) can do, and does no harm alone.
    security_severity = 5.5

    def judge(self, target: Target, view: FrontmatterView, mapping: dict, package: SkillPackage, ctx: RuleContext) -> list[Outcome] | None:
        from ...skill.fields.tool_grants import entries, entry_span, too_broad

        value = mapping.get("allowed-tools")
        outcomes = []
        for index, entry in enumerate(entries(value)):
            grant = too_broad(entry)
            if grant is None:
                continue
            outcomes.append(
                Outcome(
                    f"`allowed-tools` grants `{grant.entry}`: while this skill is active, Claude Code {grant.approves} "
                    f"without asking the user; grant only what the skill needs, e.g. `{grant.instead}`",
                    entry_span(view, value, index, entry, package),
                )
            )
        return outcomes or None


class InstructionOverride(Rule):
    code = "SL806"
    name = "instruction-override"
    summary = "Prose that tells the agent to set aside its instructions or to hide what it does from the user"
    severity = severities("warning: all")
    opt_in = True
    content_rule = True
    needs_skill_md = False
    # Medium: the text is visible to a reviewer who reads it, but it turns the agent against its user.
    security_severity = 6.0

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        from ...skill.security.hidden_instructions import html_comments
        from ...skill.security.instruction_override import KINDS, Quotes, WriteUps, find_phrases
        from ...skill.security.package_texts import DOCUMENT, SKILL_MD, package_texts

        for text in package_texts(package, ctx.memo):
            if text.kind not in (SKILL_MD, DOCUMENT):
                continue
            phrases = find_phrases(text.text)
            if not phrases:
                continue
            lines = text.text.split("\n")
            write_ups = WriteUps(lines, text.rel)
            quoted_lines: dict[int, Quotes] = {}  # the quotation marks of each line holding a phrase
            body_offset = text.body_offset()
            comments = html_comments(text.text, lambda offset: False)  # SL802 judges what they say
            comment_starts = [c.start for c in comments]
            for phrase in phrases:
                if phrase.start < body_offset or text.in_code(phrase.start):
                    continue
                at_comment = bisect.bisect_right(comment_starts, phrase.start) - 1
                if at_comment >= 0 and phrase.start < comments[at_comment].end:
                    continue
                line, column = text.position(phrase.start)
                quotes = quoted_lines.get(line)
                if quotes is None:
                    quotes = quoted_lines[line] = Quotes(lines[line - 1])
                at = column - 1 + (1 if line == 1 and text.text.startswith("\ufeff") else 0)
                end = at + phrase.end - phrase.start
                if quotes.around(at, end) or write_ups.around(line - 1, at, end):
                    continue
                path = None if text.kind == SKILL_MD else text.path
                if not ctx.admits(path, line):
                    continue
                said = text.text[phrase.start : phrase.end]
                yield Finding(
                    f"“{clipped(' '.join(said.split()), 120)}” {KINDS[phrase.kind]}: a skill that does so works against "
                    "the user whose tools it runs with; if this text quotes an attack, put it in quotation marks or a "
                    "code block, or say that it is an example",
                    Span(line, column, *text.position(phrase.end)),
                    path=path,
                )


RULES = [HiddenUnicode, HiddenInstructions, SecretInPackage, DownloadAndExecute, UnrestrictedToolGrant, InstructionOverride]
