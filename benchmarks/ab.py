"""skilllint at another revision against this checkout, on one command, runs alternating.

    python benchmarks/ab.py [--base HEAD] [--runs 20] [--cwd DIR] [--before CMD] -- check --output-format json --cache-dir /tmp/c-{v} PATH

On a shared or virtual machine a single timing swings by a third, so one change
is judged by alternating the two versions many times and comparing the medians
(and minima) of wall time and CPU time. ``{v}`` in an argument becomes ``base``
or ``work``, so each version keeps its own cache (a cache written by other code
is never read: the code is part of its key). The base revision is checked out
in a temporary git worktree and removed afterwards; both trees are compiled to
bytecode first, as an installed copy is. ``--before`` is a shell command run,
untimed, before every run (``{v}`` replaced too): ``rm -rf /tmp/c-{v}`` times
cold runs with a cache, an ``echo >> SKILL.md`` the run after an edit.

Not a test: run it by hand; figures depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import compileall
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


# `python -m skilllint` as from a console script: `-m` would put the working folder first on
# sys.path, and when that is this checkout both "versions" would run this checkout's code.
RUN_TREE = ["-c", "import runpy, sys; del sys.path[0]; runpy.run_module('skilllint', run_name='__main__', alter_sys=True)"]


def imported_from(tree: Path, cwd: Path) -> Path:
    env = dict(os.environ, PYTHONPATH=str(tree))
    code = "import sys; del sys.path[0]; import skilllint; print(skilllint.__file__)"
    out = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, check=True).stdout
    return Path(out.strip()).resolve()


def run_once(tree: Path, args: list[str], cwd: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the process and its children) of ``python -m skilllint ARGS``."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(tree)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, *RUN_TREE, *args], cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default="HEAD", help="the revision to compare this checkout with (default: HEAD)")
    parser.add_argument("--runs", type=int, default=20, help="runs of each version, alternating (default: 20)")
    parser.add_argument("--cwd", default=".", help="the folder to run skilllint in")
    parser.add_argument("--before", default="", help="a shell command to run, untimed, before every run ({v} too)")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="skilllint's arguments, after --")
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give skilllint's arguments after --")
    with tempfile.TemporaryDirectory(prefix="skilllint-ab-") as scratch:
        base = Path(scratch) / "base"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--quiet", "--detach", str(base), args.base], check=True)
        try:
            trees = {"base": base, "work": ROOT}
            for tree in trees.values():
                compileall.compile_dir(str(tree / "skilllint"), quiet=1)
            cwd = Path(args.cwd).resolve()
            for tree in trees.values():  # each version must run its own code, whatever the folder
                imported = imported_from(tree, cwd)
                if not imported.is_relative_to(tree):
                    sys.exit(f"ab.py: from {cwd}, the {tree} run imports skilllint from {imported}")
            for name, tree in trees.items():  # one unmeasured run each: caches filled, files in the page cache
                run_once(tree, [a.replace("{v}", name) for a in command], cwd)
            walls: dict[str, list[float]] = {name: [] for name in trees}
            cpus: dict[str, list[float]] = {name: [] for name in trees}
            for _ in range(args.runs):
                for name, tree in trees.items():
                    if args.before:
                        subprocess.run(args.before.replace("{v}", name), shell=True, cwd=cwd, check=True)
                    wall, cpu = run_once(tree, [a.replace("{v}", name) for a in command], cwd)
                    walls[name].append(wall)
                    cpus[name].append(cpu)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)], check=False)
    print(f"{args.runs} alternating runs each; base = {args.base}, work = this checkout")
    for name in walls:
        print(
            f"{name:>5}: wall median {statistics.median(walls[name]):.3f} s, min {min(walls[name]):.3f} s | "
            f"CPU median {statistics.median(cpus[name]):.3f} s, min {min(cpus[name]):.3f} s"
        )
    ratio = statistics.median(walls["work"]) / statistics.median(walls["base"])
    print(f"work / base (median wall): {ratio:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
