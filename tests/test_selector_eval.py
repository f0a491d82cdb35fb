"""`skilllint eval`: trigger sets routed through the catalog a surface renders, scored per skill.

The labelled set (:data:`LAB`) is five skills that compete in pairs (two PDF skills, two
plotting libraries) plus one whose deciding words come last in its description, so that a
small Codex budget cuts them off; each has positives and near-miss negatives (queries that
belong to its sibling, or share a word with it and mean something else).
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from conftest import run_cli
from test_hostile import run, usage_error, tree  # noqa: F401  (tree: a fixture)

SCHEMA = json.loads((Path(__file__).parent.parent / "skilllint" / "schemas" / "eval.schema.json").read_text())

LAB = {
    "pdf-forms": (
        "Fill in PDF forms and read their form fields: list the fields of a fillable PDF, fill them from data, and flatten the filled form.",
        [
            ("Fill out this PDF form with the values from my spreadsheet", True),
            ("What fields does this fillable PDF have?", True),
            ("Flatten the filled form so nobody can edit it", True),
            ("Extract the form field values from application.pdf", True),
            ("Merge these three PDFs into one file", False),
            ("Rotate page 4 of the scanned PDF", False),
            ("Fill the missing values in my pandas data frame", False),
            ("Convert this Word document to a PDF", False),
        ],
    ),
    "pdf-pages": (
        "Split, merge, rotate and reorder the pages of PDF files: combine several PDFs into one, split a PDF into single pages, rotate or delete pages.",
        [
            ("Merge these three PDFs into one file", True),
            ("Rotate page 4 of the scanned PDF", True),
            ("Split the contract PDF into one file per page", True),
            ("Delete the blank pages from report.pdf", True),
            ("Fill out this PDF form with the values from my spreadsheet", False),
            ("Reorder the slides of my presentation", False),
            ("Rotate the image by 90 degrees", False),
            ("Count the words on each page of this essay", False),
        ],
    ),
    "matplotlib-plots": (
        "Plot data with matplotlib: line plots, scatter plots, histograms and subplots, with labelled axes, legends and figures saved as PNG or SVG.",
        [
            ("Make a scatter plot of height against weight with matplotlib", True),
            ("Add a legend and label the axes of my line plot", True),
            ("Draw a histogram of the response times and save the figure as PNG", True),
            ("Put four subplots in a 2x2 grid", True),
            ("Show a heatmap of the correlation matrix of these columns", False),
            ("Compare the distributions of salaries across departments", False),
            ("Plot the delivery route on a map of Paris", False),
            ("Compute the mean and standard deviation of this column", False),
        ],
    ),
    "seaborn-stats": (
        "Statistical charts with seaborn: distributions, regression fits, heatmaps of correlation matrices and categorical comparisons of pandas data frames.",
        [
            ("Show a heatmap of the correlation matrix of these columns", True),
            ("Compare the distributions of salaries across departments", True),
            ("Fit a regression line through the points and show its confidence band", True),
            ("Make a violin chart of scores per class with seaborn", True),
            ("Make a scatter plot of height against weight with matplotlib", False),
            ("Put four subplots in a 2x2 grid", False),
            ("Run a t-test on these two samples", False),
            ("Load the CSV into a pandas data frame", False),
        ],
    ),
    "release-notes": (
        "Write the notes that go out with a new version of a project: gather what changed since the previous tag, group the changes by kind "
        "and credit their authors. Drafts the changelog entry from conventional commit messages and publishes the GitHub release.",
        [
            ("Write release notes for the new version", True),
            ("Group what changed since the last tag by kind", True),
            ("Draft the changelog entry from the conventional commits", True),
            ("Publish the GitHub release for v2.3.0", True),
            ("Tag the current commit as v1.0", False),
            ("Summarize this pull request for reviewers", False),
            ("Write a commit message for my staged changes", False),
            ("Bump the version number in pyproject.toml", False),
        ],
    ),
}
# Codex's budget at which release-notes' last sentence (changelog, conventional commits) is cut
# and every other description keeps its deciding words.
CUTTING_BUDGET = "1000"


def write_lab(root: Path, names=tuple(LAB), with_sets=True) -> Path:
    for name in names:
        description, cases = LAB[name]
        folder = root / name
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {json.dumps(description)}\n---\n\n# {name}\n")
        if with_sets:
            (folder / "evals").mkdir(exist_ok=True)
            (folder / "evals" / "trigger_eval.json").write_text(json.dumps([{"query": q, "should_trigger": t} for q, t in cases], indent=1))
    return root


def eval_json(*args: str, expect: int = 0, cwd: Path | None = None) -> dict:
    code, out, err = run_cli("eval", *args, "--output-format", "json", cwd=cwd)
    assert code == expect, err
    report = json.loads(out)
    jsonschema.validate(report, SCHEMA)  # every report the tests see follows the published schema
    return report


def by_name(report: dict) -> dict:
    return {skill["name"]: skill for skill in report["skills"]}


@pytest.fixture
def lab(tmp_path: Path) -> Path:
    return write_lab(tmp_path / "lab")


def test_every_skill_with_a_trigger_set_is_scored_against_its_siblings(lab):
    report = eval_json(str(lab))
    assert report["router"]["proxy"] is True and "proxy" in report["router"]["note"]
    skills = by_name(report)
    assert sorted(skills) == sorted(LAB)
    # the labelled set's figures with every description whole
    figures = {name: (s["counts"]["true_positives"], s["counts"]["false_positives"], s["counts"]["false_negatives"]) for name, s in skills.items()}
    assert figures == {
        "pdf-forms": (4, 1, 0),
        "pdf-pages": (4, 3, 0),
        "matplotlib-plots": (4, 1, 0),
        "seaborn-stats": (4, 1, 0),
        "release-notes": (4, 3, 0),
    }
    forms = skills["pdf-forms"]
    assert (forms["precision"], forms["recall"]) == (0.8, 1.0) and forms["f1"] == pytest.approx(8 / 9)
    # a negative that belongs to the sibling goes to the sibling: no false activation
    assert "Merge these three PDFs into one file" not in [c["query"] for c in forms["false_activations"]]
    assert [c["query"] for c in forms["false_activations"]] == ["Convert this Word document to a PDF"]
    assert all(not s["shortened"] and s["lost_to_shortening"] == [] for s in skills.values())


def test_a_missed_positive_names_the_sibling_that_took_it(tmp_path):
    # matplotlib-plots' set, judged in a catalog where only seaborn-stats speaks of heatmaps
    lab = write_lab(tmp_path / "lab", names=("matplotlib-plots", "seaborn-stats"), with_sets=False)
    cases = [
        {"query": "Show a heatmap of the correlation matrix", "should_trigger": True},
        {"query": "Book a flight to Oslo", "should_trigger": True},
        {"query": "Translate this letter into French", "should_trigger": False},
    ]
    (tmp_path / "set.json").write_text(json.dumps(cases))
    skill = eval_json(str(lab), "--eval-set", str(tmp_path / "set.json"), "--skill", "matplotlib-plots")["skills"][0]
    assert [(c["query"], c["taken_by"]) for c in skill["missed"]] == [
        ("Show a heatmap of the correlation matrix", "seaborn-stats"),
        ("Book a flight to Oslo", None),  # no line clears the floor: nothing is loaded
    ]
    assert skill["recall"] == 0.0 and skill["precision"] is None
    code, out, _ = run_cli("eval", str(lab), "--eval-set", str(tmp_path / "set.json"), "--skill", "matplotlib-plots")
    assert code == 0
    assert '"Show a heatmap of the correlation matrix": taken by seaborn-stats' in out
    assert '"Book a flight to Oslo": no skill chosen (its line shares no word with the query)' in out


def test_a_cut_description_shows_the_cases_it_loses(lab):
    skills = by_name(eval_json(str(lab), "--budget-chars", CUTTING_BUDGET))
    notes = skills["release-notes"]
    assert notes["shortened"] and notes["included"] and notes["chars_shown"] < notes["description_chars"]
    assert [c["query"] for c in notes["lost_to_shortening"]] == ["Draft the changelog entry from the conventional commits"]
    assert [c["query"] for c in notes["missed"]] == ["Draft the changelog entry from the conventional commits"]
    # the same query passes with the budget that shows the description whole
    assert by_name(eval_json(str(lab)))["release-notes"]["missed"] == []
    code, out, _ = run_cli("eval", str(lab), "--budget-chars", CUTTING_BUDGET, "--skill", "release-notes")
    assert "pass with the description as written, fail as rendered (1):" in out
    assert "description cut to" in out


def test_a_skill_the_budget_leaves_out_loses_every_positive(lab):
    skill = by_name(eval_json(str(lab), "--budget-chars", "200"))["release-notes"]
    assert skill["included"] is False and skill["recall"] == 0.0
    assert len(skill["lost_to_shortening"]) == 4  # each positive passes with the skill listed whole


def test_the_claude_code_catalog_is_routed_too(lab):
    report = eval_json(str(lab), "--target", "claude-code")
    assert report["target"] == "claude-code" and by_name(report)["pdf-forms"]["recall"] == 1.0


def test_thresholds_set_the_exit_status(lab):
    assert run_cli("eval", str(lab))[0] == 0  # no threshold: a report only
    assert run_cli("eval", str(lab), "--min-recall", "1")[0] == 0
    report = eval_json(str(lab), "--min-precision", "0.75", expect=1)
    assert report["passed"] is False
    failing = {s["name"]: s["below_thresholds"] for s in report["skills"] if s["below_thresholds"]}
    assert failing == {"pdf-pages": ["precision 0.57 < 0.75"], "release-notes": ["precision 0.57 < 0.75"]}
    assert run_cli("eval", str(lab), "--min-recall", "1", "--budget-chars", CUTTING_BUDGET)[0] == 1


def test_thresholds_come_from_the_configuration_and_the_command_line_wins(lab):
    (lab / ".skilllint.toml").write_text("[eval]\nmin-precision = 0.75\n")
    assert run_cli("eval", ".", cwd=lab)[0] == 1
    assert run_cli("eval", ".", "--min-precision", "0.5", cwd=lab)[0] == 0
    (lab / ".skilllint.toml").write_text("[eval]\nmin-recall = 2\n")
    code, _, err = run_cli("eval", ".", cwd=lab)
    assert code == 2 and "eval.min-recall" in err


def test_github_annotations_sit_on_the_description_line(lab):
    code, out, _ = run_cli("eval", str(lab), "--output-format", "github", "--min-precision", "0.75", "--budget-chars", CUTTING_BUDGET)
    assert code == 1
    annotations = [line for line in out.splitlines() if line.startswith("::")]
    notes = next(line for line in annotations if "release-notes" in line.split("::")[1])
    assert notes.startswith("::error file=") and ",line=3," in notes  # `description:` is line 3 of its SKILL.md
    assert "lost to the catalog's cut: \"Draft the changelog entry from the conventional commits\"" in notes
    assert "%0A" in notes and "\n" not in notes  # one line: the message's line breaks are escaped
    assert any(line.startswith("::warning ") and "pdf-forms" in line for line in annotations)  # a false activation, no threshold broken
    assert "skilllint eval: codex catalog, lexical router" in out  # the whole report follows as plain lines


def test_the_text_report_says_it_is_a_proxy(lab):
    code, out, _ = run_cli("eval", str(lab))
    assert code == 0
    assert out.splitlines()[1].startswith("note: the lexical router is a proxy")
    assert "5 skill evaluations; no threshold set" in out


def test_a_trigger_set_given_on_the_command_line(lab, tmp_path):
    (tmp_path / "set.json").write_text(json.dumps([{"query": "Merge these two PDFs", "should_trigger": True}, {"query": "Plot a histogram", "should_trigger": False}]))
    skill = eval_json(str(lab / "pdf-pages"), "--eval-set", str(tmp_path / "set.json"))["skills"][0]
    assert skill["name"] == "pdf-pages" and skill["eval_set"] == str(tmp_path / "set.json")
    assert skill["counts"] == {"true_positives": 1, "false_positives": 0, "false_negatives": 0, "true_negatives": 1}


@pytest.mark.parametrize(
    "content, args, message",
    [
        (None, ["--skill", "pdf-pages"], "cannot stat"),  # a set that is not there
        ("[{\"query\": \"x\", ", ["--skill", "pdf-pages"], "--eval-set"),  # not JSON
        ("{\"query\": \"x\"}", ["--skill", "pdf-pages"], "--eval-set"),  # not a list of cases
        ("[{\"query\": \"Merge PDFs\", \"should_trigger\": true}]", ["--skill", "no-such-skill"], "no skill named 'no-such-skill'"),
        ("[{\"query\": \"Merge PDFs\", \"should_trigger\": true}]", [], "--eval-set is for one skill"),  # five skills, none named
    ],
)
def test_bad_input_is_a_one_line_error_with_exit_2(lab, tmp_path, content, args, message):
    eval_set = tmp_path / "set.json"
    if content is not None:
        eval_set.write_text(content)
    code, out, err = run_cli("eval", str(lab), "--eval-set", str(eval_set), *args)
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("skilllint: error: ") and message in lines[0], err


def test_a_trigger_set_over_the_read_cap_is_named_in_the_error(tmp_path):
    lab = write_lab(tmp_path / "lab", names=("pdf-forms",))
    (lab / "pdf-forms" / "evals" / "trigger_eval.json").write_text(json.dumps([{"query": "x" * 2_000_000, "should_trigger": True}]))
    code, _, err = run_cli("eval", str(lab))
    assert code == 2 and "no trigger set under the given paths has a case to evaluate" in err and "evals/trigger_eval.json:1: was not read" in err


def test_no_trigger_set_and_an_unknown_skill_are_errors(tmp_path):
    lab = write_lab(tmp_path / "lab", names=("pdf-forms",), with_sets=False)
    code, _, err = run_cli("eval", str(lab))
    assert code == 2 and "no skill under the given paths has a trigger set" in err
    write_lab(tmp_path / "lab", names=("pdf-forms",))
    code, _, err = run_cli("eval", str(lab), "--skill", "pdf-pages")
    assert code == 2 and "no skill named 'pdf-pages' with a trigger set" in err and "pdf-forms" in err


def test_bad_thresholds_are_usage_errors(lab):
    for value in ("1.5", "-0.1", "most"):
        code, _, err = run_cli("eval", str(lab), "--min-recall", value)
        assert code == 2 and "expected a share from 0 to 1" in err


def test_check_does_not_import_the_agent_machinery(tmp_path):
    import subprocess
    import sys

    write_lab(tmp_path, names=("pdf-forms",))
    code = (
        "import sys\n"
        "from skilllint.cli.main import main\n"
        "main(['check', '--no-cache', '--output-format', 'json', '.'])\n"
        "print(sorted(m for m in ('skilllint.app.agent_router', 'skilllint.catalog.lexical_router', 'snowballstemmer') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path).stdout
    assert out.strip().splitlines()[-1] == "[]"


# -- hostile trigger sets, end to end in a separate process (tests/test_hostile.py's harness) --------


def test_a_huge_trigger_set_routes_in_bounded_time_and_reads_nothing_outside(tree):
    write_lab(tree.root, names=("pdf-forms", "pdf-pages"), with_sets=False)
    cases = [{"query": f"fill form {i} " + "word " * 20, "should_trigger": i % 2 == 0} for i in range(5_000)]
    cases.append({"query": " ".join(f"w{i}" for i in range(20_000)), "should_trigger": False})
    (tree.root / "pdf-forms" / "evals").mkdir()
    (tree.root / "pdf-forms" / "evals" / "trigger_eval.json").write_text(json.dumps(cases))
    # the harness's hang guard and read bound; the router's linearity: tests/test_lexical_router.py
    result = run(tree, "eval", "--output-format", "json", ".", label="eval: 5,001 cases, one of 20,000 words")
    report = json.loads(result.out)
    assert report["skills"][0]["counts"]["true_positives"] == 2_500


def test_an_eval_set_that_is_a_fifo_is_an_error_not_a_hang(tree):
    import os

    write_lab(tree.root, names=("pdf-forms",), with_sets=False)
    os.mkfifo(tree.root / "set.json")
    usage_error(run(tree, "eval", ".", "--eval-set", "set.json", label="eval: --eval-set FIFO", expect=(2,)))


def test_config_show_names_the_eval_thresholds(lab):
    (lab / ".skilllint.toml").write_text("[eval]\nmin-recall = 0.8\n")
    code, out, _ = run_cli("config", "--show", ".", cwd=lab)
    assert code == 0 and "eval.min-recall = 0.8  # " in out and ".skilllint.toml" in out


# -- the routers E3's options choose, through this command ------------------------------------------

FAKE_AGENT = """\
import json, sys
query = sys.argv[-1].lower()
print(json.dumps({"type": "system", "subtype": "init", "claude_code_version": "0.0-fake", "model": "fake"}))
if "merge" in query or "rotate" in query:
    call = {"type": "tool_use", "name": "Skill", "input": {"skill": "pdf-pages"}}
    print(json.dumps({"type": "assistant", "message": {"content": [call]}}))
print(json.dumps({"type": "result", "subtype": "success", "result": "done"}))
"""


def test_an_agent_decides_when_asked_and_the_report_is_no_proxy(lab, tmp_path):
    import shlex
    import sys

    agent = tmp_path / "fake_agent.py"
    agent.write_text(FAKE_AGENT)
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(agent))}"
    report = eval_json(str(lab), "--skill", "pdf-pages", "--agent", command, "--runs", "1", "-j", "2", "--min-recall", "0.5")
    skill = report["skills"][0]
    assert report["router"]["proxy"] is False and report["router"]["shortening_checked"] is False
    assert (skill["counts"]["true_positives"], skill["counts"]["false_negatives"], skill["counts"]["false_positives"]) == (2, 2, 1)
    assert [c["rate"] for c in skill["cases"][:2]] == [1.0, 1.0]


def test_a_recorded_run_replays_and_names_the_cases_a_changed_catalog_made_stale(lab, tmp_path):
    recording = tmp_path / "decisions.json"
    recorded = eval_json(str(lab), "--skill", "pdf-forms", "--record", str(recording))
    replayed = eval_json(str(lab), "--skill", "pdf-forms", "--replay", str(recording))
    assert replayed["router"]["name"] == "replay of lexical" and replayed["router"]["proxy"] is True
    assert replayed["skills"][0]["counts"] == recorded["skills"][0]["counts"] and replayed["skills"][0]["stale"] == []
    skill_md = lab / "pdf-forms" / "SKILL.md"
    skill_md.write_text(skill_md.read_text().replace("Fill in PDF forms", "Complete PDF forms"))
    stale = eval_json(str(lab), "--skill", "pdf-forms", "--replay", str(recording))["skills"][0]["stale"]
    assert len(stale) == len(LAB["pdf-forms"][1])
    code, out, err = run_cli("eval", str(lab), "--skill", "pdf-forms", "--replay", str(recording))
    assert "stale: recorded against another catalog text, or not recorded (8):" in out
    assert "skilllint: warning: 8 cases answered from a recording made against another catalog text" in err


def test_agent_options_without_an_agent_are_usage_errors(lab):
    code, _, err = run_cli("eval", str(lab), "--runs", "3")
    assert code == 2 and "only apply with --agent" in err
    code, _, err = run_cli("eval", str(lab), "--agent", "no-such-agent-executable-here")
    assert code == 2 and "not an executable on PATH" in err


def test_a_case_no_agent_run_decided_is_neither_hit_nor_miss_and_fails_the_thresholds(lab, tmp_path):
    """An agent that never completes a run (here: every run fails) must not score the
    negatives as passed: each case is undecided, counted in no figure, and with a
    threshold set the skill fails."""
    import shlex
    import sys

    agent = tmp_path / "broken_agent.py"
    agent.write_text("import sys\nsys.exit(3)\n")
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(agent))}"
    report = eval_json(str(lab), "--skill", "pdf-pages", "--agent", command, "--runs", "1", "--min-precision", "0.5", expect=1)
    (skill,) = report["skills"]
    assert skill["counts"] == {"true_positives": 0, "false_positives": 0, "false_negatives": 0, "true_negatives": 0}
    assert len(skill["undecided"]) == len(skill["cases"]) == len(LAB["pdf-pages"][1])
    assert skill["missed"] == [] and skill["false_activations"] == []
    assert skill["below_thresholds"] == [f"{len(skill['cases'])} cases undecided (no agent run completed, or no recorded answer)"]
    # without a threshold the run passes, and the report still lists them
    code, out, _ = run_cli("eval", str(lab), "--skill", "pdf-pages", "--agent", command, "--runs", "1")
    assert code == 0 and "undecided: no agent run completed, or no recorded answer (neither hit nor miss)" in out
