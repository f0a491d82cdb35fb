"""The engine and registry: severity combination, target filtering, plugins, rule gating."""

import sys
import textwrap

from skilllint.config.settings import load_settings
from skilllint.diagnostics import Severity
from skilllint.lint.engine import lint_paths
from skilllint.registry import Registry, registry, severities

from conftest import lint_json, write_skill


def test_severity_table_parsing():
    table = severities("error: skills-ref copilot; warning: all")
    assert table["skills-ref"] == Severity.ERROR and table["codex"] == Severity.WARNING
    assert len(table) == 10


def test_finding_lists_its_targets_and_takes_the_highest_severity(tmp_path):
    write_skill(tmp_path, "folder", "---\nname: other\ndescription: D. Use when x.\n---\nbody\n")
    report = lint_json(str(tmp_path), "--target", "agentskills,skills-ref,codex", "--select", "SL106", cwd=tmp_path)
    severities_by_targets = {tuple(d["targets"]): d["severity"] for d in report["diagnostics"]}
    # Targets with the same verdict share one finding at their highest severity.
    assert severities_by_targets == {("agentskills", "skills-ref", "codex"): "error"}
    shared = next(d for d in report["diagnostics"] if "skills-ref" in d["targets"])
    assert shared["message"] == "`name` 'other' does not match the folder name 'folder'"
    alone = lint_json(str(tmp_path), "--target", "skills-ref", "--select", "SL106", cwd=tmp_path)["diagnostics"]
    assert [d["message"] for d in alone] == ["Directory name 'folder' must match skill name 'other'"]


def test_rule_that_applies_to_no_selected_target_is_silent(tmp_path):
    write_skill(tmp_path, "x", "---\nname: x\ndescription: D <b>. Use when x.\n---\nbody\n")
    assert not lint_json(str(tmp_path), "--select", "SL114", cwd=tmp_path)["diagnostics"]
    report = lint_json(str(tmp_path), "--select", "SL114", "--target", "claude-api", cwd=tmp_path)
    assert [d["code"] for d in report["diagnostics"]] == ["SL114"]


def test_secondary_targets_give_at_most_a_warning(tmp_path):
    write_skill(tmp_path, "x", "---\nname: x\n---\nbody\n")
    report = lint_json(str(tmp_path), "--select", "SL111", "--target", "gemini", cwd=tmp_path)
    assert [d["severity"] for d in report["diagnostics"]] == ["warning"]
    report = lint_json(str(tmp_path), "--select", "SL111", "--target", "codex", cwd=tmp_path)
    assert [d["severity"] for d in report["diagnostics"]] == ["error"]


def test_broken_file_gets_one_clear_finding_not_a_cascade(tmp_path):
    write_skill(tmp_path, "x", b"---\nname: x\xff\n---\n")
    codes = [d["code"] for d in lint_json(str(tmp_path), "--target", "all", cwd=tmp_path)["diagnostics"]]
    assert codes == ["SL009"]


def test_unclosed_frontmatter_does_not_report_missing_fields(tmp_path):
    write_skill(tmp_path, "x", "---\nname: x\ndescription: d\n")
    codes = {d["code"] for d in lint_json(str(tmp_path), cwd=tmp_path)["diagnostics"]}
    assert codes == {"SL004"}


def _install_plugin(tmp_path, monkeypatch, body: str, entry: str):
    dist = tmp_path / "plugin-site"
    (dist / "fakeplugin-0.1.dist-info").mkdir(parents=True)
    (dist / "fakeplugin-0.1.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: fakeplugin\nVersion: 0.1\n")
    (dist / "fakeplugin-0.1.dist-info" / "entry_points.txt").write_text(f"[skilllint.rules]\n{entry}\n")
    (dist / "fakeplugin_rules.py").write_text(textwrap.dedent(body))
    monkeypatch.syspath_prepend(str(dist))
    sys.modules.pop("fakeplugin_rules", None)


PLUGIN = """
from skilllint.diagnostics import Finding, Span
from skilllint.registry import Rule, severities

class NoTodo(Rule):
    code = "XT001"
    name = "no-todo"
    summary = "TODO left in the body"
    severity = severities("warning: all")

    def check(self, package, ctx):
        for number, line in enumerate(package.source.lines, start=1):
            if "TODO" in line:
                yield Finding("a TODO is left in SKILL.md", Span(number, 1, number, 5))

RULES = [NoTodo]
"""


def test_entry_point_plugin_is_loaded_and_runs(tmp_path, monkeypatch):
    _install_plugin(tmp_path, monkeypatch, PLUGIN, "XT = fakeplugin_rules:RULES")
    reg = Registry()
    for rule in registry().sorted():
        reg.add(rule)
    reg.load_plugins()
    assert not reg.plugin_errors and "XT001" in reg.rules
    write_skill(tmp_path, "todo", "---\nname: todo\ndescription: D. Use when x.\n---\nTODO: finish\n")
    settings = load_settings(reg, tmp_path)
    diagnostics = lint_paths([str(tmp_path / "todo")], settings, tmp_path).diagnostics
    assert [(d.code, d.span.line) for d in diagnostics] == [("XT001", 5)]


def test_broken_plugin_is_reported_and_skipped(tmp_path, monkeypatch):
    _install_plugin(tmp_path, monkeypatch, "raise ImportError('boom')\n", "XB = fakeplugin_rules:RULES")
    reg = Registry()
    reg.load_plugins()
    assert reg.rules == {} and "boom" in reg.plugin_errors[0]


def test_plugin_with_wrong_prefix_is_refused(tmp_path, monkeypatch):
    _install_plugin(tmp_path, monkeypatch, PLUGIN, "ZZ = fakeplugin_rules:RULES")
    reg = Registry()
    reg.load_plugins()
    assert "XT001" not in reg.rules and "prefix" in reg.plugin_errors[0]


def test_a_crashing_rule_is_an_internal_error_not_a_silent_pass(tmp_path, monkeypatch):
    from skilllint.rules.fields.sl10x_name import NameMissing

    def boom(self, package, ctx):
        raise RuntimeError("kaboom")
        yield  # pragma: no cover

    monkeypatch.setattr(NameMissing, "check", boom)
    write_skill(tmp_path, "x", "---\nname: x\ndescription: D. Use when x.\n---\nbody\n")
    from conftest import run_cli

    code, _, err = run_cli("check", str(tmp_path), cwd=tmp_path)
    assert code == 2 and "internal error in SL101" in err and "kaboom" in err


def test_the_plugin_precheck_says_no_only_when_no_distribution_declares_the_group(tmp_path, monkeypatch):
    from skilllint.registry import _may_have_plugins

    site = tmp_path / "site"
    (site / "other-1.0.dist-info").mkdir(parents=True)
    (site / "other-1.0.dist-info" / "entry_points.txt").write_text("[console_scripts]\nother = other:main\n")
    monkeypatch.setattr(sys, "path", [str(site), str(tmp_path / "absent")])
    assert _may_have_plugins() is False  # importlib.metadata is not even imported
    (site / "plug-1.0.dist-info").mkdir()
    (site / "plug-1.0.dist-info" / "entry_points.txt").write_text("[skilllint.rules]\nXP = plug:RULES\n")
    assert _may_have_plugins() is True
    archive = tmp_path / "eggs.zip"
    archive.write_bytes(b"PK\x05\x06" + b"\x00" * 18)
    monkeypatch.setattr(sys, "path", [str(archive)])
    assert _may_have_plugins() is True  # unsure: importlib.metadata decides


def test_rule_plans_are_kept_per_run_and_bounded(tmp_path):
    """package_lint._plan works out which rules apply once per (rules, targets); a long-lived Settings
    (the language server's) must not collect the rule instances of every run it served."""
    from skilllint.lint import package_lint
    from skilllint.targets import TARGETS

    settings = load_settings(registry(), tmp_path)
    targets = (TARGETS["agentskills"],)
    rules = [rule() for rule in settings.enabled_rules()]
    first = package_lint._plan(rules, settings, targets, targets)
    assert package_lint._plan(rules, settings, targets, targets) is first  # kept for the run
    assert first and all(applicable == targets for _, applicable, _, _ in first)
    for _ in range(100):  # a new run, new instances
        package_lint._plan([rule() for rule in settings.enabled_rules()], settings, targets, targets)
    assert len(settings._rule_plans) <= 64


def test_a_message_quoting_a_huge_path_is_clipped(tmp_path):
    from conftest import lint_json, write_skill

    name = "a" * 300_000
    write_skill(tmp_path, "s", f"---\nname: s\ndescription: A test. Use when testing.\n---\n# s\n\nRead [x](references/{name}.md) when stuck.\n")
    [finding] = [d for d in lint_json(str(tmp_path), "--select", "SL301", cwd=tmp_path)["diagnostics"]]
    assert len(finding["message"]) <= 2000 and "…" in finding["message"]
    assert finding["message"].endswith("does not exist in the skill package")


def test_the_package_linted_before_the_workers_fork_is_the_largest_left_to_lint(tmp_path):
    """It loads what long files need (the tokenizer) once, for every worker; a skill whose
    result came from the cache, or without SKILL.md, is never it."""
    from types import SimpleNamespace

    from skilllint.lint.engine import _largest_miss

    def package(name, size):
        folder = tmp_path / name
        folder.mkdir()
        if size is not None:
            (folder / "SKILL.md").write_text("x" * size)
        return SimpleNamespace(skill_md_path=folder / "SKILL.md")

    items = [
        (package("small", 10), None),
        (package("cached", 9_000), ("key", [])),  # from the cache: not linted at all
        (package("large", 5_000), ("key", None)),  # keyed, not found: linted afresh
        (package("none", None), None),
    ]
    assert _largest_miss(items) == 2
    assert _largest_miss(items[1:2]) is None
