"""Every regular expression of the skilllint package, and hostile strings built for each.

tests/test_regex_linear.py times each pattern on the strings built here. Patterns are
found, not listed, so a pattern added later is covered without a test being written:

* module level: every attribute of every skilllint module that is a compiled
  pattern or a :class:`skilllint.lazyre.LazyPattern`, also inside a tuple, list or
  dict held at module level (``catalog_trigger.CUES``);
* in functions: every ``re.compile``/``re.search``/``re.sub``/… call and every
  ``lazyre.compile`` call whose pattern is written as a literal, read from the
  package's source with :mod:`ast`;
* built at run time (a pattern made from data): every such call site must be
  named in :data:`BUILT_AT_RUN_TIME` with the calls that build its patterns from
  typical inputs (:func:`built_patterns`), else :func:`unlisted_builders` reports it;
* the ``pattern`` keywords of the JSON schemas skilllint ships (schemacheck runs them).

The hostile strings come from each pattern's own parse tree (:func:`hostile_strings`):
for every way through the pattern and every point along it, the text that reaches that
point (the "opener") followed by a long run of a character the next elements accept
and then a character that fails them; the opener repeated; the opener and a run
character repeated; each run alone. Those are the shapes that make a backtracking
engine quadratic or worse: two quantifiers competing for one run, and a match
attempt from every opener that scans to the end of the text.
"""

from __future__ import annotations

import ast
import importlib
import itertools
import json
import pkgutil
import re
from dataclasses import dataclass
from pathlib import Path

try:  # Python 3.11+
    from re import _constants as sre_constants
    from re import _parser as sre_parse
except ImportError:  # Python 3.10
    import sre_constants  # type: ignore[no-redef]
    import sre_parse  # type: ignore[no-redef]

import skilllint
from skilllint import lazyre

PACKAGE = Path(skilllint.__file__).parent
RE_FUNCTIONS = {"compile", "search", "match", "fullmatch", "sub", "subn", "findall", "finditer", "split"}


@dataclass(frozen=True)
class Found:
    """One pattern of the package and where it was found."""

    where: str  # "module.NAME", "module:line", "module:function (built)" or "schema path"
    pattern: str | bytes
    flags: int = 0
    uses: frozenset[str] = frozenset({"?"})  # methods called on it; "?": any (passed on, built)

    def compiled(self) -> re.Pattern:
        return re.compile(self.pattern, self.flags)


# -- module-level patterns -------------------------------------------------------------------


def package_modules() -> list:
    modules = [skilllint]
    for info in pkgutil.walk_packages([str(PACKAGE)], prefix="skilllint."):
        if info.name.endswith("__main__"):
            continue  # running it would start the command line
        modules.append(importlib.import_module(info.name))
    return modules


def _patterns_in(value, depth: int = 0):
    if isinstance(value, re.Pattern):
        yield value.pattern, value.flags
    elif isinstance(value, lazyre.LazyPattern):
        yield value.pattern, value._flags
    elif depth < 3 and isinstance(value, (tuple, list, frozenset, set)):
        for item in value:
            yield from _patterns_in(item, depth + 1)
    elif depth < 3 and isinstance(value, dict):
        for item in itertools.chain(value.keys(), value.values()):
            yield from _patterns_in(item, depth + 1)


def module_patterns() -> list[Found]:
    return [found for found, _ in _module_patterns()]


def _module_patterns() -> list[tuple[Found, list[str]]]:
    """Each module-level pattern once, with every ``module.NAME`` that holds it: a module
    that imports a pattern holds it too, and may come first."""
    found: dict[tuple, Found] = {}
    holders: dict[tuple, list[str]] = {}
    for module in package_modules():
        if module is lazyre:
            continue  # lazyre._MADE lists every lazy pattern of the package: each is found where it is defined
        for name, value in vars(module).items():
            if getattr(value, "__module__", module.__name__) not in (module.__name__, None) and callable(value):
                continue
            for pattern, flags in _patterns_in(value):
                # re.compile's flags include the implied UNICODE; keep what compiling needs
                flags &= ~re.UNICODE if isinstance(pattern, bytes) else ~0
                found.setdefault((pattern, flags), Found(f"{module.__name__}.{name}", pattern, flags))
                holders.setdefault((pattern, flags), []).append(f"{module.__name__}.{name}")
    return [(item, holders[key]) for key, item in found.items()]


# -- how each module-level pattern is used --------------------------------------------------

SEARCHING = {"search", "finditer", "findall", "sub", "subn", "split"}


def pattern_uses() -> dict[str, set[str]]:
    """``"module.NAME"`` of module-level names -> the methods called on them anywhere in the
    package (``pattern.match(text, pos)`` counts as a search: it is tried at many places),
    plus ``"?"`` where a name is used otherwise (passed on, put in a tuple): any use."""
    uses: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        module = _module_name(path)
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        aliases: dict[str, str] = {}  # local name -> "module.NAME" or "module" (for module aliases)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                base = _absolute(node, package)
                for name in node.names:
                    aliases[name.asname or name.name] = f"{base}.{name.name}"
        calls = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                target = _resolve(node.func.value, module, aliases)
                if target:
                    method = node.func.attr
                    if method == "match" and (len(node.args) > 1 or node.keywords):
                        method = "search"
                    uses.setdefault(target, set()).add(method)
                    calls.add(id(node.func.value))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Load) and id(node) not in calls:
                target = _resolve(node, module, aliases)
                if target:
                    uses.setdefault(target, set()).add("?")
    return uses


def _module_name(path: Path) -> str:
    return ("skilllint." + ".".join(path.relative_to(PACKAGE).with_suffix("").parts)).removesuffix(".__init__")


def _absolute(node: ast.ImportFrom, package: str) -> str:
    if not node.level:
        return node.module or ""
    base = package
    for _ in range(node.level - 1):
        base = base.rpartition(".")[0]
    return f"{base}.{node.module}" if node.module else base


def _resolve(node, module: str, aliases: dict[str, str]) -> str | None:
    """``"module.NAME"`` that a Name (``PATTERN``) or Attribute (``markdown.PATTERN``) refers to."""
    if isinstance(node, ast.Name):
        return aliases.get(node.id, f"{module}.{node.id}")
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        owner = aliases.get(node.value.id)
        if owner is not None:
            return f"{owner}.{node.attr}"
    return None


# -- patterns written in functions -----------------------------------------------------------


def _is_re_call(node: ast.Call) -> bool:
    func = node.func
    if not isinstance(func, ast.Attribute) or not isinstance(func.value, ast.Name):
        return False
    return (func.value.id == "re" and func.attr in RE_FUNCTIONS) or (func.value.id == "lazyre" and func.attr == "compile")


def _flags_of(node: ast.Call) -> int:
    """The flags argument of a ``re`` call, when it is written with ``re.`` constants."""
    func = node.func.attr  # type: ignore[attr-defined]
    position = {"compile": 1, "search": 2, "match": 2, "fullmatch": 2, "findall": 2, "finditer": 2, "split": 3, "sub": 4, "subn": 4}[func]
    flags = [k.value for k in node.keywords if k.arg == "flags"]
    if len(node.args) > position:
        flags.append(node.args[position])
    if not flags:
        return 0
    return eval(compile(ast.Expression(flags[0]), "<flags>", "eval"), {"re": re})  # only re.X | re.Y


def source_calls() -> tuple[list[Found], list[str]]:
    """(patterns written as literals in ``re``/``lazyre`` calls, "module:function" of the
    calls whose pattern is built at run time)."""
    literal: list[Found] = []
    built: list[str] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        module = _module_name(path)
        functions = [(n.lineno, n.end_lineno, n.name) for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and _is_re_call(node) and node.args):
                continue
            first = node.args[0]
            in_function = any(start <= node.lineno <= end for start, end, _ in functions)
            if node.func.attr == "compile" and not in_function:  # type: ignore[attr-defined]
                continue  # kept on the module: found by module_patterns, with its uses
            if isinstance(first, ast.Constant) and isinstance(first.value, (str, bytes)):
                method = node.func.attr if node.func.value.id == "re" and node.func.attr != "compile" else "?"  # type: ignore[attr-defined]
                literal.append(Found(f"{module}:{node.lineno}", first.value, _flags_of(node), frozenset({method})))
                continue
            # the innermost function holding the call: the one of those containing it that starts last
            enclosing = max(((start, name) for start, end, name in functions if start <= node.lineno <= end), default=(0, "<module>"))[1]
            built.append(f"{module}:{enclosing}")
    return literal, built


# -- patterns built at run time --------------------------------------------------------------


class _Recorder:
    """Records every pattern compiled through ``re`` while active: ``re.compile``,
    ``re.search`` and the rest, and fnmatch, all go through ``re._compile``."""

    def __init__(self) -> None:
        self.seen: list[tuple[str | bytes, int]] = []

    def __enter__(self):
        self._original = re._compile

        def compile_and_record(pattern, flags):
            if isinstance(pattern, (str, bytes)):
                self.seen.append((pattern, int(flags)))
            return self._original(pattern, flags)

        re._compile = compile_and_record
        return self

    def __exit__(self, *exc) -> None:
        re._compile = self._original


def _discovery_globs() -> None:
    from skilllint.discovery import gitignore as discovery

    # as .gitignore lines reach it: tamed (a line of many stars is dropped), then matched by skilllint
    lines = ["*.pyc", "/build/", "dist/", "*.egg-info/", "a*b*c*d", "?x?y*", ".venv*/", "*a*a", "*a*a*a*a", "a*a/*b*b", "x/*a*a/y*y*/"]
    lines += ["*.py[cod]", "**/*a*a/", "a/**/*b*b", "x*x/**", "[!a]*[ab]*/"]
    discovery._spec_of_lines([discovery.tame_glob(line) for line in lines])  # one search for them all
    lines += ["!*a*a", "!**/x*x/", "!/[ab]*b*b/*"]
    discovery._spec_of_lines([discovery.tame_glob(line) for line in lines])  # with `!`: one search a line


def _disclosure_globs() -> None:
    from skilllint.skill.references import disclosure_graph as disclosure

    for token in ("references/*.md", "scripts/{name}.py", "assets/<file>.png", "*/*/x-*.json", "${ROOT}/*/docs/*-guide.md", "a*b*c*d*e*f.md"):
        disclosure.NamedBy._pattern(token)


def _reference_prefixes() -> None:
    from skilllint.skill.references import graph as references

    references._plain_pattern.__wrapped__(("references/", "scripts/", "assets/", "agents/"))


def _js_imports() -> None:
    from skilllint.skill.scripts import prompts as script_prompts

    for module in ("prompt-sync", "prompts", "readline-sync", "@inquirer/prompts"):
        script_prompts._js_imports("import x from 'y';", module)


def _js_prompts() -> None:
    from skilllint.skill.scripts import lexers as scripts
    from skilllint.skill.scripts import prompts as script_prompts

    code = (
        'import { input, select as choose, confirm } from "@inquirer/prompts";\n'
        "const prompt = require('prompt-sync')();\nconst prompts = require('prompts');\n"
        "const rl = readline.createInterface({ input: process.stdin });\nrl.question('x');\n"
        "const a = await input({ message: 'x' }); prompt('y'); prompts({});\n"
    )
    script_prompts.js_prompts(scripts.Script("a.js", "js", code))


def _shell_argument() -> None:
    from skilllint.skill.scripts import lexers as scripts
    from skilllint.skill.scripts import prompts as script_prompts

    script = scripts.Script("a.sh", "shell", 'NAME="${1:-}"\nlocal KIND=$2\nif [ -z "$NAME" ]; then read -p "x" NAME; fi\n')
    for name in ("NAME", "KIND", "OTHER"):
        script_prompts._argument_of(script, name, len(script.text))


def _imported_names() -> None:
    from skilllint.skill.scripts import runner_pins

    code = "import subprocess as sp\nfrom os import system, popen\nimport * as cp from 'child_process';\nconst ex = require('execa');\n"
    for name in ("sp", "system", "cp", "ex", "sandbox"):
        runner_pins._imported_name(code, name)


def _sarif_help() -> None:
    from skilllint.output import sarif

    page = "# SL101\n\n## What it checks\n\nText.\n\n## Why (it matters) [x]*\n\nMore.\n"
    for title in ("What it checks", "Why (it matters) [x]*"):
        sarif._section(page, title)


def _schema_keywords() -> None:
    from skilllint.config import schemacheck

    for pattern, _ in _schema_patterns():
        schemacheck._pattern(pattern, "value", {})


# "module:function" of each call whose pattern is made at run time: a call of that function
# with typical inputs (the patterns compiled meanwhile are recorded), and how the package
# uses those patterns (read from the code that holds them). Calls at module level are left
# out: what they compile is kept on the module (module_patterns). lazyre.compiled compiles
# the patterns handed to lazyre.compile, found as such.
BUILT_AT_RUN_TIME = {
    "skilllint.discovery.gitignore:__init__": (_discovery_globs, {"search"}),  # _GitignoreLines.match_file
    "skilllint.skill.references.disclosure_graph:_pattern": (_disclosure_globs, {"fullmatch"}),  # _NamedBy.names
    "skilllint.skill.references.graph:_plain_pattern": (_reference_prefixes, {"finditer"}),  # _extract
    "skilllint.skill.scripts.prompts:_js_imports": (_js_imports, {"search"}),
    "skilllint.skill.scripts.prompts:js_prompts": (_js_prompts, {"finditer"}),
    "skilllint.skill.scripts.prompts:_argument_of": (_shell_argument, {"finditer"}),
    "skilllint.skill.scripts.runner_pins:_imported_name": (_imported_names, {"search"}),
    "skilllint.output.sarif:_section": (_sarif_help, {"search"}),
    "skilllint.config.schemacheck:_pattern": (_schema_keywords, {"search"}),
}
NOT_BUILDERS = {"skilllint.lazyre:compiled"}


def built_patterns() -> list[Found]:
    found = []
    for site, (builder, uses) in BUILT_AT_RUN_TIME.items():
        with _Recorder() as recorder:
            builder()
        assert recorder.seen, f"{site}: its builder compiled no pattern"
        for pattern, flags in recorder.seen:
            flags = flags & ~re.UNICODE if isinstance(pattern, str) else flags
            found.append(Found(f"{site} (built)", pattern, flags, frozenset(uses)))
    return found


def unlisted_builders() -> list[str]:
    sites = {site for site in source_calls()[1] if not site.endswith(":<module>")}
    return sorted(sites - set(BUILT_AT_RUN_TIME) - NOT_BUILDERS)


# -- schema patterns -------------------------------------------------------------------------


def _schema_patterns() -> list[tuple[str, str]]:
    found = []

    def walk(value, path: str) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                if key == "pattern" and isinstance(item, str):
                    found.append((item, path))
                elif key == "patternProperties" and isinstance(item, dict):
                    found.extend((name, path) for name in item)
                walk(item, path)
        elif isinstance(value, list):
            for item in value:
                walk(item, path)

    for path in sorted((PACKAGE / "schemas").rglob("*.json")):
        walk(json.loads(path.read_text(encoding="utf-8")), str(path.relative_to(PACKAGE)))
    return found


def schema_patterns() -> list[Found]:
    return [Found(f"schema {where}", pattern) for pattern, where in _schema_patterns()]


def all_patterns() -> list[Found]:
    """Every pattern once, with every way it is used."""
    uses = pattern_uses()
    found = [
        Found(f.where, f.pattern, f.flags, frozenset(set().union(*(uses.get(w, set()) for w in where)) or {"?"}))
        for f, where in _module_patterns()
    ]
    seen: dict[tuple, Found] = {}
    for item in [*found, *source_calls()[0]]:
        key = (item.pattern, item.flags)
        first = seen.get(key)
        seen[key] = item if first is None else Found(first.where, first.pattern, first.flags, first.uses | item.uses)
    # A builder's call also compiles patterns found above (lazily, on first use): those keep their uses.
    for item in [*schema_patterns(), *built_patterns()]:
        seen.setdefault((item.pattern, item.flags), item)
    return list(seen.values())


# -- hostile strings -------------------------------------------------------------------------

C = sre_constants
_CATEGORY_CHARS = {
    C.CATEGORY_SPACE: " \t\n",
    C.CATEGORY_NOT_SPACE: "a-.",
    C.CATEGORY_DIGIT: "1",
    C.CATEGORY_NOT_DIGIT: "a -",
    C.CATEGORY_WORD: "a_1",
    C.CATEGORY_NOT_WORD: " -.",
    C.CATEGORY_LINEBREAK: "\n",
    C.CATEGORY_NOT_LINEBREAK: "a ",
}
_PROBES = " \ta-._1/#`*[]()<>!:\"'|\\{}$~=+,;?@%&^xZ\u00e9\n"  # candidates for a negated class or `.`
_FAIL = ("", "b", "\x00", "\n")  # what ends a run: nothing, a letter, a stranger, a line end


def _in_class(char: str, items) -> bool:
    for op, av in items:
        if op is C.LITERAL and chr(av) == char:
            return True
        if op is C.RANGE and av[0] <= ord(char) <= av[1]:
            return True
        if op is C.CATEGORY and char in _CATEGORY_CHARS.get(av, "") or (op is C.CATEGORY and _category_has(av, char)):
            return True
    return False


def _category_has(category, char: str) -> bool:
    regex = {
        C.CATEGORY_SPACE: r"\s",
        C.CATEGORY_NOT_SPACE: r"\S",
        C.CATEGORY_DIGIT: r"\d",
        C.CATEGORY_NOT_DIGIT: r"\D",
        C.CATEGORY_WORD: r"\w",
        C.CATEGORY_NOT_WORD: r"\W",
    }.get(category)
    return bool(regex and re.fullmatch(regex, char))


def _accepted(op, av, flags: int) -> str:
    """Characters (a few representatives) one element of a parse tree can consume."""
    if op is C.LITERAL:
        return chr(av)
    if op is C.NOT_LITERAL:
        return "a" if chr(av) != "a" else "b"
    if op is C.ANY:
        return "a \t`" + ("\n" if flags & re.DOTALL else "")
    if op is C.IN:
        items = list(av)
        if items and items[0][0] is C.NEGATE:
            return "".join(c for c in _PROBES if not _in_class(c, items[1:]))[:8]
        chars = []
        for item_op, item_av in items:
            if item_op is C.LITERAL:
                chars.append(chr(item_av))
            elif item_op is C.RANGE:
                chars.append(chr(item_av[0]))
                chars.append(chr(item_av[1]))
            elif item_op is C.CATEGORY:
                chars.extend(_CATEGORY_CHARS.get(item_av, ""))
        return "".join(dict.fromkeys(chars))[:8]
    return ""


@dataclass
class _Piece:
    text: str  # what the element emits on the sample path
    chars: str  # what it (or a repeat of it) could consume
    repeated: bool = False  # part of a quantified element: where runs compete


_MAX_PATHS = 6


def _paths(items, flags: int, groups: dict) -> list[list[_Piece]]:
    """Ways through a sequence of parse-tree items, each a list of pieces (capped)."""
    paths: list[list[_Piece]] = [[]]
    for op, av in items:
        options: list[list[_Piece]]
        if op in (C.LITERAL, C.NOT_LITERAL, C.ANY, C.IN):
            chars = _accepted(op, av, flags)
            options = [[_Piece(chars[:1], chars)]] if chars else [[]]
        elif op is C.SUBPATTERN:
            group, add, remove, body = av[0], av[1], av[2], av[3]
            options = _paths(body, (flags | add) & ~remove, groups)
            if group:
                groups[group] = options[0]
        elif op is C.BRANCH:
            options = [path for alternative in av[1] for path in _paths(alternative, flags, groups)]
        elif op in (C.MAX_REPEAT, C.MIN_REPEAT) or op is getattr(C, "POSSESSIVE_REPEAT", None):
            low, high, body = av
            inner = _paths(body, flags, groups)
            chars = "".join(dict.fromkeys("".join(p.chars for path in inner for p in path)))[:4]
            count = max(1, min(low, 3)) if high else 0
            options = [[_Piece(p.text, chars, True) for p in path] * count for path in inner[:3]]
            if low == 0:
                options.append([_Piece("", chars, True)])  # skipped: what follows is reached directly
        elif op is getattr(C, "ATOMIC_GROUP", None):
            options = _paths(av, flags, groups)
        elif op is C.GROUPREF:
            options = [[_Piece("".join(p.text for p in groups.get(av, [])), "")]]
        else:  # AT, ASSERT, ASSERT_NOT, GROUPREF_EXISTS: no text on the sample path
            options = [[]]
        paths = [path + option for path in paths for option in options][: _MAX_PATHS * 8]
    return paths


_FAIL = ("", "\x00", "\n")  # what ends a run: the end, a stranger to every class, a line end


def hostile_strings(found: Found, run: int, repeat: int) -> list[str | bytes]:
    """Adversarial inputs for one pattern (see the module doc): runs of ``run`` characters
    after an opener, openers repeated to ``repeat`` characters."""
    pattern = found.pattern if isinstance(found.pattern, str) else found.pattern.decode("latin-1")
    flags = found.flags & ~re.UNICODE if isinstance(found.pattern, bytes) else found.flags
    paths = _paths(list(sre_parse.parse(pattern, flags)), flags, {})
    if len(paths) > _MAX_PATHS:  # the first and last ways and some between
        step = (len(paths) - 1) / (_MAX_PATHS - 1)
        paths = [paths[round(i * step)] for i in range(_MAX_PATHS)]
    strings: dict[str, None] = {}
    for path in paths:
        # Cut before each quantified element (and at the end): runs compete there.
        cuts = [i for i, piece in enumerate(path) if piece.repeated and (i == 0 or not path[i - 1].repeated or path[i - 1].chars != piece.chars)]
        for cut in [*cuts, len(path)]:
            opener = "".join(p.text for p in path[:cut])
            ahead = "".join(dict.fromkeys("".join(p.chars for p in path[cut : cut + 2])))[:4]
            for char in ahead:
                for fail in _FAIL:
                    strings[opener + char * run + fail] = None
            if ahead:
                unit = opener + ahead[0]
                strings[unit * (repeat // len(unit) + 1)] = None
            if opener:
                strings[opener * (repeat // len(opener) + 1)] = None
                if flags & re.MULTILINE:
                    strings[(opener + "\n") * (repeat // (len(opener) + 1) + 1)] = None
    if isinstance(found.pattern, bytes):
        return [s.encode("utf-8") for s in strings]
    return list(strings)
