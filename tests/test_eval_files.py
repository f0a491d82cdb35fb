"""Eval files in the package model (skill/evals/files.py) and the rules that judge them (SL530, SL531).

The reader: which files are trigger sets or task evals, each problem class on its line, files read once
and never past the cap; the rules through the command line; hostile input in a separate process
(tests/test_hostile.py's harness: time, memory and file-access bounds)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skilllint.skill.evals import files as eval_files, json_positions as eval_json
from skilllint.skill.evals.files import TriggerCase, read_trigger_set, trigger_sets
from skilllint.skill.package import SkillPackage

from conftest import LINEAR_AT_4X, growth, lint_json
from test_hostile import MiB, Tree, check_json, skill, sparse, tree  # noqa: F401  (tree: a fixture)
from skilllint.skill.evals.files import package_evals

DESCRIPTION = "Fills in PDF forms from data the user gives. Use when the user asks to fill or complete a PDF form."
SKILL_MD = f"---\nname: pdf-form-filler\ndescription: {DESCRIPTION}\n---\n# PDF form filler\n\nFill the form.\n"

GOOD_SET = [
    {"query": "fill in this W-9 with my company details", "should_trigger": True},
    {"query": "populate the checkboxes in onboarding_form.pdf from the CSV", "should_trigger": True},
    {"query": "merge these three PDF invoices into one file", "should_trigger": False},
    {"query": "extract the table on page 4 of this PDF report", "should_trigger": False},
]


def make_skill(base: Path, files: dict[str, str | bytes], folder: str = "pdf-form-filler", skill_md: str = SKILL_MD) -> Path:
    root = base / folder
    root.mkdir(parents=True, exist_ok=True)
    (root / "SKILL.md").write_text(skill_md, encoding="utf-8")
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


def lines_of(cases: list[dict]) -> str:
    """A trigger set with one case per line (case N on line N + 1)."""
    return "[\n" + ",\n".join(json.dumps(case) for case in cases) + "\n]\n"


def problems(text: str) -> list[tuple[int, str]]:
    return [(p.line, p.message) for p in read_trigger_set(Path("set.json"), text).problems]


def only(found: list[tuple[int, str]], fragment: str) -> int:
    """The line of the one problem whose message holds ``fragment``."""
    lines = [line for line, message in found if fragment in message]
    assert len(lines) == 1, (fragment, found)
    return lines[0]


# ----------------------------------------------------------------------------- the reader: trigger sets


def test_a_well_formed_set_reads_every_case_on_its_line():
    found = read_trigger_set(Path("set.json"), lines_of(GOOD_SET))
    assert found.problems == ()
    assert found.cases[0] == TriggerCase(GOOD_SET[0]["query"], True, 2)
    assert [(c.line, c.should_trigger) for c in found.cases] == [(2, True), (3, True), (4, False), (5, False)]
    assert len(found.positives) == 2 and len(found.negatives) == 2


def test_the_corpus_math_olympiad_set_is_well_formed(corpus):
    root = corpus / "anthropics__claude-plugins-official/plugins/math-olympiad/skills/math-olympiad"
    [found] = trigger_sets(SkillPackage(root))
    assert found.rel == "evals/trigger_eval.json" and found.problems == ()
    assert (len(found.positives), len(found.negatives)) == (10, 10)
    assert found.cases[0].line == 2 and found.cases[-1].line == 22  # a blank line parts the two sides


@pytest.mark.parametrize(
    "case, fragment",
    [
        ({"query": "", "should_trigger": True}, "`query` is empty"),
        ({"query": "  \n\t", "should_trigger": True}, "`query` is empty"),
        ({"query": 42, "should_trigger": True}, "`query` is a number, not a string"),
        ({"query": ["a"], "should_trigger": True}, "`query` is an array, not a string"),
        ({"should_trigger": True}, "has no `query`"),
        ({"query": "fill this form"}, "has no `should_trigger`"),
        ({"query": "fill this form", "should_trigger": "false"}, "`should_trigger` is a string, not true or false"),
        ({"query": "fill this form", "should_trigger": 0}, "`should_trigger` is a number, not true or false"),
        ({"query": "fill this form", "should_trigger": None}, "`should_trigger` is null, not true or false"),
        ("fill this form", "is a string, not an object with `query` and `should_trigger`"),
        (None, "is null, not an object"),
    ],
)
def test_each_bad_case_is_one_problem_on_its_line(case, fragment):
    text = lines_of([GOOD_SET[0], GOOD_SET[2], case])
    found = read_trigger_set(Path("set.json"), text)
    assert only([(p.line, p.message) for p in found.problems], fragment) == 4
    assert len(found.cases) == 2  # the bad case is not run


def test_a_repeated_query_is_reported_with_the_line_it_repeats():
    again = dict(GOOD_SET[0])
    flipped = {"query": GOOD_SET[2]["query"], "should_trigger": True}
    found = problems(lines_of([*GOOD_SET, again, flipped]))
    assert only(found, "repeats the query of line 2") == 6
    line = only(found, "repeats the query of line 4")
    assert line == 7 and "once expected to trigger and once not" in dict(found)[7]
    assert len(read_trigger_set(Path("s"), lines_of([*GOOD_SET, again])).cases) == 4


def test_a_set_without_a_positive_or_a_negative_or_any_case():
    assert only(problems(lines_of(GOOD_SET[:2])), "no negative case") == 1
    assert only(problems(lines_of(GOOD_SET[2:])), "no positive case") == 1
    assert only(problems("[]"), "holds no case") == 1


def test_a_key_given_twice_keeps_the_last_as_json_readers_do():
    text = '[\n{"query": "first", "should_trigger": true, "query": "fill in the W-9"},\n{"query": "merge PDFs", "should_trigger": false}\n]'
    found = read_trigger_set(Path("s"), text)
    assert [(p.line, p.column) for p in found.problems] == [(2, 44)]
    assert "`query` twice" in found.problems[0].message
    assert found.cases[0].query == "fill in the W-9"


@pytest.mark.parametrize(
    "text, fragment, line",
    [
        ('{"query": "x", "should_trigger": true}', "this file holds an object", 1),
        ('"just text"', "this file holds a string", 1),
        ('[\n{"query": "x", "should_trigger": true},\n]', "is not valid JSON", 3),  # a trailing comma
        ('[\n{"query": "x" "should_trigger": true}\n]', "is not valid JSON: Expecting ',' delimiter", 2),
        ('[\n{"query": "x", "should_trigger": tru}\n]', "is not valid JSON", 2),
        ('[{"query": "x", "should_trigger": true}]\n[]', "extra data after the JSON value", 2),
        ("", "is not valid JSON", 1),
        ("[" * 100_000, "nested too deeply", 1),
        ('[{"query": "a\x01b", "should_trigger": true}]', "is not valid JSON: Invalid control character", 1),
    ],
)
def test_a_file_that_is_not_a_json_array_is_one_problem_where_the_decoder_stopped(text, fragment, line):
    found = read_trigger_set(Path("s"), text)
    assert only([(p.line, p.message) for p in found.problems], fragment) == line
    assert found.cases == ()


def test_a_byte_order_mark_is_reported_and_the_rest_still_read():
    found = read_trigger_set(Path("s"), "\ufeff" + lines_of(GOOD_SET))
    assert [p.message for p in found.problems] == [
        "starts with a byte-order mark, which Python's `json` (skill-creator's scripts) refuses"
    ]
    assert len(found.cases) == 4 and found.cases[0].line == 2


def test_problems_are_capped_per_file_and_the_last_counts_the_rest():
    text = "[" + ",".join(["1"] * (eval_json.MAX_PROBLEMS + 500)) + "]"
    found = read_trigger_set(Path("s"), text).problems
    assert len(found) == eval_json.MAX_PROBLEMS
    assert "(500 more problems in this file not listed)" in found[-1].message


# ----------------------------------------------------------------------------- which files are read


def test_which_files_are_trigger_sets(tmp_path):
    good = lines_of(GOOD_SET)
    root = make_skill(
        tmp_path,
        {
            "evals/trigger_eval.json": good,  # skill-creator's name
            "evals/more/near-misses.json": good,  # any .json under evals/ with the shape
            "eval_set.json": good,  # the name skill-creator's review page exports
            "evals/axis.config.json": '{"model": "x", "scenarios": ["a"]}',  # another format (getsentry)
            "evals/scenarios/one.json": '{"prompt": "x", "checks": []}',
            "evals/broken.json": "[{not json",  # not understood: not reported
            "evals/list.json": '["a", "b"]',  # an array, but not of cases
            "evals/eval.yaml": "tasks: []\n",  # hashicorp's format
            "references/trigger_eval.md": "[]",
            "evals/node_modules/pkg/trigger_eval.json": "[]",  # vendored
            "nested/SKILL.md": "---\nname: nested\ndescription: d\n---\n",
            "nested/evals/trigger_eval.json": "[]",  # the nested skill's own
        },
    )
    found = trigger_sets(SkillPackage(root))
    assert [s.rel for s in found] == ["eval_set.json", "evals/more/near-misses.json", "evals/trigger_eval.json"]
    assert all(s.problems == () and len(s.cases) == 4 for s in found)
    assert package_evals(SkillPackage(root)).task_evals is None


def test_a_named_set_of_the_wrong_shape_is_still_read_as_one(tmp_path):
    root = make_skill(tmp_path, {"evals/trigger_eval.json": '{"queries": []}'})
    [found] = trigger_sets(SkillPackage(root))
    assert "this file holds an object" in found.problems[0].message


def test_each_eval_file_is_read_once(tmp_path, monkeypatch):
    root = make_skill(
        tmp_path,
        {"evals/trigger_eval.json": lines_of(GOOD_SET), "evals/evals.json": '{"skill_name": "pdf-form-filler", "evals": []}'},
    )
    reads: list[str] = []
    real = eval_files.read_capped

    def counting(path, *args, **kwargs):
        reads.append(Path(path).name)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(eval_files, "read_capped", counting)
    package = SkillPackage(root)
    trigger_sets(package), trigger_sets(package), package_evals(package).task_evals
    assert sorted(reads) == ["evals.json", "trigger_eval.json"]


def github_token(body: str = "q8ZrT2vLm9XkP4wN7bYc1HsD6gJf0a") -> str:
    """A token in GitHub's format (30 base62 characters and their CRC32 in six), which SL803 finds."""
    import string
    import zlib

    alphabet = string.digits + string.ascii_uppercase + string.ascii_lowercase
    number, digits = zlib.crc32(body.encode()), ""
    for _ in range(6):
        number, rest = divmod(number, 62)
        digits = alphabet[rest] + digits
    return "ghp_" + body + digits


def test_the_security_rules_take_the_eval_files_text_from_the_reader(tmp_path, monkeypatch):
    """SL803 scans every text file for secrets: an eval file SL530 read is not opened again."""
    import os

    make_skill(tmp_path, {"evals/trigger_eval.json": lines_of([*GOOD_SET, {"query": "token " + github_token(), "should_trigger": False}])})
    opened: list[str] = []
    real_open = os.open

    def watching(path, *args, **kwargs):
        opened.append(os.fsdecode(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", watching)
    doc = lint_json(str(tmp_path), "--select", "SL530,SL803", "--no-cache")
    assert [d["code"] for d in doc["diagnostics"]] == ["SL803"]  # the secret is still found
    assert len([p for p in opened if p.endswith("trigger_eval.json")]) == 1


def test_a_file_over_the_cap_is_not_read_and_says_so(tmp_path, monkeypatch):
    root = make_skill(tmp_path, {"evals/trigger_eval.json": lines_of(GOOD_SET) + " " * 5000})
    opened: list[str] = []
    real_open = eval_files.read_capped.__globals__["os"].open

    def watching(path, *args, **kwargs):
        opened.append(str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(eval_files.read_capped.__globals__["os"], "open", watching)
    [found] = trigger_sets(SkillPackage(root, max_bytes=4096))
    assert found.cases == () and "was not read: it is larger than 4,096 bytes" in found.problems[0].message
    assert not [p for p in opened if p.endswith("trigger_eval.json")]


def test_a_linked_eval_file_is_not_followed(tmp_path):
    outside = tmp_path / "outside.json"
    outside.write_text(lines_of(GOOD_SET))
    root = make_skill(tmp_path, {})
    (root / "evals").mkdir()
    (root / "evals" / "trigger_eval.json").symlink_to(outside)
    assert trigger_sets(SkillPackage(root)) == []


# ----------------------------------------------------------------------------- the reader: evals/evals.json


def task_problems(tmp_path: Path, evals_json: str, files: dict[str, str] | None = None) -> list[tuple[int, str]]:
    root = make_skill(tmp_path, {"evals/evals.json": evals_json, **(files or {})})
    found = package_evals(SkillPackage(root)).task_evals
    assert found is not None and found.rel == "evals/evals.json"
    return [(p.line, p.message) for p in found.problems]


def evals_text(*evals: dict, name: object = "pdf-form-filler") -> str:
    head = f'{{\n  "skill_name": {json.dumps(name)},\n  "evals": [\n'
    return head + ",\n".join("    " + json.dumps(e) for e in evals) + "\n  ]\n}\n"


GOOD_EVAL = {"id": 1, "prompt": "Fill evals/files/w9.pdf", "expected_output": "A filled W-9", "files": ["evals/files/w9.pdf"], "expectations": ["the TIN is filled"]}


def test_well_formed_task_evals(tmp_path):
    second = dict(GOOD_EVAL, id=2, files=[])
    root = make_skill(tmp_path, {"evals/evals.json": evals_text(GOOD_EVAL, second), "evals/files/w9.pdf": "%PDF"})
    found = package_evals(SkillPackage(root)).task_evals
    assert found.problems == () and found.skill_name == "pdf-form-filler"
    assert [(e.id, e.line, e.files) for e in found.evals] == [(1, 4, ("evals/files/w9.pdf",)), (2, 5, ())]
    assert found.evals[0].expectations == ("the TIN is filled",) and found.evals[0].expected_output == "A filled W-9"
    assert trigger_sets(SkillPackage(root)) == []  # evals.json is not a trigger set


@pytest.mark.parametrize(
    "evals, fragment",
    [
        ([GOOD_EVAL, dict(GOOD_EVAL, prompt="again")], "eval 2: `id` 1 is also the id of the eval on line 4"),
        ([dict(GOOD_EVAL, id="1")], "`id` is a string, not an integer"),
        ([dict(GOOD_EVAL, id=True)], "`id` is a boolean, not an integer"),
        ([dict(GOOD_EVAL, id=1.5)], "`id` is a number, not an integer"),
        ([{k: v for k, v in GOOD_EVAL.items() if k != "id"}], "eval 1 has no `id`"),
        ([{k: v for k, v in GOOD_EVAL.items() if k != "prompt"}], "eval 1 has no `prompt`"),
        ([dict(GOOD_EVAL, prompt=" ")], "`prompt` is empty"),
        ([dict(GOOD_EVAL, prompt=["x"])], "`prompt` is an array, not a string"),
        ([dict(GOOD_EVAL, expected_output=3)], "`expected_output` is a number, not a string"),
        ([dict(GOOD_EVAL, files="evals/files/w9.pdf")], "`files` is a string, not an array of strings"),
        ([dict(GOOD_EVAL, files=[3])], "`files` holds a number, not a string"),
        ([dict(GOOD_EVAL, files=["evals/files/gone.pdf"])], "names `evals/files/gone.pdf`, which is not in the skill's folder"),
        ([dict(GOOD_EVAL, files=["../outside.pdf"])], "names `../outside.pdf`, outside the skill's folder"),
        ([dict(GOOD_EVAL, files=["/etc/passwd"])], "names `/etc/passwd`, outside the skill's folder"),
        ([dict(GOOD_EVAL, files=[""])], "`files` holds an empty path"),
        ([dict(GOOD_EVAL, expectations="it works")], "`expectations` is a string, not an array of strings"),
        (["fill the form"], "eval 1 is a string, not an object"),
    ],
)
def test_each_task_eval_problem_is_on_its_line(tmp_path, evals, fragment):
    found = task_problems(tmp_path, evals_text(*evals), {"evals/files/w9.pdf": "%PDF"})
    assert only(found, fragment) == 3 + len(evals)  # the last eval's line


def test_skill_name_must_be_the_skills_name(tmp_path):
    found = task_problems(tmp_path, evals_text(name="pdf-filler"), {})
    assert found == [(2, "`skill_name` is `pdf-filler`, but the skill's `name` is `pdf-form-filler`")]
    assert only(task_problems(tmp_path / "b", evals_text(name=7)), "`skill_name` is a number, not a string") == 2


@pytest.mark.parametrize(
    "text, fragment, line",
    [
        ("[]", "this file holds an array", 1),
        ('{"skill_name": "pdf-form-filler"}', "has no `evals` array", 1),
        ('{\n"skill_name": "pdf-form-filler",\n"evals": {}\n}', "`evals` is an object, not an array", 3),
        ('{"evals": [}', "is not valid JSON", 1),
    ],
)
def test_a_task_evals_file_of_the_wrong_shape(tmp_path, text, fragment, line):
    assert only(task_problems(tmp_path, text), fragment) == line


# ----------------------------------------------------------------------------- the rules


def test_sl530_reports_each_problem_on_the_eval_files_line(tmp_path):
    bad = lines_of([GOOD_SET[0], {"query": "", "should_trigger": True}])
    make_skill(tmp_path, {"evals/trigger_eval.json": bad, "evals/evals.json": evals_text(name="other")})
    doc = lint_json(str(tmp_path), "--select", "SL530")
    found = sorted((Path(d["path"]).name, d["line"], d["severity"]) for d in doc["diagnostics"])
    assert found == [("evals.json", 2, "warning"), ("trigger_eval.json", 1, "warning"), ("trigger_eval.json", 3, "warning")]


def test_sl530_is_on_by_default_and_sl531_is_opt_in(tmp_path):
    make_skill(tmp_path, {"evals/trigger_eval.json": lines_of([GOOD_SET[0], {"query": "write a fibonacci function", "should_trigger": False}, {"query": 1, "should_trigger": False}])})
    codes = {d["code"] for d in lint_json(str(tmp_path))["diagnostics"]}
    assert "SL530" in codes and "SL531" not in codes
    codes = {d["code"] for d in lint_json(str(tmp_path), "--select", "SL531")["diagnostics"]}
    assert codes == {"SL531"}


def test_sl531_small_sides_and_distant_negatives(tmp_path):
    distant = [{"query": q, "should_trigger": False} for q in ("write a fibonacci function", "what's the weather in Lisbon", "book a table for two")]
    make_skill(tmp_path, {"evals/trigger_eval.json": lines_of([GOOD_SET[0], GOOD_SET[2], *distant])})
    doc = lint_json(str(tmp_path), "--select", "SL531")
    messages = {(d["line"], d["message"].split(":")[0]) for d in doc["diagnostics"]}
    assert messages == {
        (2, "1 positive case, fewer than 5"),
        (3, "4 negative cases, fewer than 5"),
        (4, "3 of 4 negative cases share no content word with the description (lines 4, 5, 6; first"),
    }


def test_sl531_passes_a_full_set_with_a_minority_of_distant_negatives(tmp_path):
    positives = [{"query": f"fill in the PDF form number {i} for my client", "should_trigger": True} for i in range(5)]
    near = [{"query": f"merge PDF {i} with the cover page", "should_trigger": False} for i in range(3)]
    distant = [{"query": q, "should_trigger": False} for q in ("write a fibonacci function", "book a table for two")]
    make_skill(tmp_path, {"evals/trigger_eval.json": lines_of([*positives, *near, *distant])})
    assert lint_json(str(tmp_path), "--select", "SL531")["diagnostics"] == []


def test_sl531_options(tmp_path):
    positives = [{"query": f"fill in the PDF form number {i}", "should_trigger": True} for i in range(3)]
    near = [{"query": f"merge PDF {i} with the cover page", "should_trigger": False} for i in range(3)]
    distant = [{"query": "write a fibonacci function", "should_trigger": False}]
    make_skill(tmp_path / "tree", {"evals/trigger_eval.json": lines_of([*positives, *near, *distant])})
    (tmp_path / "tree" / "skilllint.toml").write_text("[rules.SL531]\nmin-cases = 3\nmax-distant-share = 0.2\n")
    doc = lint_json(".", "--select", "SL531", cwd=tmp_path / "tree")
    assert [d["message"].split(" (")[0] for d in doc["diagnostics"]] == ["1 of 4 negative cases share no content word with the description"]


def test_sl304_leaves_eval_files_alone(tmp_path):
    make_skill(tmp_path, {"evals/trigger_eval.json": lines_of(GOOD_SET), "evals/evals.json": evals_text(GOOD_EVAL), "evals/files/w9.pdf": "%PDF"})
    assert lint_json(str(tmp_path), "--select", "SL304")["diagnostics"] == []


# ----------------------------------------------------------------------------- hostile input (separate process)


def test_a_200_mb_trigger_set_is_never_opened(tree):
    root = skill(tree.root, "big")
    sparse(root / "evals" / "trigger_eval.json", b'[{"query": "x", "should_trigger": true}, ')
    result = check_json(tree, "--select", "SL530", "big", label="200 MB trigger set")
    [finding] = result.found("SL530")
    assert "was not read: it is larger than 1,048,576 bytes" in finding["message"]
    assert not [e for e in result.events if e[0] == "open" and e[1].endswith("trigger_eval.json")]


def test_deep_nesting_non_utf8_and_nul_bytes_are_findings(tree):
    root = skill(tree.root, "hostile")
    (root / "evals").mkdir()
    (root / "evals" / "trigger_eval.json").write_text("[" * 1_000_000)
    (root / "evals" / "eval_set.json").write_bytes(b'[\n{"query": "caf\xe9", "should_trigger": true}\n]')
    (root / "evals" / "evals.json").write_bytes(b'{"skill_name": "hostile", "evals": [\x00]}')
    result = check_json(tree, "--select", "SL530,SL531", "hostile", label="deep, non-UTF-8, NUL eval files")
    found = {(Path(d["path"]).name, d["line"], d["message"].split(":")[0]) for d in result.found("SL530")}
    assert found == {
        ("trigger_eval.json", 1, "is not valid JSON"),
        ("eval_set.json", 2, "is not UTF-8 text (invalid continuation byte at byte 16)"),
        ("evals.json", 1, "is not valid JSON"),
    }


@pytest.mark.parametrize("shape", ["one 10 MB query", "200,000 cases on one line", "10 MB of one string key"])
def test_a_10_mb_line_is_read_in_linear_time(tree, shape):
    root = skill(tree.root, "wide")
    (tree.root / "skilllint.toml").write_text("[rules.SL011]\nmax-bytes = 16777216\n")
    if shape == "one 10 MB query":
        text = '[{"query": "' + "fill the form " * (10 * MiB // 14) + '", "should_trigger": true}, {"query": "x", "should_trigger": false}]'
    elif shape == "200,000 cases on one line":
        text = "[" + ", ".join(json.dumps({"query": f"fill form {i}", "should_trigger": i % 2 == 0}) for i in range(200_000)) + "]"
    else:
        text = '[{"' + "k" * (10 * MiB) + '": 1}]'
    (root / "evals").mkdir()
    (root / "evals" / "trigger_eval.json").write_text(text)
    result = check_json(tree, "--select", "SL530,SL531", "wide", label=f"trigger set: {shape}")  # reads < 64 MiB: read once, capped
    assert len(result.found("SL530")) <= 2


def test_the_reader_is_linear_in_the_number_of_cases():
    """Four times the cases, on one line, take about four times the work (quadratic: sixteen):
    two sizes compared in one run, by function calls and by CPU time (the JSON parse is in C)."""

    def text(count: int) -> str:
        return "[" + ", ".join(json.dumps({"query": f"q{i}", "should_trigger": i % 2 == 0}) for i in range(count)) + "]"

    small, large = text(25_000), text(100_000)
    assert len(read_trigger_set(Path("s"), large).cases) == 100_000
    read = lambda text: read_trigger_set(Path("s"), text)  # noqa: E731
    assert growth(read, small, large, measure="calls") < LINEAR_AT_4X
    assert growth(read, small, large) < LINEAR_AT_4X

