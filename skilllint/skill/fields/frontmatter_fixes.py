"""The frontmatter fixes rules attach: set a scalar (SL104, SL106), move `version` under
`metadata` (SL122), quote metadata values (SL124), write `allowed-tools` as one string
(SL125), trim the description (SL113), quote a value holding ": " (SL005), drop the
byte-order mark (SL003), LF line endings (SL008). :mod:`skilllint.skill.text.yamledit` checks
each against the original frontmatter and writes it as edits that change only what it fixes."""

from __future__ import annotations

import re

from ... import lazyre
from ...diagnostics import Fix
from ...edits import LineIndex, edit
from ..text import yamltree
from ..text.yamledit import (
    BLOCK_HEADER,
    SEMANTICS,
    Frontmatter,
    comments,
    double_quoted,
    file_edits,
    frontmatter_fix,
    last_line,
    plain_ok,
    replace_node,
    simple_scalar,
    string_everywhere,
    styled,
    written_like,
)


def set_scalar(package, key: str, value: str, message: str, applicability: str) -> Fix | None:
    """Set the top-level ``key`` (a one-line scalar) to the string ``value``,
    keeping its quoting style (SL104, SL106: `name` to the folder name)."""
    fm = Frontmatter.of(package)
    pair = fm.pair(key) if fm else None
    if pair is None or not simple_scalar(pair[1]):
        return None
    node = pair[1]
    text = written_like(node, value)
    if text is None:
        return None

    def mutate(data: dict) -> None:
        data[key] = styled(node, value)

    return frontmatter_fix(package, fm, message, applicability, {key}, mutate, lambda f: replace_node(f, node, text))


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
    if not simple_scalar(value) or value.line != key.line or (value.is_plain and value.value == ""):
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
                current["version"] = styled(value, text) if value.style else _quoted(text)
        else:
            data["metadata"] = {"version": styled(value, text) if value.style else _quoted(text)}

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
        if child_key.kind != "scalar" or child_key.alias or not string_everywhere(child_key):
            continue
        if not simple_scalar(child_value) or not child_value.is_plain or child_value.value == "":
            continue
        if string_everywhere(child_value):
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
        if not items or not all(simple_scalar(i) and string_everywhere(i) for i in items):
            return None
        tools = [i.value for i in items]
    elif value.kind == "scalar" and simple_scalar(value) and string_everywhere(value):
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
        data["allowed-tools"] = styled(value, joined) if value.kind == "scalar" else (
            joined if plain_ok(joined) else _quoted(joined)
        )

    def textual(f: Frontmatter) -> str | None:
        if value.kind == "scalar" or value.flow:
            if value.line != value.end_line:
                return None
            return replace_node(f, value, written)
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
    body_start = len(BLOCK_HEADER.match(source).group()) if block else 0
    closing = value.style if value.style in ("'", '"') else ""
    for match in reversed(list(_SENTENCE_END.finditer(source, body_start))):
        if match.end() - body_start > 10 * limit + 16:
            continue  # even written all in escapes (\UXXXXXXXX), this cut is over the limit
        cut = source[: match.end()]
        if _ABBREVIATION.search(source, max(0, match.start() - 8), match.start() + 1):
            continue
        written = cut + closing + ("\n" if block and value.end_column == 0 else "")
        new_text = replace_node(fm, value, written)
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
