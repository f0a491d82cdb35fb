"""Adversarial inputs, end to end: each a skill whose SKILL.md, reference, shell script and
Python script repeat one token up to a size, linted with every rule and target.

A hang or a super-linear pass shows as a time that grows faster than the size: run it at two
sizes and compare. Not part of the test suite (it takes minutes); tests/test_regex_linear.py and
the hostile tests pin the cases found this way.

    .venv/bin/python benchmarks/adversarial.py [--size 100000] [--timeout 60] [--only TOKEN...]

Prints one line per token, slowest first: seconds, peak RSS of the run, output bytes.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

# Characters and phrases the scanners give meaning to, each repeated: openers without closers,
# runs of quantified characters, and words the rules look for around paths and commands.
TOKENS = [
    "`", "``", "*", "[", "](", "[a](", "<!--", "<!-- skilllint-disable ", "#", " ", "\t", "a/", "${", "<<EOF\n",
    "e.g. ", ". ", "| ", "- ", "1. ", "{", "<", "$(", "'", '"', "\\", "a*", "references/", "scripts/a", "/", "../",
    "~/", ":", "- [", "**", "__", "_", "!", "[^", "]: ", "http://", "/Users/a", "C:\\Users\\", "input(", "npx ",
    "curl ", "\n", "\n\n", "a\n", "# a\n", "> ", "    ", "$1", "%", "@", "(", ")", "a.md ", "`a/b.md` ",
    "[x](a.md) ", "e.g. `scripts/x.py` ", "contents\t", "table of contents", "<a id=", "{#", "Use when ", "---\n",
    "run `a` ", "run `", "a` `b", "```\n", "~~~\n", "```sh\n$ a\n", '<a href="', "<<-EOF ", "${a", "$((", "#!",
    "import ", "from . import ", 'Path("a") / "b" / ', 'os.path.join(a, "b", ', "[!NOTE]", "|---|", "Keywords: ",
    "**a**: ", "a:\n  - ", "\u200b", "\u202e",
]  # fmt: skip

HEAD = "---\nname: s\ndescription: A test. Use when testing.\n---\n# s\n\nRead [r](references/r.md) when needed. Run `scripts/x.sh`.\n\n"


def make_case(folder: str, token: str, size: int) -> str:
    skill = os.path.join(folder, "s")
    os.makedirs(os.path.join(skill, "references"))
    os.makedirs(os.path.join(skill, "scripts"))
    body = (token * (size // len(token) + 1))[:size]
    files = {"SKILL.md": HEAD + body + "\n", "references/r.md": "# r\n\n" + body + "\n", "scripts/x.sh": "#!/bin/sh\n" + body + "\n", "scripts/x.py": body + "\n"}
    for rel, text in files.items():
        with open(os.path.join(skill, rel), "w", encoding="utf-8", errors="surrogatepass") as handle:
            handle.write(text)
    return skill


def run_case(skilllint: str, skill: str, timeout: float) -> tuple[float, int, int, str]:
    """(seconds, peak RSS in KiB of the child, output bytes, outcome)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    try:
        done = subprocess.run(
            [skilllint, "check", "--no-cache", "--target", "all", "--select", "ALL", "--output-format", "json", "--exit-zero", skill],
            capture_output=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return timeout, 0, 0, "TIMEOUT"
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    outcome = "ok" if done.returncode == 0 and b"Traceback" not in done.stderr else f"exit {done.returncode}"
    return seconds, max(peak, before), len(done.stdout), outcome


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=100_000, help="characters of each repeated body")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds before a run counts as hung")
    parser.add_argument("--only", nargs="*", help="tokens to run (default: all)")
    beside = os.path.join(os.path.dirname(sys.executable), "skilllint")  # this venv's console script
    parser.add_argument("--skilllint", default=beside if os.path.exists(beside) else shutil.which("skilllint") or "skilllint")
    args = parser.parse_args()
    rows = []
    for token in args.only or TOKENS:
        folder = tempfile.mkdtemp(prefix="skilllint-adversarial-")
        try:
            seconds, peak, out, outcome = run_case(args.skilllint, make_case(folder, token, args.size), args.timeout)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        rows.append((seconds, token, peak, out, outcome))
        print(f"{seconds:7.2f} s  {outcome:8} out {out:>10,} B  {token!r}", file=sys.stderr, flush=True)
    print("\nslowest first (peak RSS is the largest child so far):")
    for seconds, token, peak, out, outcome in sorted(rows, reverse=True):
        print(f"{seconds:7.2f} s  {peak / 1024:7.1f} MiB  {out:>10,} B  {outcome:8} {token!r}")
    return 1 if any(row[4] != "ok" for row in rows) else 0


if __name__ == "__main__":
    raise SystemExit(main())
