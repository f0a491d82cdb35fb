"""Helpers shared by the built-in rule families."""

from __future__ import annotations

from typing import Any, Callable, Iterator

from ..diagnostics import Finding, Span
from ..package import FrontmatterView, SkillPackage
from ..rule import Outcome, RuleContext, emit  # noqa: F401 - the rule modules import Outcome and emit from here
from ..targets import Target



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
    key_node, value_node = pair
    if value_node.kind == "scalar" and value_node.is_plain and value_node.value == "":
        return view.span(key_node)  # `key:` with no value: the empty node sits at the next token
    if value_node.kind != "scalar" and not value_node.flow and value_node.line != key_node.line:
        return view.span(key_node)  # a block list or map: its key's line says more
    return view.span(value_node)


def _nested_pair(view: FrontmatterView, key: str, subkey: str):
    pair = view.key_node(key)
    if pair is not None and pair[1].deref().kind == "map":
        for k_node, v_node in pair[1].deref().value:
            if k_node.kind == "scalar" and k_node.value == subkey:
                return k_node, v_node
    return None


def nested_value_span(view: FrontmatterView, key: str, subkey: str, package: SkillPackage) -> Span:
    """The span of ``key.subkey``'s value, else of ``key``'s value."""
    pair = _nested_pair(view, key, subkey)
    return view.span(pair[1]) if pair else value_span(view, key, package)


def nested_key_span(view: FrontmatterView, key: str, subkey: str, package: SkillPackage) -> Span:
    """The span of the ``subkey:`` key inside ``key``, else of ``key``'s value."""
    pair = _nested_pair(view, key, subkey)
    return view.span(pair[0]) if pair else value_span(view, key, package)


def is_blank(value: Any) -> bool:
    return isinstance(value, str) and not value.strip()


def describe_type(value: Any) -> str:
    """A YAML value's kind with its article: "a list", "a date", "null"."""
    import datetime

    from ..yamltree import Unresolvable

    if value is None:
        return "null"
    if isinstance(value, Unresolvable):
        return "a date" if value.kind == "timestamp" else "a number"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, (datetime.date, datetime.datetime)):
        return "a date"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    return f"a {type(value).__name__}"


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
