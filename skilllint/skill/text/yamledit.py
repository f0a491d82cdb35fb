"""Frontmatter fixes that change only what they fix.

People format frontmatter by hand: comments, key order, quoting, long lines,
folded descriptions. A fix describes its change twice: as a mutation of the
loaded mapping (``mutate``, which says what the result must *mean*) and as a
rewrite of the affected lines (``textual``). :func:`frontmatter_fix` first
tries a ruamel.yaml round trip (quotes preserved, width unbounded so nothing
re-wraps, indentation chosen so that an unchanged load-and-dump reproduces the
text exactly, else no round trip); then it checks the result against the
original:

* it parses, to a block mapping without duplicate keys;
* every line outside the touched keys' lines is unchanged, in order (the
  lines of a key run from the key to the last line of its value; comment and
  blank lines between keys count as outside);
* every comment is still there (as a multiset of comment texts);
* under every parser's semantics (YAML 1.1, YAML 1.2, strictyaml) the
  mapping is exactly the original one with ``mutate`` applied.

ruamel re-indents block scalars and drops the comment of a key it removes, so
often the round trip fails this check; the textual rewrite is checked the same
way. Of the candidates that pass, the one changing fewest characters wins
(ruamel also re-spaces a comment after a value it changed); when none passes,
the finding gets no fix. The edits are the
line diff of the old and new frontmatter, narrowed to the characters that
change, with new lines written in the file's own line ending: LF, CRLF or CR,
and in a file that mixes them the most common one (lines the fix leaves alone
keep theirs).

The fixes themselves, which rules attach, are in :mod:`skilllint.skill.fields.frontmatter_fixes`.
"""

from __future__ import annotations

import copy
import datetime
import difflib
import io
import json
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable

from . import yamltree
from ... import lazyre
from ...diagnostics import Fix
from ...edits import LineIndex, edits_between

SEMANTICS = ("yaml11", "yaml12", "strict")
WIDTH = 1 << 30  # ruamel's line width: never re-wrap a long value
ROUNDTRIP_MAX_CHARS = 64 * 1024  # larger frontmatter: textual edits only (ruamel is pure Python)


# -- the frontmatter as text and tree --------------------------------------------------------


@dataclass(eq=False, repr=False)
class Frontmatter:
    """The canonical frontmatter of a SKILL.md that fixes may edit: YAML text
    between the fences (file lines 2 … close-1) that parses to a block mapping
    without duplicate keys."""

    text: str
    lines: list[str]
    document: yamltree.Document

    @classmethod
    def of(cls, package) -> "Frontmatter | None":
        if not package.readable or package.truncated or package.decode_problem is not None:
            return None
        split = package.split("canonical")
        if split.status != "ok" or split.close_line < 2:
            return None
        return cls.parse(split.yaml)

    @classmethod
    def parse(cls, text: str) -> "Frontmatter | None":
        if any(c in text for c in "\r\x85\u2028\u2029"):
            return None  # line breaks to YAML but not to our line split: positions would disagree
        try:
            document = yamltree.parse(text)
        except yamltree.YamlError:
            return None
        root = document.root
        if root is None or root.kind != "map" or root.flow or root.alias or document.duplicate_keys():
            return None
        return cls(text, text.split("\n"), document)

    @property
    def items(self) -> list[tuple[yamltree.Node, yamltree.Node]]:
        return self.document.root.value

    def pair(self, key: str) -> tuple[yamltree.Node, yamltree.Node] | None:
        """The top-level ``key:`` pair written as a plain or quoted string key."""
        for key_node, value_node in self.items:
            if key_node.kind == "scalar" and not key_node.alias and key_node.tag is None and key_node.value == key:
                return key_node, value_node
        return None

    def offset(self, line: int, column: int) -> int:
        return sum(len(text) + 1 for text in self.lines[:line]) + column

    def source(self, node: yamltree.Node) -> str:
        return self.text[self.offset(node.line, node.column) : self.offset(node.end_line, node.end_column)]


def last_line(node: yamltree.Node) -> int:
    """The last YAML line holding ``node``'s text (0-based).

    Block collections and block scalars end where the next token starts (the
    start of a later line); the last line of a collection is its last leaf's."""
    while True:
        if node.alias or node.flow or node.kind == "scalar" or not node.value:
            if node.kind == "scalar" and node.end_column == 0 and node.end_line > node.line:
                return node.end_line - 1
            return node.end_line
        last = node.value[-1]
        node = last[1] if node.kind == "map" else last


def key_lines(document: yamltree.Document, keys: set[str]) -> set[int]:
    """The lines of the top-level ``keys`` (key line through value's last line)."""
    lines: set[int] = set()
    for key_node, value_node in document.root.value:
        if key_node.kind == "scalar" and key_node.value in keys:
            lines.update(range(key_node.line, max(key_node.line, last_line(value_node)) + 1))
    return lines


BLOCK_HEADER = lazyre.compile(r"[|>][0-9+-]*")


def comments(text: str, document: yamltree.Document | None) -> list[str]:
    """The text of every comment (``# …`` to the end of its line), in order."""
    lines = text.split("\n")
    masked: dict[int, list[tuple[int, int]]] = {}
    if document is not None:
        for node in yamltree.walk(document.root):
            if node.kind != "scalar" or node.alias or (node.is_plain and node.value == ""):
                continue
            first = node.line
            if node.style in ("|", ">"):  # the header line holds the indicator, then maybe a comment
                header = BLOCK_HEADER.match(lines[node.line], node.column) if node.line < len(lines) else None
                masked.setdefault(node.line, []).append((node.column, header.end() if header else node.column + 1))
                first = node.line + 1
            for line in range(first, node.end_line + 1):
                start = node.column if line == node.line else 0
                end = node.end_column if line == node.end_line else len(lines[line]) if line < len(lines) else 0
                masked.setdefault(line, []).append((start, end))
    found = []
    for number, line in enumerate(lines):
        position = line.find("#")
        while position >= 0:
            if (position == 0 or line[position - 1] in " \t") and not any(
                s <= position < e for s, e in masked.get(number, ())
            ):
                found.append(line[position:].rstrip())
                break
            position = line.find("#", position + 1)
    return found


def _norm(value: Any) -> Any:
    """A comparable form of a loaded value (NaN equals NaN, dates by text)."""
    if isinstance(value, dict):
        return {repr(_norm(k)): _norm(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_norm(v) for v in value]
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, str):
        return ("str", str(value))
    if isinstance(value, (int, float)):
        return (type(value).__name__, repr(value))
    if isinstance(value, (datetime.date, datetime.datetime)):
        return ("date", value.isoformat())
    if isinstance(value, yamltree.Unresolvable):
        return (value.kind, value.text)
    return ("other", repr(value))


def verify(original: Frontmatter, new_text: str, touched: set[str], expected: dict[str, Any]) -> bool:
    """Whether ``new_text`` changes only the ``touched`` keys, keeps every
    comment, and means ``expected`` (per semantics)."""
    new = Frontmatter.parse(new_text)
    if new is None:
        return False
    old_keep = [line for i, line in enumerate(original.lines) if i not in key_lines(original.document, touched)]
    new_keep = [line for i, line in enumerate(new.lines) if i not in key_lines(new.document, touched)]
    if old_keep != new_keep:
        return False
    if Counter(comments(original.text, original.document)) != Counter(comments(new.text, new.document)):
        return False
    for semantics in SEMANTICS:
        try:
            got = yamltree.to_python(new.document.root, semantics)
        except yamltree.YamlError:
            return False
        if _norm(got) != _norm(expected[semantics]):
            return False
    return True


# -- the ruamel.yaml round trip ----------------------------------------------------------------

_INDENTS = ((2, 2, 0), (2, 4, 2), (4, 4, 0), (4, 6, 2), (4, 4, 2), (3, 3, 0), (4, 6, 4), (2, 3, 1))


def roundtrip(text: str, mutate: Callable[[dict], None]) -> str | None:
    """``text`` loaded by ruamel.yaml, mutated and dumped, or None when ruamel
    cannot reproduce the unchanged text exactly (no indentation setting fits,
    or it refuses the YAML)."""
    if len(text) > ROUNDTRIP_MAX_CHARS:
        return None
    try:
        from ruamel.yaml import YAML
        from ruamel.yaml.util import load_yaml_guess_indent
    except ImportError:  # pragma: no cover - a declared dependency
        return None
    source = text + "\n"
    try:
        loader = YAML(typ="rt")
        loader.preserve_quotes = True
        # One parse: the guess scans the text, then loads it with our loader.
        data, indent, offset = load_yaml_guess_indent(source, yaml=loader)
    except Exception:  # ruamel refuses what the other parsers read: no round trip
        return None
    candidates = []
    if indent:
        candidates.append((indent, indent + (offset or 0), offset or 0))
    candidates.extend(c for c in _INDENTS if c not in candidates)
    for mapping, sequence, dash in candidates:
        yaml = YAML(typ="rt")
        yaml.preserve_quotes = True
        yaml.width = WIDTH
        yaml.indent(mapping=mapping, sequence=sequence, offset=dash)
        try:
            out = io.StringIO()
            yaml.dump(data, out)
            if out.getvalue() != source:
                continue
            mutate(data)
            out = io.StringIO()
            yaml.dump(data, out)
        except Exception:
            return None
        result = out.getvalue()
        return result[:-1] if result.endswith("\n") else result
    return None


# -- from a new frontmatter text to a fix --------------------------------------------------------


def file_edits(package, old_lines: list[str], new_lines: list[str]) -> tuple:
    """Edits turning SKILL.md's frontmatter lines ``old_lines`` into
    ``new_lines``: unchanged lines keep their own line ending, new ones get
    the file's."""
    raw = package.raw.decode("utf-8")
    index = LineIndex(raw)
    ending = package.source.line_ending
    start, end = index.line_start(1), index.line_start(1 + len(old_lines))
    pieces = []
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            pieces.append(raw[index.line_start(1 + i1) : index.line_start(1 + i2)])
        else:
            pieces.append("".join(line + ending for line in new_lines[j1:j2]))
    new_raw = raw[:start] + "".join(pieces) + raw[end:]
    return edits_between(package.skill_md_path, raw, new_raw, index)


def frontmatter_fix(
    package,
    fm: Frontmatter,
    message: str,
    applicability: str,
    touched: set[str],
    mutate: Callable[[dict], None],
    textual: Callable[[Frontmatter], str | None] | None = None,
    use_roundtrip: bool = True,
) -> Fix | None:
    """The fix making ``mutate``'s change (see the module docstring), or None."""
    expected = {}
    try:
        for semantics in SEMANTICS:
            data = copy.deepcopy(yamltree.to_python(fm.document.root, semantics))
            mutate(data)
            expected[semantics] = data
    except (yamltree.YamlError, KeyError, TypeError, AttributeError):
        return None
    makers: list[Callable[[], str | None]] = []
    if use_roundtrip:
        makers.append(lambda: roundtrip(fm.text, mutate))
    if textual is not None:
        makers.append(lambda: textual(fm))
    best = None
    for make in makers:
        new_text = make()
        if new_text is not None and new_text != fm.text and verify(fm, new_text, touched, expected):
            edits = file_edits(package, fm.lines, new_text.split("\n"))
            size = sum(e.end - e.start + len(e.text) for e in edits)
            if edits and (best is None or size < best[0]):
                best = (size, edits)
    # Both may pass the check yet differ inside the touched lines (ruamel
    # re-spaces a comment after a changed value): the smaller change wins.
    return Fix(message, applicability, best[1]) if best else None


# -- writing scalars ---------------------------------------------------------------------------


def double_quoted(value: str) -> str:
    """``value`` as a YAML double-quoted scalar (JSON escapes are YAML escapes)."""
    return json.dumps(value, ensure_ascii=False)


def single_quoted(value: str) -> str | None:
    if any(c in value for c in "\n\r\t") or not value.isprintable():
        return None
    return "'" + value.replace("'", "''") + "'"


def plain_ok(value: str) -> bool:
    """Whether ``value`` written plain after ``key: `` reads back as that very
    string under every parser's semantics."""
    if not value or value != value.strip() or "\n" in value or not value.isprintable():
        return False
    fm = Frontmatter.parse(f"k: {value}")
    if fm is None:
        return False
    try:
        return all(yamltree.to_python(fm.document.root, s) == {"k": value} for s in SEMANTICS)
    except yamltree.YamlError:
        return False


def written_like(node: yamltree.Node, value: str) -> str | None:
    """``value`` as a scalar in ``node``'s quoting style (plain only when that
    reads back as the same string, else double-quoted); None for block styles."""
    if node.style == "'":
        return single_quoted(value) or double_quoted(value)
    if node.style == '"':
        return double_quoted(value)
    if node.style in ("|", ">"):
        return None
    return value if plain_ok(value) else double_quoted(value)


def styled(node: yamltree.Node, value: str) -> str:
    """``value`` as ruamel would keep its quoting (a str subclass)."""
    from ruamel.yaml.scalarstring import (
        DoubleQuotedScalarString,
        SingleQuotedScalarString,
    )

    if node.style == "'":
        return SingleQuotedScalarString(value)
    if node.style == '"' or not plain_ok(value):
        return DoubleQuotedScalarString(value)
    return value


def simple_scalar(node: yamltree.Node) -> bool:
    """A one-line plain or quoted scalar without tag, anchor or alias."""
    return (
        node.kind == "scalar"
        and not node.alias
        and node.anchor is None
        and node.tag is None
        and node.style not in ("|", ">")
        and node.line == node.end_line
    )


def string_everywhere(node: yamltree.Node) -> bool:
    return all(isinstance(yamltree.resolve_scalar(node, s), str) for s in SEMANTICS)


def replace_node(fm: Frontmatter, node: yamltree.Node, text: str) -> str:
    start, end = fm.offset(node.line, node.column), fm.offset(node.end_line, node.end_column)
    return fm.text[:start] + text + fm.text[end:]
