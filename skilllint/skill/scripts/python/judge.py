"""Whether one command line meets the conditions on a path to a prompt (:mod:`skilllint.skill.scripts.python.prompt_reach`):
the tests around each call site evaluated against ``sys.argv``, argparse and click options, and the
arguments a call binds to a function's parameters; what no command line decides is unknown."""

from __future__ import annotations

import ast

from .model import UNKNOWN, Option, PromptCall, ScriptFacts

_EOF_BASES = {"EOFError", "Exception", "BaseException"}
_WIDE_BASES = {"Exception", "BaseException"}
_GIVEN = object()  # a value the command line gives but SKILL.md only shows by example (`<file>`, `data.csv`): true, else unknown


class _Frame:
    """Where a test is evaluated: a scope and, for a function, what its parameters were given."""

    __slots__ = ("scope", "bindings")

    def __init__(self, scope: ast.AST, bindings: dict[str, tuple[ast.expr, _Frame]] | None) -> None:
        self.scope = scope
        self.bindings = bindings  # None: called from somewhere not followed (arguments unknown)


class Judge:
    """Evaluates one call chain's conditions for one command line."""

    def __init__(self, model: ScriptFacts, args: tuple[str, ...], prompt: PromptCall) -> None:
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
        """The value of an expression for this command line: a constant, _GIVEN or UNKNOWN."""
        key = (id(node), id(frame))
        if key in self.memo:
            return self.memo[key]
        self.model.steps_left -= 1
        if self.model.steps_left < 0 or depth > 60:
            return UNKNOWN
        self.memo[key] = UNKNOWN  # a name defined through itself is unknown
        result = self.memo[key] = self._value(node, frame, depth)
        return result

    def _value(self, node: ast.AST, frame: _Frame, depth: int) -> object:
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            truth = _truth(self.value(node.operand, frame, depth + 1))
            return UNKNOWN if truth is None else not truth
        if isinstance(node, ast.BoolOp):
            return self._bool_op(node, frame, depth)
        if isinstance(node, ast.IfExp):
            truth = _truth(self.value(node.test, frame, depth + 1))
            if truth is None:
                both = [self.value(node.body, frame, depth + 1), self.value(node.orelse, frame, depth + 1)]
                return both[0] if both[0] is not UNKNOWN and both[0] is both[1] else UNKNOWN
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
            return UNKNOWN if any(i is UNKNOWN for i in items) else tuple(items)
        return UNKNOWN

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
                return UNKNOWN if unknown else result  # `and` stops at a false value, `or` at a true one
        return UNKNOWN if unknown else result

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
            if left is UNKNOWN or right is UNKNOWN or left is _GIVEN or right is _GIVEN:
                return UNKNOWN
            try:
                outcome = _COMPARE[type(op)](left, right)
            except (TypeError, KeyError):
                return UNKNOWN
            if isinstance(right, tuple) and _GIVEN in right and isinstance(op, (ast.In, ast.NotIn)):
                return UNKNOWN  # one of the items is not known
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
            if inner is UNKNOWN:
                return UNKNOWN
            try:
                return len(inner) if name == "len" else bool(inner)
            except TypeError:
                return UNKNOWN
        return UNKNOWN

    def _subscript(self, node: ast.Subscript, frame: _Frame, depth: int) -> object:
        base = self.value(node.value, frame, depth + 1)
        if not isinstance(base, tuple):
            return UNKNOWN
        index = node.slice
        try:
            if isinstance(index, ast.Slice):
                bounds = [None if part is None else self.value(part, frame, depth + 1) for part in (index.lower, index.upper, index.step)]
                if any(b is UNKNOWN for b in bounds):
                    return UNKNOWN
                return base[slice(*bounds)]
            position = self.value(index, frame, depth + 1)
            return base[position] if isinstance(position, int) else UNKNOWN
        except (IndexError, TypeError, ValueError):
            return UNKNOWN

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
                    return UNKNOWN
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
        return UNKNOWN

    def _assigned(self, name: str, frame: _Frame, depth: int) -> object | None:
        """The value every reachable ``name = …`` in the frame's scope agrees on, UNKNOWN when they differ,
        None when the scope assigns no such name."""
        key = (id(frame.scope), name)
        sites = self.model.assignments.get(key)
        if not sites:
            return UNKNOWN if key in self.model.rebound else None
        if key in self.model.rebound:
            return UNKNOWN
        values = []
        for site in sites:
            if any(g.test is not None and _truth(self.value(g.test, frame, depth + 1)) == (not g.want) for g in site.guards):
                continue  # an assignment this run does not make
            values.append(self.value(site.node, frame, depth + 1))
        if not values:
            return UNKNOWN
        first = values[0]
        if first is UNKNOWN or any(v is UNKNOWN or v != first for v in values[1:]):
            return UNKNOWN
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
            return UNKNOWN
        values = [self._option(option) for option in options]
        first = values[0]
        if first is UNKNOWN or any(v is UNKNOWN or v != first for v in values[1:]):
            return UNKNOWN
        return first

    def _option(self, option: Option) -> object:
        if option.position == -2:
            return UNKNOWN
        if option.position >= 0:
            words = self._positional_words()
            if option.position < len(words):
                return _written(words[option.position], option)
            if option.nargs in ("?", "*"):
                return option.default if option.nargs == "?" else ()
            return UNKNOWN  # argparse stops the run on a missing argument
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
            return UNKNOWN
        return UNKNOWN if value is None else _written(value, option)

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


def _written(word: str, option: Option) -> object:
    """An option's value from the command line: one of its ``choices`` as written (a mode), else an example."""
    return word if option.choices and word in option.choices else _GIVEN


def _placeholder(word: str) -> bool:
    """A word SKILL.md writes in place of a value the agent supplies: `<file>`, `$URL`, `{name}`, `FILE`, `/path/to/x`."""
    return word[:1] in ("<", "$", "{", "[") or "..." in word or "/path/to" in word or (word.isupper() and not word.startswith("-"))


def _truth(value: object) -> bool | None:
    if value is _GIVEN:
        return True
    if value is UNKNOWN:
        return None
    try:
        return bool(value)
    except Exception:  # noqa: BLE001 - a constant's truth never fails, but be safe
        return None


def _parameters(function: ast.AST) -> set[str]:
    arguments = function.args
    names = {a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs}
    if arguments.vararg:
        names.add(arguments.vararg.arg)
    if arguments.kwarg:
        names.add(arguments.kwarg.arg)
    return names
