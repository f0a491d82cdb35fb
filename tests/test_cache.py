"""The result cache: unchanged skills come back from .skilllint_cache, changed ones never do."""

import json
import os
import time

from skilllint.cache import decode, encode
from skilllint.diagnostics import Diagnostic, Edit, Fix, Related, Severity, Span

from conftest import run_cli, write_skill

BROKEN = "---\nname: Bad_Name\ndescription: Does things.\nversion: 1.0\n---\n# Body\n"


def age(folder, seconds: float = 60) -> None:
    """Backdate every file so the cache does not treat it as racily changed."""
    past = time.time() - seconds
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in dirnames + filenames:
            os.utime(os.path.join(dirpath, name), (past, past), follow_symlinks=False)
    os.utime(folder, (past, past))


def check(repo, *args):
    code, out, err = run_cli("check", "--output-format", "json", "--exit-zero", *args, ".", cwd=repo)
    assert code == 0, err
    return json.loads(out)["diagnostics"]


def entries(repo):
    """The result files (catalog-entries.json beside them keeps catalog entries and answers)."""
    folder = repo / ".skilllint_cache"
    return sorted(p for p in folder.rglob("*.json") if p.name != "catalog-entries.json") if folder.exists() else []


def make_repo(tmp_path):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    write_skill(repo / "skills", "bad-name", BROKEN)
    write_skill(repo / "skills", "good", "---\nname: good\ndescription: Does good things. Use when asked.\n---\n# Good\n")
    age(repo)
    return repo


def test_a_second_run_returns_the_same_findings_from_the_cache(tmp_path):
    repo = make_repo(tmp_path)
    first = check(repo)
    assert len(entries(repo)) == 2
    assert (repo / ".skilllint_cache" / ".gitignore").read_text().strip().endswith("*")
    stamp = {p: p.stat().st_mtime_ns for p in entries(repo)}
    assert check(repo) == first
    assert {p: p.stat().st_mtime_ns for p in entries(repo)} == stamp  # read, not rewritten


def test_a_changed_file_is_linted_again(tmp_path):
    repo = make_repo(tmp_path)
    before = check(repo)
    skill = repo / "skills" / "bad-name" / "SKILL.md"
    skill.write_text(BROKEN.replace("version: 1.0\n", ""))
    age(repo)
    after = check(repo)
    assert any(d["code"] == "SL122" for d in before) and not any(d["code"] == "SL122" for d in after)
    # a new file in the package changes the key too
    (repo / "skills" / "good" / "references").mkdir()
    (repo / "skills" / "good" / "references" / "orphan.md").write_text("# orphan\n")
    age(repo)
    assert any(d["code"] == "SL304" or d["path"].endswith("orphan.md") for d in check(repo, "--select", "ALL"))


def test_racily_fresh_files_are_not_cached(tmp_path):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    write_skill(repo / "skills", "fresh", BROKEN)  # written just now: same-size rewrites could share a timestamp
    check(repo)
    assert entries(repo) == []


def test_settings_are_part_of_the_key(tmp_path):
    repo = make_repo(tmp_path)
    check(repo)
    selected = check(repo, "--select", "SL106")
    assert {d["code"] for d in selected} == {"SL106"}
    assert len(entries(repo)) == 4


def test_a_corrupt_or_foreign_entry_is_a_miss(tmp_path):
    repo = make_repo(tmp_path)
    first = check(repo)
    for path in entries(repo):
        path.write_text("\x80 not json {")
    assert check(repo) == first
    for path in entries(repo):
        path.write_text(json.dumps({"diagnostics": [{"unexpected": True}]}))
    assert check(repo) == first


def test_no_cache_neither_reads_nor_writes(tmp_path):
    repo = make_repo(tmp_path)
    check(repo, "--no-cache")
    assert not (repo / ".skilllint_cache").exists()
    check(repo, "--cache-dir", str(tmp_path / "elsewhere"))
    assert not (repo / ".skilllint_cache").exists() and list((tmp_path / "elsewhere").rglob("*.json"))
    (repo / ".skilllint.toml").write_text("cache = false\n")
    age(repo)
    check(repo)
    assert not (repo / ".skilllint_cache").exists()


def test_a_plugin_manifest_above_the_skill_invalidates_it(tmp_path):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    plugin = repo / "plugins" / "p"
    (plugin / ".codex-plugin").mkdir(parents=True)
    (plugin / ".codex-plugin" / "plugin.json").write_text('{"name": "p"}')
    write_skill(plugin / "skills", "s" * 60, "---\nname: " + "s" * 60 + "\ndescription: Does s. Use when asked.\n---\n")
    age(repo)
    short = check(repo, "--target", "codex", "--select", "SL103")
    assert short == []  # "p:" + 60 characters fits in 64
    (plugin / ".codex-plugin" / "plugin.json").write_text('{"name": "a-longer-plugin"}')
    age(repo)
    assert [d["code"] for d in check(repo, "--target", "codex", "--select", "SL103")] == ["SL103"]


def test_the_json_form_round_trips_every_field():
    diagnostic = Diagnostic(
        code="SL121",
        name="version-top-level",
        severity=Severity.WARNING,
        targets=("agentskills", "codex"),
        message="a 'message' with \u2028 odd text",
        path=__import__("pathlib").Path("/x/SKILL.md"),
        span=Span(4, 1, 4, 8),
        fix=Fix("move it", "safe", (Edit(__import__("pathlib").Path("/x/SKILL.md"), Span(4, 1, 5, 1), "", 30, 43),)),
        related=(Related("also here", __import__("pathlib").Path("/y/SKILL.md"), Span(2, 7, 2, 12)),),
    )
    assert decode(json.loads(json.dumps(encode(diagnostic)))) == diagnostic


def test_outside_a_repository_nothing_is_written_unless_asked(tmp_path):
    write_skill(tmp_path / "skills", "bad-name", BROKEN)
    age(tmp_path)
    check(tmp_path)
    assert not (tmp_path / ".skilllint_cache").exists()
    (tmp_path / "skilllint.toml").write_text('cache-dir = "cache-here"\n')
    age(tmp_path)
    check(tmp_path)
    assert list((tmp_path / "cache-here").rglob("*.json"))
