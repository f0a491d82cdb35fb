"""The JSON report's text (skilllint.output.json.indented): orjson writes what the standard library's
``json.dumps(indent=2, ensure_ascii=False)`` writes, for everything a report holds."""

from __future__ import annotations

import json
import sys

import pytest

from skilllint.output.json import indented

DOCUMENT = {
    "version": "1",
    "diagnostics": [
        {
            "message": 'quotes " and \\ backslash, \n newline, \t tab, \r, \b, \f, \x00 \x1f \x7f controls',
            "unicode": "é ü ß 漢字 😀 \u2028 \u2029 \ufeff \u200b \U000e0041",
            "line": 0, "column": 2**31, "negative": -1, "big": 2**62,
            "fix": None, "empty_list": [], "empty_dict": {}, "nested": [[], [{}], [1, [2, []]]],
            "flags": [True, False, None],
        }
    ],
    "summary": {"by_code": {}, "": ""},
}


def test_orjson_writes_what_the_standard_library_writes():
    pytest.importorskip("orjson")
    assert indented(DOCUMENT) == json.dumps(DOCUMENT, indent=2, ensure_ascii=False)


def test_without_orjson_the_standard_library_writes_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "orjson", None)  # import orjson raises ImportError
    assert indented(DOCUMENT) == json.dumps(DOCUMENT, indent=2, ensure_ascii=False)


def test_a_lone_surrogate_goes_to_the_standard_library():
    document = {"path": "skills/bad-\udcff-name/SKILL.md"}  # a file name that is not UTF-8 (surrogateescape)
    assert indented(document) == json.dumps(document, indent=2, ensure_ascii=False)


def test_a_float_passed_as_a_subclass_is_written_by_the_standard_library():
    from skilllint.output.sarif import _clean

    document = _clean({"ratio": 1e-05, "big": 1e16, "plain": 0.5, "in": [2.0]})
    assert indented(document) == json.dumps({"ratio": 1e-05, "big": 1e16, "plain": 0.5, "in": [2.0]}, indent=2, ensure_ascii=False)
    assert '"ratio": 1e-05' in indented(document)
