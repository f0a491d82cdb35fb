"""SL80x: security content: what the model reads and acts on that a reviewer does not see or weigh."""

from __future__ import annotations

from ..skill.package import FrontmatterView, SkillPackage
from ..skill.tool_grants import entries, entry_span, too_broad
from ..rule import FieldRule, Outcome, RuleContext, severities
from ..targets import Target


class UnrestrictedToolGrant(FieldRule):
    code = "SL805"
    name = "unrestricted-tool-grant"
    summary = "`allowed-tools` pre-approves every shell command or writes to any file"
    severity = severities("warning: claude-code")
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


RULES = [UnrestrictedToolGrant]
