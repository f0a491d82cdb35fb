"""Amplification from tiny or moderate inputs: work and output bounded by the rules and
files, not by how many problems one file can hold.

* The cap per rule and file (skilllint/findingcap.py): at most
  ``max-findings-per-rule-per-file`` findings of one rule in one file (default 50),
  the highest severities first; the last one kept and the run's summary say how many
  were left out, in every format; suppressed findings neither count nor are left out;
  rules that can yield many findings stop building them once none would be kept.
* The reference rules (SL306, SL307, SL311) judge each mention in time independent of
  the size of its file; the reference graph keeps at most MAX_REFERENCES references.
* YAML: a frontmatter (or agents/openai.yaml) written with many nodes is not an alias
  bomb. Past the node cap it is too large to check (SL011; SL601 for openai.yaml);
  SL005 speaks of aliases only when aliases expand past their budget.

The end-to-end cases run skilllint in its own process through tests/test_hostile.py's
harness (time, peak RSS, file-access audit); the rest run in process.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest
from conftest import ROOT, run_cli, write_skill
from test_hostile import MiB, check_json, run, skill, tree  # noqa: F401  (tree: a fixture)

OUTPUT_SCHEMA = json.loads((ROOT / "skilllint" / "schemas" / "output.schema.json").read_text(encoding="utf-8"))
HEAD = "---\nname: {name}\ndescription: Cap test skill. Use when testing skilllint.\n---\n# {name}\n\n"
LEFT_OUT = re.compile(r"\[([\d,]+) more (SL\d+) findings? in this file left out: at most (\d+) per rule and file are reported\]")


def _skill_md(root: Path, name: str, body: str) -> Path:
    return write_skill(root, name, HEAD.format(name=name) + body)


def _isolated(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir(exist_ok=True)
    return tmp_path


def _json(tmp_path: Path, *args: str) -> dict:
    code, out, err = run_cli("check", "--no-cache", "--output-format", "json", "--exit-zero", *args, cwd=tmp_path)
    assert code == 0, err
    document = json.loads(out)
    jsonschema.validate(document, OUTPUT_SCHEMA)
    return document


def _missing_links(count: int, start: int = 0) -> str:
    return "".join(f"- Read [part {i}](references/gone-{i}.md) when needed.\n" for i in range(start, start + count))


# -- the cap per rule and file ------------------------------------------------------


def test_findings_past_the_cap_are_counted_on_the_last_kept_one_and_in_the_summary(tmp_path):
    _skill_md(_isolated(tmp_path), "links", _missing_links(120))
    doc = _json(tmp_path, "links")
    found = [d for d in doc["diagnostics"] if d["code"] == "SL301"]
    assert len(found) == 50
    marked = [d for d in found if "left_out" in d]
    assert marked == [found[-1]] and marked[0]["left_out"] == 70  # the last in report order
    assert LEFT_OUT.search(marked[0]["message"]).groups() == ("70", "SL301", "50")
    assert doc["summary"]["total"] == len(doc["diagnostics"]) and doc["summary"]["by_code"]["SL301"] == 50
    assert doc["summary"]["left_out"] == 70 and doc["summary"]["left_out_by_code"] == {"SL301": 70}


def test_the_run_result_carries_the_left_out_counts(tmp_path):
    """Formats that cut further (SARIF's 25,000 results) start from LintResult.left_out."""
    from skilllint.config.settings import load_settings
    from skilllint.lint.engine import lint_paths
    from skilllint.registry import registry

    _skill_md(_isolated(tmp_path), "links", _missing_links(75))
    result = lint_paths(["links"], load_settings(registry(), tmp_path), tmp_path)
    assert result.left_out == {"SL301": 25}
    assert sum(d.left_out for d in result.diagnostics) == 25
    assert any("25 more findings left out" in warning for warning in result.warnings)


def test_the_highest_severities_are_kept_first(tmp_path):
    # SL301 is a warning for a path in backticks and an error for a link: 60 warnings come
    # first in the file, then 5 errors; the errors are kept, and the exit code sees them.
    root = _isolated(tmp_path)
    (root / "mixed" / "references").mkdir(parents=True)
    (root / "mixed" / "references" / "here.md").write_text("# here\n")
    paths = "".join(f"- Open `references/absent-{i}.md` when asked.\n" for i in range(60))
    _skill_md(root, "mixed", "Read [here](references/here.md) first.\n" + paths + _missing_links(5))
    code, out, err = run_cli("check", "--no-cache", "--output-format", "json", "mixed", cwd=root)
    assert code == 1, err
    found = [d for d in json.loads(out)["diagnostics"] if d["code"] == "SL301"]
    assert len(found) == 50
    assert sum(d["severity"] == "error" for d in found) == 5
    assert sum(d.get("left_out", 0) for d in found) == 15


def test_suppressed_findings_are_neither_kept_nor_left_out(tmp_path):
    root = _isolated(tmp_path)
    suppressed = "".join(
        f"<!-- skilllint-disable-next-line SL301 -->\n- Read [hidden {i}](references/hidden-{i}.md) when needed.\n" for i in range(30)
    )
    _skill_md(root, "quiet", _missing_links(60) + suppressed)
    doc = _json(root, "quiet")
    assert doc["summary"]["by_code"]["SL301"] == 50
    assert doc["summary"]["left_out_by_code"] == {"SL301": 10}  # not 40: the suppressed 30 are not findings


def test_per_file_ignores_are_not_left_out(tmp_path):
    root = _isolated(tmp_path)
    _skill_md(root, "ignored", _missing_links(80))
    (root / "skilllint.toml").write_text('[per-file-ignores]\n"ignored/SKILL.md" = ["SL301"]\n')
    doc = _json(root, "ignored")
    assert doc["summary"].get("by_code", {}).get("SL301") is None
    assert doc["summary"]["left_out"] == 0


def test_the_cap_is_a_setting_with_a_hard_ceiling(tmp_path):
    root = _isolated(tmp_path)
    _skill_md(root, "links", _missing_links(12))
    config = root / "skilllint.toml"
    config.write_text("max-findings-per-rule-per-file = 5\n")
    doc = _json(root, "links")
    assert doc["summary"]["by_code"]["SL301"] == 5 and doc["summary"]["left_out"] == 7
    for value in (0, 1001, "true"):
        config.write_text(f"max-findings-per-rule-per-file = {value}\n")
        code, _, err = run_cli("check", "--no-cache", "links", cwd=root)
        assert code == 2 and "max-findings-per-rule-per-file" in err, err


def test_left_out_counts_survive_the_cache(tmp_path):
    root = _isolated(tmp_path)
    _skill_md(root, "links", _missing_links(70))
    import os
    import time

    old = time.time() - 3600  # older than the cache's racy window: the skill is cached
    for path in (root / "links", root / "links" / "SKILL.md"):
        os.utime(path, (old, old))
    runs = []
    for _ in range(2):
        code, out, err = run_cli("check", "--output-format", "json", "links", cwd=root)
        runs.append(json.loads(out))
    assert (root / ".skilllint_cache").is_dir()
    assert runs[0]["diagnostics"] == runs[1]["diagnostics"]
    assert runs[1]["summary"]["left_out"] == 20


def test_every_format_says_how_many_were_left_out(tmp_path):
    root = _isolated(tmp_path)
    _skill_md(root, "links", _missing_links(53))
    reports = {fmt: tmp_path.parent / f"{tmp_path.name}-report.{fmt}" for fmt in ("concise", "json", "sarif", "github")}
    args = [arg for fmt, path in reports.items() for arg in ("--report", f"{fmt}={path}")]
    code, full, err = run_cli("check", "--no-cache", "--output-format", "full", *args, "links", cwd=root)
    assert code == 1
    assert "skilllint: warning: 3 more findings left out (SL301 3)" in err  # the run's note on stderr (concise has no summary)
    assert LEFT_OUT.search(full) and "3 more findings left out" in full.splitlines()[-1]
    concise = reports["concise"].read_text().splitlines()
    assert sum(bool(LEFT_OUT.search(line)) for line in concise) == 1
    document = json.loads(reports["json"].read_text())
    assert document["summary"]["left_out"] == 3
    github = reports["github"].read_text().splitlines()
    assert any(line.startswith("::error ") and "3 more SL301 findings in this file left out" in line for line in github)
    assert "3 more findings left out" in github[-1]
    log = json.loads(reports["sarif"].read_text())
    results = log["runs"][0]["results"]
    assert len(results) == 50 and sum("3 more SL301 findings" in r["message"]["text"] for r in results) == 1
    notes = log["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert any("3 more findings left out" in note["message"]["text"] for note in notes)


def test_statistics_say_how_many_were_left_out(tmp_path):
    _skill_md(_isolated(tmp_path), "links", _missing_links(51))
    code, out, _ = run_cli("check", "--no-cache", "--statistics", "links", cwd=tmp_path)
    assert code == 1 and "1 more finding left out" in out


def test_catalog_findings_are_capped_too():
    from skilllint.diagnostics import Diagnostic, Severity, Span
    from skilllint.findingcap import cap

    path = Path("/x/SKILL.md")

    def diagnostic(line: int, severity: Severity) -> Diagnostic:
        return Diagnostic("SL510", "description-overlap", severity, ("codex",), f"finding {line}", path, Span.point(line))

    findings = [diagnostic(n, Severity.INFO) for n in range(1, 9)] + [diagnostic(20, Severity.WARNING)]
    kept = cap(findings, 4)
    assert [d.span.line for d in kept] == [1, 2, 3, 20]
    assert [d.left_out for d in kept] == [0, 0, 0, 5] and "[5 more SL510 findings" in kept[-1].message
    assert cap(findings[:3], 4) == findings[:3]


def test_rules_stop_building_findings_they_cannot_report(tmp_path, monkeypatch):
    """Past the cap SL301 neither looks for a suggestion nor builds a message: counting
    difflib's searches shows it (one per finding built)."""
    import difflib

    calls = []
    real = difflib.get_close_matches

    def counting(*args, **kwargs):
        calls.append(args[0] if args else kwargs.get("word"))
        return real(*args, **kwargs)

    monkeypatch.setattr(difflib, "get_close_matches", counting)
    _skill_md(_isolated(tmp_path), "links", _missing_links(1000))
    doc = _json(tmp_path, "links")
    assert doc["summary"]["left_out_by_code"] == {"SL301": 950}
    assert len(calls) <= 50, f"{len(calls)} suggestions searched for 50 findings reported"


# -- end to end: files full of links ------------------------------------------------


def _links_to_missing_files(root: Path, files: int) -> Path:
    """SKILL.md linking to references/r1.md … rN.md, each 1 MiB of `[x](missing-k.md)` lines."""
    links = "".join(f"- Read [r{i}](references/r{i}.md) when the task needs part {i}.\n" for i in range(1, files + 1))
    folder = skill(root, "amp", links)
    (folder / "references").mkdir()
    lines, size, k = [], 0, 0
    while size < MiB - 40:
        line = f"[x](missing-{k}.md)\n"
        lines.append(line)
        size += len(line)
        k += 1
    text = "".join(lines)
    for i in range(1, files + 1):
        (folder / "references" / f"r{i}.md").write_text(text)
    return folder


@pytest.mark.e2e
def test_twenty_megabytes_of_links_to_missing_files(tree):
    # Before: 180-270 s, 2.5-2.9 GB and 380 MB of output; now bounded by the cap and the reference budget.
    _links_to_missing_files(tree.root, 20)
    # Written inside the tree (the audit allows no open outside it), after it is linted.
    reports = {fmt: tree.root / f"report.{fmt}" for fmt in ("concise", "json", "sarif", "github")}
    args = [arg for fmt, path in reports.items() for arg in ("--report", f"{fmt}={path}")]
    result = run(tree, "check", "--no-cache", *args, ".", label="20 x 1 MiB of links to missing files")
    assert result.code == 1
    assert len(result.out) < 200_000, f"{len(result.out):,} bytes of full output"
    for fmt, path in reports.items():
        assert path.stat().st_size < (2_000_000 if fmt == "sarif" else 200_000), (fmt, path.stat().st_size)
    document = json.loads(reports["json"].read_text())
    assert document["summary"]["by_code"]["SL301"] <= 50 * 21
    assert document["summary"]["left_out"] > 90_000
    assert "more than 100,000 references" in result.err and "were not checked" in result.err
    assert "SL304" not in document["summary"]["by_code"]  # skipped: the scan is partial


@pytest.mark.e2e
def test_folder_mentions_pointers_and_anchors_in_large_files(tree):
    """SL306, SL311 and SL307 judged each mention against its whole paragraph, section or
    document (before: 363 s for 256 KiB of folder links); now in time proportional to the file."""
    shapes = {
        "folder": "Read [the docs](../references/) when needed {k}.",
        "pointer": "See references/ for details {k}.",
        "anchor": "## Heading {k}\n[x](#nope-{k})",
    }
    for name, pattern in shapes.items():
        folder = skill(tree.root, name, "Read [the notes](references/notes.md) when you need the details.")
        (folder / "references").mkdir()
        lines, size, k = [], 0, 0
        while size < 256 * 1024:
            line = pattern.format(k=k) + "\n"
            lines.append(line)
            size += len(line)
            k += 1
        (folder / "references" / "notes.md").write_text("".join(lines))
    result = check_json(tree, "--no-cache", "--extend-select", "SL306", ".", label="256 KiB of folder links, pointers and anchors")
    found = {code: len(result.found(code)) for code in ("SL306", "SL307", "SL311")}
    assert found == {"SL306": 50, "SL307": 50, "SL311": 50}, found
    assert result.doc()["summary"]["left_out"] > 10_000


# -- YAML: many nodes are not an alias bomb ---------------------------------------------


def _listed(items: int) -> str:
    return "metadata:\n  tags:\n" + "".join(f"    - tag{i}\n" for i in range(items))


def test_ten_thousand_nodes_without_aliases_are_not_an_alias_bomb(tmp_path):
    root = _isolated(tmp_path)
    write_skill(root, "many", "---\nname: many\ndescription: Many tags. Use when testing.\n" + _listed(10_001) + "---\nbody\n")
    doc = _json(root, "--target", "all", "many")
    assert not [d for d in doc["diagnostics"] if "alias" in d["message"]]
    assert "SL005" not in doc["summary"]["by_code"] and "SL011" not in doc["summary"]["by_code"]


def test_a_frontmatter_past_the_node_cap_is_too_large_not_invalid(tmp_path):
    root = _isolated(tmp_path)
    write_skill(root, "huge", "---\nname: huge\ndescription: Huge tags. Use when testing.\n" + _listed(25_000) + "---\nbody\n")
    doc = _json(root, "--target", "all", "huge")
    assert "SL005" not in doc["summary"]["by_code"]
    (finding,) = [d for d in doc["diagnostics"] if d["code"] == "SL011"]
    assert "more than 20,000 YAML nodes" in finding["message"] and "alias" not in finding["message"]
    assert finding["line"] > 19_000 and "skills-ref" in finding["targets"]  # at the node past the cap


def test_an_alias_bomb_among_many_written_nodes_is_still_sl005(tmp_path):
    root = _isolated(tmp_path)
    small = "anchors:\n  base: &base {k: v}\n  copy: *base\n"
    write_skill(root, "mixed", "---\nname: mixed\ndescription: Mixed. Use when testing.\n" + small + _listed(15_000) + "---\nbody\n")
    bomb = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    bomb += [f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 9)}]" for n in range(1, 10)]
    write_skill(root, "bomb", "---\nname: bomb\ndescription: Bomb. Use when testing.\n" + "\n".join(bomb) + "\n---\nbody\n")
    doc = _json(root, "--target", "all", "mixed", "bomb")
    by_skill: dict[str, list[str]] = {}
    for d in doc["diagnostics"]:
        if d["code"] == "SL005":
            by_skill.setdefault(d["path"].split("/")[0], []).append(d["message"])
    assert "mixed" not in by_skill
    assert by_skill["bomb"] and all("aliases expand" in message for message in by_skill["bomb"])


def test_openai_yaml_with_many_nodes_is_not_an_alias_bomb(tmp_path):
    root = _isolated(tmp_path)
    for name, items in (("some", 10_001), ("lots", 25_000)):
        folder = write_skill(root, name, HEAD.format(name=name) + "Nothing here.\n")
        (folder / "agents").mkdir()
        products = "".join(f"    - product{i}\n" for i in range(items))
        (folder / "agents" / "openai.yaml").write_text(f"interface:\n  display_name: X\npolicy:\n  products:\n{products}")
    doc = _json(root, "--target", "codex", "some", "lots")
    messages = {d["path"].split("/")[0]: d["message"] for d in doc["diagnostics"] if d["code"] == "SL601"}
    assert "some" not in messages
    assert "more than 20,000 YAML nodes" in messages["lots"] and "alias" not in messages["lots"]


@pytest.mark.e2e
def test_a_megabyte_flow_frontmatter_is_bounded(tree):
    # Before: 9 s and 280 MB (24.8 s and 605 MB with --target all) for ~520,000 nodes.
    folder = tree.root / "flow"
    folder.mkdir()
    flow = ",".join(["a"] * ((MiB - 200) // 2))
    (folder / "SKILL.md").write_text(f"---\nname: flow\ndescription: Flow. Use when testing.\nmetadata:\n  k: [{flow}]\n---\n# flow\n")
    result = check_json(tree, "--no-cache", "--target", "all", "flow", label="1 MiB flow-sequence frontmatter")
    assert result.rss_mb < 120, f"{result.rss_mb:.0f} MB"
    assert result.found("SL011") and not result.found("SL005")
