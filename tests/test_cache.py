"""The result cache: unchanged skills come back from .skilllint_cache, changed ones never do."""

import json
import os
import time

from skilllint.skill.size import tokens
from skilllint.lint.cache.entries import decode, encode
from skilllint.lint.cache.memo import MAX_TOKEN_COUNTS, STAMP_KEYS_FILE, TOKEN_COUNTS_FILE, TokenCounts
from skilllint.diagnostics import Diagnostic, Edit, Fix, Related, Severity, Span

from skilllint.lint.cache.folder import FORMAT
from skilllint.lint.cache.result_pack import FILENAME as PACK

from conftest import cache_pack, rewrite_cache_pack, run_cli, write_skill

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
    """The results kept (catalog-entries.json beside them keeps catalog entries and answers,
    token-counts.json the token counts of long texts' parts, stamp-keys.json the stat memo)."""
    return cache_pack(repo)


def pack_stamp(repo):
    return (repo / ".skilllint_cache" / f"v{FORMAT}" / PACK).stat().st_mtime_ns


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
    stamp = pack_stamp(repo)
    assert check(repo) == first
    assert pack_stamp(repo) == stamp  # read, not rewritten


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
    assert entries(repo) == {}


def test_settings_are_part_of_the_key(tmp_path):
    repo = make_repo(tmp_path)
    check(repo)
    selected = check(repo, "--select", "SL106")
    assert {d["code"] for d in selected} == {"SL106"}
    assert len(entries(repo)) == 4


def test_a_corrupt_or_foreign_entry_is_a_miss(tmp_path):
    repo = make_repo(tmp_path)
    first = check(repo)
    rewrite_cache_pack(repo, lambda entry: b"\x80 not json {")
    assert check(repo) == first
    rewrite_cache_pack(repo, lambda entry: json.dumps({"diagnostics": [{"unexpected": True}]}).encode())
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


# -- token counts of text parts -------------------------------------------------------------


def test_token_counts_are_kept_between_runs(tmp_path):
    store = TokenCounts(tmp_path)
    assert store.get("o200k_base:aa") is None
    store.put("o200k_base:aa", 7)
    store.save()
    again = TokenCounts(tmp_path)
    assert again.get("o200k_base:aa") == 7 and again.get("o200k_base:bb") is None
    again.save()  # nothing new: not rewritten
    assert json.loads((tmp_path / TOKEN_COUNTS_FILE).read_text()) == {"format": 1, "counts": {"o200k_base:aa": 7}}


def test_a_worker_hands_its_new_counts_to_the_main_process(tmp_path):
    worker, main = TokenCounts(tmp_path), TokenCounts(tmp_path)
    worker.put("k1", 3)
    worker.put("k2", 4)
    assert worker.take_new() == {"k1": 3, "k2": 4} and worker.take_new() == {}
    main.add({"k1": 3, "k2": 4})
    main.save()
    assert TokenCounts(tmp_path).load() == {"k1": 3, "k2": 4}


def test_a_torn_or_foreign_count_file_is_ignored(tmp_path):
    path = tmp_path / TOKEN_COUNTS_FILE
    for text in ["{", "[]", '{"format": 2, "counts": {"k": 1}}', '{"format": 1, "counts": []}']:
        path.write_text(text)
        assert TokenCounts(tmp_path).load() == {}
    path.write_text(json.dumps({"format": 1, "counts": {"ok": 2, "neg": -1, "bool": True, "text": "3", "float": 1.5}}))
    counts = TokenCounts(tmp_path)
    assert [counts.get(key) for key in ("ok", "neg", "bool", "text", "float")] == [2, None, None, None, None]
    counts.put("new", 5)
    counts.save()  # keeps the well-formed earlier entries only
    assert json.loads(path.read_text())["counts"] == {"new": 5, "ok": 2}


def test_the_count_file_is_bounded_and_keeps_this_runs_counts_first(tmp_path, monkeypatch):
    import skilllint.lint.cache.memo as cache_module

    monkeypatch.setattr(cache_module, "MAX_TOKEN_COUNTS", 3)
    (tmp_path / TOKEN_COUNTS_FILE).write_text(json.dumps({"format": 1, "counts": {f"old{i}": i for i in range(5)}}))
    store = TokenCounts(tmp_path)
    assert store.get("old4") == 4
    store.put("new", 9)
    store.save()
    kept = TokenCounts(tmp_path).load()
    assert len(kept) == 3 and kept["old4"] == 4 and kept["new"] == 9
    assert MAX_TOKEN_COUNTS >= 10_000


def long_body(seed: str, lines: int = 150) -> str:
    """Over 5,000 bytes (SL202 cannot decide by bytes) and well under 5,000 tokens."""
    return "".join(f"Step {i} of {seed}: run the check and read the report it prints.\n" for i in range(lines))


def test_an_edited_long_skill_is_judged_from_kept_counts_without_the_tokenizer(tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    for name in ("alpha", "beta"):
        write_skill(repo / "skills", name, f"---\nname: {name}\ndescription: Does {name}. Use when asked.\n---\n{long_body(name)}")
    age(repo)
    first = check(repo)
    assert TokenCounts(repo / ".skilllint_cache" / f"v{FORMAT}").load()  # the parts' counts were kept
    skill = repo / "skills" / "alpha" / "SKILL.md"
    skill.write_text(skill.read_text().replace("Step 75 of alpha", "Step seventy-five of alpha"))
    age(repo)
    monkeypatch.setattr(tokens, "_ENCODINGS", {})  # as in a new process: nothing built,
    monkeypatch.setattr(tokens, "_COUNT_CACHE", type(tokens._COUNT_CACHE)())  # nothing memoised
    assert check(repo) == first  # still under the limit: no finding either way
    assert not tokens.encoding_loaded("o200k_base")  # the edited part's bytes sufficed
    # over a (configured) limit, the exact count: the kept parts' counts plus the edited part's
    (repo / "skilllint.toml").write_text("[rules.SL202]\nmax-tokens = 200\n")
    over = {d["path"]: d["message"] for d in check(repo) if d["code"] == "SL202"}
    expected = tokens.count_tokens(skill.read_text().split("---\n", 2)[2])
    assert over["skills/alpha/SKILL.md"].startswith(f"the body is {expected:,} tokens")


def test_a_finding_about_a_file_beyond_the_skill_is_not_kept_once_that_file_appears(tmp_path):
    """SL302 says a sibling skill's file a link climbs to does not exist; the key covers only the
    package's own files, so the entry keeps what was looked up beyond it, and a hit must find the
    same again: creating the sibling makes the cached message stale."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    write_skill(repo / "skills", "a", "---\nname: a\ndescription: Does a. Use when asked.\n---\nSee [b](../b/SKILL.md).\n")
    age(repo)
    missing = [d["message"] for d in check(repo, "--select", "SL302")]
    assert len(missing) == 1 and "no such file exists" in missing[0]
    assert check(repo, "--select", "SL302") == check(repo, "--select", "SL302", "--no-cache")
    before = len(entries(repo))
    write_skill(repo / "skills", "b", "---\nname: b\ndescription: Does b. Use when asked.\n---\n")
    age(repo / "skills" / "b")  # skill a's own files keep their stamps: its key is unchanged
    found = [d["message"] for d in check(repo, "--select", "SL302")]
    assert len(entries(repo)) == before + 1  # b's entry; a's key is unchanged (rewritten in place)
    assert len(found) == 1 and "no such file exists" not in found[0] and "not part of the skill" in found[0]


def test_a_cached_probe_never_looks_outside_the_linted_tree(tmp_path):
    """The probes of an entry come from a file in the tree, as untrusted as the tree: one naming a
    place beyond the lint root is refused (a miss), never looked up."""
    repo = make_repo(tmp_path)
    first = check(repo)
    for forged in (["../../etc/passwd", True], ["a\u0000b", False], ["\ud800/x", False]):
        def forge(entry, forged=forged):
            data = json.loads(entry)
            data["probes"] = [forged]
            return json.dumps(data).encode()

        rewrite_cache_pack(repo, forge)
        assert check(repo) == first  # a miss, never a traceback
    for entry in entries(repo).values():  # filed again by the miss: the forged probe is gone
        assert b"etc/passwd" not in entry


def test_a_warm_run_looks_up_without_the_collector_walking_what_it_keeps(tmp_path, monkeypatch, capsys):
    """Looking up a warm tree's results makes objects by the thousand per skill and frees them by
    their counts: no cyclic collection runs between the first lookup and the last."""
    import gc

    from skilllint.cli import main as cli
    from skilllint.lint import engine

    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    for index in range(80):
        write_skill(repo / "skills", f"s{index}", f"---\nname: s{index}\ndescription: Does s{index} things. Use when asked.\n---\n# S\n")
    age(repo)
    monkeypatch.chdir(repo)
    assert cli.main(["check", "--output-format", "json", "--exit-zero", "--jobs", "1", "."]) == 0
    looked_up = []
    during = []
    real_look_up = engine._look_up

    def look_up(*args, **kwargs):
        looked_up.append(1)
        return real_look_up(*args, **kwargs)

    def collected(phase, info):
        if phase == "start" and 0 < len(looked_up) < 80:
            during.append(info["generation"])

    monkeypatch.setattr(engine, "_look_up", look_up)
    gc.callbacks.append(collected)
    try:
        capsys.readouterr()
        assert cli.main(["check", "--output-format", "json", "--exit-zero", "--jobs", "1", "."]) == 0
    finally:
        gc.callbacks.remove(collected)
    assert len(looked_up) == 80 and json.loads(capsys.readouterr().out)["summary"]["packages"] == 80
    assert during == []
