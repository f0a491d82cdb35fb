"""What each security rule (SL801-SL805) costs when the corpus's packages are linted, in one process.

    python benchmarks/family_rules.py [--corpus ../shared/corpus] [--rounds 1] [--only all SL803 ...]

``family_cost.py`` times whole runs, and this machine's speed drifts by ±10 % between two
runs of a few seconds: a change of a few per cent to one rule is lost in that. Here each
package of the corpus is linted twice in turn, on fresh package objects: once with every
package rule the configuration enables less the family, once with the same plus one rule of
the family (or all of it: ``all``), the order alternating from one package to the next. Both
timings of a package (CPU time of this process) are a few milliseconds apart, so drift falls
on both alike; the sums over the corpus give what the rule adds and the ratio to the rest.

What a rule shares with the others of the family (the package's texts, read once for
SL801-SL803) is counted for each rule alone, so the rules' figures add up to more than
``all``'s. Not measured here: discovery, the catalogs, the report, process start-up and
workers, which a whole run adds to the rest's time (so a whole run's ratio is lower).
SL806 is opt-in and left out unless the configuration enables it.

Not a test: run it by hand; figures depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from skilllint.config.settings import load_settings  # noqa: E402
from skilllint.lint.package_lint import lint_package  # noqa: E402
from skilllint.registry import registry  # noqa: E402
from skilllint.discovery.walk import discover  # noqa: E402
from skilllint.skill.package import SkillPackage  # noqa: E402

FAMILY_PREFIX = "SL8"
WARM_UP_PACKAGES = 50  # linted first with every rule: imports and compiled patterns are not timed


def measure(corpus: Path, only: list[str], rounds: int) -> list[tuple[str, float, float]]:
    """(label, seconds with, seconds without) for each variant and round."""
    settings = load_settings(registry(), corpus)
    rules = [rule() for rule in settings.enabled_rules()]
    package_rules = [r for r in rules if not r.catalog_rule]
    rest = [r for r in package_rules if not r.code.startswith(FAMILY_PREFIX)]
    family = [r for r in package_rules if r.code.startswith(FAMILY_PREFIX)]
    variants = [("all", package_rules)] + [(r.code, rest + [r]) for r in family]
    if only:
        variants = [v for v in variants if v[0] in only]
    found = discover([str(corpus)], corpus)
    max_bytes = settings.read_cap()

    def fresh(item) -> SkillPackage:
        return SkillPackage(item.root, item.lint_root, max_bytes, item.real, item.names, found.listings)

    for item in found.packages[:WARM_UP_PACKAGES]:
        lint_package(fresh(item), package_rules, settings)
    results = []
    for round_index in range(rounds):
        for label, with_rules in variants:
            spent = {"with": 0.0, "without": 0.0}
            for index, item in enumerate(found.packages):
                order = ("with", "without") if (index + round_index) % 2 == 0 else ("without", "with")
                for which in order:
                    package = fresh(item)
                    start = time.process_time()
                    lint_package(package, with_rules if which == "with" else rest, settings)
                    spent[which] += time.process_time() - start
            results.append((label, spent["with"], spent["without"]))
            print(
                f"{label}: +{(spent['with'] - spent['without']) * 1000:.0f} ms over {spent['without']:.2f} s "
                f"of the other package rules ({spent['with'] / spent['without']:.3f})",
                flush=True,
            )
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", default=str(ROOT.parent / "shared" / "corpus"))
    parser.add_argument("--rounds", type=int, default=1, help="times each variant is measured (default 1)")
    parser.add_argument("--only", nargs="*", default=[], help="variants to measure: all, SL801, … (default: every one)")
    args = parser.parse_args()
    corpus = Path(args.corpus).resolve()
    if not corpus.is_dir():
        raise SystemExit(f"family_rules.py: no such folder: {corpus}")
    measure(corpus, args.only, args.rounds)


if __name__ == "__main__":
    main()
