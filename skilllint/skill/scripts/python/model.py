"""What a parse of a Python script collects for SL701 (:mod:`skilllint.skill.scripts.python.prompt_reach`): its prompt
calls, the conditions and ``try`` handlers around each, the call sites of every function, the
assignments of every name, and the command-line options it declares (argparse and click)."""

from __future__ import annotations

import ast
from dataclasses import dataclass

MAX_STEPS = 50_000  # evaluation and search steps per script; past this every prompt left counts as reachable
MAX_GUARDS = 64  # conditions kept per node; those past it are dropped (a dropped condition counts as met)

_BUILTIN_INPUTS = {"input": "input()", "raw_input": "raw_input()"}
_QUESTIONARY = {"text", "select", "confirm", "checkbox", "password", "autocomplete", "path", "rawselect", "press_any_key_to_continue"}
_INQUIRER = {"prompt", "text", "list_input", "confirm", "checkbox", "password", "path", "editor"}
_RICH = {"Prompt", "Confirm", "IntPrompt", "FloatPrompt"}


@dataclass(frozen=True, eq=False)
class PromptCall:
    """A call that waits for an answer on the terminal."""

    line: int
    column: int  # 1-based
    length: int
    token: str  # as shown in the message: `input()`, `click.confirm()`
    how: str
    eof_error: bool  # it raises EOFError at end of input (a handler of EOFError copes)


UNKNOWN = object()  # a value no command line decides


class _Guard:
    __slots__ = ("test", "want", "handled")

    def __init__(self, test: ast.expr | None, want: bool, handled: tuple[set[str], bool] | None = None) -> None:
        self.test = test  # the condition, or None for a `try`
        self.want = want  # the truth the condition must have
        self.handled = handled  # for a `try`: (exception names its handlers catch, a bare `except:`)


@dataclass(eq=False)
class Site:
    node: ast.AST
    scope: ast.AST  # the function (or module) the node runs in
    guards: tuple


@dataclass(eq=False, repr=False)
class Option:
    """A command-line option: argparse ``add_argument`` or a click ``@option``."""

    flags: tuple[str, ...]  # `--add`, `-a`; empty for a positional
    action: str  # store, store_true, store_false, count, append, const, flag, boolean_optional
    default: object  # a constant, or UNKNOWN
    position: int  # index among positionals, -1 for options; -2 for a sub-parser's positional
    nargs: object
    choices: tuple = ()  # the values argparse accepts: modes, whose words are taken as written


# Nodes with nothing below them that matters: contexts, operators, constants, imports.
_LEAVES = frozenset(
    {ast.Constant, ast.Pass, ast.Break, ast.Continue, ast.Import, ast.ImportFrom, ast.alias}
    | {cls for base in (ast.expr_context, ast.operator, ast.cmpop, ast.unaryop, ast.boolop) for cls in base.__subclasses__()}
)


class ScriptFacts:
    """The prompts of one parsed script and what they need to run (:class:`~skilllint.skill.scripts.python.prompt_reach.ScriptModel`
    adds the question whether a command line gets to them)."""

    def __init__(self, tree: ast.Module, text: str = "") -> None:
        self.tree = tree
        self.lines = text.split("\n")
        self.aliases: dict[str, str] = {}  # local name -> dotted origin (`np` -> `numpy`)
        self.defined: set[str] = set()  # module names a def, class or assignment binds
        self.parent_class: dict[ast.AST, bool] = {}  # function -> defined in a class body
        self.calls: dict[str, list[Site]] = {}  # called name -> call sites
        self.escaped: set[str] = set()  # names of functions referenced other than by a call
        self.assignments: dict[tuple[int, str], list[Site]] = {}  # (scope id, name) -> `name = value` sites
        self.rebound: set[tuple[int, str]] = set()  # (scope id, name) bound some other way (for, with, +=)
        self.options: dict[str, list[Option]] = {}  # argparse dest -> options
        self.click_options: dict[int, dict[str, Option]] = {}  # function id -> parameter -> option
        self.subparser_dests: set[str] = set()
        self.prompt_sites: list[tuple[PromptCall, Site]] = []
        self.steps_left = MAX_STEPS  # shared by every question asked of this script
        self._positionals: dict[str, int] = {}
        self._subparser_receivers: set[str] = set()
        self._collect_imports()
        self._visit_block(tree.body, tree, ())

    # -- collection ---------------------------------------------------------------------

    def _collect_imports(self) -> None:
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    local = alias.asname or alias.name.split(".")[0]
                    self.aliases[local] = alias.name if alias.asname else local
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    if alias.name != "*":
                        self.aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self.defined.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                self.defined.add(node.id)

    def _visit_block(self, body: list[ast.stmt], scope: ast.AST, guards: tuple) -> None:
        for statement in body:
            self._visit(statement, scope, guards)
            if isinstance(statement, ast.If) and not statement.orelse and _terminates(statement.body):
                guards = _more(guards, _Guard(statement.test, False))  # what follows runs only when the test failed

    def _visit(self, node: ast.AST, scope: ast.AST, guards: tuple) -> None:
        kind = type(node)
        if kind in _LEAVES:
            return
        if kind is ast.Name:
            if type(node.ctx) is ast.Load and node.id in self.defined:
                self.escaped.add(node.id)  # a function passed on (a callback, a dispatch table)
            return
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for decorator in node.decorator_list:
                self._visit(decorator, scope, guards)
            for default in node.args.defaults + [d for d in node.args.kw_defaults if d is not None]:
                self._visit(default, scope, guards)
            self.parent_class[node] = isinstance(scope, ast.ClassDef)
            if _is_dunder(node.name) or any(not _plain_decorator(d) for d in node.decorator_list):
                self.escaped.add(node.name)  # run by a framework or by Python itself
            self._collect_click_options(node)
            self._visit_block(node.body, node, ())
            return
        if isinstance(node, ast.ClassDef):
            for item in node.bases + node.decorator_list:
                self._visit(item, scope, guards)
            # The class body runs where the class is defined; its methods are entered from their call sites.
            for statement in node.body:
                if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    self._visit(statement, node, ())
                else:
                    self._visit(statement, scope, guards)
            return
        if isinstance(node, ast.If):
            self._visit(node.test, scope, guards)
            self._visit_block(node.body, scope, _more(guards, _Guard(node.test, True)))
            self._visit_block(node.orelse, scope, _more(guards, _Guard(node.test, False)))
            return
        if isinstance(node, ast.While):
            self._visit(node.test, scope, guards)
            self._visit_block(node.body, scope, _more(guards, _Guard(node.test, True)))
            self._visit_block(node.orelse, scope, guards)
            return
        if isinstance(node, ast.IfExp):
            self._visit(node.test, scope, guards)
            self._visit(node.body, scope, _more(guards, _Guard(node.test, True)))
            self._visit(node.orelse, scope, _more(guards, _Guard(node.test, False)))
            return
        if isinstance(node, ast.BoolOp):
            # Each operand runs when the one before it was true (`and`) or false (`or`): that one test
            # implies the earlier ones, and keeps a chain of thousands of operands linear.
            previous = None
            for value in node.values:
                self._visit(value, scope, guards if previous is None else _more(guards, _Guard(previous, isinstance(node.op, ast.And))))
                previous = value
            return
        if isinstance(node, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            self._visit_block(node.body, scope, _more(guards, _Guard(None, True, _handled(node.handlers))))
            for handler in node.handlers:
                if handler.type is not None:
                    self._visit(handler.type, scope, guards)
                self._visit_block(handler.body, scope, guards)
            self._visit_block(node.orelse, scope, guards)
            self._visit_block(node.finalbody, scope, guards)
            return
        if isinstance(node, ast.Assign):
            self._visit(node.value, scope, guards)
            for target in node.targets:
                self._bind_target(target, node.value, scope, guards)
            return
        if isinstance(node, ast.AnnAssign):
            if node.value is not None:
                self._visit(node.value, scope, guards)
                self._bind_target(node.target, node.value, scope, guards)
            return
        if isinstance(node, ast.NamedExpr):
            self._visit(node.value, scope, guards)
            self.assignments.setdefault((id(scope), node.target.id), []).append(Site(node.value, scope, guards))
            return
        if isinstance(node, (ast.AugAssign, ast.For, ast.AsyncFor, ast.comprehension)):
            target = node.target
            for name in ast.walk(target):
                if isinstance(name, ast.Name):
                    self.rebound.add((id(scope), name.id))
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                if item.optional_vars is not None:
                    for name in ast.walk(item.optional_vars):
                        if isinstance(name, ast.Name):
                            self.rebound.add((id(scope), name.id))
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:
                self.rebound.add((id(scope), name))
        elif isinstance(node, ast.Call):
            self._visit_call(node, scope, guards)
            return
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            self.escaped.add("." + node.attr)
        for _name, value in ast.iter_fields(node):
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                self._visit_block(value, scope, guards)
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, ast.AST):
                        self._visit(item, scope, guards)
            elif isinstance(value, ast.AST):
                self._visit(value, scope, guards)

    def _bind_target(self, target: ast.expr, value: ast.expr, scope: ast.AST, guards: tuple) -> None:
        if isinstance(target, ast.Name):
            self.assignments.setdefault((id(scope), target.id), []).append(Site(value, scope, guards))
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
                if value.func.attr == "add_parser":
                    self._subparser_receivers.add(target.id)
            return
        for name in ast.walk(target):
            if isinstance(name, ast.Name):
                self.rebound.add((id(scope), name.id))
            elif isinstance(name, (ast.Subscript, ast.Attribute)):
                self._visit(name.value, scope, guards)

    def _visit_call(self, node: ast.Call, scope: ast.AST, guards: tuple) -> None:
        func = node.func
        site = Site(node, scope, guards)
        if isinstance(func, ast.Name):
            self.calls.setdefault(func.id, []).append(site)
        elif isinstance(func, ast.Attribute):
            self.calls.setdefault("." + func.attr, []).append(site)
            if func.attr == "add_argument":
                self._collect_argparse(node, func)
            elif func.attr == "add_subparsers":
                dest = _keyword_constant(node, "dest")
                if isinstance(dest, str):
                    self.subparser_dests.add(dest)
        prompt = self._prompt(node)
        if prompt is not None:
            self.prompt_sites.append((prompt, site))
        # The callee itself is visited as an expression: a Name in call position is not an escape.
        for child in [*node.args, *node.keywords]:
            self._visit(child, scope, guards)
        if isinstance(func, ast.Attribute):
            self._visit(func.value, scope, guards)
        elif not isinstance(func, ast.Name):
            self._visit(func, scope, guards)

    def _collect_argparse(self, node: ast.Call, func: ast.Attribute) -> None:
        names = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        if not names or len(names) != len(node.args):
            return
        flags = tuple(n for n in names if n.startswith("-"))
        action = _keyword_constant(node, "action")
        if action is UNKNOWN and any(k.arg == "action" for k in node.keywords):
            keyword = next(k for k in node.keywords if k.arg == "action")
            action = "boolean_optional" if _dotted(keyword.value).endswith("BooleanOptionalAction") else "store"
        action = action if isinstance(action, str) else "store"
        default = _keyword_constant(node, "default")
        has_default = any(k.arg == "default" for k in node.keywords)
        if not has_default:
            default = {"store_true": False, "store_false": True, "count": None}.get(action, None)
        receiver = func.value.id if isinstance(func.value, ast.Name) else ""
        if flags:
            dest = _keyword_constant(node, "dest")
            if not isinstance(dest, str):
                long = [f for f in flags if f.startswith("--")]
                dest = (long[0] if long else flags[0]).lstrip("-").replace("-", "_")
            position = -1
        else:
            dest = names[0]
            if receiver in self._subparser_receivers:
                position = -2
            else:
                position = self._positionals.get(receiver, 0)
                self._positionals[receiver] = position + 1
        nargs = _keyword_constant(node, "nargs")
        choices: tuple = ()
        for keyword in node.keywords:
            if keyword.arg == "choices" and isinstance(keyword.value, (ast.List, ast.Tuple, ast.Set)):
                items = keyword.value.elts
                if all(isinstance(i, ast.Constant) and isinstance(i.value, str) for i in items):
                    choices = tuple(i.value for i in items)
        self.options.setdefault(dest, []).append(Option(flags, action, default, position, nargs, choices))

    def _collect_click_options(self, function: ast.AST) -> None:
        options: dict[str, Option] = {}
        for decorator in function.decorator_list:
            if not isinstance(decorator, ast.Call) or not self._qualified(decorator.func).endswith(("click.option", "click.argument")):
                continue
            names = [a.value for a in decorator.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            if not names:
                continue
            flags = tuple(n for part in names for n in part.split("/") if n.startswith("-"))
            plain = [n for n in names if not n.startswith("-")]
            if plain:
                parameter = plain[0]
            else:
                long = [f for f in flags if f.startswith("--")]
                parameter = (long[0] if long else flags[0]).lstrip("-").replace("-", "_")
            is_flag = _keyword_constant(decorator, "is_flag") is True or any("/" in n for n in names)
            default = _keyword_constant(decorator, "default")
            if not any(k.arg == "default" for k in decorator.keywords):
                default = False if is_flag else None
            if self._qualified(decorator.func).endswith("click.argument"):
                options[parameter] = Option((), "store", default, -2, None)
            else:
                options[parameter] = Option(flags, "flag" if is_flag else "store", default, -1, None)
        if options:
            self.click_options[id(function)] = options

    # -- prompts -----------------------------------------------------------------------

    def _qualified(self, node: ast.AST) -> str:
        """The dotted name a callee stands for, through the imports (``P.ask`` -> ``rich.prompt.Prompt.ask``)."""
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return ""
        parts.append(self.aliases.get(node.id, node.id))
        return ".".join(reversed(parts))

    def _prompt(self, node: ast.Call) -> PromptCall | None:
        func = node.func
        if isinstance(func, ast.Name) and func.id in _BUILTIN_INPUTS and func.id not in self.defined and func.id not in self.aliases:
            return self._call(node, _BUILTIN_INPUTS[func.id], "waits for an answer on stdin", True)
        name = self._qualified(func)
        if not name:
            return None
        if name == "getpass.getpass":
            return self._call(node, f"{_source(func)}()", "asks for a password on the terminal", True)
        head, _, last = name.rpartition(".")
        if name in ("click.prompt", "click.confirm", "typer.prompt", "typer.confirm", "click.termui.prompt", "click.termui.confirm"):
            how = "asks a question on the terminal"
        elif last == "ask" and head.rpartition(".")[2] in _RICH and head.startswith("rich."):
            how = "asks a question on the terminal"
        elif (head == "questionary" and last in _QUESTIONARY) or (head == "inquirer" and last in _INQUIRER):
            how = "asks a question on the terminal"
        elif head == "pyinputplus" and last.startswith("input"):
            how = "asks a question on the terminal"
        elif head.startswith("prompt_toolkit") and last in ("prompt", "PromptSession"):
            how = "asks a question on the terminal"
        else:
            return None
        return self._call(node, f"{_source(func)}()", how, False)

    def _call(self, node: ast.Call, token: str, how: str, eof_error: bool) -> PromptCall:
        """The prompt at its callee's name (``getpass.getpass``, ``input``), in characters (ast counts bytes)."""
        func = node.func
        line = self.lines[func.lineno - 1] if 0 < func.lineno <= len(self.lines) else ""
        column = func.col_offset
        if not line.isascii():
            column = len(line.encode("utf-8")[:column].decode("utf-8", errors="replace"))
        length = len(_dotted(func)) or 1
        return PromptCall(func.lineno, column + 1, length, token, how, eof_error)


def _more(guards: tuple, guard: _Guard) -> tuple:
    return guards + (guard,) if len(guards) < MAX_GUARDS else guards


def _terminates(body: list[ast.stmt]) -> bool:
    """Whether a block always leaves: it ends in return, raise, continue, break or an exit call."""
    if not body:
        return False
    last = body[-1]
    if isinstance(last, (ast.Return, ast.Raise, ast.Continue, ast.Break)):
        return True
    if isinstance(last, ast.Expr) and isinstance(last.value, ast.Call):
        name = _dotted(last.value.func)
        # `parser.error()` exits; `logger.error()` does not, so only an argparse parser's name counts.
        return name in ("sys.exit", "exit", "quit", "os._exit", "ctx.exit", "ctx.abort") or name.endswith(("parser.error", "parser.exit"))
    return False


def _handled(handlers: list[ast.ExceptHandler]) -> tuple[set[str], bool]:
    names: set[str] = set()
    bare = False
    for handler in handlers:
        if handler.type is None:
            bare = True
            continue
        types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
        for item in types:
            names.add(_dotted(item).rpartition(".")[2])
    return names, bare


def _dotted(node: ast.AST) -> str:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


def _source(node: ast.AST) -> str:
    return _dotted(node) or "prompt"


def _keyword_constant(call: ast.Call, name: str) -> object:
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value.value if isinstance(keyword.value, ast.Constant) else UNKNOWN
    return UNKNOWN


def _plain_decorator(node: ast.AST) -> bool:
    """Decorators that leave a function to be called by name (not registered with a framework)."""
    return _dotted(node).rpartition(".")[2] in ("staticmethod", "classmethod", "wraps", "lru_cache", "cache")


def _is_dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")
