"""How SKILL.md tells the agent to run a script, and whether that works (SL702): invocations, Python runs, shebangs."""

from __future__ import annotations

import posixpath
import re
import shlex
import stat
from dataclasses import dataclass

from ... import lazyre
from ..text.markdown import CODE_SPAN, FENCE_LINE
from .lexers import EXTENSIONS, HEREDOC, LANGUAGE_NAMES, language_of, read_bytes
from .shell_commands import ASSIGNMENT

SHELL_FENCES = frozenset({"bash", "sh", "shell", "zsh", "ksh", "console", "shell-session", "shellsession", "sh-session", "terminal"})


_ROOT_PREFIX = lazyre.compile(r"^(?:\$\{[A-Za-z_][A-Za-z0-9_]*\}|\$[A-Za-z_][A-Za-z0-9_]*|\{[A-Za-z_][A-Za-z0-9_-]*\}|<[^<>/]+>)/")


# "run `scripts/x.sh`", "Re-run this skill's `scripts/x.sh`": a verb right before the code span.
# The verb and up to three fillers, each with the blanks after it: where such a chain ends,
# (?i)\b(?:run|execute|invoke|launch|call)\s+(?:(?:the|this|…)\s+){0,3}$ matches the text
# before. Found in one pass over the line (_run_phrase_ends), not searched for in the text
# before every code span.
RUN_VERB = lazyre.compile(r"(?i)\b(?:run|execute|invoke|launch|call)\s+")


_RUN_FILLER = lazyre.compile(r"(?i)(?:the|this|that|skill's|script|command|helper|it|with)\s+")


_BLANKS = lazyre.compile(r"\s*")


# (matched after blanks, as first_word does: a search would otherwise scan on from inside every word)
_ASSIGNMENT_WORD = lazyre.compile(r"""(?<!\S)[A-Za-z_][A-Za-z0-9_]*=(?:"[^"]*"|'[^']*'|\S*)\s+""")


_COMMAND_WORD = lazyre.compile(r"""("[^"]+"|'[^']+'|[^\s;&|()<>"']+)""")


UV_VALUE_OPTIONS = frozenset({
    "--with", "--with-editable", "--with-requirements", "-w", "-p", "--python", "--index", "--index-url",
    "--default-index", "--extra-index-url", "-i", "-c", "--constraints", "--overrides", "--directory", "--project",
    "--cache-dir", "--config-file", "--env-file", "--python-preference", "--index-strategy", "--keyring-provider",
    "--resolution", "--prerelease", "--exclude-newer", "--color", "--link-mode", "--refresh-package",
    "--reinstall-package", "--upgrade-package", "-P", "--build-constraints", "--allow-insecure-host",
})
PROMPTED_FENCES = frozenset({"console", "shell-session", "shellsession", "sh-session", "terminal"})


NOT_COMMANDS = frozenset({".md", ".markdown", ".txt", ".json", ".yaml", ".yml", ".toml", ".csv", ".html", ".css", ".png", ".jpg", ".svg", ".ps1", ".bat", ".cmd", ".exe", ".psm1"})


@dataclass(frozen=True, eq=False, repr=False)
class Invocation:
    """A command line in SKILL.md that runs a file of the package."""

    word: str  # the first word as written
    rel: str  # the package file it names
    line: int  # in SKILL.md
    column: int


def first_word(line: str) -> tuple[str, int] | None:
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


def _run_phrase_ends(text: str) -> set[int]:
    """Where a run phrase ("run", "execute the script", "call it with") ends in ``text``,
    the blanks after it included."""
    ends = set()
    for verb in RUN_VERB.finditer(text):
        at = verb.end()
        ends.add(at)
        for _ in range(3):
            filler = _RUN_FILLER.match(text, at)
            if filler is None:
                break
            at = filler.end()
            ends.add(at)
    return ends


def shell_blocks(package, fenced: set[int]):
    """The fenced shell blocks of SKILL.md's body: for each, its lines (file number, text) without the
    fences, and whether it is a transcript (commands after a ``$ `` prompt, output between).
    Every fenced line of the body, shell or not, is added to ``fenced``."""
    lines = package.source.lines
    for info, numbers in package.body_fenced_blocks:
        fenced.update(numbers)
        if info not in SHELL_FENCES:
            continue
        texts = [(number, lines[number - 1]) for number in numbers[1:] if number - 1 < len(lines)]
        if texts and FENCE_LINE.match(texts[-1][1]):
            texts = texts[:-1]  # the closing fence
        yield texts, info in PROMPTED_FENCES or any(t.lstrip().startswith("$ ") for _, t in texts)


def invocations(package) -> list[Invocation]:
    """Where SKILL.md tells the agent to run a file of the skill as a command (no interpreter before it)."""
    if not package.readable:
        return []
    lines = package.source.lines
    found: list[Invocation] = []
    fenced: set[int] = set()
    for texts, prompted in shell_blocks(package, fenced):
        continued = False
        heredoc: str | None = None
        for number, text in texts:
            if heredoc is not None:
                if text.strip() == heredoc:
                    heredoc = None
                continue
            was_continued, continued = continued, text.rstrip().endswith("\\")
            match = HEREDOC.search(text)
            if match:
                heredoc = match.group(3)
            if was_continued or not text.strip() or text.lstrip().startswith("#"):
                continue
            if prompted and not text.lstrip().startswith("$ "):
                continue  # output in a console transcript
            first = first_word(text)
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
        for span in CODE_SPAN.finditer(text):
            content = span.group(2).strip()
            first = first_word(content)
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


_INTERPRETERS = frozenset({"bash", "sh", "zsh", "ksh", "dash", "python", "python3", "node", "deno", "bun", "ruby", "perl", "pwsh", "powershell"})


def interpreted_runs(package) -> set[tuple[str, tuple[str, ...]]]:
    """The runs a fenced shell block of SKILL.md makes through an interpreter (``bash scripts/x.sh
    <file>``), each as (package file, its arguments): those run whatever the file's mode or first line."""
    found: set[tuple[str, tuple[str, ...]]] = set()
    if not package.readable:
        return found
    for texts, _ in shell_blocks(package, set()):
        for _, text in texts:
            words = text.strip().removeprefix("$ ").split()
            if len(words) >= 2 and words[0].rsplit("/", 1)[-1] in _INTERPRETERS:
                rel = resolve_command(words[1], package)
                if rel is not None:
                    found.add((rel, tuple(words[2:])))
    return found


def invocation_arguments(package, call: Invocation) -> tuple[str, ...]:
    """The words after the file an invocation runs, to the end of its code span or line."""
    lines = package.source.lines
    text = lines[call.line - 1] if 0 < call.line <= len(lines) else ""
    rest = text[call.column - 1 + len(call.word) :]
    return tuple(rest.split("`", 1)[0].split())


@dataclass(frozen=True, eq=False, repr=False)
class ScriptRun:
    """A command line in SKILL.md that runs a script of the package, and the arguments it passes."""

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
    runs: dict[str, list[ScriptRun]] = {}
    candidates = _command_lines(package)
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



def _command_lines(package) -> list[tuple[int, str]]:
    """The command lines of SKILL.md's body, each with its file line: the lines of shell (and console)
    fences, continued lines joined, and the code spans of the text."""
    lines = package.source.lines
    candidates: list[tuple[int, str]] = []
    fenced: set[int] = set()
    for info, numbers in package.body_fenced_blocks:
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
        for span in CODE_SPAN.finditer(text):
            candidates.append((index, span.group(2).strip()))
    return candidates


def shell_runs(package, rel: str) -> list[ScriptRun]:
    """The command lines of SKILL.md that run the shell script ``rel``, as a command (``./scripts/x.sh a``)
    or with a shell (``bash scripts/x.sh a``); a file name alone (``./x.sh``, ``bash x.sh``, as a table
    of the scripts gives it) names it when no other file of the package has that name. Usage notation (``[name]``) is kept: it
    says which arguments the run passes."""
    if not package.readable:
        return []
    base = posixpath.basename(rel)
    if base not in package.source.text:
        return []
    unique = sum(1 for other, entry in package.inventory.entries.items() if entry.kind == "file" and posixpath.basename(other) == base) == 1
    found: list[ScriptRun] = []
    for number, text in _command_lines(package):
        if base not in text:
            continue
        command = text[2:] if text.startswith("$ ") else text
        for words in _simple_commands(command):
            i = 0
            while i < len(words) and (words[i] in _WRAPPER_WORDS or ASSIGNMENT.fullmatch(words[i])):
                i += 1
            shell = i < len(words) and posixpath.basename(words[i]) in ("sh", "bash", "zsh", "dash", "ksh")
            if shell:
                i += 1
                while i < len(words) and words[i].startswith("-"):
                    i += 1
            if i >= len(words):
                continue
            word = words[i]
            named = resolve_command(word, package) == rel or (
                unique and posixpath.basename(word) == base and (word.startswith("./") or shell and "/" not in word)
            )  # a bare ``x.sh`` with no shell is a name in a sentence: a shell would look for it on PATH
            if named:
                found.append(ScriptRun(number, command, tuple(words[i + 1 :])))
    return found


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
    while i < n and (words[i] in _WRAPPER_WORDS or ASSIGNMENT.fullmatch(words[i])):
        i += 1
    interpreter = False
    while i < n:
        word = words[i]
        pair = (posixpath.basename(word), words[i + 1] if i + 1 < n else "")
        if pair in _RUNNERS:
            i += 2
            while i < n and words[i].startswith("-"):
                i += 2 if words[i] in UV_VALUE_OPTIONS else 1
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
