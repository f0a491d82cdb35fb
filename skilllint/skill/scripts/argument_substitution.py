"""What Claude Code's argument substitution does to SKILL.md's code: read by SL704.

When a skill is invoked (by the user or by the model), Claude Code replaces the
argument placeholders of SKILL.md's body before the model reads it: named ``$name``
(from the ``arguments`` field), ``$ARGUMENTS[N]``, ``$N`` and ``$ARGUMENTS``, in
that order, code blocks included. Its pattern for ``$N`` is ``/\\$(\\d+)(?!\\w)/g``
and a missing argument becomes the empty string, so ``awk '{print $1}'``, a shell
function's ``"$1"`` or an SQL ``$1`` placeholder reaches the model as the skill's
second argument, or as nothing. There is no escape: ``\\$1`` is replaced all the
same (the backslash stays). Forms the pattern does not match are read the same by
their own programs: ``${1}`` in shell, ``$(1)`` in awk. Files under references/ or
scripts/ are not substituted.

A ``$N`` in code is reported when the code plainly belongs to another program: an
awk program, SQL, a regex replacement, a shell script or function (``$@``,
``shift``, ``case "$1"`` …), or a block in a programming language. Anywhere else in
code (an untagged block, a plain shell command, a code span) it is reported only
when the skill does not use arguments at all: with ``argument-hint`` or
``arguments`` declared, ``$ARGUMENTS`` used, or ``$N`` written in its prose, a
``gh pr view $1`` is the feature at work.
"""

from __future__ import annotations

import bisect
import re
from typing import TYPE_CHECKING

from ... import lazyre
from ..text.markdown import CODE_SPAN

# The fenced blocks as SL702/SL703 read them: a line scan, far cheaper than a Markdown parse.
from .invocations import SHELL_FENCES

if TYPE_CHECKING:
    from ...targets import Target

# Claude Code's `$N` (argumentSubstitution.ts, /\$(\d+)(?!\w)/g with JavaScript's ASCII \d and \w).
# All the digits are taken at once (a lookahead is never re-entered): the character after them is
# then no digit, and only a letter or `_` there makes it no placeholder.
POSITIONAL = lazyre.compile(r"\$(?=([0-9]+))\1(?![A-Za-z_])")


SHELL_LANGUAGES = SHELL_FENCES | {"fish"}


# Text, markup and data blocks hold output, templates and examples, where `$1` is no syntax of their own.
# A block in any other language is code written for that language: a `$1` there is its own (a capture
# group, a placeholder, a variable).
UNTAGGED = frozenset({
    "", "text", "txt", "plain", "plaintext", "markdown", "md", "output", "log", "html", "xml", "svg", "json", "jsonc",
    "yaml", "yml", "toml", "ini", "csv", "tsv", "diff", "mermaid", "prompt",
})


SQL_LANGUAGES = frozenset({"sql", "psql", "pgsql", "plpgsql", "postgres", "postgresql", "mysql", "sqlite"})


AWK_LANGUAGES = frozenset({"awk", "gawk", "mawk"})


_AWK_CALL = lazyre.compile(r"\b[gm]?awk\b")


_SQL_WORDS = lazyre.compile(r"\b(?:SELECT|INSERT INTO|UPDATE|DELETE FROM|WHERE|VALUES|RETURNING)\b")


_REPLACEMENT_CALL = lazyre.compile(r"\.replace(?:All)?\(|\bre\.sub\(|\bsub\(|-replace\b|\bReplace\(|\bgsub\(")


# Signs that a shell block is a script or defines a function: its `$1` is that script's parameter.
SHELL_SCRIPT = lazyre.compile(
    r"\$[@#*]|\$\{[@#*]|\bshift\b|\bgetopts\b|^#!|\(\)[ \t]*\{|\bfunction[ \t]+[A-Za-z_]|\bcase[ \t]+\"?\$\{?[0-9]",
    re.MULTILINE,
)


# A skill's own use of arguments in its prose: `$1`-`$9` not written as an amount ($1.50, $2,000).
_PROSE_ARGUMENT = lazyre.compile(r"\$[0-9](?![0-9A-Za-z_]|[.,][0-9])")


_DECIMALS = lazyre.compile(r"[.,][0-9]")


def is_amount(text: str, token: re.Match, context: str | None) -> bool:
    """Whether a ``$N`` is written as an amount of money (``$1.50``, ``$2,000``; ``$600`` where no
    program is named): text, not code, whatever Claude Code makes of it."""
    if _DECIMALS.match(text, token.end()):
        return True
    return context is None and len(token.group(1)) > 1


def ordinal(number: int) -> str:
    if 10 <= number % 100 <= 20:
        suffix = "th"
    else:
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"


def takes_arguments(package, targets: tuple[Target, ...], code_lines: set[int]) -> bool:
    """Whether the skill takes arguments on purpose: a declared ``argument-hint`` or
    ``arguments``, ``$ARGUMENTS`` anywhere in the body, or ``$1`` … in its prose."""
    for target in targets:
        mapping = package.view(target).mapping
        if isinstance(mapping, dict) and ("argument-hint" in mapping or "arguments" in mapping):
            return True
    if "$ARGUMENTS" in package.body:
        return True
    for number, text in enumerate(package.source.lines[package.body_start_line :], start=package.body_start_line + 1):
        if number in code_lines or "$" not in text:
            continue
        prose = CODE_SPAN.sub(lambda span: " " * len(span.group(0)), text)
        if _PROSE_ARGUMENT.search(prose):
            return True
    return False


def _quoted_after_awk(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The '…' and "…" strings of ``text[start:end]`` that open after an ``awk`` call: its program
    and arguments. One pass from the first call."""
    call = _AWK_CALL.search(text, start, end)
    if call is None:
        return []
    strings = []
    quote, opened = None, 0
    for index in range(call.end(), end):
        char = text[index]
        if quote is None:
            if char in "'\"":
                quote, opened = char, index
        elif char == quote:
            strings.append((opened, index))
            quote = None
    if quote is not None:
        strings.append((opened, end))
    return strings


def foreign_contexts(text: str, start: int, end: int, tokens: list[re.Match], language: str | None, script_block: bool) -> list[str | None]:
    """For each ``$N`` of ``tokens`` in the code ``text[start:end]``, what other program it is written
    for, or None when nothing says (``language``: the fence's info word, None for a code span).
    Each question is asked of the code once, not once per token."""
    awk_strings = _quoted_after_awk(text, start, end) if language not in AWK_LANGUAGES else []
    sql = language in SQL_LANGUAGES or _SQL_WORDS.search(text, start, end) is not None
    replacement = _REPLACEMENT_CALL.search(text, start, end)
    contexts: list[str | None] = []
    for token in tokens:
        at = token.start()
        if language in AWK_LANGUAGES:
            contexts.append("awk")
            continue
        string = bisect.bisect_right(awk_strings, (at, len(text))) - 1
        if string >= 0 and awk_strings[string][0] < at <= awk_strings[string][1]:
            contexts.append("awk")
        elif sql:
            contexts.append("sql")
        elif replacement is not None and replacement.start() < at:
            contexts.append("replacement")
        elif language in SHELL_LANGUAGES:
            contexts.append("shell" if script_block else None)
        elif language is not None and language not in UNTAGGED:
            contexts.append("language")
        else:
            contexts.append(None)
    return contexts


REWRITES = {
    "awk": ("this awk program", "write the field as `$({n})`, which awk reads the same and Claude Code leaves alone"),
    "sql": (
        "this SQL",
        "use named parameters, or keep the query in a file under scripts/ or references/, which Claude Code does not substitute",
    ),
    "replacement": (
        "this regex replacement",
        "write the group as `${{{n}}}` where the regex engine takes that form (.NET, Perl, Rust), or move the code into a "
        "file under scripts/ or references/, which Claude Code does not substitute",
    ),
    "shell": ("this shell script", "write `${{{n}}}`, which the shell reads the same and Claude Code leaves alone"),
    "language": (
        "this {language} code",
        "move the code into a file under scripts/ or references/, which Claude Code does not substitute",
    ),
    None: (
        "this code",
        "in shell write `${{{n}}}`, in awk `$({n})`, or move the code into a file under scripts/ or references/; if it is "
        "meant as the skill's argument, declare `argument-hint`",
    ),
}
