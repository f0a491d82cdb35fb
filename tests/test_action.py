"""The GitHub Action (action.yml): its shape, and its steps run as the runner would run them.

The runner is simulated here: each `run:` step of action.yml is executed by bash the way GitHub
runs `shell: bash` (``bash --noprofile --norc -eo pipefail FILE``) with its `env:` expressions
evaluated, a GITHUB_OUTPUT file per step, a GITHUB_STEP_SUMMARY file, GITHUB_WORKSPACE,
RUNNER_TEMP and GITHUB_ACTION_PATH (this checkout); `if:` conditions are evaluated with the
implicit `success() &&`. The upload step (`uses:`) cannot run here: its evaluated `with:` is
recorded and checked. The install step really builds a virtual environment from this checkout
(once per session: a second use in one job reuses it, as on a runner).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from conftest import cache_pack
import yaml

from conftest import ROOT, run_cli

ACTION = ROOT / "action.yml"
SCRIPT = ROOT / "scripts" / "github_action.py"
SHA = re.compile(r"^[0-9a-f]{40}$")

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed: the action's steps are bash"),
]


def load_action() -> dict:
    return yaml.safe_load(ACTION.read_text(encoding="utf-8"))


# -- a small evaluator for the expressions action.yml uses ------------------------------------

_TOKEN = re.compile(
    r"\s*(?:(?P<str>'(?:[^']|'')*')|(?P<op>==|!=|&&|\|\||!|\(|\))|(?P<num>\d+)"
    r"|(?P<call>(?:always|success|failure|cancelled)\(\))|(?P<ref>[A-Za-z_][\w-]*(?:\.[\w-]+)*))"
)


class Unsupported(Exception):
    """action.yml uses an expression this simulator does not know: extend it."""


def _tokens(text: str) -> list[tuple[str, str]]:
    out, pos = [], 0
    text = text.strip()
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if not match or match.end() == pos:
            raise Unsupported(f"cannot read expression {text!r} at {pos}")
        kind = match.lastgroup
        out.append((kind, match.group(kind)))
        pos = match.end()
    return out


def evaluate(text: str, context: dict):
    """GitHub's expression syntax, the part action.yml needs: context references, string
    and number literals, ==, != (strings compare ignoring case), !, &&, ||, parentheses and the
    status functions."""
    tokens = _tokens(text)
    pos = 0

    def peek():
        return tokens[pos] if pos < len(tokens) else (None, None)

    def take():
        nonlocal pos
        pos += 1
        return tokens[pos - 1]

    def primary():
        kind, value = take()
        if kind == "str":
            return value[1:-1].replace("''", "'")
        if kind == "num":
            return int(value)
        if kind == "call":
            return context["status"][value[:-2]]
        if kind == "op" and value == "(":
            result = disjunction()
            if take() != ("op", ")"):
                raise Unsupported(f"unbalanced parentheses in {text!r}")
            return result
        if kind == "op" and value == "!":
            return not truthy(primary())
        if kind == "ref":
            return resolve(value, context)
        raise Unsupported(f"unexpected {value!r} in {text!r}")

    def comparison():
        left = primary()
        while peek() in (("op", "=="), ("op", "!=")):
            _, op = take()
            right = primary()
            equal = _loose(left) == _loose(right)
            left = equal if op == "==" else not equal
        return left

    def conjunction():
        left = comparison()
        while peek() == ("op", "&&"):
            take()
            right = comparison()
            left = right if truthy(left) else left
        return left

    def disjunction():
        left = conjunction()
        while peek() == ("op", "||"):
            take()
            right = conjunction()
            left = left if truthy(left) else right
        return left

    result = disjunction()
    if pos != len(tokens):
        raise Unsupported(f"trailing tokens in {text!r}")
    return result


def _loose(value):
    return value.casefold() if isinstance(value, str) else value


def truthy(value) -> bool:
    return bool(value) and value != ""


def resolve(ref: str, context: dict):
    parts = ref.split(".")
    if parts[0] == "inputs" and len(parts) == 2:
        if parts[1] not in context["inputs"]:
            raise Unsupported(f"unknown input {parts[1]!r}")
        return context["inputs"][parts[1]]
    if parts[0] == "steps" and len(parts) == 4 and parts[2] == "outputs":
        return context["steps"].get(parts[1], {}).get("outputs", {}).get(parts[3], "")
    if parts[0] in ("github", "runner") and len(parts) == 2 and ref in context["values"]:
        return context["values"][ref]
    raise Unsupported(f"unknown context {ref!r}")


def substitute(text, context: dict) -> str:
    if not isinstance(text, str):
        return "true" if text is True else "false" if text is False else str(text)

    def one(match):
        value = evaluate(match.group(1), context)
        return "true" if value is True else "false" if value is False else str(value)

    return re.sub(r"\$\{\{(.*?)\}\}", one, text)


def parse_outputs(path: Path) -> dict[str, str]:
    """A GITHUB_OUTPUT file: ``name=value`` lines and ``name<<DELIMITER`` blocks."""
    outputs: dict[str, str] = {}
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            end = lines.index(delimiter, i + 1)
            outputs[name] = "\n".join(lines[i + 1 : end])
            i = end + 1
            continue
        name, _, value = line.partition("=")
        outputs[name] = value
        i += 1
    return outputs


# -- the simulated runner ---------------------------------------------------------------------


@dataclass
class StepRun:
    name: str
    status: str  # success, failure, skipped
    returncode: int | None = None
    log: str = ""
    outputs: dict = field(default_factory=dict)
    with_: dict = field(default_factory=dict)


@dataclass
class ActionRun:
    steps: list[StepRun]
    outputs: dict
    summary: str

    @property
    def failed(self) -> bool:
        return any(step.status == "failure" for step in self.steps)

    @property
    def log(self) -> str:
        return "".join(step.log for step in self.steps)

    def step(self, name: str) -> StepRun:
        return next(step for step in self.steps if step.name == name)


def run_action(workspace: Path, runner_temp: Path, inputs: dict[str, str] | None = None, job_env: dict[str, str] | None = None) -> ActionRun:
    """Run action.yml's steps; ``job_env``: variables the workflow sets for the whole job."""
    action = load_action()
    given = dict(inputs or {})
    unknown = set(given) - set(action["inputs"])
    assert not unknown, f"not inputs of action.yml: {unknown}"
    resolved = {name: str(given.get(name, spec.get("default", ""))) for name, spec in action["inputs"].items()}
    summary_file = runner_temp / f"summary-{os.getpid()}-{id(given)}.md"
    summary_file.write_text("", encoding="utf-8")
    base_env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "RUNNER_", "SKILLLINT_", "INPUT_"))}
    base_env.update(
        GITHUB_ACTIONS="true",
        CI="true",
        GITHUB_WORKSPACE=str(workspace),
        GITHUB_ACTION_PATH=str(ROOT),
        GITHUB_STEP_SUMMARY=str(summary_file),
        RUNNER_TEMP=str(runner_temp),
        # what actions/setup-python does: the Python to use comes first on the PATH
        PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""),
    )
    base_env.update(job_env or {})
    context = {
        "inputs": resolved,
        "steps": {},
        "values": {"github.action_path": str(ROOT), "github.workspace": str(workspace), "runner.temp": str(runner_temp)},
        "status": {"success": True, "failure": False, "always": True, "cancelled": False},
    }
    runs: list[StepRun] = []
    for index, step in enumerate(action["runs"]["steps"]):
        name = step.get("name", f"step {index}")
        condition = str(step.get("if", "")).strip()
        if condition.startswith("${{") and condition.endswith("}}"):
            condition = condition[3:-2]
        if condition and not re.search(r"\b(always|success|failure|cancelled)\(\)", condition):
            condition = f"success() && ({condition})"
        if not truthy(evaluate(condition or "success()", context)):
            runs.append(StepRun(name, "skipped"))
            continue
        if "uses" in step:
            with_ = {key: substitute(value, context) for key, value in step.get("with", {}).items()}
            runs.append(StepRun(name, "success", with_=with_))
            continue
        assert step.get("shell") == "bash", f"{name}: the simulator runs bash steps only"
        output_file = runner_temp / f"output-{os.getpid()}-{len(runs)}-{id(context)}"
        output_file.write_text("", encoding="utf-8")
        script = runner_temp / f"step-{os.getpid()}-{len(runs)}.sh"
        script.write_text(step["run"], encoding="utf-8")
        env = dict(base_env, GITHUB_OUTPUT=str(output_file))
        env.update({key: substitute(value, context) for key, value in step.get("env", {}).items()})
        proc = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
            cwd=workspace,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=600,
        )
        outputs = parse_outputs(output_file)
        status = "success" if proc.returncode == 0 else "failure"
        runs.append(StepRun(name, status, proc.returncode, proc.stdout, outputs))
        if "id" in step:
            context["steps"][step["id"]] = {"outputs": outputs}
        if status == "failure":
            context["status"].update(success=False, failure=True)
    outputs = {name: substitute(spec["value"], context) for name, spec in action["outputs"].items()}
    return ActionRun(runs, outputs, summary_file.read_text(encoding="utf-8"))


# -- fixtures ---------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def runner_temp(tmp_path_factory) -> Path:
    """One job's RUNNER_TEMP, shared by the tests: the venv is built once and then reused."""
    return tmp_path_factory.mktemp("runner-temp")


def skill(base: Path, folder: str, name: str, description: str | None = None) -> Path:
    path = base / folder
    path.mkdir(parents=True, exist_ok=True)
    description = description or f"Drafts {name} notes for the team. Use when the user asks for {name} notes."
    (path / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n---\n# {name}\n", encoding="utf-8")
    return path


@pytest.fixture
def workspace(tmp_path) -> Path:
    """A checked-out repository (a .git folder is all skilllint looks for)."""
    repo = tmp_path / "workspace"
    (repo / ".git").mkdir(parents=True)
    skill(repo, "skills/release-notes", "release-notes")
    return repo


# -- action.yml's shape -------------------------------------------------------------------------


def test_action_yml_is_a_composite_action_with_the_documented_inputs():
    action = load_action()
    assert action["runs"]["using"] == "composite"
    inputs = action["inputs"]
    for name in ("paths", "targets", "fail-on", "config", "baseline", "sarif-file", "upload-sarif"):
        assert name in inputs and inputs[name].get("description"), name
    assert inputs["paths"]["default"] == "." and inputs["upload-sarif"]["default"] == "true"
    assert all(spec.get("required", False) is False for spec in inputs.values())
    for name, spec in action["outputs"].items():
        assert re.fullmatch(r"\$\{\{ steps\.run\.outputs\.[\w-]+ \}\}", spec["value"]), name
    # the outputs the run step writes are the ones action.yml declares
    written = set(re.findall(r'set_output\("([\w-]+)"', SCRIPT.read_text(encoding="utf-8")))
    written |= {"errors", "warnings", "info"}  # set in a loop
    assert set(action["outputs"]) <= written


def test_no_expression_is_pasted_into_a_script_and_every_input_goes_through_env():
    action = load_action()
    steps = action["runs"]["steps"]
    env_uses = []
    for step in steps:
        if "run" in step:
            assert step.get("shell"), f"{step['name']}: composite run steps need a shell"
            assert "${{" not in step["run"], f"{step['name']}: an expression inside run: is pasted into the script"
            env_uses += [str(v) for v in step.get("env", {}).values()]
    wired = " ".join(env_uses)
    for name in action["inputs"]:
        if name == "upload-sarif":  # a condition of the upload step, not a value for the script
            assert f"inputs.{name}" in str(next(s for s in steps if "uses" in s and "upload-sarif" in s["uses"])["if"])
            continue
        assert re.search(rf"\$\{{\{{ inputs\.{re.escape(name)} \}}\}}", wired), f"input {name} is not passed through env:"
    # the script reads exactly the variables the steps set
    script = SCRIPT.read_text(encoding="utf-8")
    read = set(re.findall(r'_env\("(SKILLLINT_ACTION_[A-Z_]+)"\)', script))
    set_by_steps = {key for step in steps for key in step.get("env", {}) if key.startswith("SKILLLINT_ACTION_")}
    assert read == set_by_steps - {"SKILLLINT_ACTION_PYTHON"}  # that one is read by the bash of the install step


def test_upload_sarif_is_pinned_by_commit_and_categorised():
    action = load_action()
    uses = [step for step in action["runs"]["steps"] if "uses" in step and "upload-sarif" in step["uses"]]
    assert len(uses) == 1
    (upload,) = uses
    ref, _, sha = upload["uses"].partition("@")
    assert ref == "github/codeql-action/upload-sarif" and SHA.match(sha), upload["uses"]
    # the version the SHA stands for is written beside it, for people and for Dependabot
    line = next(line for line in ACTION.read_text(encoding="utf-8").splitlines() if sha in line)
    assert re.search(r"# v4\.\d+\.\d+$", line), line  # v3 runs on Node 20 and is deprecated
    assert upload["with"] == {"sarif_file": "${{ steps.run.outputs.sarif-file }}", "category": "${{ steps.run.outputs.category }}"}
    names = [step.get("id") or step["name"] for step in action["runs"]["steps"]]
    assert names.index("run") < names.index(upload["name"]) < len(names) - 1, "the exit code is re-raised after the upload"
    assert "finish" in action["runs"]["steps"][-1]["run"]


def test_the_cache_steps_are_pinned_by_commit_and_wrap_the_run():
    steps = load_action()["runs"]["steps"]
    caching = [step for step in steps if "uses" in step and step["uses"].startswith("actions/cache")]
    assert [step["uses"].partition("@")[0] for step in caching] == ["actions/cache/restore", "actions/cache/save"]
    restore, save = caching
    for step in caching:
        sha = step["uses"].partition("@")[2]
        assert SHA.match(sha), step["uses"]
        line = next(line for line in ACTION.read_text(encoding="utf-8").splitlines() if step["uses"] in line)
        assert re.search(r"# v5\.\d+\.\d+$", line), line  # v5 runs on Node 24; v4 on Node 20, which GitHub retires
    assert restore["uses"].partition("@")[2] == save["uses"].partition("@")[2]
    names = [step.get("id") or step["name"] for step in steps]
    assert names.index("install") < names.index("restore-cache") < names.index("run") < names.index(save["name"]) < len(names) - 1
    # saved when skilllint linted, even if its findings fail the job (actions/cache's post step would not)
    assert "!cancelled()" in save["if"] and "steps.run.outputs.exit-code == '1'" in save["if"]


# -- the steps, run ---------------------------------------------------------------------------


def test_findings_are_annotated_written_as_sarif_and_fail_the_action(workspace, runner_temp):
    skill(workspace, "skills/bad", "Bad_Name")
    run = run_action(workspace, runner_temp)
    install, restore, lint, upload, save, finish = run.steps
    assert install.status == "success", install.log
    assert restore.status == save.status == "skipped"  # no `cache` input
    assert lint.status == "success", lint.log  # the step itself succeeds so that the upload runs
    # annotations for the GitHub log, each finding also printed plainly
    assert "::error file=skills/bad/SKILL.md,line=2,col=7," in lint.log and "title=SL104 name-invalid-chars::" in lint.log
    assert "skills/bad/SKILL.md:2:7: error:" in lint.log
    # one run wrote the SARIF, at the default place
    sarif_path = Path(lint.outputs["sarif-file"])
    assert sarif_path == runner_temp / "skilllint.sarif"
    sarif = json.loads(sarif_path.read_text(encoding="utf-8"))
    assert sarif["version"] == "2.1.0"
    results = sarif["runs"][0]["results"]
    assert any(
        r["ruleId"] == "SL104" and r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "skills/bad/SKILL.md"
        for r in results
    )
    # the default inputs keep the category the action always had
    assert upload.status == "success" and upload.with_ == {"sarif_file": str(sarif_path), "category": "skilllint"}
    assert sarif["runs"][0]["automationDetails"]["id"] == "skilllint/" and run.outputs["category"] == "skilllint"
    # the exit code comes back after the upload
    assert finish.status == "failure" and finish.returncode == 1 and run.failed
    assert run.outputs["exit-code"] == "1"
    assert int(run.outputs["errors"]) >= 1 and int(run.outputs["findings"]) == len(results)
    assert "### skilllint" in run.summary and "| `SL104` | 1 |" in run.summary


def test_two_uses_in_one_job_file_their_reports_under_different_categories(workspace, runner_temp):
    """upload-sarif replaces the alerts of an earlier upload with the same category. Its own
    `category` applies only to a run without automationDetails, which skilllint's SARIF has,
    so the category must be in the report: each use's run is filed under its category."""
    skill(workspace, "skills/bad", "Bad_Name")
    skill(workspace, ".agents/skills/worse", "Worse_Name")
    seen = {}
    for inputs in ({"paths": "skills"}, {"paths": ".agents/skills", "targets": "codex"}, {"paths": "skills", "category": "team-a/skills"}):
        run = run_action(workspace, runner_temp, inputs)
        upload = run.step("Upload SARIF to code scanning")
        sarif = json.loads(Path(run.outputs["sarif-file"]).read_text(encoding="utf-8"))
        (sarif_run,) = sarif["runs"]
        assert upload.status == "success" and upload.with_["category"] == run.outputs["category"]
        assert sarif_run["automationDetails"]["id"] == run.outputs["category"] + "/"
        assert sarif_run["tool"]["driver"]["name"] == "skilllint" and sarif_run["results"]  # the rest is skilllint's report
        seen[run.outputs["category"]] = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in sarif_run["results"]}
    assert seen == {
        "skilllint/paths:skills": {"skills/bad/SKILL.md"},
        "skilllint/paths:.agents/skills/targets:codex": {".agents/skills/worse/SKILL.md"},
        "team-a/skills": {"skills/bad/SKILL.md"},  # the input, as given
    }


def _category(**inputs: str) -> str:
    env = {f"SKILLLINT_ACTION_{name.upper()}": value for name, value in inputs.items()}
    code = "import sys; sys.path.insert(0, sys.argv[1]); import github_action as a; print(a.category())"
    clean = {k: v for k, v in os.environ.items() if not k.startswith("SKILLLINT_ACTION_")}
    return subprocess.run([sys.executable, "-c", code, str(SCRIPT.parent)], env={**clean, **env}, capture_output=True, text=True, check=True).stdout.rstrip("\n")


def test_the_derived_category_names_what_is_linted_and_nothing_else():
    assert _category() == _category(paths=".", working_directory="./", targets="") == "skilllint"
    # spacing, order, repeats and trailing slashes do not make a new category
    assert _category(paths="b  a/ a", targets="codex, claude-code") == _category(paths="a\nb", targets="claude-code codex")
    assert _category(paths="b a", targets="codex,claude-code") == "skilllint/paths:a b/targets:claude-code,codex"
    everything = _category(working_directory="pkg", paths="'my skills'", targets="all", config="cfg/lint.toml", args="--select  SL1")
    assert everything == "skilllint/working-directory:pkg/paths:my skills/targets:all/config:cfg/lint.toml/args:--select SL1"
    assert len({_category(), _category(paths="x"), _category(targets="codex"), _category(args="--select SL1"), _category(config="c.toml")}) == 5
    # an unclosed quote (skilllint then exits 2 and nothing is uploaded) does not break it
    assert _category(paths="'open").startswith("skilllint/paths:")
    # a long one stays bounded and distinct
    long_a, long_b = _category(paths=" ".join(f"d{i}" for i in range(200))), _category(paths=" ".join(f"d{i}" for i in range(201)))
    assert len(long_a) == len(long_b) == 100 and long_a != long_b
    assert _category(category="  mine \n ") == "mine"


def test_the_cache_input_keeps_the_results_in_the_runners_temporary_folder(workspace, runner_temp):
    from test_cache import age

    folder = runner_temp / "skilllint-cache"
    shutil.rmtree(folder, ignore_errors=True)
    age(workspace)  # files written in the last two seconds are not cached
    job = {"GITHUB_SHA": "a" * 40, "RUNNER_OS": "Linux"}
    first = run_action(workspace, runner_temp, {"cache": "true", "upload-sarif": "false"}, job_env=job)
    assert not first.failed, first.log
    outputs = first.step("Install skilllint").outputs
    prefix = outputs["cache-restore-keys"]
    assert re.fullmatch(r"skilllint-Linux-[0-9a-f]{16}-[0-9a-f]{16}-", prefix), prefix
    assert outputs["cache-key"] == prefix + "a" * 40 and outputs["cache-dir"] == str(folder)
    restore, save = first.step("Restore skilllint's result cache"), first.step("Save skilllint's result cache")
    assert restore.with_ == {"path": str(folder), "key": outputs["cache-key"], "restore-keys": prefix}
    assert save.status == "success" and save.with_ == {"path": str(folder), "key": outputs["cache-key"]}
    assert f"--cache-dir {folder}" in first.log
    filed = cache_pack(runner_temp, "skilllint-cache")
    assert filed and not (workspace / ".skilllint_cache").exists()
    # the next commit restores it (here: it stayed) and files nothing new for the unchanged skill
    second = run_action(workspace, runner_temp, {"cache": "true", "upload-sarif": "false"}, job_env={**job, "GITHUB_SHA": "b" * 40})
    assert second.step("Install skilllint").outputs["cache-restore-keys"] == prefix
    assert cache_pack(runner_temp, "skilllint-cache") == filed
    # another configuration starts another cache
    (workspace / ".skilllint.toml").write_text('ignore = ["SL512"]\n', encoding="utf-8")
    third = run_action(workspace, runner_temp, {"cache": "true", "upload-sarif": "false"}, job_env=job)
    assert third.step("Install skilllint").outputs["cache-restore-keys"] not in ("", prefix)
    # without the input: neither step runs, and skilllint keeps its cache where it always does
    plain = run_action(workspace, runner_temp, {"upload-sarif": "false"}, job_env=job)
    assert plain.step("Restore skilllint's result cache").status == "skipped"
    assert plain.step("Save skilllint's result cache").status == "skipped"
    assert "--cache-dir" not in plain.log and "cache-key" not in plain.step("Install skilllint").outputs


def test_a_clean_repository_passes(workspace, runner_temp):
    run = run_action(workspace, runner_temp)
    assert not run.failed, run.log
    assert run.outputs["exit-code"] == "0" and run.outputs["findings"] == "0"
    assert "::error" not in run.log and "::warning" not in run.log
    assert json.loads(Path(run.outputs["sarif-file"]).read_text(encoding="utf-8"))["runs"][0]["results"] == []
    assert run.step("Upload SARIF to code scanning").status == "success"
    assert "No problems in 1 skill." in run.summary


def test_inputs_reach_skilllint_as_arguments_never_as_shell(workspace, runner_temp):
    odd = skill(workspace, "we$(touch PWNED) ird/skills/x", "x")
    (workspace / "cfg").mkdir()
    (workspace / "cfg" / "lint.toml").write_text('fail-on = "warning"\n', encoding="utf-8")
    skill(workspace, "we$(touch PWNED) ird/skills/y", "not-y")  # SL106: a warning only
    inputs = {
        "paths": "'we$(touch PWNED) ird' `touch PWNED`",  # the second word: a path that does not exist
        "targets": "agentskills; touch PWNED",
        "args": "--select 'SL1' $(touch PWNED)",
    }
    run = run_action(workspace, runner_temp, inputs)
    assert not any(workspace.rglob("PWNED")) and not (workspace.parent / "PWNED").exists()
    assert run.outputs["exit-code"] == "2", run.log  # nonexistent path / target: a usage error
    assert run.failed and run.step("Exit with skilllint's exit code").returncode == 2
    # the same odd path, quoted, with a configuration file that fails on warnings
    run = run_action(workspace, runner_temp, {"paths": f"'{odd.parent.parent.name}'", "config": "cfg/lint.toml", "targets": "agentskills"})
    assert run.outputs["exit-code"] == "1", run.log
    assert "::warning file=we$(touch PWNED) ird/skills/y/SKILL.md,line=2" in run.log
    assert not any(workspace.rglob("PWNED"))


def test_fail_on_and_targets(workspace, runner_temp):
    skill(workspace, "skills/y", "not-y")  # SL106 name-folder-mismatch: a warning
    assert run_action(workspace, runner_temp).outputs["exit-code"] == "0"
    run = run_action(workspace, runner_temp, {"fail-on": "warning"})
    assert run.outputs["exit-code"] == "1" and run.failed
    assert run.outputs["warnings"] == "1" and run.outputs["errors"] == "0"
    assert "1 problem in 2 skills: 0 errors, 1 warning, 0 info (exit code 1)." in run.summary  # counts agree with nouns
    # a Claude Code skill checked against Claude Code only: the spec's naming rules do not apply
    skill(workspace, "cc/skills/Mixed_Case", "Mixed_Case")
    run = run_action(workspace, runner_temp, {"paths": "cc", "targets": "claude-code", "fail-on": "warning"})
    assert run.outputs["exit-code"] == "0", run.log
    run = run_action(workspace, runner_temp, {"paths": "cc", "targets": "agentskills , claude-code"})
    assert run.outputs["exit-code"] == "1" and "SL104" in run.log


def test_upload_can_be_turned_off_and_working_directory_is_honoured(workspace, runner_temp):
    sub = workspace / "packages" / "agent"
    skill(sub, "skills/bad", "Bad_Name")
    sarif = workspace / "out" / "ci" / "skilllint.sarif"  # folders that do not exist yet: made for it
    run = run_action(workspace, runner_temp, {"upload-sarif": "false", "working-directory": "packages/agent", "sarif-file": str(sarif)})
    assert run.step("Upload SARIF to code scanning").status == "skipped"
    assert run.outputs["sarif-file"] == str(sarif) and sarif.is_file()
    # paths in annotations and SARIF are relative to the repository root, as GitHub expects
    assert "::error file=packages/agent/skills/bad/SKILL.md,line=2" in run.log
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in json.loads(sarif.read_text())["runs"][0]["results"]}
    assert uris == {"packages/agent/skills/bad/SKILL.md"}
    assert run.step("Exit with skilllint's exit code").returncode == 1


def test_a_baseline_fails_the_step_only_on_new_findings(workspace, runner_temp):
    skill(workspace, "skills/Old_Name", "Old_Name")  # SL104: an error, accepted in the baseline
    (workspace / "ci").mkdir()
    code, _, err = run_cli("check", "--write-baseline", "ci/skilllint-baseline.json", ".", cwd=workspace)
    assert code == 0 and "wrote 1 baseline entry" in err
    run = run_action(workspace, runner_temp, {"baseline": "ci/skilllint-baseline.json"})
    assert not run.failed and run.outputs["exit-code"] == "0" and run.outputs["findings"] == "0", run.log
    assert "::error" not in run.log and "SL104" not in run.log
    assert json.loads(Path(run.outputs["sarif-file"]).read_text(encoding="utf-8"))["runs"][0]["results"] == []
    assert "The baseline `ci/skilllint-baseline.json` holds 1 more finding (not reported)." in run.summary
    # a new finding fails the step, alone; one fixed is counted as gone
    shutil.rmtree(workspace / "skills" / "Old_Name")
    skill(workspace, "skills/New_Name", "New_Name")
    run = run_action(workspace, runner_temp, {"baseline": "ci/skilllint-baseline.json"})
    assert run.outputs["exit-code"] == "1" and run.outputs["findings"] == "1" and run.failed
    assert "::error file=skills/New_Name/SKILL.md" in run.log and "Old_Name" not in run.log.replace("skilllint check", "")
    assert "1 of its entries no longer occurs" in run.summary
    # a baseline that is not there is an error, not a pass
    run = run_action(workspace, runner_temp, {"baseline": "ci/missing.json"})
    assert run.outputs["exit-code"] == "2" and "baseline file not found" in run.log


def test_a_usage_error_uploads_nothing_and_exits_2(workspace, runner_temp):
    # an earlier run's SARIF in the same job must not be uploaded for this one
    assert run_action(workspace, runner_temp).outputs["sarif-file"]
    run = run_action(workspace, runner_temp, {"fail-on": "sometimes"})
    assert "invalid choice: 'sometimes'" in run.log
    assert run.outputs["exit-code"] == "2" and run.outputs["sarif-file"] == ""
    assert not (runner_temp / "skilllint.sarif").exists()
    assert run.step("Upload SARIF to code scanning").status == "skipped"
    assert run.step("Exit with skilllint's exit code").returncode == 2
    assert "could not lint (exit code 2)" in run.summary


# -- the checked repository is data, never code ------------------------------------------------

HOSTILE = 'import pathlib; pathlib.Path(__file__).resolve().parent.joinpath("PWNED-{name}").write_text("ran")\n'


def plant_hostile_code(workspace: Path, packages=("skilllint", "pip", "venv")) -> None:
    """What a pull request can add: its own `skilllint` package (that ends green and writes no
    report), `pip` and `venv` to hijack the install, `sitecustomize`, and a plugin registered by
    a `*.dist-info` that any `python -m` started in the workspace would find."""
    for package in packages:
        (workspace / package).mkdir()
        (workspace / package / "__init__.py").write_text(HOSTILE.format(name=package), encoding="utf-8")
        (workspace / package / "__main__.py").write_text(HOSTILE.format(name=f"{package}-main") + "raise SystemExit(0)\n", encoding="utf-8")
    (workspace / "sitecustomize.py").write_text(HOSTILE.format(name="sitecustomize"), encoding="utf-8")
    (workspace / "evil_rules.py").write_text(HOSTILE.format(name="plugin") + "RULES = []\n", encoding="utf-8")
    info = workspace / "evil_rules-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: evil-rules\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[skilllint.rules]\nEVIL = evil_rules:RULES\n", encoding="utf-8")


@pytest.mark.parametrize("job", ["linter", "installer"])
def test_code_in_the_checked_repository_never_runs(workspace, tmp_path, runner_temp, job):
    """A pull request full of Python, in a workflow that puts the checkout on PYTHONPATH: the real
    skilllint lints, and none of the PR's code runs. `installer`: a fresh job, so that the
    install (venv, ensurepip, pip, the build backend) really runs beside those packages too."""
    plant_hostile_code(workspace, ("skilllint",) if job == "linter" else ("skilllint", "pip", "venv", "ensurepip"))
    skill(workspace, "skills/bad", "Bad_Name")
    if job == "installer":
        runner_temp = tmp_path / "fresh-runner-temp"
        runner_temp.mkdir()
    run = run_action(workspace, runner_temp, job_env={"PYTHONPATH": str(workspace)})
    assert sorted(p.name for p in workspace.rglob("PWNED-*")) == [], run.log
    assert run.step("Install skilllint").status == "success", run.log
    assert "title=SL104 name-invalid-chars::" in run.log  # skilllint itself linted ...
    results = json.loads(Path(run.outputs["sarif-file"]).read_text(encoding="utf-8"))["runs"][0]["results"]
    assert any(r["ruleId"] == "SL104" for r in results)  # ... and wrote the report
    assert run.outputs["exit-code"] == "1" and run.step("Exit with skilllint's exit code").returncode == 1


def test_every_python_of_the_action_starts_isolated():
    """`python -I`: no working directory and no PYTHONPATH on sys.path, for the steps and for the
    commands the script starts (venv, pip, skilllint)."""
    for step in load_action()["runs"]["steps"]:
        if "github_action.py" in step.get("run", ""):
            assert re.search(r'" -I "\$GITHUB_ACTION_PATH/scripts/github_action\.py"', step["run"]), step["name"]
    script = SCRIPT.read_text(encoding="utf-8")
    starts = re.findall(r"\[(?:sys\.executable|str\(python\)), ([^,\]]+)", script)
    assert starts and all(arg == "ISOLATED" for arg in starts), starts
    # and their children (pip's build backend) get no PYTHONPATH either
    calls = script.count("subprocess.run(")
    assert calls == 4 and script.count("env=_isolated_env()") == calls


@pytest.mark.parametrize("written", [(), ("json",), ("sarif",), ("sarif-garbage", "json")], ids=["nothing", "json-only", "sarif-only", "bad-sarif"])
def test_a_run_that_leaves_no_report_fails_the_step(tmp_path, monkeypatch, written):
    """Whatever ran in skilllint's place and ended 0 without both reports: exit code 2, no upload."""
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        import github_action
    finally:
        sys.path.remove(str(SCRIPT.parent))
    fake = tmp_path / "fake_skilllint.py"
    fake.write_text(
        "import json, sys\n"
        "reports = dict(a.split('=', 1) for a in sys.argv[sys.argv.index('--report') :: 1] if '=' in a)\n"
        f"written = {list(written)!r}\n"
        "if 'sarif' in written: open(reports['sarif'], 'w').write(json.dumps({'version': '2.1.0', 'runs': [{'results': []}]}))\n"
        "if 'sarif-garbage' in written: open(reports['sarif'], 'w').write('not json')\n"
        "if 'json' in written: open(reports['json'], 'w').write(json.dumps({'summary': {'errors': 0, 'warnings': 0, 'info': 0, 'total': 0}}))\n",
        encoding="utf-8",
    )
    real_command = github_action.command
    def fake_command(sarif, report):
        argv = real_command(sarif, report)
        return [sys.executable, str(fake), *argv[argv.index("check") :]]

    monkeypatch.setattr(github_action, "command", fake_command)
    out, summary = tmp_path / "out", tmp_path / "summary.md"
    out.write_text("", encoding="utf-8")
    for name, value in {"GITHUB_OUTPUT": out, "GITHUB_STEP_SUMMARY": summary, "RUNNER_TEMP": tmp_path, "SKILLLINT_ACTION_WORKING_DIRECTORY": tmp_path}.items():
        monkeypatch.setenv(name, str(value))
    assert github_action.run() == 0  # the step itself: the finish step raises the code
    outputs = parse_outputs(out)
    assert outputs["exit-code"] == "2" and "sarif-file" not in outputs, outputs
    assert "could not lint (exit code 2)" in summary.read_text(encoding="utf-8")


def test_the_summary_says_when_the_sarif_report_holds_fewer_results():
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        import github_action
    finally:
        sys.path.remove(str(SCRIPT.parent))
    summary = {"errors": 30_000, "warnings": 1, "info": 0, "total": 30_001, "packages": 3, "by_code": {"SL301": 30_001}}
    text = github_action._summary_markdown(1, summary, 25_000)
    assert "holds the 25,000 most severe of the 30,001 findings" in text
    assert "most severe" not in github_action._summary_markdown(1, summary, 30_001)


def test_the_step_outputs_cannot_be_forged_by_a_value(tmp_path):
    """set_output writes the delimiter form: a value holding a new line and `name=` stays one value."""
    out = tmp_path / "out"
    out.write_text("", encoding="utf-8")
    env = dict(os.environ, GITHUB_OUTPUT=str(out))
    code = "import sys; sys.path.insert(0, sys.argv[1]); import github_action as a; a.set_output('sarif-file', 'x\\nexit-code=0')"
    subprocess.run([sys.executable, "-c", code, str(SCRIPT.parent)], env=env, check=True)
    assert parse_outputs(out) == {"sarif-file": "x\nexit-code=0"}


def _section(document: str, heading: str) -> str:
    text = (ROOT / document).read_text(encoding="utf-8")
    return text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]


@pytest.mark.parametrize("document", ["README.md", "docs/integrations.md"])
def test_the_documented_workflow_uses_the_action_as_it_is(document):
    section = _section(document, "GitHub Actions")
    workflow = yaml.safe_load(re.search(r"```yaml\n(.*?)```", section, re.DOTALL).group(1))
    assert workflow["permissions"] == {"contents": "read", "security-events": "write"}
    (job,) = workflow["jobs"].values()
    checkout, lint = job["steps"]
    assert checkout["uses"].startswith("actions/checkout@")
    assert re.fullmatch(r"OWNER/skilllint@COMMIT_SHA", lint["uses"])  # placeholders the document explains
    assert set(lint.get("with", {})) <= set(load_action()["inputs"])


def test_the_integrations_table_documents_every_input_with_its_default():
    section = _section("docs/integrations.md", "GitHub Actions")
    inputs = load_action()["inputs"]
    rows = dict(re.findall(r"^\| `([\w-]+)` \| ([^|]*) \|", section, re.MULTILINE))
    assert set(rows) == set(inputs)
    for name in ("paths", "upload-sarif", "working-directory"):
        assert rows[name].strip() == f"`{inputs[name]['default']}`", name
