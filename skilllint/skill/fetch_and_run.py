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

Where: shell, PowerShell, Python and JavaScript scripts (shell heredocs fed to an interpreter
included; strings a program passes to a call that runs a command line), and in SKILL.md the
fenced shell and PowerShell blocks and the code spans given to the agent to run. Not read:
references (documents the agent consults, where install notes and attack write-ups are quoted),
text that warns against the pattern ("never run `curl … | sh`", a block under "Bad:"), a
download whose host names an attacker (an illustration), and a command the text tells the agent
to hand to the user ("ask the user to install it with `curl … | sh`").
"""

from __future__ import annotations

import bisect
import posixpath
import re
from dataclasses import dataclass

from .. import lazyre
from .markdown import is_atx_heading
from .passages import Passages
from .runner_pins import given_to_run, in_exec_call
from .script_invocations import CODE_SPAN, FENCE_LINE, PROMPTED_FENCES, SHELL_FENCES, fenced_blocks
from .script_prompts import shorten
from .script_lexers import HEREDOC, Script, lex_powershell, lex_shell, package_scripts
from .shell_commands import ASSIGNMENT, Command, command_words, shell_commands

MAX_PER_FILE = 10

# Substitutions and heredocs read per text: each is read again on its own, so a text made of
# thousands of unclosed ones must not be read thousands of times.
MAX_NESTED = 100

# A text without one of these words has nothing to report: a few C-level substring searches
# decide, far cheaper than one regex of alternatives tried at every position, or lower-casing the
# text. Shell commands are lower case; PowerShell downloads run only through an evaluator
# (`iex`, `Invoke-Expression`, `[ScriptBlock]::Create`), written in either case.
FETCH_WORDS = ("curl", "wget", "Invoke-", "invoke-", "iex", "IEX", "]::Create")
# A program (Python, JavaScript) also downloads by itself and installs by argv ("pip", "install").
PROGRAM_WORDS = (*FETCH_WORDS, "urlopen", "requests.", "fetch(", "pip", "npm", "pnpm", "yarn", "bun", "npx", "uvx", "pipx")
# An install or a runner given a URL or git source: a line with one of these and an installer.
REMOTE_MARKS = ("://", "git+", "github:", "gitlab:", "bitbucket:", "gist:")
_INSTALLER = lazyre.compile(r"\b(?:pip[0-9.]*|npm|pnpm|yarn|bun|npx|bunx|uvx|pipx|uv)\b")


def candidate_lines(text: str, first_line: int = 0, stop_at_one: bool = False) -> set[int]:
    """The 1-based numbers of the lines after ``first_line`` that may hold a fetch-and-run: a
    fetch word, or a URL or git source on a line with an installer."""
    fetch = [at for word in FETCH_WORDS for at in _positions(text, word)]
    if fetch and stop_at_one:
        return {0}
    remote = sorted(at for mark in REMOTE_MARKS for at in _positions(text, mark))
    kept = list(fetch)
    line_end = -1
    for at in remote:
        if at < line_end:
            continue  # this line was read for an earlier mark
        start = text.rfind("\n", 0, at) + 1
        line_end = text.find("\n", at)
        line_end = len(text) if line_end < 0 else line_end
        if _INSTALLER.search(text, start, line_end):
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


def has_candidate(text: str, program: bool = False) -> bool:
    if program:
        return any(word in text for word in PROGRAM_WORDS)
    return any(word in text for word in FETCH_WORDS) or bool(candidate_lines(text, 0, True))


# The same, as a pattern for a short text (a line, a code span).
_HINT = lazyre.compile(
    r"(?i)curl|wget|\biwr\b|\birm\b|invoke-webrequest|invoke-restmethod|\.download(?:string|data)\b"
    r"|://|git\+|github:|gitlab:|bitbucket:|\bpip[0-9.]*\b|\bnpm\b|\bpnpm\b|\byarn\b|\bbun\b|urlopen|requests\.get|fetch\("
)

# Sources that are not a registry release.
_REMOTE_SOURCE = lazyre.compile(r"(?i)^(?:git\+|git@|github:|gitlab:|bitbucket:|gist:)|://")
_PINNED_HASH = lazyre.compile(r"#(?:sha256|sha384|sha512|md5)=[0-9a-fA-F]{32,}")
_COMMIT = lazyre.compile(r"[@#][0-9a-fA-F]{40}(?![0-9a-fA-F])")
# A host that names an attacker: the text illustrates an attack, it does not give a command.
_ATTACKER_HOST = lazyre.compile(r"(?i)://[^/\s\"']*(?:attacker|evil|malicious|exfil|hackmolt)")

# Text that warns against what follows, or shows it as an attack.
_WARNING = lazyre.compile(
    r"(?i)\b(?:never|don['’]t|do not|avoid|instead of|rather than|anti-?patterns?|dangerous|insecure|unsafe"
    r"|malicious|attackers?|attacks?|exploits?|vulnerable|vulnerability|payloads?|bad practice|not recommended"
    r"|discouraged|red flags?|detects?|flags?)\b|❌|🚫|⛔|\bbad\b\s*[:(]"
)
# "ask the user to install it with …": the command is for the person, not the agent.
_FOR_THE_USER = lazyre.compile(r"(?i)\b(?:ask|tell|instruct|advise|have|prompt|direct)\s+(?:the\s+)?user\b")

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
_PROGRAM_HINT = lazyre.compile(
    r"(?i)curl|wget|\biwr\b|\birm\b|invoke-|\bpip[0-9.]*\b|\bnpm\b|\bpnpm\b|\byarn\b|\bbun\b|\bnpx\b|\bbunx\b|\buvx?\b|\bpipx\b"
)

FETCHERS = frozenset({"curl", "wget", "iwr", "irm", "invoke-webrequest", "invoke-restmethod"})
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish"})
_PYTHON = lazyre.compile(r"(?:python|pypy)[0-9.]*")
_SCRIPT_LANGS = {"node": "node", "perl": "perl", "ruby": "ruby", "php": "php", "pwsh": "powershell", "powershell": "powershell"}
_PS_EVALUATORS = frozenset({"iex", "invoke-expression"})
_SOURCE = frozenset({"source", "."})
PS_FENCES = frozenset({"powershell", "ps1", "pwsh", "ps"})

_CURL_VALUE_SHORT = frozenset("oOdHuAeXxbcFKmwTrEYyzCPQtU")
_CURL_VALUE_LONG = frozenset({
    "--output", "--header", "--data", "--data-raw", "--data-binary", "--data-urlencode", "--user", "--user-agent",
    "--request", "--proto", "--proto-redir", "--retry", "--max-time", "--connect-timeout", "--write-out", "--cacert",
    "--cert", "--key", "--config", "--proxy", "--referer", "--cookie", "--cookie-jar", "--form", "--range",
    "--retry-delay", "--retry-max-time", "--max-filesize", "--resolve", "--interface", "--output-dir", "--url",
})
_WGET_VALUE_SHORT = frozenset("OoaiPtTwUeBQlARDIX")

_PIP_VALUE = frozenset({
    "-r", "--requirement", "-c", "--constraint", "-i", "--index-url", "--extra-index-url", "-f", "--find-links",
    "-t", "--target", "--prefix", "--root", "--python", "--platform", "--python-version", "--implementation",
    "--abi", "--src", "--upgrade-strategy", "--progress-bar", "--trusted-host", "--cache-dir", "--log", "--proxy",
    "--retries", "--timeout", "--exists-action", "--cert", "--client-cert", "--global-option", "--config-settings",
    "-C", "--no-binary", "--only-binary", "--hash", "--report",
})
_NPM_VALUE = frozenset({"--registry", "--cache", "--userconfig", "--prefix", "-w", "--workspace", "--loglevel", "--node-options", "--tag"})
_PACKAGE_VALUE = frozenset({"--python", "-p", "--index", "--index-url", "--pip-args", "--backend", "--with", "-w"})
_NPM_INSTALL_VERBS = {"npm": {"install", "i", "add"}, "pnpm": {"add", "install", "i"}, "yarn": {"add"}, "bun": {"add", "install", "i"}}
_INSTALLER_NAMES = frozenset({"pip", "npm", "pnpm", "yarn", "bun", "uv", "pipx"})


@dataclass(frozen=True)
class FetchRun:
    """Code fetched and run in one step, at an offset of the text read."""

    offset: int
    length: int
    kind: str  # "pipe", "file" (process substitution), "string" (program string), "powershell", "install", "runner", "runtime-install", "eval"
    what: str  # the URL or source fetched (may be empty: not written)
    runner: str  # what runs it: `sh`, `iex`, `eval`, `pip install`, `npx`


# -- words --------------------------------------------------------------------------------


def _name(word: str) -> str:
    base = posixpath.basename(word.replace("\\", "/")).lower()
    return base[:-4] if base.endswith(".exe") else base


_REDIRECTION = lazyre.compile(r"[0-9]*(?:<<<|<<-?|<>|<&|>&|>>|>\||<|>)|&>>?")


def plain_words(words: list[str]) -> list[str]:
    """A command's words without its redirections (``<<EOF``, ``2>/dev/null``, ``> out``) and
    its trailing comment."""
    kept: list[str] = []
    skip_next = False
    for word in words:
        if skip_next:
            skip_next = False
            continue
        if word.startswith("#"):
            break
        operator = _REDIRECTION.match(word)
        if operator:
            skip_next = operator.end() == len(word)
            continue
        kept.append(word)
    return kept


def _unwrapped(words: list[str], keywords: tuple[str, ...] = ()) -> list[str]:
    """The words from the command that runs: ``sudo -E``, ``env X=1``, ``nice -n 5``, ``timeout 60`` dropped."""
    if words and words[0].startswith("-") and keywords and keywords[-1] in ("sudo", "env"):
        words = [keywords[-1], *words]
    i, n = 0, len(words)
    while i < n:
        name = _name(words[i])
        if name in ("sudo", "doas"):
            i += 1
            while i < n and words[i].startswith("-"):
                i += 2 if words[i] in ("-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T", "--user", "--group") else 1
            continue
        if name == "env":
            i += 1
            while i < n and (words[i].startswith("-") or ASSIGNMENT.fullmatch(words[i])):
                i += 2 if words[i] in ("-u", "-C", "-S", "--unset", "--chdir") else 1
            continue
        if name in ("nice", "nohup", "time", "command", "exec", "builtin", "stdbuf", "timeout"):
            i += 1
            while i < n and words[i].startswith("-"):
                i += 2 if words[i] in ("-n", "-s", "-k") else 1
            if name == "timeout" and i < n:
                i += 1  # the duration
            continue
        if ASSIGNMENT.fullmatch(words[i]):
            i += 1
            continue
        break
    return words[i:]


def _language(name: str) -> str | None:
    if name in _SHELLS:
        return "shell"
    if _PYTHON.fullmatch(name):
        return "python"
    return _SCRIPT_LANGS.get(name)


def _program_source(lang: str, args: list[str]) -> tuple[str, str | None]:
    """Where an interpreter takes its program from: ("stdin", None), ("file", operand),
    ("string", the program text) or ("module", name)."""
    i, n = 0, len(args)
    while i < n:
        arg = args[i]
        low = arg.lower()
        if lang == "shell":
            if arg == "--":
                return ("file", args[i + 1]) if i + 1 < n else ("stdin", None)
            if arg in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
                i += 2
                continue
            if arg.startswith("-") and not arg.startswith("--") and len(arg) > 1:
                if "c" in arg[1:]:
                    return "string", args[i + 1] if i + 1 < n else ""
                if "s" in arg[1:]:
                    return "stdin", None
        elif lang == "python":
            if arg == "-c":
                return "string", args[i + 1] if i + 1 < n else ""
            if arg == "-m":
                return "module", args[i + 1] if i + 1 < n else ""
            if arg in ("-W", "-X"):
                i += 2
                continue
        elif lang == "node":
            if arg in ("-e", "--eval", "-p", "--print"):
                return "string", args[i + 1] if i + 1 < n else ""
            if arg in ("-r", "--require", "--import", "--loader"):
                i += 2
                continue
        elif lang in ("perl", "ruby"):
            if arg in ("-e", "-E"):
                return "string", args[i + 1] if i + 1 < n else ""
        elif lang == "php":
            if arg == "-r":
                return "string", args[i + 1] if i + 1 < n else ""
            if arg == "-f":
                return "file", args[i + 1] if i + 1 < n else ""
        elif lang == "powershell":
            if low.startswith("-c") and "-command".startswith(low) or low == "-c":
                value = args[i + 1] if i + 1 < n else ""
                return ("stdin", None) if value == "-" else ("string", value)
            if low in ("-e", "-ec", "-encodedcommand"):
                return "string", ""
            if low in ("-f", "-file"):
                value = args[i + 1] if i + 1 < n else ""
                return ("stdin", None) if value == "-" else ("file", value)
            if low in ("-executionpolicy", "-ep", "-windowstyle", "-version", "-workingdirectory", "-wd", "-configurationname"):
                i += 2
                continue
            if not arg.startswith("-"):
                return "string", " ".join(args[i:])  # a command without -Command
        if arg == "-" or arg == "/dev/stdin":
            return "stdin", None
        if not arg.startswith("-") or arg == "-":
            return "file", arg
        i += 1
    return "stdin", None


def _runs_stdin(argv: list[str]) -> str | None:
    """The program name when ``argv`` runs what it reads on standard input as code, else None."""
    if not argv:
        return None
    name = _name(argv[0])
    if name in _PS_EVALUATORS:
        return argv[0]
    if name in _SOURCE:
        return name if len(argv) > 1 and argv[1] in ("/dev/stdin", "-") else None
    lang = _language(name)
    if lang is None:
        return None
    where, _ = _program_source(lang, argv[1:])
    return name if where == "stdin" else None


def _fetch_target(argv: list[str]) -> tuple[bool, str]:
    """(whether a fetcher's download goes to standard output, the URL it names)."""
    name = _name(argv[0])
    args = argv[1:]
    url = ""
    to_stdout = name != "wget"  # wget writes a file unless told `-O -`
    i, n = 0, len(args)
    while i < n:
        arg = args[i]
        if name == "curl":
            if arg.startswith("--"):
                key, _, value = arg.partition("=")
                if key in ("--output",):
                    to_stdout = (value or (args[i + 1] if i + 1 < n else "")) == "-"
                elif key in ("--remote-name", "--remote-name-all", "--remote-header-name"):
                    to_stdout = False
                if key == "--url" and (value or i + 1 < n):
                    url = url or value or args[i + 1]
                if key in _CURL_VALUE_LONG and not value:
                    i += 2
                    continue
            elif arg.startswith("-") and len(arg) > 1:
                for at, letter in enumerate(arg[1:], start=1):
                    if letter == "O":
                        to_stdout = False
                    if letter in _CURL_VALUE_SHORT:
                        value = arg[at + 1 :]
                        took_next = not value
                        if took_next:
                            value = args[i + 1] if i + 1 < n else ""
                        if letter == "o":
                            to_stdout = value == "-"
                        i += 1 if took_next else 0
                        break
            elif not url or "://" in arg and "://" not in url:
                url = arg
        elif name == "wget":
            if arg.startswith("--"):
                key, _, value = arg.partition("=")
                if key == "--output-document":
                    value = value or (args[i + 1] if i + 1 < n else "")
                    to_stdout = value in ("-", "/dev/stdout")
                    i += 1 if "=" not in arg else 0
            elif arg.startswith("-n") and len(arg) == 3:
                pass  # -nv, -nc, -np, -nH, -nd
            elif arg.startswith("-") and len(arg) > 1:
                for at, letter in enumerate(arg[1:], start=1):
                    if letter in _WGET_VALUE_SHORT:
                        value = arg[at + 1 :]
                        took_next = not value
                        if took_next:
                            value = args[i + 1] if i + 1 < n else ""
                        if letter == "O":
                            to_stdout = value in ("-", "/dev/stdout")
                        i += 1 if took_next else 0
                        break
            elif not url or "://" in arg and "://" not in url:
                url = arg
        else:  # PowerShell's Invoke-WebRequest / Invoke-RestMethod: the object goes down the pipe
            low = arg.lower()
            if low in ("-outfile", "-o"):
                to_stdout = False
                i += 2
                continue
            if low == "-uri":
                url = args[i + 1] if i + 1 < n else ""
                i += 2
                continue
            if low in ("-method", "-headers", "-body", "-contenttype", "-useragent", "-timeoutsec"):
                i += 2
                continue
            if not low.startswith("-") and not url:
                url = arg
        i += 1
    return to_stdout, url


def _judge_install(argv: list[str], program: bool) -> FetchRun | None:
    """An install or package runner given a URL or git source (or, from a program, any install); offset 0."""
    name = _name(argv[0])
    args = argv[1:]
    if _PYTHON.fullmatch(name) and args[:2] == ["-m", "pip"]:
        name, args = "pip", args[2:]
    if name == "uv" and args[:1] == ["pip"]:
        name, args = "uv pip", args[1:]
    if name == "uv" and args[:2] == ["tool", "run"]:
        name, args = "uvx", args[2:]
    if name in ("pnpm", "yarn") and args[:1] == ["dlx"]:
        name, args = f"{name} dlx", args[1:]
    if name == "npm" and args[:1] in (["exec"], ["x"]):
        name, args = "npx", args[1:]
    if (name == "pipx" and args[:1] == ["run"]) or (name == "uv" and args[:2] == ["tool", "install"]):
        name, args = ("pipx run", args[1:]) if name == "pipx" else ("uv tool install", args[2:])
    if name == "pipx" and args[:1] == ["install"]:
        name, args = "pipx install", args[1:]
    if re.fullmatch(r"pip[0-9.]*|uv pip", name):
        if args[:1] != ["install"]:
            return None
        operands, verified = _operands(args[1:], _PIP_VALUE, ("-e", "--editable"))
        if verified:
            return None
        return _install_verdict(f"{name} install", operands, program)
    if name in _NPM_INSTALL_VERBS:
        if args[:1] == [] or args[0] not in _NPM_INSTALL_VERBS[name]:
            return None
        operands, _ = _operands(args[1:], _NPM_VALUE, ())
        return _install_verdict(f"{name} {args[0]}", operands, program)
    if name in ("npx", "bunx", "pnpm dlx", "yarn dlx"):
        packages, operands = _runner_packages(args, ("-p", "--package"))
        return _runner_verdict(name, packages or operands[:1])
    if name in ("uvx", "pipx run", "uv tool install", "pipx install"):
        packages, operands = _runner_packages(args, ("--from", "--spec"))
        return _runner_verdict(name, packages or operands[:1])
    return None


def _operands(args: list[str], value_options: frozenset[str], operand_options: tuple[str, ...]) -> tuple[list[str], bool]:
    """(the package operands of an install, whether hashes are required)."""
    operands: list[str] = []
    verified = False
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--require-hashes" or arg.startswith("--hash"):
            verified = True
        if arg in operand_options and i + 1 < len(args):
            operands.append(args[i + 1])
            i += 2
            continue
        if arg in value_options:
            i += 2
            continue
        if not arg.startswith("-") and arg != "@":
            operands.append(arg)
        i += 1
    return operands, verified


def _runner_packages(args: list[str], source_options: tuple[str, ...]) -> tuple[list[str], list[str]]:
    packages: list[str] = []
    operands: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        key, eq, value = arg.partition("=")
        if key in source_options:
            if eq:
                packages.append(value)
            elif i + 1 < len(args):
                packages.append(args[i + 1])
                i += 1
        elif arg in _NPM_VALUE or arg in _PACKAGE_VALUE:
            i += 1
        elif arg == "--":
            operands.extend(args[i + 1 : i + 2])
            break
        elif not arg.startswith("-"):
            operands.append(arg)
            break
        i += 1
    return packages, operands


def _unpinned_remote(spec: str) -> bool:
    return bool(_REMOTE_SOURCE.search(spec)) and not _PINNED_HASH.search(spec) and not _COMMIT.search(spec) and "$" not in spec


def _install_verdict(runner: str, operands: list[str], program: bool) -> FetchRun | None:
    for spec in operands:
        if _unpinned_remote(spec):
            return FetchRun(0, 0, "install", spec, runner)
    if program:
        named = [op for op in operands if not op.startswith((".", "/", "~")) and "$" not in op and "{" not in op]
        if named or not operands:
            return FetchRun(0, 0, "runtime-install", " ".join(named), runner)
    return None


def _runner_verdict(runner: str, specs: list[str]) -> FetchRun | None:
    for spec in specs:
        if _unpinned_remote(spec):
            return FetchRun(0, 0, "runner", spec, runner)
    return None


# -- the message -------------------------------------------------------------------------


def describe(run: FetchRun) -> str:
    """What a fetch-and-run does, why it matters and the safer form, after a subject ("This script …")."""
    source = f"`{shorten(run.what, 100)}`" if run.what else "code"
    if run.kind == "runtime-install":
        packages = f"`{shorten(run.what, 80)}`" if run.what else "packages"
        return (
            f"installs {packages} with `{run.runner}` while it runs: running it changes the user's environment "
            "from the network without asking, with whatever release is current; declare the dependency (PEP 723 "
            "`# /// script` metadata, `package.json`, a pinned requirements file) and have the script stop with "
            "the install command instead"
        )
    if run.kind in ("install", "runner"):
        verb = "installs" if run.kind == "install" else "fetches and runs"
        return (
            f"{verb} {source} with `{run.runner}` straight from a URL or git source, not a registry release: "
            "what is at that address can change under the skill and nothing checks what arrives; pin it (a full "
            "commit id, a pip `#sha256=` hash) or install a released version from the registry"
        )
    how = {
        "pipe": f"pipes it straight into `{run.runner}`",
        "file": f"runs it with `{run.runner} <(…)`",
        "string": "evaluates it with `eval`" if run.runner == "eval" else f"runs it as the program of `{run.runner}`",
        "powershell": f"evaluates it with `{run.runner}`",
        "eval": f"evaluates it with `{run.runner}(…)`",
    }[run.kind]
    return (
        f"downloads {source} and {how}, in one step: whatever the server sends at that moment runs with the "
        "user's rights, unseen and unverified; download it to a file, check it against a pinned checksum (or "
        "a pinned release), then run the file"
    )


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
            argvs[index] = _unwrapped(plain_words(command_words(text, command)), command.keywords)
        return argvs[index]

    for index, command in enumerate(commands):
        name = _name(command.name)
        if name in ("sudo", "doas", "env", "nice", "nohup", "timeout", "stdbuf") or command.name.startswith("-"):
            argv = argv_of(index)
            name = _name(argv[0]) if argv else ""
        if name in FETCHERS:
            argv = argv_of(index)
            to_stdout, url = _fetch_target(argv)
            if not to_stdout:
                continue
            runner = _pipe_runner(commands, index, code, argv_of, pipe_memo)
            if runner is not None:
                found.setdefault(command.start, FetchRun(command.start, len(command.name), "pipe", url, runner))
        elif name in ("pip", "npm", "pnpm", "yarn", "bun", "npx", "bunx", "uvx", "uv", "pipx") or re.fullmatch(r"pip[0-9.]+", name) or _PYTHON.fullmatch(name):
            argv = argv_of(index)
            verdict = _judge_install(argv, program) if argv else None
            if verdict is not None:
                found.setdefault(command.start, FetchRun(command.start, len(command.name), verdict.kind, verdict.what, verdict.runner))
        if depth < 2 and (_language(name) in ("shell", "powershell")):
            argv = argv_of(index)
            lang = _language(_name(argv[0])) if argv else None
            if lang in ("shell", "powershell"):
                where, program_text = _program_source(lang, argv[1:])
                if where == "string" and program_text and _HINT.search(program_text):
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
        runner = _runs_stdin(argv_of(current))
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
        name = _name(argv[0])
        lang = _language(name)
        if opener == "<(":
            runs = name in _SOURCE or (lang is not None and _program_source(lang, argv[1:])[0] in ("stdin", "file"))
            kind = "file"
        else:
            runs = name == "eval" or (lang is not None and _program_source(lang, argv[1:])[0] == "string")
            kind = "string"
        if runs:
            found.append(FetchRun(at, len(opener), kind, fetched[0], name))
    return found


def _inner(text: str, start: int, opener: str) -> str:
    """The text of a substitution from just inside its opener to its close (or the end of the line)."""
    limit = min(len(text), start + 1024)
    if opener == "`":
        end = text.find("`", start, limit)
        return text[start : end if end >= 0 else limit]
    depth = 1
    for index in range(start, limit):
        char = text[index]
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return text[start:index]
        elif char == "\n" and text[index - 1] != "\\":
            return text[start:index]
    return text[start:limit]


def _inner_fetches(inner: str) -> list[str]:
    """The URLs that the commands of a substitution download to its output."""
    code = lex_shell(inner).code
    urls = []
    for command in shell_commands(inner, code):
        argv = _unwrapped(plain_words(command_words(inner, command)), command.keywords)
        if argv and _name(argv[0]) in FETCHERS:
            to_stdout, url = _fetch_target(argv)
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
    name = _name(argv[0])
    if name == "ssh":
        i = 1
        while i < len(argv) and argv[i].startswith("-"):
            i += 2 if len(argv[i]) == 2 and argv[i][1] in _SSH_VALUE else 1
        remote = argv[i + 1 :]
        return not remote or _runs_stdin(_unwrapped(remote)) is not None
    runner = _runs_stdin(argv)
    return runner is not None and _language(_name(argv[0])) == "shell"


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
    if not has_candidate(text, True):
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
                if _name(words[0]) in ("-m",) and len(words) > 1:
                    words = ["python", *words]  # [sys.executable, "-m", "pip", …]
                words = _unwrapped(words)
                if words and _name(words[0]) in _SHELLS | {"pwsh", "powershell"}:
                    lang = _language(_name(words[0]))
                    where, program_text = _program_source(lang or "shell", words[1:])
                    if where == "string" and program_text:
                        inner = shell_fetch_runs(program_text, None, True) if lang == "shell" else powershell_fetch_runs(program_text)
                        verdict = inner[0] if inner else None
                elif words:
                    verdict = _judge_install(words, True)
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
        name = _name(word)
        if word == "-m" or name in _INSTALLER_NAMES or name in _SHELLS or name in FETCHERS or name in ("npx", "bunx", "uvx", "pwsh", "powershell", "sudo", "env") or _PYTHON.fullmatch(name) or re.fullmatch(r"pip[0-9.]+", name):
            return at
    return None


def _call_argument(code: str, start: int) -> str:
    """The argument text of a call whose ``(`` ends at ``start`` (at most 300 characters)."""
    depth = 1
    limit = min(len(code), start + 300)
    for index in range(start, limit):
        char = code[index]
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return code[start:index]
    return code[start:limit]


def script_fetch_runs(script: Script) -> list[FetchRun]:
    """What a bundled script fetches and runs in one step, by its language."""
    if not has_candidate(script.text, script.lang in ("python", "js")):
        return []
    if script.lang == "shell":
        runs = shell_fetch_runs(script.text, script.masked.code)
    elif script.lang == "powershell":
        runs = powershell_fetch_runs(script.text, script.masked.code)
    else:
        runs = program_fetch_runs(script)
    return [run for run in runs if not _ATTACKER_HOST.search(run.what)]


def package_script_fetch_runs(package, memo: dict | None = None) -> list[tuple[Script, list[FetchRun]]]:
    """The package's scripts that fetch code and run it, each with what it runs (``memo``: the
    rules' per-package scratch, where the scripts are kept once lexed)."""
    found = []
    for script in package_scripts(package, memo):
        runs = script_fetch_runs(script)
        if runs:
            found.append((script, runs))
    return found


# -- SKILL.md ------------------------------------------------------------------------------


@dataclass(frozen=True)
class SkillMdFetchRun:
    run: FetchRun
    line: int  # in SKILL.md
    column: int  # 1-based
    fenced: bool


def skill_md_fetch_runs(package) -> list[SkillMdFetchRun]:
    """What the commands SKILL.md's body gives the agent fetch and run in one step: fenced shell and
    PowerShell blocks (in a transcript, the lines after a ``$ `` prompt) and code spans given to run."""
    if not package.readable:
        return []
    raw = package.source.text
    hint_lines = candidate_lines(raw, package.body_start_line)
    if not hint_lines:
        return []
    lines = package.source.lines
    body_start = package.body_start_line
    found: list[SkillMdFetchRun] = []
    fenced: set[int] = set()
    for info, numbers in fenced_blocks(lines, body_start):
        fenced.update(numbers)
        shell = info in SHELL_FENCES or info == ""
        if not shell and info not in PS_FENCES:
            continue
        texts = [(number, lines[number - 1]) for number in numbers[1:] if number - 1 < len(lines)]
        if texts and FENCE_LINE.match(texts[-1][1]):
            texts = texts[:-1]
        if not any(number in hint_lines for number, _ in texts):
            continue
        prompted = info in PROMPTED_FENCES or any(line.lstrip().startswith("$ ") for _, line in texts)
        kept = []
        previous_continued = False
        for _, line in texts:
            stripped = line.lstrip()
            if prompted and stripped.startswith("$ "):
                at = len(line) - len(stripped)
                line = " " * (at + 2) + line[at + 2 :]
            elif prompted and not previous_continued:
                line = ""
            previous_continued = line.rstrip().endswith("\\")
            kept.append(line)
        block = "\n".join(kept)
        masked = lex_shell(block) if shell else lex_powershell(block)
        runs = shell_fetch_runs(block, masked.code) if shell else powershell_fetch_runs(block, masked.code)
        if not runs or _warned_block(lines, numbers[0], body_start):
            continue
        for run in runs:
            line_index, column = masked.position(run.offset)
            number = texts[line_index - 1][0]
            if _ATTACKER_HOST.search(run.what) or _warned_comment(kept, line_index - 1):
                continue
            found.append(SkillMdFetchRun(run, number, column, True))
    passages: Passages | None = None
    seen = {(item.run.runner, item.run.what) for item in found}
    for index in sorted(hint_lines):
        if index in fenced:
            continue
        text = lines[index - 1]
        if "`" not in text:
            continue
        table = text.lstrip().startswith("|")
        for span in CODE_SPAN.finditer(text):
            content = span.group(2)
            if not _HINT.search(content):
                continue
            if table:
                content = content.replace("\\|", " |")  # a pipe escaped in a table cell
            runs = shell_fetch_runs(content)
            if not runs:
                continue
            if passages is None:
                passages = Passages(lines, 0, fenced)
            before, _ = passages.sentence_around(index, span.start())
            if not given_to_run(before, "") or _WARNING.search(before) or _FOR_THE_USER.search(before):
                continue
            for run in runs:
                if _ATTACKER_HOST.search(run.what) or (run.runner, run.what) in seen:
                    continue
                seen.add((run.runner, run.what))
                found.append(SkillMdFetchRun(run, index, span.start(2) + run.offset + 1, False))
    found.sort(key=lambda item: (item.line, item.column))
    return found


def _warned_block(lines: list[str], fence_line: int, body_start: int) -> bool:
    """Whether the text right before a fenced block (its lead-in, and the heading of its section)
    warns against it or shows it as an attack."""
    lead: list[str] = []
    index = fence_line - 2
    while index >= body_start and len(lead) < 2:
        line = lines[index]
        if is_atx_heading(line):
            break
        if line.strip() and not FENCE_LINE.match(line):
            lead.append(line)
        elif lead:
            break
        index -= 1
    while index >= body_start and not is_atx_heading(lines[index]):
        index -= 1
    heading = lines[index] if index >= body_start else ""
    return any(_WARNING.search(text) for text in (*lead, heading))


def _warned_comment(kept: list[str], at: int) -> bool:
    """Whether the comment line right above a command in a block warns against it (``# BAD: …``)."""
    index = at - 1
    while index >= 0 and not kept[index].strip():
        index -= 1
    return index >= 0 and kept[index].lstrip().startswith("#") and _WARNING.search(kept[index]) is not None
