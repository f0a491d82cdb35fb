"""Where a bundled script stops to ask a question (SL701): prompts found in masked Python, JavaScript, shell and PowerShell."""

from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass

from ... import lazyre
from ..text.markdown import NextFind
from .lexers import Script
from .shell_commands import Command, command_words, shell_commands


@dataclass(frozen=True, eq=False, repr=False)
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


def without_extras(spec: str) -> str:
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


# -- a prompt that stands in for a missing argument ------------------------------------------

# ``if``, ``then``, ``elif``, ``else`` and ``fi`` where a command starts.
_IF_WORD = lazyre.compile(r"(?<![\w$./-])(if|then|elif|else|fi)(?![\w./-])")
_COMMAND_START = frozenset("\n;&|({")
# One test of a parameter: ``[ -z "$1" ]``, ``[[ -n $NAME ]]``, ``test -z "${2:-}"``, ``[ $# -lt 2 ]``.
_PARAMETER = r"[\"']?\$\{?([1-9]|[A-Za-z_][A-Za-z0-9_]*)(?::?-[\"']{0,2})?\}?[\"']?"
_EMPTY_TEST = lazyre.compile(r"(!\s+)?(?:\[\[?|test)\s+(-[zn])\s+" + _PARAMETER + r"\s*(?:\]\]?\s*)?(?:;\s*)?")
_COUNT_TEST = lazyre.compile(r"(!\s+)?(?:\[\[?|test)\s+[\"']?\$#[\"']?\s+-(eq|lt|le|ge|gt)\s+([0-9])\s*(?:\]\]?\s*)?(?:;\s*)?")
_FUNCTION = lazyre.compile(r"(?m)^[ \t]*(?:function[ \t]+([A-Za-z_][\w-]*)[ \t]*(?:\(\)[ \t]*)?|([A-Za-z_][\w-]*)[ \t]*\(\)[ \t]*)\{")


MAX_GUARDS = 8  # enclosing ``if``s read, innermost first


def argument_fallback(script: Script, offset: int) -> int | None:
    """The positional argument of the script (1-based) whose absence alone leads to the prompt at
    ``offset``, when the prompt is the fallback of one (``if [ -n "$1" ]; then NAME=$1; else read …``,
    ``NAME=${1:-}`` then ``if [ -z "$NAME" ]; then read …``, ``if [ $# -lt 2 ]; then read …``): a
    run that passes that argument never gets there. None when it is not (or is not read as one)."""
    code, text = script.masked.code, script.text
    frames: list[dict] = []
    for match in _IF_WORD.finditer(code, 0, offset):
        before = code[max(0, match.start() - 40) : match.start()].rstrip(" \t")
        if before and before[-1] not in _COMMAND_START and not before.endswith(("then", "else", "do")):
            continue  # a word of some command (``echo else``)
        word = match.group(1)
        if word == "if":
            frames.append({"tests": [], "branch": None, "from": match.end()})
        elif not frames:
            continue
        elif word == "then":
            frame = frames[-1]
            frame["tests"].append((frame["from"], text[frame["from"] : match.start()].strip()))
            frame["branch"] = len(frame["tests"]) - 1
        elif word == "elif":
            frames[-1]["from"] = match.end()
            frames[-1]["branch"] = None
        elif word == "else":
            frames[-1]["branch"] = "else"
        else:
            frames.pop()
    for frame in frames[: -MAX_GUARDS - 1 : -1]:  # the innermost: where a fallback is written
        branch = frame["branch"]
        if branch is None:
            continue
        if branch == "else":
            wanted, tests = "given", frame["tests"]
        else:
            wanted, tests = "missing", frame["tests"][branch : branch + 1]
        for at, test in tests:
            found = _tested_argument(script, test, wanted, at)
            if found is not None:
                return found
    return None


def _tested_argument(script: Script, test: str, wanted: str, at: int) -> int | None:
    """The script argument a test says is ``wanted`` ("missing" or "given"), else None."""
    count = _COUNT_TEST.fullmatch(test)
    if count is not None:
        negated, operator, number = bool(count.group(1)), count.group(2), int(count.group(3))
        says = {"eq": ("missing", number + 1) if number == 0 else None, "lt": ("missing", number), "le": ("missing", number + 1),
                "ge": ("given", number), "gt": ("given", number + 1)}[operator]
        if says is None or says[1] < 1:
            return None
        state, position = says
        if negated:
            state = "given" if state == "missing" else "missing"
        return position if state == wanted and not _in_function(script, at) else None
    empty = _EMPTY_TEST.fullmatch(test)
    if empty is None:
        return None
    state = "missing" if empty.group(2) == "-z" else "given"
    if empty.group(1):
        state = "given" if state == "missing" else "missing"
    if state != wanted:
        return None
    name = empty.group(3)
    if name.isdigit():
        return None if _in_function(script, at) else int(name)
    return _argument_of(script, name, at)


def _argument_of(script: Script, name: str, before: int) -> int | None:
    """The script argument a variable holds where it is tested: its last assignment before
    ``before`` is ``NAME=$1``, ``NAME="${1:-}"`` (an empty default only)."""
    assignment = re.compile(
        r"(?:^|(?<=[\s;&|(]))(?:local\s+|export\s+|readonly\s+|declare\s+)?" + re.escape(name) + r"=(\S*)"
    )
    last = None
    for match in assignment.finditer(script.text, 0, max(0, before)):
        last = match
    if last is None:
        return None
    value = re.fullmatch(r"([\"']?)\$\{?([1-9])(?::?-(?:\"\"|'')?)?\}?\1;?", last.group(1))
    if value is None or _in_function(script, last.start()):
        return None
    return int(value.group(2))


def _in_function(script: Script, at: int) -> bool:
    """Whether ``at`` is in the body of a function that is not called with the script's own
    arguments: there ``$1`` is the function's. One called only as ``main "$@"`` passes them on."""
    return any(start <= at < end and not passes_on for start, end, passes_on in _functions(script.text, script.masked.code))


@functools.lru_cache(maxsize=4)
def _functions(text: str, code: str) -> tuple[tuple[int, int, bool], ...]:
    """Each shell function's (start, end of its body, whether every call of it passes ``"$@"``)."""
    spans = []
    closes: dict[int, int] | None = None
    for match in _FUNCTION.finditer(code):
        if closes is None:
            closes = _brace_pairs(code)
        spans.append((match.group(1) or match.group(2), match.start(), closes.get(match.end() - 1, len(code))))
    if not spans:
        return ()
    names = {name for name, _, _ in spans}
    calls: dict[str, list[int]] = {}
    for command in shell_commands(text, code):
        if command.name in names:
            calls.setdefault(command.name, []).append(command.start)
    starts = [start for _, start, _ in spans]
    passes_on: dict[str, bool] = {}
    for name in names:
        outside = []  # the calls not in a body of a function of that name (its recursion)
        for at in calls.get(name, ()):
            inner = bisect.bisect_right(starts, at) - 1
            if not (inner >= 0 and spans[inner][0] == name and at < spans[inner][2]):
                outside.append(at)
        passes_on[name] = bool(outside) and all(_passes_arguments(text, at + len(name)) for at in outside)
    return tuple((start, end, passes_on[name]) for name, start, end in spans)


def _brace_pairs(code: str) -> dict[int, int]:
    """Where each ``{`` of the code is closed, found in one pass."""
    pairs: dict[int, int] = {}
    open_at: list[int] = []
    for match in _BRACE.finditer(code):
        if match.group() == "{":
            open_at.append(match.start())
        elif open_at:
            pairs[open_at.pop()] = match.start()
    return pairs


_BRACE = lazyre.compile(r"[{}]")


def _passes_arguments(text: str, after_name: int) -> bool:
    """Whether a call's words after its name are ``"$@"`` (``$@``, ``"${@}"``) and nothing else."""
    line = text[after_name : after_name + 120].split("\n", 1)[0]
    words = line.lstrip(" \t")
    if words == line:
        return False
    for form in ('"$@"', '"${@}"', "$@", "${@}"):
        if words.startswith(form):
            rest = words[len(form) :].lstrip(" \t")
            return not rest or rest[0] in ";&|)"
    return False


def usage_arguments(script: Script) -> int:
    """How many arguments the script's own usage shows after its name (``# Usage: ./x.sh [name]
    [domain]``, ``echo "Usage: $0 <name>"``, and the lines of a usage block under such a heading):
    the most that any of its lines naming the script, or ``$0``, shows."""
    base = script.rel.rsplit("/", 1)[-1]
    most = 0
    usage_lines = 0  # lines left in a usage block
    for line in script.text.splitlines():
        if "usage" in line.lower():
            usage_lines = 8
        elif usage_lines:
            usage_lines -= 1
        if not usage_lines:
            continue
        for name in (base, "$0", "${0##*/}", "$(basename $0)", '$(basename "$0")'):
            at = line.find(name)
            if at < 0:
                continue
            count = 0
            for word in line[at + len(name) :].split():
                if word.startswith(("#", "-", ">", "2>", "|", "&", ";")):
                    break
                count += 1
                if word.endswith(("\"", "'")):
                    break  # the end of the quoted usage text
            most = max(most, count)
    return most
