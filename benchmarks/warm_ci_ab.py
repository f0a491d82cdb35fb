"""A warm CI run (benchmarks/warm_ci.py's case) at another revision against this checkout, alternating.

    python benchmarks/warm_ci_ab.py [--base HEAD] [--runs 12] [--corpus ../shared/corpus]

Whether a change made a CI run with a restored cache faster. A cache written by other code is
never read (the code is part of its key), so each version makes its own: the corpus is copied
to ``A-<version>`` and linted twice there; then ``--runs`` fresh copies per version each get that
version's ``.skilllint_cache`` (same content, new paths, mtimes and inodes: a checkout), and
``skilllint check --output-format json .`` runs in them, the versions taking turns (this kind of
machine's speed drifts within minutes). Reported: wall and CPU time (user + system, with the
background process) of each, and this checkout's over the base's (ratio of the medians, median
of the pairs' ratios); and whether both printed the same report (paths made relative).

The base revision is checked out in a temporary git worktree and removed afterwards. Bytecode
goes to a temporary ``PYTHONPYCACHEPREFIX`` per version, filled by the untimed runs in ``A``.

Not a test: run it by hand; figures depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from ab import RUN_TREE
from warm_ci import SETTLE_SECONDS, checkout

RUN = [sys.executable, *RUN_TREE]


def run(env: dict, cwd: Path) -> tuple[float, float, bytes]:
    """(wall seconds, CPU seconds with children, the report with the tree's path replaced) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([*RUN, "check", "--output-format", "json", "."], cwd=cwd, env=env, capture_output=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"warm_ci_ab.py: skilllint exited {done.returncode} in {cwd}:\n{done.stderr.decode(errors='replace')}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout.replace(str(cwd).encode(), b"<ROOT>")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default="HEAD", help="the revision to compare this checkout with (default: HEAD)")
    parser.add_argument("--runs", type=int, default=12, help="runs of each version, alternating (default 12)")
    parser.add_argument("--corpus", default=str(ROOT.parent / "shared" / "corpus"))
    args = parser.parse_args()
    corpus = Path(args.corpus).resolve()
    if args.runs < 1 or not corpus.is_dir():
        parser.error("--runs must be at least 1 and --corpus a folder")
    with tempfile.TemporaryDirectory(prefix="skilllint-warm-ci-ab-") as tmp:
        scratch = Path(tmp)
        base = scratch / "base"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--quiet", "--detach", str(base), args.base], check=True)
        try:
            trees = {"base": base, "work": ROOT}
            envs = {}
            for name, tree in trees.items():
                env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
                env["PYTHONPATH"] = str(tree)
                env["PYTHONPYCACHEPREFIX"] = str(scratch / f"bytecode-{name}")
                envs[name] = env
            made = {name: checkout(corpus, scratch / f"A-{name}") for name in trees}
            time.sleep(SETTLE_SECONDS)
            for name in trees:  # the cache a CI run leaves behind, made by each version
                run(envs[name], made[name])
                run(envs[name], made[name])
            copies = {name: [checkout(corpus, scratch / f"ci-{name}-{i}") for i in range(args.runs)] for name in trees}
            for name in trees:
                for tree in copies[name]:
                    shutil.copytree(made[name] / ".skilllint_cache", tree / ".skilllint_cache", symlinks=True)
            time.sleep(SETTLE_SECONDS)
            figures: dict[str, list[tuple[float, float]]] = {name: [] for name in trees}
            reports: dict[str, set[bytes]] = {name: set() for name in trees}
            for index in range(args.runs):
                for name in ("base", "work") if index % 2 == 0 else ("work", "base"):
                    wall, cpu, report = run(envs[name], copies[name][index])
                    figures[name].append((wall, cpu))
                    reports[name].add(report)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)], check=False)
    print(f"{args.runs} warm CI runs of each, alternating; base = {args.base}, work = this checkout")
    for name, rows in figures.items():
        walls, cpus = [r[0] for r in rows], [r[1] for r in rows]
        print(
            f"{name:>5}: wall median {statistics.median(walls):.3f} s, min {min(walls):.3f} s | "
            f"CPU median {statistics.median(cpus):.3f} s, min {min(cpus):.3f} s"
        )
    for index, label in ((0, "wall"), (1, "CPU")):
        work = [r[index] for r in figures["work"]]
        base_rows = [r[index] for r in figures["base"]]
        pairs = [w / b for w, b in zip(work, base_rows)]
        print(
            f"work / base, {label}: {statistics.median(work) / statistics.median(base_rows):.3f} (medians), "
            f"{statistics.median(pairs):.3f} (median of pairs)"
        )
    same = len(reports["base"]) == 1 and reports["base"] == reports["work"]
    print("the same report from both, every run" if same else "the reports differ (a change of speed alone must not do that)")


if __name__ == "__main__":
    main()
