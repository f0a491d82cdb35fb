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
import shlex
import stat
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from . import lazyre
from .fsafe import UnsafeFile, read_capped
from .markdown import NextFind
from .passages import OFFERED_AS_EXAMPLE, Passages

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


@dataclass
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


def _nested_skill_folders(inventory) -> set[str]:
    return {rel.rpartition("/")[0] for rel in inventory.entries if rel.rpartition("/")[2].casefold() == "skill.md" and "/" in rel}


def _inside(rel: str, folders: set[str]) -> bool:
    folder = posixpath.dirname(rel)
    while folder:
        if folder in folders:
            return True
        folder = posixpath.dirname(folder)
    return False


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


def package_scripts(package, ctx: RuleContext | None = None) -> list[Script]:
    """Every script of the package that SL701/SL703 read (cached per package run)."""
    memo = ctx.memo if ctx is not None else {}
    cached = memo.get("scripts.all")
    if cached is not None:
        return cached
    inventory = package.inventory
    nested = _nested_skill_folders(inventory)
    found: list[Script] = []
    sniffed = 0
    for rel, entry in sorted(inventory.entries.items()):
        if entry.kind != "file" or rel == ".":
            continue
        parts = rel.split("/")
        if parts[0] == "assets" or any(p in SKIPPED_FOLDERS for p in parts[:-1]) or _inside(rel, nested):
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


@dataclass
class Masked:
    """A script's text with comments and string contents blanked, and the strings apart."""

    code: str  # the text with comments and string contents replaced by spaces (newlines kept)
    strings: list[tuple[int, int, str]]  # (offset of the opening quote, offset past the closing one, contents)
    _lines: list[int] | None = None

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of an offset."""
        if self._lines is None:
            starts = [0]
            for index, char in enumerate(self.code):
                if char == "\n":
                    starts.append(index + 1)
            self._lines = starts
        line = bisect.bisect_right(self._lines, offset) - 1
        return line + 1, offset - self._lines[line] + 1


def _blank(chars: list[str], start: int, end: int) -> None:
    for index in range(start, min(end, len(chars))):
        if chars[index] != "\n":
            chars[index] = " "


def lex_python(text: str) -> Masked:
    chars = list(text)
    strings: list[tuple[int, int, str]] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "#":
            end = text.find("\n", i)
            end = n if end < 0 else end
            _blank(chars, i, end)
            i = end
            continue
        if c in "\"'":
            quote = text[i : i + 3] if text[i : i + 3] in ('"""', "'''") else c
            j = i + len(quote)
            closed = False
            while j < n:
                if text[j] == "\\":
                    j += 2
                    continue
                if text.startswith(quote, j):
                    j += len(quote)
                    closed = True
                    break
                if len(quote) == 1 and text[j] == "\n":
                    break
                j += 1
            j = min(j, n)
            inner_end = j - len(quote) if closed else j
            strings.append((i, j, text[i + len(quote) : inner_end]))
            _blank(chars, i + len(quote), inner_end)
            i = j
            continue
        i += 1
    return Masked("".join(chars), strings)


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


_HEREDOC = lazyre.compile(r"<<(-?)\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\2")


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
            match = _HEREDOC.match(text, i)
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


# -- shell commands -----------------------------------------------------------------------

_SEPARATORS = set(";&|(){}`\n")


_PREFIX_WORDS = frozenset({"then", "do", "else", "elif", "if", "while", "until", "!", "time", "exec", "command", "builtin", "nohup", "sudo", "env"})


_ASSIGNMENT = lazyre.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=\S*")


@dataclass
class Command:
    """One simple shell command: its words (raw text) and where its name starts."""

    name: str
    start: int  # offset of the command name in the text
    end: int  # offset past the command's last character
    keywords: tuple[str, ...]  # `while`, `if`, … written before it
    piped: bool  # fed by a `|`


def shell_commands(text: str, code: str) -> list[Command]:
    """Split masked shell ``code`` into simple commands (the raw ``text`` gives their words)."""
    commands: list[Command] = []
    n = len(code)
    start = 0
    sep_before = "\n"
    i = 0
    while i <= n:
        c = code[i] if i < n else "\n"
        separator = c in _SEPARATORS
        if c == "\n" and i > 0 and code[i - 1] == "\\":
            separator = False  # a continued line
        if c == "&" and i > 0 and code[i - 1] in "<>":
            separator = False  # >&2, <&3
        if c == "&" and i + 1 < n and code[i + 1] == ">":
            separator = False  # &> file
        if c == "{" and i > 0 and code[i - 1] == "$":
            close = code.find("}", i)
            i = close + 1 if close > 0 else i + 1
            continue
        if c == "(" and i > 0 and code[i - 1] in "<>":
            separator = True  # <(…) process substitution: a command inside
        if separator:
            _add_command(commands, text, code, start, i, sep_before)
            sep_before = c
            start = i + 1
        i += 1
    return commands


def _add_command(commands: list[Command], text: str, code: str, start: int, end: int, sep_before: str) -> None:
    keywords: list[str] = []
    i = start
    while True:
        while i < end and code[i] in " \t\\\n":
            i += 1
        match = re.compile(r"[^\s;&|()<>]+").match(code, i, end)
        if not match:
            return
        word = match.group(0)
        if word in _PREFIX_WORDS or _ASSIGNMENT.fullmatch(text[match.start() : match.end()] if match.end() <= len(text) else word):
            if word in _PREFIX_WORDS:
                keywords.append(word)
            i = match.end()
            continue
        commands.append(Command(word, match.start(), end, tuple(keywords), sep_before == "|"))
        return


def command_words(text: str, command: Command) -> list[str]:
    """The words of a command as the shell splits them (quotes removed), best effort."""
    segment = text[command.start : command.end].replace("\\\n", " ")
    try:
        return shlex.split(segment, comments=False, posix=True)
    except ValueError:
        return segment.split()


# -- SL701 ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Prompt:
    """Where a script waits for an answer on standard input, and how."""

    offset: int
    length: int
    token: str  # what is shown in the message (`input()`, `read -p`)
    how: str  # a short description of what it does


_PY_INPUT = lazyre.compile(r"(?<![\w.])(raw_input|input)[ \t]*\(")


_PY_GETPASS = lazyre.compile(r"(?<![\w.])(getpass\.getpass|getpass)[ \t]*\(")


_PY_LIBRARY = lazyre.compile(
    r"(?<![\w.])(click\.(?:prompt|confirm)|typer\.(?:prompt|confirm)|(?:Prompt|Confirm|IntPrompt|FloatPrompt)\.ask"
    r"|questionary\.(?:text|select|confirm|checkbox|password|autocomplete|path|rawselect|press_any_key_to_continue)"
    r"|inquirer\.(?:prompt|text|list_input|confirm|checkbox|password|path|editor)"
    r"|(?:pyip|pyinputplus)\.input\w*)[ \t]*\("
)


_PY_PROMPT_TOOLKIT = lazyre.compile(r"(?<![\w.])(prompt|PromptSession)[ \t]*\(")


# An import of prompt or PromptSession from prompt_toolkit, later on its line; the rest of the
# line looked at from the last such import before it only (the tempered loop): the same
# answer, without each of many imports scanning the line.
_PROMPT_TOOLKIT_FROM = r"\bfrom\s+prompt_toolkit(?:\.shortcuts)?\s+import\b"


_PROMPT_TOOLKIT_IMPORT = lazyre.compile(
    _PROMPT_TOOLKIT_FROM + r"(?:(?!" + _PROMPT_TOOLKIT_FROM + r")[^\n])*\b(?:prompt|PromptSession)\b"
)


def python_prompts(script: Script) -> list[Prompt]:
    code = script.masked.code
    if "isatty" in code:
        return []  # the script checks for a terminal before it asks
    found: list[Prompt] = []
    # As except[ \t]*\(?[^:\n]*\bEOFError\b (whose blanks and "(" [^:\n] takes too, competing), each
    # "except" looking on to the next one at most: from there, that one looks on.
    handles_eof = re.search(r"except(?:(?!except)[^:\n])*\bEOFError\b", code) is not None
    defines = set(re.findall(r"\bdef\s+(\w+)[ \t]*\(", code))
    if not handles_eof:
        for match in _PY_INPUT.finditer(code):
            name = match.group(1)
            if name in defines or _preceded_by_def(code, match.start()):
                continue
            found.append(Prompt(match.start(), len(name), f"{name}()", "waits for an answer on stdin"))
    imports_getpass = re.search(r"\bimport\s+getpass\b|\bfrom\s+getpass\s+import\b", code) is not None
    if imports_getpass:
        for match in _PY_GETPASS.finditer(code):
            if match.group(1) == "getpass" and "getpass" in defines:
                continue
            found.append(Prompt(match.start(), len(match.group(1)), f"{match.group(1)}()", "asks for a password on the terminal"))
    for match in _PY_LIBRARY.finditer(code):
        found.append(Prompt(match.start(), len(match.group(1)), f"{match.group(1)}()", "asks a question on the terminal"))
    if _PROMPT_TOOLKIT_IMPORT.search(code):
        for match in _PY_PROMPT_TOOLKIT.finditer(code):
            if not _preceded_by_def(code, match.start()):
                found.append(Prompt(match.start(), len(match.group(1)), f"{match.group(1)}()", "asks a question on the terminal"))
    return found


def _preceded_by_def(code: str, offset: int) -> bool:
    return re.search(r"\b(?:def|function|class)\s+$", code[max(0, offset - 12) : offset]) is not None


_JS_CREATE = lazyre.compile(r"(?<![\w$])createInterface[ \t]*\(")


_JS_QUESTION = lazyre.compile(r"\.(?:question|prompt)[ \t]*\(")


_JS_LIBRARY = lazyre.compile(r"(?<![\w$])((?:inquirer|enquirer)\.prompt)[ \t]*\(")


_JS_READLINE_SYNC = lazyre.compile(
    r"\.(question|questionInt|questionFloat|questionEMail|questionNewPassword|questionPath|keyIn|keyInYN|keyInYNStrict"
    r"|keyInPause|keyInSelect|promptCL|promptLoop|promptCLLoop|promptSimShell)[ \t]*\("
)


def _js_imports(text: str, module: str) -> bool:
    quoted = re.escape(module)
    return re.search(r"""(?:require[ \t]*\(\s*|from\s+|import\s+)['"]""" + quoted + r"""['"]""", text) is not None


def js_prompts(script: Script) -> list[Prompt]:
    code, text = script.masked.code, script.text
    if "isTTY" in code:
        return []
    found: list[Prompt] = []
    if _JS_QUESTION.search(code):
        for match in _JS_CREATE.finditer(code):
            close = _matching_paren(code, match.end() - 1)
            args = text[match.end() : close if close > 0 else match.end() + 400]
            if re.search(r"\b(?:process\.)?stdin\b", args):
                found.append(Prompt(match.start(), len("createInterface"), "readline.createInterface({input: process.stdin})",
                                    "with `.question()` waits for an answer on the terminal"))
    for match in _JS_LIBRARY.finditer(code):
        found.append(Prompt(match.start(), len(match.group(1)), f"{match.group(1)}()", "asks questions on the terminal"))
    if _js_imports(text, "prompt-sync"):
        for match in re.finditer(r"(?<![\w$.])prompt[ \t]*\(", code):
            if not _preceded_by_def(code, match.start()):
                found.append(Prompt(match.start(), 6, "prompt() (prompt-sync)", "waits for an answer on the terminal"))
    if _js_imports(text, "prompts"):
        for match in re.finditer(r"(?<![\w$.])prompts[ \t]*\(", code):
            found.append(Prompt(match.start(), 7, "prompts()", "asks questions on the terminal"))
    if _js_imports(text, "readline-sync"):
        for match in _JS_READLINE_SYNC.finditer(code):
            found.append(Prompt(match.start() + 1, len(match.group(1)), f"readline-sync {match.group(1)}()", "waits for an answer on the terminal"))
    imported = _inquirer_import(text)
    if imported is not None:
        names = [part.split(" as ")[-1].strip() for part in imported.split(",") if part.strip()]
        if names:
            pattern = re.compile(r"(?<![\w$.])(" + "|".join(map(re.escape, names)) + r")[ \t]*\(")
            for match in pattern.finditer(code):
                if code[max(0, match.start() - 20) : match.start()].rstrip().endswith("{"):
                    continue
                found.append(Prompt(match.start(), len(match.group(1)), f"{match.group(1)}() from @inquirer/prompts", "asks a question on the terminal"))
    return found


_INQUIRER_OPEN = lazyre.compile(r"import\s*\{")


_INQUIRER_FROM = lazyre.compile(r"\}\s*from\s*['\"]@inquirer/prompts['\"]")


def _inquirer_import(text: str) -> str | None:
    r"""What the first ``import { … } from "@inquirer/prompts"`` imports: group 1 of
    ``import\s*\{([^}]*)\}\s*from\s*['\"]@inquirer/prompts['\"]``. Each "{" runs to the first
    "}" after it, looked up once for all (NextFind); imports that share a "}" share its
    verdict. (The regex scanned from each of many "import {" to the end.)"""
    closing = NextFind(text, "}")
    verdicts: dict[int, bool] = {}
    at = 0
    while (opening := _INQUIRER_OPEN.search(text, at)) is not None:
        close = closing(opening.end())
        if close < 0:
            return None
        if close not in verdicts:
            verdicts[close] = _INQUIRER_FROM.match(text, close) is not None
        if verdicts[close]:
            return text[opening.end() : close]
        at = opening.start() + 1
    return None


def _without_extras(spec: str) -> str:
    r"""``spec`` without its ``[…]`` parts (``re.sub(r"\[[^\]]*\]", "", spec)``, each "[" to
    the first "]" after it), in one pass."""
    pieces, done = [], 0
    while (opening := spec.find("[", done)) >= 0 and (close := spec.find("]", opening + 1)) >= 0:
        pieces.append(spec[done:opening])
        done = close + 1
    return "".join(pieces) + spec[done:]


def _matching_paren(code: str, open_index: int) -> int:
    depth = 0
    for index in range(open_index, min(len(code), open_index + 2000)):
        if code[index] == "(":
            depth += 1
        elif code[index] == ")":
            depth -= 1
            if depth == 0:
                return index
    return -1


_SHELL_TTY_CHECK = lazyre.compile(r"(?:\[\[?|\btest)\s+(?:!\s+)?-t\s+[012]\b|\btty\s+-s\b")


_READ_VALUE_OPTIONS = set("adinNptu")


def shell_prompts(script: Script) -> list[Prompt]:
    code, text = script.masked.code, script.text
    if _SHELL_TTY_CHECK.search(code):
        return []
    commands = shell_commands(text, code)
    found: list[Prompt] = []
    for index, command in enumerate(commands):
        if command.name == "select" and re.match(r"select\s+\w+\s+in\b", code[command.start : command.end]):
            found.append(Prompt(command.start, 6, "select", "shows a menu and waits for a choice"))
            continue
        if command.name != "read":
            continue
        raw = text[command.start : command.end]
        words = command_words(text, command)[1:]
        prompt, timeout = False, False
        position = 0
        while position < len(words):
            word = words[position]
            position += 1
            if not word.startswith("-") or word in ("-", "--"):
                break
            letters = word[1:]
            for offset, letter in enumerate(letters):
                if letter == "p":
                    prompt = True
                if letter == "t":
                    timeout = True
                if letter in _READ_VALUE_OPTIONS:
                    if offset == len(letters) - 1:
                        position += 1  # `-n 1`: the value is the next word
                    break
        zsh_prompt = any(re.match(r"^[A-Za-z_]\w*\?", w) for w in words if not w.startswith("-"))
        from_tty = re.search(r"<\s*/dev/tty\b", raw) is not None
        redirected = "<" in code[command.start : command.end] and not from_tty
        if timeout:
            continue  # it gives up after a while: a non-interactive run goes on
        if prompt or zsh_prompt or from_tty:
            how = "waits for an answer from the terminal" if from_tty else "prints a prompt and waits for an answer"
            token = "read … </dev/tty" if from_tty else ("read -p" if prompt else "read 'name?prompt'")
            found.append(Prompt(command.start, 4, token, how))
            continue
        if redirected or command.piped or {"while", "until", "if"} & set(command.keywords):
            continue
        previous = commands[index - 1] if index > 0 else None
        if previous is not None and previous.name in ("echo", "printf") and _same_or_previous_line(code, previous, command):
            prev_raw = text[previous.start : previous.end]
            if re.search(r">\s*(?!&\s*2\b|/dev/(?:stderr|tty)\b)[^&\s]", prev_raw.replace(">&2", "")):
                continue  # the echo writes to a file: not a prompt
            found.append(Prompt(command.start, 4, "read", "waits for an answer to the question echoed before it"))
    return found


def _same_or_previous_line(code: str, first: Command, second: Command) -> bool:
    between = code[first.end : second.start]
    return between.count("\n") <= 1


_PS_PROMPT = lazyre.compile(r"(?i)(?<![\w-])(Read-Host)\b|(\.PromptForChoice)[ \t]*\(")


def powershell_prompts(script: Script) -> list[Prompt]:
    found = []
    for match in _PS_PROMPT.finditer(script.masked.code):
        token = match.group(1) or match.group(2).lstrip(".")
        offset = match.start(1) if match.group(1) else match.start(2) + 1
        found.append(Prompt(offset, len(token), token, "waits for an answer on the console"))
    return found


PROMPT_FINDERS = {"python": python_prompts, "js": js_prompts, "shell": shell_prompts, "powershell": powershell_prompts}


BYPASS = lazyre.compile(r"--(?:yes|assume-yes|non-interactive|noninteractive|no-input|noinput|no-prompt)\b")


WHY = "agents run scripts in non-interactive shells, where it fails at end of input or waits until the command times out"


INSTEAD = "take the answer from an argument or an environment variable instead"


def shorten(command: str, limit: int = 120) -> str:
    return command if len(command) <= limit else command[: limit - 1] + "…"


# -- SL702 ----------------------------------------------------------------------------

SHELL_FENCES = frozenset({"bash", "sh", "shell", "zsh", "ksh", "console", "shell-session", "shellsession", "sh-session", "terminal"})


_ROOT_PREFIX = lazyre.compile(r"^(?:\$\{[A-Za-z_][A-Za-z0-9_]*\}|\$[A-Za-z_][A-Za-z0-9_]*|\{[A-Za-z_][A-Za-z0-9_-]*\}|<[^<>/]+>)/")


# "run `scripts/x.sh`", "Re-run this skill's `scripts/x.sh`": a verb right before the code span.
# The verb and up to three fillers, each with the blanks after it: where such a chain ends,
# (?i)\b(?:run|execute|invoke|launch|call)\s+(?:(?:the|this|…)\s+){0,3}$ matches the text
# before. Found in one pass over the line (_run_phrase_ends), not searched for in the text
# before every code span.
_RUN_VERB = lazyre.compile(r"(?i)\b(?:run|execute|invoke|launch|call)\s+")


_RUN_FILLER = lazyre.compile(r"(?i)(?:the|this|that|skill's|script|command|helper|it|with)\s+")


_BLANKS = lazyre.compile(r"\s*")


# (matched after blanks, as _first_word does: a search would otherwise scan on from inside every word)
_ASSIGNMENT_WORD = lazyre.compile(r"""(?<!\S)[A-Za-z_][A-Za-z0-9_]*=(?:"[^"]*"|'[^']*'|\S*)\s+""")


_COMMAND_WORD = lazyre.compile(r"""("[^"]+"|'[^']+'|[^\s;&|()<>"']+)""")


_CODE_SPAN = lazyre.compile(r"(?<!`)(`+)([^`\n]+?)\1(?!`)")  # a whole run opens: no backtracking into it


NOT_COMMANDS = frozenset({".md", ".markdown", ".txt", ".json", ".yaml", ".yml", ".toml", ".csv", ".html", ".css", ".png", ".jpg", ".svg", ".ps1", ".bat", ".cmd", ".exe", ".psm1"})


@dataclass(frozen=True)
class Invocation:
    """A command line in SKILL.md that runs a file of the package."""

    word: str  # the first word as written
    rel: str  # the package file it names
    line: int  # in SKILL.md
    column: int


def _first_word(line: str) -> tuple[str, int] | None:
    """The command word of a shell line (after a `$ ` prompt and ``VAR=value`` assignments) and its column."""
    # Matched in place (pos): a slice per assignment would copy the rest of the line each time.
    at = _BLANKS.match(line).end()
    if line.startswith("$ ", at):
        at += 2
    while True:
        at = _BLANKS.match(line, at).end()
        match = _ASSIGNMENT_WORD.match(line, at)
        if not match:
            break
        at = match.end()
    match = _COMMAND_WORD.match(line, at)
    if not match:
        return None
    return match.group(1).strip("\"'"), at


def resolve_command(word: str, package) -> str | None:
    """The package file a command word names, or None (not a path into this skill)."""
    if "/" not in word or "://" in word:
        return None
    inventory = package.inventory
    candidates = []
    prefix = _ROOT_PREFIX.match(word)
    if prefix:
        candidates.append(word[prefix.end() :])
    elif word.startswith("./"):
        candidates.append(word[2:])
    elif not word.startswith(("/", "~", "..")):
        candidates.append(word)
    marker = f"/{package.folder_name}/"
    if marker in word:
        candidates.append(word.split(marker, 1)[1])
    for candidate in candidates:
        candidate = posixpath.normpath(candidate)
        if candidate.startswith("..") or candidate == ".":
            continue
        status, real = inventory.resolve(candidate)
        if status == "ok" and real is not None:
            entry = inventory.entries.get(real)
            if entry is not None and entry.kind == "file":
                return candidate
    return None


FENCE_LINE = lazyre.compile(r"^\s*(`{3,}|~{3,})\s*$")


_FENCE_OPEN = lazyre.compile(r"^\s*(`{3,}|~{3,})\s*([^\s`]*)")


# Where a line of a text joined with "\n" may be one of the two above: its blanks, then a fence.
_FENCE_START = lazyre.compile(r"^[^\S\n]*(?:```|~~~)", re.MULTILINE)


# A Markdown block is the template of a document the skill writes (a README, an issue body), and
# authors nest the document's own fenced blocks in it with the same three backticks.
_TEMPLATE_FENCES = frozenset({"markdown", "md", "mdx", "gfm"})


def fenced_blocks(lines: list[str], start: int) -> list[tuple[str, list[int]]]:
    """Fenced code blocks of the body: (info word in lower case, 1-based line numbers from the opening
    fence to the closing one, or to the end of the file when it is never closed).

    A fence closes with a bare fence of its character at least as long (CommonMark). In a
    Markdown block a fence with an info word ("```bash") opens the template's own nested block,
    and the bare fence after it closes that one, not the template: CommonMark would end the
    template there and read the rest of it as the skill's text and commands, which is not what
    its author wrote."""
    blocks: list[tuple[str, list[int]]] = []
    current: tuple[str, int, str, int] | None = None  # (fence char, length, info, first line)
    nested = 0  # blocks open inside a Markdown template
    # Only a line that starts (after blanks) with three backticks or tildes can open, close or
    # nest a block: those lines are found in one scan of the text, the others only counted.
    body = "\n".join(lines[start:])
    number, counted = start + 1, 0
    for marker in _FENCE_START.finditer(body):
        number += body.count("\n", counted, marker.start())
        counted = marker.start()
        text = lines[number - 1]
        if current is None:
            match = _FENCE_OPEN.match(text)
            if match and not (match.group(1)[0] == "`" and "`" in text[match.end(1):]):
                current = (match.group(1)[0], len(match.group(1)), match.group(2).lower(), number)
                nested = 0
            continue
        close = FENCE_LINE.match(text)
        if close and close.group(1)[0] == current[0] and len(close.group(1)) >= current[1]:
            if nested:
                nested -= 1
                continue
            blocks.append((current[2], list(range(current[3], number + 1))))
            current = None
        elif current[2] in _TEMPLATE_FENCES:
            inner = _FENCE_OPEN.match(text)
            if inner and inner.group(2) and inner.group(1)[0] == current[0] and len(inner.group(1)) >= current[1]:
                nested += 1
    if current is not None:
        blocks.append((current[2], list(range(current[3], len(lines) + 1))))
    return blocks


def _run_phrase_ends(text: str) -> set[int]:
    """Where a run phrase ("run", "execute the script", "call it with") ends in ``text``,
    the blanks after it included."""
    ends = set()
    for verb in _RUN_VERB.finditer(text):
        at = verb.end()
        ends.add(at)
        for _ in range(3):
            filler = _RUN_FILLER.match(text, at)
            if filler is None:
                break
            at = filler.end()
            ends.add(at)
    return ends


def _shell_blocks(lines: list[str], body_start: int, fenced: set[int]):
    """The fenced shell blocks of a body: for each, its lines (file number, text) without the
    fences, and whether it is a transcript (commands after a ``$ `` prompt, output between).
    Every fenced line of the body, shell or not, is added to ``fenced``."""
    for info, numbers in fenced_blocks(lines, body_start):
        fenced.update(numbers)
        if info not in SHELL_FENCES:
            continue
        texts = [(number, lines[number - 1]) for number in numbers[1:] if number - 1 < len(lines)]
        if texts and FENCE_LINE.match(texts[-1][1]):
            texts = texts[:-1]  # the closing fence
        yield texts, info in _PROMPTED_FENCES or any(t.lstrip().startswith("$ ") for _, t in texts)


def invocations(package) -> list[Invocation]:
    """Where SKILL.md tells the agent to run a file of the skill as a command (no interpreter before it)."""
    if not package.readable:
        return []
    lines = package.source.lines
    found: list[Invocation] = []
    fenced: set[int] = set()
    for texts, prompted in _shell_blocks(lines, package.body_start_line, fenced):
        continued = False
        heredoc: str | None = None
        for number, text in texts:
            if heredoc is not None:
                if text.strip() == heredoc:
                    heredoc = None
                continue
            was_continued, continued = continued, text.rstrip().endswith("\\")
            match = _HEREDOC.search(text)
            if match:
                heredoc = match.group(3)
            if was_continued or not text.strip() or text.lstrip().startswith("#"):
                continue
            if prompted and not text.lstrip().startswith("$ "):
                continue  # output in a console transcript
            first = _first_word(text)
            if first is None:
                continue
            word, column = first
            rel = resolve_command(word, package)
            if rel is not None and posixpath.splitext(rel)[1].lower() not in NOT_COMMANDS:
                found.append(Invocation(word, rel, number, column + 1))
    for index, text in enumerate(lines[package.body_start_line :], start=package.body_start_line + 1):
        if index in fenced or "`" not in text:
            continue
        run_phrase_ends = None
        for span in _CODE_SPAN.finditer(text):
            content = span.group(2).strip()
            first = _first_word(content)
            if first is None:
                continue
            word = first[0]
            words = content.split()
            if len(words) < 2:
                if run_phrase_ends is None:
                    run_phrase_ends = _run_phrase_ends(text)
                if span.start() not in run_phrase_ends:
                    continue  # a path named in prose, not a command to run
            rel = resolve_command(word, package)
            if rel is not None and posixpath.splitext(rel)[1].lower() not in NOT_COMMANDS:
                found.append(Invocation(word, rel, index, span.start(2) + 1 + (len(span.group(2)) - len(span.group(2).lstrip()))))
    return found


@dataclass(frozen=True)
class ScriptRun:
    """A command line in SKILL.md that runs a Python script of the package, and the arguments it passes."""

    line: int  # in SKILL.md
    command: str  # the command as written
    args: tuple[str, ...]  # the words after the script's path (or after `-m module`)


_PYTHON_WORD = lazyre.compile(r"(?:python[0-9.]*|pypy[0-9.]*|py)")


_OPERATORS = frozenset({";", "&&", "||", "|", "&", "(", ")", "|&", ";;"})


_WRAPPER_WORDS = frozenset({"sudo", "env", "time", "nohup", "exec", "command", "then", "do", "!"})


_RUNNERS = frozenset({("uv", "run"), ("pipenv", "run"), ("poetry", "run"), ("pdm", "run"), ("hatch", "run")})


_PYTHON_VALUE_OPTIONS = frozenset({"-W", "-X", "-Q"})


def python_runs(package) -> dict[str, list[ScriptRun]]:
    """Each Python script SKILL.md runs, with the command lines that run it: in shell fences and in
    code spans, with an interpreter (``python3 scripts/x.py --add``, ``uv run scripts/x.py``,
    ``python -m scripts.x``) or as a command (``./scripts/x.py``). Usage notation in square
    brackets (``[--add]``) is an option the reader may pass, not a run, and is dropped."""
    if not package.readable:
        return {}
    lines = package.source.lines
    runs: dict[str, list[ScriptRun]] = {}
    candidates: list[tuple[int, str]] = []
    fenced: set[int] = set()
    for info, numbers in fenced_blocks(lines, package.body_start_line):
        fenced.update(numbers)
        if info not in SHELL_FENCES and info not in ("", "text", "powershell", "ps1", "cmd", "pwsh"):
            continue
        pending: tuple[int, str] | None = None
        for number in numbers[1:]:
            text = lines[number - 1] if number - 1 < len(lines) else ""
            if FENCE_LINE.match(text):
                break
            if pending is not None:
                pending = (pending[0], pending[1].rstrip() + " " + text.strip())
            else:
                pending = (number, text.strip())
            if pending[1].endswith("\\") or pending[1].endswith("`") and info in ("powershell", "ps1", "pwsh"):
                pending = (pending[0], pending[1][:-1])
                continue
            candidates.append(pending)
            pending = None
        if pending is not None:
            candidates.append(pending)
    for index, text in enumerate(lines[package.body_start_line :], start=package.body_start_line + 1):
        if index in fenced or "`" not in text:
            continue
        for span in _CODE_SPAN.finditer(text):
            candidates.append((index, span.group(2).strip()))
    by_name: dict[str, list[str]] = {}
    for rel, entry in package.inventory.entries.items():
        if entry.kind == "file" and rel.endswith(".py"):
            by_name.setdefault(posixpath.basename(rel), []).append(rel)
    for number, text in candidates:
        if ".py" not in text and " -m " not in text and "python" not in text:
            continue
        command = text[2:] if text.startswith("$ ") else text
        for words in _simple_commands(command):
            found = _python_script_of(words, package, by_name)
            if found is not None:
                rel, args = found
                runs.setdefault(rel, []).append(ScriptRun(number, command, tuple(a for a in args if not a.startswith("["))))
    return runs


def _simple_commands(line: str) -> list[list[str]]:
    """The simple commands of a shell line, each as its words (quotes removed); the split is shlex's."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|()")
    lexer.whitespace_split = True
    lexer.commenters = "#"
    try:
        tokens = list(lexer)
    except ValueError:
        tokens = line.split()
    commands: list[list[str]] = [[]]
    for token in tokens:
        if token in _OPERATORS:
            commands.append([])
        else:
            commands[-1].append(token)
    return [c for c in commands if c]


def _python_script_of(words: list[str], package, by_name: dict[str, list[str]]) -> tuple[str, list[str]] | None:
    """(package path, arguments) when the command runs a Python file of the package, else None
    (``by_name``: the package's ``.py`` files by file name)."""
    i = 0
    n = len(words)
    while i < n and (words[i] in _WRAPPER_WORDS or _ASSIGNMENT.fullmatch(words[i])):
        i += 1
    interpreter = False
    while i < n:
        word = words[i]
        pair = (posixpath.basename(word), words[i + 1] if i + 1 < n else "")
        if pair in _RUNNERS:
            i += 2
            while i < n and words[i].startswith("-"):
                i += 2 if words[i] in _UV_VALUE_OPTIONS else 1
            continue
        if _PYTHON_WORD.fullmatch(posixpath.basename(word)):
            interpreter = True
            i += 1
            while i < n and words[i].startswith("-") and words[i] != "-m":
                if words[i] == "-c":
                    return None  # a program on the command line
                i += 2 if words[i] in _PYTHON_VALUE_OPTIONS else 1
            if i < n and words[i] == "-m" and i + 1 < n:
                module = words[i + 1].replace(".", "/")
                for candidate in (module + ".py", module + "/__main__.py"):
                    rel = resolve_command(candidate if "/" in candidate else "./" + candidate, package)
                    if rel is not None:
                        return rel, words[i + 2 :]
                return None
            continue
        break
    if i >= n:
        return None
    word = words[i]
    rel = resolve_command(word, package) if "/" in word else None
    if rel is None and interpreter and "/" not in word and word.endswith(".py"):
        same = by_name.get(word, [])
        rel = same[0] if len(same) == 1 else None  # `cd scripts && python x.py`
    if rel is None:
        return None
    head = None if posixpath.splitext(rel)[1] else read_bytes(package, rel, 128)
    if not interpreter and language_of(rel, head) != "python":
        return None  # run as a command, it must be Python by its extension or its `#!` line
    return rel, words[i + 1 :]


def shebang_problems(package, rel: str, lang: str | None) -> list[str]:
    """What keeps ``rel`` from running as a command: no run bit, no (or a broken) ``#!`` line."""
    inventory = package.inventory
    status, real = inventory.resolve(rel)
    entry = inventory.entries.get(real) if status == "ok" and real else None
    if entry is None or entry.kind != "file" or entry.size == 0:
        return []  # an empty placeholder runs nothing either way
    head = read_bytes(package, real, 256)
    if head is None:
        return []
    problems = []
    if entry.mode and not entry.mode & (stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH):
        problems.append(
            f"it has no run bit, so the shell refuses it with 'Permission denied' (`chmod +x {rel}`; in git, "
            f"`git update-index --chmod=+x {rel}`)"
        )
    if head.startswith(b"\x7fELF") or head[:4] in (b"\xcf\xfa\xed\xfe", b"\xce\xfa\xed\xfe", b"\xca\xfe\xba\xbe"):
        return problems  # a compiled program needs no #! line
    first_line = head.split(b"\n", 1)[0]
    language = LANGUAGE_NAMES.get(lang or "", "")
    interpreter = {"python": "python3", "shell": "bash", "js": "node"}.get(lang or "", "")
    suggestion = f" (`#!/usr/bin/env {interpreter}` as line 1)" if interpreter else ""
    if head.startswith(b"\xef\xbb\xbf#!"):
        problems.append("it starts with a byte-order mark, so the kernel does not see its `#!` line")
    elif head.startswith(b"#!"):
        if first_line.endswith(b"\r"):
            shown = first_line[2:].strip().decode("utf-8", "replace").split(" ")[0].rstrip("\r")
            problems.append(
                f"its `#!` line ends with a carriage return (CRLF line endings), so the kernel looks for an "
                f"interpreter named `{shown}\\r` and fails ('bad interpreter')"
            )
    elif lang == "shell":
        problems.append(
            f"it has no `#!` line{suggestion}, so the calling shell runs it itself: it works from bash, but a program "
            "that runs it directly gets 'Exec format error' and sh runs it without bash features"
        )
    else:
        problems.append(
            f"it has no `#!` line{suggestion}, so the calling shell runs the {language or 'file'} code as shell "
            "commands" + ("" if language else " or the program that runs it gets 'Exec format error'")
        )
    return problems


def looks_runnable(rel: str) -> bool:
    ext = posixpath.splitext(rel)[1].lower()
    return ext in EXTENSIONS or not ext


def interpreter_for(rel: str) -> str:
    lang = EXTENSIONS.get(posixpath.splitext(rel)[1].lower())
    return {"python": "python3", "shell": "bash", "js": "node", "powershell": "pwsh"}.get(lang or "", "bash")


# -- SL703 ----------------------------------------------------------------------------

_NPM_VALUE_OPTIONS = frozenset({"--node-options", "--registry", "--cache", "--userconfig", "--prefix", "-w", "--workspace", "--loglevel"})


_UV_VALUE_OPTIONS = frozenset({
    "--with", "--with-editable", "--with-requirements", "-w", "-p", "--python", "--index", "--index-url",
    "--default-index", "--extra-index-url", "-i", "-c", "--constraints", "--overrides", "--directory", "--project",
    "--cache-dir", "--config-file", "--env-file", "--python-preference", "--index-strategy", "--keyring-provider",
    "--resolution", "--prerelease", "--exclude-newer", "--color", "--link-mode", "--refresh-package",
    "--reinstall-package", "--upgrade-package", "-P", "--build-constraints", "--allow-insecure-host",
})


_PIPX_VALUE_OPTIONS = frozenset({"--python", "--pip-args", "--index-url", "-i", "--backend", "--fetch-python"})


_FLOATING_TAGS = frozenset({"latest", "next", "canary", "beta", "alpha", "rc", "nightly", "*", "x", ""})


@dataclass(frozen=True)
class Unpinned:
    """A runner (npx, uvx, pipx run ...) told to fetch a package at no fixed version."""

    runner: str  # npx, uvx, pipx run …
    spec: str  # the package as written
    name: str  # the package name
    tag: str | None  # `latest` when asked for explicitly


def judge_runner(argv: list[str], installed: AbstractSet[str] = frozenset()) -> Unpinned | None:
    """The unpinned package an ``npx``/``uvx``/``pipx run`` command line fetches, or None.

    ``installed``: the :func:`installed_names` of the npm packages an earlier step installs
    (``npm install pkg``); ``npx`` of one of them runs that copy and fetches nothing."""
    if not argv:
        return None
    head = posixpath.basename(argv[0])
    if head in ("npx", "bunx"):
        return _judge_npm(head, argv[1:], installed)
    if head in ("pnpm", "yarn") and len(argv) > 1 and argv[1] == "dlx":
        return _judge_npm(f"{head} dlx", argv[2:])
    if head == "npm" and len(argv) > 1 and argv[1] in ("exec", "x"):
        return _judge_npm(f"npm {argv[1]}", argv[2:], installed)
    if head == "uvx":
        return _judge_python_runner("uvx", argv[1:], "--from", _UV_VALUE_OPTIONS, True)
    if head == "uv" and argv[1:3] == ["tool", "run"]:
        return _judge_python_runner("uv tool run", argv[3:], "--from", _UV_VALUE_OPTIONS, True)
    if head == "pipx" and len(argv) > 1 and argv[1] == "run":
        return _judge_python_runner("pipx run", argv[2:], "--spec", _PIPX_VALUE_OPTIONS, False)
    return None


# Tools a JavaScript project normally installs itself: `npx jest` runs the project's own copy, whose version
# its package.json pins, and fetches nothing. Reported only with `--yes`, which says a download is expected.
PROJECT_LOCAL_TOOLS = frozenset({
    "tsc", "tsx", "ts-node", "jest", "vitest", "mocha", "ava", "c8", "nyc", "eslint", "prettier", "stylelint",
    "biome", "playwright", "cypress", "vite", "webpack", "rollup", "esbuild", "parcel", "next", "nuxt", "astro",
    "svelte-kit", "tailwindcss", "postcss", "nodemon", "lerna", "nx", "turbo", "changeset", "husky",
    "lint-staged", "knip", "storybook", "typedoc", "tsup", "remix", "expo", "react-native",
})


def _judge_npm(runner: str, args: list[str], installed: AbstractSet[str] = frozenset()) -> Unpinned | None:
    packages: list[str] = []
    expects_download = False
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in ("-y", "--yes"):
            expects_download = True
        if arg in ("--no-install", "--no", "--offline") and runner in ("npx", "npm exec", "npm x"):
            return None  # runs only what is installed: nothing is fetched
        if arg == "--":
            i += 1
            break
        if arg.startswith("--package="):
            packages.append(arg.split("=", 1)[1])
        elif arg in ("-p", "--package"):
            if i + 1 < len(args):
                packages.append(args[i + 1])
            i += 2
            continue
        elif arg in ("-c", "--call", "--shell-mode"):
            return None  # a shell command string: its packages come from -p
        elif arg in _NPM_VALUE_OPTIONS:
            i += 2
            continue
        elif arg.startswith("-"):
            pass
        else:
            break
        i += 1
    specs = packages or ([args[i]] if i < len(args) else [])
    for spec in specs:
        verdict = _npm_spec(spec)
        if verdict is None:
            continue
        name, tag = verdict
        local_first = runner in ("npx", "bunx", "npm exec", "npm x")  # `dlx` always downloads
        if tag is None and local_first and not packages and name in installed:
            continue  # installed by an earlier step: that copy runs
        if tag is None and local_first and not packages and not expects_download and name in PROJECT_LOCAL_TOOLS:
            continue  # the project's own copy runs
        return Unpinned(runner, spec, name, tag)
    return None


def _initials(words: list[str]) -> str:
    return "".join(word[0] for word in words if word)


def installed_names(package: str) -> set[str]:
    """What ``npx`` may call an installed npm package by: its name and, as far as a name tells, its
    command: the name without its scope (``@scope/tool``: ``tool``), without a ``-cli`` ending, or
    the initials of its words (``@azure/static-web-apps-cli``: ``swa``)."""
    base = package.rsplit("/", 1)[-1]
    words = base.split("-")
    names = {package, base, base.removesuffix("-cli")}
    if len(words) > 1:
        names.add(_initials(words))
    if len(words) > 2 and words[-1] == "cli":
        names.add(_initials(words[:-1]))
    return names


def _npm_spec(spec: str) -> tuple[str, str | None] | None:
    """(name, tag) when an npm package spec names no version; None when pinned or not judged."""
    if not spec or spec[0] in "./~" or re.search(r"[$<>{}`*\[\]]|\.\.\.", spec) or ":" in spec:
        return None  # a path, a placeholder, a URL or git spec
    if "/" in spec and not spec.startswith("@"):
        return None  # user/repo: a GitHub shorthand
    at = spec.find("@", 1)
    if at < 0:
        return spec, None
    name, version = spec[:at], spec[at + 1 :]
    if version.lower() in _FLOATING_TAGS:
        return name, version or None
    return None


def _judge_python_runner(
    runner: str, args: list[str], source_flag: str, value_options, ends_at_dashdash: bool
) -> Unpinned | None:
    """uvx / uv tool run (``--from``; ``--`` ends the options) and pipx run (``--spec``): the
    package is the source option's value, else the first argument that is not an option."""
    source = None
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--" and ends_at_dashdash:
            i += 1
            break
        if arg.startswith(source_flag + "="):
            source = arg.split("=", 1)[1]
        elif arg == source_flag:
            source = args[i + 1] if i + 1 < len(args) else None
            i += 2
            continue
        elif arg in value_options:
            i += 2
            continue
        elif arg.startswith("-"):
            pass
        else:
            break
        i += 1
    spec = source if source is not None else (args[i] if i < len(args) else None)
    verdict = _python_spec(spec)
    if verdict is None:
        return None
    return Unpinned(runner, spec or "", verdict[0], verdict[1])


def _python_spec(spec: str | None) -> tuple[str, str | None] | None:
    """(name, tag) when a Python requirement names no version; None when pinned or not judged."""
    if not spec:
        return None
    if re.search(r"(===|==|>=|<=|~=|!=|<|>)", spec):
        return None  # a version or a range
    if "://" in spec or spec.startswith(("git+", "file:")) or spec[0] in "./~" or re.search(r"[$<>{}`*]", spec):
        return None  # a URL, a path or a placeholder
    base = _without_extras(spec)  # extras: `black[jupyter]`
    if "@" in base:
        name, version = base.split("@", 1)
        if version.strip().lower() in _FLOATING_TAGS:
            return name, version.strip() or None
        return None
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", base):
        return None
    return base, None


_RUNNER_NAMES = frozenset({"npx", "bunx", "pnpm", "yarn", "npm", "uvx", "uv", "pipx"})


@dataclass(frozen=True)
class RunnerUse:
    """Where an unpinned runner call is written in a script."""

    offset: int
    length: int
    verdict: Unpinned


# Calls that run a command line (Python's subprocess and os, Node's child_process, execa, zx).
_EXEC_CALLS = lazyre.compile(
    r"(?:(?<![\w$])(?:run|call|check_call|check_output|Popen|system|popen|getoutput|getstatusoutput"
    r"|create_subprocess_shell|create_subprocess_exec|exec|execSync|spawn|spawnSync|execFile|execFileSync"
    r"|execa|execaSync|execaCommand|execaCommandSync)[ \t]*\($)"
)

if TYPE_CHECKING:  # a type only: the analysis is called by rules, it does not depend on the rule API
    from .rule import RuleContext


def _in_exec_call(code: str, start: int) -> bool:
    """Whether the string at ``start`` is an argument of a call that runs it (``subprocess.run(…)``,
    ``execSync(…)``), or a zx command (``$`…```)."""
    if start > 0 and code[start - 1] == "$" and code[start] == "`":
        return True
    depth = 0
    for index in range(start - 1, max(-1, start - 300), -1):
        char = code[index]
        if char in ")]}":
            depth += 1
        elif char in "([{":
            if depth == 0:
                if char != "(":
                    continue  # a list or an object literal inside the call: keep looking
                return _EXEC_CALLS.search(code[max(0, index - 40) : index + 1]) is not None
            depth -= 1
        elif char == ";" and depth == 0:
            return False  # the start of this statement: no call around the string
    return False


def runner_uses(script: Script) -> list[RunnerUse]:
    """Where a script runs ``npx``/``uvx``/``pipx run`` (and kin) on an unpinned package.

    Shell and PowerShell: a command whose name is the runner. Python and JavaScript:
    an argv list whose first item is the runner (``["npx", "-y", "pkg"]``), or a
    string passed to a call that runs it (``subprocess.run("npx pkg", shell=True)``,
    ``execSync(`npx pkg`)``); a message or usage text that mentions npx is neither."""
    found: list[RunnerUse] = []
    if not any(name in script.text for name in ("npx", "bunx", "dlx", "npm exec", "uvx", "tool run", "pipx")):
        return found
    if script.lang in ("shell", "powershell"):
        for command in shell_commands(script.text, script.masked.code):
            if posixpath.basename(command.name) not in _RUNNER_NAMES:
                continue
            verdict = judge_runner(command_words(script.text, command))
            if verdict is not None:
                found.append(RunnerUse(command.start, len(command.name), verdict))
        return found
    strings = script.masked.strings
    code = script.masked.code
    for index, (start, end, value) in enumerate(strings):
        if value in _RUNNER_NAMES:
            before = code[:start].rstrip()
            if not before.endswith(("[", "(")):
                continue  # only the first item of an argv list, or the first argument of a call
            argv = [value]
            previous_end = end
            for next_start, next_end, next_value in strings[index + 1 : index + 12]:
                if not re.fullmatch(r"[\s,\[(]*", code[previous_end:next_start]):
                    break
                argv.append(next_value)
                previous_end = next_end
            verdict = judge_runner(argv)
            if verdict is not None:
                found.append(RunnerUse(start + 1, len(value), verdict))
            continue
        if not any(name in value for name in ("npx", "bunx", "dlx", "uvx", "tool run", "pipx", "npm exec")):
            continue
        if not _in_exec_call(code, start):
            continue  # a message, a usage line or documentation
        quote = 3 if script.text[start : start + 3] in ('"""', "'''") else 1
        for command in shell_commands(value, lex_shell(value).code):
            if posixpath.basename(command.name) not in _RUNNER_NAMES:
                continue
            verdict = judge_runner(command_words(value, command))
            if verdict is not None:
                found.append(RunnerUse(start + quote + command.start, len(command.name), verdict))
    return found


# -- SL703 in SKILL.md: the commands the body tells the agent to run

_PROMPTED_FENCES = frozenset({"console", "shell-session", "shellsession", "sh-session", "terminal"})


# `npm install pkg`, `pnpm add -D pkg`, `yarn add pkg`, `bun add pkg`: the words after these name packages.
_INSTALL_VERBS = {"npm": {"install", "i", "add", "ci"}, "pnpm": {"add", "install", "i"}, "yarn": {"add"}, "bun": {"add", "install", "i"}}


@dataclass(frozen=True)
class SkillMdCommand:
    """A simple command SKILL.md's body tells the agent to run: its words and where its name is."""

    words: tuple[str, ...]
    line: int  # in SKILL.md
    column: int
    length: int  # of the command name
    fenced: bool  # in a fenced block (else a code span in the text)


def _shell_text_commands(text: str, lines: list[int], columns: list[int], fenced: bool) -> list[SkillMdCommand]:
    """The runner and package-manager commands of a piece of shell ``text`` whose n-th line is
    SKILL.md line ``lines[n]``, starting at column ``columns[n]`` (1-based): the only ones SL703
    reads, so the others are never split into words."""
    masked = lex_shell(text)
    found = []
    for command in shell_commands(text, masked.code):
        if posixpath.basename(command.name) not in _SKILL_MD_COMMAND_NAMES:
            continue
        line, column = masked.position(command.start)
        found.append(SkillMdCommand(
            tuple(command_words(text, command)), lines[line - 1], columns[line - 1] + column - 1, len(command.name), fenced
        ))
    return found


# What skill_md_commands keeps: the runners, and the package managers whose installs a later runner uses.
_SKILL_MD_COMMAND_NAMES = _RUNNER_NAMES | frozenset(_INSTALL_VERBS)


def skill_md_commands(package) -> list[SkillMdCommand]:
    """The runner and package-manager commands SKILL.md's body gives: in fenced shell blocks (``bash``, ``sh``,
    ``console`` …; in a transcript only the lines after a ``$ `` prompt) and in code spans
    that start with a command (`` `npx pkg --flag` ``). Each block is read as one shell text:
    comments, strings and heredoc bodies are blanked, continued lines kept together."""
    if not package.readable:
        return []
    lines = package.source.lines
    found: list[SkillMdCommand] = []
    fenced: set[int] = set()
    for texts, prompted in _shell_blocks(lines, package.body_start_line, fenced):
        kept: list[str] = []
        previous_continued = False
        for _, text in texts:
            stripped = text.lstrip()
            if prompted and stripped.startswith("$ "):
                at = len(text) - len(stripped)
                text = " " * (at + 2) + text[at + 2 :]  # the prompt blanked, columns kept
            elif prompted and not previous_continued:
                text = ""  # output in a console transcript
            previous_continued = text.rstrip().endswith("\\")
            kept.append(text)
        if kept:
            numbers_of = [number for number, _ in texts]
            found.extend(_shell_text_commands("\n".join(kept), numbers_of, [1] * len(numbers_of), True))
    passages: Passages | None = None
    for index, text in enumerate(lines[package.body_start_line :], start=package.body_start_line + 1):
        if index in fenced or "`" not in text:
            continue
        for span in _CODE_SPAN.finditer(text):
            content = span.group(2)
            first = _first_word(content.strip())
            if first is None or posixpath.basename(first[0]) not in _COMMAND_STARTS:
                continue  # a name or a path in prose, not a command
            if passages is None:
                passages = Passages(lines, 0, fenced)
            if not _given_to_run(*passages.sentence_around(index, span.start())):
                continue
            lead = len(content) - len(content.lstrip())
            if content.startswith("$ ", lead):
                content = content[:lead] + "  " + content[lead + 2 :]  # a prompt, blanked: columns kept
            found.extend(_shell_text_commands(content, [index], [span.start(2) + 1], False))
    found.sort(key=lambda command: (command.line, command.column))
    return found


_COMMAND_STARTS = frozenset({"npx", "bunx", "pnpm", "yarn", "npm", "uvx", "uv", "pipx", "bun"})


# A list item or line that is a key and its value: "**Cross-platform install:** `npx skills add x`".
_KEY_LABEL = lazyre.compile(r"^\W*(?:\*\*|__)([^*_\n]{1,60})(?:\*\*|__)\s*(?::\s*)?$")


def _given_to_run(before: str, after: str) -> bool:
    """Whether a code span that starts with a command, read in its sentence (the text ``before``
    it), is a command the text gives the agent to run: not a sample value offered "for example"
    ("a runner, for example `pipx run ruff`"), and not the value of a key ("**Install:** `npx
    skills add x`", facts for the person reading); a key that says to run it ("**Run:**") gives it."""
    if OFFERED_AS_EXAMPLE.search(before):
        return False
    key = _KEY_LABEL.match(before)
    return key is None or _RUN_VERB.match(key.group(1).strip(" :") + " ") is not None


def installed_npm_packages(command: SkillMdCommand) -> list[str]:
    """The packages an ``npm install pkg`` (``pnpm add``, ``yarn add``, ``bun add``) installs;
    empty for any other command, and for a bare ``npm install``."""
    words = command.words
    if len(words) < 3 or words[1] not in _INSTALL_VERBS.get(posixpath.basename(words[0]), ()):
        return []
    names = []
    for word in words[2:]:
        if word and not word.startswith("-"):
            at = word.find("@", 1)
            names.append(word[:at] if at > 0 else word)
    return names


def skill_md_runner_uses(package, ctx: RuleContext | None = None) -> list[tuple[SkillMdCommand, Unpinned]]:
    """The unpinned runner calls among the commands SKILL.md gives (SL703).

    Once SKILL.md has installed npm packages (``npm install -D @azure/static-web-apps-cli``),
    a later ``npx`` of one of them or of its command (``npx swa``) runs the installed copy
    and fetches nothing. A code span in the text that repeats a command a fenced block or an
    earlier code span already gives is the same command, reported once; one that repeats a
    command a bundled script runs describes the script ("The script creates the app with
    `bunx create-expo-app`"), which is reported at the script."""
    raw = package.source.text if package.readable else ""
    if not any(name in raw for name in ("npx", "bunx", "dlx", "npm exec", "uvx", "tool run", "pipx")):
        return []
    installed: set[str] = set()  # grows as the commands go on; judge_runner only reads it
    found = []
    given_elsewhere = set()
    for command in skill_md_commands(package):
        for name in installed_npm_packages(command):
            installed.update(installed_names(name))
        if not command.words or posixpath.basename(command.words[0]) not in _RUNNER_NAMES:
            continue
        verdict = judge_runner(list(command.words), installed)
        if verdict is None:
            continue
        found.append((command, verdict))
        if command.fenced:
            given_elsewhere.add((verdict.runner, verdict.spec))
    if any(not command.fenced for command, _ in found):
        for script in package_scripts(package, ctx):
            given_elsewhere.update((use.verdict.runner, use.verdict.spec) for use in runner_uses(script))
    kept = []
    for command, verdict in found:
        key = (verdict.runner, verdict.spec)
        if not command.fenced:
            if key in given_elsewhere:
                continue
            given_elsewhere.add(key)  # a later code span naming it again refers back to this one
        kept.append((command, verdict))
    return kept


def pin_example(verdict: Unpinned) -> str:
    name = verdict.name
    if verdict.runner in ("uvx", "uv tool run"):
        return f"`{verdict.runner} {name}@<version>`, or `--from '{name}==<version>'`"
    if verdict.runner == "pipx run":
        return f"`pipx run --spec '{name}==<version>' …`"
    return f"`{verdict.runner} {name}@<version>`"


def unpinned_what(verdict: Unpinned) -> str:
    if verdict.tag:
        return f"asks for the `{verdict.tag}` release of `{verdict.name}` explicitly"
    return f"names no version of `{verdict.name}`"
