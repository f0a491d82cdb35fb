"""What skilllint's own .gitignore matcher saves a run, against handing every line to pathspec.

    python benchmarks/gitignore_matcher.py [--runs 25] [--skills 100]

skilllint matches a .gitignore's common lines itself (skilllint/discovery/gitignore.py:
``_GitignoreLines``) and imports pathspec (12-17 ms) only for the rest. Whether that code pays
for itself is measured here on the case a user waits for most often: pre-commit on one edited
SKILL.md, cache warm, in a git repository of ``--skills`` skills in ``.claude/skills`` whose
.gitignore holds the lines most hold (``*.pyc``, ``.env``, ``dist/``, ``node_modules/``).
The two variants are the same checkout: "pathspec" replaces the matcher's choice with pathspec's
for every line that is not a folder name, before the command line runs. Runs alternate; each
variant keeps its own cache (the code is part of its key). Reported: medians and minima of wall
and CPU time, and pathspec over own.

Not a test: run it by hand; figures depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GITIGNORE = "*.pyc\n.env\ndist/\nnode_modules/\n.DS_Store\n"
RUN = "import runpy, sys; del sys.path[0]; {prelude}runpy.run_module('skilllint', run_name='__main__', alter_sys=True)"
# every line that is not a folder name goes to pathspec, as it did before skilllint matched them
PATHSPEC_ONLY = (
    "from skilllint.discovery import gitignore as g; "
    "_own = g._spec_of_lines; "
    "g._spec_of_lines = lambda lines: _own(lines) if isinstance(_own(lines), (g._FolderNames, type(None))) else g.gitignore_spec(lines); "
)


def make_repository(folder: Path, skills: int) -> None:
    for number in range(skills):
        skill = folder / ".claude" / "skills" / f"s{number}"
        skill.mkdir(parents=True)
        (skill / "SKILL.md").write_text(
            f"---\nname: s{number}\ndescription: Does thing {number} with files. Use when asked about thing {number}.\n---\n# S{number}\n\nRun the steps.\n",
            encoding="utf-8",
        )
    (folder / ".gitignore").write_text(GITIGNORE, encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(folder)], check=True)


def run_once(prelude: str, folder: Path, cache: Path) -> tuple[float, float]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    args = ["check", "--cache-dir", str(cache), ".claude/skills/s7/SKILL.md"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", RUN.format(prelude=prelude), *args], cwd=folder, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=25, help="runs of each variant, alternating (default: 25)")
    parser.add_argument("--skills", type=int, default=100, help="skills in the repository (default: 100)")
    args = parser.parse_args()
    variants = {"own": "", "pathspec": PATHSPEC_ONLY}
    with tempfile.TemporaryDirectory(prefix="skilllint-gitignore-") as scratch:
        folder = Path(scratch) / "repo"
        make_repository(folder, args.skills)
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in variants}
        for name, prelude in variants.items():  # warm each variant's cache, untimed
            run_once(prelude, folder, Path(scratch) / f"cache-{name}")
        for _ in range(args.runs):
            for name, prelude in variants.items():
                times[name].append(run_once(prelude, folder, Path(scratch) / f"cache-{name}"))
    print(f"{args.runs} alternating runs each: pre-commit on one SKILL.md of {args.skills}, cache warm, .gitignore {GITIGNORE!r}")
    for name, found in times.items():
        walls, cpus = [w for w, _ in found], [c for _, c in found]
        print(f" {name:8}: wall median {statistics.median(walls):.3f} s, min {min(walls):.3f} s | CPU median {statistics.median(cpus):.3f} s, min {min(cpus):.3f} s")
    own, other = times["own"], times["pathspec"]
    print(f"pathspec / own: wall median {statistics.median(w for w, _ in other) / statistics.median(w for w, _ in own):.3f}, "
          f"CPU median {statistics.median(c for _, c in other) / statistics.median(c for _, c in own):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
