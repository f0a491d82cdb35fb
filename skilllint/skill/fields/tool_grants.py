"""What a skill's `allowed-tools` pre-approves, read as Claude Code reads permission rules.

Claude Code takes `allowed-tools` as a string of tools separated by spaces or commas, or as a
list; parentheses hold a rule's specifier, spaces included (`Bash(git diff:*)`). While the skill
runs, a listed tool is used without asking the user. A rule that is a bare tool name matches
every use of the tool (`Bash` is every shell command), `Bash(*)` is the same as `Bash`, and
`Bash(prefix:*)` / `Bash(prefix *)` match the commands that start with the prefix. A prefix that
is itself a command runner (a shell, `sudo`, `env`, `xargs`, an interpreter taking code on its
command line) matches every command too: `Bash(sh:*)` allows `sh -c '<anything>'`. The file
tools (`Edit`, `Write`, …) take gitignore-style paths; a bare name or a pattern of nothing but
wildcards and roots (`Write(**)`, `Edit(//**)`) allows writing any file.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ... import lazyre
from ...diagnostics import Span
from .field_checks import value_span

if TYPE_CHECKING:
    from ..package import FrontmatterView, SkillPackage

# Shells and commands whose arguments are another command: a prefix of one of these that does
# not go on to name what it runs (`Bash(sh:*)`, `Bash(bash -c:*)`, `Bash(env:*)`) approves every command.
COMMAND_RUNNERS = frozenset(
    {
        "sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "csh", "tcsh", "ash", "busybox",
        "pwsh", "powershell", "cmd",
        "sudo", "doas", "su", "env", "xargs", "eval", "exec", "command", "builtin", "nohup", "nice",
        "time", "timeout", "stdbuf", "setsid", "watch", "script",
        # a file of shell code the agent may write first, and the package runners (`npx -c '…'`,
        # `uvx --from x sh`): each runs whatever it is given
        "source", ".", "npx", "pnpx", "bunx", "uvx",
    }
)
# Options of a runner with which it only looks its command up and runs nothing (`command -v git`).
LOOKUP_ONLY = {"command": frozenset({"-v", "-V"})}
# Tools whose subcommand runs a command line given as its arguments (`npm exec -- sh -c …`,
# `uv run sh -c …`, `poetry run …`), or code of a package or project it is pointed at: an install
# runs the package's build and lifecycle hooks (`pip install ./x` runs its setup.py, `npm install`
# its `postinstall`), `npm run`/`cargo run`/`go run` the project's scripts and programs, which the
# agent may write first. A prefix that stops before the subcommand, or at it, approves every command.
RUNNING_SUBCOMMANDS = {
    "npm": frozenset({"exec", "x", "install", "i", "ci", "run", "run-script"}), "pnpm": frozenset({"exec", "dlx", "install", "i", "run"}),
    "yarn": frozenset({"exec", "dlx", "install", "add", "run"}),
    "pip": frozenset({"install", "download", "wheel"}), "pip3": frozenset({"install", "download", "wheel"}),
    "gem": frozenset({"install"}), "cargo": frozenset({"run", "install"}), "go": frozenset({"run", "generate"}),
    "bun": frozenset({"x"}), "uv": frozenset({"run", "tool"}), "poetry": frozenset({"run"}), "pdm": frozenset({"run"}),
    "hatch": frozenset({"run"}), "pipenv": frozenset({"run"}), "pipx": frozenset({"run"}), "bundle": frozenset({"exec"}),
    "conda": frozenset({"run"}), "mamba": frozenset({"run"}), "pixi": frozenset({"run", "exec"}),
}
# Interpreters that run code given on their command line (`python -c`, `node -e`, `awk 'BEGIN{system(…)}'`):
# a prefix of one with only options after it approves every command too.
CODE_RUNNERS = frozenset(
    {
        "python", "python2", "python3", "py", "pypy", "pypy3", "node", "nodejs", "deno", "bun", "ruby",
        "perl", "php", "lua", "luajit", "rscript", "julia", "osascript", "tclsh", "wish", "awk", "gawk",
    }
)
FILE_WRITE_TOOLS = ("Edit", "Write", "MultiEdit", "NotebookEdit")
SHELL_TOOLS = ("Bash", "PowerShell")

# A rule: a tool name, then optionally its specifier in parentheses (to the last one).
_RULE = lazyre.compile(r"([A-Za-z][A-Za-z0-9_]*)(?:\((.*)\))?")
# `NAME=value` before a command (`env LANG=C`).
_ASSIGNMENT = lazyre.compile(r"[A-Za-z_][A-Za-z0-9_]*=\S*")
# What a path pattern of every file is made of: roots and wildcards (`**`, `/**`, `//**`, `~/**`).
_ROOTS_AND_WILDCARDS = frozenset("/~.*")


@dataclass(frozen=True, eq=False, repr=False)
class Grant:
    """One entry of `allowed-tools` that approves too much: the entry as written, what Claude Code
    then does without asking (``approves``), and a scoped form to show instead."""

    entry: str
    approves: str
    instead: str


def entries(value: object) -> list[str]:
    """The permission rules an `allowed-tools` value holds, as Claude Code splits them: a list's
    strings, or a string cut at spaces and commas outside parentheses."""
    if isinstance(value, list):
        return [item.strip() for item in value if isinstance(item, str) and item.strip()]
    if not isinstance(value, str):
        return []
    found, start, depth = [], 0, 0
    for index, char in enumerate(value):
        if char == "(":
            depth += 1
        elif char == ")":
            depth = max(depth - 1, 0)
        elif depth == 0 and (char == "," or char.isspace()):
            if value[start:index].strip():
                found.append(value[start:index].strip())
            start = index + 1
    if value[start:].strip():
        found.append(value[start:].strip())
    return found


def too_broad(entry: str) -> Grant | None:
    """The grant ``entry`` makes when it approves every shell command or writes to every file,
    else None."""
    match = _RULE.fullmatch(entry)
    if match is None:
        return None
    tool, specifier = match.group(1), match.group(2)
    if tool in SHELL_TOOLS:
        if specifier is None or _runs_anything(specifier):
            return Grant(entry, "runs every shell command", f"{tool}(git diff:*)" if tool == "Bash" else f"{tool}(Get-ChildItem:*)")
        return None
    if tool in FILE_WRITE_TOOLS:
        pattern = specifier.strip() if specifier is not None else "*"
        if "*" in pattern and set(pattern) <= _ROOTS_AND_WILDCARDS:
            return Grant(entry, "writes any file", f"{tool}(reports/**)")
    return None


def _runs_anything(specifier: str) -> bool:
    """Whether a shell rule's specifier matches every command: only wildcards, or a prefix that is
    a command runner with nothing after it that names what it runs (only options, and for the
    runners that take a command, variable assignments and numbers: `env X=1`, `timeout 60`)."""
    if not specifier.strip():
        return False  # `Bash()`: not a form Claude Code documents
    prefix = _without_wildcard_end(specifier)
    if not prefix.strip("*: "):
        return True
    words = prefix.split()
    program = posixpath.basename(words[0].replace("\\", "/")).lower().removesuffix(".exe")
    if program.startswith("python"):
        program = program.rstrip("0123456789.") or program  # python3, python3.12
    if program in RUNNING_SUBCOMMANDS:
        rest = [word for word in words[1:] if not word.startswith("-")]
        if not rest or (rest[0] in RUNNING_SUBCOMMANDS[program] and len(rest) == 1):
            return True  # `npm:*` covers `npm exec`; `uv run:*` runs anything
    if program in CODE_RUNNERS:
        return all(word.startswith("-") for word in words[1:])
    if program in COMMAND_RUNNERS:
        if LOOKUP_ONLY.get(program, frozenset()) & set(words[1:]):
            return False  # `command -v`: looks the name up, runs nothing
        return all(word.startswith("-") or _ASSIGNMENT.fullmatch(word) or word.isdigit() for word in words[1:])
    return False


def _without_wildcard_end(specifier: str) -> str:
    """A command prefix without its wildcard ending: the old `:*`, the newer trailing ` *`."""
    prefix = specifier.strip()
    while True:
        if prefix.endswith(":*"):
            prefix = prefix[:-2].rstrip()
        elif prefix.endswith("*"):
            prefix = prefix[:-1].rstrip()
        else:
            return prefix


def entry_span(view: FrontmatterView, value: object, index: int, entry: str, package: SkillPackage) -> Span:
    """Where ``entry`` (the ``index``-th of the `allowed-tools` value) is written: its list item, its place in a
    plain one-line string, else the whole value."""
    pair = view.key_node("allowed-tools")
    if pair is not None:
        node = pair[1].deref()
        if isinstance(value, list) and node.kind == "seq":
            items = [item for item in node.value if isinstance(item.deref().value, str) and item.deref().value.strip()]
            if index < len(items):
                return view.span(items[index].deref())
        elif node.is_plain and node.line == node.end_line:
            at = _nth_place(node.value, entries(node.value)[: index + 1])
            if at is not None:
                span = view.span(node)
                return Span(span.line, span.column + at, span.line, span.column + at + len(entry))
    return value_span(view, "allowed-tools", package)


def _nth_place(text: str, upto: list[str]) -> int | None:
    """The offset in ``text`` of the last of ``upto``, found after the ones before it."""
    at = 0
    for number, entry in enumerate(upto):
        found = text.find(entry, at)
        if found < 0:
            return None
        if number == len(upto) - 1:
            return found
        at = found + len(entry)
    return None

