"""SL13x: how the frontmatter lets a skill be invoked and listed: never invocable, whitespace collapsed."""

from __future__ import annotations

from typing import Iterator

from ...diagnostics import Finding
from ...skill.package import FrontmatterView, SkillPackage
from ...rule import FieldRule, Outcome, Rule, RuleContext, severities
from ...targets import Target
from ...targets.claude_code import read_bool as _cc_bool


class NeverInvocable(FieldRule):
    code = "SL130"
    name = "never-invocable"
    summary = "`disable-model-invocation: true` with `user-invocable: false`"
    severity = severities("warning: claude-code copilot")

    def judge(self, target: Target, view: FrontmatterView, mapping: dict, package: SkillPackage, ctx: RuleContext) -> Outcome | None:
        from ...skill.fields.field_checks import key_span

        if _cc_bool(mapping.get("disable-model-invocation", False)) is True and _cc_bool(
            mapping.get("user-invocable", True)
        ) is False:
            return Outcome(
                "`disable-model-invocation: true` with `user-invocable: false`: neither the model nor the user can call this skill",
                key_span(view, "disable-model-invocation", package),
            )
        return None


class WhitespaceCollapsed(Rule):
    code = "SL131"
    name = "whitespace-collapsed"
    summary = "Newlines or runs of spaces in `name` or `description` that Codex collapses"
    severity = severities("info: codex")

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        from ...skill.fields.field_checks import collapse_whitespace, lost_layout, value_span

        for target in ctx.targets:
            view = package.view(target)
            mapping = view.mapping
            if mapping is None:
                continue
            for key in ("name", "description"):
                value = mapping.get(key)
                if not isinstance(value, str):
                    continue
                stripped = value.strip()
                if stripped == collapse_whitespace(stripped):
                    continue
                if key == "name":  # an identifier: any collapse changes what is shown
                    what = "newlines" if "\n" in stripped else "runs of whitespace"
                    message = f"`name` holds {what}; Codex collapses them to single spaces"
                else:
                    lost = lost_layout(stripped)
                    if lost is None:
                        continue  # wrapped prose or doubled spaces read the same on one line
                    message = f"`description` lays out {lost} on separate lines; Codex joins them into one run-on line"
                yield Finding(message, value_span(view, key, package), targets=(target.id,))


RULES = [NeverInvocable, WhitespaceCollapsed]
