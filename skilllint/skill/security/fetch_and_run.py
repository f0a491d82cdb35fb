"""Code fetched and run in one step (SL804): in scripts and in the commands SKILL.md gives.

What counts: a download whose bytes go straight to something that runs them, with nothing
between that a reviewer or a checksum could stop:

* a pipe from a fetcher into an interpreter that reads its program from standard input
  (``curl … | sh``, ``wget -qO- … | sudo bash``, ``irm … | iex``); an interpreter given a
  program of its own (``curl … | python3 -c "import json…"``, ``| bash script.sh``) or a
  filter (``| jq``) reads the download as data and is not one;
* a fetcher in a process substitution an interpreter runs as its script (``bash <(curl …)``,
  ``source <(curl …)``), or in a command substitution that becomes a program string
  (``sh -c "$(curl …)"``, ``python -c "$(curl …)"``, ``eval "$(curl …)"``);
* PowerShell: a statement that downloads (``Invoke-WebRequest``, ``irm``, ``DownloadString``)
  and evaluates (``iex``, ``Invoke-Expression``, ``[scriptblock]::Create``);
* an install or a runner given a URL or a git source instead of a registry release
  (``pip install git+https://…``, ``npm install https://….tgz``, ``npx github:owner/repo``,
  ``uvx --from git+https://…``), unless pinned so the bytes are fixed: a pip hash fragment
  (``#sha256=…``), ``--require-hashes``, or a full commit id;
* a Python or JavaScript program that installs packages when it runs (``subprocess.run([sys.executable,
  "-m", "pip", "install", …])``, ``execSync("npm install x")``): the "install if missing" idiom,
  which changes the user's environment from inside a script run for something else. A shell
  script that installs is a setup step a reader sees as one, and is left alone.

Where (:mod:`skilllint.skill.security.fetch_sites` reads them): shell, PowerShell, Python and
JavaScript scripts (shell heredocs fed to an interpreter included; strings a program passes to a
call that runs a command line), and in SKILL.md the fenced shell and PowerShell blocks and the code spans given to the agent to run. Not read:
references (documents the agent consults, where install notes and attack write-ups are quoted),
text that warns against the pattern ("never run `curl … | sh`", a block under "Bad:"), a
download whose host names an attacker (an illustration), and a command the text tells the agent
to hand to the user ("ask the user to install it with `curl … | sh`").
"""

from __future__ import annotations

import bisect
import re

from ... import lazyre
from .fetch_commands import (
    FetchRun,
    PYTHON,
    SHELLS,
    SOURCE_COMMANDS,
    fetch_target,
    judge_install,
    language_of,
    plain_words,
    program_name,
    program_source,
    runs_stdin,
    unwrapped,
)
from ..scripts.runner_pins import EXEC_CALL_NAMES, in_exec_call
from ..scripts.lexers import HEREDOC, Script, lex_powershell, lex_shell
from ..scripts.shell_commands import Command, command_words, shell_commands
from .text_marks import Marks

MAX_PER_FILE = 10

# Substitutions and heredocs read per text: each is read again on its own, so a text made of
# thousands of unclosed ones must not be read thousands of times.
MAX_NESTED = 100

# A text without one of these words has nothing to report: a few C-level substring searches
# decide, far cheaper than one regex of alternatives tried at every position, or lower-casing the
# text. Shell commands are lower case; PowerShell downloads run only through an evaluator
# (`iex`, `Invoke-Expression`, `[ScriptBlock]::Create`), written in either case.
FETCH_WORDS = ("curl", "wget", "Invoke-", "invoke-", "iex", "IEX", "]::Create")
# What is searched for them: one scan per word, each a pass over the text, except ``Invoke-`` in
# either case, found in one scan for ``nvoke-`` (what comes before it is then looked at).
_FETCH_SCANS = ("curl", "wget", "nvoke-", "iex", "IEX", "]::Create")
# A program (Python, JavaScript) also downloads by itself (these, besides the words above), and
# installs by argv (an installer's name).
_PROGRAM_WORDS = ("urlopen", "requests.", "fetch(")
# An install or a runner given a URL or git source: a line with one of these and an installer.
REMOTE_MARKS = ("://", "git+", "github:", "gitlab:", "bitbucket:", "gist:")
# The marks that start with "gi", in one scan (no two of them can start at one place).
_GI_MARKS = lazyre.compile(r"gi(?:t\+|thub:|tlab:|st:)")
_INSTALLER = lazyre.compile(r"\b(?:pip[0-9.]*|npm|pnpm|yarn|bun|npx|bunx|uvx|pipx|uv)\b")
# What a text holds wherever :data:`_INSTALLER` matches in it ("pip" also in "pipeline": a word
# is then asked of the pattern).
_INSTALLER_PARTS = ("pip", "npm", "yarn", "bun", "npx", "uv")


def candidate_lines(text: str, first_line: int = 0, stop_at_one: bool = False, marks: Marks | None = None) -> set[int]:
    """The 1-based numbers of the lines after ``first_line`` that may hold a fetch-and-run: a
    fetch word, or a URL or git source on a line with an installer (``marks``: what
    :mod:`skilllint.skill.security.text_marks` found in ``text``, when the caller has it)."""
    fetch = _fetch_positions(text, marks)
    if fetch and stop_at_one:
        return {0}
    return _lines_of(text, fetch, _remote_positions(text, marks), first_line, stop_at_one)


def _searched(words: tuple[str, ...], marks: Marks | None) -> tuple[str, ...]:
    """Of ``words``, those worth a search of the text: all of them, unless ``marks`` found in one
    pass say which it holds (a search for a word the text lacks costs what the test would)."""
    return words if marks is None or not marks.known else tuple(word for word in words if word in marks)


def _fetch_positions(text: str, marks: Marks | None = None) -> list[int]:
    """Where a word of :data:`FETCH_WORDS` starts in ``text``."""
    found = [at for word in _searched(_FETCH_SCANS, marks) for at in _positions(text, word)]
    invoke = [at - 1 for at in found if at and text.startswith("nvoke-", at) and text[at - 1] in "Ii"]
    return [at for at in found if not text.startswith("nvoke-", at)] + invoke


def _remote_positions(text: str, marks: Marks | None = None) -> list[int]:
    """Where a mark of :data:`REMOTE_MARKS` starts in ``text``, in order. Whether an installer is
    named is asked of each line holding a mark (:func:`_lines_of`), not of the whole text first:
    a third of SKILL.md files hold a URL, and their lines with one are a small part of them."""
    if marks is not None and marks.known:
        found = [at for mark in _searched(REMOTE_MARKS, marks) for at in _positions(text, mark)]
    else:
        found = _positions(text, "://") + [mark.start() for mark in _GI_MARKS.finditer(text)] + _positions(text, "bitbucket:")
    found.sort()
    return found


def _lines_of(text: str, fetch: list[int], remote: list[int], first_line: int, stop_at_one: bool) -> set[int]:
    """:func:`candidate_lines` from the places of fetch words and of remote marks."""
    kept = list(fetch)
    line_end = -1
    for at in remote:
        if at < line_end:
            continue  # this line was read for an earlier mark
        start = text.rfind("\n", 0, at) + 1
        line_end = text.find("\n", at)
        line_end = len(text) if line_end < 0 else line_end
        line = text[start:line_end]  # most lines with a URL name no installer: a few substring tests say so
        if any(part in line for part in _INSTALLER_PARTS) and _INSTALLER.search(line):
            kept.append(at)
            if stop_at_one:
                return {0}
    kept.sort()
    numbers: set[int] = set()
    counted, number = 0, 1
    for at in kept:
        number += text.count("\n", counted, at)
        counted = at
        if number > first_line:
            numbers.add(number)
    return numbers


def _positions(text: str, word: str) -> list[int]:
    found = []
    at = text.find(word)
    while at >= 0:
        found.append(at)
        at = text.find(word, at + 1)
    return found


def has_candidate(text: str, program: bool = False, marks: Marks | None = None) -> bool:
    """Whether ``text`` may hold a fetch-and-run (a superset: what is found is judged after)."""
    holds = text if marks is None else marks  # `word in marks` is `word in text`, or found in one pass
    if program:
        if any(word in holds for word in _FETCH_SCANS) or any(word in text for word in _PROGRAM_WORDS):
            return True
        return any(part in text for part in _INSTALLER_PARTS) and _INSTALLER.search(text) is not None
    return any(word in holds for word in _FETCH_SCANS) or bool(_lines_of(text, [], _remote_positions(text, marks), 0, True))


# The same, as a pattern for a short text (a line, a code span).
HINT = lazyre.compile(
    r"(?i)curl|wget|\biwr\b|\birm\b|invoke-webrequest|invoke-restmethod|\.download(?:string|data)\b"
    r"|://|git\+|github:|gitlab:|bitbucket:|\bpip[0-9.]*\b|\bnpm\b|\bpnpm\b|\byarn\b|\bbun\b|urlopen|requests\.get|fetch\("
)
_PS_EXEC = lazyre.compile(r"(?i)(?<![\w-])(?:iex|invoke-expression)(?![\w-])|\[scriptblock\]::create")
_PS_FETCH = lazyre.compile(
    r"(?i)(?<![\w-])(?:iwr|irm|curl|wget|invoke-webrequest|invoke-restmethod)(?![\w-])|\.download(?:string|data)\s*\("
)
_URL = lazyre.compile(r"https?://[^\s'\"()`]+")
_PS_STATEMENT = lazyre.compile(r"[^\n;]+")

# $( … ), <( … ) or ` … ` whose first command fetches.
_SUBSTITUTION = lazyre.compile(
    r"(?i)(\$\(|<\(|`)[ \t]*(?:sudo[ \t]+)?(?:/[\w.-]+)*/?(?:curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod)\b"
)

# Python's exec/eval and JavaScript's eval around a download.
_NATIVE_EVAL = lazyre.compile(r"(?<![\w.$])(?:exec|eval)\s*\(")
_NATIVE_FETCH = lazyre.compile(
    r"(?:urlopen|urllib\.request\.urlopen|requests\.(?:get|post)|httpx\.(?:get|post)|fetch|axios\.get)\s*\("
)
# What a program holds wherever :func:`program_fetch_runs` can find something: a call that runs a
# command line (as :func:`~skilllint.skill.scripts.runner_pins.in_exec_call` names them, here with any
# blanks before its parenthesis and whatever before its name), ``eval``, or zx's ``$```. A program
# without one is not lexed: lexing is most of what reading a program costs. The names are searched
# for in the reversed text, each behind its ``(``: a pattern that starts with one literal character
# skips ahead to it in C, where one that starts with a name tries every name at most characters.
_CALL_REVERSED = lazyre.compile(r"\(\s*(?:" + "|".join(name[::-1] for name in (*EXEC_CALL_NAMES, "eval")) + ")")


def _runs_something(text: str) -> bool:
    return "$`" in text or _CALL_REVERSED.search(text[::-1]) is not None


_PROGRAM_HINT = lazyre.compile(
    r"(?i)curl|wget|\biwr\b|\birm\b|invoke-|\bpip[0-9.]*\b|\bnpm\b|\bpnpm\b|\byarn\b|\bbun\b|\bnpx\b|\bbunx\b|\buvx?\b|\bpipx\b"
)

FETCHERS = frozenset({"curl", "wget", "iwr", "irm", "invoke-webrequest", "invoke-restmethod"})
PS_FENCES = frozenset({"powershell", "ps1", "pwsh", "ps"})
_INSTALLER_NAMES = frozenset({"pip", "npm", "pnpm", "yarn", "bun", "uv", "pipx"})


# -- shell text ----------------------------------------------------------------------------


def shell_fetch_runs(text: str, code: str | None = None, program: bool = False, depth: int = 0) -> list[FetchRun]:
    """What a shell text fetches and runs in one step (``code``: the text masked by
    :func:`lex_shell`; ``program``: the text is a command line a program runs, where any install counts)."""
    if not has_candidate(text, program):
        return []
    masked = lex_shell(text) if code is None else None
    code = masked.code if masked is not None else code
    commands = shell_commands(text, code)
    found: dict[int, FetchRun] = {}
    argvs: dict[int, list[str]] = {}
    pipe_memo: dict[int, str | None] = {}

    def argv_of(index: int) -> list[str]:
        if index not in argvs:
            command = commands[index]
            argvs[index] = unwrapped(plain_words(command_words(text, command)), command.keywords)
        return argvs[index]

    for index, command in enumerate(commands):
        name = program_name(command.name)
        if name in ("sudo", "doas", "env", "nice", "nohup", "timeout", "stdbuf") or command.name.startswith("-"):
            argv = argv_of(index)
            name = program_name(argv[0]) if argv else ""
        if name in FETCHERS:
            argv = argv_of(index)
            to_stdout, url = fetch_target(argv)
            if not to_stdout:
                continue
            runner = _pipe_runner(commands, index, code, argv_of, pipe_memo)
            if runner is not None:
                found.setdefault(command.start, FetchRun(command.start, len(command.name), "pipe", url, runner))
        elif name in ("pip", "npm", "pnpm", "yarn", "bun", "npx", "bunx", "uvx", "uv", "pipx") or re.fullmatch(r"pip[0-9.]+", name) or PYTHON.fullmatch(name):
            argv = argv_of(index)
            verdict = judge_install(argv, program) if argv else None
            if verdict is not None:
                found.setdefault(command.start, FetchRun(command.start, len(command.name), verdict.kind, verdict.what, verdict.runner))
        if depth < 2 and (language_of(name) in ("shell", "powershell")):
            argv = argv_of(index)
            lang = language_of(program_name(argv[0])) if argv else None
            if lang in ("shell", "powershell"):
                where, program_text = program_source(lang, argv[1:])
                if where == "string" and program_text and HINT.search(program_text):
                    inner = (
                        shell_fetch_runs(program_text, None, program, depth + 1)
                        if lang == "shell"
                        else powershell_fetch_runs(program_text)
                    )
                    for run in inner[:1]:
                        found.setdefault(command.start, FetchRun(command.start, len(command.name), run.kind, run.what, run.runner))
    for run in _substitutions(text, code, commands, masked, argv_of):
        found.setdefault(run.offset, run)
    for run in _heredocs(text, code, commands, argv_of, program, depth):
        found.setdefault(run.offset, run)
    if _PS_EXEC.search(text):
        for run in powershell_fetch_runs(text, code):
            found.setdefault(run.offset, run)
    return sorted(found.values(), key=lambda run: run.offset)


def _pipes_on(code: str, command: Command, following: Command) -> bool:
    """Whether ``command``'s output is piped into ``following`` (``|``, not ``||``)."""
    at = command.end
    if at >= len(code) or code[at] != "|" or (at + 1 < len(code) and code[at + 1] in "|&") or (at > 0 and code[at - 1] == "|"):
        return False
    between = code[at + 1 : following.start]
    return not any(char in between for char in ";&|(){}`")


def _pipe_runner(commands: list[Command], index: int, code: str, argv_of, memo: dict[int, str | None]) -> str | None:
    """What runs the output of ``commands[index]`` down its pipeline, if anything does (``memo``:
    the answers so far, so a long pipeline of fetchers is walked once)."""
    walked = []
    current = index
    runner = None
    while current + 1 < len(commands) and _pipes_on(code, commands[current], commands[current + 1]):
        if current in memo:
            runner = memo[current]
            break
        walked.append(current)
        current += 1
        runner = runs_stdin(argv_of(current))
        if runner is not None:
            break
    for at in walked:
        memo[at] = runner
    return runner


def _substitutions(text: str, code: str, commands: list[Command], masked, argv_of) -> list[FetchRun]:
    """``bash <(curl …)``, ``source <(curl …)``, ``sh -c "$(curl …)"``, ``eval "$(curl …)"``."""
    found: list[FetchRun] = []
    starts = [command.start for command in commands]
    strings = (masked or lex_shell(text)).strings if "\"" in text else []
    string_starts = [start for start, _, _ in strings]
    for count, match in enumerate(_SUBSTITUTION.finditer(text)):
        if count >= MAX_NESTED:
            break
        at = match.start()
        opener = match.group(1)
        if code[at] == text[at]:
            live = True
        else:  # blanked: live only inside double quotes, and never for <( … )
            where = bisect.bisect_right(string_starts, at) - 1
            live = opener != "<(" and where >= 0 and text[strings[where][0]] == '"' and at < strings[where][1]
        if not live:
            continue
        inner = _inner(text, match.end(1), opener)
        fetched = _inner_fetches(inner)
        if not fetched:
            continue
        which = bisect.bisect_right(starts, at) - 1
        if which < 0 or at > commands[which].end:
            continue
        argv = argv_of(which)
        if not argv:
            continue
        name = program_name(argv[0])
        lang = language_of(name)
        if opener == "<(":
            runs = name in SOURCE_COMMANDS or (lang is not None and program_source(lang, argv[1:])[0] in ("stdin", "file"))
            kind = "file"
        else:
            runs = name == "eval" or (lang is not None and program_source(lang, argv[1:])[0] == "string")
            kind = "string"
        if runs:
            found.append(FetchRun(at, len(opener), kind, fetched[0], name))
    return found


def _inner(text: str, start: int, opener: str) -> str:
    """The text of a substitution from just inside its opener to its close (or the end of the line)."""
    if opener == "`":
        limit = min(len(text), start + 1024)
        end = text.find("`", start, limit)
        return text[start : end if end >= 0 else limit]
    return _to_close(text, start, 1024, line_ends=True)


def _inner_fetches(inner: str) -> list[str]:
    """The URLs that the commands of a substitution download to its output."""
    code = lex_shell(inner).code
    urls = []
    for command in shell_commands(inner, code):
        argv = unwrapped(plain_words(command_words(inner, command)), command.keywords)
        if argv and program_name(argv[0]) in FETCHERS:
            to_stdout, url = fetch_target(argv)
            if to_stdout:
                urls.append(url)
    return urls


def _heredocs(text: str, code: str, commands: list[Command], argv_of, program: bool, depth: int) -> list[FetchRun]:
    """Heredoc bodies fed to something that runs them (``bash <<EOF``, ``ssh host <<'EOF'``), read as shell."""
    if "<<" not in code or depth >= 2:
        return []
    found: list[FetchRun] = []
    starts = [command.start for command in commands]
    for count, match in enumerate(HEREDOC.finditer(code)):
        if count >= MAX_NESTED:
            break
        at = match.start()
        which = bisect.bisect_right(starts, at) - 1
        if which < 0 or at > commands[which].end:
            continue
        argv = argv_of(which)
        if not argv or not _feeds_shell(argv):
            continue
        line_end = text.find("\n", at)
        if line_end < 0:
            continue
        body_start = line_end + 1
        word, tabs = match.group(3), match.group(1) == "-"
        body_end = len(text)
        index = body_start
        while index < len(text):
            end = text.find("\n", index)
            end = len(text) if end < 0 else end
            line = text[index:end]
            if (line.lstrip("\t") if tabs else line) == word:
                body_end = index
                break
            index = end + 1
        body = text[body_start:body_end]
        for run in shell_fetch_runs(body, None, program, depth + 1):
            found.append(FetchRun(body_start + run.offset, run.length, run.kind, run.what, run.runner))
    return found


_SSH_VALUE = frozenset("bcDEeFIiJLlmOopQRSWw")


def _feeds_shell(argv: list[str]) -> bool:
    """Whether a command runs, as shell code, what it reads on standard input (``bash``, ``sh -s``, ``ssh host``)."""
    name = program_name(argv[0])
    if name == "ssh":
        i = 1
        while i < len(argv) and argv[i].startswith("-"):
            i += 2 if len(argv[i]) == 2 and argv[i][1] in _SSH_VALUE else 1
        remote = argv[i + 1 :]
        return not remote or runs_stdin(unwrapped(remote)) is not None
    runner = runs_stdin(argv)
    return runner is not None and language_of(program_name(argv[0])) == "shell"


# -- PowerShell ----------------------------------------------------------------------------


def powershell_fetch_runs(text: str, code: str | None = None) -> list[FetchRun]:
    """PowerShell statements that download and evaluate: ``irm … | iex``, ``iex ((New-Object
    Net.WebClient).DownloadString(…))``, ``Invoke-Expression (Invoke-WebRequest …).Content``."""
    if not _PS_EXEC.search(text) or not _PS_FETCH.search(text):
        return []
    code = lex_powershell(text).code if code is None else code
    found = []
    for statement in _PS_STATEMENT.finditer(code):
        evaluator = _PS_EXEC.search(code, statement.start(), statement.end())
        fetch = _PS_FETCH.search(code, statement.start(), statement.end())
        if evaluator is None or fetch is None:
            continue
        url = _URL.search(text, statement.start(), statement.end())
        found.append(FetchRun(fetch.start(), len(fetch.group(0).rstrip("( ")), "powershell", url.group(0) if url else "", evaluator.group(0)))
    return found


# -- programs (Python, JavaScript) ---------------------------------------------------------


def program_fetch_runs(script: Script) -> list[FetchRun]:
    """What a Python or JavaScript script fetches and runs: a command line it passes to a call that runs
    one (``subprocess.run("curl … | sh", shell=True)``, ``["pip", "install", …]``), and ``exec``/``eval``
    of a download (``exec(urlopen(url).read())``)."""
    text = script.text
    if not has_candidate(text, True) or not _runs_something(text):
        return []
    code = script.masked.code
    strings = script.masked.strings
    found: dict[int, FetchRun] = {}
    index = 0
    while index < len(strings):
        start, end, value = strings[index]
        if not _PROGRAM_HINT.search(value):
            index += 1
            continue
        # An argv list: this string and the strings right after it, separated by commas.
        argv = [value]
        last = index
        while last + 1 < len(strings) and re.fullmatch(r"[\s,]*", code[strings[last][1] : strings[last + 1][0]]):
            last += 1
            argv.append(strings[last][2])
        if not in_exec_call(code, start):
            index = last + 1
            continue
        quote = 3 if text[start : start + 3] in ('"""', "'''") else 1
        offset = start + quote
        if len(argv) > 1 or " " not in value.strip():
            head = _argv_start(argv)
            verdict = None
            if head is not None:
                words = argv[head:]
                if program_name(words[0]) in ("-m",) and len(words) > 1:
                    words = ["python", *words]  # [sys.executable, "-m", "pip", …]
                words = unwrapped(words)
                if words and program_name(words[0]) in SHELLS | {"pwsh", "powershell"}:
                    lang = language_of(program_name(words[0]))
                    where, program_text = program_source(lang or "shell", words[1:])
                    if where == "string" and program_text:
                        inner = shell_fetch_runs(program_text, None, True) if lang == "shell" else powershell_fetch_runs(program_text)
                        verdict = inner[0] if inner else None
                elif words:
                    verdict = judge_install(words, True)
            if verdict is not None:
                found.setdefault(offset, FetchRun(offset, len(value), verdict.kind, verdict.what, verdict.runner))
        else:
            for run in shell_fetch_runs(value, None, True):
                found.setdefault(offset + run.offset, FetchRun(offset + run.offset, run.length, run.kind, run.what, run.runner))
        index = last + 1
    if any(word in text for word in ("urlopen", "requests.", "httpx.", "fetch(", "axios.")):
        for match in _NATIVE_EVAL.finditer(code):
            argument = _call_argument(code, match.end())
            fetch = _NATIVE_FETCH.search(argument)
            if fetch is not None:
                url = _URL.search(text, match.end(), match.end() + len(argument))
                name = match.group(0).rstrip("( ")
                found.setdefault(match.start(), FetchRun(match.start(), len(name), "eval", url.group(0) if url else "", name))
    return sorted(found.values(), key=lambda run: run.offset)


def _argv_start(argv: list[str]) -> int | None:
    """Where the command begins in the strings of an argv list (``"-m", "pip"`` after ``sys.executable``)."""
    for at, word in enumerate(argv[:3]):
        name = program_name(word)
        if word == "-m" or name in _INSTALLER_NAMES or name in SHELLS or name in FETCHERS or name in ("npx", "bunx", "uvx", "pwsh", "powershell", "sudo", "env") or PYTHON.fullmatch(name) or re.fullmatch(r"pip[0-9.]+", name):
            return at
    return None


def _call_argument(code: str, start: int) -> str:
    """The argument text of a call whose ``(`` ends at ``start`` (at most 300 characters)."""
    return _to_close(code, start, 300)


def _to_close(text: str, start: int, reach: int, line_ends: bool = False) -> str:
    """The text from just inside an opening ``(`` at ``start`` to its matching ``)``, at most
    ``reach`` characters; with ``line_ends``, also up to a line end not escaped by ``\\`` (a
    shell substitution left open on its line)."""
    depth = 1
    limit = min(len(text), start + reach)
    for index in range(start, limit):
        char = text[index]
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return text[start:index]
        elif line_ends and char == "\n" and text[index - 1] != "\\":
            return text[start:index]
    return text[start:limit]
