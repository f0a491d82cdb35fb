"""How many of skilllint's corpus findings are wrong, measured against findings read by hand.

    python benchmarks/labelled.py [--corpus ../shared/corpus] [--labels benchmarks/labelled-findings.tsv]
                                  [--json FILE] [--unread CODE] [--sample N] [--write-counts]

``labelled-findings.tsv`` holds one line per finding someone read by hand on the
default run over the real-skills corpus: ``code``, ``path:line`` (relative to the
corpus), ``verdict`` (``right``, ``wrong`` or ``borderline``) and why. Lines are
stable because the corpus is a fixed copy.

The report lists, per rule, how many findings the default run gives now, how many
of them were read, and of the read ones how many right, wrong and borderline
findings are still reported; a right one that disappeared is a possible lost
true finding and is listed, as is every wrong one still reported. ``--unread
CODE --sample N`` prints N findings of that rule nobody has read yet, spread over
the repositories, for the next reading round.

Not a test: the figures are the false-positive rates the project reports in its
issue notes, and reading new findings is work for a person. The gate that keeps them
is: ``--write-counts`` records the default run's findings per repository and rule, and
the hand-read wrong ones it still reports, in ``corpus-counts.json``;
tests/test_corpus.py fails while the run differs from that record, so a change that
adds or removes findings on the corpus updates the record in the same commit, after
the added findings are read (and a wrong finding that comes back fails it).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VERDICTS = ("right", "wrong", "borderline")


def read_labels(path: Path) -> dict[tuple[str, str], tuple[str, str]]:
    labels: dict[tuple[str, str], tuple[str, str]] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) < 3 or fields[2] not in VERDICTS:
            raise SystemExit(f"{path}:{number}: expected code<TAB>path:line<TAB>right|wrong|borderline[<TAB>why]")
        labels[(fields[0], fields[1])] = (fields[2], fields[3] if len(fields) > 3 else "")
    return labels


def current_findings(corpus: Path) -> list[tuple[str, str]]:
    """(code, path:line) of every default-run finding, paths relative to the corpus."""
    # Run as a console script would: `-m` from this checkout's folder would import it anyway,
    # but running from the corpus's parent keeps the paths in the output short and stable.
    completed = subprocess.run(
        [sys.executable, "-m", "skilllint", "check", str(corpus), "--output-format", "json", "--no-cache"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )
    if completed.returncode not in (0, 1):
        raise SystemExit(f"skilllint exited {completed.returncode}: {completed.stderr.strip()[-2000:]}")
    report = json.loads(completed.stdout)
    base = corpus.resolve()
    found = []
    for diagnostic in report["diagnostics"]:
        path = Path(diagnostic["path"])
        absolute = (ROOT / path) if not path.is_absolute() else path
        try:
            relative = Path(os.path.normpath(absolute)).relative_to(base)
        except ValueError:
            relative = path
        found.append((diagnostic["code"], f"{relative.as_posix()}:{diagnostic['line']}"))
    return found


COUNTS = Path(__file__).with_name("corpus-counts.json")


def counts(labels, found) -> dict:
    """The record the corpus gate compares: findings per repository and rule, and per rule the
    hand-read wrong findings still reported."""
    per_repository: dict[str, dict[str, int]] = {}
    for code, location in found:
        repository = location.split("/", 1)[0]
        row = per_repository.setdefault(repository, {})
        row[code] = row.get(code, 0) + 1
    present = set(found)
    wrong: dict[str, int] = {}
    for (code, location), (verdict, _) in labels.items():
        if verdict == "wrong" and (code, location) in present:
            wrong[code] = wrong.get(code, 0) + 1
    return {
        "run": "skilllint check CORPUS --output-format json --no-cache (default rules and targets, from the project root)",
        "findings": {repository: dict(sorted(row.items())) for repository, row in sorted(per_repository.items())},
        "wrong_still_reported": dict(sorted(wrong.items())),
    }


def summarise(labels, found) -> dict:
    now = collections.Counter(code for code, _ in found)
    present = set(found)
    rules: dict[str, dict] = {}
    for code in sorted(set(now) | {code for code, _ in labels}):
        row = {"findings": now.get(code, 0), "read": 0, "still_reported": {v: 0 for v in VERDICTS},
               "wrong_still_reported": [], "right_gone": []}
        for (label_code, location), (verdict, why) in labels.items():
            if label_code != code:
                continue
            row["read"] += 1
            if (code, location) in present:
                row["still_reported"][verdict] += 1
                if verdict == "wrong":
                    row["wrong_still_reported"].append(f"{location} ({why})" if why else location)
            elif verdict == "right":
                row["right_gone"].append(location)
        rules[code] = row
    return rules


def print_table(rules: dict) -> None:
    print("| rule | findings now | read, still reported | right | wrong | borderline |")
    print("|---|---|---|---|---|---|")
    for code, row in rules.items():
        kept = row["still_reported"]
        print(f"| {code} | {row['findings']} | {sum(kept.values())} | {kept['right']} | {kept['wrong']} | {kept['borderline']} |")
    for code, row in rules.items():
        for location in row["wrong_still_reported"]:
            print(f"{code} wrong, still reported: {location}")
        for location in row["right_gone"]:
            print(f"{code} read as right, no longer reported: {location}")


def unread_sample(labels, found, code: str, size: int) -> list[str]:
    """Findings of one rule nobody read, taken round-robin over the corpus's repositories."""
    by_repository: dict[str, list[str]] = collections.defaultdict(list)
    for found_code, location in found:
        if found_code == code and (code, location) not in labels:
            by_repository[location.split("/", 1)[0]].append(location)
    queues = [sorted(locations) for _, locations in sorted(by_repository.items())]
    picked: list[str] = []
    while len(picked) < size and any(queues):
        for queue in queues:
            if queue and len(picked) < size:
                # From the middle outwards, so one long file does not give the whole sample.
                picked.append(queue.pop(len(queue) // 2))
    return picked


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus")
    parser.add_argument("--labels", type=Path, default=Path(__file__).with_name("labelled-findings.tsv"))
    parser.add_argument("--json", type=Path, help="also write the per-rule figures here")
    parser.add_argument("--unread", metavar="CODE", help="list findings of this rule nobody has read")
    parser.add_argument("--sample", type=int, default=24)
    parser.add_argument("--write-counts", action="store_true", help=f"record the run's counts in {COUNTS.name} (the corpus gate)")
    options = parser.parse_args(argv)
    if not options.corpus.is_dir():
        parser.error(f"no corpus at {options.corpus}")
    labels = read_labels(options.labels)
    found = current_findings(options.corpus)
    if options.unread:
        for location in unread_sample(labels, found, options.unread, options.sample):
            print(f"{options.unread}\t{location}")
        return 0
    if options.write_counts:
        COUNTS.write_text(json.dumps(counts(labels, found), indent=1) + "\n", encoding="utf-8")
    rules = summarise(labels, found)
    print_table(rules)
    if options.json:
        options.json.write_text(json.dumps(rules, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
