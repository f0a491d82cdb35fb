"""Targets are data: rules and analysis ask a surface's profile (skilllint.targets) what the
surface does, never which surface it is.

The first part reads the analysis code with ``ast`` and fails on a comparison, a membership
test or a lookup that names a target id (directly, or through a constant or a table that
holds target ids). The second part flips one profile field with ``dataclasses.replace`` and
checks the verdict follows the field, not the id.
"""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

from skilllint.discovery.units import InstallUnits
from skilllint.registry import registry
from skilllint.rule import RuleContext
from skilllint.skill.package import SkillPackage
from skilllint.targets import TARGETS

ROOT = Path(__file__).resolve().parent.parent / "skilllint"
SCANNED = ("rules", "skill", "catalog", "lint", "app")
SCANNED_FILES = ("rule.py",)  # the rule API (emit) groups the targets' outcomes
TARGET_IDS = frozenset(TARGETS) | {"claude-ai"}

# (module, source of the flagged expression) -> why that use of an id is the right one.
ALLOWED = {
    ("skilllint/rules/fields/sl01x_parsing.py", "self._HOW[target.splitter]"): (
        "keyed by splitter (Target.splitter), whose names coincide with two target ids"
    ),
    ("skilllint/skill/package.py", "frontmatter.SPLITTERS[splitter]"): (
        "the splitters by name (Target.splitter), two of them named after the surface whose split they model"
    ),
    ("skilllint/skill/security/safety_bypass.py", "_AGENT_FLAGS.get(program)"): (
        "keyed by a command's program name; the Codex CLI's executable is `codex`, which is also a target id"
    ),
    ("skilllint/skill/security/safety_bypass.py", "_WHAT[program]"): (
        "keyed by a command's program name; the Codex CLI's executable is `codex`, which is also a target id"
    ),
    ("skilllint/skill/openai_yaml/wording.py", 'TARGETS["codex"]'): (
        "agents/openai.yaml is Codex's own file: a `$name` mention is Codex's syntax, read as Codex reads the name"
    ),
}


def _strings(node: ast.AST) -> set[str]:
    return {n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)}


def _holds_ids(node: ast.AST) -> bool:
    """A literal (or a call on literals) that holds a target id: a table or a set of them."""
    return bool(_strings(node) & TARGET_IDS) and isinstance(node, (ast.Tuple, ast.List, ast.Set, ast.Dict, ast.Call))


def _id_tables(tree: ast.Module) -> set[str]:
    """The module- and class-level names bound to a literal holding target ids."""
    names: set[str] = set()
    bodies = [tree.body] + [n.body for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]
    for body in bodies:
        for stmt in body:
            if isinstance(stmt, ast.Assign):
                targets, value = stmt.targets, stmt.value
            elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
                targets, value = [stmt.target], stmt.value
            else:
                continue
            if isinstance(value, ast.Constant) and value.value in TARGET_IDS or _holds_ids(value):
                names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def _named(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def id_uses(source: str, tables: set[str] = frozenset()) -> list[ast.AST]:
    """The expressions of ``source`` that compare with, test membership in, or look up by a
    target id. ``tables`` are names bound elsewhere (imported) to literals holding ids."""
    tree = ast.parse(source)
    tables = set(tables) | _id_tables(tree)

    def names_id(node: ast.AST) -> bool:
        if isinstance(node, ast.Constant):
            return node.value in TARGET_IDS
        if isinstance(node, (ast.Tuple, ast.List, ast.Set, ast.Dict, ast.Call)) and _holds_ids(node):
            return not isinstance(node, ast.Call) or _named(node.func) in ("frozenset", "set", "tuple", "list", "dict")
        return _named(node) in tables

    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and any(isinstance(op, (ast.Eq, ast.NotEq, ast.In, ast.NotIn)) for op in node.ops):
            if any(names_id(operand) for operand in (node.left, *node.comparators)):
                found.append(node)
        elif isinstance(node, ast.Subscript):
            if names_id(node.slice) or names_id(node.value):
                found.append(node)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in ("get", "pop", "setdefault", "count", "index", "__contains__"):
                if (node.args and names_id(node.args[0])) or names_id(node.func.value):
                    found.append(node)
    return found


def _modules() -> list[Path]:
    files = [path for folder in SCANNED for path in sorted((ROOT / folder).rglob("*.py"))]
    return files + [ROOT / name for name in SCANNED_FILES]


def _imported_tables() -> set[str]:
    """Id tables of every scanned module: a rule may import one (`from ..x import TABLE`)."""
    return {name for path in _modules() for name in _id_tables(ast.parse(path.read_text(encoding="utf-8")))}


def test_analysis_code_asks_target_facts_not_target_ids():
    tables = _imported_tables()
    offences = []
    for path in _modules():
        source = path.read_text(encoding="utf-8")
        relative = path.relative_to(ROOT.parent).as_posix()
        for node in id_uses(source, tables):
            text = ast.get_source_segment(source, node)
            if (relative, text) in ALLOWED:
                continue
            offences.append(f"{relative}:{node.lineno}: {text}")
    assert not offences, (
        "these compare or look up target ids; give Target a field that says what the surface does "
        "(skilllint/targets/base.py, set in each profile with its docs/surfaces.md evidence):\n" + "\n".join(offences)
    )


def test_every_allowed_use_still_exists():
    """An allowance whose code is gone must go too (else it would hide a new use)."""
    tables = _imported_tables()
    seen = set()
    for path in _modules():
        source = path.read_text(encoding="utf-8")
        relative = path.relative_to(ROOT.parent).as_posix()
        seen |= {(relative, ast.get_source_segment(source, node)) for node in id_uses(source, tables)}
    assert set(ALLOWED) <= seen


@pytest.mark.parametrize(
    "source",
    [
        'if target.id == "claude-code": pass',
        'if "codex" != t: pass',
        'ok = t in ("codex", "agentskills")',
        'ok = "claude-code" in ctx.target_ids',
        'ok = t not in frozenset({"opencode"})',
        'NOT_NESTED = frozenset({"claude-code", "opencode"})\nok = target in NOT_NESTED',
        'SKILLS_REF = "skills-ref"\nok = t == SKILLS_REF',
        'class R:\n    _IDS = ("copilot",)\n    def f(self, t):\n        return t.id in self._IDS',
        'x = TARGETS["codex"]',
        'x = catalog.renders.get("claude-code")',
        'ROOTS = {"codex": 1}\nx = ROOTS.get(target)',
        'x = ROOTS[target]\nROOTS = {"copilot": 1}',
        'x = {"claude-code": "drops it"}.get(target.id)',
    ],
)
def test_the_check_sees_each_form_of_an_id_comparison(source):
    assert id_uses(source), source


@pytest.mark.parametrize(
    "source",
    [
        'severities = {"codex": 1}',  # the rule book's per-target severities: a contract, not a question
        'Finding("m", span, severities={"codex": level})',
        "if target.lenient_loader: pass",
        'if target.catalog_model == "listing": pass',
        "x = TARGETS[target_id]",
    ],
)
def test_the_check_lets_target_facts_and_severity_tables_be(source):
    assert not id_uses(source), source


# -- the verdicts follow the fields ---------------------------------------------------------


def _rule(code: str):
    return next(rule for rule in registry().sorted() if rule.code == code)()


def _package(tmp_path: Path, frontmatter: str, body: str = "Body line.\n", folder: str = "demo") -> SkillPackage:
    root = tmp_path / folder
    root.mkdir(parents=True, exist_ok=True)
    (root / "SKILL.md").write_text(f"---\n{frontmatter}---\n{body}", encoding="utf-8")
    return SkillPackage(root, tmp_path)


def _judge(code: str, target, package: SkillPackage):
    rule = _rule(code)
    ctx = RuleContext((target,), {})
    return list(rule.check(package, ctx))


def _flipped(target_id: str, **changes):
    return dataclasses.replace(TARGETS[target_id], **changes)


@pytest.mark.parametrize(
    "code, target_id, field, frontmatter",
    [
        # name missing: required, unless the surface falls back to the folder's name
        ("SL101", "claude-code", "name_defaults_to_folder", "description: d\n"),
        # a blank description: rejected only by surfaces that require its text
        ("SL112", "codex", "requires_description_text", "name: demo\ndescription: '  '\n"),
        # compatibility as a list: reported unless the surface loads whatever it is given
        ("SL123", "claude-code", "lenient_loader", "name: demo\ndescription: d\ncompatibility: [a]\n"),
        # a falsy compatibility (0): quick_validate checks it only when truthy
        ("SL123", "claude-api", "quick_validate", "name: demo\ndescription: d\ncompatibility: 0\n"),
        # blank compatibility text: the specification's own limit
        ("SL123", "agentskills", "requires_compatibility_text", "name: demo\ndescription: d\ncompatibility: '  '\n"),
        # metadata values that are not strings
        ("SL124", "agentskills", "checks_metadata_values", "name: demo\ndescription: d\nmetadata:\n  a: 1\n"),
        # an empty name passes quick_validate
        ("SL102", "claude-api", "quick_validate", "name: ''\ndescription: d\n"),
    ],
)
def test_a_rules_verdict_follows_the_profile_field_not_the_id(tmp_path, code, target_id, field, frontmatter):
    package = _package(tmp_path, frontmatter)
    real = TARGETS[target_id]
    flipped = _flipped(target_id, **{field: not getattr(real, field)})
    verdict = [f.message for f in _judge(code, real, package)]
    assert verdict != [f.message for f in _judge(code, flipped, package)], (code, target_id, field, verdict)


def test_reserved_names_follow_the_profile(tmp_path):
    package = _package(tmp_path, "name: synced\ndescription: d\n", folder="synced")
    real = TARGETS["claude-code"]
    assert any("reserved" in f.message for f in _judge("SL107", real, package))
    quiet = _flipped("claude-code", reserves_anthropic_names=False)
    assert not any("synced" in f.message and "reserved by" in f.message for f in _judge("SL107", quiet, package))


def test_the_name_as_read_follows_the_profile(tmp_path):
    """SL106 compares names as each surface reads them: collapsed, stripped, NFKC or raw."""
    package = _package(tmp_path, "name: 'demo  '\ndescription: d\n")
    raw = _flipped("agentskills", name_read="raw")
    assert _judge("SL106", raw, package)
    assert not _judge("SL106", _flipped("agentskills", name_read="strip"), package)


def test_the_fallback_name_and_plugin_prefix_follow_the_profile(tmp_path):
    long_folder = "x" * 70
    package = _package(tmp_path, "description: d\n", folder=long_folder)
    assert _judge("SL103", TARGETS["codex"], package)  # Codex checks the folder name it falls back to
    assert not _judge("SL103", _flipped("codex", name_defaults_to_folder=False), package)


def test_a_nul_byte_is_reported_only_for_surfaces_that_stop_there(tmp_path):
    root = tmp_path / "demo"
    root.mkdir()
    (root / "SKILL.md").write_bytes(b"---\nname: demo\ndescription: d\n---\nbody \x00 more\n")
    package = SkillPackage(root, tmp_path)
    assert not _judge("SL009", TARGETS["skills-ref"], package)  # it reads on
    assert _judge("SL009", _flipped("skills-ref", reads_nul_bytes=False), package)


def test_the_reference_validators_own_message_follows_the_profile(monkeypatch):
    import skilllint.rule as rule_module
    from skilllint.diagnostics import Span
    from skilllint.rule import Outcome, emit

    outcome = Outcome("our words", Span(1, 1, 1, 2), ref_message="its words")
    assert [f.message for f in emit({"skills-ref": outcome})] == ["its words"]
    assert [f.message for f in emit({"agentskills": outcome})] == ["our words"]
    monkeypatch.setattr(rule_module, "TARGETS", dict(TARGETS, agentskills=_flipped("agentskills", reference_validator=True)))
    assert [f.message for f in emit({"agentskills": outcome})] == ["its words"]


# -- catalogs follow the fields -------------------------------------------------------------


class _Only:
    """Settings that select one (possibly altered) profile for every skill."""

    def __init__(self, target):
        self.target = target
        self.units = InstallUnits()

    def targets_for(self, package):
        return (self.target,)


def _catalogs(tmp_path: Path, target):
    from skilllint.catalog.model import build_catalogs
    from skilllint.discovery.walk import discover

    packages = [SkillPackage(f.root, f.lint_root) for f in discover([str(tmp_path)], tmp_path).packages]
    return build_catalogs(packages, _Only(target))


SKILL = "name: {n}\ndescription: Does {n}. Use when asked.\n"


def test_a_nested_skill_is_listed_only_where_the_surface_loads_nested_skills(tmp_path):
    _package(tmp_path / "skills", SKILL.format(n="outer"), folder="outer")
    _package(tmp_path / "skills" / "outer", SKILL.format(n="inner"), folder="inner")

    def listed(target):
        return sorted(s.name for c in _catalogs(tmp_path, target) for s in c.skills)

    assert listed(TARGETS["opencode"]) == ["outer"]
    assert listed(_flipped("opencode", loads_nested_skills=True)) == ["inner", "outer"]


def test_the_folders_a_surface_scans_make_its_repository_catalog(tmp_path):
    (tmp_path / ".git").mkdir()
    _package(tmp_path / ".github" / "skills", SKILL.format(n="a"), folder="a")
    assert [c.kind for c in _catalogs(tmp_path, TARGETS["copilot"])] == ["surface-roots"]
    assert [c.kind for c in _catalogs(tmp_path, _flipped("copilot", project_skill_folders=()))] == ["collection"]


def test_hiding_a_disabled_skill_follows_the_profile(tmp_path):
    _package(tmp_path / "skills", SKILL.format(n="a") + "disable-model-invocation: true\n", folder="a")
    (catalog,) = _catalogs(tmp_path, TARGETS["claude-code"])
    assert catalog.skills[0].hidden
    (catalog,) = _catalogs(tmp_path, _flipped("claude-code", hides_disabled_skills=False))
    assert not catalog.skills[0].hidden


def test_precedence_and_name_comparison_follow_the_profile(tmp_path):
    from skilllint.catalog.model import Catalog, CatalogSkill, apply_precedence

    package = _package(tmp_path, SKILL.format(n="a"), folder="a")

    def shadowed(target):
        skills = [CatalogSkill(package, "Deploy", "d", scope="repo"), CatalogSkill(package, "deploy", "d", scope="user")]
        apply_precedence(Catalog(target, tmp_path, "collection", skills))
        return [s.scope for s in skills if s.shadowed_by is not None]

    assert shadowed(TARGETS["claude-code"]) == ["repo"]  # Personal beats Project; case ignored
    assert shadowed(_flipped("claude-code", names_case_sensitive=True)) == []
    assert shadowed(_flipped("claude-code", scope_precedence=None)) == []
    assert shadowed(_flipped("claude-code", scope_precedence=("repo", "user"))) == ["user"]


def test_the_catalog_model_chooses_the_budget_rule(tmp_path, monkeypatch):
    """SL503 judges a Claude Code listing; another catalog model gives it nothing to judge."""
    import skilllint.catalog.render as render  # the rule imports it from there when it runs

    monkeypatch.setattr(render, "catalog_options", lambda ctx: {"budget-chars": 2000})  # small enough to overflow
    for n in range(40):
        _package(tmp_path / "skills", f"name: s{n}\ndescription: {'word ' * 300}\n", folder=f"s{n}")
    rule = _rule("SL503")

    def findings(target):
        (catalog,) = _catalogs(tmp_path, target)
        return list(rule.check_catalog(catalog, RuleContext((target,), {})))

    assert findings(TARGETS["claude-code"])
    assert not findings(_flipped("claude-code", catalog_model=None))
