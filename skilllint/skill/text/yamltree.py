"""A position-keeping YAML tree built from ruamel.yaml parse events, and the
per-parser views of it.

Why events and not ``YAML().load``: every surface reads SKILL.md frontmatter
with a different parser (strictyaml, PyYAML, serde_yaml, a lenient JS loader).
The event stream is parser-neutral: it keeps every scalar's raw text, quoting
style, explicit tag, anchor and position, and flow style of collections. From
one parse we derive what each target's parser would see. Building the tree
ourselves also keeps us safe: the builder is iterative (a 10,000-level nesting
cannot overflow the Python stack), aliases are shared references (never
copied), and the views expand aliases under a fixed node budget, so a
"billion laughs" document is reported instead of exhausting memory. Two
bounds, two errors: a document written with more than ``MAX_NODES`` nodes is
too large to check (:class:`TooManyNodesError`); one whose aliases expand
to more than ``MAX_EXPANDED_NODES`` nodes is an alias bomb
(:class:`AliasBombError`).
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from typing import Any, Iterator

from ... import lazyre

MAX_DEPTH = 64
"""Deepest nesting of collections accepted; frontmatter never needs more."""

MAX_EXPANDED_NODES = 10_000
"""Node visits through aliases allowed when a view expands them (alias-bomb guard)."""

MAX_NODES = 20_000
"""Nodes a document may be written with (real frontmatter holds a few dozen): past this
it is not built, so that a megabyte of `[a, a, a, …]` costs no more than a real one."""


class YamlError(Exception):
    """The frontmatter is not YAML, or exceeds a safety bound.

    ``line``/``column`` are 0-based positions inside the YAML text.
    """

    def __init__(self, message: str, line: int = 0, column: int = 0, problem: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column
        self.problem = problem or message


@dataclass(eq=False, repr=False)
class Node:
    """One YAML node. Positions are 0-based (line, column) in the YAML text."""

    kind: str  # "scalar" | "map" | "seq"
    line: int
    column: int
    end_line: int
    end_column: int
    value: Any = None  # str for scalars; list[(Node, Node)] for maps; list[Node] for seqs
    style: str | None = None  # scalar quoting style: None (plain), "'", '"', "|", ">"
    tag: str | None = None  # explicit tag as written, e.g. "tag:yaml.org,2002:str"
    anchor: str | None = None
    flow: bool = False  # collection written in flow style ([a, b] / {a: b})
    alias: bool = False  # True on the key/value slot that was written as *alias
    target: "Node | None" = None  # for alias slots: the anchored node

    def deref(self) -> "Node":
        return self.target if self.alias and self.target is not None else self

    @property
    def is_plain(self) -> bool:
        return self.kind == "scalar" and self.style is None and self.tag is None


@dataclass(eq=False, repr=False)
class Document:
    """The parsed frontmatter: the root node plus facts the rules need."""

    root: Node | None
    uses_flow: list[Node] = field(default_factory=list)
    uses_anchor: list[Node] = field(default_factory=list)
    uses_tag: list[Node] = field(default_factory=list)
    _duplicates: list[tuple[Node, Node]] | None = field(default=None, repr=False)
    _strict: list[tuple[Node, str, str]] | None = field(default=None, repr=False)

    def duplicate_keys(self) -> list[tuple[Node, Node]]:
        """(repeated key node, first key node) for every mapping, in order."""
        if self._duplicates is not None:
            return self._duplicates
        found: list[tuple[Node, Node]] = []
        self._duplicates = found
        for node in walk(self.root):
            if node.kind != "map" or node.alias:
                continue
            seen: dict[str, Node] = {}
            for key_node, _ in node.value:
                if key_node.kind != "scalar":
                    continue
                first = seen.setdefault(key_node.value, key_node)
                if first is not key_node:
                    found.append((key_node, first))
        return found

    def strict_violations(self) -> list[tuple[Node, str, str]]:
        """What strictyaml (skills-ref) refuses in YAML that parses, but for
        duplicate keys (:meth:`duplicate_keys`): (node, what, strictyaml's
        words), in document order."""
        if self._strict is not None:
            return self._strict
        found: list[tuple[Node, str, str]] = []
        if self.uses_flow:
            found.append((self.uses_flow[0], "flow style (`[a, b]` or `{a: b}`)", "Found ugly disallowed JSONesque flow mapping"))
        if self.uses_anchor:
            found.append((self.uses_anchor[0], "an anchor or alias (`&x`, `*x`)", "Found confusing disallowed anchor token"))
        if self.uses_tag:
            found.append((self.uses_tag[0], "an explicit tag (`!!str`)", "Found disallowed tag tokens"))
        for node in walk(self.root):
            if node.kind != "map" or node.alias:
                continue
            for key_node, value_node in node.value:
                if key_node.kind != "scalar":
                    found.append((key_node, "a list or mapping as a key", "found unhashable key"))
                elif is_merge_key(key_node) and not merges(value_node):
                    found.append((key_node, "a `<<` merge key without a mapping", "expected a mapping or list of mappings for merging"))
            # StrictYAMLConstructor.construct_mapping: the values of one mapping
            # that are block mappings must all start at the same column.
            nested = [v for _, v in node.value if v.kind == "map" and not v.alias and not v.flow]
            uneven = next((v for v in nested if v.column != nested[0].column), None)
            if uneven is not None:
                found.append((uneven, "sibling mappings indented differently",
                              "Found mapping with indentation inconsistent with previous mapping"))
        self._strict = sorted(found, key=lambda item: (item[0].line, item[0].column))
        return self._strict

    def mapping_items(self) -> list[tuple[Node, Node]]:
        if self.root is None or self.root.kind != "map":
            return []
        return self.root.value


class TooManyNodesError(YamlError):
    """The document is written with more than MAX_NODES nodes: too large to check."""


def is_merge_key(key: Node) -> bool:
    """A plain `<<` key: YAML's merge key for ruamel, strictyaml and PyYAML."""
    return key.kind == "scalar" and key.style is None and key.tag is None and key.value == "<<"


def merges(value: Node) -> bool:
    """Whether a merge key's value can be merged (a mapping or a list of mappings)."""
    value = value.deref()
    return value.kind == "map" or (value.kind == "seq" and all(v.deref().kind == "map" for v in value.value))


def _tag_text(tag: Any) -> str | None:
    if tag is None:
        return None
    return str(tag) if not isinstance(tag, str) else tag


_RUAMEL_ONLY = ("\t", "\x85", "\u2028", "\u2029", "\ufeff")


def parse(text: str) -> Document:
    """Parse YAML text into a :class:`Document`, or raise :class:`YamlError`.

    Events come from libyaml (PyYAML's C parser) when it is available: far faster
    than ruamel's pure-Python scanner, which takes seconds on a megabyte-long plain
    scalar. The event streams agree on the whole real corpus; ruamel.yaml
    (pure Python) is the fallback.
    """
    loader = None
    # libyaml accepts a tab after `key:` where PyYAML, ruamel and strictyaml refuse it, and
    # reads U+0085/U+2028/U+2029 as line breaks and a BOM inside the text as nothing,
    # where ruamel and strictyaml keep the first three in scalars and refuse the BOM.
    if not any(c in text for c in _RUAMEL_ONLY):
        try:
            import yaml as pyyaml

            loader = pyyaml.CSafeLoader
        except (ImportError, AttributeError):
            pass
    if loader is not None:
        from yaml.reader import ReaderError

        return _build(
            text,
            pyyaml.parse(text, Loader=loader),
            pyyaml.MarkedYAMLError,
            ReaderError,
            pyyaml.YAMLError,
            byte_positions=True,
        )
    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError
    from ruamel.yaml.error import YAMLError as RuamelError
    from ruamel.yaml.reader import ReaderError as RuamelReaderError

    # "safe" rather than "rt": the round-trip scanner marks folds in ">" scalars
    # with \a characters that would leak into values; events are otherwise alike.
    yaml = YAML(typ="safe", pure=True)
    return _build(text, yaml.parse(text), MarkedYAMLError, RuamelReaderError, RuamelError, byte_positions=False)


def _build(text: str, events: Any, marked_error: type, reader_error: type, any_error: type, byte_positions: bool) -> Document:
    doc = Document(root=None)
    anchors: dict[str, Node] = {}
    # Stack of open collections: (node, pending_key or None).
    stack: list[list[Any]] = []
    documents = 0
    # libyaml places the end of a collection that closes the stream on a virtual
    # line after the text when it lacks a final newline; ruamel at the text's end.
    text_end = (text.count("\n"), len(text) - (text.rfind("\n") + 1))

    nodes = 0

    def attach(node: Node) -> None:
        nonlocal nodes
        nodes += 1
        if nodes > MAX_NODES:
            raise TooManyNodesError(f"more than {MAX_NODES:,} YAML nodes", node.line, node.column)
        if not stack:
            doc.root = node
            return
        top = stack[-1]
        parent: Node = top[0]
        if parent.kind == "seq":
            parent.value.append(node)
        elif top[1] is None:
            top[1] = node
        else:
            parent.value.append((top[1], node))
            top[1] = None

    try:
        for event in events:
            kind_name = type(event).__name__
            start, end = event.start_mark, event.end_mark
            if kind_name == "DocumentStartEvent":
                documents += 1
                if documents > 1:
                    raise YamlError(
                        "more than one YAML document in the frontmatter",
                        start.line,
                        start.column,
                    )
            elif kind_name == "ScalarEvent":
                node = Node(
                    "scalar",
                    start.line,
                    start.column,
                    end.line,
                    end.column,
                    value=event.value,
                    style=event.style or None,
                    tag=_tag_text(event.tag) if event.tag and event.tag != "!" else None,
                    anchor=event.anchor,
                )
                _register(node, doc, anchors)
                attach(node)
            elif kind_name in ("MappingStartEvent", "SequenceStartEvent"):
                if len(stack) >= MAX_DEPTH:
                    raise YamlError(
                        f"nesting deeper than {MAX_DEPTH} levels",
                        start.line,
                        start.column,
                    )
                kind = "map" if kind_name == "MappingStartEvent" else "seq"
                node = Node(
                    kind,
                    start.line,
                    start.column,
                    end.line,
                    end.column,
                    value=[],
                    tag=_tag_text(event.tag) if event.tag and not event.implicit else None,
                    anchor=event.anchor,
                    flow=bool(event.flow_style),
                )
                _register(node, doc, anchors)
                attach(node)
                stack.append([node, None])
            elif kind_name in ("MappingEndEvent", "SequenceEndEvent"):
                node = stack.pop()[0]
                node.end_line, node.end_column = min((end.line, end.column), text_end)
            elif kind_name == "AliasEvent":
                target = anchors.get(event.anchor)
                if target is None:
                    raise YamlError(
                        f"found undefined alias {event.anchor!r}", start.line, start.column
                    )
                slot = Node(
                    target.kind,
                    start.line,
                    start.column,
                    end.line,
                    end.column,
                    value=target.value,
                    alias=True,
                    target=target,
                )
                doc.uses_anchor.append(slot)
                attach(slot)
    except YamlError:
        raise
    except marked_error as exc:
        mark = exc.problem_mark or exc.context_mark
        if "maximum nesting depth" in (exc.problem or ""):  # libyaml's own bound (1,000 levels)
            line, column = (mark.line, mark.column) if mark is not None else (0, 0)
            raise YamlError(f"nesting deeper than {MAX_DEPTH} levels", line, column) from None
        line, column = (mark.line, mark.column) if mark is not None else (0, 0)
        problem = exc.problem or exc.context or "invalid YAML"
        raise YamlError(_describe(exc), line, column, problem) from None
    except reader_error as exc:
        # A character YAML does not allow (a C0 control, say): one line, at its position.
        position = exc.position
        if byte_positions:
            position = len(text.encode("utf-8")[:position].decode("utf-8", errors="ignore"))
        line = text.count("\n", 0, position)
        column = position - (text.rfind("\n", 0, position) + 1)
        char = exc.character
        shown = f"#x{char:04x}" if isinstance(char, int) else repr(char)
        problem = f"unacceptable character {shown}: {exc.reason}"
        raise YamlError(problem, line, column, problem) from None
    except any_error as exc:
        message = " ".join(str(exc).split()) or "invalid YAML"
        raise YamlError(message) from None
    except RecursionError:
        raise YamlError(f"nesting deeper than {MAX_DEPTH} levels") from None
    return doc


def _register(node: Node, doc: Document, anchors: dict[str, Node]) -> None:
    if node.anchor:
        anchors[node.anchor] = node
        doc.uses_anchor.append(node)
    if node.tag:
        doc.uses_tag.append(node)
    if node.flow:
        doc.uses_flow.append(node)


def _describe(exc: Exception) -> str:
    problem = getattr(exc, "problem", None) or ""
    context = getattr(exc, "context", None) or ""
    text = problem or context or "invalid YAML"
    if context and problem and context != problem:
        text = f"{problem} ({context})"
    return text


# ---------------------------------------------------------------------------
# Views: what each parser would hand its program.


class AliasBombError(YamlError):
    pass


# YAML 1.1 implicit resolution, as PyYAML's SafeLoader does it.
_Y11_BOOL = lazyre.compile(r"^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$")
_Y11_NULL = lazyre.compile(r"^(?:~|null|Null|NULL|)$")
_Y11_INT = lazyre.compile(
    r"^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$"
)
_Y11_FLOAT = lazyre.compile(
    r"^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?"
    r"|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
)
_TIMESTAMP = lazyre.compile(
    r"^(?:[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}"
    r"(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)$"
)
# YAML 1.2 core schema, as serde_yaml and most JavaScript loaders resolve it.
_Y12_BOOL = lazyre.compile(r"^(?:true|True|TRUE|false|False|FALSE)$")
_Y12_NULL = lazyre.compile(r"^(?:~|null|Null|NULL|)$")
_Y12_INT = lazyre.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$")
_Y12_FLOAT = lazyre.compile(r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$")


def resolve_scalar(node: Node, semantics: str) -> Any:
    """The Python value a parser with ``semantics`` gives a scalar node.

    ``strict``: every scalar is a string (strictyaml).
    ``serde``: every scalar is a string but null (serde_yaml into Option<String>).
    ``yaml11``: PyYAML safe_load (``yes`` is True, ``2026-03-06`` a date).
    ``yaml12``: the YAML 1.2 core schema (serde_yaml, JavaScript loaders).
    """
    text: str = node.value
    if semantics == "strict":
        return text
    if semantics == "serde":
        # serde_yaml into Option<String>: null is None, any other scalar's text
        # is taken as the string (S-CX-LOAD; serde_yaml de.rs deserialize_str).
        if node.is_plain and _Y12_NULL.match(text):
            return None
        return text
    if node.tag:
        tag = node.tag.rsplit(":", 1)[-1].lstrip("!")
        if tag == "str":
            return text
    if not node.is_plain and not (node.tag and node.style is None):
        return text
    if semantics == "yaml11":
        if _Y11_NULL.match(text):
            return None
        if _Y11_BOOL.match(text):
            return text.lower() in ("yes", "true", "on")
        if _Y11_INT.match(text):
            return _to_int(text)
        if _Y11_FLOAT.match(text) and text not in ("", "."):
            return _to_float(text)
        if _TIMESTAMP.match(text):
            return _to_date(text)
        return text
    if _Y12_NULL.match(text):
        return None
    if _Y12_BOOL.match(text):
        return text.lower() == "true"
    if _Y12_INT.match(text):
        return _to_int(text)
    if _Y12_FLOAT.match(text):
        return _to_float(text)
    return text


class Unresolvable:
    """Stands for a number PyYAML would produce but that we do not rebuild."""

    def __init__(self, kind: str, text: str) -> None:
        self.kind, self.text = kind, text

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"<{self.kind} {self.text}>"


def _to_int(text: str) -> Any:
    cleaned = text.replace("_", "")
    try:
        if ":" in cleaned:
            sign = -1 if cleaned.startswith("-") else 1
            total = 0
            for part in cleaned.lstrip("+-").split(":"):
                total = total * 60 + int(part)
            return sign * total
        if cleaned.lstrip("+-").startswith(("0b", "0x", "0o")):
            return int(cleaned, 0)
        if len(cleaned.lstrip("+-")) > 1 and cleaned.lstrip("+-").startswith("0"):
            return int(cleaned, 8)
        return int(cleaned)
    except ValueError:
        return Unresolvable("int", text)


def _to_float(text: str) -> Any:
    try:
        low = text.lower().replace("_", "")
        if low.endswith("inf"):
            return float("-inf") if low.startswith("-") else float("inf")
        if low.endswith("nan"):
            return float("nan")
        return float(low)
    except ValueError:
        return Unresolvable("float", text)


def _to_date(text: str) -> Any:
    try:
        if len(text) == 10:
            return datetime.date.fromisoformat(text)
        return datetime.datetime.fromisoformat(text.replace("t", "T").replace(" ", "T", 1))
    except ValueError:
        return Unresolvable("timestamp", text)


def to_python(node: Node | None, semantics: str, budget: list[int] | None = None) -> Any:
    """Build the plain Python value of ``node`` under ``semantics``.

    Aliases are expanded as a real loader would, but every node visited through
    an alias costs one unit of a shared budget; exceeding it raises
    :class:`AliasBombError`. (The nodes written in the document are bounded when
    it is built: visiting them costs nothing here.) Duplicate keys keep the last
    value (PyYAML's behaviour).
    """
    if node is None:
        return None
    if budget is None:
        budget = [MAX_EXPANDED_NODES]
    # Iterative expansion: (node, container, key, reached through an alias) work items.
    result_holder: list[Any] = [None]
    work: list[tuple[Node, Any, Any, bool]] = [(node, result_holder, 0, False)]
    while work:
        current, container, slot, expanded = work.pop()
        if expanded or current.alias:
            expanded = True
            budget[0] -= 1
            if budget[0] < 0:
                raise AliasBombError(
                    f"YAML aliases expand to more than {MAX_EXPANDED_NODES:,} nodes",
                    node.line,
                    node.column,
                )
        current = current.deref()
        if current.kind == "scalar":
            value: Any = resolve_scalar(current, semantics)
        elif current.kind == "seq":
            value = [None] * len(current.value)
            for index, child in enumerate(current.value):
                work.append((child, value, index, expanded))
        else:
            value = {}
            keyed = []
            for key_node, value_node in current.value:
                key_node = key_node.deref()
                if semantics == "strict" and is_merge_key(key_node) and merges(value_node):
                    continue  # strictyaml's .data holds neither the `<<` key nor what it merges
                key = resolve_scalar(key_node, semantics) if key_node.kind == "scalar" else _Unhashable(key_node)
                value[_hashable(key)] = None  # insertion order = first occurrence
                keyed.append((value_node, _hashable(key)))
            # Pushed in reverse so the last duplicate key is popped last and wins.
            for value_node, key in reversed(keyed):
                work.append((value_node, value, key, expanded))
        container[slot] = value
    return result_holder[0]


class _Unhashable:
    """A collection used as a mapping key: kept by identity."""

    def __init__(self, node: Node) -> None:
        self.node = node

    def __repr__(self) -> str:
        return "<complex key>"


def _hashable(key: Any) -> Any:
    try:
        hash(key)
    except TypeError:
        return repr(key)
    return key


def walk(node: Node | None) -> Iterator[Node]:
    """Every node of the tree once (alias slots are not followed)."""
    if node is None:
        return
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        if current.alias:
            continue
        if current.kind == "map":
            for key_node, value_node in reversed(current.value):
                stack.append(value_node)
                stack.append(key_node)
        elif current.kind == "seq":
            stack.extend(reversed(current.value))


def type_name(value: Any) -> str:
    """The Python type name, as quick_validate prints it (``{type(x).__name__}``)."""
    if isinstance(value, Unresolvable):
        return {"int": "int", "float": "float", "timestamp": "datetime"}[value.kind]
    return type(value).__name__
