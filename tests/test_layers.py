"""skilllint's layers, and the test that keeps every import going down them.

:data:`LAYERS` is the one table of which module sits in which layer (README "Layout" and
CONTRIBUTING.md "Where code goes" describe it). A module may import a module of its own
layer or of a layer below; an import of a layer above, or any cycle of imports between
modules, fails the test, naming the edges. Every import counts: at module level, inside a
function, relative or absolute, and under ``if TYPE_CHECKING:`` too (a type is a
dependency all the same). A module that no entry names fails as well, so that a new
module is placed on purpose. There is no list of exceptions: analysis that a rule calls is
handed what it reads of the rule's context (the targets, the memo, the settings), never the
context itself.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "skilllint"

# Top to bottom. An entry names a module or a package (and so every module in it); the
# longest entry that matches wins. ``skilllint`` names only the package's own
# ``__init__`` (its version), which every layer may read.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("front ends", ("skilllint.__main__", "skilllint.cli", "skilllint.server")),
    ("app", ("skilllint.app", "skilllint.output")),
    ("lint", ("skilllint.lint",)),
    ("config", ("skilllint.config",)),
    ("rules", ("skilllint.rules", "skilllint.registry")),
    ("rule", ("skilllint.rule",)),
    ("catalog", ("skilllint.catalog",)),
    ("discovery", ("skilllint.discovery",)),
    (
        "skill analyses",
        (
            "skilllint.skill.evals",
            "skilllint.skill.fields",
            "skilllint.skill.openai_yaml",
            "skilllint.skill.references",
            "skilllint.skill.safety",
            "skilllint.skill.scripts",
            "skilllint.skill.security",
            "skilllint.skill.size",
            "skilllint.skill.suppressions",
        ),
    ),
    ("skill model", ("skilllint.skill",)),
    ("skill text", ("skilllint.skill.text",)),
    ("targets", ("skilllint.targets",)),
    (
        "leaves",
        (
            "skilllint",
            "skilllint.diagnostics",
            "skilllint.edits",
            "skilllint.findingcap",
            "skilllint.fsafe",
            "skilllint.lazyre",
            "skilllint.rulebook",
            "skilllint.safewrite",
        ),
    ),
)

def module_names() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its ``__init__``)."""
    names = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names[".".join(parts)] = path
    return names


def imports(module: str, path: Path, modules: dict[str, Path]) -> dict[str, int]:
    """The skilllint modules ``module`` imports, each with the first line that does."""
    is_package = path.name == "__init__.py"
    found: dict[str, int] = {}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            named = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".") if is_package else module.split(".")[:-1]
                base = base[: len(base) - node.level + 1]
                assert base, f"{module}:{node.lineno}: a relative import above the package"
                source = ".".join([*base, node.module] if node.module else base)
            else:
                source = node.module or ""
            # ``from skilllint import fsafe`` imports a module; ``from .fsafe import x`` a name of one
            named = [f"{source}.{alias.name}" if f"{source}.{alias.name}" in modules else source for alias in node.names]
        else:
            continue
        for name in named:
            if name != "skilllint" and not name.startswith("skilllint."):
                continue
            while name not in modules and "." in name:
                name = name.rsplit(".", 1)[0]
            if name != module:
                found.setdefault(name, node.lineno)
    return found


def layer_of(module: str) -> int | None:
    """The index in :data:`LAYERS` (0 at the top) of ``module``'s layer."""
    best = None
    for index, (_, entries) in enumerate(LAYERS):
        for entry in entries:
            matches = module == entry or (entry != "skilllint" and module.startswith(entry + "."))
            if matches and (best is None or len(entry) > len(best[1])):
                best = (index, entry)
    return None if best is None else best[0]


def import_graph() -> dict[str, dict[str, int]]:
    modules = module_names()
    return {module: imports(module, path, modules) for module, path in modules.items()}


def _where(graph, module, target) -> str:
    return f"{module} -> {target} (line {graph[module][target]})"


def upward_edges(graph) -> list[str]:
    edges = []
    for module, targets in sorted(graph.items()):
        for target in sorted(targets):
            if None in (layer_of(module), layer_of(target)):
                continue  # a module with no layer fails test_every_module_has_a_layer
            if layer_of(target) < layer_of(module):
                edges.append(f"{_where(graph, module, target)}: {LAYERS[layer_of(module)][0]} imports {LAYERS[layer_of(target)][0]}")
    return edges


def cycles(graph) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    edges = {m: sorted(ts) for m, ts in graph.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []

    def visit(node: str) -> None:  # recursion depth is bounded by the number of modules
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in edges.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_every_module_has_a_layer():
    assert [m for m in module_names() if layer_of(m) is None] == []


def test_no_import_goes_up_a_layer():
    edges = upward_edges(import_graph())
    assert edges == [], "imports that go up a layer:\n" + "\n".join(edges)


def test_no_import_cycle():
    graph = import_graph()
    found = cycles(graph)
    shown = []
    for component in found:
        members = set(component)
        shown.append(" / ".join(_where(graph, m, t) for m in component for t in sorted(graph[m]) if t in members))
    assert found == [], "import cycles:\n" + "\n".join(shown)


def test_contributing_shows_the_table():
    """CONTRIBUTING.md's "Where code goes" lists the layers of :data:`LAYERS`, in order, each
    with its modules and packages, as paths in the package (``skill/text/``, ``rule.py``)."""
    text = (PACKAGE.parent / "CONTRIBUTING.md").read_text(encoding="utf-8")
    section = text.split("## Where code goes", 1)[1].split("\n## ", 1)[0]
    rows = [line.split("|")[1:3] for line in section.splitlines() if line.startswith("| ") and not line.startswith("| Layer")]
    shown = [(name.strip(), sorted(re.findall(r"`([^`]+)`", where))) for name, where in rows]

    def written(entry: str) -> str:
        path = PACKAGE.parent.joinpath(*entry.split("."))
        written = path.relative_to(PACKAGE).as_posix()
        return f"{written}/" if path.is_dir() else f"{written}.py"

    wanted = [(name, sorted(written(e) for e in entries if e != "skilllint")) for name, entries in LAYERS]
    assert shown == wanted


def test_the_reader_sees_every_kind_of_import(tmp_path):
    """A function-level, relative, ``from . import`` and TYPE_CHECKING import are all read."""
    source = (
        "from __future__ import annotations\n"
        "from typing import TYPE_CHECKING\n"
        "import skilllint.fsafe\n"
        "from . import lazyre\n"
        "if TYPE_CHECKING:\n    from .config.settings import Settings\n"
        "def f():\n    from .lint.engine import lint_paths\n    from .rules import size\n"
    )
    path = tmp_path / "probe.py"
    path.write_text(source)
    modules = {name: Path() for name in ("skilllint", "skilllint.fsafe", "skilllint.lazyre", "skilllint.config.settings", "skilllint.lint.engine", "skilllint.rules", "skilllint.rules.size")}
    found = imports("skilllint.probe", path, modules)
    assert set(found) == {"skilllint.fsafe", "skilllint.lazyre", "skilllint.config.settings", "skilllint.lint.engine", "skilllint.rules.size"}


def test_the_checks_catch_an_upward_edge_and_a_cycle():
    graph = {"skilllint.fsafe": {"skilllint.cli.main": 1}, "skilllint.cli.main": {"skilllint.fsafe": 1}}
    assert upward_edges(graph) == ["skilllint.fsafe -> skilllint.cli.main (line 1): leaves imports front ends"]
    assert cycles(graph) == [["skilllint.cli.main", "skilllint.fsafe"]]


def test_the_architecture_page_names_every_folder_and_module():
    """docs/architecture.md has a line for each folder of the package (as `skill/text/`) and each
    top-level module (as `fsafe.py`), and names none that is gone."""
    text = (PACKAGE.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    package_part = text.split("## Beside the package", 1)[0]
    named = set(re.findall(r"^\| `([^`]+)` \|", package_part, re.MULTILINE))
    folders = {
        f"{path.relative_to(PACKAGE).as_posix()}/"
        for path in PACKAGE.rglob("*")
        if path.is_dir() and path.name != "__pycache__" and not any(part == "__pycache__" for part in path.parts)
    }
    modules = {path.name for path in PACKAGE.glob("*.py") if path.name != "__init__.py"}
    assert named == folders | modules, (sorted((folders | modules) - named), sorted(named - folders - modules))
