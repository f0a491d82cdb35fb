"""Shell command lines read as text: where each simple command starts and ends, and its words."""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from ... import lazyre

_PREFIX_WORDS = frozenset({"then", "do", "else", "elif", "if", "while", "until", "!", "time", "exec", "command", "builtin", "nohup", "sudo", "env"})


ASSIGNMENT = lazyre.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=\S*")


@dataclass(eq=False, repr=False)
class Command:
    """One simple shell command: its words (raw text) and where its name starts."""

    name: str
    start: int  # offset of the command name in the text
    end: int  # offset past the command's last character
    keywords: tuple[str, ...]  # `while`, `if`, … written before it
    piped: bool  # fed by a `|`


# What can end a simple command: the loop below skips to the next one in C (a character loop in
# Python was some 200 ns a character); every other character leaves the split as it is. A ``(``
# always ends one: after ``<`` or ``>`` it opens a process substitution, a command inside.
_SEPARATOR_CHAR = lazyre.compile(r"[;&|(){}`\n]")
_WORD = lazyre.compile(r"[^\s;&|()<>]+")


def shell_commands(text: str, code: str) -> list[Command]:
    """Split masked shell ``code`` into simple commands (the raw ``text`` gives their words)."""
    commands: list[Command] = []
    n = len(code)
    start = 0
    sep_before = "\n"
    unclosed_from = n + 1  # where a ${ was found with no } after it
    next_separator = _SEPARATOR_CHAR.search
    i = 0
    while i <= n:
        found = next_separator(code, i) if i < n else None
        i = found.start() if found is not None else n  # the end of the code ends the last command
        c = code[i] if i < n else "\n"
        separator = True
        if c == "\n" and i > 0 and code[i - 1] == "\\":
            separator = False  # a continued line
        if c == "&" and i > 0 and code[i - 1] in "<>":
            separator = False  # >&2, <&3
        if c == "&" and i + 1 < n and code[i + 1] == ">":
            separator = False  # &> file
        if c == "{" and i > 0 and code[i - 1] == "$":
            # No "}" after one ${ means none after any later one: looked for once, not per ${.
            close = code.find("}", i) if i < unclosed_from else -1
            if close < 0:
                unclosed_from = min(unclosed_from, i)
            i = close + 1 if close > 0 else i + 1
            continue
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
        match = _WORD.match(code, i, end)
        if not match:
            return
        word = match.group(0)
        if word in _PREFIX_WORDS or ASSIGNMENT.fullmatch(text[match.start() : match.end()] if match.end() <= len(text) else word):
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
