"""SL12x: the other frontmatter fields: unknown keys, version, compatibility, metadata, allowed-tools, client-specific keys."""

from __future__ import annotations

import functools
from typing import Iterator

from ...diagnostics import Finding, Severity
from ...skill.package import FrontmatterView, SkillPackage
from ...rule import FieldRule, Outcome, Rule, RuleContext, emit, severities
from ...targets import Target
from ...targets.base import CLAUDE_CODE_KEYS
from ...targets.claude_code import read_bool as _cc_bool


class UnknownKey(Rule):
    code = "SL121"
    name = "unknown-key"
    summary = "A frontmatter key that no selected target knows"
    severity = severities(
        "error: skills-ref claude-api codex-validator; warning: agentskills; info: claude-code codex opencode"
    )

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        from ...skill.fields.field_checks import MAX_SUGGESTIONS, SPECIFIC_KEYS, UNKNOWN_EFFECT, key_policy, keys_by_target, suggest, unexpected_fields, unknown_key_message

        all_selected = ctx.settings.targets_for(package) if ctx.settings else ctx.targets
        by_id = {t.id: t for t in ctx.targets}
        suggested = 0
        texts: dict[int, str] = {}

        def ref_text(view: FrontmatterView) -> str:  # one sentence per view, not per key (5,000 keys)
            if id(view) not in texts:
                texts[id(view)] = unexpected_fields(view.mapping)
            return texts[id(view)]

        for key, readers in keys_by_target(package, ctx.targets).items():
            # `version` is SL122's; a key one selected target accepts is SL127's.
            if key in SPECIFIC_KEYS or any(key in t.accepted_keys for t in all_selected):
                continue
            hint = suggest(key) if suggested < MAX_SUGGESTIONS else None  # once per key, not per target
            suggested += 1
            per_target: dict[str, Outcome | None] = {}
            for target_id, (view, key_node) in readers.items():
                policy = key_policy(by_id[target_id], key)
                if policy in (None, "accept"):
                    continue
                per_target[target_id] = Outcome(
                    unknown_key_message(key),
                    view.span(key_node),
                    effect=UNKNOWN_EFFECT[policy],
                    hint=hint,
                    ref_message=ref_text(view) if by_id[target_id].reference_validator else None,
                )
            yield from emit(per_target)


class TopLevelVersion(FieldRule):
    code = "SL122"
    name = "top-level-version"
    summary = "`version` at the top level instead of under `metadata`"
    severity = severities(
        "error: skills-ref claude-api codex-validator; warning: agentskills; info: claude-code codex opencode"
    )
    fixable = "safe"

    def prepare(self, package: SkillPackage, ctx: RuleContext) -> tuple:
        from ...skill.fields import frontmatter_fixes

        fix = functools.cache(lambda: frontmatter_fixes.move_version(package))
        return (fix,)

    def judge(self, target: Target, view: FrontmatterView, mapping: dict, package: SkillPackage, ctx: RuleContext, fix) -> Outcome | None:
        from ...skill.fields.field_checks import key_span, unexpected_fields

        if "version" not in mapping:
            return None
        effect = {"reject": "rejected as an unexpected key", "ignore": "ignored"}.get(
            target.unknown_keys or "", "not a field of the specification"
        )
        return Outcome(
            "top-level `version` belongs under `metadata` as `metadata.version`",
            key_span(view, "version", package),
            effect=effect,
            ref_message=unexpected_fields(mapping),
            fix=fix(),
        )


class CompatibilityInvalid(FieldRule):
    code = "SL123"
    name = "compatibility-invalid"
    summary = "`compatibility` is not a string, empty, or over 500 characters"
    severity = severities("error: agentskills skills-ref claude-api; warning: claude-code")

    def judge(self, target: Target, view: FrontmatterView, mapping: dict, package: SkillPackage, ctx: RuleContext) -> Outcome | None:
        from ...skill.fields.field_checks import describe_type, value_span

        if "compatibility" not in mapping:
            return None
        value = mapping["compatibility"]
        span = value_span(view, "compatibility", package)
        if target.quick_validate and not value:
            return None  # quick_validate checks it only when truthy
        if not target.lenient_loader and not isinstance(value, str):
            return Outcome(
                f"`compatibility` must be a string, but it is {describe_type(value)}",
                span,
                ref_message="Field 'compatibility' must be a string",
            )
        if not isinstance(value, str):
            return None
        if len(value) > 500:
            return Outcome(
                f"`compatibility` is {len(value)} characters, over the 500-character limit",
                span,
                ref_message=f"Compatibility exceeds 500 character limit ({len(value)} chars)",
            )
        if target.requires_compatibility_text and not value.strip():
            return Outcome("`compatibility` is empty; the specification asks for 1-500 characters", span)
        return None


class MetadataInvalid(FieldRule):
    code = "SL124"
    name = "metadata-invalid"
    summary = "`metadata` is not a mapping of strings to strings"
    # skills-ref does not check metadata at all (S-REF): for it both cases are
    # advice only, so its verdict stays the validator's (an error was once planned;
    # the evidence wins).
    severity = severities("error: agentskills codex; warning: claude-code; info: skills-ref")
    fixable = "safe"

    def prepare(self, package: SkillPackage, ctx: RuleContext) -> tuple:
        from ...skill.fields import frontmatter_fixes

        fix = functools.cache(lambda: frontmatter_fixes.quote_metadata_values(package))
        return (fix,)

    def judge(self, target: Target, view: FrontmatterView, mapping: dict, package: SkillPackage, ctx: RuleContext, fix) -> Outcome | None:
        from ...skill.fields.field_checks import describe_type, value_span

        if "metadata" not in mapping:
            return None
        value = mapping["metadata"]
        span = value_span(view, "metadata", package)
        if not isinstance(value, dict):
            if target.reference_validator and value == "":
                return None
            effect = None
            if target.lenient_loader:
                effect = f"{target.called} drops it"
            elif target.typed_frontmatter:
                effect = f"{target.called} fails to load the skill"
            return Outcome(f"`metadata` must be a mapping, but it is {describe_type(value)}", span, effect=effect)
        if not target.checks_metadata_values:
            return None
        pair = view.key_node("metadata")
        for key, item in value.items():
            if isinstance(item, str):
                continue
            node_span = span
            if pair is not None and pair[1].kind == "map":
                for k_node, v_node in pair[1].deref().value:
                    if k_node.kind == "scalar" and k_node.value == str(key):
                        node_span = view.span(v_node)
            return Outcome(
                f"`metadata.{key}` is {describe_type(item)}; metadata values must be strings"
                + (" (quote it)" if not isinstance(item, (list, dict)) else ""),
                node_span,
                severity=Severity.INFO,
                fix=fix() if item is not None and not isinstance(item, (list, dict)) else None,
            )
        return None


class AllowedToolsFormat(FieldRule):
    code = "SL125"
    name = "allowed-tools-format"
    summary = "`allowed-tools` is not one space-separated string"
    severity = severities("warning: agentskills; info: skills-ref claude-api copilot")
    fixable = "safe"

    def prepare(self, package: SkillPackage, ctx: RuleContext) -> tuple:
        from ...skill.fields import frontmatter_fixes

        fix = functools.cache(lambda: frontmatter_fixes.allowed_tools_string(package))
        return (fix,)

    def judge(self, target: Target, view: FrontmatterView, mapping: dict, package: SkillPackage, ctx: RuleContext, fix) -> Outcome | None:
        from ...skill.fields import frontmatter_fixes
        from ...skill.fields.field_checks import describe_type, value_span

        if "allowed-tools" not in mapping:
            return None
        value = mapping["allowed-tools"]
        span = value_span(view, "allowed-tools", package)
        if isinstance(value, list):
            return Outcome(
                "`allowed-tools` is a list; the specification defines one space-separated string "
                "(lists are a Claude Code extension)",
                span,
                fix=fix(),
            )
        if isinstance(value, str):
            if frontmatter_fixes.commas_outside_parens(value):
                return Outcome(
                    "`allowed-tools` is comma-separated; the specification separates tools with spaces",
                    span,
                    fix=fix(),
                )
            return None
        return Outcome(f"`allowed-tools` must be a string, but it is {describe_type(value)}", span)


class ClaudeCodeFieldValue(Rule):
    code = "SL126"
    name = "claude-code-field-value"
    summary = "A Claude Code field has a value Claude Code does not accept"
    severity = severities("error: claude-code")
    MODELLED_VERSION = "2.1.218"

    _ENUMS = {
        "context": ("fork",),
        "effort": ("low", "medium", "high", "xhigh", "max"),
        "shell": ("bash", "powershell"),
    }

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        from ...skill.fields.field_checks import describe_type, key_span, value_span

        for target in ctx.targets:
            view = package.view(target)
            mapping = view.mapping
            if mapping is None:
                continue
            for key, allowed in self._ENUMS.items():
                if key in mapping and mapping[key] is not None and mapping[key] not in allowed:
                    yield Finding(
                        f"`{key}` is {mapping[key]!r}; Claude Code accepts {' | '.join(allowed)}",
                        value_span(view, key, package),
                        targets=(target.id,),
                    )
            hint = mapping.get("argument-hint")
            if hint is not None and not isinstance(hint, str):
                # `argument-hint: [file]` is a YAML list, not the text the author meant.
                yield Finding(
                    f"`argument-hint` is {describe_type(hint)}, not text; quote it (`argument-hint: \"[file]\"`)",
                    value_span(view, "argument-hint", package),
                    targets=(target.id,),
                    severities={target.id: Severity.WARNING},
                )
            paths = mapping.get("paths")
            if isinstance(paths, list) and any(not isinstance(p, str) for p in paths):
                bad = next(p for p in paths if not isinstance(p, str))
                yield Finding(
                    f"`paths` entries must be glob strings; one is {describe_type(bad)}",
                    value_span(view, "paths", package),
                    targets=(target.id,),
                )
            elif paths is not None and not isinstance(paths, (str, list)):
                yield Finding(
                    f"`paths` must be a glob string or a list of globs, not {describe_type(paths)}",
                    value_span(view, "paths", package),
                    targets=(target.id,),
                )
            for key in ("disable-model-invocation", "user-invocable", "background"):
                if key in mapping and _cc_bool(mapping[key]) is None:
                    yield Finding(
                        f"`{key}` is {mapping[key]!r}; Claude Code reads only true/false/yes/no/on/off/1/0",
                        value_span(view, key, package),
                        targets=(target.id,),
                        severities={target.id: Severity.WARNING},
                    )
            if mapping.get("context") != "fork":
                for key in ("agent", "background"):
                    if key in mapping:
                        yield Finding(
                            f"`{key}` has no effect without `context: fork`",
                            key_span(view, key, package),
                            targets=(target.id,),
                            severities={target.id: Severity.WARNING},
                        )


class ClientSpecificKey(Rule):
    code = "SL127"
    name = "client-specific-key"
    summary = "A key one selected target accepts and another rejects or ignores"
    severity = severities(
        "error: skills-ref claude-api codex-validator; warning: agentskills; info: claude-code codex opencode"
    )

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        from ...skill.fields.field_checks import POLICY_EFFECT, SPECIFIC_KEYS, key_policy, keys_by_target

        all_selected = ctx.settings.targets_for(package) if ctx.settings else ctx.targets
        by_id = {t.id: t for t in ctx.targets}
        for key, readers in keys_by_target(package, ctx.targets).items():
            if key in SPECIFIC_KEYS:
                continue
            accepting = [t.id for t in all_selected if key in t.accepted_keys]
            if not accepting:
                continue  # unknown everywhere: SL121
            concerned = [
                (target_id, key_policy(by_id[target_id], key))
                for target_id in readers
                if key_policy(by_id[target_id], key) not in (None, "accept")
            ]
            if not concerned:
                continue
            by_policy: dict[str, list[str]] = {}
            for target_id, policy in concerned:
                by_policy.setdefault(policy, []).append(target_id)
            effects = "; ".join(
                f"{POLICY_EFFECT[policy]} by {', '.join(ids)}" for policy, ids in by_policy.items()
            )
            view, key_node = readers[concerned[0][0]]
            yield Finding(
                f"`{key}` is not portable: {effects} (accepted by {', '.join(accepting)})",
                view.span(key_node),
                targets=tuple(target_id for target_id, _ in concerned),
            )


class ShortDescriptionInvalid(FieldRule):
    code = "SL128"
    name = "short-description-invalid"
    summary = "`metadata.short-description` is not a string or over 1,024 characters"
    severity = severities("error: codex")

    def judge(self, target: Target, view: FrontmatterView, mapping: dict, package: SkillPackage, ctx: RuleContext) -> Outcome | None:
        from ...skill.fields.field_checks import collapse_whitespace, describe_type, nested_value_span

        metadata = mapping.get("metadata")
        if not isinstance(metadata, dict) or "short-description" not in metadata:
            return None
        value = metadata["short-description"]
        span = nested_value_span(view, "metadata", "short-description", package)
        if value is None:
            return None  # serde_yaml reads null into Option<String> as None
        if isinstance(value, (list, dict)):
            return Outcome(
                f"`metadata.short-description` is {describe_type(value)}, not a string: Codex does not load the skill",
                span,
            )
        # serde_yaml takes any other scalar's text as the string.
        length = len(collapse_whitespace(value if isinstance(value, str) else str(value)))
        if length > 1024:
            return Outcome(
                f"`metadata.short-description` is {length:,} characters, over 1,024: Codex does not load the skill",
                span,
            )
        return None


class MetadataShadowsField(FieldRule):
    code = "SL129"
    name = "metadata-shadows-field"
    summary = "A `metadata` key named like a frontmatter field"
    severity = severities("warning: claude-code")

    def judge(self, target: Target, view: FrontmatterView, mapping: dict, package: SkillPackage, ctx: RuleContext) -> Outcome | None:
        from ...skill.fields.field_checks import nested_key_span

        metadata = mapping.get("metadata")
        if not isinstance(metadata, dict):
            return None
        clash = [k for k in metadata if isinstance(k, str) and k in CLAUDE_CODE_KEYS]
        if not clash:
            return None
        names = ", ".join(f"`metadata.{k}`" for k in clash)
        verb = "is" if len(clash) == 1 else "are"
        return Outcome(
            f"{names} {verb} named like frontmatter fields; Claude Code's docs ask not to reuse field names in metadata",
            nested_key_span(view, "metadata", clash[0], package),
        )


RULES = [UnknownKey, TopLevelVersion, CompatibilityInvalid, MetadataInvalid, AllowedToolsFormat, ClaudeCodeFieldValue, ClientSpecificKey, ShortDescriptionInvalid, MetadataShadowsField]
