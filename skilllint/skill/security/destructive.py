"""Commands that destroy what no task asks to (SL813): deleting the file system's root, the user's
home or whatever an unset variable leaves, wiping a disk, a fork bomb; in the package's scripts
and code blocks (:mod:`skilllint.skill.security.code_units`).

What is deleted is read from the command's own operands: ``rm`` with ``-r`` and ``-f`` (in any
spelling or cluster) of ``/``, ``/*``, ``~``, ``$HOME``, a top-level system folder, or a path that
starts with a variable the code never sets (``rm -rf "$BUILD_DIR/"*``: unset, it is ``/*``; a
``${VAR:?}`` stops the shell first); ``find`` of such a place with ``-delete`` or ``-exec rm``;
``dd of=``, ``mkfs``, ``wipefs``, ``shred`` or a redirection onto a disk device; ``chmod``/``chown
-R`` of the root or the home. In Python, read with :mod:`ast`: ``shutil.rmtree`` of the root or the
home, and a shell line of the first kind given to ``os.system`` or ``subprocess``.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from ... import lazyre
from .code_units import CodeUnit
from .python_flow import called_name
from .shell_flow import logical_lines, shell_words, split_outside_quotes, stage_of

MAX_BYTES = 512 * 1024

_ROOTS = frozenset({"/", "/*", "~", "~/", "~/*", "$HOME", "$HOME/", "$HOME/*", "${HOME}", "${HOME}/", "${HOME}/*", "/home", "/Users", "/usr", "/etc", "/var", "/bin", "/lib", "/opt", "/boot", "/System", "C:\\", "C:/"})
_DISK = lazyre.compile(r"^/dev/(?:sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|disk\d|rdisk\d)")
_FORK_BOMB = lazyre.compile(r":\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:")
_LEADING_VARIABLE = lazyre.compile(r"^\$\{?([A-Za-z_][A-Za-z0-9_]*)(\}?)/")
# Where a shell text sets a variable: an assignment at the start of a line (after `export`, `local`,
# `readonly` or `declare` and its options), a `for NAME in` loop; `read`'s names are taken in code.
_ASSIGNED = lazyre.compile(r"(?m)^[ \t]*(?:export[ \t]+|local[ \t]+|readonly[ \t]+|declare[ \t]+(?:-\w+[ \t]+)*)?([A-Za-z_][A-Za-z0-9_]*)=|\bfor[ \t]+([A-Za-z_][A-Za-z0-9_]*)[ \t]+in\b")
_READ = lazyre.compile(r"\bread\b")
_HINT = lazyre.compile(r"\brm\b|\bfind\b|\bdd\b|\bmkfs|\bwipefs\b|\bshred\b|/dev/|\bchmod\b|\bchown\b|:\(\)|rmtree")
# Variables the shell or the runner always sets: never empty where a script runs.
_ALWAYS_SET = frozenset({"HOME", "PWD", "OLDPWD", "TMPDIR", "PATH", "USER", "SHELL", "CLAUDE_SKILL_DIR", "CLAUDE_PLUGIN_ROOT", "CLAUDE_PROJECT_DIR", "GITHUB_WORKSPACE", "RUNNER_TEMP"})


@dataclass(frozen=True, eq=False, repr=False)
class Destruction:
    unit: CodeUnit
    line: int
    column: int
    command: str  # as written, shortened
    what: str  # what it destroys


def destructive_commands(units: list[CodeUnit]) -> list[Destruction]:
    found: list[Destruction] = []
    for unit in units:
        if len(unit.text) > MAX_BYTES or not _HINT.search(unit.text):
            continue
        if unit.lang == "shell":
            hits = _shell(unit)
        elif unit.lang == "python":
            hits = _python(unit)
        else:
            hits = []
        if hits and not unit.shown_as_attack:
            found.extend(hits)
    return found


def _shell(unit: CodeUnit) -> list[Destruction]:
    assigned = {name for match in _ASSIGNED.finditer(unit.text) for name in match.groups() if name}
    for match in _READ.finditer(unit.text):  # `read -r NAME`: the names after its options, on its line
        end = unit.text.find("\n", match.end())
        words = unit.text[match.end() : end if end >= 0 else len(unit.text)][:200].split()
        assigned.update(w for w in words if w.isidentifier())
    found = []
    for line, column, text in logical_lines(unit):
        if not _HINT.search(text):
            continue
        what = shell_line_destroys(text, assigned)
        if what is not None:
            found.append(Destruction(unit, line, column, text[:80], what))
    return found


def shell_line_destroys(text: str, assigned: set[str] | frozenset[str] = frozenset()) -> str | None:
    """What a shell line destroys, or None. ``assigned``: the variables the surrounding code sets."""
    if _FORK_BOMB.search(text):
        return "the machine's processes (a fork bomb)"
    for command in split_outside_quotes(text, ("&&", "||", ";", "&", "|")):
        raw_words = shell_words(command)
        words = stage_of(command, 0, 0).words
        if not words:
            continue
        program = words[0].rsplit("/", 1)[-1]
        if program == "rm" and _recursive_force(words[1:]):
            for operand in (w for w in _raw_operands(command) if not w.startswith("-")):
                what = _place(operand, assigned)
                if what is not None:
                    return what
        elif program == "find" and len(words) > 1 and ("-delete" in words or ("-exec" in words and "rm" in words)):
            what = _place(_raw_operands(command)[0], assigned)
            if what is not None:
                return what
        elif program == "dd" and any(w.startswith("of=") and _DISK.match(w[3:]) for w in words):
            return "a whole disk (`dd of=`)"
        elif (program.startswith("mkfs") or program in ("wipefs", "shred")) and any(_DISK.match(w) for w in words[1:]):
            return f"a whole disk (`{program}`)"
        elif program in ("chmod", "chown") and any(w in ("-R", "--recursive") for w in words) and any(w in _ROOTS for w in words[2:]):
            return f"the permissions of the whole file system or home (`{program} -R`)"
        for token, after in zip(raw_words, raw_words[1:] + [""]):
            if token in (">", "1>") and _DISK.match(after):
                return "a whole disk (a redirection onto it)"
    return None


def _recursive_force(args: list[str]) -> bool:
    flags = "".join(a[1:] for a in args if a.startswith("-") and not a.startswith("--"))
    long = {a for a in args if a.startswith("--")}
    recursive = "r" in flags or "R" in flags or "--recursive" in long
    force = "f" in flags or "--force" in long
    return recursive and force


def _raw_operands(command: str) -> list[str]:
    """A command's words after its name with their quotes kept off but ``$`` kept: what the shell
    would expand (``"$DIR/"*`` stays ``$DIR/*``)."""
    words = shell_words(command)
    while words and "=" in words[0] and words[0].split("=", 1)[0].isidentifier():
        words = words[1:]
    if words and words[0] in ("sudo", "command", "exec", "nohup", "time"):
        words = words[1:]
    return words[1:]


def _place(operand: str, assigned: set[str] | frozenset[str]) -> str | None:
    """What deleting ``operand`` deletes, when that is more than a task's files."""
    bare = operand.rstrip()
    if bare in _ROOTS or bare.rstrip("/") in ("", "~", "$HOME", "${HOME}"):
        return f"`{bare}` (the file system's root or the user's home)"
    match = _LEADING_VARIABLE.match(bare)  # `"$DIR"` alone, unset, is `rm -rf ""`: an error, not the root
    if match is None or match.group(1) in assigned or match.group(1) in _ALWAYS_SET or ":?" in bare:
        return None
    rest = bare[match.end():]
    if rest.strip("/*.") == "":  # `$DIR`, `$DIR/`, `$DIR/*`: unset, the root itself (`$DIR/build` is one path)
        return f"`{bare}`, which is `/{rest}` when `${match.group(1)}` is unset (nothing here sets it)"
    return None


def _python(unit: CodeUnit) -> list[Destruction]:
    try:
        tree = ast.parse(unit.text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    found = []
    for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
        name = called_name(call.func)
        if not call.args:
            continue
        first = call.args[0]
        if name == "rmtree":
            strings = [p.value for p in ast.walk(first) if isinstance(p, ast.Constant) and isinstance(p.value, str)]
            home = any(isinstance(p, ast.Attribute) and p.attr == "home" for p in ast.walk(first)) and not strings
            if home or (len(strings) == 1 and strings[0] in ("/", "~", "~/")):
                found.append(Destruction(unit, unit.first_line + call.lineno - 1, call.col_offset + 1, "shutil.rmtree(…)", "the file system's root or the user's home"))
        elif name in ("system", "popen", "Popen", "run", "call", "check_call", "check_output") and isinstance(first, ast.Constant) and isinstance(first.value, str):
            what = shell_line_destroys(first.value)
            if what is not None:
                found.append(Destruction(unit, unit.first_line + call.lineno - 1, call.col_offset + 1, first.value[:80], what))
    return found
