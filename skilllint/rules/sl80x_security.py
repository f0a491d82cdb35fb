"""SL80x: security content: what the model reads and runs that a reviewer of the rendered skill does not see."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ..diagnostics import Finding, Span
from ..rule import Rule, RuleContext, severities
from ..skill.fetch_and_run import MAX_PER_FILE, describe, package_script_fetch_runs, skill_md_fetch_runs


class DownloadAndExecute(Rule):
    code = "SL804"
    name = "download-and-execute"
    summary = "A script or a SKILL.md command downloads code and runs it in one step (`curl … | sh`, `iwr … | iex`, an install from a URL)"
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
        for script, runs in package_script_fetch_runs(package, ctx):
            for run in runs[:MAX_PER_FILE]:
                line, column = script.masked.position(run.offset)
                yield Finding(
                    "This script " + describe(run),
                    Span(line, column, line, column + max(run.length, 1)),
                    path=Path(package.root) / script.rel,
                )


RULES = [DownloadAndExecute]
