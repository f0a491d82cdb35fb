"""Each dataclass of skilllint generates the methods its instances are used with, and no others.

CPython compiles every method a dataclass generates with ``exec`` when the class is created,
that is at import: a fixed cost of every skilllint process, a pre-commit run on one file as
much as a run on a thousand skills. So a dataclass is written ``eq=False`` unless its instances
are compared or hashed by value (``==``, ``in`` or ``index`` on a list, a set member, part of a
dict key), and ``repr=False`` unless they are printed or formatted (``str()``, an f-string) or a
test prints them when it fails (one that compares them, or draws them with hypothesis).

The tables below say which dataclasses keep ``__eq__`` and ``__repr__``, and why. The test
reads the decorators as written (every ``@dataclass`` under skilllint/, nested ones too), so a
new dataclass is declared on purpose: with ``eq=False, repr=False``, or entered here with the
use that needs the method. With ``eq=False``, ``==`` compares identity and a set or a dict
keys on identity: a class that starts being compared by value moves into VALUE_EQUALITY.
The public rule API (skilllint/rule.py, skilllint/diagnostics.py) keeps both methods: rules
outside this repository, and their tests, compare and print it.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "skilllint"

# Dataclasses whose instances are compared or hashed by value (they keep __repr__ too: a
# failing comparison prints them).
VALUE_EQUALITY: dict[str, str] = {
    "diagnostics.Span": "public; the language server compares runs' findings as sets of (..., span, ...)",
    "diagnostics.Finding": "public; rule tests compare findings",
    "diagnostics.Diagnostic": "public; the cache's JSON round trip is checked by comparing diagnostics",
    "diagnostics.Fix": "public; compared as a field of Diagnostic and Finding",
    "diagnostics.Edit": "public; compared as an item of Fix",
    "diagnostics.Related": "public; compared as an item of Diagnostic and Finding",
    "rule.Option": "public rule API",
    "rule.RuleContext": "public rule API",
    "rule.Outcome": "public rule API (FieldRule.judge returns it)",
    "targets.base.Target": "part of the key of the rule plans kept per run (package_lint._plan)",
    "catalog.lexical_router.Ranked": "list.index finds the skill's rank (lexical_router, SL51x)",
    "catalog.codex.Tokens": "budgets are compared: a Tokens budget never equals a Characters one",
    "catalog.codex.Characters": "budgets are compared: a Characters budget never equals a Tokens one",
    "catalog.codex.RenderReceipt": "tests check that input order changes no receipt",
    "catalog.codex.SkillReceipt": "compared as an item of RenderReceipt",
    "catalog.codex.ExcludedEntry": "compared as an item of RenderReceipt",
    "catalog.copilot.CopilotListing": "the fuzz test checks that input order changes no listing",
    "catalog.copilot.ListedSkill": "compared as an item of CopilotListing",
    "catalog.overlap.Overlap": "tests compare the overlaps found with a brute-force search",
    "skill.evals.files.TriggerCase": "tests compare the cases read",
    "skill.text.markdown.Link": "tests compare the links found with the reference parser's",
}

# Dataclasses never compared by value whose instances are still printed or formatted.
PRINTED: dict[str, str] = {
    "catalog.codex.CatalogEntry": "drawn by hypothesis: a falsifying example prints it",
    "catalog.codex.RenderOptions": "drawn by hypothesis: a falsifying example prints it",
    "discovery.walk.Found": "tests compare lists of them with []: a failure prints them",
    "skill.evals.files.TriggerSet": "tests compare lists of them with []: a failure prints them",
    "skill.evals.json_positions.EvalProblem": "tests compare tuples of them with (): a failure prints them",
    "skill.security.fetch_commands.FetchRun": "tests compare lists of them with []: a failure prints them",
    "skill.security.hidden_text.Hidden": "tests compare lists of them with []: a failure prints them",
    "skill.scripts.python.model.PromptCall": "tests compare lists of them with []: a failure prints them",
    "skill.scripts.python.model.Site": "tests compare lists of them with []: a failure prints them",
    "skill.security.secrets.Secret": "tests compare lists of them with []: a failure prints them",
}


def _declared() -> dict[str, dict[str, bool]]:
    """Every dataclass under skilllint/ (``module.Class``, ``module.Outer.Inner``) and the
    options its decorator gives."""
    found: dict[str, dict[str, bool]] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                name = f"{prefix}.{child.name}"
                for decorator in child.decorator_list:
                    call = decorator if isinstance(decorator, ast.Call) else None
                    target = call.func if call else decorator
                    if (target.id if isinstance(target, ast.Name) else getattr(target, "attr", None)) == "dataclass":
                        found[name] = {k.arg: ast.literal_eval(k.value) for k in (call.keywords if call else [])}
                visit(child, name)
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                visit(child, f"{prefix}.{child.name}")

    for path in sorted(PACKAGE.rglob("*.py")):
        module = ".".join(path.relative_to(PACKAGE).with_suffix("").parts)
        visit(ast.parse(path.read_text(encoding="utf-8")), module)
    return found


def test_the_scan_finds_the_dataclasses():
    declared = _declared()
    assert len(declared) > 100  # a scan that found none would let every check below pass
    assert set(VALUE_EQUALITY) | set(PRINTED) <= set(declared), "an entry names no dataclass: renamed or removed?"
    assert not set(VALUE_EQUALITY) & set(PRINTED)


def test_a_dataclass_generates_eq_only_when_its_instances_are_compared_by_value():
    generates = {name for name, options in _declared().items() if options.get("eq", True)}
    assert sorted(generates - set(VALUE_EQUALITY)) == [], "write eq=False, or enter the class in VALUE_EQUALITY with the comparison"
    assert sorted(set(VALUE_EQUALITY) - generates) == [], "compared by value, yet eq=False: == would compare identity"


def test_a_dataclass_generates_repr_only_when_its_instances_are_shown():
    shown = set(VALUE_EQUALITY) | set(PRINTED)
    generates = {name for name, options in _declared().items() if options.get("repr", True)}
    assert sorted(generates - shown) == [], "write repr=False, or enter the class in PRINTED with where it is shown"
    assert sorted(shown - generates) == [], "shown, yet repr=False: it would print as <object at 0x...>"
