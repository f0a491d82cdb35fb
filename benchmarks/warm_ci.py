"""A CI run with the result cache restored, against agnix on the same tree.

    python benchmarks/warm_ci.py [--runs N] [--corpus ../shared/corpus] [--json]

What CI does with the Action's ``cache: true``: a fresh checkout (every file has a new
mtime and inode, the repository lies at another absolute path), ``.skilllint_cache``
restored by actions/cache from an earlier run, then ``skilllint check``. Here:

1. the corpus is copied to ``A/<name>`` (a folder holding ``.git``: the cache goes to
   ``.skilllint_cache`` at the repository root, as in CI) and linted twice: the cache a
   CI run leaves behind;
2. for each of ``--runs`` rounds, the corpus is copied afresh to ``ci-N/<name>`` (same
   content, new absolute path, mtimes and inodes) and A's ``.skilllint_cache`` copied
   into it; after two seconds (a checkout, setup and install take longer than that),
   ``skilllint check --output-format json .`` and ``agnix --format json --max-files 0 .``
   run in that copy, in turns (the first round agnix first, the next skilllint first, and
   so on), timed as whole processes;
3. each CI run's JSON must equal a ``--no-cache`` run's on its copy, byte for byte, once
   the copy's absolute path is replaced by a placeholder; and the run must have filed no
   new result (every skill came from the cache).

Reported: each tool's times (median and minimum), skilllint's time over agnix's (of the
medians, of the minima, and the median of the rounds' ratios), and for reference the
``--no-cache`` run and a warm run on A (the same checkout: nothing read to key it).

Python writes no bytecode when ``PYTHONDONTWRITEBYTECODE`` is set (this machine sets it):
every run would compile skilllint's modules again, which an installed skilllint never
does (pip compiles them). The runs here write bytecode to a temporary
``PYTHONPYCACHEPREFIX`` and start after a run that filled it.

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
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from peers import _script, skilllint_command

SETTLE_SECONDS = 2.5  # skilllint files nothing changed within the last two seconds


def timed(command: list[str], cwd: Path, env: dict) -> tuple[float, bytes, int]:
    """(seconds, stdout, exit code) of one run."""
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, check=False)
    return time.perf_counter() - start, done.stdout, done.returncode


def checkout(corpus: Path, where: Path) -> Path:
    """A fresh copy of the corpus at ``where/<its name>``, made a repository root."""
    tree = where / corpus.name
    shutil.copytree(corpus, tree, symlinks=True)
    (tree / ".git").mkdir()
    return tree


def results_in(cache: Path) -> int:
    """How many results the cache holds (the lines of its results.pack after the header)."""
    from skilllint.lint.cache.folder import FORMAT
    from skilllint.lint.cache.result_pack import FILENAME

    pack = cache / f"v{FORMAT}" / FILENAME
    return pack.read_bytes().count(b"\n") - 1 if pack.is_file() else 0


def normalised(out: bytes, tree: Path) -> bytes:
    return out.replace(str(tree).encode(), b"<ROOT>")


def benchmark(args) -> dict:
    corpus = Path(args.corpus).resolve()
    agnix = _script("agnix")
    if agnix is None:
        raise SystemExit("agnix is not installed (pip install agnix, or pip install -e '.[bench]')")
    check = skilllint_command("check", "--output-format", "json", ".")
    no_cache = skilllint_command("check", "--output-format", "json", "--no-cache", ".")
    with tempfile.TemporaryDirectory(prefix="skilllint-warm-ci-") as tmp:
        base = Path(tmp)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(base / "bytecode")
        local = checkout(corpus, base / "A")
        time.sleep(SETTLE_SECONDS)
        cold_s, _, _ = timed(check, local, env)  # also fills the bytecode folder
        warm_s = [timed(check, local, env)[0] for _ in range(3)]
        restored = local / ".skilllint_cache"
        kept = results_in(restored)
        print(f"A: cold {cold_s:.2f} s, warm {statistics.median(warm_s):.2f} s, {kept} results cached", file=sys.stderr)

        trees = []
        for index in range(args.runs):
            tree = checkout(corpus, base / f"ci-{index}")
            shutil.copytree(restored, tree / ".skilllint_cache", symlinks=True)
            trees.append(tree)
        time.sleep(SETTLE_SECONDS)

        skilllint_s: list[float] = []
        agnix_s: list[float] = []
        problems: list[str] = []
        for index, tree in enumerate(trees):
            order = ("agnix", "skilllint") if index % 2 == 0 else ("skilllint", "agnix")
            for tool in order:
                if tool == "agnix":
                    seconds, _, code = timed([agnix, "--format", "json", "--max-files", "0", "."], tree, env)
                    agnix_s.append(seconds)
                    continue
                seconds, out, code = timed(check, tree, env)
                skilllint_s.append(seconds)
                if code not in (0, 1):
                    problems.append(f"round {index}: skilllint exit {code}")
                filed = results_in(tree / ".skilllint_cache") - kept
                if filed:
                    problems.append(f"round {index}: {filed} skills were not found in the restored cache")
                reference = timed(no_cache, tree, env)[1]
                if normalised(out, tree) != normalised(reference, tree):
                    problems.append(f"round {index}: the output differs from --no-cache's")
            print(f"  round {index}: skilllint {skilllint_s[-1]:.2f} s, agnix {agnix_s[-1]:.2f} s", file=sys.stderr)
        no_cache_s = timed(no_cache, trees[-1], env)[0]

    ratios = [s / a for s, a in zip(skilllint_s, agnix_s)]
    return {
        "corpus": str(corpus),
        "rounds": args.runs,
        "skilllint_ci_s": [round(s, 3) for s in skilllint_s],
        "agnix_s": [round(s, 3) for s in agnix_s],
        "skilllint_ci_median_s": round(statistics.median(skilllint_s), 3),
        "skilllint_ci_min_s": round(min(skilllint_s), 3),
        "agnix_median_s": round(statistics.median(agnix_s), 3),
        "agnix_min_s": round(min(agnix_s), 3),
        "ratio_of_medians": round(statistics.median(skilllint_s) / statistics.median(agnix_s), 3),
        "ratio_of_minima": round(min(skilllint_s) / min(agnix_s), 3),
        "median_ratio": round(statistics.median(ratios), 3),
        "skilllint_local_warm_s": round(statistics.median(warm_s), 3),
        "skilllint_cold_s": round(cold_s, 3),
        "skilllint_no_cache_s": round(no_cache_s, 3),
        "problems": problems,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="rounds, each on a fresh copy (default 7)")
    parser.add_argument("--corpus", default=str(ROOT.parent / "shared" / "corpus"))
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    report = benchmark(args)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"skilllint, CI run with a restored cache: median {report['skilllint_ci_median_s']:.2f} s, min {report['skilllint_ci_min_s']:.2f} s")
        print(f"agnix on the same trees:                 median {report['agnix_median_s']:.2f} s, min {report['agnix_min_s']:.2f} s")
        print(
            f"skilllint ÷ agnix: {report['ratio_of_medians']:.2f} (medians), {report['ratio_of_minima']:.2f} (minima), "
            f"{report['median_ratio']:.2f} (median of the rounds' ratios)"
        )
        print(
            f"for reference: skilllint cold {report['skilllint_cold_s']:.2f} s, --no-cache {report['skilllint_no_cache_s']:.2f} s, "
            f"warm in the same checkout {report['skilllint_local_warm_s']:.2f} s"
        )
        for problem in report["problems"]:
            print(f"PROBLEM: {problem}")
    if report["problems"]:
        sys.exit(1)


if __name__ == "__main__":
    main()
