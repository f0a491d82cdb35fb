"""SL81x: what a skill's code and commands do (security behaviour), judged on scripts and on the code
blocks of SKILL.md and every Markdown document of the package."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from ...diagnostics import Finding, Related, Span
from ...rule import Rule, RuleContext, severities

# A package with thousands of blocks reports at most this many findings of one rule.
MAX_FINDINGS = 50


class DataExfiltration(Rule):
    code = "SL810"
    name = "data-exfiltration"
    summary = "Sensitive data (a credential store, the whole environment, a keychain) is sent to a host the code fixes"
    severity = severities("error: all")
    content_rule = True
    needs_skill_md = False
    # Critical (GitHub's 9.0-10.0): running the skill hands the user's credentials to a third party
    # at once, with nothing else taken over first.
    security_severity = 9.3

    def check(self, package, ctx: RuleContext) -> Iterator[Finding]:
        from ...skill.security.code_units import code_units
        from ...skill.security.python_flow import python_flows
        from ...skill.security.shell_flow import shell_flows

        units = code_units(package, ctx.memo)
        root = Path(package.root)
        found = 0
        for flow in python_flows(units):
            yield self._finding(root, flow.unit, flow.line, flow.column, flow.origin.what, flow.sink, flow.origin.unit.rel, flow.origin.line)
            found += 1
            if found >= MAX_FINDINGS:
                return
        for flow in shell_flows(units):
            yield self._finding(root, flow.unit, flow.line, flow.column, flow.what, flow.sink, flow.unit.rel, flow.source_line)
            found += 1
            if found >= MAX_FINDINGS:
                return

    def _finding(self, root: Path, unit, line: int, column: int, what: str, sink: str, source_rel: str, source_line: int) -> Finding:
        where = unit.named
        read_at = "" if (source_rel, source_line) == (unit.rel, line) else f", read at {source_rel}:{source_line},"
        return Finding(
            f"{where} sends {what}{read_at} with {sink}: a host the code fixes "
            "receives the user's secrets when the skill runs; remove the upload, or send only what the task "
            "needs to a destination the user configures",
            Span(line, column, line, column + 1),
            path=root / unit.rel,
            related=(Related(f"the data is read here: {what}", root / source_rel, Span(source_line, 1, source_line, 2)),),
        )


class RemoteShell(Rule):
    code = "SL812"
    name = "remote-shell"
    summary = "Code hands a shell to the other end of a network connection (a reverse or bind shell)"
    severity = severities("error: all")
    content_rule = True
    needs_skill_md = False
    # Critical: whoever is at the other end runs any command with the user's rights, at once.
    security_severity = 9.6

    def check(self, package, ctx: RuleContext) -> Iterator[Finding]:
        from ...skill.security.code_units import code_units
        from ...skill.security.remote_shell import remote_shells

        root = Path(package.root)
        for shell in remote_shells(code_units(package, ctx.memo))[:MAX_FINDINGS]:
            where = shell.unit.named
            yield Finding(
                f"{where} opens a remote shell: {shell.what}; whoever is at the other end runs any command with "
                "the user's rights. No skill needs this: remove it",
                Span(shell.line, shell.column, shell.line, shell.column + 1),
                path=root / shell.unit.rel,
            )


class SafetyBypass(Rule):
    code = "SL815"
    name = "safety-bypass"
    summary = "Code turns a safety off: an agent CLI's approvals or sandbox, TLS certificate checks, a container's or the system's isolation"
    severity = severities("warning: all")
    content_rule = True
    needs_skill_md = False
    # Medium: nothing is harmed by the switch alone; it removes the check that would have stopped the
    # harm another fault brings (a hostile instruction, an intercepted connection).
    security_severity = 6.0

    def check(self, package, ctx: RuleContext) -> Iterator[Finding]:
        from ...skill.security.code_units import code_units
        from ...skill.security.safety_bypass import safety_bypasses

        root = Path(package.root)
        for bypass in safety_bypasses(code_units(package, ctx.memo))[:MAX_FINDINGS]:
            where = bypass.unit.named
            yield Finding(
                f"{where} turns off {bypass.what} (`{bypass.switch}`): what it would have stopped then runs unchecked; "
                "keep the check on, or ask the user first and say why",
                Span(bypass.line, bypass.column, bypass.line, bypass.column + 1),
                path=root / bypass.unit.rel,
            )


class DestructiveCommand(Rule):
    code = "SL813"
    name = "destructive-command"
    summary = "Code deletes or wipes what no task asks to: the root, the home, an unset variable's path, a disk; a fork bomb"
    severity = severities("warning: all")
    content_rule = True
    needs_skill_md = False
    # High: run once, it destroys the user's files or machine; an unset variable's path is a bug as
    # often as an attack, which keeps it below the attacks themselves (SL810, SL812).
    security_severity = 7.5

    def check(self, package, ctx: RuleContext) -> Iterator[Finding]:
        from ...skill.security.code_units import code_units
        from ...skill.security.destructive import destructive_commands

        root = Path(package.root)
        for hit in destructive_commands(code_units(package, ctx.memo))[:MAX_FINDINGS]:
            yield Finding(
                f"{hit.unit.named} destroys {hit.what}: `{hit.command}`; no skill's task asks for that. Delete only "
                "the task's own paths, and guard a variable in a path (`${DIR:?}`) so an unset one stops the shell",
                Span(hit.line, hit.column, hit.line, hit.column + 1),
                path=root / hit.unit.rel,
            )


RULES = [DataExfiltration, RemoteShell, DestructiveCommand, SafetyBypass]
