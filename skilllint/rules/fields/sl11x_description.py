"""SL11x: the `description` field, judged per target as each target's parser reads it."""

from __future__ import annotations

import functools

from ...skill.package import FrontmatterView, SkillPackage
from ...rule import (
    FieldRule,
    Option,
    Outcome,
    RuleContext,
    severities,
)
from ...targets import Target

# -- description --------------------------------------------------------------


class DescriptionMissing(FieldRule):
    code = "SL111"
    name = "description-missing"
    summary = "The frontmatter has no `description`"
    severity = severities("error: all; warning: claude-code")

    def judge(self, target: Target, view: FrontmatterView, mapping: dict, package: SkillPackage, ctx: RuleContext) -> Outcome | None:
        from ...skill.fields.field_checks import frontmatter_start

        if "description" in mapping:
            return None
        effect = (
            f"{target.called} lists the skill with its first body line instead"
            if target.lists_first_body_line
            else "it is required (agents choose skills by it)"
        )
        return Outcome(
            "the frontmatter has no `description`",
            frontmatter_start(package),
            effect=effect,
            ref_message="Missing required field in frontmatter: description",
        )


class DescriptionNotString(FieldRule):
    code = "SL112"
    name = "description-not-string"
    summary = "`description` is empty, blank or not a string, as the target reads it"
    severity = severities("error: all; warning: claude-code")

    def judge(self, target: Target, view: FrontmatterView, mapping: dict, package: SkillPackage, ctx: RuleContext) -> Outcome | None:
        from ...skill.fields.field_checks import describe_type, value_span

        if "description" not in mapping:
            return None
        value = mapping["description"]
        span = value_span(view, "description", package)
        if not isinstance(value, str):
            effect = "it must be a string"
            return Outcome(
                f"`description` is {describe_type(value)}",
                span,
                effect=effect,
                ref_message="Field 'description' must be a non-empty string",
            )
        if value.strip() or not target.requires_description_text:
            return None
        return Outcome(
            f"`description` is {'empty' if not value else 'blank'}",
            span,
            effect="agents choose skills by it",
            ref_message="Field 'description' must be a non-empty string",
        )


class DescriptionTooLong(FieldRule):
    code = "SL113"
    name = "description-too-long"
    summary = "`description` is over 1,024 characters"
    severity = severities("error: agentskills skills-ref claude-api codex codex-validator copilot")
    fixable = "unsafe"

    def prepare(self, package: SkillPackage, ctx: RuleContext) -> tuple:
        from ...skill.fields import frontmatter_fixes

        fix = functools.cache(lambda: frontmatter_fixes.trim_description(package))
        return (fix,)

    def judge(self, target: Target, view: FrontmatterView, mapping: dict, package: SkillPackage, ctx: RuleContext, fix) -> Outcome | None:
        from ...skill.fields.field_checks import measure, value_span

        value = mapping.get("description")
        if not isinstance(value, str) or not value.strip():
            return None
        length = measure(value, target.description_count)
        if length <= 1024:
            return None
        how = ""
        if length != len(value):  # say how it counts only when that changes the number
            how = {"strip": " once stripped", "collapse": " with whitespace collapsed"}.get(target.description_count, "")
        return Outcome(
            f"`description` is {length:,} characters{how}, over the 1,024-character limit",
            value_span(view, "description", package),
            ref_message=f"Description exceeds 1024 character limit ({length} chars)",
            fix=fix(),
        )


class DescriptionAngleBrackets(FieldRule):
    code = "SL114"
    name = "description-angle-brackets"
    summary = "`description` contains `<` or `>`"
    severity = severities("error: claude-api codex-validator")

    def judge(self, target: Target, view: FrontmatterView, mapping: dict, package: SkillPackage, ctx: RuleContext) -> Outcome | None:
        from ...skill.fields.field_checks import value_span

        value = mapping.get("description")
        if not isinstance(value, str) or not value.strip():
            return None
        if "<" not in value and ">" not in value:
            return None
        return Outcome(
            "`description` contains an angle bracket (`<` or `>`), which this validator refuses",
            value_span(view, "description", package),
        )


class DescriptionListingCap(FieldRule):
    code = "SL115"
    name = "description-listing-cap"
    summary = "`description` + `when_to_use` is cut in Claude Code's skill listing"
    severity = severities("warning: claude-code")
    options = {"max-chars": Option(int, 1536, "skillListingMaxDescChars", minimum=1, maximum=1_000_000)}

    def judge(self, target: Target, view: FrontmatterView, mapping: dict, package: SkillPackage, ctx: RuleContext) -> Outcome | None:
        from ...skill.fields.field_checks import value_span

        limit = ctx.options["max-chars"]
        present = [(k, mapping.get(k)) for k in ("description", "when_to_use")]
        present = [(k, v) for k, v in present if isinstance(v, str) and v]
        total = sum(len(v) for _, v in present) + max(0, len(present) - 1)
        if total <= limit:
            return None
        which = " + ".join(f"`{k}`" for k, _ in present)
        return Outcome(
            f"{which} {'are' if len(present) > 1 else 'is'} {total:,} characters; Claude Code cuts the listing "
            f"entry at {limit:,}, so the last {total - limit:,} never reach the model",
            value_span(view, present[0][0], package),
        )


RULES = [DescriptionMissing, DescriptionNotString, DescriptionTooLong, DescriptionAngleBrackets, DescriptionListingCap]
