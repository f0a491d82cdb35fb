"""SL20x: the size of one skill (disclosure tiers 1 and 2)."""

from __future__ import annotations

from typing import Iterator

from ...diagnostics import Finding, Span
from ...skill.package import SkillPackage
from ...rule import Option, Rule, RuleContext, severities
from ...skill.size.tokens import DEFAULT_ENCODING, SUPPORTED_ENCODINGS

_ENCODING_OPTION = {
    "encoding": Option(str, DEFAULT_ENCODING, "tiktoken encoding used to count", choices=tuple(SUPPORTED_ENCODINGS))
}


class SkillMdTooLong(Rule):
    code = "SL201"
    name = "skill-md-too-long"
    summary = "SKILL.md is over 500 lines"
    severity = severities("warning: all")
    options = {"max-lines": Option(int, 500, "most physical lines allowed", minimum=1, maximum=1_000_000)}

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        limit = ctx.options["max-lines"]
        lines = package.line_count
        if lines > limit:
            yield Finding(
                f"SKILL.md is {lines:,} lines, over {limit:,}: move detail into referenced files loaded on demand",
                Span(limit + 1, 1, limit + 1, 1),
            )


class BodyTooManyTokens(Rule):
    code = "SL202"
    name = "body-too-many-tokens"
    summary = "The SKILL.md body is over 5,000 tokens"
    severity = severities("warning: all")
    options = {
        "max-tokens": Option(int, 5000, "most body tokens allowed", minimum=1, maximum=10_000_000),
        **_ENCODING_OPTION,
    }

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        from ...skill.size.tokens import count_tokens_over

        if package.truncated:
            return  # SL011 reports it; a partial count would mislead
        limit, encoding = ctx.options["max-tokens"], ctx.options["encoding"]
        count = count_tokens_over(package.body, limit, encoding)
        if count is None:
            return
        line = package.body_start_line + 1
        yield Finding(
            f"the body is {count:,} tokens ({encoding}), over {limit:,}: every activation loads all of it",
            Span(line, 1, line, 1),
        )


class CatalogEntryTooCostly(Rule):
    code = "SL203"
    name = "catalog-entry-too-costly"
    summary = "`name` + `description` cost over 100 tokens in every session's catalog"
    severity = severities("info: all")
    opt_in = True
    options = {
        "max-tokens": Option(int, 100, "most tokens for name + description", minimum=1, maximum=1_000_000),
        **_ENCODING_OPTION,
    }

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        from ...skill.fields.field_checks import frontmatter_start, value_span
        from ...skill.size.tokens import count_tokens_over

        view = package.canonical
        mapping = view.mapping
        if mapping is None:
            return
        name, description = mapping.get("name"), mapping.get("description")
        text = "\n".join(str(v) for v in (name, description) if isinstance(v, str))
        limit, encoding = ctx.options["max-tokens"], ctx.options["encoding"]
        count = count_tokens_over(text, limit, encoding) if text else None
        if count is None:
            return
        span = value_span(view, "description", package) if "description" in mapping else frontmatter_start(package)
        yield Finding(
            f"`name` + `description` are {count} tokens ({encoding}), over {limit}: every session pays for them",
            span,
        )


class UploadTooLarge(Rule):
    code = "SL204"
    name = "upload-too-large"
    summary = "The skill package is over 30 MB"
    severity = severities("warning: claude-api")
    options = {"max-bytes": Option(int, 30 * 1024 * 1024, "largest package size in bytes", minimum=1, maximum=2**40)}

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        from ...skill.size.package_size import package_bytes, readable_size

        limit = ctx.options["max-bytes"]
        total = package_bytes(package, stop_after=limit)
        if total > limit:
            yield Finding(
                f"the package is over {readable_size(limit)}; claude.ai uploads and the Skills API refuse it",
                Span(1, 1, 1, 1),
            )


class CodexPromptBytes(Rule):
    code = "SL205"
    name = "codex-prompt-bytes"
    summary = "SKILL.md is over 8,000 bytes, which Codex truncates when it injects the skill"
    severity = severities("warning: codex")
    CODEX_VERSION = "rust-v0.153.4"  # ext/skills render.rs MAX_SKILL_PROMPT_BYTES

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        size = len(package.raw)
        if size > 8000:
            yield Finding(
                f"SKILL.md is {size:,} bytes; Codex ({self.CODEX_VERSION}) injects at most 8,000 bytes of it",
                Span(1, 1, 1, 1),
            )


RULES = [SkillMdTooLong, BodyTooManyTokens, CatalogEntryTooCostly, UploadTooLarge, CodexPromptBytes]
