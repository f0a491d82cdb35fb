"""Where a Python script asks a question on the terminal, and whether a given command line gets there (SL701).

The script is parsed with :mod:`ast`, never imported or run. :func:`analyse` finds the
prompt calls (``input()``, ``getpass()``, click/typer ``prompt``/``confirm``, rich's
``Prompt.ask``, questionary, inquirer, pyinputplus, prompt_toolkit), resolving names
through the script's imports, and records for each what must hold for it to run:

* the tests of the ``if``/``while``/conditional expressions around it (body or
  ``else``), and of an earlier ``if …: return``/``exit()`` in the same block;
* a ``try`` whose handler catches its failure at end of input (``EOFError`` or a
  base of it for ``input()``/``getpass()``; ``Exception`` or wider for the libraries);
* when it sits in a function, the places that call the function (by name, within the
  module, a bounded number of levels up to the module's own statements, with the
  arguments each call passes bound to the parameters).

:meth:`ScriptModel.reaches` then asks whether one command line (the words after the
script's path) can satisfy those conditions. A test is decided when it is built
from what a command line fixes: ``sys.argv`` (``'--add' in sys.argv``,
``len(sys.argv) < 2``, ``sys.argv[1:]``), argparse options (``add_argument('--add',
action='store_true')`` read as ``args.add``), click options of the decorated
function, ``isatty()`` (false: an agent's shell has no terminal),
``__name__ == '__main__'`` (true), constants, ``not``/``and``/``or``/comparisons,
and names assigned from those (a parameter through its call's argument). Anything
else is unknown and counts as met, so a prompt is dropped only when every way to it
is decided against. A function referenced other than by a call (a callback, a
decorated command) or never called in its module may run: it is entered with
unknown arguments.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass

MAX_CALL_DEPTH = 8  # call levels followed from a prompt up to the module's statements
MAX_PATHS = 64  # call chains judged per prompt; past this the prompt counts as reachable
MAX_STEPS = 50_000  # evaluation and search steps per script; past this every prompt left counts as reachable
MAX_GUARDS = 64  # conditions kept per node; those past it are dropped (a dropped condition counts as met)

# What any prompt's text needs: a script without it is not parsed. Plain literal alternatives (no
# look-behind), so the scan can skip ahead by first character: linear, and fast.
_HINT = re.compile(r"input[ \t]*\(|getpass|click|typer|rich|questionary|inquirer|pyinput|pyip|prompt_toolkit")

_BUILTIN_INPUTS = {"input": "input()", "raw_input": "raw_input()"}
_QUESTIONARY = {"text", "select", "confirm", "checkbox", "password", "autocomplete", "path", "rawselect", "press_any_key_to_continue"}
_INQUIRER = {"prompt", "text", "list_input", "confirm", "checkbox", "password", "path", "editor"}
_RICH = {"Prompt", "Confirm", "IntPrompt", "FloatPrompt"}
_EOF_BASES = {"EOFError", "Exception", "BaseException"}
_WIDE_BASES = {"Exception", "BaseException"}


@dataclass(frozen=True)
class PromptCall:
    """A call that waits for an answer on the terminal."""

    line: int
    column: int  # 1-based
    length: int
    token: str  # as shown in the message: `input()`, `click.confirm()`
    how: str
    eof_error: bool  # it raises EOFError at end of input (a handler of EOFError copes)


_UNKNOWN = object()  # a value no command line decides
_GIVEN = object()  # a value the command line gives but SKILL.md only shows by example (`<file>`, `data.csv`): true, else unknown


class _Guard:
    __slots__ = ("test", "want", "handled")

    def __init__(self, test: ast.expr | None, want: bool, handled: tuple[set[str], bool] | None = None) -> None:
        self.test = test  # the condition, or None for a `try`
        self.want = want  # the truth the condition must have
        self.handled = handled  # for a `try`: (exception names its handlers catch, a bare `except:`)


@dataclass(eq=False)
class _Site:
    node: ast.AST
    scope: ast.AST  # the function (or module) the node runs in
    guards: tuple


@dataclass(eq=False)
class _Option:
    """A command-line option: argparse ``add_argument`` or a click ``@option``."""

    flags: tuple[str, ...]  # `--add`, `-a`; empty for a positional
    action: str  # store, store_true, store_false, count, append, const, flag, boolean_optional
    default: object  # a constant, or _UNKNOWN
    position: int  # index among positionals, -1 for options; -2 for a sub-parser's positional
    nargs: object
    choices: tuple = ()  # the values argparse accepts: modes, whose words are taken as written


class _Frame:
    """Where a test is evaluated: a scope and, for a function, what its parameters were given."""

    __slots__ = ("scope", "bindings")

    def __init__(self, scope: ast.AST, bindings: dict[str, tuple[ast.expr, _Frame]] | None) -> None:
        self.scope = scope
        self.bindings = bindings  # None: called from somewhere not followed (arguments unknown)


# Nodes with nothing below them that matters: contexts, operators, constants, imports.
_LEAVES = frozenset(
    {ast.Constant, ast.Pass, ast.Break, ast.Continue, ast.Import, ast.ImportFrom, ast.alias}
    | {cls for base in (ast.expr_context, ast.operator, ast.cmpop, ast.unaryop, ast.boolop) for cls in base.__subclasses__()}
)


class ScriptModel:
    """The prompts of one parsed script and what they need to run."""

    def __init__(self, tree: ast.Module, text: str = "") -> None:
        self.tree = tree
        self.lines = text.split("\n")
        self.aliases: dict[str, str] = {}  # local name -> dotted origin (`np` -> `numpy`)
        self.defined: set[str] = set()  # module names a def, class or assignment binds
        self.parent_class: dict[ast.AST, bool] = {}  # function -> defined in a class body
        self.calls: dict[str, list[_Site]] = {}  # called name -> call sites
        self.escaped: set[str] = set()  # names of functions referenced other than by a call
        self.assignments: dict[tuple[int, str], list[_Site]] = {}  # (scope id, name) -> `name = value` sites
        self.rebound: set[tuple[int, str]] = set()  # (scope id, name) bound some other way (for, with, +=)
        self.options: dict[str, list[_Option]] = {}  # argparse dest -> options
        self.click_options: dict[int, dict[str, _Option]] = {}  # function id -> parameter -> option
        self.subparser_dests: set[str] = set()
        self.prompt_sites: list[tuple[PromptCall, _Site]] = []
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
            self.assignments.setdefault((id(scope), node.target.id), []).append(_Site(node.value, scope, guards))
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
            self.assignments.setdefault((id(scope), target.id), []).append(_Site(value, scope, guards))
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
        site = _Site(node, scope, guards)
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
        if action is _UNKNOWN and any(k.arg == "action" for k in node.keywords):
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
        self.options.setdefault(dest, []).append(_Option(flags, action, default, position, nargs, choices))

    def _collect_click_options(self, function: ast.AST) -> None:
        options: dict[str, _Option] = {}
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
                options[parameter] = _Option((), "store", default, -2, None)
            else:
                options[parameter] = _Option(flags, "flag" if is_flag else "store", default, -1, None)
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

    # -- reachability -------------------------------------------------------------------

    def reaches(self, prompt_index: int, args: tuple[str, ...]) -> bool:
        """Whether a run with these arguments (after the script's path) can get to the prompt."""
        prompt, site = self.prompt_sites[prompt_index]
        if self.steps_left <= 0:
            return True
        judge = _Judge(self, args, prompt)
        budget = [MAX_PATHS * MAX_CALL_DEPTH]
        paths = 0
        for chain in self._chains(site, (), 0, budget):
            paths += 1
            if paths > MAX_PATHS or chain[0] is _UNKNOWN or judge.chain_holds(chain):
                return True
        return False

    def _chains(self, site: _Site, stack: tuple, depth: int, budget: list[int]) -> Iterator[tuple]:
        """Call chains from the module's statements (or an entry not followed: None first) down to ``site``;
        _UNKNOWN first when the search ran out of ``budget`` (steps shared by the whole search)."""
        budget[0] -= 1
        self.steps_left -= 1
        if budget[0] < 0 or self.steps_left < 0:
            yield (_UNKNOWN,)
            return
        chain = (site, *stack)
        scope = site.scope
        if isinstance(scope, ast.Module):
            yield chain
            return
        if isinstance(scope, ast.ClassDef):
            yield chain
            return
        key = ("." + scope.name) if self.parent_class.get(scope) else scope.name
        callers = self.calls.get(key, []) + ([] if self.parent_class.get(scope) else self.calls.get("." + scope.name, []))
        if self.parent_class.get(scope) and scope.name == "__init__":
            callers = []
        if depth >= MAX_CALL_DEPTH or key in self.escaped or scope.name in self.escaped or not callers:
            yield (None, *chain)  # entered from somewhere not followed: arguments unknown
            return
        for caller in callers:
            if any(caller.scope is s.scope for s in chain):
                continue  # recursion: the chain through the first entry is judged on its own
            yield from self._chains(caller, chain, depth + 1, budget)


class _Judge:
    """Evaluates one call chain's conditions for one command line."""

    def __init__(self, model: ScriptModel, args: tuple[str, ...], prompt: PromptCall) -> None:
        self.model = model
        self.args = args
        self.prompt = prompt
        self.module_frame = _Frame(model.tree, {})
        self.frames = [self.module_frame]  # kept alive: the memo is keyed by their ids
        self._words: list[str] | None = None
        self.memo: dict[tuple[int, int], object] = {}

    def chain_holds(self, chain: tuple) -> bool:
        frame: _Frame | None = None
        unknown_entry = chain[0] is None
        sites = chain[1:] if unknown_entry else chain
        for index, site in enumerate(sites):
            if isinstance(site.scope, (ast.Module, ast.ClassDef)):
                frame = self.module_frame  # a class body runs where the class is defined
            elif frame is None or unknown_entry and index == 0:
                frame = _Frame(site.scope, None)
                self.frames.append(frame)
            if not self._guards_hold(site.guards, frame):
                return False
            if index + 1 < len(sites):
                callee = sites[index + 1].scope
                frame = _Frame(callee, self._bind(callee, site.node, frame))
                self.frames.append(frame)
        return True

    def _guards_hold(self, guards: tuple, frame: _Frame) -> bool:
        for guard in guards:
            if guard.test is None:
                names, bare = guard.handled
                caught = _EOF_BASES if self.prompt.eof_error else _WIDE_BASES
                if bare or names & caught:
                    return False  # the failure at end of input is handled
                continue
            truth = _truth(self.value(guard.test, frame, 0))
            if truth is not None and truth != guard.want:
                return False
        return True

    def _bind(self, function: ast.AST, call: ast.Call, frame: _Frame) -> dict | None:
        if not isinstance(call, ast.Call) or isinstance(function, ast.Lambda):
            return None
        arguments = function.args
        positional = [a.arg for a in arguments.posonlyargs + arguments.args]
        if self.model.parent_class.get(function) and isinstance(call.func, ast.Attribute) and positional[:1] and positional[0] in ("self", "cls"):
            positional = positional[1:]
        bindings: dict = {}
        defaults = dict(zip(reversed(positional), reversed(arguments.defaults)))
        for kw_argument, kw_default in zip(arguments.kwonlyargs, arguments.kw_defaults):
            if kw_default is not None:
                defaults[kw_argument.arg] = kw_default
        starred = False
        for name, value in zip(positional, call.args):
            if isinstance(value, ast.Starred):
                starred = True
                break
            bindings[name] = (value, frame)
        if starred or any(isinstance(v, ast.Starred) for v in call.args):
            return None
        for keyword in call.keywords:
            if keyword.arg is None:
                return None  # **kwargs: unknown
            bindings[keyword.arg] = (keyword.value, frame)
        for name, default in defaults.items():
            bindings.setdefault(name, (default, self.module_frame))
        return bindings

    # -- values --------------------------------------------------------------------------

    def value(self, node: ast.AST, frame: _Frame, depth: int) -> object:
        """The value of an expression for this command line: a constant, _GIVEN or _UNKNOWN."""
        key = (id(node), id(frame))
        if key in self.memo:
            return self.memo[key]
        self.model.steps_left -= 1
        if self.model.steps_left < 0 or depth > 60:
            return _UNKNOWN
        self.memo[key] = _UNKNOWN  # a name defined through itself is unknown
        result = self.memo[key] = self._value(node, frame, depth)
        return result

    def _value(self, node: ast.AST, frame: _Frame, depth: int) -> object:
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            truth = _truth(self.value(node.operand, frame, depth + 1))
            return _UNKNOWN if truth is None else not truth
        if isinstance(node, ast.BoolOp):
            return self._bool_op(node, frame, depth)
        if isinstance(node, ast.IfExp):
            truth = _truth(self.value(node.test, frame, depth + 1))
            if truth is None:
                both = [self.value(node.body, frame, depth + 1), self.value(node.orelse, frame, depth + 1)]
                return both[0] if both[0] is not _UNKNOWN and both[0] is both[1] else _UNKNOWN
            return self.value(node.body if truth else node.orelse, frame, depth + 1)
        if isinstance(node, ast.Compare):
            return self._compare(node, frame, depth)
        if isinstance(node, ast.Call):
            return self._call_value(node, frame, depth)
        if isinstance(node, ast.Subscript):
            return self._subscript(node, frame, depth)
        if isinstance(node, ast.Attribute):
            if self.model._qualified(node) == "sys.argv":
                return self._argv()
            return self._option_value(node.attr)
        if isinstance(node, ast.Name):
            return self._name(node.id, frame, depth)
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            items = [self.value(e, frame, depth + 1) for e in node.elts]
            return _UNKNOWN if any(i is _UNKNOWN for i in items) else tuple(items)
        return _UNKNOWN

    def _bool_op(self, node: ast.BoolOp, frame: _Frame, depth: int) -> object:
        conjunction = isinstance(node.op, ast.And)
        unknown = False
        result: object = None
        for operand in node.values:
            result = self.value(operand, frame, depth + 1)
            truth = _truth(result)
            if truth is None:
                unknown = True
            elif truth != conjunction:
                return _UNKNOWN if unknown else result  # `and` stops at a false value, `or` at a true one
        return _UNKNOWN if unknown else result

    def _compare(self, node: ast.Compare, frame: _Frame, depth: int) -> object:
        left = self.value(node.left, frame, depth + 1)
        for op, right_node in zip(node.ops, node.comparators):
            right = self.value(right_node, frame, depth + 1)
            if isinstance(op, (ast.Is, ast.IsNot)) and {type(left), type(right)} == {object, type(None)} and _GIVEN in (left, right):
                outcome = isinstance(op, ast.IsNot)  # a value given on the command line is not None
                if not outcome:
                    return False
                left = right
                continue
            if left is _UNKNOWN or right is _UNKNOWN or left is _GIVEN or right is _GIVEN:
                return _UNKNOWN
            try:
                outcome = _COMPARE[type(op)](left, right)
            except (TypeError, KeyError):
                return _UNKNOWN
            if isinstance(right, tuple) and _GIVEN in right and isinstance(op, (ast.In, ast.NotIn)):
                return _UNKNOWN  # one of the items is not known
            if not outcome:
                return False
            left = right
        return True

    def _call_value(self, node: ast.Call, frame: _Frame, depth: int) -> object:
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "isatty":
            return False  # an agent's shell has no terminal
        name = self.model._qualified(func)
        if name == "os.isatty":
            return False
        if name in ("len", "bool") and len(node.args) == 1 and not node.keywords:
            inner = self.value(node.args[0], frame, depth + 1)
            if inner is _UNKNOWN:
                return _UNKNOWN
            try:
                return len(inner) if name == "len" else bool(inner)
            except TypeError:
                return _UNKNOWN
        return _UNKNOWN

    def _subscript(self, node: ast.Subscript, frame: _Frame, depth: int) -> object:
        base = self.value(node.value, frame, depth + 1)
        if not isinstance(base, tuple):
            return _UNKNOWN
        index = node.slice
        try:
            if isinstance(index, ast.Slice):
                bounds = [None if part is None else self.value(part, frame, depth + 1) for part in (index.lower, index.upper, index.step)]
                if any(b is _UNKNOWN for b in bounds):
                    return _UNKNOWN
                return base[slice(*bounds)]
            position = self.value(index, frame, depth + 1)
            return base[position] if isinstance(position, int) else _UNKNOWN
        except (IndexError, TypeError, ValueError):
            return _UNKNOWN

    def _name(self, name: str, frame: _Frame, depth: int) -> object:
        if name == "__name__":
            return "__main__"
        scope = frame.scope
        if not isinstance(scope, ast.Module):
            click = self.model.click_options.get(id(scope), {})
            if name in click:
                return self._option(click[name])
            parameters = _parameters(scope)
            if name in parameters:
                if frame.bindings is None or name not in frame.bindings:
                    return _UNKNOWN
                bound = frame.bindings[name]
                return self.value(bound[0], bound[1], depth + 1)
            local = self._assigned(name, frame, depth)
            if local is not None:
                return local
            frame = self.module_frame
        value = self._assigned(name, frame, depth)
        if value is not None:
            return value
        if self.model._qualified(ast.Name(id=name)) == "sys.argv":
            return self._argv()
        return _UNKNOWN

    def _assigned(self, name: str, frame: _Frame, depth: int) -> object | None:
        """The value every reachable ``name = …`` in the frame's scope agrees on, _UNKNOWN when they differ,
        None when the scope assigns no such name."""
        key = (id(frame.scope), name)
        sites = self.model.assignments.get(key)
        if not sites:
            return _UNKNOWN if key in self.model.rebound else None
        if key in self.model.rebound:
            return _UNKNOWN
        values = []
        for site in sites:
            if any(g.test is not None and _truth(self.value(g.test, frame, depth + 1)) == (not g.want) for g in site.guards):
                continue  # an assignment this run does not make
            values.append(self.value(site.node, frame, depth + 1))
        if not values:
            return _UNKNOWN
        first = values[0]
        if first is _UNKNOWN or any(v is _UNKNOWN or v != first for v in values[1:]):
            return _UNKNOWN
        return first

    # -- the command line ------------------------------------------------------------------

    def _argv(self) -> tuple:
        """``sys.argv``: options and sub-command words as written, example values as given-but-unknown."""
        return ("script", *(_GIVEN if _placeholder(word) else word for word in self.args))

    def _option_value(self, dest: str) -> object:
        options = self.model.options.get(dest)
        if not options:
            if dest in self.model.subparser_dests:
                words = self._positional_words()
                return words[0] if words else None
            return _UNKNOWN
        values = [self._option(option) for option in options]
        first = values[0]
        if first is _UNKNOWN or any(v is _UNKNOWN or v != first for v in values[1:]):
            return _UNKNOWN
        return first

    def _option(self, option: _Option) -> object:
        if option.position == -2:
            return _UNKNOWN
        if option.position >= 0:
            words = self._positional_words()
            if option.position < len(words):
                return _written(words[option.position], option)
            if option.nargs in ("?", "*"):
                return option.default if option.nargs == "?" else ()
            return _UNKNOWN  # argparse stops the run on a missing argument
        present, value = self._find(option.flags)
        action = option.action
        if action == "boolean_optional":
            negated = self._find(tuple("--no-" + f[2:] for f in option.flags if f.startswith("--")))[0]
            return True if present else (False if negated else option.default)
        if not present:
            return option.default
        if action in ("store_true", "flag"):
            return True
        if action == "store_false":
            return False
        if action in ("count", "append", "extend"):
            return _GIVEN
        if action in ("store_const", "append_const"):
            return _UNKNOWN
        return _UNKNOWN if value is None else _written(value, option)

    def _find(self, flags: tuple[str, ...]) -> tuple[bool, str | None]:
        """Whether one of the flags is on the command line, and the word that gives its value (or None)."""
        args = self.args
        for index, word in enumerate(args):
            for flag in flags:
                if word == flag:
                    following = args[index + 1] if index + 1 < len(args) else None
                    return True, following if following is not None and not following.startswith("-") else None
                if flag.startswith("--") and word.startswith(flag + "="):
                    return True, word[len(flag) + 1 :]
                if not flag.startswith("--") and len(flag) == 2 and word.startswith(flag) and not word.startswith("--"):
                    return True, None  # `-ay`, `-ofile`
        return False, None

    def _positional_words(self) -> list[str]:
        """The command's words that are not options or option values (argparse's positionals, roughly)."""
        if self._words is not None:
            return self._words
        takes_value = {
            flag
            for options in self.model.options.values()
            for option in options
            if option.action in ("store", "append", "extend") and option.position == -1
            for flag in option.flags
        }
        words: list[str] = []
        skip = False
        for word in self.args:
            if skip:
                skip = False
                continue
            if word.startswith("-") and word != "-":
                skip = word in takes_value
                continue
            words.append(word)
        self._words = words
        return words


_COMPARE = {
    ast.Eq: lambda a, b: a == b,
    ast.NotEq: lambda a, b: a != b,
    ast.Lt: lambda a, b: a < b,
    ast.LtE: lambda a, b: a <= b,
    ast.Gt: lambda a, b: a > b,
    ast.GtE: lambda a, b: a >= b,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
    ast.Is: lambda a, b: a is b if (a is None or b is None or isinstance(a, bool)) else a == b,
    ast.IsNot: lambda a, b: a is not b if (a is None or b is None or isinstance(a, bool)) else a != b,
}


def _written(word: str, option: _Option) -> object:
    """An option's value from the command line: one of its ``choices`` as written (a mode), else an example."""
    return word if option.choices and word in option.choices else _GIVEN


def _more(guards: tuple, guard: _Guard) -> tuple:
    return guards + (guard,) if len(guards) < MAX_GUARDS else guards


def _placeholder(word: str) -> bool:
    """A word SKILL.md writes in place of a value the agent supplies: `<file>`, `$URL`, `{name}`, `FILE`, `/path/to/x`."""
    return word[:1] in ("<", "$", "{", "[") or "..." in word or "/path/to" in word or (word.isupper() and not word.startswith("-"))


def _truth(value: object) -> bool | None:
    if value is _GIVEN:
        return True
    if value is _UNKNOWN:
        return None
    try:
        return bool(value)
    except Exception:  # noqa: BLE001 - a constant's truth never fails, but be safe
        return None


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
            return keyword.value.value if isinstance(keyword.value, ast.Constant) else _UNKNOWN
    return _UNKNOWN


def _parameters(function: ast.AST) -> set[str]:
    arguments = function.args
    names = {a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs}
    if arguments.vararg:
        names.add(arguments.vararg.arg)
    if arguments.kwarg:
        names.add(arguments.kwarg.arg)
    return names


def _plain_decorator(node: ast.AST) -> bool:
    """Decorators that leave a function to be called by name (not registered with a framework)."""
    return _dotted(node).rpartition(".")[2] in ("staticmethod", "classmethod", "wraps", "lru_cache", "cache")


def _is_dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


def analyse(text: str) -> ScriptModel | None:
    """The model of a script, or None when it is not Python 3 that this interpreter parses."""
    if not _HINT.search(text):
        return ScriptModel(ast.Module(body=[], type_ignores=[]), "")
    try:
        tree = ast.parse(text)
        return ScriptModel(tree, text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
