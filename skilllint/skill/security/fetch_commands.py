"""The command lines of SL804: what a command fetches and what runs it (issue 18).

An argv (words as the shell would pass them) is judged here: which program it runs once
wrappers (``sudo``, ``env``, ``timeout``) are taken off, whether it fetches (``curl``, ``wget``,
``iwr``) and where its bytes go (to standard output, a pipe, a file), whether an installer or a
runner is given a URL or a git source rather than a pinned release, and how a finding says it.
:mod:`skilllint.skill.security.fetch_and_run` finds the command lines in scripts and SKILL.md and asks this
module about them.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass

from ... import lazyre
from ..scripts.prompts import shorten
from ..scripts.shell_commands import ASSIGNMENT
# Sources that are not a registry release.
_REMOTE_SOURCE = lazyre.compile(r"(?i)^(?:git\+|git@|github:|gitlab:|bitbucket:|gist:)|://")
_PINNED_HASH = lazyre.compile(r"#(?:sha256|sha384|sha512|md5)=[0-9a-fA-F]{32,}")
_COMMIT = lazyre.compile(r"[@#][0-9a-fA-F]{40}(?![0-9a-fA-F])")
SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish"})
PYTHON = lazyre.compile(r"(?:python|pypy)[0-9.]*")
_SCRIPT_LANGS = {"node": "node", "perl": "perl", "ruby": "ruby", "php": "php", "pwsh": "powershell", "powershell": "powershell"}
_PS_EVALUATORS = frozenset({"iex", "invoke-expression"})
SOURCE_COMMANDS = frozenset({"source", "."})

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


@dataclass(frozen=True, eq=False)
class FetchRun:
    """Code fetched and run in one step, at an offset of the text read."""

    offset: int
    length: int
    kind: str  # "pipe", "file" (process substitution), "string" (program string), "powershell", "install", "runner", "runtime-install", "eval"
    what: str  # the URL or source fetched (may be empty: not written)
    runner: str  # what runs it: `sh`, `iex`, `eval`, `pip install`, `npx`


# -- words --------------------------------------------------------------------------------


def program_name(word: str) -> str:
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


def unwrapped(words: list[str], keywords: tuple[str, ...] = ()) -> list[str]:
    """The words from the command that runs: ``sudo -E``, ``env X=1``, ``nice -n 5``, ``timeout 60`` dropped."""
    if words and words[0].startswith("-") and keywords and keywords[-1] in ("sudo", "env"):
        words = [keywords[-1], *words]
    i, n = 0, len(words)
    while i < n:
        name = program_name(words[i])
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


def language_of(name: str) -> str | None:
    if name in SHELLS:
        return "shell"
    if PYTHON.fullmatch(name):
        return "python"
    return _SCRIPT_LANGS.get(name)


def program_source(lang: str, args: list[str]) -> tuple[str, str | None]:
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


def runs_stdin(argv: list[str]) -> str | None:
    """The program name when ``argv`` runs what it reads on standard input as code, else None."""
    if not argv:
        return None
    name = program_name(argv[0])
    if name in _PS_EVALUATORS:
        return argv[0]
    if name in SOURCE_COMMANDS:
        return name if len(argv) > 1 and argv[1] in ("/dev/stdin", "-") else None
    lang = language_of(name)
    if lang is None:
        return None
    where, _ = program_source(lang, argv[1:])
    return name if where == "stdin" else None


def fetch_target(argv: list[str]) -> tuple[bool, str]:
    """(whether a fetcher's download goes to standard output, the URL it names)."""
    name = program_name(argv[0])
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


def judge_install(argv: list[str], program: bool) -> FetchRun | None:
    """An install or package runner given a URL or git source (or, from a program, any install); offset 0."""
    name = program_name(argv[0])
    args = argv[1:]
    if PYTHON.fullmatch(name) and args[:2] == ["-m", "pip"]:
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
    return (
        bool(_REMOTE_SOURCE.search(spec))
        and not _PINNED_HASH.search(spec)
        and not _COMMIT.search(spec)
        and "$" not in spec
        and not placeholder_source(spec)
    )


# The source's owner and repository, after its host (``github:``, ``git+https://github.com/``,
# ``git@github.com:``) and before a ref (``@v1``, ``#main``) or ``.git``.
_SOURCE_PATH = lazyre.compile(r"(?i)(?:git\+)?(?:[a-z]{1,16}:(?!//)|[a-z][a-z0-9+.-]{0,31}://[^/\s]{0,253}/|git@[^:\s]{0,253}:)([^@#\s]*)")
_PEP508_NAME = lazyre.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*(?:\[[^\]]*\])?[ \t]*@[ \t]*(?=[a-z+]+://)")
# Words that name a slot of a source instead of filling it: whose account, which repository.
_SLOT_WORDS = frozenset({
    "user", "username", "owner", "org", "organization", "organisation", "account", "namespace", "group",
    "repo", "repository", "project", "package", "pkg", "name",
})  # fmt: skip
_SLOT_AFFIXES = ("your", "my", "the", "some", "a")


def placeholder_source(spec: str) -> bool:
    """Whether a git source is a placeholder that fetches nothing real: each part of its path
    names its slot instead of filling it (``github:user/repo``, ``git+https://github.com/<owner>/<repo>.git``,
    ``your-org/your-project``), as a cheat sheet writes the syntax of a command."""
    named = _PEP508_NAME.match(spec)  # ``pkg @ git+https://…``
    path = _SOURCE_PATH.match(spec, named.end() if named else 0)
    if path is None:
        return False
    parts = [part for part in path.group(1).removesuffix(".git").split("/") if part]
    return len(parts) >= 2 and all(_names_its_slot(part) for part in parts)


def _names_its_slot(part: str) -> bool:
    if part[:1] in "<{[" and part[-1:] in ">}]":
        return True  # ``<owner>``, ``{repo}``
    words = [word for word in re.split(r"[-_.]", part.lower()) if word]
    while len(words) > 1 and words[0] in _SLOT_AFFIXES:
        words = words[1:]
    return len(words) == 1 and words[0] in _SLOT_WORDS


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
