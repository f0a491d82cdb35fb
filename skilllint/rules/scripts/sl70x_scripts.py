"""SL70x: bundled scripts and the code SKILL.md gives: interactive prompts, runnability, unpinned runners, argument substitution."""

from __future__ import annotations

import posixpath
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from ...diagnostics import Finding, Related, Span
from ...rule import Rule, RuleContext, severities

if TYPE_CHECKING:  # types only: the analysis is imported by the rule that runs it
    from ...skill.scripts.invocations import ScriptRun
    from ...skill.scripts.lexers import Script


class ScriptInteractive(Rule):
    code = "SL701"
    name = "script-interactive"
    summary = "A bundled script prompts for input; agents run scripts in non-interactive shells"
    severity = severities("warning: all")
    content_rule = True

    def check(self, package, ctx: RuleContext) -> Iterator[Finding]:
        from ...skill.scripts.invocations import ScriptRun, python_runs
        from ...skill.scripts.lexers import MAX_FINDINGS_PER_FILE, package_scripts
        from ...skill.scripts.invocations import shell_runs
        from ...skill.scripts.prompts import BYPASS, INSTEAD, PROMPT_FINDERS, WHY, argument_fallback, shorten, usage_arguments

        body = package.body if package.readable else ""
        runs: dict[str, list[ScriptRun]] | None = None
        for script in package_scripts(package, ctx.memo):
            bypass = sorted(set(BYPASS.findall(script.text)))
            note = ""
            if bypass:
                note = f" (the script knows {', '.join(f'`{b}`' for b in bypass)}, but SKILL.md never passes it)"
            model = None
            if script.lang == "python":
                from ...skill.scripts.python import (
                    prompt_reach as pyscript,
                )

                model = pyscript.analyse(script.text)
            if model is not None:
                if not model.prompt_sites:
                    continue
                if runs is None:
                    runs = python_runs(package)
                yield from self._python_findings(package, script, model, runs.get(script.rel, []), bypass, note)
                continue
            prompts = PROMPT_FINDERS[script.lang](script)
            if not prompts:
                continue
            if bypass and any(flag in body for flag in bypass):
                continue  # SKILL.md passes the flag that skips the question
            seen: set[int] = set()
            shell_runs_of: list | None = None
            for prompt in sorted(prompts, key=lambda p: p.offset)[:MAX_FINDINGS_PER_FILE]:
                if prompt.offset in seen:
                    continue
                seen.add(prompt.offset)
                where = ""
                position = argument_fallback(script, prompt.offset) if script.lang == "shell" else None
                if position is not None:
                    # The prompt stands in for a missing argument: only a run without it gets there.
                    if shell_runs_of is None:
                        shell_runs_of = shell_runs(package, script.rel)
                    short = [run for run in shell_runs_of if len(run.args) < position]
                    if short:
                        where = (
                            f" when argument {position} is missing, and SKILL.md line {short[0].line} runs the script "
                            f"as `{shorten(short[0].command)}`, without it"
                        )
                    elif shell_runs_of or usage_arguments(script) >= position:
                        continue  # every run SKILL.md shows, or the script's usage line, passes it
                    else:
                        where = f" when argument {position} is missing, and neither SKILL.md nor the script's usage shows it"
                line, column = script.masked.position(prompt.offset)
                yield Finding(
                    f"`{prompt.token}` {prompt.how}{where}: {WHY}{note}; {INSTEAD}",
                    Span(line, column, line, column + prompt.length),
                    path=Path(package.root) / script.rel,
                )

    def _python_findings(self, package, script: Script, model, runs: list[ScriptRun], bypass: list[str], note: str) -> Iterator[Finding]:
        """A Python prompt is reported when a command line of SKILL.md that runs the script gets to it, or,
        when SKILL.md never runs the script, when a run with no arguments does."""
        from ...skill.scripts.lexers import MAX_FINDINGS_PER_FILE
        from ...skill.scripts.prompts import INSTEAD, WHY, shorten

        reported = 0
        for index, (prompt, _site) in sorted(enumerate(model.prompt_sites), key=lambda item: (item[1][0].line, item[1][0].column)):
            if reported >= MAX_FINDINGS_PER_FILE:
                return
            if runs:
                reaching = [run for run in runs if model.reaches(index, run.args)]
                if not reaching:
                    continue
                if bypass and all(any(a.split("=")[0] in bypass for a in run.args) for run in reaching):
                    continue  # every run that gets there passes the flag that skips the question
                run = reaching[0]
                where = f", and SKILL.md line {run.line} runs the script as `{shorten(run.command)}`, which gets there"
            else:
                if not model.reaches(index, ()):
                    continue
                where = ", and a run with no arguments gets there (SKILL.md does not show how to run the script)"
            reported += 1
            yield Finding(
                f"`{prompt.token}` {prompt.how}{where}: {WHY}{note}; {INSTEAD}",
                Span(prompt.line, prompt.column, prompt.line, prompt.column + prompt.length),
                path=Path(package.root) / script.rel,
            )


class ScriptNotRunnable(Rule):
    code = "SL702"
    name = "script-not-runnable"
    summary = "A script SKILL.md runs as a command lacks a shebang or the run bit"
    severity = severities("info: all")
    content_rule = True

    def check(self, package, ctx: RuleContext) -> Iterator[Finding]:
        from ...skill.scripts.invocations import NOT_COMMANDS, interpreted_runs, interpreter_for, invocation_arguments, invocations, looks_runnable, shebang_problems
        from ...skill.scripts.lexers import language_of, read_bytes

        if not any(looks_runnable(rel) for rel, e in package.inventory.entries.items() if e.kind in ("file", "symlink")):
            return
        reported: set[str] = set()
        calls = invocations(package)
        # The same run a SKILL.md block makes through the interpreter, written directly beside it
        # ("`./x.sh <file>` also works"), is an alternative form, not the way the script is run; a
        # direct call with other arguments is a run of its own.
        interpreted = interpreted_runs(package) if calls else set()
        for call in calls:
            if call.rel in reported or (call.rel, invocation_arguments(package, call)) in interpreted:
                continue
            ext = posixpath.splitext(call.rel)[1].lower()
            if ext in NOT_COMMANDS:
                continue
            reported.add(call.rel)
            head = read_bytes(package, call.rel, 128)
            problems = shebang_problems(package, call.rel, language_of(call.rel, head))
            if not problems:
                continue
            here = Related("SKILL.md runs it as a command here", package.skill_md_path,
                           Span(call.line, call.column, call.line, call.column + len(call.word)))
            yield Finding(
                f"SKILL.md (line {call.line}) runs `{call.word}` as a command, but " + "; and ".join(problems)
                + f"; fix the file, or have SKILL.md name the interpreter (`{interpreter_for(call.rel)} {call.word}`)",
                Span(1, 1, 1, 2),
                path=Path(package.root) / call.rel,
                related=(here,),
            )


class ScriptUnpinnedRunner(Rule):
    code = "SL703"
    name = "script-unpinned-runner"
    summary = "A script or a SKILL.md command runs a package through npx, uvx or pipx run without pinning its version"
    severity = severities("info: all")
    content_rule = True

    def check(self, package, ctx: RuleContext) -> Iterator[Finding]:
        from ...skill.scripts.runner_pins import pin_example, runner_uses, skill_md_runner_uses, unpinned_what
        from ...skill.scripts.lexers import MAX_FINDINGS_PER_FILE, package_scripts

        for command, verdict in skill_md_runner_uses(package, ctx.memo)[:MAX_FINDINGS_PER_FILE]:
            yield Finding(
                f"`{verdict.runner} {verdict.spec}` {unpinned_what(verdict)}: each time the agent runs this command "
                "it fetches whatever the registry serves that day, so a new release can change or break the "
                "skill, or run code nobody reviewed; pin it (" + pin_example(verdict) + ")",
                Span(command.line, command.column, command.line, command.column + command.length),
            )
        for script in package_scripts(package, ctx.memo):
            for use in runner_uses(script)[:MAX_FINDINGS_PER_FILE]:
                verdict = use.verdict
                line, column = script.masked.position(use.offset)
                yield Finding(
                    f"`{verdict.runner} {verdict.spec}` {unpinned_what(verdict)}: each run fetches whatever the registry serves that day, "
                    "so a new release can change or break this script, or run code nobody reviewed; pin it ("
                    + pin_example(verdict) + ")",
                    Span(line, column, line, column + use.length),
                    path=Path(package.root) / script.rel,
                )


class ArgumentSubstitutionInCode(Rule):
    code = "SL704"
    name = "argument-substitution-in-code"
    summary = "A `$1` in SKILL.md's code that Claude Code replaces with a skill argument"
    severity = severities("warning: claude-code")

    def check(self, package, ctx: RuleContext) -> Iterator[Finding]:
        from ...skill.scripts.argument_substitution import POSITIONAL, SHELL_LANGUAGES, SHELL_SCRIPT, foreign_contexts, is_amount, takes_arguments
        from ...skill.text.markdown import CODE_SPAN
        from ...skill.text.markdown import FENCE_LINE

        if not package.readable or "$" not in package.body:
            return
        lines = package.source.lines
        code_lines: set[int] = set()
        uses_arguments = None  # found on first need
        # (line, its text, start and end of the code in it, fence language or None for a code span, script block)
        candidates: list[tuple[int, str, int, int, str | None, bool]] = []
        for info, numbers in package.body_fenced_blocks:
            code_lines.update(numbers)
            inside = numbers[1:]  # after the opening fence
            if inside and FENCE_LINE.match(lines[inside[-1] - 1]):
                inside = inside[:-1]  # the closing fence (none when the block runs to the end of the file)
            body = "\n".join(lines[number - 1] for number in inside)
            if "$" not in body:
                continue
            script_block = info in SHELL_LANGUAGES and SHELL_SCRIPT.search(body) is not None
            for number in inside:
                text = lines[number - 1]
                if "$" in text:
                    candidates.append((number, text, 0, len(text), info, script_block))
        for number, text in enumerate(lines[package.body_start_line :], start=package.body_start_line + 1):
            if number in code_lines or "`" not in text or "$" not in text:
                continue
            for span in CODE_SPAN.finditer(text):
                if "$" in span.group(2):
                    candidates.append((number, text, span.start(2), span.end(2), None, False))
        candidates.sort(key=lambda c: (c[0], c[2]))
        for number, text, start, end, language, script_block in candidates:
            tokens = list(POSITIONAL.finditer(text, start, end))
            if not tokens:
                continue
            judged = list(zip(tokens, foreign_contexts(text, start, end, tokens, language, script_block)))
            judged = [(t, c) for t, c in judged if not is_amount(text, t, c)]
            reported = [(t, c) for t, c in judged if c is not None]
            if not reported and judged:
                if uses_arguments is None:
                    uses_arguments = takes_arguments(package, ctx.targets, code_lines)
                if uses_arguments:
                    continue
                reported = judged
            if not reported:
                continue
            first, context = reported[0]
            if not ctx.admits(None, number):
                continue
            yield Finding(
                self._message([t.group(0) for t, _ in reported], int(first.group(1)), context, language),
                Span(number, first.start() + 1, number, first.end() + 1),
            )

    @staticmethod
    def _message(tokens: list[str], index: int, context: str | None, language: str | None) -> str:
        from ...skill.scripts.argument_substitution import REWRITES, ordinal

        named = " and ".join(f"`{t}`" for t in dict.fromkeys(tokens))
        what, rewrite = REWRITES[context]
        plural = len(dict.fromkeys(tokens)) > 1
        return (
            f"{named} in {what.format(language=language)} {'are' if plural else 'is'} Claude Code's argument "
            f"placeholder{'s' if plural else ''}: when the skill is invoked, Claude Code replaces `${index}` with the "
            f"skill's {ordinal(index + 1)} argument{' (and so on)' if plural else ''}, or with nothing when fewer "
            "are given, before the model reads SKILL.md, code blocks included; "
            + rewrite.format(n=index)
        )


RULES = [ScriptInteractive, ScriptNotRunnable, ScriptUnpinnedRunner, ArgumentSubstitutionInCode]
