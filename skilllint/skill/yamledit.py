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
"""

from __future__ import annotations

import copy
import datetime
import difflib
import io
import json
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable

from . import yamltree
from .. import lazyre
from ..diagnostics import Fix
from ..edits import LineIndex, edit, edits_between

SEMANTICS = ("yaml11", "yaml12", "strict")
WIDTH = 1 << 30  # ruamel's line width: never re-wrap a long value
ROUNDTRIP_MAX_CHARS = 64 * 1024  # larger frontmatter: textual edits only (ruamel is pure Python)


# -- the frontmatter as text and tree --------------------------------------------------------


@dataclass
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


_BLOCK_HEADER = lazyre.compile(r"[|>][0-9+-]*")


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
                header = _BLOCK_HEADER.match(lines[node.line], node.column) if node.line < len(lines) else None
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


def _styled(node: yamltree.Node, value: str) -> str:
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


def _simple_scalar(node: yamltree.Node) -> bool:
    """A one-line plain or quoted scalar without tag, anchor or alias."""
    return (
        node.kind == "scalar"
        and not node.alias
        and node.anchor is None
        and node.tag is None
        and node.style not in ("|", ">")
        and node.line == node.end_line
    )


def _string_everywhere(node: yamltree.Node) -> bool:
    return all(isinstance(yamltree.resolve_scalar(node, s), str) for s in SEMANTICS)


def _replace_node(fm: Frontmatter, node: yamltree.Node, text: str) -> str:
    start, end = fm.offset(node.line, node.column), fm.offset(node.end_line, node.end_column)
    return fm.text[:start] + text + fm.text[end:]


# -- the fixes rules attach -------------------------------------------------------------------


def set_scalar(package, key: str, value: str, message: str, applicability: str) -> Fix | None:
    """Set the top-level ``key`` (a one-line scalar) to the string ``value``,
    keeping its quoting style (SL104, SL106: `name` to the folder name)."""
    fm = Frontmatter.of(package)
    pair = fm.pair(key) if fm else None
    if pair is None or not _simple_scalar(pair[1]):
        return None
    node = pair[1]
    text = written_like(node, value)
    if text is None:
        return None

    def mutate(data: dict) -> None:
        data[key] = _styled(node, value)

    return frontmatter_fix(package, fm, message, applicability, {key}, mutate, lambda f: _replace_node(f, node, text))


def _child_indent(fm: Frontmatter) -> int:
    """The indentation this frontmatter uses for nested mappings (default 2)."""
    for _, value in fm.items:
        if value.kind == "map" and not value.flow and not value.alias and value.value:
            return value.value[0][0].column
    return 2


def move_version(package) -> Fix | None:
    """SL122: top-level ``version`` → ``metadata.version`` (a string)."""
    fm = Frontmatter.of(package)
    pair = fm.pair("version") if fm else None
    if pair is None:
        return None
    key, value = pair
    if not _simple_scalar(value) or value.line != key.line or (value.is_plain and value.value == ""):
        return None
    text = value.value
    written = fm.source(value) if value.style in ("'", '"') else double_quoted(text)
    rest = fm.lines[key.line][value.end_column :]  # spaces and a comment, kept with the entry
    if rest.strip() and not rest.strip().startswith("#"):
        return None
    meta = fm.pair("metadata")
    mode, existing = "new", None
    if meta is not None:
        meta_value = meta[1]
        if meta_value.kind == "scalar" and meta_value.is_plain and meta_value.value == "" and not meta_value.alias:
            mode = "empty"
        elif meta_value.kind == "map" and not meta_value.flow and not meta_value.alias and meta_value.anchor is None:
            mode = "block"
            for child_key, child_value in meta_value.value:
                if child_key.kind == "scalar" and child_key.value == "version":
                    existing = child_value
        else:
            return None
        if existing is not None:
            if not (existing.kind == "scalar" and not existing.alias and existing.value == text):
                return None  # metadata.version says something else: the author must choose
            if rest.strip():
                return None  # dropping the line would drop its comment

    def mutate(data: dict) -> None:
        data.pop("version")
        current = data.get("metadata")
        if isinstance(current, dict):
            if "version" not in current:
                current["version"] = _styled(value, text) if value.style else _quoted(text)
        else:
            data["metadata"] = {"version": _styled(value, text) if value.style else _quoted(text)}

    indent = " " * _child_indent(fm)

    def textual(f: Frontmatter) -> str | None:
        lines = list(f.lines)
        entry = f"version: {written}{rest}"
        if mode == "new":
            lines[key.line : key.line + 1] = ["metadata:", indent + entry]
            return "\n".join(lines)
        meta_key, meta_value = meta
        if mode == "empty":
            after = lines[meta_key.line][meta_key.end_column :]
            if not re.match(r"^[ \t]*:[ \t]*(#.*)?$", after):
                return None
            insert_at, child = meta_key.line + 1, indent + entry
        else:
            insert_at = last_line(meta_value) + 1
            child = " " * meta_value.value[0][0].column + entry
        if existing is None:
            lines.insert(insert_at, child)
        removed = key.line + (1 if existing is None and key.line >= insert_at else 0)
        del lines[removed]
        return "\n".join(lines)

    message = "move `version` under `metadata` as `metadata.version`"
    if existing is not None:
        message = "remove top-level `version` (`metadata.version` already holds it)"
    return frontmatter_fix(package, fm, message, "safe", {"version", "metadata"}, mutate, textual)


def _quoted(text: str) -> str:
    from ruamel.yaml.scalarstring import DoubleQuotedScalarString

    return DoubleQuotedScalarString(text)


def quote_metadata_values(package) -> Fix | None:
    """SL124: quote the `metadata` values that parsers read as numbers,
    booleans or dates, keeping the text the author wrote."""
    fm = Frontmatter.of(package)
    pair = fm.pair("metadata") if fm else None
    if pair is None:
        return None
    meta = pair[1]
    if meta.kind != "map" or meta.flow or meta.alias or meta.anchor is not None:
        return None
    targets = []
    for child_key, child_value in meta.value:
        if child_key.kind != "scalar" or child_key.alias or not _string_everywhere(child_key):
            continue
        if not _simple_scalar(child_value) or not child_value.is_plain or child_value.value == "":
            continue
        if _string_everywhere(child_value):
            continue
        if any(yamltree.resolve_scalar(child_value, s) is None for s in SEMANTICS):
            continue  # null: quoting it would invent a value
        targets.append((child_key.value, child_value))
    if not targets:
        return None

    def mutate(data: dict) -> None:
        for name, node in targets:
            data["metadata"][name] = _quoted(node.value)

    def textual(f: Frontmatter) -> str:
        lines = list(f.lines)
        for _, node in targets:
            line = lines[node.line]
            lines[node.line] = line[: node.column] + double_quoted(node.value) + line[node.end_column :]
        return "\n".join(lines)

    names = ", ".join(f"`metadata.{name}`" for name, _ in targets)
    return frontmatter_fix(package, fm, f"quote {names}", "safe", {"metadata"}, mutate, textual)


_COMMA_OR_PAREN = lazyre.compile(r"[(),]")


def commas_outside_parens(text: str) -> list[int]:
    r"""Where ``,(?![^()]*\))`` matches: each comma whose next parenthesis is not a ")".
    Found from the right in one pass; that lookahead, from each of many commas, scans on
    to the next parenthesis."""
    commas: list[int] = []
    closing_next = False  # whether the nearest parenthesis to the right is ")"
    for match in reversed(list(_COMMA_OR_PAREN.finditer(text))):
        char = match.group()
        if char != ",":
            closing_next = char == ")"
        elif not closing_next:
            commas.append(match.start())
    return commas[::-1]


def split_outside_parens(text: str) -> list[str]:
    """``text`` split at :func:`commas_outside_parens`."""
    pieces, done = [], 0
    for comma in commas_outside_parens(text):
        pieces.append(text[done:comma])
        done = comma + 1
    pieces.append(text[done:])
    return pieces


def allowed_tools_string(package) -> Fix | None:
    """SL125: a list (or comma-separated) `allowed-tools` as one
    space-separated string, when no tool name holds whitespace outside
    parentheses."""
    fm = Frontmatter.of(package)
    pair = fm.pair("allowed-tools") if fm else None
    if pair is None:
        return None
    key, value = pair
    if value.alias or value.anchor is not None or value.tag is not None:
        return None
    if value.kind == "seq":
        items = value.value
        if not items or not all(_simple_scalar(i) and _string_everywhere(i) for i in items):
            return None
        tools = [i.value for i in items]
    elif value.kind == "scalar" and _simple_scalar(value) and _string_everywhere(value):
        tools = [t.strip() for t in split_outside_parens(value.value)]
    else:
        return None
    # `Bash(git diff:*)` is one tool (the rule book's own example); `Azure MCP/docs` would be two.
    if not all(tools) or any(re.search(r"\s", re.sub(r"\([^()]*\)", "", t)) for t in tools):
        return None
    joined = " ".join(tools)
    written = written_like(value, joined) if value.kind == "scalar" else (joined if plain_ok(joined) else double_quoted(joined))
    if written is None:
        return None

    def mutate(data: dict) -> None:
        data["allowed-tools"] = _styled(value, joined) if value.kind == "scalar" else (
            joined if plain_ok(joined) else _quoted(joined)
        )

    def textual(f: Frontmatter) -> str | None:
        if value.kind == "scalar" or value.flow:
            if value.line != value.end_line:
                return None
            return _replace_node(f, value, written)
        head = f.lines[key.line]
        match = re.match(r"^([ \t]*:)([ \t]*)(#.*)?$", head[key.end_column :])
        if match is None:
            return None
        comment = (match.group(2) or " ") + match.group(3) if match.group(3) else ""
        lines = list(f.lines)
        lines[key.line : last_line(value) + 1] = [head[: key.end_column] + match.group(1) + " " + written + comment]
        return "\n".join(lines)

    return frontmatter_fix(
        package, fm, "write `allowed-tools` as one space-separated string", "safe", {"allowed-tools"}, mutate, textual
    )


_SENTENCE_END = lazyre.compile(r"[.!?][\"')\]]*(?=\s|$)")
_ABBREVIATION = lazyre.compile(r"(?:\b(?:e\.g|i\.e|etc|vs|cf|approx|incl|esp|Mr|Mrs|Ms|Dr|St|No|Fig)|(?<!\w)[A-Za-z])\.$")


def trim_description(package, limit: int = 1024) -> Fix | None:
    """SL113 (unsafe): cut `description` at the last sentence end that brings
    it within ``limit`` characters, keeping its style and layout."""
    fm = Frontmatter.of(package)
    pair = fm.pair("description") if fm else None
    if pair is None:
        return None
    value = pair[1]
    if value.kind != "scalar" or value.alias or value.anchor is not None or value.tag is not None:
        return None
    original = yamltree.resolve_scalar(value, "yaml12")
    if not isinstance(original, str) or len(original) <= limit:
        return None
    source = fm.source(value)
    block = value.style in ("|", ">")
    body_start = len(_BLOCK_HEADER.match(source).group()) if block else 0
    closing = value.style if value.style in ("'", '"') else ""
    for match in reversed(list(_SENTENCE_END.finditer(source, body_start))):
        if match.end() - body_start > 10 * limit + 16:
            continue  # even written all in escapes (\UXXXXXXXX), this cut is over the limit
        cut = source[: match.end()]
        if _ABBREVIATION.search(source, max(0, match.start() - 8), match.start() + 1):
            continue
        written = cut + closing + ("\n" if block and value.end_column == 0 else "")
        new_text = _replace_node(fm, value, written)
        new = Frontmatter.parse(new_text)
        got = new.pair("description") if new else None
        if got is None:
            continue
        shorter = yamltree.resolve_scalar(got[1], "yaml12")
        if not isinstance(shorter, str) or not shorter.strip() or not original.startswith(shorter.rstrip()):
            continue
        if len(shorter) > limit:
            continue
        kept = shorter

        def mutate(data: dict, kept=kept) -> None:
            data["description"] = kept

        return frontmatter_fix(
            package,
            fm,
            f"cut `description` to {len(kept.rstrip()):,} characters at a sentence end (drops {len(original) - len(kept):,})",
            "unsafe",
            {"description"},
            mutate,
            lambda f, new_text=new_text: new_text,
            use_roundtrip=False,
        )
    return None


_TOP_KEY = lazyre.compile(r"^(?P<key>[A-Za-z0-9_-]+):[ \t]+(?P<rest>.*)$")
_COMMENT = lazyre.compile(r"[ \t]#")


def quote_colon_value(package, file_line: int) -> Fix | None:
    """SL005: quote a top-level plain value holding `: ` (line ``file_line``)
    so the YAML parses; a trailing comment stays a comment."""
    if not package.readable or package.truncated or package.decode_problem is not None:
        return None
    split = package.split("canonical")
    if split.status != "ok":
        return None
    lines = split.yaml.split("\n")
    index = file_line - 2
    if not 0 <= index < len(lines):
        return None
    match = _TOP_KEY.match(lines[index])
    if match is None:
        return None
    rest = match.group("rest")
    comment = _COMMENT.search(rest)
    value = rest[: comment.start()].rstrip() if comment else rest.rstrip()
    trailing = rest[len(value) :] if comment else ""
    if not value or value[0] in "'\"|>&*!%@`[{#-?:,]" or not re.search(r":(?:[ \t]|$)", value):
        return None
    if index + 1 < len(lines) and lines[index + 1][:1] in (" ", "\t") and lines[index + 1].strip():
        return None  # a value continued on the next line: quoting one line would break it
    new_lines = list(lines)
    new_lines[index] = f"{match.group('key')}: {double_quoted(value)}{trailing}"
    new_text = "\n".join(new_lines)
    try:
        document = yamltree.parse(new_text)
    except yamltree.YamlError as exc:
        if "mapping values are not allowed" not in exc.problem or exc.line <= index:
            return None  # the next such line is the next pass's
    else:
        root = document.root
        if root is None or root.kind != "map":
            return None
        got = dict((k.value, v) for k, v in root.value if k.kind == "scalar").get(match.group("key"))
        if got is None or got.value != value:
            return None
    if comments(split.yaml, None) != comments(new_text, None):
        return None
    edits = file_edits(package, lines, new_lines)
    return Fix(f"quote the value of `{match.group('key')}`", "safe", edits) if edits else None


# -- whole-file fixes --------------------------------------------------------------------------


def remove_bom(package) -> Fix | None:
    """SL003: drop the UTF-8 byte-order mark before the opening `---`."""
    if not package.readable or package.decode_problem is not None or not package.raw.startswith(b"\xef\xbb\xbf"):
        return None
    index = LineIndex(package.raw.decode("utf-8"))
    return Fix("remove the byte-order mark", "safe", (edit(package.skill_md_path, index, 0, 1, "", trim=False),))


def crlf_to_lf(package) -> Fix | None:
    """SL008: every CRLF line ending becomes LF."""
    if not package.readable or package.truncated or package.decode_problem is not None:
        return None
    text = package.raw.decode("utf-8")
    index = LineIndex(text)
    path = package.skill_md_path
    edits = tuple(edit(path, index, m.start(), m.end(), "\n", trim=False) for m in re.finditer("\r\n", text))
    if not edits:
        return None
    return Fix(f"convert {len(edits)} CRLF line ending{'s' if len(edits) != 1 else ''} to LF", "safe", edits)
