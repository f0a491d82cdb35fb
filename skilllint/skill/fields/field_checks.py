"""Frontmatter fields as each target's parser reads them: the spans, type words and value
checks that the SL1xx rules share."""

from __future__ import annotations

import functools
import re
from typing import Any, Iterable

from . import frontmatter_fixes
from ...diagnostics import Span
from ..package import FrontmatterView, SkillPackage, nfkc
from ...targets import TARGETS, Target
from ...targets.base import CLAUDE_CODE_KEYS, SPEC_KEYS
from ..text.yamltree import is_merge_key, merges


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

    from ..text.yamltree import Unresolvable

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
    from ..text.yamltree import type_name

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


KEBAB = re.compile(r"^[a-z0-9-]+$")


def _name_as_read(target: Target, value: str) -> str:
    """The name string a target validates (its own normalisation)."""
    if target.name_read == "nfkc":
        return nfkc(value.strip())
    if target.name_read == "collapse":
        return collapse_whitespace(value)
    if target.name_read == "strip":
        return value.strip()
    return value


def _valid_folder_name(folder: str) -> bool:
    """A folder name that is a valid `name` for every target (what a fix may set)."""
    return (
        bool(KEBAB.match(folder))
        and len(folder) <= 64
        and not folder.startswith("-")
        and not folder.endswith("-")
        and "--" not in folder
    )


def loosely(name: str) -> str:
    """A name with case, `_` and spaces set aside (SL106's fix: only such differences)."""
    return re.sub(r"[_ ]", "-", name.lower())


def name_fix(package: SkillPackage):
    """The fix setting `name` to the folder name, built once per package."""
    folder = package.folder_name
    return functools.cache(
        lambda: frontmatter_fixes.set_scalar(package, "name", folder, f"set `name` to the folder name '{folder}'", "unsafe")
        if _valid_folder_name(folder)
        else None
    )


def string_name(target: Target, mapping: dict) -> str | None:
    """The name a target goes on to validate, or None when it stops earlier."""
    value = mapping.get("name")
    if not isinstance(value, str):
        return None
    name = _name_as_read(target, value)
    return name or None


def distinct(chars: Iterable[str]) -> list[str]:
    """Each character once, in the order of its first appearance."""
    return list(dict.fromkeys(chars))


def name_characters(chars: list[str], most: int = 6) -> str:
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


# -- keys -----------------------------------------------------------------------

# Keys handled by a more specific rule (a specific rule silences the generic one on the same location).
SPECIFIC_KEYS = {"version": "SL122"}


_ALL_KNOWN_KEYS = sorted(CLAUDE_CODE_KEYS | SPEC_KEYS | {"version"})


def key_policy(target: Target, key: str) -> str | None:
    if key in target.accepted_keys:
        return "accept"
    return target.unknown_keys


MAX_SUGGESTIONS = 50  # "did you mean" for the first unknown keys only; thousands need none


@functools.lru_cache(maxsize=1024)
def suggest(key: str) -> str | None:
    if key in _ALL_KNOWN_KEYS:
        return None  # a real field of some surface; the message names its owners
    normalised = key.lower().replace("_", "-")
    for known in _ALL_KNOWN_KEYS:
        if normalised == known.replace("_", "-") and known != key:
            return f"did you mean `{known}`?"
    import difflib  # only to suggest a name (kept off a warm run's start-up)

    close = difflib.get_close_matches(key.lower(), [k for k in _ALL_KNOWN_KEYS if k != key], n=1, cutoff=0.8)
    return f"did you mean `{close[0]}`?" if close else None


def keys_by_target(package: SkillPackage, targets: tuple[Target, ...]) -> dict[str, dict[str, Any]]:
    """Each key, mapped to each applicable target that reads it (with its own
    view's key node). Judged per target: splitters disagree on where the
    frontmatter ends, so a key may exist for one parser and not another."""
    keys: dict[str, dict[str, Any]] = {}
    for target in targets:
        view = package.view(target)
        if view.mapping is None:
            continue
        for key, (key_node, value_node) in view.first_pairs().items():
            if view.semantics == "strict" and is_merge_key(key_node) and merges(value_node):
                continue  # strictyaml drops it (and what it merges)
            keys.setdefault(key, {})[target.id] = (view, key_node)
    return keys


def unexpected_fields(mapping: dict) -> str:
    """skills-ref's message: every key outside the specification, in one sentence."""
    extra = sorted({str(key) for key in mapping} - SPEC_KEYS)
    return f"Unexpected fields in frontmatter: {', '.join(extra)}. Only {sorted(SPEC_KEYS)} are allowed."


def unknown_key_message(key: str) -> str:
    """Name the surfaces that do know the key; otherwise it is unknown."""
    owners = [t.id for t in TARGETS.values() if key in t.accepted_keys]
    if owners:
        return f"`{key}` is a key of {', '.join(owners)} only"
    return f"unknown key `{key}`"


UNKNOWN_EFFECT = {"reject": "rejected", "warn": "not a field of the specification", "ignore": "ignored"}


POLICY_EFFECT = {"reject": "rejected", "warn": "not defined", "ignore": "ignored"}


def lost_layout(text: str) -> str | None:
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
