"""The public rule API (skilllint.rule): what a rule class declares is checked when it is defined."""

from __future__ import annotations

import pytest

from skilllint import registry as registry_module
from skilllint.diagnostics import Finding, Span
from skilllint.registry import PluginError, Registry, registry
from skilllint.rule import CatalogRule, FieldRule, Option, Outcome, PackageRule, Rule, RuleContext, severities


def _define(base=Rule, **attrs):
    namespace = {"code": "XT001", "name": "x", "summary": "s", "severity": severities("warning: all"), "check": lambda self, p, c: iter(())}
    namespace.update(attrs)
    return type("BadRule", (base,), namespace)


@pytest.mark.parametrize(
    "attr, value",
    [
        ("needs_skill_md", "yes"),
        ("needs_skill_md", 1),
        ("cacheable", "no"),
        ("catalog_rule", 1),
        ("content_rule", None),
        ("reads_suppressions", "true"),
        ("fixable", "maybe"),
        ("opt_in", 0),
        ("severity", {"codex": "warning"}),
        ("code", 1),
        ("options", {"max": 3}),
        ("options_schema", ["max"]),
        ("settle", 3),
        ("context_finding", "text"),
        ("tree_links", "dangling"),
        ("tree_links", ("dangling", "nowhere")),
        ("read_cap_option", 3),
    ],
)
def test_a_rule_class_with_a_bad_attribute_fails_where_it_is_defined(attr, value):
    with pytest.raises(TypeError, match=rf"BadRule: {attr} = "):
        _define(**{attr: value})


def test_the_attributes_the_engine_reads_are_declared_with_their_defaults():
    class Plain(Rule):
        code, name, summary, severity = "XT002", "plain", "s", severities("info: all")

        def check(self, package, ctx):
            return iter(())

    assert (Plain.needs_skill_md, Plain.cacheable, Plain.catalog_rule, Plain.content_rule) == (True, True, False, False)
    assert (Plain.reads_suppressions, Plain.settle, Plain.context_finding, Plain.fixable, Plain.opt_in) == (False, None, None, None, False)
    assert Plain.options_schema == {} and Plain.defaults == {}
    assert (Plain.tree_links, Plain.read_cap_option) == ((), None)
    assert _define(needs_skill_md="raw").needs_skill_md == "raw"


def test_a_concrete_rule_says_what_it_judges():
    with pytest.raises(TypeError, match="NoCheck: a rule defines check"):

        class NoCheck(PackageRule):
            code, name, summary, severity = "XT003", "no-check", "s", severities("info: all")

    with pytest.raises(TypeError, match="NoJudge: a rule defines judge"):

        class NoJudge(FieldRule):
            code, name, summary, severity = "XT008", "no-judge", "s", severities("info: all")

    with pytest.raises(TypeError, match="NoCatalog: a catalog rule defines check_catalog"):

        class NoCatalog(CatalogRule):
            code, name, summary, severity = "XT004", "no-catalog", "s", severities("info: codex")


def test_options_are_declared_once_and_the_schema_and_defaults_follow():
    class Sized(Rule):
        code, name, summary, severity = "XT005", "sized", "s", severities("info: all")
        options = {
            "max-lines": Option(int, 500, "most lines", minimum=1, maximum=1_000),
            "ratio": Option(float, 0.5, "a share", exclusive_minimum=0, maximum=1),
            "encoding": Option(str, "o200k_base", "which", choices=("o200k_base", "cl100k_base")),
        }

        def check(self, package, ctx):
            return iter(())

    assert Sized.defaults == {"max-lines": 500, "ratio": 0.5, "encoding": "o200k_base"}
    assert Sized.options_schema == {
        "max-lines": {"type": "integer", "minimum": 1, "maximum": 1_000, "description": "most lines"},
        "ratio": {"type": "number", "exclusiveMinimum": 0, "maximum": 1, "description": "a share"},
        "encoding": {"enum": ["o200k_base", "cl100k_base"], "description": "which"},
    }


@pytest.mark.parametrize(
    "make",
    [
        lambda: Option(int, 0, "d", minimum=1),
        lambda: Option(int, "5", "d"),
        lambda: Option(int, True, "d"),
        lambda: Option(int, 0.5, "d"),
        lambda: Option(str, "x", "d", choices=("a", "b")),
        lambda: Option(float, 0, "d", exclusive_minimum=0),
        lambda: Option(list, [], "d"),
    ],
)
def test_an_option_whose_default_breaks_its_own_bounds_fails_where_it_is_defined(make):
    with pytest.raises(TypeError):
        make()


def test_options_and_a_hand_written_schema_are_not_both_declared():
    with pytest.raises(TypeError, match="not both"):
        _define(options={"n": Option(int, 1, "d")}, defaults={"n": 1})


def test_every_builtin_option_is_declared_with_option():
    for rule in registry(load_plugins=False).sorted():
        assert set(rule.options) == set(rule.options_schema) == set(rule.defaults), rule.code
        for key, option in rule.options.items():
            assert option.problem(rule.defaults[key]) is None


def test_the_old_import_path_still_names_the_same_api():
    assert registry_module.Rule is Rule and registry_module.RuleContext is RuleContext
    assert registry_module.severities is severities


def test_the_registry_refuses_what_is_not_a_rule_class():
    class Lookalike:
        code, name, summary, severity = "XT006", "lookalike", "s", severities("info: all")

    with pytest.raises(PluginError, match="not a rule class"):
        Registry().add(Lookalike)  # type: ignore[arg-type]


def test_a_field_rule_judges_each_target_once_and_shares_findings():
    from skilllint.targets import TARGETS

    class Judged(FieldRule):
        code, name, summary, severity = "XT007", "judged", "s", severities("info: all")
        seen: list = []
        prepared: list = []

        def prepare(self, package, ctx):
            self.prepared.append(package)
            return ("shared fix",)

        def judge(self, target, view, mapping, package, ctx, fix):
            self.seen.append(target.id)
            return Outcome(f"name is {mapping.get('name')}", Span(2, 1, 2, 5), fix=fix)

    class FakeView:
        mapping = {"name": "demo"}

    class FakePackage:
        def view(self, target):
            return FakeView()

    targets = (TARGETS["codex"], TARGETS["claude-code"])
    findings = list(Judged().check(FakePackage(), RuleContext(targets=targets, options={})))
    assert Judged.seen == ["codex", "claude-code"] and len(Judged.prepared) == 1  # prepared once per package
    assert findings == [Finding("name is demo", Span(2, 1, 2, 5), targets=("codex", "claude-code"), fix="shared fix")]


def test_a_rule_that_reports_tree_links_or_caps_reading_says_how():
    with pytest.raises(TypeError, match="BadRule: a rule with tree_links defines check_tree_link"):
        _define(tree_links=("dangling",))
    with pytest.raises(TypeError, match="BadRule: read_cap_option 'max' names no integer option"):
        _define(read_cap_option="max", options={"max": Option(str, "a", "d")})


class _ToyLinks(Rule):
    """Another code, declaring the links SL403 reports: the engine hands them to it."""

    code, name, summary, severity = "XT020", "toy-links", "s", severities("error: all")
    needs_skill_md = False
    tree_links = ("dangling",)

    def check(self, package, ctx):
        return iter(())

    def check_tree_link(self, link):
        return Finding(f"toy: {link.kind} {link.text}", Span(1, 1, 1, 1), path=link.path)


class _ToyCap(Rule):
    code, name, summary, severity = "XT021", "toy-cap", "s", severities("info: all")
    options = {"limit": Option(int, 4096, "bytes read of a file", minimum=1024)}
    read_cap_option = "limit"

    def check(self, package, ctx):
        return iter(())


def test_the_engine_finds_the_rule_for_a_tree_link_by_what_it_declares(tmp_path):
    import os

    from skilllint.config.settings import load_settings
    from skilllint.lint.engine import lint_paths

    (tmp_path / ".git").mkdir()
    (tmp_path / "skills").mkdir()
    os.symlink("../gone", tmp_path / "skills" / "release")
    toy = Registry()
    toy.add(_ToyLinks)
    diagnostics = lint_paths([str(tmp_path)], load_settings(toy, tmp_path), tmp_path).diagnostics
    assert [(d.code, d.message) for d in diagnostics] == [("XT020", "toy: dangling ../gone")]


def test_the_read_cap_is_the_option_a_rule_declares_as_the_cap(tmp_path):
    from skilllint.config.settings import load_settings
    from skilllint.fsafe import DEFAULT_MAX_BYTES

    toy = Registry()
    assert load_settings(toy, tmp_path).read_cap() == DEFAULT_MAX_BYTES  # no rule caps reading
    toy.add(_ToyCap)
    assert load_settings(toy, tmp_path).read_cap() == 4096
    (tmp_path / "skilllint.toml").write_text("[rules.XT021]\nlimit = 2048\n")
    assert load_settings(toy, tmp_path).read_cap() == 2048
    assert registry(load_plugins=False).read_cap_rule.code == "SL011"


def test_the_registry_takes_one_rule_that_caps_reading():
    toy = Registry()
    toy.add(_ToyCap)
    second = type("SecondCap", (_ToyCap,), {"code": "XT022", "name": "second-cap"})
    with pytest.raises(PluginError, match="XT022 declares a read cap; XT021 already does"):
        toy.add(second)


def test_the_guides_name_one_way_to_report():
    """rule.py and CONTRIBUTING.md "Adding a rule" say the same: ``check`` yields Findings, and
    ``Outcome`` + ``emit`` is how a rule whose verdict differs per target builds them."""
    from pathlib import Path

    import skilllint.rule as rule_module

    contributing = (Path(__file__).resolve().parent.parent / "CONTRIBUTING.md").read_text(encoding="utf-8")
    adding = contributing.split("## Adding a rule", 1)[1].split("\n## ", 1)[0]
    for text in (rule_module.__doc__, adding):
        flat = " ".join(text.split())
        assert "one way to report" in flat and "Outcome" in flat and "emit" in flat and "not a second way to report" in flat
