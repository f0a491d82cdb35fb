"""Bundled scripts read as text: the lexers, maskers and command readers behind SL701-SL703.

Agents run a skill's scripts in non-interactive shells, so a script must not
wait for an answer (SL701), must be runnable the way SKILL.md tells the agent to
run it (SL702), and should not fetch an unpinned package on every run (SL703; the
commands SKILL.md's body gives are read for that too).

Scripts are read as text through :func:`skilllint.fsafe.read_capped`, never
imported or run. Which files are scripts: ``.py``, ``.sh``/``.bash``/``.zsh``/
``.ksh``, ``.js``/``.mjs``/``.cjs``/``.ts``/``.mts``/``.cts``, ``.ps1``, and
files without an extension whose first line is a ``#!`` naming one of those
interpreters. Files under ``assets/`` (templates an agent copies, not runs),
vendored environments (``site-packages``, ``venv``, ``node_modules``) and nested
skills are left alone. Before searching, each file is *masked*: comments and
string literals are blanked (positions kept), so a prompt named in a docstring,
a comment, a help text or a heredoc is not taken for a call.
"""

from __future__ import annotations

import bisect
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path

from ... import lazyre
from ...fsafe import UnsafeFile, read_capped

MAX_SCRIPT_BYTES = 512 * 1024  # a script larger than this is generated or vendored: not scanned


MAX_SCRIPTS = 400  # scripts scanned per package


MAX_SNIFFED = 200  # extensionless files whose first line is read per package


MAX_FINDINGS_PER_FILE = 10


EXTENSIONS = {
    ".py": "python",
    ".pyw": "python",
    ".sh": "shell",
    ".bash": "shell",
    ".zsh": "shell",
    ".ksh": "shell",
    ".js": "js",
    ".mjs": "js",
    ".cjs": "js",
    ".ts": "js",
    ".mts": "js",
    ".cts": "js",
    ".ps1": "powershell",
    ".psm1": "powershell",
}


_SHEBANG_LANG = lazyre.compile(rb"^#![^\n]*?\b(python[0-9.]*|uv run|bash|sh|zsh|ksh|dash|node|deno|bun|tsx|ts-node|pwsh)\b")


_LANG_OF_INTERPRETER = {
    "bash": "shell", "sh": "shell", "zsh": "shell", "ksh": "shell", "dash": "shell",
    "node": "js", "deno": "js", "bun": "js", "tsx": "js", "ts-node": "js", "pwsh": "powershell",
}


SKIPPED_FOLDERS = frozenset({"site-packages", "dist-packages", "__pycache__", ".venv", "venv", ".tox", "node_modules"})


LANGUAGE_NAMES = {"python": "Python", "shell": "shell", "js": "JavaScript", "powershell": "PowerShell"}


# -- the package's scripts ------------------------------------------------------------


@dataclass(eq=False, repr=False)
class Script:
    """A file of the package that SL701/SL703 read as a script, in its language."""

    rel: str  # package-relative path (as listed; a link's own name)
    lang: str
    text: str
    _masked: Masked | None = field(default=None, repr=False)

    @property
    def masked(self) -> Masked:
        if self._masked is None:
            self._masked = LEXERS[self.lang](self.text)
        return self._masked


def language_of(rel: str, head: bytes | None) -> str | None:
    """The language of a file by its extension, else by its ``#!`` line (``head``: its first bytes)."""
    ext = posixpath.splitext(rel)[1].lower()
    if ext in EXTENSIONS:
        return EXTENSIONS[ext]
    if ext or head is None:
        return None
    match = _SHEBANG_LANG.match(head.lstrip(b"\xef\xbb\xbf"))
    if not match:
        return None
    word = match.group(1).decode()
    return "python" if word.startswith(("python", "uv")) else _LANG_OF_INTERPRETER.get(word)


def package_scripts(package, memo: dict | None = None) -> list[Script]:
    """Every script of the package that SL701/SL703 read (kept in ``memo``, the rules'
    per-package scratch, when given)."""
    memo = memo if memo is not None else {}
    cached = memo.get("scripts.all")
    if cached is not None:
        return cached
    inventory = package.inventory
    found: list[Script] = []
    sniffed = 0
    for rel, entry in sorted(inventory.entries.items()):
        if entry.kind != "file" or rel == ".":
            continue
        parts = rel.split("/")
        if parts[0] == "assets" or any(p in SKIPPED_FOLDERS for p in parts[:-1]) or inventory.in_nested_skill(rel):
            continue
        if entry.size == 0 or entry.size > MAX_SCRIPT_BYTES:
            continue
        name = parts[-1]
        if name.endswith((".min.js", ".bundle.js")) or name.casefold() == "skill.md":
            continue
        ext = posixpath.splitext(name)[1].lower()
        if ext not in EXTENSIONS:
            if ext or sniffed >= MAX_SNIFFED:
                continue
            sniffed += 1
            head = read_bytes(package, rel, 128)
            if head is None or language_of(rel, head) is None:
                continue
        data = read_bytes(package, rel, MAX_SCRIPT_BYTES)
        if data is None or b"\x00" in data[:4096]:
            continue  # unreadable, or binary
        lang = language_of(rel, data[:128])
        if lang is None:
            continue
        text = data.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")
        found.append(Script(rel, lang, text))
        if len(found) >= MAX_SCRIPTS:
            break
    memo["scripts.all"] = found
    return found


def read_bytes(package, rel: str, cap: int) -> bytes | None:
    try:
        return read_capped(Path(package.root) / rel, cap).data
    except UnsafeFile:
        return None


# -- masking: comments and strings blanked, positions kept -------------------------------


@dataclass(eq=False, repr=False)
class Masked:
    """A script's text with comments and string contents blanked, and the strings apart."""

    code: str  # the text with comments and string contents replaced by spaces (newlines kept)
    strings: list[tuple[int, int, str]]  # (offset of the opening quote, offset past the closing one, contents)
    _lines: list[int] | None = None

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of an offset."""
        if self._lines is None:
            starts = [0]
            at = self.code.find("\n")
            while at >= 0:
                starts.append(at + 1)
                at = self.code.find("\n", at + 1)
            self._lines = starts
        line = bisect.bisect_right(self._lines, offset) - 1
        return line + 1, offset - self._lines[line] + 1


def _blank(chars: list[str], start: int, end: int) -> None:
    for index in range(start, min(end, len(chars))):
        if chars[index] != "\n":
            chars[index] = " "


def _blanked(text: str) -> str:
    """``text`` with every character but a newline made a space."""
    if "\n" not in text:
        return " " * len(text)
    return "\n".join(" " * len(line) for line in text.split("\n"))


# Where Python code can start a comment or a string: the lexer skips to the next one in C, and
# reads each string with one match (a character loop in Python cost some 180 ns a character,
# most of what SL804 spends on a script).
_PY_OPENER = lazyre.compile(r"[#'\"]")
# A string's body after its opening quote, up to and with its closing quote (group 1; none when
# it is left open): a backslash escapes the next character (a newline too), a newline ends an
# unclosed one-quote string, one or two quotes are part of a triple-quoted one.
_PY_SINGLE_BODY = lazyre.compile(r"[^'\\\n]*(?:\\[\s\S][^'\\\n]*)*(')?")
_PY_DOUBLE_BODY = lazyre.compile(r'[^"\\\n]*(?:\\[\s\S][^"\\\n]*)*(")?')
_PY_TRIPLE_SINGLE_BODY = lazyre.compile(r"[^'\\]*(?:(?:\\[\s\S]|'(?!''))[^'\\]*)*('{3})?")
_PY_TRIPLE_DOUBLE_BODY = lazyre.compile(r'[^"\\]*(?:(?:\\[\s\S]|"(?!""))[^"\\]*)*("{3})?')


def lex_python(text: str) -> Masked:
    """Comments and string contents blanked (string prefixes such as ``f`` or ``r`` are code)."""
    pieces: list[str] = []  # the masked text, in order
    strings: list[tuple[int, int, str]] = []
    n = len(text)
    copied = 0  # text[copied:] is not in ``pieces`` yet
    opener = _PY_OPENER.search
    bodies = {
        ("'", 1): _PY_SINGLE_BODY.match, ('"', 1): _PY_DOUBLE_BODY.match,
        ("'", 3): _PY_TRIPLE_SINGLE_BODY.match, ('"', 3): _PY_TRIPLE_DOUBLE_BODY.match,
    }  # fmt: skip
    match = opener(text)
    while match is not None:
        i = match.start()
        c = text[i]
        if c == "#":
            end = text.find("\n", i)
            end = n if end < 0 else end
            pieces += (text[copied:i], _blanked(text[i:end]))
            copied = end
            match = opener(text, end)
            continue
        size = 3 if text.startswith(c * 3, i) else 1
        body = bodies[c, size](text, i + size)
        j = body.end()
        if body.group(1) is not None:
            inner_end = j - size
        else:
            if j < n and text[j] == "\\":
                j = n  # a backslash that ends the text escapes nothing: the string runs to the end
            inner_end = j
        strings.append((i, j, text[i + size : inner_end]))
        pieces += (text[copied : i + size], _blanked(text[i + size : inner_end]))
        copied = inner_end
        match = opener(text, j)
    pieces.append(text[copied:])
    return Masked("".join(pieces), strings)


def lex_js(text: str) -> Masked:
    chars = list(text)
    strings: list[tuple[int, int, str]] = []
    i, n = 0, len(text)
    last = ""  # the last significant code character (regex-or-division decision)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            _blank(chars, i, end)
            i = end
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            _blank(chars, i, end)
            i = end
            continue
        if c in "\"'`":
            j = i + 1
            while j < n:
                if text[j] == "\\":
                    j += 2
                    continue
                if text[j] == c:
                    j += 1
                    break
                if c != "`" and text[j] == "\n":
                    break
                j += 1
            j = min(j, n)
            inner_end = j - 1 if j <= n and j > i + 1 and text[j - 1] == c else j
            strings.append((i, j, text[i + 1 : inner_end]))
            _blank(chars, i + 1, inner_end)
            i = j
            last = c
            continue
        if c == "/" and (last == "" or last in "(,=:[!&|?{};+-*%<>~^" or _ends_with_keyword(text, i)):
            j = i + 1
            in_class = False
            while j < n and text[j] != "\n":
                if text[j] == "\\":
                    j += 2
                    continue
                if text[j] == "[":
                    in_class = True
                elif text[j] == "]":
                    in_class = False
                elif text[j] == "/" and not in_class:
                    break
                j += 1
            if j < n and text[j] == "/":
                _blank(chars, i + 1, j)
                i = j + 1
                last = "/"
                continue
        if not c.isspace():
            last = c
        i += 1
    return Masked("".join(chars), strings)


def _ends_with_keyword(text: str, index: int) -> bool:
    before = text[max(0, index - 12) : index].rstrip()
    return bool(re.search(r"(?:^|[^\w$])(?:return|typeof|case|do|else|in|of|void|yield|await)$", before))


HEREDOC = lazyre.compile(r"<<(-?)\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\2")


def lex_shell(text: str) -> Masked:
    """Comments, quoted strings and heredoc bodies blanked."""
    chars = list(text)
    strings: list[tuple[int, int, str]] = []
    i, n = 0, len(text)
    pending: list[tuple[str, bool]] = []  # heredocs opened on the current line: (word, strip tabs)
    while i < n:
        c = text[i]
        if c == "\n":
            i += 1
            for word, tabs in pending:
                # The body runs to a line that is exactly the word (tabs stripped for <<-).
                start = i
                while i < n:
                    end = text.find("\n", i)
                    end = n if end < 0 else end
                    line = text[i:end]
                    if (line.lstrip("\t") if tabs else line) == word:
                        _blank(chars, start, i)
                        i = end
                        break
                    i = end + 1
                else:
                    _blank(chars, start, n)
            pending = []
            continue
        if c == "\\":
            i += 2
            continue
        if c == "#" and (i == 0 or text[i - 1] in " \t\n;&|()"):
            end = text.find("\n", i)
            end = n if end < 0 else end
            _blank(chars, i, end)
            i = end
            continue
        if c == "'" or (c == "$" and text.startswith("$'", i)):
            start = i + (2 if c == "$" else 1)
            j = start
            while j < n and text[j] != "'":
                if c == "$" and text[j] == "\\":
                    j += 1
                j += 1
            strings.append((start - 1, min(j + 1, n), text[start:j]))
            _blank(chars, start, j)
            i = j + 1
            continue
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                if text[j] == "\\":
                    j += 1
                j += 1
            strings.append((i, min(j + 1, n), text[i + 1 : j]))
            _blank(chars, i + 1, j)
            i = j + 1
            continue
        if c == "<" and text.startswith("<<", i) and not text.startswith("<<<", i):
            match = HEREDOC.match(text, i)
            if match:
                pending.append((match.group(3), match.group(1) == "-"))
                i = match.end()
                continue
        i += 1
    return Masked("".join(chars), strings)


def lex_powershell(text: str) -> Masked:
    chars = list(text)
    strings: list[tuple[int, int, str]] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("<#", i):
            end = text.find("#>", i + 2)
            end = n if end < 0 else end + 2
            _blank(chars, i, end)
            i = end
            continue
        if c == "#":
            end = text.find("\n", i)
            end = n if end < 0 else end
            _blank(chars, i, end)
            i = end
            continue
        if text.startswith('@"', i) or text.startswith("@'", i):
            closer = text[i + 1] + "@"
            end = text.find("\n" + closer, i + 2)
            end = n if end < 0 else end + 1 + len(closer)
            strings.append((i, end, text[i + 2 : max(i + 2, end - 2)]))
            _blank(chars, i + 2, end - 2)
            i = end
            continue
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                if c == '"' and text[j] == "`":
                    j += 1
                j += 1
            strings.append((i, min(j + 1, n), text[i + 1 : j]))
            _blank(chars, i + 1, j)
            i = j + 1
            continue
        i += 1
    return Masked("".join(chars), strings)


LEXERS = {"python": lex_python, "js": lex_js, "shell": lex_shell, "powershell": lex_powershell}
