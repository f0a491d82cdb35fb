"""The real corpus: a full portability audit runs clean of internal errors."""

import json

from conftest import run_cli


def test_target_all_over_the_corpus_has_no_internal_error(corpus):
    code, out, err = run_cli("check", str(corpus), "--target", "all", "--output-format", "json", "--select", "ALL")
    assert code in (0, 1), err
    assert "internal error" not in err and "Traceback" not in err
    report = json.loads(out)
    assert report["summary"]["packages"] >= 1021
