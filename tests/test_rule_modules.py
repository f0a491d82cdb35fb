"""Where the built-in rules live: one module per code decade, in a folder per family named as the
folder of its analysis is, holding rule classes only."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

from skilllint import rules as rules_package
from skilllint.registry import registry
from skilllint.rule import Rule

from conftest import run_cli

RULES_DIR = Path(rules_package.__file__).parent
DECADE_MODULE = re.compile(r"^sl(\d)(\d)x_[a-z0-9_]+$")


def test_each_code_lives_in_the_module_of_its_decade():
    """``SLabx`` is written in ``rules/<family>/sl{a}{b}x_*.py``, and listed in that module's RULES."""
    for rule in registry(load_plugins=False).sorted():
        module = rule.__module__.rsplit(".", 1)[-1]
        decade = DECADE_MODULE.match(module)
        assert rule.__module__.startswith("skilllint.rules.") and decade, (rule.code, rule.__module__)
        assert rule.code[2:4] == decade.group(1) + decade.group(2), (rule.code, module)
        assert rule in getattr(rules_package, module).RULES


def test_each_decade_has_one_module_and_every_module_is_registered():
    paths = sorted(p for p in RULES_DIR.rglob("*.py") if p.stem != "__init__")
    assert all(p.parent.parent == RULES_DIR for p in paths), paths  # rules/<family>/<module>.py
    modules = sorted(p.stem for p in paths)
    assert all(DECADE_MODULE.match(m) for m in modules), modules
    decades = [m[:4] for m in modules]
    assert len(decades) == len(set(decades))
    assert [m.__name__.rsplit(".", 1)[-1] for m in rules_package.RULE_MODULES] == modules


def test_the_rule_modules_are_named_once():
    """``rules/__init__.py`` names each rule module in its import alone; RULE_MODULES follows from it."""
    tree = ast.parse((RULES_DIR / "__init__.py").read_text(encoding="utf-8"))
    assert [node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and DECADE_MODULE.match(node.id)] == []


def test_rule_modules_hold_rule_classes_only():
    """Analysis (lexers, graph walks, prose heuristics) lives outside rules/: a rule module
    defines rule classes, the constants they declare with, and its RULES list."""
    for path in sorted(RULES_DIR.rglob("sl*.py")):
        module = getattr(rules_package, path.stem)
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                raise AssertionError(f"{path.name}: function {node.name} belongs in an analysis module")
            if isinstance(node, ast.ClassDef):
                assert issubclass(getattr(module, node.name), Rule), f"{path.name}: class {node.name} is not a rule"


def test_each_family_of_rules_has_an_analysis_folder_of_its_name():
    """rules/references/ beside skill/references/; rules/catalog/ beside catalog/."""
    package = RULES_DIR.parent
    families = sorted(p.name for p in RULES_DIR.iterdir() if (p / "__init__.py").is_file())
    assert families
    for family in families:
        assert (package / "skill" / family).is_dir() or (package / family).is_dir(), family


def test_every_rule_with_an_analysis_finds_it_in_a_folder_named_after_its_family():
    """A stranger finds a rule's code in its decade's module and its analysis in the folders the rule
    command names; every analysis module it names exists."""
    from skilllint.registry import registry

    package = Path(rules_package.__file__).parent.parent
    for rule in registry().sorted():
        for path in rule.analysis():
            assert (package / path).is_file(), (rule.code, path)


def test_the_rule_command_says_where_the_source_is():
    code, out, _ = run_cli("rule", "SL106")
    assert code == 0 and out.rstrip().endswith(
        "Source: rules/fields/sl10x_name.py, class NameFolderMismatch\nAnalysis: skill/fields/ (skill/fields/field_checks.py)"
    )
    code, out, _ = run_cli("rule", "SL701", "--output-format", "json")
    shown = json.loads(out)
    assert shown["source"] == {"module": "rules/scripts/sl70x_scripts.py", "class": "ScriptInteractive"}
    # the modules its methods import, a package's modules named one by one
    assert "skill/scripts/python/prompt_reach.py" in shown["analysis"] and "skill/scripts/lexers.py" in shown["analysis"]
    source = Path(rules_package.__file__).parent / "scripts" / "sl70x_scripts.py"
    assert "class ScriptInteractive(" in source.read_text(encoding="utf-8")
