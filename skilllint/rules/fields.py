"""SL1xx: frontmatter fields, judged per target as each target's parser reads them."""

from __future__ import annotations

import difflib
import functools
import re
from typing import Any, Iterable, Iterator

from .. import yamledit
from ..diagnostics import Finding, Severity
from ..package import FrontmatterView, SkillPackage, nfkc
from ..registry import Rule, RuleContext, severities
from ..rule import Option
from ..targets import TARGETS, Target
from ..targets.base import CLAUDE_CODE_KEYS, SPEC_KEYS
from ..yamltree import is_merge_key, merges
from ..targets.claude_code import read_bool as _cc_bool
from ..targets.codex import plugin_namespace as codex_plugin_namespace
from .common import (
    Outcome,
    collapse_whitespace,
    describe_type,
    emit,
    for_targets,
    frontmatter_start,
    is_blank,
    key_span,
    measure,
    python_type,
    nested_key_span,
    nested_value_span,
    value_span,
)

QUICK_VALIDATE = ("claude-api", "codex-validator")
_KEBAB = re.compile(r"^[a-z0-9-]+$")


def _name_as_read(target: Target, value: str) -> str:
    """The name string a target validates (its own normalisation)."""
    if target.id == "skills-ref":
        return nfkc(value.strip())
    if target.id == "codex":
        return collapse_whitespace(value)
    if target.id in QUICK_VALIDATE:
        return value.strip()
    return value


def _valid_folder_name(folder: str) -> bool:
    """A folder name that is a valid `name` for every target (what a fix may set)."""
    return (
        bool(_KEBAB.match(folder))
        and len(folder) <= 64
        and not folder.startswith("-")
        and not folder.endswith("-")
        and "--" not in folder
    )


def _loosely(name: str) -> str:
    """A name with case, `_` and spaces set aside (SL106's fix: only such differences)."""
    return re.sub(r"[_ ]", "-", name.lower())


def _name_fix(package: SkillPackage):
    """The fix setting `name` to the folder name, built once per package."""
    folder = package.folder_name
    return functools.cache(
        lambda: yamledit.set_scalar(package, "name", folder, f"set `name` to the folder name '{folder}'", "unsafe")
        if _valid_folder_name(folder)
        else None
    )


def _string_name(target: Target, mapping: dict) -> str | None:
    """The name a target goes on to validate, or None when it stops earlier."""
    value = mapping.get("name")
    if not isinstance(value, str):
        return None
    name = _name_as_read(target, value)
    return name or None


# -- name -------------------------------------------------------------------


class NameMissing(Rule):
    code = "SL101"
    name = "name-missing"
    summary = "The frontmatter has no `name`"
    severity = severities(
        "error: agentskills skills-ref claude-api codex-validator copilot; info: claude-code codex"
    )

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        def judge(target: Target, view: FrontmatterView, mapping: dict) -> Outcome | None:
            if "name" in mapping:
                return None
            effect = (
                f"the folder name '{package.folder_name}' is used instead"
                if target.id in ("claude-code", "codex")
                else "it is required"
            )
            return Outcome(
                "the frontmatter has no `name`",
                frontmatter_start(package),
                effect=effect,
                ref_message="Missing required field in frontmatter: name",
            )

        yield from for_targets(package, ctx, judge)


class NameNotString(Rule):
    code = "SL102"
    name = "name-not-string"
    summary = "`name` is empty, blank or not a string, as the target reads it"
    severity = severities(
        "error: agentskills copilot skills-ref claude-api codex-validator; info: claude-code codex"
    )

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        def judge(target: Target, view: FrontmatterView, mapping: dict) -> Outcome | None:
            if "name" not in mapping:
                return None
            value = mapping["name"]
            span = value_span(view, "name", package)
            what = "empty" if value in ("", None) else "blank" if is_blank(value) else describe_type(value)
            if target.id in QUICK_VALIDATE:
                if isinstance(value, str):
                    return None  # quick_validate lets an empty name pass
                return Outcome(f"`name` is {what}", span, effect=f"it must be a string (got {python_type(value)})")
            if isinstance(value, str) and value.strip():
                return None
            if target.id == "codex" and isinstance(value, (list, dict)):
                # serde_yaml cannot read a collection into Option<String>: a load error.
                return Outcome(
                    f"`name` is {what}", span, effect="Codex cannot read it and does not load the skill", severity=Severity.ERROR
                )
            if target.id in ("claude-code", "codex"):
                effect = f"the folder name '{package.folder_name}' is used instead"
            else:
                effect = "it must be a non-empty string"
            return Outcome(
                f"`name` is {what}",
                span,
                effect=effect,
                ref_message="Field 'name' must be a non-empty string",
            )

        yield from for_targets(package, ctx, judge)


class NameTooLong(Rule):
    code = "SL103"
    name = "name-too-long"
    summary = "`name` is over 64 characters"
    severity = severities("error: agentskills skills-ref claude-api codex codex-validator copilot")

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        def judge(target: Target, view: FrontmatterView, mapping: dict) -> Outcome | None:
            name = _string_name(target, mapping)
            limit = target.name_max or 64
            raw = mapping.get("name")
            if name is None and target.id == "codex" and (raw is None or is_blank(raw) or raw == ""):
                name = collapse_whitespace(package.folder_name) or "skill"  # Codex's fallback is checked too
            if name is None:
                return None
            shown = ""
            if target.id == "codex":
                namespace = codex_plugin_namespace(package)
                if namespace:  # Codex checks the prefixed name
                    name, shown = f"{namespace}:{name}", f" as Codex prefixes it ('{namespace}:…')"
            if len(name) <= limit:
                return None
            return Outcome(
                f"`name` is {len(name)} characters{shown}, over the {limit}-character limit",
                value_span(view, "name", package),
                ref_message=f"Skill name '{name}' exceeds {limit} character limit ({len(name)} chars)",
            )

        yield from for_targets(package, ctx, judge)


class NameInvalidChars(Rule):
    code = "SL104"
    name = "name-invalid-chars"
    summary = "`name` has characters outside the target's allowed set"
    severity = severities("error: agentskills claude-api codex-validator copilot skills-ref; info: opencode")
    fixable = "unsafe"

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        fix = _name_fix(package)

        def judge(target: Target, view: FrontmatterView, mapping: dict) -> Outcome | None:
            name = _string_name(target, mapping)
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
                bad = _distinct(c for c in name if not (c.isalnum() or c == "-"))
                if bad:
                    outcomes.append(
                        Outcome(
                            f"`name` '{name}': {_chars(bad)} {'is' if len(bad) == 1 else 'are'} not a letter, digit or hyphen",
                            span,
                            ref_message=f"Skill name '{name}' contains invalid characters. "
                            "Only letters, digits, and hyphens are allowed.",
                            fix=fix(),
                        )
                    )
                return outcomes or None
            if _KEBAB.match(name):
                return None
            bad = _distinct(c for c in name if not ("a" <= c <= "z" or "0" <= c <= "9" or c == "-"))
            upper = [c for c in bad if "A" <= c <= "Z"]
            others = [c for c in bad if not "A" <= c <= "Z"]
            parts = []
            if upper:  # one class, with the letters to write instead
                lower = ", ".join(f"'{c.lower()}'" for c in upper)
                parts.append(f"uppercase {_chars(upper)} (use {lower})")
            if others:
                parts.append(_chars(others))
            verb = "is" if len(bad) == 1 else "are"
            return Outcome(
                f"`name` '{name}' may only hold lowercase a-z, 0-9 and hyphens; {' and '.join(parts)} {verb} not allowed",
                span,
                fix=fix(),
            )

        yield from for_targets(package, ctx, judge)


def _distinct(chars: Iterable[str]) -> list[str]:
    """Each character once, in the order of its first appearance."""
    return list(dict.fromkeys(chars))


def _chars(chars: list[str], most: int = 6) -> str:
    """Name each offending character: a name such as `My Skill.v2` has a space, a
    dot and capitals, and a message naming only the first leaves the author to
    find the rest one run at a time."""
    shown = [_char(c) for c in chars[:most]]
    if len(chars) > most:
        shown.append(f"{len(chars) - most} more")
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]


def _char(c: str) -> str:
    if c == " ":
        return "a space"
    if c.isprintable():
        return f"'{c}'"
    return f"U+{ord(c):04X}"


class NameHyphenPlacement(Rule):
    code = "SL105"
    name = "name-hyphen-placement"
    summary = "`name` starts or ends with a hyphen, or holds `--`"
    severity = severities("error: agentskills skills-ref claude-api codex-validator copilot")

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        def judge(target: Target, view: FrontmatterView, mapping: dict) -> Outcome | None:
            name = _string_name(target, mapping)
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

        yield from for_targets(package, ctx, judge)


class NameFolderMismatch(Rule):
    code = "SL106"
    name = "name-folder-mismatch"
    summary = "`name` differs from the skill's folder name"
    severity = severities("error: skills-ref copilot; warning: agentskills claude-code codex; info: opencode")
    fixable = "unsafe"

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        folder = package.folder_name
        fix = _name_fix(package)

        def judge(target: Target, view: FrontmatterView, mapping: dict) -> Outcome | None:
            name = _string_name(target, mapping)
            if name is None or nfkc(name) == nfkc(folder):
                return None
            shown = nfkc(name) if target.id == "skills-ref" else name
            return Outcome(
                f"`name` '{name}' does not match the folder name '{folder}'",
                value_span(view, "name", package),
                ref_message=f"Directory name '{folder}' must match skill name '{shown}'",
                # Only a name that differs in case, `_` or spaces is surely the folder's.
                fix=fix() if _loosely(name) == _loosely(folder) else None,
            )

        yield from for_targets(package, ctx, judge)


class NameReserved(Rule):
    code = "SL107"
    name = "name-reserved"
    summary = "A reserved folder name or a reserved word in `name`"
    severity = severities("error: claude-code; warning: claude-api")

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        folder = package.folder_name

        def judge(target: Target, view: FrontmatterView, mapping: dict) -> Outcome | None:
            name = mapping.get("name") if isinstance(mapping.get("name"), str) else None
            if target.id == "claude-code":
                # Both folder rules cover enterprise, personal and project skills, not plugin skills (S-CC).
                in_plugin = package.ancestor_with(".claude-plugin", "plugin.json") is not None
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

        yield from for_targets(package, ctx, judge)


# -- description --------------------------------------------------------------


class DescriptionMissing(Rule):
    code = "SL111"
    name = "description-missing"
    summary = "The frontmatter has no `description`"
    severity = severities("error: all; warning: claude-code")

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        def judge(target: Target, view: FrontmatterView, mapping: dict) -> Outcome | None:
            if "description" in mapping:
                return None
            effect = (
                "Claude Code lists the skill with its first body line instead"
                if target.id == "claude-code"
                else "it is required (agents choose skills by it)"
            )
            return Outcome(
                "the frontmatter has no `description`",
                frontmatter_start(package),
                effect=effect,
                ref_message="Missing required field in frontmatter: description",
            )

        yield from for_targets(package, ctx, judge)


class DescriptionNotString(Rule):
    code = "SL112"
    name = "description-not-string"
    summary = "`description` is empty, blank or not a string, as the target reads it"
    severity = severities("error: all; warning: claude-code")

    _REQUIRE_CONTENT = ("agentskills", "skills-ref", "codex", "copilot")

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        def judge(target: Target, view: FrontmatterView, mapping: dict) -> Outcome | None:
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
            if value.strip() or target.id not in self._REQUIRE_CONTENT:
                return None
            return Outcome(
                f"`description` is {'empty' if not value else 'blank'}",
                span,
                effect="agents choose skills by it",
                ref_message="Field 'description' must be a non-empty string",
            )

        yield from for_targets(package, ctx, judge)


class DescriptionTooLong(Rule):
    code = "SL113"
    name = "description-too-long"
    summary = "`description` is over 1,024 characters"
    severity = severities("error: agentskills skills-ref claude-api codex codex-validator copilot")
    fixable = "unsafe"

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        fix = functools.cache(lambda: yamledit.trim_description(package))

        def judge(target: Target, view: FrontmatterView, mapping: dict) -> Outcome | None:
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

        yield from for_targets(package, ctx, judge)


class DescriptionAngleBrackets(Rule):
    code = "SL114"
    name = "description-angle-brackets"
    summary = "`description` contains `<` or `>`"
    severity = severities("error: claude-api codex-validator")

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        def judge(target: Target, view: FrontmatterView, mapping: dict) -> Outcome | None:
            value = mapping.get("description")
            if not isinstance(value, str) or not value.strip():
                return None
            if "<" not in value and ">" not in value:
                return None
            return Outcome(
                "`description` contains an angle bracket (`<` or `>`), which this validator refuses",
                value_span(view, "description", package),
            )

        yield from for_targets(package, ctx, judge)


class DescriptionListingCap(Rule):
    code = "SL115"
    name = "description-listing-cap"
    summary = "`description` + `when_to_use` is cut in Claude Code's skill listing"
    severity = severities("warning: claude-code")
    options = {"max-chars": Option(int, 1536, "skillListingMaxDescChars", minimum=1, maximum=1_000_000)}

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        limit = ctx.options["max-chars"]

        def judge(target: Target, view: FrontmatterView, mapping: dict) -> Outcome | None:
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

        yield from for_targets(package, ctx, judge)


# -- keys -----------------------------------------------------------------------

# Keys handled by a more specific rule (a specific rule silences the generic one on the same location).
_SPECIFIC_KEYS = {"version": "SL122"}

_ALL_KNOWN_KEYS = sorted(CLAUDE_CODE_KEYS | SPEC_KEYS | {"version"})


def _key_policy(target: Target, key: str) -> str | None:
    if key in target.accepted_keys:
        return "accept"
    return target.unknown_keys


MAX_SUGGESTIONS = 50  # "did you mean" for the first unknown keys only; thousands need none


@functools.lru_cache(maxsize=1024)
def _suggest(key: str) -> str | None:
    if key in _ALL_KNOWN_KEYS:
        return None  # a real field of some surface; the message names its owners
    normalised = key.lower().replace("_", "-")
    for known in _ALL_KNOWN_KEYS:
        if normalised == known.replace("_", "-") and known != key:
            return f"did you mean `{known}`?"
    close = difflib.get_close_matches(key.lower(), [k for k in _ALL_KNOWN_KEYS if k != key], n=1, cutoff=0.8)
    return f"did you mean `{close[0]}`?" if close else None


def _keys_by_target(package: SkillPackage, ctx: RuleContext) -> dict[str, dict[str, Any]]:
    """Each key, mapped to each applicable target that reads it (with its own
    view's key node). Judged per target: splitters disagree on where the
    frontmatter ends, so a key may exist for one parser and not another."""
    keys: dict[str, dict[str, Any]] = {}
    for target in ctx.targets:
        view = package.view(target)
        if view.mapping is None:
            continue
        for key, (key_node, value_node) in view.first_pairs().items():
            if view.semantics == "strict" and is_merge_key(key_node) and merges(value_node):
                continue  # strictyaml drops it (and what it merges)
            keys.setdefault(key, {})[target.id] = (view, key_node)
    return keys


def _unexpected_fields(mapping: dict) -> str:
    """skills-ref's message: every key outside the specification, in one sentence."""
    extra = sorted({str(key) for key in mapping} - SPEC_KEYS)
    return f"Unexpected fields in frontmatter: {', '.join(extra)}. Only {sorted(SPEC_KEYS)} are allowed."


def _unknown_key_message(key: str) -> str:
    """Name the surfaces that do know the key; otherwise it is unknown."""
    owners = [t.id for t in TARGETS.values() if key in t.accepted_keys]
    if owners:
        return f"`{key}` is a key of {', '.join(owners)} only"
    return f"unknown key `{key}`"


class UnknownKey(Rule):
    code = "SL121"
    name = "unknown-key"
    summary = "A frontmatter key that no selected target knows"
    severity = severities(
        "error: skills-ref claude-api codex-validator; warning: agentskills; info: claude-code codex opencode"
    )

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        all_selected = ctx.settings.targets_for(package) if ctx.settings else ctx.targets
        by_id = {t.id: t for t in ctx.targets}
        suggested = 0
        texts: dict[int, str] = {}

        def ref_text(view: FrontmatterView) -> str:  # one sentence per view, not per key (5,000 keys)
            if id(view) not in texts:
                texts[id(view)] = _unexpected_fields(view.mapping)
            return texts[id(view)]

        for key, readers in _keys_by_target(package, ctx).items():
            # `version` is SL122's; a key one selected target accepts is SL127's.
            if key in _SPECIFIC_KEYS or any(key in t.accepted_keys for t in all_selected):
                continue
            hint = _suggest(key) if suggested < MAX_SUGGESTIONS else None  # once per key, not per target
            suggested += 1
            per_target: dict[str, Outcome | None] = {}
            for target_id, (view, key_node) in readers.items():
                policy = _key_policy(by_id[target_id], key)
                if policy in (None, "accept"):
                    continue
                per_target[target_id] = Outcome(
                    _unknown_key_message(key),
                    view.span(key_node),
                    effect=_UNKNOWN_EFFECT[policy],
                    hint=hint,
                    ref_message=ref_text(view) if target_id == "skills-ref" else None,
                )
            yield from emit(per_target)


_UNKNOWN_EFFECT = {"reject": "rejected", "warn": "not a field of the specification", "ignore": "ignored"}


class TopLevelVersion(Rule):
    code = "SL122"
    name = "top-level-version"
    summary = "`version` at the top level instead of under `metadata`"
    severity = severities(
        "error: skills-ref claude-api codex-validator; warning: agentskills; info: claude-code codex opencode"
    )
    fixable = "safe"

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        fix = functools.cache(lambda: yamledit.move_version(package))

        def judge(target: Target, view: FrontmatterView, mapping: dict) -> Outcome | None:
            if "version" not in mapping:
                return None
            effect = {"reject": "rejected as an unexpected key", "ignore": "ignored"}.get(
                target.unknown_keys or "", "not a field of the specification"
            )
            return Outcome(
                "top-level `version` belongs under `metadata` as `metadata.version`",
                key_span(view, "version", package),
                effect=effect,
                ref_message=_unexpected_fields(mapping),
                fix=fix(),
            )

        yield from for_targets(package, ctx, judge)


class CompatibilityInvalid(Rule):
    code = "SL123"
    name = "compatibility-invalid"
    summary = "`compatibility` is not a string, empty, or over 500 characters"
    severity = severities("error: agentskills skills-ref claude-api; warning: claude-code")

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        def judge(target: Target, view: FrontmatterView, mapping: dict) -> Outcome | None:
            if "compatibility" not in mapping:
                return None
            value = mapping["compatibility"]
            span = value_span(view, "compatibility", package)
            if target.id == "claude-api" and not value:
                return None  # quick_validate checks it only when truthy
            if target.id != "claude-code" and not isinstance(value, str):
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
            if target.id == "agentskills" and not value.strip():
                return Outcome("`compatibility` is empty; the specification asks for 1-500 characters", span)
            return None

        yield from for_targets(package, ctx, judge)


class MetadataInvalid(Rule):
    code = "SL124"
    name = "metadata-invalid"
    summary = "`metadata` is not a mapping of strings to strings"
    # skills-ref does not check metadata at all (S-REF): for it both cases are
    # advice only, so its verdict stays the validator's (an error was once planned;
    # the evidence wins).
    severity = severities("error: agentskills codex; warning: claude-code; info: skills-ref")
    fixable = "safe"

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        fix = functools.cache(lambda: yamledit.quote_metadata_values(package))

        def judge(target: Target, view: FrontmatterView, mapping: dict) -> Outcome | None:
            if "metadata" not in mapping:
                return None
            value = mapping["metadata"]
            span = value_span(view, "metadata", package)
            if not isinstance(value, dict):
                if target.id in ("skills-ref",) and value == "":
                    return None
                effect = {
                    "claude-code": "Claude Code drops it",
                    "codex": "Codex fails to load the skill",
                }.get(target.id)
                return Outcome(f"`metadata` must be a mapping, but it is {describe_type(value)}", span, effect=effect)
            if target.id not in ("agentskills", "skills-ref"):
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

        yield from for_targets(package, ctx, judge)


class AllowedToolsFormat(Rule):
    code = "SL125"
    name = "allowed-tools-format"
    summary = "`allowed-tools` is not one space-separated string"
    severity = severities("warning: agentskills; info: skills-ref claude-api copilot")
    fixable = "safe"

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        fix = functools.cache(lambda: yamledit.allowed_tools_string(package))

        def judge(target: Target, view: FrontmatterView, mapping: dict) -> Outcome | None:
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
                if yamledit.commas_outside_parens(value):
                    return Outcome(
                        "`allowed-tools` is comma-separated; the specification separates tools with spaces",
                        span,
                        fix=fix(),
                    )
                return None
            return Outcome(f"`allowed-tools` must be a string, but it is {describe_type(value)}", span)

        yield from for_targets(package, ctx, judge)


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
        all_selected = ctx.settings.targets_for(package) if ctx.settings else ctx.targets
        by_id = {t.id: t for t in ctx.targets}
        for key, readers in _keys_by_target(package, ctx).items():
            if key in _SPECIFIC_KEYS:
                continue
            accepting = [t.id for t in all_selected if key in t.accepted_keys]
            if not accepting:
                continue  # unknown everywhere: SL121
            concerned = [
                (target_id, _key_policy(by_id[target_id], key))
                for target_id in readers
                if _key_policy(by_id[target_id], key) not in (None, "accept")
            ]
            if not concerned:
                continue
            by_policy: dict[str, list[str]] = {}
            for target_id, policy in concerned:
                by_policy.setdefault(policy, []).append(target_id)
            effects = "; ".join(
                f"{_POLICY_EFFECT[policy]} by {', '.join(ids)}" for policy, ids in by_policy.items()
            )
            view, key_node = readers[concerned[0][0]]
            yield Finding(
                f"`{key}` is not portable: {effects} (accepted by {', '.join(accepting)})",
                view.span(key_node),
                targets=tuple(target_id for target_id, _ in concerned),
            )


_POLICY_EFFECT = {"reject": "rejected", "warn": "not defined", "ignore": "ignored"}


class ShortDescriptionInvalid(Rule):
    code = "SL128"
    name = "short-description-invalid"
    summary = "`metadata.short-description` is not a string or over 1,024 characters"
    severity = severities("error: codex")

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        def judge(target: Target, view: FrontmatterView, mapping: dict) -> Outcome | None:
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

        yield from for_targets(package, ctx, judge)


class MetadataShadowsField(Rule):
    code = "SL129"
    name = "metadata-shadows-field"
    summary = "A `metadata` key named like a frontmatter field"
    severity = severities("warning: claude-code")

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        def judge(target: Target, view: FrontmatterView, mapping: dict) -> Outcome | None:
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

        yield from for_targets(package, ctx, judge)


class NeverInvocable(Rule):
    code = "SL130"
    name = "never-invocable"
    summary = "`disable-model-invocation: true` with `user-invocable: false`"
    severity = severities("warning: claude-code copilot")

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
        def judge(target: Target, view: FrontmatterView, mapping: dict) -> Outcome | None:
            if _cc_bool(mapping.get("disable-model-invocation", False)) is True and _cc_bool(
                mapping.get("user-invocable", True)
            ) is False:
                return Outcome(
                    "`disable-model-invocation: true` with `user-invocable: false`: neither the model nor the user can call this skill",
                    key_span(view, "disable-model-invocation", package),
                )
            return None

        yield from for_targets(package, ctx, judge)


class WhitespaceCollapsed(Rule):
    code = "SL131"
    name = "whitespace-collapsed"
    summary = "Newlines or runs of spaces in `name` or `description` that Codex collapses"
    severity = severities("info: codex")

    def check(self, package: SkillPackage, ctx: RuleContext) -> Iterator[Finding]:
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
                    lost = _lost_layout(stripped)
                    if lost is None:
                        continue  # wrapped prose or doubled spaces read the same on one line
                    message = f"`description` lays out {lost} on separate lines; Codex joins them into one run-on line"
                yield Finding(message, value_span(view, key, package), targets=(target.id,))


def _lost_layout(text: str) -> str | None:
    """What line structure a one-line rendering loses: list items, table rows or
    headings start lines of their own, and a line ending in `:` introduces the
    lines after it. Prose that is merely wrapped, or paragraphs that end in a full
    stop, read the same once joined, so they are not a loss."""
    lines = [line.strip() for line in text.splitlines()]
    for before, line in zip(lines, lines[1:]):
        if not line:
            continue
        if line[0] in "-*+•" and line[1:2] in (" ", "\t"):
            return "a list"
        if line[0].isdigit() and _ORDERED_ITEM.match(line):
            return "a numbered list"
        if line.startswith("|"):
            return "a table"
        if line.startswith("#"):
            return "headings"
        if before.endswith(":"):
            return "lines introduced by a colon"
    return None


_ORDERED_ITEM = re.compile(r"[0-9]{1,3}[.)][ \t]")


RULES = [
    NameMissing,
    NameNotString,
    NameTooLong,
    NameInvalidChars,
    NameHyphenPlacement,
    NameFolderMismatch,
    NameReserved,
    DescriptionMissing,
    DescriptionNotString,
    DescriptionTooLong,
    DescriptionAngleBrackets,
    DescriptionListingCap,
    UnknownKey,
    TopLevelVersion,
    CompatibilityInvalid,
    MetadataInvalid,
    AllowedToolsFormat,
    ClaudeCodeFieldValue,
    ClientSpecificKey,
    ShortDescriptionInvalid,
    MetadataShadowsField,
    NeverInvocable,
    WhitespaceCollapsed,
]
