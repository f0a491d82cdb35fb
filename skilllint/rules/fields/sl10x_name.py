"""SL10x: the `name` field, judged per target as each target's parser reads it."""

from __future__ import annotations

from ...diagnostics import Severity
from ...skill.package import FrontmatterView, SkillPackage, nfkc
from ...rule import FieldRule, Outcome, RuleContext, severities
from ...targets import Target

# -- name -------------------------------------------------------------------


class NameMissing(FieldRule):
    code = "SL101"
    name = "name-missing"
    summary = "The frontmatter has no `name`"
    severity = severities(
        "error: agentskills skills-ref claude-api codex-validator copilot; info: claude-code codex"
    )

    def judge(self, target: Target, view: FrontmatterView, mapping: dict, package: SkillPackage, ctx: RuleContext) -> Outcome | None:
        from ...skill.fields.field_checks import frontmatter_start

        if "name" in mapping:
            return None
        effect = (
            f"the folder name '{package.folder_name}' is used instead"
            if target.name_defaults_to_folder
            else "it is required"
        )
        return Outcome(
            "the frontmatter has no `name`",
            frontmatter_start(package),
            effect=effect,
            ref_message="Missing required field in frontmatter: name",
        )


class NameNotString(FieldRule):
    code = "SL102"
    name = "name-not-string"
    summary = "`name` is empty, blank or not a string, as the target reads it"
    severity = severities(
        "error: agentskills copilot skills-ref claude-api codex-validator; info: claude-code codex"
    )

    def judge(self, target: Target, view: FrontmatterView, mapping: dict, package: SkillPackage, ctx: RuleContext) -> Outcome | None:
        from ...skill.fields.field_checks import describe_type, is_blank, python_type, value_span

        if "name" not in mapping:
            return None
        value = mapping["name"]
        span = value_span(view, "name", package)
        what = "empty" if value in ("", None) else "blank" if is_blank(value) else describe_type(value)
        if target.quick_validate:
            if isinstance(value, str):
                return None  # quick_validate lets an empty name pass
            return Outcome(f"`name` is {what}", span, effect=f"it must be a string (got {python_type(value)})")
        if isinstance(value, str) and value.strip():
            return None
        if target.typed_frontmatter and isinstance(value, (list, dict)):
            # serde_yaml cannot read a collection into Option<String>: a load error.
            return Outcome(
                f"`name` is {what}", span, effect=f"{target.called} cannot read it and does not load the skill", severity=Severity.ERROR
            )
        if target.name_defaults_to_folder:
            effect = f"the folder name '{package.folder_name}' is used instead"
        else:
            effect = "it must be a non-empty string"
        return Outcome(
            f"`name` is {what}",
            span,
            effect=effect,
            ref_message="Field 'name' must be a non-empty string",
        )


class NameTooLong(FieldRule):
    code = "SL103"
    name = "name-too-long"
    summary = "`name` is over 64 characters"
    severity = severities("error: agentskills skills-ref claude-api codex codex-validator copilot")

    def judge(self, target: Target, view: FrontmatterView, mapping: dict, package: SkillPackage, ctx: RuleContext) -> Outcome | None:
        from ...skill.fields.field_checks import collapse_whitespace, is_blank, string_name, value_span

        name = string_name(target, mapping)
        limit = target.name_max or 64
        raw = mapping.get("name")
        if name is None and target.name_defaults_to_folder and (raw is None or is_blank(raw) or raw == ""):
            name = collapse_whitespace(package.folder_name) or "skill"  # Codex's fallback is checked too
        if name is None:
            return None
        shown = ""
        if target.name_counts_plugin_prefix and ctx.settings is not None:
            plugin = ctx.settings.plugin_of(package, target)  # the plugin that installs it (discovery.units)
            namespace = plugin.name if plugin is not None else None
            if namespace:  # the surface checks the prefixed name
                name, shown = f"{namespace}:{name}", f" as {target.called} prefixes it ('{namespace}:…')"
        if len(name) <= limit:
            return None
        return Outcome(
            f"`name` is {len(name)} characters{shown}, over the {limit}-character limit",
            value_span(view, "name", package),
            ref_message=f"Skill name '{name}' exceeds {limit} character limit ({len(name)} chars)",
        )


class NameInvalidChars(FieldRule):
    code = "SL104"
    name = "name-invalid-chars"
    summary = "`name` has characters outside the target's allowed set"
    severity = severities("error: agentskills claude-api codex-validator copilot skills-ref; info: opencode")
    fixable = "unsafe"

    def prepare(self, package: SkillPackage, ctx: RuleContext) -> tuple:
        from ...skill.fields.field_checks import name_fix

        fix = name_fix(package)
        return (fix,)

    def judge(self, target: Target, view: FrontmatterView, mapping: dict, package: SkillPackage, ctx: RuleContext, fix) -> Outcome | None:
        from ...skill.fields.field_checks import KEBAB, distinct, name_characters, string_name, value_span

        name = string_name(target, mapping)
        if name is None:
            return None
        span = value_span(view, "name", package)
        if target.name_charset is None:
            return None
        if target.name_charset == "unicode":  # skills-ref: Unicode letters and digits
            outcomes = []
            if name != name.lower():
                outcomes.append(
                    Outcome(
                        f"`name` '{name}' must be lowercase", span, ref_message=f"Skill name '{name}' must be lowercase", fix=fix()
                    )
                )
            bad = distinct(c for c in name if not (c.isalnum() or c == "-"))
            if bad:
                outcomes.append(
                    Outcome(
                        f"`name` '{name}': {name_characters(bad)} {'is' if len(bad) == 1 else 'are'} not a letter, digit or hyphen",
                        span,
                        ref_message=f"Skill name '{name}' contains invalid characters. "
                        "Only letters, digits, and hyphens are allowed.",
                        fix=fix(),
                    )
                )
            return outcomes or None
        if KEBAB.match(name):
            return None
        bad = distinct(c for c in name if not ("a" <= c <= "z" or "0" <= c <= "9" or c == "-"))
        upper = [c for c in bad if "A" <= c <= "Z"]
        others = [c for c in bad if not "A" <= c <= "Z"]
        parts = []
        if upper:  # one class, with the letters to write instead
            lower = ", ".join(f"'{c.lower()}'" for c in upper)
            parts.append(f"uppercase {name_characters(upper)} (use {lower})")
        if others:
            parts.append(name_characters(others))
        verb = "is" if len(bad) == 1 else "are"
        return Outcome(
            f"`name` '{name}' may only hold lowercase a-z, 0-9 and hyphens; {' and '.join(parts)} {verb} not allowed",
            span,
            fix=fix(),
        )


class NameHyphenPlacement(FieldRule):
    code = "SL105"
    name = "name-hyphen-placement"
    summary = "`name` starts or ends with a hyphen, or holds `--`"
    severity = severities("error: agentskills skills-ref claude-api codex-validator copilot")

    def judge(self, target: Target, view: FrontmatterView, mapping: dict, package: SkillPackage, ctx: RuleContext) -> Outcome | None:
        from ...skill.fields.field_checks import string_name, value_span

        name = string_name(target, mapping)
        if name is None:
            return None
        span = value_span(view, "name", package)
        outcomes = []
        if name.startswith("-") or name.endswith("-"):
            outcomes.append(
                Outcome(
                    f"`name` '{name}' starts or ends with a hyphen",
                    span,
                    ref_message="Skill name cannot start or end with a hyphen",
                )
            )
        if "--" in name:
            outcomes.append(
                Outcome(f"`name` '{name}' holds `--`", span, ref_message="Skill name cannot contain consecutive hyphens")
            )
        return outcomes or None


class NameFolderMismatch(FieldRule):
    code = "SL106"
    name = "name-folder-mismatch"
    summary = "`name` differs from the skill's folder name"
    severity = severities("error: skills-ref copilot; warning: agentskills claude-code codex; info: opencode")
    fixable = "unsafe"

    def prepare(self, package: SkillPackage, ctx: RuleContext) -> tuple:
        from ...skill.fields.field_checks import name_fix

        fix = name_fix(package)
        return (fix,)

    def judge(self, target: Target, view: FrontmatterView, mapping: dict, package: SkillPackage, ctx: RuleContext, fix) -> Outcome | None:
        from ...skill.fields.field_checks import loosely, string_name, value_span

        folder = package.folder_name
        name = string_name(target, mapping)
        if name is None or nfkc(name) == nfkc(folder):
            return None
        shown = nfkc(name) if target.reference_validator else name
        return Outcome(
            f"`name` '{name}' does not match the folder name '{folder}'",
            value_span(view, "name", package),
            ref_message=f"Directory name '{folder}' must match skill name '{shown}'",
            # Only a name that differs in case, `_` or spaces is surely the folder's.
            fix=fix() if loosely(name) == loosely(folder) else None,
        )


class NameReserved(FieldRule):
    code = "SL107"
    name = "name-reserved"
    summary = "A reserved folder name or a reserved word in `name`"
    severity = severities("error: claude-code; warning: claude-api")

    def judge(self, target: Target, view: FrontmatterView, mapping: dict, package: SkillPackage, ctx: RuleContext) -> Outcome | None:
        from ...skill.fields.field_checks import frontmatter_start, value_span

        folder = package.folder_name
        name = mapping.get("name") if isinstance(mapping.get("name"), str) else None
        if target.reserves_anthropic_names:
            from ...discovery.units import synced_from_claude_ai

            if synced_from_claude_ai(package.normal_root):
                return None  # Claude Code's synced copy: `anthropic-skills:<name>` is its own namespace there
            # Both folder rules cover enterprise, personal and project skills, not plugin skills (S-CC).
            in_plugin = ctx.settings is not None and ctx.settings.plugin_of(package, target) is not None
            if folder.casefold() == "synced" and not in_plugin:
                return Outcome(
                    f"the folder name '{folder}' is reserved by Claude Code (claude.ai sync); the skill is skipped",
                    frontmatter_start(package),
                )
            for label, value in ((("name", name),) if in_plugin else (("folder", folder), ("name", name))):
                if value and (value == "anthropic-skills" or value.startswith("anthropic-skills:")):
                    return Outcome(
                        f"the {label} '{value}' is reserved by Claude Code; the skill does not load",
                        value_span(view, "name", package) if label == "name" else frontmatter_start(package),
                    )
            return None
        if name:
            word = next((w for w in ("anthropic", "claude") if w in name.lower()), None)
            if word:
                return Outcome(
                    f"`name` '{name}' contains the reserved word '{word}', reported to be refused by claude.ai and the Skills API",
                    value_span(view, "name", package),
                )
        return None


RULES = [NameMissing, NameNotString, NameTooLong, NameInvalidChars, NameHyphenPlacement, NameFolderMismatch, NameReserved]
