"""A skill's ``agents/openai.yaml`` as Codex reads it (docs/surfaces.md §3b).

Codex's loader (openai/codex ``codex-rs/core-skills/src/loader.rs`` @ 033d1d07,
S-CX-LOAD) deserialises the file with serde_yaml into::

    interface:    {display_name, short_description, icon_small, icon_large, brand_color, default_prompt}
    dependencies: {tools: [{type, value, description, transport, command, url}]}
    policy:       {allow_implicit_invocation: bool, products: [Product]}

and fails open at two levels:

* **the whole file is ignored** (one log line, ``ignoring …: invalid openai.yaml: …``)
  when it cannot be read as UTF-8, is not YAML, or serde cannot map it onto those
  types: a mapping that is a scalar, a string field that is a list or mapping,
  ``allow_implicit_invocation`` that is not a plain ``true``/``false``, a known
  field written twice in one mapping (serde's ``duplicate field``);
* **one value is dropped** (``ignoring interface.display_name: …``) when, its
  whitespace collapsed, it is empty or over its length limit, a brand colour is
  not ``#RRGGBB``, an icon path is absolute or not under ``assets/``; a tools
  entry whose ``type`` or ``value`` is missing, empty or too long is dropped whole.

Unknown keys are ignored silently (no ``deny_unknown_fields``). serde_yaml gives
any scalar to a string field as its text (``display_name: 123`` is ``"123"``),
reads a plain null (``~``, ``null``, nothing) as absent, accepts only plain
``true``/``True``/``TRUE``/``false``/``False``/``FALSE`` as a boolean, and does
not apply ``<<`` merge keys (``<<`` is just an unknown key).

The file is found through the package inventory (a link is followed only while
it stays inside the skill) and read with :func:`skilllint.fsafe.read_capped`.
This module only models; ``skilllint/rules/openai_yaml/sl60x_openai_yaml.py`` turns the model
into findings (SL601-SL606), and :func:`implicit_invocation_allowed` tells the
Codex catalog whether the skill is listed to the model.
"""

from __future__ import annotations

import os
import posixpath
import re
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..text import yamltree
from ...diagnostics import Span
from ...fsafe import UnsafeFile, read_capped

RELPATH = "agents/openai.yaml"
EVIDENCE = "openai/codex codex-rs/core-skills/src/loader.rs @ 033d1d0741d697436d4d5527aaac8893c28b424c"

# Field tables, in serde's declaration order (loader.rs structs).
# kind: "str" (Option<String>), "path" (Option<PathBuf>), "color", "bool", "map", "tools", "products".
STRING_LIMITS = {
    "interface.display_name": 64,  # MAX_NAME_LEN
    "interface.short_description": 1024,  # MAX_SHORT_DESCRIPTION_LEN
    "interface.default_prompt": 1024,  # MAX_DEFAULT_PROMPT_LEN
    "dependencies.tools.type": 64,  # MAX_DEPENDENCY_TYPE_LEN
    "dependencies.tools.value": 1024,
    "dependencies.tools.description": 1024,
    "dependencies.tools.transport": 64,
    "dependencies.tools.command": 1024,
    "dependencies.tools.url": 1024,
}
TOP_FIELDS = {"interface": "map", "dependencies": "map", "policy": "map"}
INTERFACE_FIELDS = {
    "display_name": "str",
    "short_description": "str",
    "icon_small": "path",
    "icon_large": "path",
    "brand_color": "color",
    "default_prompt": "str",
}
DEPENDENCIES_FIELDS = {"tools": "tools"}
TOOL_FIELDS = {"type": "str", "value": "str", "description": "str", "transport": "str", "command": "str", "url": "str"}
POLICY_FIELDS = {"allow_implicit_invocation": "bool", "products": "products"}
SECTIONS = {"interface": INTERFACE_FIELDS, "dependencies": DEPENDENCIES_FIELDS, "policy": POLICY_FIELDS}
# Fields whose struct has no #[serde(default)]: a list read positionally must have exactly this many items.
_POSITIONAL_EXACT = {"interface": 6, "tools entry": 6}
_POSITIONAL_MAX = {"": 3, "dependencies": 1, "policy": 2}

_TRUE_FALSE = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_NULLS = {"", "~", "null", "Null", "NULL"}
_COLOR = re.compile(r"#[0-9A-Fa-f]{6}")
_COMMENTED_COLOR = re.compile(r"#[0-9A-Fa-f]{3,8}\b")

# Issues that make Codex ignore the whole file (serde fails, or the file is unreadable).
WHOLE_FILE = frozenset({"unreadable", "not-utf8", "syntax", "not-mapping", "duplicate", "type", "policy-type"})


@dataclass(frozen=True, eq=False, repr=False)
class Issue:
    """One thing Codex does not read as written.

    ``kind``: unreadable, not-utf8, too-large, misnamed, not-a-file, syntax,
    not-mapping, duplicate, type, unknown-key, empty, too-long, color, icon,
    tool-missing, tool-type, policy-type. ``field``: the dotted field
    (``interface.display_name``, ``dependencies.tools[1].type``), "" for the file.
    ``facts``: what the message needs (found type, value, limit, reason …).
    """

    kind: str
    field: str
    span: Span
    facts: dict = field(default_factory=dict, compare=False, hash=False)

    @property
    def whole_file(self) -> bool:
        return self.kind in WHOLE_FILE


@dataclass(eq=False, repr=False)
class OpenAIYaml:
    """What skilllint learned about the skill's agents/openai.yaml."""

    present: bool = False  # a file Codex would try to read exists
    path: Path | None = None  # where findings point (the name Codex opens)
    text: str | None = None
    issues: list[Issue] = field(default_factory=list)
    allow_implicit_invocation: bool | None = None  # as written, when a valid boolean
    checked: bool = False  # the text was read and parsed

    @property
    def ignored_by_codex(self) -> bool:
        """Codex ignores the whole file (its interface, dependencies and policy are lost)."""
        return any(issue.whole_file for issue in self.issues)

    @property
    def says_false(self) -> bool:
        """The text sets ``allow_implicit_invocation: false`` (even where Codex cannot read it)."""
        if self.allow_implicit_invocation is False:
            return True
        return bool(self.text and re.search(r"allow_implicit_invocation\s*:\s*['\"]?(?:false|False|FALSE|no|No|NO|off)\b", self.text))


_CACHE: weakref.WeakKeyDictionary[Any, OpenAIYaml] = weakref.WeakKeyDictionary()


def load(package) -> OpenAIYaml:
    """The model of ``package``'s agents/openai.yaml (read once per package)."""
    try:
        cached = _CACHE.get(package)
    except TypeError:  # an unhashable stand-in: no caching
        cached = None
    if cached is not None:
        return cached
    model = _build(package)
    try:
        _CACHE[package] = model
    except TypeError:
        pass
    return model


def implicit_invocation_allowed(package) -> bool:
    """False only when agents/openai.yaml validly says ``policy.allow_implicit_invocation: false``
    as Codex reads it; Codex then leaves the skill out of its model-visible catalog
    (``SkillLoadOutcome::allowed_skills_for_implicit_invocation``, codex-rs/core-skills/src/model.rs)
    while ``$name`` still invokes it. A file Codex cannot read counts as absent: allowed."""
    model = load(package)
    return not (model.checked and not model.ignored_by_codex and model.allow_implicit_invocation is False)


# -- reading ------------------------------------------------------------------------


def _build(package) -> OpenAIYaml:
    model = OpenAIYaml(path=Path(package.root) / RELPATH)
    inventory = package.inventory
    status, real = inventory.resolve(RELPATH)
    if status != "ok" or real is None:
        # Absent, or a link we do not follow out of the skill (SL401/SL403/SL404 report links).
        if status == "missing":
            _misnamed(package, model)
        return model
    entry = inventory.entries.get(real)
    if entry is None:
        return model
    model.present = True
    if entry.kind == "dir":
        model.issues.append(Issue("not-a-file", "", Span(1, 1, 1, 1), {"what": "folder"}))
        return model
    if entry.kind != "file":
        return model  # a FIFO or device: SL406 reports it, and nobody should open it
    try:
        result = read_capped(Path(package.root) / real, getattr(package, "max_bytes", 1024 * 1024))
    except UnsafeFile as exc:
        model.issues.append(Issue("unreadable", "", Span(1, 1, 1, 1), {"reason": str(exc)}))
        return model
    if result.truncated:
        model.issues.append(Issue("too-large", "", Span(1, 1, 1, 1), {"size": result.size, "cap": len(result.data)}))
        return model
    data = result.data
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        model.issues.append(Issue("not-utf8", "", Span(line, column, line, column + 1), {"offset": exc.start}))
        return model
    text = text.removeprefix("\ufeff")  # libyaml (serde_yaml) drops a byte-order mark at the start
    model.text = text
    try:
        document = yamltree.parse(text)
    except yamltree.TooManyNodesError as exc:  # skilllint's bound, not a YAML error: Codex reads it
        model.issues.append(Issue("too-large", "", Span(exc.line + 1, exc.column + 1, exc.line + 1, exc.column + 2), {"nodes": yamltree.MAX_NODES}))
        return model
    except yamltree.YamlError as exc:
        model.issues.append(Issue("syntax", "", Span(exc.line + 1, exc.column + 1, exc.line + 1, exc.column + 2), {"problem": exc.message}))
        return model
    model.checked = True
    try:
        _Walker(package, model, text).top(document.root)
    except yamltree.YamlError as exc:  # an alias bomb: the walk's node budget ran out
        model.issues.append(Issue("syntax", "", Span(exc.line + 1, exc.column + 1, exc.line + 1, exc.column + 2), {"problem": exc.message}))
    return model


def _misnamed(package, model: OpenAIYaml) -> None:
    """``agents/openai.yml`` or ``agents/OpenAI.yaml``: Codex opens only ``agents/openai.yaml``."""
    inventory = package.inventory
    if inventory.kind_of("agents") != "dir":
        return
    for rel, entry in inventory.entries.items():
        folder, _, name = rel.rpartition("/")
        if folder != "agents" or entry.kind not in ("file", "symlink"):
            continue
        if name.casefold() in ("openai.yaml", "openai.yml") and name != "openai.yaml":
            model.path = Path(package.root) / rel
            model.issues.append(Issue("misnamed", "", Span(1, 1, 1, 1), {"name": rel}))
            return


# -- walking the tree the way serde reads it -----------------------------------------


def _span(node: yamltree.Node) -> Span:
    line, column = node.line + 1, node.column + 1
    end_line, end_column = node.end_line + 1, node.end_column + 1
    if (end_line, end_column) <= (line, column):
        end_line, end_column = line, column + 1
    if end_line != line:  # a block collection or long scalar: highlight its first line only
        end_line, end_column = line, column + 1
    return Span(line, column, end_line, end_column)


def _is_null(node: yamltree.Node) -> bool:
    """serde_yaml's ``deserialize_option``: a plain, untagged (or ``!!null``) null scalar is None."""
    if node.kind != "scalar" or node.style is not None:
        return False
    if node.tag and not node.tag.endswith("null"):
        return False
    return node.value in _NULLS


def describe(node: yamltree.Node) -> str:
    """A node's kind with its article, for messages: "a list", "a mapping", "the string 'false'"."""
    node = node.deref()
    if node.kind == "seq":
        return "a list"
    if node.kind == "map":
        return "a mapping"
    if _is_null(node):
        return "empty"
    if node.style is not None:
        return f"the string {_quote(node.value)}"
    return f"`{_clip(node.value)}`"


def _quote(text: str) -> str:
    return "'" + _clip(text).replace("'", "\\'") + "'"


def _clip(text: str, width: int = 40) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def suggest(key: str, known) -> str | None:
    """The known field ``key`` was probably meant to be (case, ``-`` for ``_``, a typo)."""
    squashed = re.sub(r"[-_\s]", "", key).casefold()
    for name in known:
        if re.sub(r"[-_\s]", "", name).casefold() == squashed:
            return name
    import difflib  # only to suggest a name (~1.6 ms to import: kept off a warm run's start-up)

    close = difflib.get_close_matches(key.casefold(), list(known), n=1, cutoff=0.8)
    return close[0] if close else None


# Where a field that landed at the wrong level belongs.
_HOME = {name: section for section, fields in SECTIONS.items() for name in fields}
_HOME.update({name: "dependencies.tools entry" for name in TOOL_FIELDS if name not in _HOME})


class _Walker:
    def __init__(self, package, model: OpenAIYaml, text: str):
        self.package = package
        self.model = model
        self.lines = text.split("\n")
        self.budget = yamltree.MAX_EXPANDED_NODES

    def issue(self, kind: str, name: str, node: yamltree.Node, **facts) -> None:
        self.model.issues.append(Issue(kind, name, _span(node), facts))

    def _spend(self, node: yamltree.Node, through_alias: bool = False) -> None:
        """Charge a visit to the alias budget when it is one through an alias (an alias slot, or a
        key or item of a collection reached through one): nodes as written are bounded at parse time."""
        if not (through_alias or node.alias):
            return
        self.budget -= 1
        if self.budget < 0:
            raise yamltree.AliasBombError(
                f"YAML aliases expand to more than {yamltree.MAX_EXPANDED_NODES:,} nodes", node.line, node.column
            )

    # -- structure --

    def top(self, root: yamltree.Node | None) -> None:
        if root is None:
            return  # an empty file (or only comments): every field absent
        value = root.deref()
        if _is_null(value):
            return
        if value.kind != "map":
            self.model.issues.append(Issue("not-mapping", "", _span(root), {"found": describe(root)}))
            return
        pairs = self.struct(root, "", TOP_FIELDS)
        if pairs is None:
            return
        for name, (key, node) in pairs.items():
            fields = SECTIONS[name]
            inner = self.struct(node, name, fields)
            if inner is None:
                continue
            for sub, (sub_key, sub_node) in inner.items():
                self.value(f"{name}.{sub}", fields[sub], sub_key, sub_node)

    def struct(self, node: yamltree.Node, name: str, fields: dict, where: str | None = None):
        """The known fields of a serde struct written at ``node`` ({field: (key, value)}), or None.

        ``name`` is the struct's role (for serde's positional reading of a list);
        ``where`` its dotted place in the file (``dependencies.tools[0]``)."""
        where = name if where is None else where
        self._spend(node)
        value = node.deref()
        if _is_null(value):
            return None  # Option<Struct> = None, or a struct of defaults
        if value.kind != "map":
            facts = {"found": describe(node), "expected": "a mapping"}
            if value.kind == "seq":
                exact = _POSITIONAL_EXACT.get(name)
                most = _POSITIONAL_MAX.get(name)
                facts["positional"] = (exact is not None and len(value.value) == exact) or (
                    most is not None and len(value.value) <= most
                )
            self.model.issues.append(Issue("type", where, _span(node), facts))
            return None
        seen: dict[str, tuple[yamltree.Node, yamltree.Node]] = {}
        for key_node, value_node in value.value:
            self._spend(key_node, node.alias)
            k = key_node.deref()
            if k.kind != "scalar":
                continue  # a list or mapping as a key: not something anyone writes here
            dotted = f"{where}.{k.value}" if where else k.value
            if yamltree.is_merge_key(k):
                self.issue("unknown-key", dotted, key_node, key="<<", merge=True, section=where)
                continue
            if k.value not in fields:
                hint = suggest(k.value, fields)
                home = None if hint else _HOME.get(k.value)
                self.issue("unknown-key", dotted, key_node, key=k.value, suggestion=hint, home=home, section=where)
                continue
            if k.value in seen:
                first = seen[k.value][0]
                self.issue("duplicate", dotted, key_node, key=k.value, first_line=first.line + 1, section=where)
                continue
            seen[k.value] = (key_node, value_node)
        return seen

    # -- values --

    def value(self, dotted: str, kind: str, key: yamltree.Node, node: yamltree.Node) -> None:
        self._spend(node)
        value = node.deref()
        if kind == "tools":
            self.tools(dotted, key, node)
        elif kind == "products":
            self.products(dotted, node)
        elif kind == "bool":
            self.boolean(dotted, node)
        else:
            text = self.string(dotted, node)
            if text is None:
                if kind == "color" and _is_null(value):
                    self.commented_color(dotted, key, node)
                return
            if kind == "str":
                self.limited(dotted, node, text)
            elif kind == "color":
                self.color(dotted, node, text)
            elif kind == "path":
                self.icon(dotted, node, text)

    def string(self, dotted: str, node: yamltree.Node) -> str | None:
        """The text serde gives an ``Option<String>`` (None when absent or not a scalar)."""
        value = node.deref()
        if value.kind != "scalar":
            self.issue("type", dotted, node, found=describe(node), expected="a string")
            return None
        if _is_null(value):
            return None
        return value.value

    def limited(self, dotted: str, node: yamltree.Node, text: str, entry_dropped: bool = False) -> bool:
        """resolve_str: whitespace collapsed, then empty or over the limit -> dropped. True when kept."""
        collapsed = " ".join(text.split())
        generic = re.sub(r"\[\d+\]", "", dotted)
        if not collapsed:
            self.issue("empty", dotted, node, entry_dropped=entry_dropped)
            return False
        limit = STRING_LIMITS.get(generic)
        if limit is not None and len(collapsed) > limit:
            self.issue("too-long", dotted, node, length=len(collapsed), limit=limit, entry_dropped=entry_dropped,
                       collapsed=len(collapsed) != len(text))
            return False
        return True

    def boolean(self, dotted: str, node: yamltree.Node) -> None:
        value = node.deref()
        if value.kind == "scalar" and _is_null(value):
            return
        if value.kind == "scalar" and value.style is None and value.value in _TRUE_FALSE:
            if dotted == "policy.allow_implicit_invocation":
                self.model.allow_implicit_invocation = _TRUE_FALSE[value.value]
            return
        self.issue("policy-type", dotted, node, found=describe(node), value=value.value if value.kind == "scalar" else None,
                   quoted=value.kind == "scalar" and value.style is not None)

    def commented_color(self, dotted: str, key: yamltree.Node, node: yamltree.Node) -> None:
        """``brand_color: #D83A34`` unquoted: ``#`` starts a comment, so the value is empty."""
        k = key.deref()
        if k.line >= len(self.lines):
            return
        rest = self.lines[k.line][k.end_column:]
        match = re.match(r"\s*:\s*(#.*)$", rest)
        if match and _COMMENTED_COLOR.match(match.group(1)):
            start = k.end_column + match.start(1)
            width = len(match.group(1).split()[0])
            self.model.issues.append(Issue("color", dotted, Span(k.line + 1, start + 1, k.line + 1, start + 1 + width),
                                           {"reason": "comment", "value": match.group(1).split()[0]}))

    def color(self, dotted: str, node: yamltree.Node, text: str) -> None:
        """resolve_color_str: trimmed, then exactly ``#`` and six hex digits."""
        value = text.strip()
        if not value:
            self.issue("color", dotted, node, reason="empty", value=text)
        elif not _COLOR.fullmatch(value):
            self.issue("color", dotted, node, reason="format", value=value)

    def icon(self, dotted: str, node: yamltree.Node, text: str) -> None:
        """resolve_asset_path: a relative path whose first component is ``assets``."""
        if text == "":
            self.issue("icon", dotted, node, reason="empty", value=text)
            return
        if text.startswith("/"):
            self.issue("icon", dotted, node, reason="absolute", value=text)
            return
        parts = [p for p in text.split("/") if p not in ("", ".")]
        if ".." in parts:
            self.parent_icon(dotted, node, text)
            return
        if not parts or parts[0] != "assets":
            self.issue("icon", dotted, node, reason="not-assets", value=text,
                       backslash="\\" in text, case=bool(parts) and parts[0].casefold() == "assets")
            return
        rel = "/".join(parts)
        inventory = self.package.inventory
        status, real = inventory.resolve(rel)
        if status == "ok" and real is not None:
            entry = inventory.entries.get(real)
            if entry is not None and entry.kind == "dir":
                self.issue("icon", dotted, node, reason="folder", value=text)
            return
        if status == "missing":
            variants = inventory.case_variants(rel)
            self.issue("icon", dotted, node, reason="missing", value=text, rel=rel, variant=variants[0] if variants else None)
        elif status == "outside":
            self.issue("icon", dotted, node, reason="outside", value=text)
        # loop (SL404) and unknown (a skipped folder): nothing to add

    def parent_icon(self, dotted: str, node: yamltree.Node, text: str) -> None:
        """resolve_plugin_shared_asset_path: ``..`` only inside a plugin, landing under its ``assets/``."""
        plugin = self.package.ancestor_with(".codex-plugin", "plugin.json")
        if plugin is None:
            landing = posixpath.normpath(posixpath.join("skill", text)).split("/")
            if "assets" in landing[:-1]:
                return  # maybe a plugin's shared assets/ above the linted folder: skilllint cannot tell
            self.issue("icon", dotted, node, reason="dotdot", value=text)
            return
        assets = os.path.normpath(os.path.join(plugin, "assets"))
        resolved = os.path.normpath(os.path.join(self.package.root, text))
        if not (resolved + os.sep).startswith(assets + os.sep):
            self.issue("icon", dotted, node, reason="dotdot-plugin", value=text, plugin=str(plugin))
        # Under the plugin's assets/: Codex accepts it. Existence is not checked (outside the skill).

    def tools(self, dotted: str, key: yamltree.Node, node: yamltree.Node) -> None:
        value = node.deref()
        if _is_null(value):
            return
        if value.kind != "seq":
            self.issue("type", dotted, node, found=describe(node), expected="a list of tools")
            return
        for index, item in enumerate(value.value):
            name = f"{dotted}[{index}]"
            entry = item.deref()
            self._spend(item, node.alias)
            if entry.kind == "scalar" and _is_null(entry):
                self.issue("tool-missing", name, item, missing=("type", "value"))
                continue
            fields = self.struct(item, "tools entry", TOOL_FIELDS, where=name)
            if fields is None:
                continue
            self.tool(name, item, fields)

    def tool(self, name: str, item: yamltree.Node, fields: dict) -> None:
        """resolve_dependency_tool: type and value required; then the optional strings."""
        missing = tuple(f for f in ("type", "value") if f not in fields or _is_null(fields[f][1].deref()))
        kept = True
        for required in ("type", "value"):
            if required in missing:
                continue
            text = self.string(f"{name}.{required}", fields[required][1])
            if text is None or not self.limited(f"{name}.{required}", fields[required][1], text, entry_dropped=True):
                kept = False
        if missing:
            self.issue("tool-missing", name, item, missing=missing)
            kept = False
        for optional in ("description", "transport", "command", "url"):
            if optional in fields:
                text = self.string(f"{name}.{optional}", fields[optional][1])
                if text is not None:
                    self.limited(f"{name}.{optional}", fields[optional][1], text)
        if kept and "type" in fields:
            kind_node = fields["type"][1]
            kind = " ".join(str(kind_node.deref().value).split())
            if kind != "mcp":
                self.issue("tool-type", f"{name}.type", kind_node, value=kind)

    def products(self, dotted: str, node: yamltree.Node) -> None:
        value = node.deref()
        if _is_null(value):
            return
        if value.kind != "seq":
            self.issue("type", dotted, node, found=describe(node), expected="a list of product names")
            return
        for index, item in enumerate(value.value):
            self._spend(item, node.alias)
            if item.deref().kind != "scalar":
                self.issue("type", f"{dotted}[{index}]", item, found=describe(item), expected="a product name")
        # Product names themselves change between Codex versions (codex, chatgpt, atlas, …): not judged.
