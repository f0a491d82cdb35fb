"""Catalog rules at scale: SL510 (description overlap) and the whole SL5xx family on generated catalogs.

    python benchmarks/catalog_scale.py [--sizes 1000,10000] [--corpus ../shared/corpus]

Descriptions are drawn from the real corpus (every description, cycled, with the
skill's number woven in so no two are identical), so the overlap index sees
real vocabulary. For each size it reports, each in a fresh process:

* ``overlap``: SL510's candidate search alone (``catalog.overlap.find_overlaps``);
* ``check SL5``: ``skilllint check --select SL5 --target codex`` over the
  generated tree (discovery, parsing and every catalog rule);

with wall time and peak resident memory. Not a test: run it by hand.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def corpus_descriptions(corpus: Path) -> list[str]:
    sys.path.insert(0, str(ROOT))
    from skilllint.config.settings import load_settings
    from skilllint.discovery.walk import discover
    from skilllint.skill.package import SkillPackage
    from skilllint.registry import registry
    from skilllint.targets import TARGETS

    load_settings(registry(), corpus)
    texts = []
    for item in discover([str(corpus)], corpus).packages:
        mapping = SkillPackage(item.root, item.lint_root).view(TARGETS["codex"]).mapping or {}
        if isinstance(mapping.get("description"), str) and mapping["description"].strip():
            texts.append(" ".join(mapping["description"].split()))
    return texts


def generate(base: Path, size: int, texts: list[str]) -> Path:
    root = base / f"repo-{size}"
    skills = root / ".agents" / "skills"
    (root / ".git").mkdir(parents=True)
    for i in range(size):
        folder = skills / f"skill-{i:05}"
        folder.mkdir(parents=True)
        words = texts[i % len(texts)].split()
        words.insert(len(words) // 2, f"variant{i}")
        description = " ".join(words)[:1000].replace('"', "'")
        (folder / "SKILL.md").write_text(f'---\nname: skill-{i:05}\ndescription: "{description}"\n---\n# Skill {i}\n')
    return root


def measure(code: str) -> dict:
    """Run ``code`` in a fresh interpreter; its wall time and peak RSS."""
    wrapper = (
        "import json, resource, sys, time\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "start = time.perf_counter()\n"
        f"{code}\n"
        "print(json.dumps({'seconds': time.perf_counter() - start, "
        "'peak_mib': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 'result': result}))\n"
    )
    out = subprocess.run([sys.executable, "-c", wrapper], capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--corpus", default=str(ROOT.parent / "shared" / "corpus"))
    args = parser.parse_args()
    texts = corpus_descriptions(Path(args.corpus))
    print(f"{len(texts)} corpus descriptions; python {sys.version.split()[0]}; {os.cpu_count()} cores")
    print(f"{'skills':>7}  {'what':<12} {'seconds':>8} {'peak MiB':>9}  result")
    with tempfile.TemporaryDirectory() as tmp:
        for size in (int(s) for s in args.sizes.split(",")):
            root = generate(Path(tmp), size, texts)
            source = Path(tmp) / "descriptions.json"
            source.write_text(json.dumps(texts))
            overlap = measure(
                "from skilllint.catalog.overlap import find_overlaps\n"
                f"corpus = json.loads(open({str(source)!r}).read())\n"
                f"texts = [corpus[i % len(corpus)] + ' variant' + str(i) for i in range({size})]\n"
                "start = time.perf_counter()\n"
                "result = len(find_overlaps(texts, threshold=0.9))"
            )
            check = measure(
                "import contextlib, io, os\n"
                "from skilllint.cli.main import main\n"
                f"os.chdir({str(root)!r})\n"
                "buffer = io.StringIO()\n"
                "with contextlib.redirect_stdout(buffer):\n"
                "    main(['check', '--select', 'SL5', '--target', 'codex', '--statistics', '--exit-zero', '.'])\n"
                "result = buffer.getvalue().strip().splitlines()[-1]"
            )
            print(f"{size:>7}  {'overlap':<12} {overlap['seconds']:>8.2f} {overlap['peak_mib']:>9.0f}  {overlap['result']} near-duplicates")
            print(f"{size:>7}  {'check SL5':<12} {check['seconds']:>8.2f} {check['peak_mib']:>9.0f}  {check['result']}")
    print(f"(this process: peak {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
