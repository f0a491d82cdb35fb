#!/usr/bin/env python3
"""The steps of skilllint's GitHub Action (``action.yml``), kept out of YAML so they can be tested.

    python github_action.py install   # a virtual environment holding skilllint from the action's checkout,
                                      # and with the `cache` input, the result cache's folder and keys
    python github_action.py run       # lint once: annotations in the log, a SARIF report, step outputs
    python github_action.py finish    # exit with skilllint's exit code (after the SARIF upload)

The action's inputs arrive as environment variables (``action.yml`` maps each one in ``env:``),
never pasted into a shell script, and reach skilllint as separate arguments, never through a
shell. Standard library only: ``install`` runs on whatever Python the runner has.

Nothing from the checked repository runs: every Python here starts isolated (``-I``: neither
the working directory nor PYTHONPATH on ``sys.path``), so a ``skilllint/``, ``pip/`` or
``venv/`` folder or a plugin's ``*.dist-info`` in a pull request cannot replace the linter or
its installer; skilllint lives in its own virtual environment under the runner's temporary
folder. A run that ends without its reports fails the step (exit code 2).
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
import re
import shlex
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

MIN_PYTHON = (3, 10)  # pyproject.toml: requires-python
MARKER = "skilllint-action.json"  # in the venv: which checkout it was installed from
ISOLATED = "-I"  # python -I: nothing from the working directory or PYTHON* variables is imported


def _isolated_env() -> dict[str, str]:
    """The environment for the commands started here: without the PYTHON* variables, which -I
    ignores in the Python it starts but which would reach that Python's own children (pip's build
    backend) and put a folder of the checked repository on their sys.path (PYTHONPATH=.)."""
    return {name: value for name, value in os.environ.items() if not name.upper().startswith("PYTHON")}


def _env(name: str) -> str:
    return os.environ.get(name, "").strip()


def _error(message: str) -> None:
    """An error annotation on the run (and a plain line for other logs)."""
    print(f"::error title=skilllint::{_escape_data(message)}", flush=True)


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def set_output(name: str, value: str) -> None:
    """Append ``name`` to the step's outputs (``$GITHUB_OUTPUT``), in the
    delimiter form so that no value can inject another output."""
    path = _env("GITHUB_OUTPUT")
    if not path:
        print(f"{name}={value}")
        return
    delimiter = f"ghadelimiter_{uuid.uuid4()}"
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")


def add_summary(markdown: str) -> None:
    path = _env("GITHUB_STEP_SUMMARY")
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(markdown)


def _runner_temp() -> Path:
    temp = _env("RUNNER_TEMP")
    if temp:
        return Path(temp)
    import tempfile

    return Path(tempfile.gettempdir())


def _venv_python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


# -- install ----------------------------------------------------------------------------------


def install() -> int:
    if sys.version_info < MIN_PYTHON:
        _error(
            f"skilllint needs Python {'.'.join(map(str, MIN_PYTHON))} or newer; this runner's is "
            f"{sys.version.split()[0]} ({sys.executable}). Add actions/setup-python before this action "
            "or set its `python` input."
        )
        return 2
    source = Path(_env("GITHUB_ACTION_PATH") or Path(__file__).resolve().parent.parent).resolve()
    if not (source / "pyproject.toml").is_file():
        _error(f"{source} is not a skilllint checkout (no pyproject.toml)")
        return 2
    venv = _runner_temp() / "skilllint-venv"
    python = _venv_python(venv)
    stamp = {"source": str(source), "python": sys.version.split()[0]}
    try:
        reuse = json.loads((venv / MARKER).read_text(encoding="utf-8")) == stamp and python.is_file()
    except (OSError, ValueError):
        reuse = False
    if reuse:  # the action already ran in this job, from the same checkout
        print(f"skilllint: reusing {venv}")
    else:
        print("::group::Install skilllint", flush=True)
        try:
            subprocess.run([sys.executable, ISOLATED, "-m", "venv", "--clear", str(venv)], env=_isolated_env(), check=True)
            subprocess.run(
                [str(python), ISOLATED, "-m", "pip", "install", "--disable-pip-version-check", "--no-input", str(source)],
                env=_isolated_env(),
                check=True,
            )
        except (OSError, subprocess.CalledProcessError) as exc:
            print("::endgroup::", flush=True)
            _error(f"installing skilllint from {source} failed: {exc}")
            return 2
        print("::endgroup::", flush=True)
        (venv / MARKER).write_text(json.dumps(stamp), encoding="utf-8")
    version = subprocess.run(
        [str(python), ISOLATED, "-m", "skilllint", "--version"], env=_isolated_env(), capture_output=True, text=True, check=False
    )
    if version.returncode != 0:
        _error(f"the installed skilllint does not start: {version.stderr.strip() or version.stdout.strip()}")
        return 2
    print(version.stdout.strip(), flush=True)
    set_output("python", str(python))
    if cache_enabled():
        prefix = cache_prefix(source)
        set_output("cache-dir", str(cache_dir()))
        set_output("cache-key", prefix + (_env("GITHUB_SHA") or _env("GITHUB_RUN_ID") or "local"))
        set_output("cache-restore-keys", prefix)
    return 0


# -- the result cache (the `cache` input) --------------------------------------------------------

CONFIG_NAMES = (".skilllint.toml", "skilllint.toml", "pyproject.toml")  # what skilllint reads settings from


def cache_enabled() -> bool:
    return _env("SKILLLINT_ACTION_CACHE").lower() == "true"


def cache_dir() -> Path:
    """Where skilllint keeps its result cache for actions/cache: in the runner's temporary folder,
    never in the checkout (nothing to commit or upload by mistake)."""
    return _runner_temp() / "skilllint-cache"


def cache_prefix(source: Path) -> str:
    """The actions/cache key of the result cache, less the commit: the runner's OS, a hash of
    skilllint's code (the action's checkout) and one of the configuration files. Each commit
    saves its own cache and restores the newest with this prefix; other code or another
    configuration starts afresh (their results would all be misses anyway, and the cache
    would carry them along)."""
    code = hashlib.sha256()
    for path in sorted((source / "skilllint").rglob("*.py")) + [source / "pyproject.toml"]:
        code.update(path.relative_to(source).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return f"skilllint-{_env('RUNNER_OS') or sys.platform}-{code.hexdigest()[:16]}-{config_digest()[:16]}-"


def config_digest() -> str:
    """A hash of the configuration files skilllint may read here: the `config` input, and every
    ``.skilllint.toml``, ``skilllint.toml`` and ``pyproject.toml`` in the working directory and
    below it (a linted tree's own) or in the folders above it up to the workspace (as
    ``hashFiles`` would; links are not followed)."""
    workspace = Path(_env("GITHUB_WORKSPACE") or os.getcwd()).resolve()
    workdir = (workspace / (_env("SKILLLINT_ACTION_WORKING_DIRECTORY") or ".")).resolve()
    found: list[Path] = []
    if _env("SKILLLINT_ACTION_CONFIG"):
        found.append(workdir / _env("SKILLLINT_ACTION_CONFIG"))
    for folder in [workdir, *workdir.parents]:
        found += [folder / name for name in CONFIG_NAMES]
        if folder == workspace or workspace not in folder.parents:
            break
    for folder, names, files in os.walk(workdir):
        names[:] = sorted(name for name in names if name not in (".git", "node_modules"))
        found += [Path(folder, name) for name in sorted(files) if name in CONFIG_NAMES]
    digest = hashlib.sha256()
    for path in dict.fromkeys(found):
        if path.is_file() and not path.is_symlink():
            digest.update(os.fsencode(path.relative_to(workspace) if workspace in path.parents else path) + b"\0")
            digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


# -- run ----------------------------------------------------------------------------------


def command(sarif: Path, json_report: Path) -> list[str]:
    """The skilllint command line for the action's inputs (environment variables)."""
    argv = [sys.executable, ISOLATED, "-m", "skilllint", "check", "--output-format", "github"]
    argv += ["--report", f"sarif={sarif}", "--report", f"json={json_report}"]
    targets = [t for t in re.split(r"[\s,]+", _env("SKILLLINT_ACTION_TARGETS")) if t]
    if targets:
        argv += ["--target", ",".join(targets)]
    if _env("SKILLLINT_ACTION_FAIL_ON"):
        argv += ["--fail-on", _env("SKILLLINT_ACTION_FAIL_ON")]
    if _env("SKILLLINT_ACTION_CONFIG"):
        argv += ["--config", _env("SKILLLINT_ACTION_CONFIG")]
    if _env("SKILLLINT_ACTION_BASELINE"):
        argv += ["--baseline", _env("SKILLLINT_ACTION_BASELINE")]
    if cache_enabled():
        argv += ["--cache-dir", str(cache_dir())]  # where actions/cache restores it and saves it from
    argv += shlex.split(_env("SKILLLINT_ACTION_ARGS"))
    # Paths: shell-like words (quote a path with spaces), never run by a shell; after `--`,
    # so a path that starts with `-` is a path.
    argv += ["--", *(shlex.split(_env("SKILLLINT_ACTION_PATHS")) or ["."])]
    return argv


MAX_CATEGORY = 100  # past this a derived category ends in a hash of the rest


def category() -> str:
    """The code scanning category of this use of the action: the ``category`` input, else one
    derived from what is linted, so that two uses in one workflow that lint different things
    do not replace each other's alerts. It is ``skilllint`` for the default inputs (as before
    the input existed), then ``/name:value`` for each of working-directory, paths, targets,
    config and args that is not its default, normalised so that spacing or order does not make
    a new category (``skilllint/paths:skills/targets:codex``)."""
    given = " ".join(_env("SKILLLINT_ACTION_CATEGORY").split())
    if given:
        return given

    def words(text: str) -> list[str]:
        try:
            return shlex.split(text)
        except ValueError:  # an unclosed quote: skilllint is not run, the category is not used
            return text.split()

    parts = ["skilllint"]
    workdir = posixpath.normpath(_env("SKILLLINT_ACTION_WORKING_DIRECTORY") or ".")
    paths = sorted({posixpath.normpath(path) for path in words(_env("SKILLLINT_ACTION_PATHS"))} - {"."})
    targets = sorted({t for t in re.split(r"[\s,]+", _env("SKILLLINT_ACTION_TARGETS")) if t})
    for name, value in (
        ("working-directory", "" if workdir == "." else workdir),
        ("paths", " ".join(paths)),
        ("targets", ",".join(targets)),
        ("config", _env("SKILLLINT_ACTION_CONFIG")),
        ("args", " ".join(words(_env("SKILLLINT_ACTION_ARGS")))),
    ):
        if value:
            parts.append(f"{name}:{' '.join(value.split())}")
    derived = "/".join(parts)
    if len(derived) > MAX_CATEGORY:
        digest = hashlib.sha256(derived.encode("utf-8", errors="surrogateescape")).hexdigest()[:12]
        derived = derived[: MAX_CATEGORY - 13] + "~" + digest
    return derived


def run() -> int:
    workdir = Path(_env("SKILLLINT_ACTION_WORKING_DIRECTORY") or ".")
    if not workdir.is_dir():
        _error(f"working-directory {workdir}: no such folder")
        set_output("exit-code", "2")
        return 0
    workdir = workdir.resolve()
    sarif = Path(_env("SKILLLINT_ACTION_SARIF_FILE") or _runner_temp() / "skilllint.sarif")
    if not sarif.is_absolute():
        sarif = workdir / sarif
    json_report = _runner_temp() / f"skilllint-{os.getpid()}.json"
    for stale in (sarif, json_report):  # a failed run must not upload an earlier run's report
        try:
            stale.unlink()
        except FileNotFoundError:
            pass
    try:
        argv = command(sarif, json_report)
    except ValueError as exc:  # shlex: an unclosed quote
        _error(f"paths or args input: {exc}")
        set_output("exit-code", "2")
        return 0
    print(f"skilllint: {shlex.join(argv[2:])}", flush=True)
    code = subprocess.run(argv, cwd=workdir, env=_isolated_env(), check=False).returncode
    summary = _read_summary(json_report)
    filed_under = category()
    results = _file_sarif(sarif, filed_under) if code in (0, 1) else None
    if code in (0, 1) and (summary is None or results is None):
        # skilllint writes both reports whenever it lints; a run that says it linted and left
        # no report did not lint (a crash, or not skilllint): never a green step without one.
        missing = " and ".join(name for name, value in (("SARIF", results), ("JSON", summary)) if value is None)
        _error(f"skilllint exited with {code} but wrote no valid {missing} report; failing the step")
        code = 2
        summary = None
    set_output("exit-code", str(code))
    if results is not None and code in (0, 1):
        set_output("sarif-file", str(sarif))
        set_output("category", filed_under)
    if summary:
        for name in ("errors", "warnings", "info"):
            set_output(name, str(summary[name]))
        set_output("findings", str(summary["total"]))
    add_summary(_summary_markdown(code, summary, results))
    return 0  # the finish step re-raises the code once the SARIF is uploaded


def _read_summary(json_report: Path) -> dict | None:
    """The ``summary`` of skilllint's JSON report (then removed), None when there is none."""
    try:
        summary = json.loads(json_report.read_text(encoding="utf-8"))["summary"]
        json_report.unlink()
    except (OSError, ValueError, KeyError, TypeError):
        return None
    names = ("errors", "warnings", "info", "total")
    if not isinstance(summary, dict) or not all(isinstance(summary.get(name), int) for name in names):
        return None
    return summary


def _file_sarif(sarif: Path, filed_under: str) -> int | None:
    """File the SARIF report's run under the code scanning category ``filed_under`` and say how
    many results it holds; None when it is missing or no SARIF 2.1.0 log. upload-sarif's own
    ``category`` applies only to a run without ``automationDetails``, and skilllint writes
    one (``skilllint/``), so the category must be written into the report itself."""
    try:
        log = json.loads(sarif.read_text(encoding="utf-8"))
        (run,) = log["runs"]
        results = run["results"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if log.get("version") != "2.1.0" or not isinstance(results, list) or not isinstance(run, dict):
        return None
    details = run.get("automationDetails")
    run["automationDetails"] = {**(details if isinstance(details, dict) else {}), "id": filed_under.rstrip("/") + "/"}
    fd, temporary = tempfile.mkstemp(prefix=f".{sarif.name}.", dir=sarif.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(log, handle, ensure_ascii=False)
        os.chmod(temporary, sarif.stat().st_mode & 0o777)
        os.replace(temporary, sarif)  # whole, or not at all: the upload step reads it next
    except OSError as exc:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        _error(f"cannot file the SARIF report under category {filed_under!r}: {exc}")
        return None
    return len(results)


def _counted(number: int, noun: str) -> str:
    """``number`` and ``noun`` in agreement (this script runs without skilllint importable)."""
    return f"{number:,} {noun if number == 1 else noun + 's'}"


def _summary_markdown(code: int, summary: dict | None, results: int | None = None) -> str:
    if summary is None:
        return f"### skilllint\n\nskilllint could not lint (exit code {code}); the step's log says why.\n\n"
    skills = summary.get("packages", 0)
    lines = ["### skilllint", ""]
    if not summary["total"]:
        lines.append(f"No problems in {skills} skill{'s' if skills != 1 else ''}.")
    else:
        lines += [
            f"{_counted(summary['total'], 'problem')} in {_counted(skills, 'skill')}: {_counted(summary['errors'], 'error')}, "
            f"{_counted(summary['warnings'], 'warning')}, {summary['info']} info (exit code {code}).",
            "",
            "| rule | findings |",
            "|---|---|",
        ]
        by_code = summary.get("by_code", {})
        lines += [f"| `{rule}` | {count} |" for rule, count in sorted(by_code.items(), key=lambda kv: (-kv[1], kv[0]))]
    baseline = summary.get("baseline")
    if isinstance(baseline, dict) and all(isinstance(baseline.get(k), int) for k in ("matched", "no_longer_occurring")):
        matched, gone = baseline["matched"], baseline["no_longer_occurring"]
        name = re.sub(r"[`\x00-\x1f\x7f]", "", str(baseline.get("file", "")))  # stays one code span
        lines += ["", f"The baseline `{name}` holds {matched:,} more finding{'s' if matched != 1 else ''} (not reported)."]
        if gone:
            lines.append(
                f"{gone:,} of its entries no longer occur{'s' if gone == 1 else ''}: "
                f"`skilllint check --write-baseline FILE` drops {'it' if gone == 1 else 'them'}."
            )
    if results is not None and results < summary["total"]:
        lines += [
            "",
            f"The SARIF report for code scanning holds the {results:,} most severe of the {summary['total']:,} "
            "findings (code scanning accepts no more in one run); the step's log has every finding.",
        ]
    return "\n".join(lines) + "\n\n"


# -- finish -------------------------------------------------------------------------------


def finish() -> int:
    text = _env("SKILLLINT_ACTION_EXIT_CODE")
    if not text.isdigit():
        _error("skilllint did not run (no exit code); see the earlier steps")
        return 2
    code = int(text)
    if code == 1:
        print("skilllint: findings at or above fail-on; failing the step")
    elif code != 0:
        print(f"skilllint: exit code {code} (usage, configuration or internal error)")
    return code


def main(argv: list[str]) -> int:
    steps = {"install": install, "run": run, "finish": finish}
    if len(argv) != 1 or argv[0] not in steps:
        print(f"usage: {Path(__file__).name} {{{','.join(steps)}}}", file=sys.stderr)
        return 2
    return steps[argv[0]]()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
