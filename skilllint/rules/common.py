"""Helpers shared by the built-in rule families."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterator

from ..diagnostics import Finding, Severity, Span
from ..package import FrontmatterView, SkillPackage
from ..registry import RuleContext
from ..targets import Target

SKILLS_REF = "skills-ref"


@dataclass(frozen=True)
class Outcome:
    """One target's verdict: our message, where, and the reference validator's
    verbatim text when the target is skills-ref (RULES.md: skills-ref must
    reproduce the validator's message text)."""

    message: str
    span: Span
    ref_message: str | None = None
    severity: Severity | None = None
    fix: Any = None

    def key(self) -> tuple:
        return (self.message, self.span, self.severity)


def emit(per_target: dict[str, Outcome | None]) -> Iterator[Finding]:
    """Turn per-target outcomes into findings, one per distinct outcome.

    A group holding skills-ref alone carries the validator's verbatim message;
    a group where skills-ref joins other targets quotes it after ours.
    """
    groups: dict[tuple, list[tuple[str, Outcome]]] = {}
    for target_id, outcome in per_target.items():
        if outcome is None:
            continue
        groups.setdefault(outcome.key(), []).append((target_id, outcome))
    for members in groups.values():
        ids = tuple(target_id for target_id, _ in members)
        first = members[0][1]
        message = first.message
        ref = next((o.ref_message for t, o in members if t == SKILLS_REF and o.ref_message), None)
        if ref is not None:
            message = ref if len(ids) == 1 else f'{message} (skills-ref: "{ref}")'
        severities = {t: o.severity for t, o in members if o.severity is not None} or None
        yield Finding(message, first.span, targets=ids, severities=severities, fix=first.fix)


def for_targets(
    package: SkillPackage,
    ctx: RuleContext,
    judge: Callable[[Target, FrontmatterView, dict], Outcome | None],
) -> Iterator[Finding]:
    """Run ``judge`` for each target whose view parsed to a mapping."""
    per_target: dict[str, Outcome | None] = {}
    for target in ctx.targets:
        view = package.view(target)
        mapping = view.mapping
        if mapping is None:
            continue
        per_target[target.id] = judge(target, view, mapping)
    yield from emit(per_target)


def frontmatter_start(package: SkillPackage) -> Span:
    """The opening fence: where findings about an absent key point."""
    return Span(1, 1, 1, 4)


def key_span(view: FrontmatterView, key: str, package: SkillPackage) -> Span:
    pair = view.key_node(key)
    if pair is None:
        return frontmatter_start(package)
    return view.pair_span(*pair)


def value_span(view: FrontmatterView, key: str, package: SkillPackage) -> Span:
    pair = view.key_node(key)
    if pair is None:
        return frontmatter_start(package)
    return view.span(pair[1])


def is_blank(value: Any) -> bool:
    return isinstance(value, str) and not value.strip()


def describe_type(value: Any) -> str:
    from ..yamltree import Unresolvable

    if value is None:
        return "null"
    if isinstance(value, Unresolvable):
        return value.kind
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, dict):
        return "mapping"
    if isinstance(value, list):
        return "list"
    if isinstance(value, str):
        return "string"
    return type(value).__name__


def python_type(value: Any) -> str:
    """``type(x).__name__`` as quick_validate prints it."""
    from ..yamltree import type_name

    return type_name(value)


def collapse_whitespace(text: str) -> str:
    """Rust's ``split_whitespace().join(" ")`` as Codex applies it."""
    return " ".join(text.split())


def measure(text: str, how: str) -> int:
    if how == "strip":
        return len(text.strip())
    if how == "collapse":
        return len(collapse_whitespace(text))
    return len(text)
