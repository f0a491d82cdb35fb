"""The real corpus: a full portability audit runs clean of internal errors."""

import json

from conftest import run_cli


def test_target_all_over_the_corpus_has_no_internal_error(corpus):
    code, out, err = run_cli("check", str(corpus), "--target", "all", "--output-format", "json", "--select", "ALL")
    assert code in (0, 1), err
    assert "internal error" not in err and "Traceback" not in err
    report = json.loads(out)
    assert report["summary"]["packages"] >= 1021


def test_every_hand_read_finding_names_a_line_of_the_corpus(corpus):
    """benchmarks/labelled-findings.tsv is the record of findings read by hand; a label that names no
    line of the fixed corpus copy would silently stop counting."""
    import importlib.util
    from pathlib import Path

    script = Path(__file__).resolve().parent.parent / "benchmarks" / "labelled.py"
    spec = importlib.util.spec_from_file_location("labelled", script)
    labelled = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(labelled)
    labels = labelled.read_labels(script.with_name("labelled-findings.tsv"))
    assert len(labels) >= 300
    for code, location in labels:
        path, _, line = location.rpartition(":")
        target = corpus / path
        assert target.is_file(), location
        assert 1 <= int(line) <= max(1, len(target.read_bytes().splitlines())), location
