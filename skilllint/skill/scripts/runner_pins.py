"""Package runners that fetch an unpinned package on every run (SL703): npx, uvx, pipx and the like, in scripts and in SKILL.md."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from ... import lazyre
from ..text.passages import OFFERED_AS_EXAMPLE, Passages
from ..text.markdown import CODE_SPAN
from .invocations import (
    RUN_VERB,
    UV_VALUE_OPTIONS,
    first_word,
    shell_blocks,
)
from .lexers import Script, lex_shell, package_scripts, read_bytes
from .prompts import without_extras
from .shell_commands import command_words, shell_commands
from .shell_guards import LocalCommands

_NPM_VALUE_OPTIONS = frozenset({"--node-options", "--registry", "--cache", "--userconfig", "--prefix", "-w", "--workspace", "--loglevel"})




_PIPX_VALUE_OPTIONS = frozenset({"--python", "--pip-args", "--index-url", "-i", "--backend", "--fetch-python"})


_FLOATING_TAGS = frozenset({"latest", "next", "canary", "beta", "alpha", "rc", "nightly", "*", "x", ""})


@dataclass(frozen=True, eq=False, repr=False)
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
        return _judge_python_runner("uvx", argv[1:], "--from", UV_VALUE_OPTIONS, True)
    if head == "uv" and argv[1:3] == ["tool", "run"]:
        return _judge_python_runner("uv tool run", argv[3:], "--from", UV_VALUE_OPTIONS, True)
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


# A package.json's dependency block, as a skill shows it or a script writes it: `"devDependencies": { ... }`.
_DEPENDENCY_BLOCK = lazyre.compile(r'"(?:dev|peer|optional)?[dD]ependencies"\s*:\s*\{([^{}]*)\}')
_DEPENDENCY_NAME = lazyre.compile(r'"(@?[\w.-]+(?:/[\w.-]+)?)"\s*:')


def declared_dependencies(text: str) -> set[str]:
    """The npm packages a package.json in ``text`` declares (a SKILL.md snippet of the project's
    package.json, a script's heredoc that writes one): the project installs them, so ``npx`` of one
    runs the project's copy, at the version the project pins, and fetches nothing."""
    if "ependencies" not in text:
        return set()
    names: set[str] = set()
    for block in _DEPENDENCY_BLOCK.finditer(text):
        for match in _DEPENDENCY_NAME.finditer(block.group(1)):
            names.update(installed_names(match.group(1)))
    return names


_MANIFEST_BYTES = 256 * 1024


def shipped_manifest_dependencies(package) -> set[str]:
    """The npm packages a ``package.json`` the skill ships declares (a template of the project's
    manifest, ``templates/package.json``): the project the skill builds installs them."""
    names: set[str] = set()
    inventory = package.inventory
    for rel, entry in inventory.entries.items():
        if entry.kind != "file" or posixpath.basename(rel) != "package.json" or "node_modules" in rel.split("/"):
            continue
        if inventory.in_nested_skill(rel):
            continue
        data = read_bytes(package, rel, _MANIFEST_BYTES)
        if data:
            names |= declared_dependencies(data.decode("utf-8", "replace"))
    return names


def installed_names(package: str) -> set[str]:
    """What ``npx`` may call an installed npm package by: its name and, as far as a name tells, its
    command: the name without its scope (``@scope/tool``: ``tool``) or joined to it
    (``@opennextjs/cloudflare``: ``opennextjs-cloudflare``), without a ``-cli`` ending, or the
    initials of its words (``@azure/static-web-apps-cli``: ``swa``)."""
    base = package.rsplit("/", 1)[-1]
    words = base.split("-")
    names = {package, base, base.removesuffix("-cli")}
    if package.startswith("@") and "/" in package:
        names.add(package[1:].replace("/", "-", 1))
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
    base = without_extras(spec)  # extras: `black[jupyter]`
    if "@" in base:
        name, version = base.split("@", 1)
        if version.strip().lower() in _FLOATING_TAGS:
            return name, version.strip() or None
        return None
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", base):
        return None
    return base, None


_RUNNER_NAMES = frozenset({"npx", "bunx", "pnpm", "yarn", "npm", "uvx", "uv", "pipx"})


@dataclass(frozen=True, eq=False, repr=False)
class RunnerUse:
    """Where an unpinned runner call is written in a script."""

    offset: int
    length: int
    verdict: Unpinned


# Calls that run a command line (Python's subprocess and os, Node's child_process, execa, zx).
EXEC_CALL_NAMES = (
    "run", "call", "check_call", "check_output", "Popen", "system", "popen", "getoutput", "getstatusoutput",
    "create_subprocess_shell", "create_subprocess_exec", "exec", "execSync", "spawn", "spawnSync", "execFile",
    "execFileSync", "execa", "execaSync", "execaCommand", "execaCommandSync",
)  # fmt: skip
_EXEC_CALLS = lazyre.compile(r"(?:(?<![\w$])(?:" + "|".join(EXEC_CALL_NAMES) + r")[ \t]*\($)")


def in_exec_call(code: str, start: int) -> bool:
    """Whether the string at ``start`` is an argument of a call that runs it here (``subprocess.run(…)``,
    ``execSync(…)``), or a zx command (``$`…```). A method of some other object (``sandbox.exec(…)``,
    ``container.exec(…)``) hands the command to what that object stands for: see :func:`_runs_here`."""
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
                window = max(0, index - 40)
                call = _EXEC_CALLS.search(code[window : index + 1])
                return call is not None and _runs_here(code, window + call.start())
            depth -= 1
        elif char == ";" and depth == 0:
            return False  # the start of this statement: no call around the string
    return False


# Runtimes whose process API is a global, not an import: ``Bun.spawn``, ``Deno.run``.
_RUNTIME_GLOBALS = frozenset({"Bun", "Deno"})
_CHAIN_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$.?")
_ROOT = lazyre.compile(r"[A-Za-z_$][\w$]*")


def _runs_here(code: str, name_start: int) -> bool:
    """Whether the call named at ``name_start`` runs its command line on this machine.

    A plain call (``run(…)``, ``execSync(…)``) is the script's own, or one it imported. A method's
    receiver says which process runs the command: a module the script imports (``subprocess.run``,
    ``cp.execSync`` with ``import * as cp from "child_process"``, ``require("…").exec``), a runtime's
    global (``Bun.spawn``), or the script's own object (``self.run``) run it here; any other object
    (``sandbox.exec(…)``, ``getSandbox(env).exec(…)``, ``this.container.exec(…)``) is a client of
    something else (a sandbox, a container, a remote host), and the command runs there."""
    at = name_start - 1
    while at >= 0 and code[at] in " \t":
        at -= 1
    if at < 0 or code[at] != ".":
        return True  # a plain call
    end = at - 1 if at > 0 and code[at - 1] == "?" else at  # ``?.``
    begin, depth = end, 0
    while begin > 0 and end - begin < 200:
        char = code[begin - 1]
        if char in ")]":
            depth += 1
        elif char in "([":
            if depth == 0:
                break
            depth -= 1
        elif depth == 0 and char not in _CHAIN_CHARS:
            break
        begin -= 1
    chain = code[begin:end].strip()
    root = _ROOT.match(chain)
    if root is None or depth:
        return True  # not read: counted as here
    name = root.group()
    if chain in ("self", "this") or name == "require" or name in _RUNTIME_GLOBALS:
        return True
    return _imported_name(code, name)


def _imported_name(code: str, name: str) -> bool:
    """Whether ``name`` is bound by an import (``import subprocess``, ``import subprocess as sp``,
    ``import * as cp from "…"``, ``const cp = require("…")``)."""
    quoted = re.escape(name)
    return (
        re.search(
            r"(?m)^[ \t]*(?:import[ \t]+(?:[\w.]+[ \t]+as[ \t]+)?" + quoted + r"\b"
            r"|import[ \t]+(?:\*[ \t]+as[ \t]+)?" + quoted + r"[ \t]+from\b"
            r"|from[ \t]+[\w.]+[ \t]+import[ \t]+(?:[\w, \t]*[ ,])?" + quoted + r"\b)"
            r"|\b(?:const|let|var)[ \t]+" + quoted + r"[ \t]*=[ \t]*(?:await[ \t]+)?(?:require|import)[ \t]*\(",
            code,
        )
        is not None
    )


def runner_uses(script: Script) -> list[RunnerUse]:
    """Where a script runs ``npx``/``uvx``/``pipx run`` (and kin) on an unpinned package.

    Shell and PowerShell: a command whose name is the runner. Python and JavaScript:
    an argv list whose first item is the runner (``["npx", "-y", "pkg"]``), or a
    string passed to a call that runs it (``subprocess.run("npx pkg", shell=True)``,
    ``execSync(`npx pkg`)``); a message or usage text that mentions npx is neither."""
    found: list[RunnerUse] = []
    if not any(name in script.text for name in ("npx", "bunx", "dlx", "npm exec", "uvx", "tool run", "pipx")):
        return found
    installed = declared_dependencies(script.text)  # a package.json the script writes: the project's
    if script.lang in ("shell", "powershell"):
        commands = shell_commands(script.text, script.masked.code)
        local = LocalCommands(script.text, script.masked.code, commands, installed_names)
        for command in commands:
            name = posixpath.basename(command.name)
            if name in _INSTALL_VERBS:  # `npm install -D pkg`: the copy later commands run
                for package in install_targets(command_words(script.text, command)):
                    installed.update(installed_names(package))
            if name not in _RUNNER_NAMES:
                continue
            verdict = judge_runner(command_words(script.text, command), installed | local.names_there(command))
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
        if not in_exec_call(code, start):
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



# `npm install pkg`, `pnpm add -D pkg`, `yarn add pkg`, `bun add pkg`: the words after these name packages.
_INSTALL_VERBS = {"npm": {"install", "i", "add", "ci"}, "pnpm": {"add", "install", "i"}, "yarn": {"add"}, "bun": {"add", "install", "i"}}


@dataclass(frozen=True, eq=False, repr=False)
class SkillMdCommand:
    """A simple command SKILL.md's body tells the agent to run: its words and where its name is."""

    words: tuple[str, ...]
    line: int  # in SKILL.md
    column: int
    length: int  # of the command name
    fenced: bool  # in a fenced block (else a code span in the text)
    there: frozenset[str] = frozenset()  # the commands the text has made sure are there (`command -v x && …`)


def _shell_text_commands(text: str, lines: list[int], columns: list[int], fenced: bool) -> list[SkillMdCommand]:
    """The runner and package-manager commands of a piece of shell ``text`` whose n-th line is
    SKILL.md line ``lines[n]``, starting at column ``columns[n]`` (1-based): the only ones SL703
    reads, so the others are never split into words."""
    masked = lex_shell(text)
    found = []
    commands = shell_commands(text, masked.code)
    local = LocalCommands(text, masked.code, commands, installed_names)
    for command in commands:
        name = posixpath.basename(command.name)
        if name not in _SKILL_MD_COMMAND_NAMES:
            continue
        line, column = masked.position(command.start)
        there = local.names_there(command) if name in _RUNNER_NAMES else frozenset()
        found.append(SkillMdCommand(
            tuple(command_words(text, command)), lines[line - 1], columns[line - 1] + column - 1, len(command.name), fenced, there
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
    for texts, prompted in shell_blocks(package, fenced):
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
        for span in CODE_SPAN.finditer(text):
            content = span.group(2)
            first = first_word(content.strip())
            if first is None or posixpath.basename(first[0]) not in _COMMAND_STARTS:
                continue  # a name or a path in prose, not a command
            if passages is None:
                passages = Passages(lines, 0, fenced)
            if not given_to_run(*passages.sentence_around(index, span.start())):
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


# A span in a list of samples: "tools like `bunx create-x`", "`npx a`, `pnpm b`, etc."
_SAMPLES_ENDED = lazyre.compile(r"(?i)^`[^`]*`(?:\s*(?:,|or\b|and\b)\s*`[^`]*`)*\s*(?:,\s*)?(?:etc\b|and so on\b|…|\.\.\.)")


def _among_samples(before: str) -> bool:
    """Whether the text right before a span ends "<things> like ": "tools like `bunx x`"."""
    words = before[-80:].split()
    return before[-1:].isspace() and len(words) > 1 and words[-1].lower() == "like" and words[-2].lower().endswith("s")
# A sentence that has the agent put the command into what it writes (a README, an answer to the
# user), not run it: "Provide the inspector command: `npx x`", "Explain how to start it (`npx y`)".
_FOR_THE_READER = lazyre.compile(r"(?i)^[\W\d]*(?:provide|include|document|mention|explain|describe|write|tell)\b")


def given_to_run(before: str, after: str) -> bool:
    """Whether a code span that starts with a command, read in its sentence (the text ``before``
    it, and ``after``, from the span on), is a command the text gives the agent to run: not a
    sample value offered "for example" ("a runner, for example `pipx run ruff`", "tools like
    `bunx x`", "`npx a`, `kubectl b`, etc."), not text the agent is to write for someone else
    ("Provide the inspector command: `npx x`"), and not the value of a key ("**Install:** `npx
    skills add x`", facts for the person reading); a key that says to run it ("**Run:**") gives it."""
    if OFFERED_AS_EXAMPLE.search(before) or _SAMPLES_ENDED.match(after) or _FOR_THE_READER.match(before):
        return False
    if _among_samples(before) and not RUN_VERB.search(before):
        return False
    key = _KEY_LABEL.match(before)
    return key is None or RUN_VERB.match(key.group(1).strip(" :") + " ") is not None


def installed_npm_packages(command: SkillMdCommand) -> list[str]:
    """The packages an ``npm install pkg`` (``pnpm add``, ``yarn add``, ``bun add``) installs;
    empty for any other command, and for a bare ``npm install``."""
    return install_targets(command.words)


def install_targets(words: list[str] | tuple[str, ...]) -> list[str]:
    """The packages the command line ``words`` installs when it is ``npm install pkg`` (``pnpm
    add``, ``yarn add``, ``bun add``); empty otherwise, and for a bare ``npm install``."""
    if len(words) < 3 or words[1] not in _INSTALL_VERBS.get(posixpath.basename(words[0]), ()):
        return []
    names = []
    for word in words[2:]:
        if word and not word.startswith("-"):
            at = word.find("@", 1)
            names.append(word[:at] if at > 0 else word)
    return names


# In the frontmatter: the repository the skill comes from (`source: https://github.com/owner/repo`).
_REPOSITORY_URL = lazyre.compile(r"(?i)\b(?:github|gitlab|codeberg)\.(?:com|org)/([\w.-]+/[\w.-]+)")
_SKILL_NAME = lazyre.compile(r"(?m)^name:[ \t]*[\"']?([\w.-]+)")


def own_origins(package) -> tuple[set[str], set[str]]:
    """Where the skill itself comes from: the ``owner/repo`` its frontmatter links to, and its
    names (the frontmatter ``name``, the folder's)."""
    head = "\n".join(package.source.lines[: package.body_start_line])
    repositories = {match.group(1).removesuffix(".git").lower() for match in _REPOSITORY_URL.finditer(head)}
    names = {package.folder_name.lower()}
    name = _SKILL_NAME.search(head)
    if name:
        names.add(name.group(1).lower())
    return repositories, names


def installs_this_skill(words: tuple[str, ...], verdict: Unpinned, origins: tuple[set[str], set[str]]) -> bool:
    """Whether a runner command fetches this skill itself (``npx skills add owner/repo``, where
    the frontmatter's ``source`` is that repository, or ``owner/repo/skills/<this skill>``): a line
    for the person installing the skill, which the agent running it has no use for."""
    repositories, names = origins
    after = words[words.index(verdict.spec) + 1 :] if verdict.spec in words else ()
    for word in after:
        word = word.lower().rstrip("/")
        for prefix in ("https://", "http://", "github.com/", "github:"):
            word = word.removeprefix(prefix)
        if "/" not in word or word.startswith(("-", ".")):
            continue
        if word.removesuffix(".git") in repositories or any(word.startswith(repository + "/") for repository in repositories):
            return True
        if word.replace("@", "/").replace("#", "/").rsplit("/", 1)[-1] in names:
            return True
    return False


def skill_md_runner_uses(package, memo: dict | None = None) -> list[tuple[SkillMdCommand, Unpinned]]:
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
    # What the project installs: its package.json as the skill shows it, and the packages the
    # commands install as they go on (judge_runner only reads the set)
    installed: set[str] = declared_dependencies(raw)
    for script in package_scripts(package, memo):
        installed |= declared_dependencies(script.text)
    commands = skill_md_commands(package)
    # A package.json the skill ships is the project once set up; a package SKILL.md installs
    # itself enters the project at that step, not before
    installed |= shipped_manifest_dependencies(package) - {
        name for command in commands for package_name in installed_npm_packages(command) for name in installed_names(package_name)
    }
    found = []
    given_elsewhere = set()
    origins = None
    for command in commands:
        for name in installed_npm_packages(command):
            installed.update(installed_names(name))
        if not command.words or posixpath.basename(command.words[0]) not in _RUNNER_NAMES:
            continue
        verdict = judge_runner(list(command.words), installed | command.there)
        if verdict is None:
            continue
        if origins is None:
            origins = own_origins(package)
        if installs_this_skill(command.words, verdict, origins):
            continue
        found.append((command, verdict))
        if command.fenced:
            given_elsewhere.add((verdict.runner, verdict.spec))
    if any(not command.fenced for command, _ in found):
        for script in package_scripts(package, memo):
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
