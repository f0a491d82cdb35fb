"""SL80x: security content: what the model reads and runs that a reviewer of the rendered skill does not see."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ..diagnostics import Finding, Span
from ..rule import Rule, RuleContext, severities
from ..skill.fetch_and_run import MAX_PER_FILE, FetchRun, package_script_fetch_runs, skill_md_fetch_runs
from ..skill.script_prompts import shorten


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


def describe(run: FetchRun) -> str:
    """What a fetch-and-run does, why it matters and the safer form, after a subject ("This script …")."""
    source = f"`{shorten(run.what, 100)}`" if run.what else "code"
    if run.kind == "runtime-install":
        packages = f"`{shorten(run.what, 80)}`" if run.what else "packages"
        return (
            f"installs {packages} with `{run.runner}` while it runs: running it changes the user's environment "
            "from the network without asking, with whatever release is current; declare the dependency (PEP 723 "
            "`# /// script` metadata, `package.json`, a pinned requirements file) and have the script stop with "
            "the install command instead"
        )
    if run.kind in ("install", "runner"):
        verb = "installs" if run.kind == "install" else "fetches and runs"
        return (
            f"{verb} {source} with `{run.runner}` straight from a URL or git source, not a registry release: "
            "what is at that address can change under the skill and nothing checks what arrives; pin it (a full "
            "commit id, a pip `#sha256=` hash) or install a released version from the registry"
        )
    how = {
        "pipe": f"pipes it straight into `{run.runner}`",
        "file": f"runs it with `{run.runner} <(…)`",
        "string": "evaluates it with `eval`" if run.runner == "eval" else f"runs it as the program of `{run.runner}`",
        "powershell": f"evaluates it with `{run.runner}`",
        "eval": f"evaluates it with `{run.runner}(…)`",
    }[run.kind]
    return (
        f"downloads {source} and {how}, in one step: whatever the server sends at that moment runs with the "
        "user's rights, unseen and unverified; download it to a file, check it against a pinned checksum (or "
        "a pinned release), then run the file"
    )


RULES = [DownloadAndExecute]
