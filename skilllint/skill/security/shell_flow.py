"""Where sensitive data goes in a package's shell code (SL810): scripts, fenced shell blocks and
transcripts (:mod:`skilllint.skill.security.code_units`), read as text, never run.

Each logical line (continuations joined, comments dropped) is split, outside quotes, into
commands (``;``, ``&&``, ``||``, ``&``) and each command into pipeline stages (``|``). Data is
*sensitive* when it is read from a credential store or private file (the paths
:mod:`skilllint.skill.security.python_flow` knows), when it is the whole environment (``env``,
``printenv``, ``set``, ``export -p``) or a keychain dump. It *leaves* through a stage that
sends: ``curl`` with a body or upload (``-d``, ``--data*``, ``-F``, ``-T``, ``--json``) or with the
data in its URL, ``wget --post-*``, ``nc``/``ncat``/``socat`` (they send what they read), a
``/dev/tcp/host/port`` redirect, ``scp``/``rsync`` to a ``host:``, and a DNS lookup (``nslookup``,
``dig``, ``host``) of a name built from a command's output or a variable.

The data reaches the sender in the same command (``curl -d @~/.ssh/id_rsa``,
``"$(printenv)"``), down a pipeline (``env | base64 | curl --data-binary @- …``), through a
variable (``X=$(cat ~/.aws/credentials)`` … ``"$X"``) or through a file written first
(``env > /tmp/e`` … ``-F f=@/tmp/e``). As for Python, only a destination the code fixes counts (a
literal host); a URL from a variable or an argument is the user's own server.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from ... import lazyre
from .code_units import CodeUnit
from .python_flow import LOCAL_HOSTS, SENSITIVE_PATH, SENSITIVE_HINT

MAX_SHELL_BYTES = 512 * 1024

_DUMPS = frozenset({"env", "printenv", "set"})
_READERS = frozenset({"cat", "tar", "zip", "base64", "xxd", "gzip", "bzip2", "xz", "openssl", "head", "tail", "strings", "cp", "less", "more", "od", "hexdump", "gpg", "7z", "sqlite3", "jq", "awk", "sed", "grep", "sort", "tee", "type", "Get-Content", "gc"})
_CURL_DATA = ("-d", "--data", "--data-binary", "--data-raw", "--data-urlencode", "--data-ascii", "-F", "--form", "--form-string", "-T", "--upload-file", "--json")
_WGET_DATA = ("--post-data", "--post-file", "--body-data", "--body-file")
_SOCKETS = frozenset({"nc", "ncat", "netcat", "socat", "telnet", "openssl"})
_DNS = frozenset({"nslookup", "dig", "host", "ping", "drill", "resolvectl"})
_COPIERS = frozenset({"scp", "rsync", "sftp"})
_SUBSTITUTION = lazyre.compile(r"\$\(|`|\$\{?[A-Za-z_][A-Za-z0-9_]*")
_VARIABLE = lazyre.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")
_HOST_URL = lazyre.compile(r"(?i)\b(?:https?|ftp|wss?)://[^\s\"'<>|;&)]+")
_DEV_TCP = lazyre.compile(r"/dev/(?:tcp|udp)/([^/\s\"']+)/(\d+)")
_ASSIGNMENT = lazyre.compile(r"^(?:export[ \t]+|local[ \t]+|readonly[ \t]+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$")


@dataclass(frozen=True, eq=False, repr=False)
class ShellFlow:
    what: str  # the sensitive data
    source_line: int
    sink: str  # "`curl` to `https://…`"
    unit: CodeUnit
    line: int
    column: int


@dataclass(eq=False, repr=False)
class _Stage:
    words: list[str]
    raw: str
    line: int
    column: int


def shell_flows(units: list[CodeUnit]) -> list[ShellFlow]:
    found: list[ShellFlow] = []
    for unit in units:
        if unit.lang != "shell" or len(unit.text) > MAX_SHELL_BYTES or not _SENDER_WORD.search(unit.text):
            continue  # nothing in it sends: no flow can leave it
        if not (SENSITIVE_HINT.search(unit.text) or _DUMP_WORD.search(unit.text) or _DNS_WORD.search(unit.text)):
            continue  # nothing in it reads a source, and no lookup builds a name
        if unit.shown_as_attack:
            continue
        found.extend(_unit_flows(unit))
    return found


_DUMP_WORD = lazyre.compile(r"\b(?:env|printenv|set|export|security)\b")
_DNS_WORD = lazyre.compile(r"\b(?:nslookup|dig|host|ping|drill|resolvectl)\b")
# A word that names a sender (one search per unit), and one that a line must hold to be read at
# all: a sender, or what can carry data to a later line (an assignment, a redirection).
_SENDER_WORD = lazyre.compile(r"\b(?:curl|wget|nc|ncat|netcat|socat|telnet|openssl|nslookup|dig|host|ping|drill|resolvectl|scp|rsync|sftp)\b|/dev/(?:tcp|udp)/")
_LINE_OF_INTEREST = lazyre.compile(r"\b(?:curl|wget|nc|ncat|netcat|socat|telnet|openssl|nslookup|dig|host|ping|drill|resolvectl|scp|rsync|sftp)\b|/dev/(?:tcp|udp)/|=|>")


def _unit_flows(unit: CodeUnit) -> list[ShellFlow]:
    tainted: dict[str, tuple[str, int]] = {}  # variable or file -> (what, line)
    flows: list[ShellFlow] = []
    for line, column, text in logical_lines(unit):
        if not _LINE_OF_INTEREST.search(text):
            continue  # sends nothing and leaves nothing in a variable or a file
        for pipeline in split_outside_quotes(text, ("&&", "||", ";", "&")):
            stages = [stage_of(raw, line, column) for raw in split_outside_quotes(pipeline, ("|",))]
            stages = [s for s in stages if s.words]
            carried: tuple[str, int] | None = None  # the sensitive data on the stage's standard input
            for stage in stages:
                own = _source_of(stage, tainted)
                sink = _sink_of(stage, carried is not None)
                if sink is not None:
                    data = own or (carried if _reads_stdin(stage) else None) or _looked_up(stage, sink)
                    if data is not None:
                        flows.append(ShellFlow(data[0], data[1], sink, unit, stage.line, stage.column))
                carried = own or (carried if _passes_stdin(stage) else None)
            # What a command leaves in a variable or a file carries the data on to later lines.
            if stages:
                last = stages[-1]
                assigned = _ASSIGNMENT.match(pipeline.strip())
                if assigned is not None:
                    value_source = _text_source(assigned.group(2), tainted, line)
                    if value_source is not None:
                        tainted["$" + assigned.group(1)] = value_source
                redirect = _written_file(last.raw)
                if redirect is not None and carried is not None:
                    tainted[redirect] = carried
    return flows


def logical_lines(unit: CodeUnit):
    """(file line, column, text) of each command line: continuations joined, comments dropped."""
    pending, start = "", None
    for number, line in enumerate(unit.text.split("\n")):
        stripped = line.strip()
        if not pending and (not stripped or stripped.startswith("#")):
            continue
        if start is None:
            start = number
        if stripped.endswith("\\"):
            pending += stripped[:-1] + " "
            continue
        text = pending + stripped
        pending = ""
        yield unit.first_line + start, len(line) - len(line.lstrip()) + 1, text
        start = None


def split_outside_quotes(text: str, separators: tuple[str, ...]) -> list[str]:
    """``text`` split at ``separators`` outside quotes and substitutions (``||`` is no pipe)."""
    parts, current, quote, depth, i, n = [], [], None, 0, 0, len(text)
    while i < n:
        c = text[i]
        if quote:
            if c == "\\" and quote == '"' and i + 1 < n:
                current.append(text[i : i + 2])
                i += 2
                continue
            if c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c == "\\" and i + 1 < n:
            current.append(text[i : i + 2])
            i += 2
            continue
        elif text.startswith("$(", i):
            depth += 1
        elif c == ")" and depth:
            depth -= 1
        elif depth == 0:
            matched = next((s for s in separators if text.startswith(s, i)), None)
            if matched == "|" and (text.startswith("||", i) or (i and text[i - 1] in "|>")):
                matched = None
            if matched == "&" and (text.startswith("&&", i) or (i and text[i - 1] in "<>&") or text.startswith("&>", i)):
                matched = None
            if matched is not None:
                parts.append("".join(current))
                current = []
                i += len(matched)
                continue
        current.append(c)
        i += 1
    parts.append("".join(current))
    return [p for p in parts if p.strip()]


def stage_of(raw: str, line: int, column: int) -> _Stage:
    words = _without_redirections(shell_words(raw))
    while words and ("=" in words[0] and not words[0].startswith(("-", "=")) and words[0].split("=", 1)[0].isidentifier() or words[0] in ("sudo", "env", "command", "exec", "nohup", "time")):
        if words[0] == "env" and len(words) == 1:
            break  # `env` alone prints the environment
        words = words[1:]
    return _Stage(words, raw, line, column)


def _program(stage: _Stage) -> str:
    return stage.words[0].rsplit("/", 1)[-1] if stage.words else ""


# How deep substitutions are followed (`$(… $(…) …)`): data is read by a command one or two
# levels in; each level more would read the text again.
MAX_NESTING = 2


def _source_of(stage: _Stage, tainted: dict[str, tuple[str, int]], depth: int = 0) -> tuple[str, int] | None:
    """The sensitive data a stage reads itself: a dump, a sensitive file it is given, a variable
    or file that holds such data."""
    program = _program(stage)
    if program in _DUMPS and len(stage.words) == 1 or program == "export" and stage.words[1:2] == ["-p"]:
        return ("the whole environment (`" + " ".join(stage.words) + "`)", stage.line)
    if program == "security" and any(w in ("find-generic-password", "find-internet-password", "dump-keychain") for w in stage.words):
        return ("a keychain secret (`" + " ".join(stage.words[:2]) + "`)", stage.line)
    reads = program in _READERS or program in _COPIERS or program in _SOCKETS or program in ("curl", "wget")
    return _text_source(stage.raw, tainted, stage.line, reads, depth)


def _text_source(text: str, tainted: dict[str, tuple[str, int]], line: int, reads: bool = True, depth: int = 0) -> tuple[str, int] | None:
    """Sensitive data named in a command's text: a sensitive path read (by a reading program, an
    ``@file`` upload, a ``<`` redirect), a substitution that dumps the environment, a tainted
    variable or file."""
    for word in shell_words(text):
        path = (word.split("=@", 1)[-1] if "=@" in word else word).lstrip("@<")
        if SENSITIVE_PATH.search(path.rstrip("\"')")) and (reads or word.startswith(("@", "<")) or "=@" in word):
            return (f"`{path.rstrip(chr(34) + chr(39) + ')')}`", line)
    for inner in _substitutions(text) if depth < MAX_NESTING else ():
        for command in split_outside_quotes(inner, ("&&", "||", ";", "&", "|")):
            source = _source_of(stage_of(command, line, 1), tainted, depth + 1)
            if source is not None:
                return source
    for name in _VARIABLE.findall(text):
        if "$" + name in tainted:
            return tainted["$" + name]
    for word in shell_words(text):
        key = word.lstrip("@<").split("=@", 1)[-1]
        if key in tainted:
            return tainted[key]
    return None


def _without_redirections(words: list[str]) -> list[str]:
    """A command's words without its redirections (``> f``, ``2>&1``, ``<f``): what it is given."""
    kept, skip = [], False
    for word in words:
        if skip:
            skip = False
            continue
        bare = word.lstrip("0123456789&")
        if bare in (">", ">>", "<", "<<", "<<<", ">|"):
            skip = True
            continue
        if bare.startswith((">", "<")) and not bare.startswith("<("):
            continue
        kept.append(word)
    return kept


def shell_words(text: str) -> list[str]:
    try:
        return shlex.split(text, comments=False, posix=True)
    except ValueError:
        return text.split()


def _substitutions(text: str) -> list[str]:
    """The commands inside ``$(…)`` and backticks of a text (one level)."""
    found, i = [], text.find("$(")
    while i >= 0:
        depth, j = 1, i + 2
        while j < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[j], 0)
            j += 1
        found.append(text[i + 2 : j - 1])
        i = text.find("$(", j)
    parts = text.split("`")
    found.extend(parts[1::2])
    return found


def _reads_stdin(stage: _Stage) -> bool:
    """Whether a sender sends what it reads on its standard input (``curl -d @-``, ``-T -``,
    ``nc host port``)."""
    program, words = _program(stage), stage.words
    if program in _SOCKETS:
        return True
    if program == "curl":
        return any(w.endswith("@-") for w in words) or any(a in ("-T", "--upload-file") and b == "-" for a, b in zip(words, words[1:]))
    if program == "wget":
        return any(w.endswith(("/dev/stdin", "=-")) for w in words)
    return False


def _looked_up(stage: _Stage, sink: str) -> tuple[str, int] | None:
    """What a DNS lookup of a built name gives away: the output of the command, or the variable,
    the name is built from."""
    if not sink.startswith("a DNS lookup"):
        return None
    name = next((w for w in stage.words[1:] if not w.startswith("-")), "")
    inner = _substitutions(name)
    if inner:
        return (f"the output of `{inner[0].strip()[:60]}`", stage.line)
    variable = _VARIABLE.search(name)
    return (f"the value of `${variable.group(1)}`", stage.line) if variable else None


def _passes_stdin(stage: _Stage) -> bool:
    """Whether a stage passes on what it reads (a filter: ``base64``, ``gzip``, ``tr``, ``xxd``)."""
    return _program(stage) in ("base64", "gzip", "bzip2", "xz", "xxd", "tr", "rev", "openssl", "sed", "awk", "cat", "tee", "sort", "jq", "od", "gpg", "zip", "tar", "head", "tail", "grep")


def _sink_of(stage: _Stage, fed: bool) -> str | None:
    """How a stage sends data away, with its fixed destination (None: it sends nothing, or only
    to a destination the user configures)."""
    program, words = _program(stage), stage.words
    destination = _fixed_destination(stage)
    if program == "curl":
        data = [w for w in words if w.startswith(_CURL_DATA) or w in _CURL_DATA]
        in_url = _HOST_URL.search(stage.raw) is not None and _SUBSTITUTION.search(_HOST_URL.search(stage.raw).group()) is not None
        if (data or in_url) and destination:
            return f"`curl` to {destination}"
        return None
    if program == "wget":
        return f"`wget` to {destination}" if destination and any(w.startswith(_WGET_DATA) for w in words) else None
    if program in _SOCKETS:
        return f"`{program}` to {destination}" if destination and (fed or "<" in stage.raw) else None
    if program in _DNS:
        names = [w for w in words[1:] if not w.startswith("-")]
        return f"a DNS lookup (`{program}`) of a name built from it" if names and _SUBSTITUTION.search(names[0]) else None
    if program in _COPIERS:
        remote = next((w for w in words[1:] if ":" in w and "@" in w.split(":", 1)[0] and not w.startswith("-")), None)
        return f"`{program}` to `{remote.split(':', 1)[0]}`" if remote and "$" not in remote.split(":", 1)[0] else None
    tcp = _DEV_TCP.search(stage.raw)
    if tcp and not LOCAL_HOSTS.search("://" + tcp.group(1)) and "$" not in tcp.group(1):
        return f"a `/dev/tcp` connection to `{tcp.group(1)}:{tcp.group(2)}`"
    return None


def _fixed_destination(stage: _Stage) -> str | None:
    """The literal external host a sender is given (a URL for curl/wget, a host for nc)."""
    url = _HOST_URL.search(stage.raw)
    if url is not None:
        host = url.group().split("://", 1)[1].split("/", 1)[0]
        if "$" in host or "{" in host or LOCAL_HOSTS.search(url.group()):
            return None
        return f"`{url.group()[:80]}`"
    if _program(stage) in _SOCKETS:
        plain = [w for w in stage.words[1:] if not w.startswith("-") and not w.isdigit()]
        if plain and "." in plain[0] and "$" not in plain[0] and not LOCAL_HOSTS.search("://" + plain[0]):
            return f"`{plain[0]}`"
    return None


def _written_file(raw: str) -> str | None:
    """The file a command's output is redirected to (``> f``, ``>> f``)."""
    at = raw.rfind(">")
    if at < 0 or raw[at - 1 : at] in ("2", "&"):
        return None
    target = raw[at + 1 :].strip().split()
    return target[0].strip("\"'") if target else None
