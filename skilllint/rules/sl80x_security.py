"""SL80x: security content: what the model reads and runs that a reviewer of the rendered skill does not see or weigh."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ..diagnostics import Finding, Span
from ..rule import FieldRule, Outcome, Rule, RuleContext, severities
from ..skill.fetch_and_run import MAX_PER_FILE, describe, package_script_fetch_runs, skill_md_fetch_runs
from ..skill.package import FrontmatterView, SkillPackage
from ..skill.secrets import find_secrets
from ..skill.text_files import package_texts
from ..skill.tool_grants import entries, entry_span, too_broad
from ..targets import Target


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
        for rel, text in package_texts(package, ctx.memo).items():
            for secret in find_secrets(text):
                paired = (
                    f", with its secret access key on line {secret.paired_line}" if secret.paired_line is not None else ""
                )
                yield Finding(
                    f"{secret.what} ({secret.masked}){paired} is written in this file: whoever gets the skill "
                    "can use it, and it stays in every copy and in the history; revoke it with its issuer, "
                    "then have the skill read it from an environment variable or a secret store",
                    Span(secret.line, secret.column, secret.line, secret.end_column),
                    path=package.root / rel,
                )


class DownloadAndExecute(Rule):
    code = "SL804"
    name = "download-and-execute"
    summary = "A script or a SKILL.md command downloads code and runs it in one step (piped to a shell, `iwr`/`iex`, an install from a URL)"
    severity = severities("warning: all")
    content_rule = True
    # High (GitHub's 7.0-8.9): whatever the server sends runs with the user's rights, but an attacker
    # needs the server, the account or the connection first; a leaked credential (SL803) needs nothing.
    security_severity = 7.5

    def check(self, package, ctx: RuleContext) -> Iterator[Finding]:
        for item in skill_md_fetch_runs(package)[:MAX_PER_FILE]:
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
    # High: the grant itself runs nothing, but any instruction the model follows then runs unasked.
    security_severity = 7.0

    def judge(self, target: Target, view: FrontmatterView, mapping: dict, package: SkillPackage, ctx: RuleContext) -> list[Outcome] | None:
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


RULES = [SecretInPackage, DownloadAndExecute, UnrestrictedToolGrant]
