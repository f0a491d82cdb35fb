"""How many attacks the security rules (SL8xx) catch, and how many look-alikes they flag.

    python benchmarks/security_recall.py [--security ../shared/security] [--corpus ../shared/corpus] [--json]

Three measures, each from a run of ``skilllint check --select SL8 --no-cache`` (the family as
shipped, SL806 opt-in included by the selection):

- the attack classes of tests/test_security_behaviour.py (each written here as a skill of its
  own, with its benign look-alikes beside it): per class, attacks caught and look-alikes flagged;
- the evaluation skills under ``--security`` (cisco-ai-defense/skill-scanner's, labelled by their
  authors: ``_expected.json``'s ``expected_safe``, else the ``malicious/``/``safe/`` folder):
  malicious skills with at least one finding, safe ones with any;
- the corpus of real skills: findings per rule (every one of them a false alarm unless read as
  right in benchmarks/labelled-findings.tsv).

The files under ``--security`` are hostile: they are linted as text, never run or imported.
Not a test: the figures are what the issue notes report.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def lint(path: Path) -> list[dict]:
    proc = subprocess.run(
        [sys.executable, "-m", "skilllint", "check", "--select", "SL8", "--no-cache", "--target", "agentskills", "--output-format", "json", str(path)],
        capture_output=True, text=True, cwd=path if path.is_dir() else path.parent, env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )
    if proc.returncode not in (0, 1):
        raise SystemExit(f"skilllint failed on {path}: {proc.stderr[-2000:]}")
    return json.loads(proc.stdout)["diagnostics"]


def fixture_classes() -> dict[str, tuple[dict[str, tuple[str, str]], dict[str, tuple[str, str]]]]:
    """Each class: (attacks, look-alikes), each a name -> (fence language, code)."""
    sys.path.insert(0, str(ROOT / "tests"))
    import test_security_behaviour as cases

    shell = lambda table: {name: ("bash", code) for name, code in table.items()}  # noqa: E731
    return {
        "SL810 shell exfiltration": (shell(cases.SHELL_EXFIL), shell(cases.SHELL_BENIGN)),
        "SL812 remote shell": (cases.REMOTE_SHELLS, cases.REMOTE_BENIGN),
        "SL813 destructive command": (cases.DESTRUCTIVE, cases.DESTRUCTIVE_BENIGN),
        "SL815 safety bypass": (cases.BYPASSES, cases.BYPASS_BENIGN),
    }


def measure_fixtures() -> dict:
    front = "---\nname: {name}\ndescription: A fixture. Use when measuring.\n---\n\n# Fixture\n\n```{lang}\n{code}\n```\n"
    report = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        folders = {}
        for label, (attacks, benign) in fixture_classes().items():
            for kind, table in (("attack", attacks), ("benign", benign)):
                for name, (lang, code) in table.items():
                    folder = f"{len(folders):03d}-{name}"
                    (root / folder).mkdir()
                    (root / folder / "SKILL.md").write_text(front.format(name=f"case-{len(folders):03d}", lang=lang, code=code), encoding="utf-8")
                    folders[folder] = (label, kind)
        flagged = {Path(d["path"]).parent.name for d in lint(root)}
        for folder, (label, kind) in folders.items():
            row = report.setdefault(label, {"attacks": 0, "caught": 0, "benign": 0, "false_alarms": 0})
            if kind == "attack":
                row["attacks"] += 1
                row["caught"] += folder in flagged
            else:
                row["benign"] += 1
                row["false_alarms"] += folder in flagged
    return report


def measure_evals(security: Path) -> dict:
    rows = {"malicious": 0, "malicious_caught": 0, "safe": 0, "safe_flagged": 0, "skills": []}
    for skill_md in sorted(security.rglob("SKILL.md")):
        folder = skill_md.parent
        expected = folder / "_expected.json"
        if expected.is_file():
            safe = bool(json.loads(expected.read_text(encoding="utf-8")).get("expected_safe"))
        elif folder.parent.name in ("malicious", "safe"):
            safe = folder.parent.name == "safe"
        else:
            continue
        codes = sorted({d["code"] for d in lint(folder)})
        kind = "safe" if safe else "malicious"
        rows[kind] += 1
        rows["safe_flagged" if safe else "malicious_caught"] += bool(codes)
        rows["skills"].append({"skill": str(folder.relative_to(security)), "safe": safe, "codes": codes})
    return rows


def measure_corpus(corpus: Path) -> dict:
    return dict(sorted(collections.Counter(d["code"] for d in lint(corpus)).items()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--security", default=str(ROOT.parent / "shared" / "security"))
    parser.add_argument("--corpus", default=str(ROOT.parent / "shared" / "corpus"))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = {"fixtures": measure_fixtures()}
    if Path(args.security).is_dir():
        result["evaluation_skills"] = measure_evals(Path(args.security))
    if Path(args.corpus).is_dir():
        result["corpus_findings"] = measure_corpus(Path(args.corpus))
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print("| class | attacks caught | look-alikes flagged |\n|---|---|---|")
    for label, row in result["fixtures"].items():
        print(f"| {label} | {row['caught']} of {row['attacks']} | {row['false_alarms']} of {row['benign']} |")
    evals = result.get("evaluation_skills")
    if evals:
        print(f"\nevaluation skills: malicious caught {evals['malicious_caught']} of {evals['malicious']}, "
              f"safe flagged {evals['safe_flagged']} of {evals['safe']}")
        for row in evals["skills"]:
            print(f"  {'safe' if row['safe'] else 'malicious':9} {row['skill']}: {', '.join(row['codes']) or '-'}")
    if "corpus_findings" in result:
        print("\ncorpus findings per rule:", ", ".join(f"{code} {n}" for code, n in result["corpus_findings"].items()) or "none")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
