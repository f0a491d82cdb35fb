"""What the security rules (SL80x and SL81x) add to a cold run of the corpus.

    python benchmarks/family_cost.py [--runs 16] [--corpus ../shared/corpus] [--jobs N] [--instructions] [--json]

Two configurations, each a file outside the tree (``--config``): the defaults (the family
on, SL806 apart, as shipped) and the same with every SL8xx rule in ``ignore``. Each
runs ``skilllint check --no-cache --output-format json CORPUS`` (a cold run: no cache read
or written), the two in turns (the first pair "on" first, the next "off" first, and so
on: this kind of machine's speed drifts within minutes, and a configuration timed in a
block of its own would be compared across different minutes), after one unmeasured run
each (files in the page cache, bytecode written).

Reported: wall time and CPU time (user + system of the process and its workers) of each,
as medians and minima, and "on" over "off": the ratio of the medians, and the median and
quartiles of the pairs' ratios. The issue's line is 1.10. ``--instructions`` also counts
the instructions of one run of each under valgrind's callgrind (one process: ``-j 1``;
some six minutes a run): the one figure here that does not move with the machine's load.
The family's scanning loops run many instructions a cycle, so it weighs less in time than
in instructions.

Not a test: run it by hand; figures depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import json
import os
import re
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

def _family() -> tuple[str, ...]:
    """The security family's codes, as the registry has them (SL801-SL806, SL810 on)."""
    sys.path.insert(0, str(ROOT))
    from skilllint.rules import BUILTIN_RULES

    return tuple(sorted(rule.code for rule in BUILTIN_RULES if rule.code.startswith("SL8")))


FAMILY = _family()
RUN = [sys.executable, *RUN_TREE]


def configurations(folder: Path) -> dict[str, Path]:
    """The two configuration files: the defaults, and the defaults less the family."""
    on, off = folder / "family-on.toml", folder / "family-off.toml"
    on.write_text("# the defaults\n", encoding="utf-8")
    off.write_text("ignore = [" + ", ".join(f'"{code}"' for code in FAMILY) + "]\n", encoding="utf-8")
    return {"on": on, "off": off}


def command(config: Path, corpus: Path, jobs: int | None) -> list[str]:
    jobs_args = ["-j", str(jobs)] if jobs else []
    return [*RUN, "check", "--no-cache", "--config", str(config), *jobs_args, "--output-format", "json", str(corpus)]


def timed(args: list[str], env: dict) -> tuple[float, float, bytes]:
    """(wall seconds, CPU seconds of the process and its children, stdout) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(args, env=env, capture_output=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"family_cost.py: skilllint exited {done.returncode}:\n{done.stderr.decode(errors='replace')}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done.stdout


def instructions(args: list[str], env: dict) -> int:
    """The instructions one run executes, as callgrind counts them."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        raise SystemExit("family_cost.py: --instructions needs valgrind")
    done = subprocess.run(
        [valgrind, "--tool=callgrind", "--callgrind-out-file=/dev/null", *args],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False,
    )  # fmt: skip
    found = re.search(rb"Collected : (\d+)", done.stderr)
    if found is None:
        raise SystemExit("family_cost.py: callgrind gave no count:\n" + done.stderr.decode(errors="replace")[-2000:])
    return int(found.group(1))


def family_findings(report: bytes) -> int:
    return sum(1 for d in json.loads(report)["diagnostics"] if d["code"] in FAMILY)


def quartiles(values: list[float]) -> tuple[float, float]:
    if len(values) < 2:
        return values[0], values[0]
    cuts = statistics.quantiles(values, n=4)
    return cuts[0], cuts[2]


def benchmark(args) -> dict:
    corpus = Path(args.corpus).resolve()
    if not corpus.is_dir():
        raise SystemExit(f"family_cost.py: no such folder: {corpus}")
    with tempfile.TemporaryDirectory(prefix="skilllint-family-") as tmp:
        scratch = Path(tmp)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(scratch / "bytecode")  # an installed skilllint's modules are compiled
        env["PYTHONPATH"] = str(ROOT)  # this checkout's skilllint
        configs = configurations(scratch)
        commands = {label: command(path, corpus, args.jobs) for label, path in configs.items()}
        found = {label: family_findings(timed(cmd, env)[2]) for label, cmd in commands.items()}
        if found["off"] or not found["on"]:
            raise SystemExit(f"family_cost.py: the family's findings, on {found['on']}, off {found['off']}: not what was configured")
        wall: dict[str, list[float]] = {"on": [], "off": []}
        cpu: dict[str, list[float]] = {"on": [], "off": []}
        for index in range(args.runs):
            for label in ("on", "off") if index % 2 == 0 else ("off", "on"):
                seconds, used, _ = timed(commands[label], env)
                wall[label].append(seconds)
                cpu[label].append(used)
            print(
                f"  pair {index + 1}: on {wall['on'][-1]:.2f} s ({cpu['on'][-1]:.2f} CPU), "
                f"off {wall['off'][-1]:.2f} s ({cpu['off'][-1]:.2f} CPU)",
                file=sys.stderr,
            )
        report: dict = {"corpus": str(corpus), "pairs": args.runs, "jobs": args.jobs, "family_findings": found["on"]}
        for name, figures in (("wall", wall), ("cpu", cpu)):
            ratios = [a / b for a, b in zip(figures["on"], figures["off"])]
            low, high = quartiles(ratios)
            report[name] = {
                "on_median_s": round(statistics.median(figures["on"]), 3),
                "off_median_s": round(statistics.median(figures["off"]), 3),
                "on_min_s": round(min(figures["on"]), 3),
                "off_min_s": round(min(figures["off"]), 3),
                "ratio_of_medians": round(statistics.median(figures["on"]) / statistics.median(figures["off"]), 3),
                "ratio_of_minima": round(min(figures["on"]) / min(figures["off"]), 3),
                "median_pair_ratio": round(statistics.median(ratios), 3),
                "pair_ratio_quartiles": [round(low, 3), round(high, 3)],
            }
        if args.instructions:
            counted = {label: instructions(command(configs[label], corpus, 1), env) for label in ("on", "off")}
            report["instructions"] = {**counted, "ratio": round(counted["on"] / counted["off"], 4)}
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=16, help="pairs of runs (default 16)")
    parser.add_argument("--corpus", default=str(ROOT.parent / "shared" / "corpus"))
    parser.add_argument("--jobs", type=int, default=None, help="skilllint's -j (default: its own choice)")
    parser.add_argument("--instructions", action="store_true", help="also count instructions under callgrind (slow)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    report = benchmark(args)
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"{report['pairs']} pairs of cold runs of {report['corpus']} ({report['family_findings']} SL8xx findings)")
    for name in ("wall", "cpu"):
        row = report[name]
        low, high = row["pair_ratio_quartiles"]
        print(
            f"{name:>4}: on {row['on_median_s']:.2f} s (min {row['on_min_s']:.2f}), off {row['off_median_s']:.2f} s "
            f"(min {row['off_min_s']:.2f}); on/off {row['ratio_of_medians']:.3f} (medians), {row['ratio_of_minima']:.3f} "
            f"(minima), {row['median_pair_ratio']:.3f} (median of pairs; quartiles {low:.3f}-{high:.3f})"
        )
    if "instructions" in report:
        counted = report["instructions"]
        print(f"instructions (callgrind, -j 1): on {counted['on'] / 1e9:.2f} G, off {counted['off'] / 1e9:.2f} G: {counted['ratio']:.4f}")


if __name__ == "__main__":
    main()
