"""``skilllint config --show`` (the settings that apply, and where each comes from) and
``skilllint check --show-files`` (the skills a run would lint, with their targets)."""

from __future__ import annotations

import json
import re
import sys
from enum import Enum
from pathlib import Path

from ..output import display_path, printable, tell

# A TOML line's table header (``[tool.skilllint]``, ``[[catalog.roots]]``) or leading key
# (``max-lines =``, ``"a.b".c =``): one token at a time, each with its own first character.
_HEADER = re.compile(r"[ \t]*\[\[?([^\]\n]*)\]")
_KEY = re.compile(r"[ \t]*((?:[A-Za-z0-9_-]+|\"(?:[^\"\\\n]|\\.)*\"|'[^'\n]*')(?:[ \t]*\.[ \t]*(?:[A-Za-z0-9_-]+|\"(?:[^\"\\\n]|\\.)*\"|'[^'\n]*'))*)[ \t]*=")
_PART = re.compile(r"[A-Za-z0-9_-]+|\"(?:[^\"\\\n]|\\.)*\"|'[^'\n]*'")


def key_lines(text: str) -> dict[tuple[str, ...], int]:
    """The 1-based line of each table header and key of a TOML text, by its dotted path
    (the first line that names it). Lines inside a multi-line string or a value that goes
    on over lines (an array) are not read as keys."""
    lines: dict[tuple[str, ...], int] = {}
    table: tuple[str, ...] = ()
    depth, string = 0, None
    for number, line in enumerate(text.splitlines(), 1):
        rest = line
        if depth == 0 and string is None:
            header = _HEADER.match(line)
            key = None if header else _KEY.match(line)
            if header:
                table = _parts(header.group(1))
                lines.setdefault(table, number)
                rest = line[header.end() :]
            elif key:
                lines.setdefault(table + _parts(key.group(1)), number)
                rest = line[key.end() :]
        depth, string = _scan(rest, depth, string)
    return lines


def _parts(dotted: str) -> tuple[str, ...]:
    return tuple(part[1:-1] if part[0] in "\"'" else part for part in _PART.findall(dotted))


def _scan(text: str, depth: int, string: str | None) -> tuple[int, str | None]:
    """(open brackets and braces, the multi-line string still open) after ``text``."""
    i, n = 0, len(text)
    while i < n:
        if string is not None:  # inside a multi-line string: look for its end
            end = text.find(string, i)
            if end < 0:
                return depth, string
            i, string = end + 3, None
            continue
        c = text[i]
        if c == "#":
            break
        if c in "\"'":
            if text.startswith(c * 3, i):
                string, i = c * 3, i + 3
                continue
            i += 1
            while i < n and text[i] != c:
                i += 2 if c == '"' and text[i] == "\\" else 1
        elif c in "[{":
            depth += 1
        elif c in "]}":
            depth = max(depth - 1, 0)
        i += 1
    return depth, string


class _Where:
    """Where a configuration's keys are: ``file:line``, or the file when the line is unknown."""

    def __init__(self, settings, cwd: Path) -> None:
        self.path = settings.config_path
        self.shown = display_path(self.path, cwd) if self.path else None
        self.prefix: tuple[str, ...] = ("tool", "skilllint") if self.path and self.path.name == "pyproject.toml" else ()
        self.lines: dict[tuple[str, ...], int] = {}
        if self.path:
            from ..fsafe import UnsafeFile, read_capped

            try:
                self.lines = key_lines(read_capped(self.path).data.decode("utf-8", errors="replace"))
            except UnsafeFile:
                pass

    def __call__(self, *keys: str) -> str:
        path = self.prefix + keys
        while len(path) > len(self.prefix):  # a key in an inline table: the line of the table's key
            if path in self.lines:
                return f"{self.shown}:{self.lines[path]}"
            path = path[:-1]
        return str(self.shown)


def _value(value) -> str:
    return json.dumps(str(value) if isinstance(value, Enum) else list(value) if isinstance(value, tuple) else value, ensure_ascii=False)


def settings_lines(settings, cwd: Path) -> list[str]:
    """``key = value  # source`` for each setting, in the order of the table of keys
    (:data:`skilllint.config.keys.KEYS`); source ``default``, ``FILE:LINE`` (or ``FILE``) or
    ``command line``, joined with `` + `` where both add to it. A table's keys (``catalog``,
    ``eval``) are a line each, and the rules' options last, one line each."""
    from ..config.keys import KEYS

    where = _Where(settings, cwd)
    loaded, given = settings.loaded, settings.given
    out = []

    def line(key: str, value: str, src: str) -> None:
        out.append(f"{key} = {value}  # {src}")

    for key in KEYS:
        if key.attr is None or key.name == "rules":
            continue  # it adds to another key's value (extend-exclude); the rules' options: below
        value = getattr(settings, key.attr)
        if key.table:
            written = loaded.get(key.name, {})
            for sub in key.schema["properties"]:
                if sub not in value or value[sub] in ([], {}):
                    continue
                parts = [where(key.name, sub)] if sub in written else []
                parts += ["command line"] if f"{key.name}-{sub}" in given else []  # --catalog-root
                line(f"{key.name}.{sub}", _value(value[sub]), " + ".join(parts) or "default")
            continue
        parts = [where(name) for name in key.sources or (key.name,) if name in loaded]
        if key.name in given:
            parts = parts + ["command line"] if key.adds else ["command line"]
        shown = key.unset if value in (None, "") and key.unset else _value(value)
        line(key.name, shown, " + ".join(parts) or "default")
    written = {}  # code -> the name the configuration gave its table (a code or a rule name)
    for name in loaded.get("rules", {}):
        rule = settings.registry.rules.get(name) or settings.registry.by_name(name)
        if rule is not None:
            written[rule.code] = name
    for code in sorted(settings.rule_config):
        for option, value in settings.rule_config[code].items():
            line(f"rules.{code}.{option}", _value(value), where("rules", written.get(code, code), option))
    out.append("# other rule options: their defaults (`skilllint rule CODE` lists them)")
    return out


def show_settings(trees, cwd: Path) -> str:
    """``config --show``: per configuration, the paths it applies to and its settings."""
    blocks = []
    for tree in trees:
        settings = tree.settings
        head = [f"# paths: {', '.join(tree.paths)}"]
        if settings.config_path:
            came = ("; it came with the linted tree, so" if settings.from_tree else ";") + " the folders it names must lie in " + display_path(settings.project, cwd)
            head.append(f"# configuration: {display_path(settings.config_path, cwd)}{came}")
        else:
            head.append("# configuration: none (the defaults)")
        blocks.append("\n".join(printable(text) for text in head + settings_lines(settings, cwd)))
    return "\n\n".join(blocks) + "\n"


def show_files(trees, cwd: Path, force_exclude: bool) -> int:
    """``check --show-files``: each skill a run would lint, one a line, with its targets
    (tab-separated), sorted; the search's warnings on stderr. Exit status 0."""
    from ..discovery.walk import discover
    from ..skill.package import SkillPackage

    rows = []
    for tree in trees:
        settings = tree.settings
        found = discover(
            tree.paths,
            cwd,
            exclude=settings.exclude,
            exclude_base=settings.base,
            use_gitignore=settings.respect_gitignore,
            force_exclude=force_exclude,
        )
        for warning in found.warnings:
            tell("warning", warning)
        for item in found.packages:
            package = SkillPackage(item.root, item.lint_root, settings.read_cap(), item.real, item.names)
            targets = ",".join(target.id for target in settings.targets_for(package))
            rows.append(f"{printable(display_path(item.root, cwd))}\t{targets}")
    sys.stdout.write("".join(row + "\n" for row in sorted(rows)))
    return 0
