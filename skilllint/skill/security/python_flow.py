"""Where sensitive data goes in a package's Python code (SL810), read with :mod:`ast`, never run.

A *source* is data a skill has no business sending away: a credential store (``~/.ssh``,
``~/.aws/credentials``, ``.netrc``, a ``.env`` file, keychains, browser profiles, shell
history), the whole environment (``os.environ`` copied, dumped or walked; one named variable
read for its own API is a credential in use, not a source), or the output of a command that
prints either. A *sink* sends data over the network: an HTTP client call (``requests``,
``httpx``, ``urllib``, ``http.client``, ``aiohttp``), a socket, mail or FTP, a DNS lookup of a
name built from data, or a ``curl``/``wget``/``nc`` run through ``subprocess``.

The analysis follows values the way the code moves them, over every Python unit of the package
(scripts and fenced blocks, :mod:`skilllint.skill.security.code_units`) at once: assignments,
containers filled with them, loops over them, calls (an argument taints the called function's
parameter, a tainted return taints the call, whichever module defines the function: the
package's modules call each other by name), attributes (``self.data``) and methods of tainted
values (``payload.encode()``). It is flow-insensitive and matches functions by name: it may
join two functions of one name, never misses a move written in one of these forms.

A flow is reported only towards a destination the code fixes (a literal ``https://…`` host in
the call, or a constant it names): data a user's own configured server receives (a URL from an
argument, the environment, a configuration) is the user's choice, a backup, not exfiltration.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from ... import lazyre
from .code_units import CodeUnit

MAX_PYTHON_BYTES = 512 * 1024  # one unit parsed at most
MAX_ROUNDS = 8  # passes over the package until nothing more is tainted

# Paths of credential stores and private data, as a path built from literals spells them.
SENSITIVE_PATH = lazyre.compile(
    r"(?i)(?:^|[/\\])(?:\.ssh(?:[/\\]|$)|id_(?:rsa|dsa|ecdsa|ed25519)\b|\.aws[/\\](?:credentials|config)|\.netrc\b|"
    r"\.pgpass\b|\.git-credentials\b|\.docker[/\\]config\.json|\.kube[/\\]config|\.config[/\\]gh[/\\]hosts\.yml|"
    r"\.gnupg(?:[/\\]|$)|\.password-store|keychains?(?:[/\\]|$)|login data$|cookies(?:\.sqlite)?$|"
    r"\.(?:bash|zsh|sh)_history$|\.env$|\.env\.[a-z]+$|wallet\.dat$)"
)
# Any of those paths' parts anywhere in a text (quoted apart, `Path.home() / ".ssh"`): a text
# without one reads no sensitive file.
SENSITIVE_HINT = lazyre.compile(
    r"(?i)\.ssh\b|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|\.aws\b|\.netrc\b|\.pgpass\b|\.git-credentials\b|\.docker\b|\.kube\b"
    r"|hosts\.yml\b|\.gnupg\b|password-store|keychain|login data|cookies|_history\b|\.env\b|wallet\.dat\b"
)
# Commands whose output is the environment or a secret store's contents.
_SECRET_COMMAND = lazyre.compile(
    r"(?i)^(?:env|printenv|set|export\s+-p)\b|\bsecurity\s+(?:find-generic-password|find-internet-password|dump-keychain)\b"
)
# What names the network in Python: the clients the sinks below belong to.
_NETWORK_WORDS = lazyre.compile(r"\b(?:requests|httpx|urllib|http\.client|socket|smtplib|ftplib|aiohttp|subprocess|os\.system|os\.popen)\b")
_SECRET_COMMAND_HINT = lazyre.compile(r"\b(?:printenv|find-generic-password|find-internet-password|dump-keychain)\b|['\"](?:env|set)['\"]")
_HTTP_MODULES = frozenset({"requests", "httpx", "aiohttp", "urllib3", "urllib", "http"})
_BODY_METHODS = frozenset({"post", "put", "patch"})
_ANY_METHODS = _BODY_METHODS | {"get", "delete", "head", "request", "urlopen", "Request", "fetch", "stream"}
_SOCKET_SENDS = frozenset({"send", "sendall", "sendto", "sendmail", "send_message", "storbinary", "storlines"})
_PATH_BUILDERS = frozenset({"expanduser", "join", "Path", "joinpath", "expandvars", "abspath", "resolve"})
_RUNS = frozenset({"run", "Popen", "call", "check_call", "check_output", "system", "popen"})
_DNS_CALLS = frozenset({"gethostbyname", "gethostbyname_ex", "getaddrinfo", "resolve", "query"})
_NETWORK_PROGRAMS = frozenset({"curl", "wget", "nc", "ncat", "netcat", "scp", "rsync", "ftp", "sftp"})
LOCAL_HOSTS = lazyre.compile(r"(?i)://(?:localhost|127\.\d+\.\d+\.\d+|0\.0\.0\.0|\[::1\]|host\.docker\.internal)(?:[:/]|$)")
_URL = lazyre.compile(r"(?i)\b(?:https?|wss?|ftp)://[^\s\"'<>]+")


@dataclass(frozen=True, eq=False, repr=False)
class Origin:
    """Where tainted data came from: what it is and the unit and line that read it."""

    what: str
    unit: CodeUnit
    line: int


@dataclass(frozen=True, eq=False, repr=False)
class PythonFlow:
    origin: Origin
    sink: str  # what sends it, e.g. "requests.post to https://collect.example.net/x"
    unit: CodeUnit
    line: int  # file line of the sink
    column: int


def python_flows(units: list[CodeUnit]) -> list[PythonFlow]:
    """Every flow of sensitive data to a fixed network destination in the package's Python units."""
    python = [u for u in units if u.lang == "python" and len(u.text) <= MAX_PYTHON_BYTES]
    if not any(_NETWORK_WORDS.search(unit.text) for unit in python) or not any(_has_source_hint(unit.text) for unit in python):
        return []  # nothing reaches the network, or nothing reads a source: no flow can leave
    python = [u for u in python if not u.shown_as_attack]
    modules = []
    for unit in python:
        if not _may_send(unit.text):
            continue
        try:
            tree = ast.parse(unit.text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        modules.append((unit, tree))
    if not modules:
        return []
    analysis = _Analysis(modules)
    if not analysis.has_fixed_sink():
        return []  # every network call goes where the user says (or nowhere fixed): nothing to follow
    return analysis.run()


def _has_source_hint(text: str) -> bool:
    """Whether a text can read a source at all: it names the environment, a secret command or a
    sensitive path (a source is always written out in the code)."""
    return "environ" in text or _SECRET_COMMAND_HINT.search(text) is not None or SENSITIVE_HINT.search(text) is not None


def _may_send(text: str) -> bool:
    """A cheap look before parsing: the unit names something that reaches the network, reads a
    source, or defines functions another unit may call with data (a module of helpers)."""
    return any(word in text for word in ("def ", "environ", "open(", "read_text", "expanduser")) or _NETWORK_WORDS.search(text) is not None


class _Analysis:
    def __init__(self, modules: list[tuple[CodeUnit, ast.Module]]) -> None:
        self.modules = modules
        self.names: dict[tuple[int, str, str], Origin] = {}  # (module, scope, name) -> origin
        self.attributes: dict[str, Origin] = {}  # attribute name (self.data, obj.data) -> origin
        self.returns: dict[str, Origin] = {}  # function name -> origin of what it returns
        self.parameters: dict[tuple[str, str], Origin] = {}  # (function name, parameter) -> origin
        self.paths: dict[tuple[int, str, str], str] = {}  # (module, scope, name) -> the sensitive path it holds
        self.path_parameters: dict[tuple[str, str], str] = {}  # (function name, parameter) -> a sensitive path given it
        self.functions: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
        self.constants: dict[str, list[str]] = {}  # a module or class constant's name -> its strings
        self.imported: list[set[str]] = []
        for index, (_, tree) in enumerate(modules):
            imported: set[str] = set()
            for node in ast.walk(tree):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    self.functions.setdefault(node.name, []).append(node)
                elif isinstance(node, ast.Import):
                    imported.update(alias.name.split(".")[0] for alias in node.names)
                elif isinstance(node, ast.ImportFrom) and node.module:
                    imported.add(node.module.split(".")[0])
                elif isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(getattr(node, "value", None), ast.Constant):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    for target in targets:
                        name = target.id if isinstance(target, ast.Name) else target.attr if isinstance(target, ast.Attribute) else None
                        if name and isinstance(node.value.value, str):
                            self.constants.setdefault(name, []).append(node.value.value)
            self.imported.append(imported)
        self.flows: dict[tuple[int, int, int], PythonFlow] = {}
        self.changed = False

    def has_fixed_sink(self) -> bool:
        """Whether any call could send to a fixed destination: a DNS lookup, or a network call
        whose arguments name a literal external host (directly or through a constant)."""
        for index, (unit, tree) in enumerate(self.modules):
            for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
                name = called_name(call.func) or ""
                if name in _DNS_CALLS:
                    return True
                if name in _ANY_METHODS or name in _SOCKET_SENDS or name in ("connect", "create_connection"):
                    if self._destination(call, unit, any_literal=name in _SOCKET_SENDS or name in ("connect", "create_connection")):
                        return True
                elif name in _RUNS and _url_in(_command_text(call) or "") is not None:
                    return True
        return False

    def run(self) -> list[PythonFlow]:
        for _ in range(MAX_ROUNDS):
            self.changed = False
            for index, (unit, tree) in enumerate(self.modules):
                self._visit_body(index, unit, tree.body, "<module>", None)
            if not self.changed:
                break
        return sorted(self.flows.values(), key=lambda f: (f.unit.rel, f.line, f.column))

    # -- taint bookkeeping -----------------------------------------------------------------

    def _mark(self, table: dict, key, origin: Origin) -> None:
        if key not in table:
            table[key] = origin
            self.changed = True

    def _bind(self, index: int, scope: str, target: ast.AST, origin: Origin) -> None:
        if isinstance(target, ast.Name):
            self._mark(self.names, (index, scope, target.id), origin)
        elif isinstance(target, ast.Attribute):
            self._mark(self.attributes, target.attr, origin)
        elif isinstance(target, ast.Subscript):
            self._bind(index, scope, target.value, origin)  # d[key] = secret: d holds it
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self._bind(index, scope, element, origin)
        elif isinstance(target, ast.Starred):
            self._bind(index, scope, target.value, origin)

    # -- statements ----------------------------------------------------------------------------

    def _visit_body(self, index: int, unit: CodeUnit, body: list[ast.stmt], scope: str, function: str | None) -> None:
        for statement in body:
            self._visit(index, unit, statement, scope, function)

    def _visit(self, index: int, unit: CodeUnit, node: ast.stmt, scope: str, function: str | None) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            inner = f"{scope}.{node.name}" if scope != "<module>" else node.name
            arguments = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
            for argument in arguments:
                origin = self.parameters.get((node.name, argument.arg))
                if origin is not None:
                    self._mark(self.names, (index, inner, argument.arg), origin)
                path = self.path_parameters.get((node.name, argument.arg))
                if path is not None:
                    self._mark(self.paths, (index, inner, argument.arg), path)
            self._visit_body(index, unit, node.body, inner, node.name)
            return
        if isinstance(node, ast.ClassDef):
            self._visit_body(index, unit, node.body, scope, function)
            return
        # Every expression of the statement is looked at for sinks and calls, whatever it does.
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self._expression(index, unit, child, scope)
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None and not isinstance(node.value, ast.Call) or (
            isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Call) and called_name(node.value.func) in _PATH_BUILDERS
        ):
            path = _literal_path(node.value, self.constants)
            if path and SENSITIVE_PATH.search(path):  # creds = os.path.expanduser("~/.aws/credentials")
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Name):
                        self._mark(self.paths, (index, scope, target.id), path)
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and node.value is not None:
            origin = self._taint(index, unit, node.value, scope)
            if origin is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    self._bind(index, scope, target, origin)
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            origin = self._taint(index, unit, node.iter, scope)
            if origin is not None:
                self._bind(index, scope, node.target, origin)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                origin = self._taint(index, unit, item.context_expr, scope)
                if origin is not None and item.optional_vars is not None:
                    self._bind(index, scope, item.optional_vars, origin)
        elif isinstance(node, ast.Return) and node.value is not None and function is not None:
            origin = self._taint(index, unit, node.value, scope)
            if origin is not None:
                self._mark(self.returns, function, origin)
        for field in ("body", "orelse", "finalbody", "handlers"):
            block = getattr(node, field, None)
            if isinstance(block, list):
                for statement in block:
                    if isinstance(statement, ast.ExceptHandler):
                        self._visit_body(index, unit, statement.body, scope, function)
                    elif isinstance(statement, ast.stmt):
                        self._visit(index, unit, statement, scope, function)
        if isinstance(node, ast.Match):
            for case in node.cases:
                self._visit_body(index, unit, case.body, scope, function)

    # -- expressions ---------------------------------------------------------------------------

    def _expression(self, index: int, unit: CodeUnit, node: ast.expr, scope: str) -> None:
        """Look at every call in an expression: a sink with tainted data, or a function given it."""
        for call in (n for n in ast.walk(node) if isinstance(n, ast.Call)):
            arguments = list(call.args) + [k.value for k in call.keywords]
            tainted = [(a, self._taint(index, unit, a, scope)) for a in arguments]
            name = called_name(call.func)
            for position, (argument, origin) in enumerate(tainted):
                path = self._path_of(index, scope, argument)
                if path is not None:
                    for definition in self.functions.get(name or "", ()):
                        parameter = _parameter_for(definition, call, argument, position)
                        if parameter is not None:
                            self._mark(self.path_parameters, (name, parameter), path)
                if origin is None:
                    continue
                for definition in self.functions.get(name or "", ()):
                    parameter = _parameter_for(definition, call, argument, position)
                    if parameter is not None:
                        self._mark(self.parameters, (name, parameter), origin)
            self._judge_sink(index, unit, call, tainted, scope)

    def _taint(self, index: int, unit: CodeUnit, node: ast.AST, scope: str) -> Origin | None:
        source = self._source(unit, node, index, scope)
        if source is not None:
            return source
        if isinstance(node, ast.Name):
            return self._lookup(index, scope, node.id)
        if _one_variable(node):
            return None  # os.environ["API_KEY"], os.environ.get(…): one credential, read to be used
        if isinstance(node, ast.Attribute):
            origin = self.attributes.get(node.attr)
            return origin if origin is not None else self._taint(index, unit, node.value, scope)
        if isinstance(node, ast.Call):
            name = called_name(node.func)
            if name and name in self.returns:
                return self.returns[name]
            if isinstance(node.func, ast.Attribute):
                origin = self._taint(index, unit, node.func.value, scope)  # tainted.encode(), secrets.items()
                if origin is not None:
                    return origin
        if isinstance(node, (ast.Lambda, ast.FunctionDef)):
            return None
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.expr, ast.comprehension, ast.keyword, ast.FormattedValue)):
                origin = self._taint(index, unit, child, scope)
                if origin is not None:
                    return origin
        return None

    def _lookup(self, index: int, scope: str, name: str) -> Origin | None:
        while True:
            origin = self.names.get((index, scope, name))
            if origin is not None or scope == "<module>":
                return origin
            scope = scope.rpartition(".")[0] or "<module>"

    def _path_of(self, index: int, scope: str, node: ast.AST) -> str | None:
        """The sensitive path a name holds (bound from one, or a parameter given one)."""
        if not isinstance(node, ast.Name):
            return None
        while True:
            path = self.paths.get((index, scope, node.id))
            if path is not None or scope == "<module>":
                return path
            scope = scope.rpartition(".")[0] or "<module>"

    def _source(self, unit: CodeUnit, node: ast.AST, index: int = -1, scope: str = "<module>") -> Origin | None:
        line = unit.first_line + getattr(node, "lineno", 1) - 1
        if _is_environ(node):
            return Origin("the whole environment (`os.environ`)", unit, line)
        if isinstance(node, ast.Call):
            func = node.func
            name = called_name(func)
            dotted = _dotted(func)
            if dotted in ("dict", "str", "repr", "json.dumps", "list", "sorted") and node.args and _is_environ(node.args[0]):
                return Origin("the whole environment (`os.environ`)", unit, line)
            if name in ("open", "read_text", "read_bytes", "load", "loads", "expanduser", "Path", "glob", "listdir", "walk", "iglob", "scandir"):
                path = _literal_path(node, self.constants)
                if not (path and SENSITIVE_PATH.search(path)) and node.args:
                    path = self._path_of(index, scope, node.args[0])
                if path and SENSITIVE_PATH.search(path):
                    return Origin(f"`{path}`", unit, line)
            if name in ("check_output", "getoutput", "getstatusoutput", "run", "Popen", "popen", "system"):
                command = _command_text(node)
                reads_secret = command and command.split()[:1] == ["cat"] and SENSITIVE_HINT.search(command)
                if command and (_SECRET_COMMAND.search(command) or reads_secret):
                    return Origin(f"the output of `{command[:60]}`", unit, line)
        return None

    # -- sinks ---------------------------------------------------------------------------------

    def _judge_sink(self, index: int, unit: CodeUnit, call: ast.Call, tainted: list, scope: str) -> None:
        name = called_name(call.func) or ""
        if name in _RUNS:
            tainted = tainted[:1] if call.args else []  # what a program is given to run, not its `env=`
        origins = [origin for _, origin in tainted if origin is not None]
        if not origins:
            return
        dotted = _dotted(call.func) or name
        imported = self.imported[index]
        sink = None
        if name in _SOCKET_SENDS and imported & {"socket", "smtplib", "ftplib", "ssl"}:
            sink = f"`{dotted}`"
            destination = self._destination(call, unit, any_literal=True)
        elif name in _DNS_CALLS and imported & {"socket", "dns"}:
            sink = f"a DNS lookup (`{dotted}`) of a name built from it"
            destination = "a name server"
        elif name in _ANY_METHODS and imported & _HTTP_MODULES:
            destination = self._destination(call, unit)
            sink = f"`{dotted}`"
        elif name in _RUNS:
            command = _command_text(call) or ""
            program = command.split()[0].rsplit("/", 1)[-1] if command.split() else ""
            if program not in _NETWORK_PROGRAMS:
                return
            destination = _url_in(command)
            sink = f"`{program}`"
        else:
            return
        if destination is None:
            return  # a URL the user gives (an argument, the environment, a configuration): their own server
        key = (index, call.lineno, call.col_offset)
        if key not in self.flows:
            self.flows[key] = PythonFlow(origins[0], f"{sink} to {destination}", unit, unit.first_line + call.lineno - 1, call.col_offset + 1)
            self.changed = True

    def _destination(self, call: ast.Call, unit: CodeUnit, any_literal: bool = False) -> str | None:
        """The fixed external host a network call sends to, from literals in its arguments or in
        constants they name (None: only a destination the user configures)."""
        strings: list[str] = []
        for node in list(call.args[:2]) + [k.value for k in call.keywords if k.arg in ("url", "host", "address")]:
            for part in ast.walk(node):
                if isinstance(part, ast.Constant) and isinstance(part.value, str):
                    strings.append(part.value)
                elif isinstance(part, (ast.Name, ast.Attribute)):
                    key = part.id if isinstance(part, ast.Name) else part.attr
                    strings.extend(self.constants.get(key, ()))
        for text in strings:
            url = _url_in(text)
            if url is not None:
                return url
        if any_literal:
            hosts = [s for s in strings if "." in s and " " not in s and not LOCAL_HOSTS.search("://" + s)]
            return f"`{hosts[0]}`" if hosts else None
        return None


def _url_in(text: str) -> str | None:
    match = _URL.search(text)
    if match is None or LOCAL_HOSTS.search(match.group()):
        return None
    return f"`{match.group()[:80]}`"


def _is_environ(node: ast.AST) -> bool:
    """``os.environ`` as a whole (not one key of it), or a walk of it (``os.environ.items()``)."""
    if isinstance(node, ast.Attribute) and node.attr == "environ" and isinstance(node.value, ast.Name) and node.value.id == "os":
        return True
    if isinstance(node, ast.Name) and node.id == "environ":
        return True
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("items", "copy", "values", "keys"):
        return _is_environ(node.func.value)
    return False


def _one_variable(node: ast.AST) -> bool:
    """One named variable of the environment: ``os.environ["X"]``, ``os.environ.get("X")``,
    ``os.getenv("X")``, or the method itself."""
    if isinstance(node, ast.Subscript):
        return _is_environ(node.value)
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr in ("get", "getenv", "setdefault", "pop", "__getitem__") and (_is_environ(node.value) or _dotted(node) == "os.getenv")
    return False


def called_name(func: ast.AST) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _dotted(func: ast.AST) -> str | None:
    parts = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        parts.append(func.id)
        return ".".join(reversed(parts))
    return ".".join(reversed(parts)) if parts else None


def _literal_path(node: ast.AST, constants: dict[str, list[str]]) -> str | None:
    """The path a call names, from the string literals in it and its receiver (``Path.home() /
    ".ssh" / "id_rsa"``, ``os.path.expanduser("~/.aws/credentials")``) and the constants it
    names (``open(CREDENTIALS)``), joined with ``/``."""
    placed: list[tuple[int, int, str]] = []
    for part in ast.walk(node):  # the call's receiver is part of its func, walked too
        where = (getattr(part, "lineno", 0), getattr(part, "col_offset", 0))
        if isinstance(part, ast.Constant) and isinstance(part.value, str):
            placed.append((*where, part.value))
        elif isinstance(part, ast.Name) and len(constants.get(part.id, ())) == 1:
            placed.append((*where, constants[part.id][0]))
    strings = [s for _, _, s in sorted(placed) if s and len(s) < 300 and s not in ("r", "rb", "w", "utf-8", "utf8")]
    return "/".join(s.strip("/") for s in strings) if strings else None


def _command_text(call: ast.Call) -> str | None:
    """The command a ``subprocess``/``os`` call runs, as text, from its literal first argument."""
    if not call.args:
        return None
    first = call.args[0]
    if isinstance(first, ast.Constant) and isinstance(first.value, str):
        return first.value
    if isinstance(first, (ast.List, ast.Tuple)):
        words = [e.value if isinstance(e, ast.Constant) and isinstance(e.value, str) else "…" for e in first.elts]
        return " ".join(words)
    if isinstance(first, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "…" for v in first.values)
    return None


def _parameter_for(definition: ast.FunctionDef | ast.AsyncFunctionDef, call: ast.Call, argument: ast.AST, position: int) -> str | None:
    """The parameter of ``definition`` that ``argument`` of ``call`` binds (a method's ``self``
    is skipped when the call is on an object)."""
    for keyword in call.keywords:
        if keyword.value is argument:
            return keyword.arg
    parameters = [a.arg for a in definition.args.posonlyargs + definition.args.args]
    if parameters and parameters[0] in ("self", "cls") and isinstance(call.func, ast.Attribute):
        parameters = parameters[1:]
    return parameters[position] if position < len(parameters) else (definition.args.vararg.arg if definition.args.vararg else None)
