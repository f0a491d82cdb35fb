"""Safety switched off (SL815): code in the package that turns off a check meant to stop harm — an
agent CLI's permission prompts or sandbox, TLS certificate checks, or an operating system's or
container's isolation — in the package's scripts and code blocks
(:mod:`skilllint.skill.security.code_units`).

Each switch is read where the tool reads it: a command's own flags (``claude
--dangerously-skip-permissions``, ``codex --sandbox danger-full-access``, ``gemini --yolo``, ``curl -k``,
``docker run --privileged``), the environment a command line sets (``NODE_TLS_REJECT_UNAUTHORIZED=0``),
a keyword of a Python call read with :mod:`ast` (``requests.get(url, verify=False)``,
``ssl._create_unverified_context()``) and a JavaScript option (``rejectUnauthorized: false``).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from ... import lazyre
from .code_units import CodeUnit
from .shell_flow import logical_lines, shell_words, split_outside_quotes, stage_of

MAX_BYTES = 512 * 1024

# Per program: flags that switch a safety off (a flag alone, or with the value that does).
_AGENT_FLAGS = {
    "claude": {"--dangerously-skip-permissions": None, "--allow-dangerously-skip-permissions": None, "--permission-mode": "bypassPermissions"},
    "codex": {"--dangerously-bypass-approvals-and-sandbox": None, "--yolo": None, "--sandbox": "danger-full-access", "-s": "danger-full-access",
              "--ask-for-approval": "never", "-a": "never"},
    "gemini": {"--yolo": None, "-y": None, "--approval-mode": "yolo"},
    "copilot": {"--allow-all-tools": None, "--allow-all-paths": None},
    "cursor-agent": {"--force": None},
    "curl": {"-k": None, "--insecure": None},
    "wget": {"--no-check-certificate": None},
    "pip": {"--trusted-host": "*"}, "pip3": {"--trusted-host": "*"},
    "docker": {"--privileged": None, "--security-opt": "unconfined", "--cap-add": "ALL"},
    "podman": {"--privileged": None, "--security-opt": "unconfined", "--cap-add": "ALL"},
    "chromium": {"--no-sandbox": None}, "google-chrome": {"--no-sandbox": None}, "chrome": {"--no-sandbox": None},
}
_WHAT = {
    "claude": "Claude Code's permission prompts", "codex": "Codex's approvals or sandbox", "gemini": "Gemini CLI's approvals",
    "copilot": "Copilot CLI's tool approvals", "cursor-agent": "Cursor's command approvals",
    "curl": "TLS certificate checks", "wget": "TLS certificate checks", "pip": "TLS checks for an index", "pip3": "TLS checks for an index",
    "docker": "the container's isolation", "podman": "the container's isolation",
    "chromium": "the browser's sandbox", "google-chrome": "the browser's sandbox", "chrome": "the browser's sandbox",
}
# Whole commands that switch a system's protection off.
_SYSTEM_OFF = {("setenforce", "0"): "SELinux enforcement", ("spctl", "--master-disable"): "Gatekeeper", ("csrutil", "disable"): "System Integrity Protection"}
# Settings written on a command line or in the environment.
_ENV_OFF = lazyre.compile(
    r"\b(?:NODE_TLS_REJECT_UNAUTHORIZED=['\"]?0|PYTHONHTTPSVERIFY=['\"]?0|GIT_SSL_NO_VERIFY=['\"]?(?:1|true)"
    r"|http\.sslVerify[= ]['\"]?false|strict-ssl\s+false)\b",
    )
_JS_OFF = lazyre.compile(r"\brejectUnauthorized\s*:\s*false\b|\bNODE_TLS_REJECT_UNAUTHORIZED\b['\"]?\]?[ \t]*=[ \t]*['\"]0['\"]")
_HINT = lazyre.compile(
    r"dangerously|permission-mode|danger-full-access|yolo|approval|allow-all|--force|--insecure|no-check-certificate"
    r"|trusted-host|privileged|unconfined|cap-add|no-sandbox|setenforce|spctl|csrutil|TLS_REJECT|HTTPSVERIFY|SSL_NO_VERIFY|sslVerify|strict-ssl|\s-a\s|\s-[a-zA-Z]{1,8}\b"
)


@dataclass(frozen=True, eq=False, repr=False)
class Bypass:
    unit: CodeUnit
    line: int
    column: int
    switch: str  # the flag or setting as written
    what: str  # what it turns off


def safety_bypasses(units: list[CodeUnit]) -> list[Bypass]:
    found: list[Bypass] = []
    for unit in units:
        if len(unit.text) > MAX_BYTES:
            continue
        if unit.lang == "shell":
            hits = _shell(unit) if _HINT.search(unit.text) else []
        elif unit.lang == "python":
            hits = _python(unit) if "verify" in unit.text or "unverified" in unit.text or "CERT_NONE" in unit.text else []
        elif unit.lang == "js":
            hits = [Bypass(unit, unit.line_of(m.start()), 1, m.group(), "TLS certificate checks") for m in _JS_OFF.finditer(unit.text)]
        else:
            hits = []
        if hits and not unit.shown_as_attack:
            found.extend(hits)
    return found


def _shell(unit: CodeUnit) -> list[Bypass]:
    found = []
    for line, column, text in logical_lines(unit):
        if not _HINT.search(text):
            continue
        setting = _ENV_OFF.search(text)
        if setting is not None:
            found.append(Bypass(unit, line, column, setting.group(), "TLS certificate checks"))
            continue
        hit = None
        for pipeline in split_outside_quotes(text, ("&&", "||", ";", "&")):
            stages = split_outside_quotes(pipeline, ("|",))
            for index, command in enumerate(stages):
                stage = stage_of(command, line, column)
                hit = _stage_switch(stage.words)
                if hit is not None and hit[1] == _TLS and stage.words[0].rsplit("/", 1)[-1] in ("curl", "wget"):
                    # A response only looked at (a probe of a server under test) is not trusted for
                    # anything; one saved or passed on is used, and a changed one does harm.
                    if not _saves_output(stage.words, command) and not _used_downstream(stages[index + 1 :], line, column):
                        hit = None
                if hit is not None:
                    break
            if hit is not None:
                found.append(Bypass(unit, line, column, *hit))
                break
    return found


_TLS = "TLS certificate checks"


def _saves_output(words: list[str], raw: str) -> bool:
    """Whether a download keeps what it fetched: an output file other than ``/dev/null`` (`-o f`,
    `-O`, `--remote-name`; `wget` saves unless told `-O -`) or a redirection to a file."""
    outputs = [b for a, b in zip(words, words[1:]) if a in ("-o", "--output", "-O", "--output-document")]
    if words[0].rsplit("/", 1)[-1] == "wget":
        return not any(o in ("-", "/dev/null") for o in outputs) and "-O-" not in words
    if any(o not in ("/dev/null", "-") for o in outputs) or any(w in ("-O", "--remote-name", "--remote-name-all") for w in words[1:]):
        return True
    return _redirected_to_file(raw)


def _redirected_to_file(raw: str) -> bool:
    """Whether a command's standard output is redirected to a file (not ``/dev/null``), read from its
    words as the shell splits them (a quoted ``->`` is text, not a redirection)."""
    tokens = shell_words(raw)
    for token, after in zip(tokens, tokens[1:] + [""]):
        if token in (">", ">>", "1>", "1>>", "&>", ">|"):
            return after not in ("", "/dev/null")
        if token.startswith((">", ">>")) and len(token.lstrip(">")) > 0 and token.lstrip(">") != "/dev/null" and not token.startswith(">&"):
            return True
    return False


# Where a fetched response piped on is used, not looked at: run, unpacked, installed or stored.
_USES = frozenset({"sh", "bash", "zsh", "dash", "python", "python3", "node", "perl", "ruby", "source", "tee", "tar", "unzip", "gunzip", "dd", "install", "sudo"})


def _used_downstream(stages: list[str], line: int, column: int) -> bool:
    for command in stages:
        words = stage_of(command, line, column).words
        if words and (words[0].rsplit("/", 1)[-1] in _USES or _redirected_to_file(command)):
            return True
    return False


def _stage_switch(words: list[str]) -> tuple[str, str] | None:
    if not words:
        return None
    program = words[0].rsplit("/", 1)[-1]
    system = _SYSTEM_OFF.get((program, words[1] if len(words) > 1 else ""))
    if system is not None:
        return " ".join(words[:2]), system
    flags = _AGENT_FLAGS.get(program)
    if flags is None:
        return None
    for index, word in enumerate(words[1:], start=1):
        name, _, inline = word.partition("=")
        if name not in flags and word[:1] == "-" and word[1:2] != "-" and word[1:].isalpha():
            # a cluster of short flags (`curl -fsSLk`): each letter a flag of its own
            cluster = next((f"-{letter}" for letter in word[1:] if flags.get(f"-{letter}", "") is None), None)
            if cluster is not None:
                return word, _WHAT[program]
        if name not in flags:
            continue
        wanted = flags[name]
        value = inline or (words[index + 1] if index + 1 < len(words) else "")
        if wanted is None or wanted == "*" or wanted.lower() in value.lower():
            return (word if wanted is None or inline else f"{word} {value}"), _WHAT[program]
    return None


def _python(unit: CodeUnit) -> list[Bypass]:
    try:
        tree = ast.parse(unit.text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            for keyword in node.keywords:
                if keyword.arg == "verify" and isinstance(keyword.value, ast.Constant) and keyword.value.value is False:
                    found.append(Bypass(unit, unit.first_line + node.lineno - 1, node.col_offset + 1, "verify=False", "TLS certificate checks"))
            if isinstance(node.func, ast.Attribute) and node.func.attr == "_create_unverified_context":
                found.append(Bypass(unit, unit.first_line + node.lineno - 1, node.col_offset + 1, "ssl._create_unverified_context()", "TLS certificate checks"))
        elif isinstance(node, ast.Attribute) and node.attr == "CERT_NONE":
            found.append(Bypass(unit, unit.first_line + node.lineno - 1, node.col_offset + 1, "ssl.CERT_NONE", "TLS certificate checks"))
    return found
