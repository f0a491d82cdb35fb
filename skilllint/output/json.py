"""The JSON output: a versioned contract described by
``skilllint/schemas/output.schema.json`` (tested against it)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from .. import __version__
from ..diagnostics import Diagnostic
from . import counts, display_path

SCHEMA_VERSION = "1"


def diagnostic_to_dict(diag: Diagnostic, cwd: Path) -> dict:
    fix = None
    if diag.fix is not None:
        fix = {
            "message": diag.fix.message,
            "applicability": diag.fix.applicability,
            "edits": [
                {
                    "path": display_path(edit.path, cwd),
                    "line": edit.span.line,
                    "column": edit.span.column,
                    "end_line": edit.span.end_line,
                    "end_column": edit.span.end_column,
                    "content": edit.text,
                }
                for edit in diag.fix.edits
            ],
        }
    item = {
        "code": diag.code,
        "name": diag.name,
        "severity": str(diag.severity),
        "targets": list(diag.targets),
        "message": diag.message,
        "path": display_path(diag.path, cwd),
        "line": diag.span.line,
        "column": diag.span.column,
        "end_line": diag.span.end_line,
        "end_column": diag.span.end_column,
        "fix": fix,
        "related": [
            {
                "message": r.message,
                "path": display_path(r.path, cwd),
                "line": r.span.line,
                "column": r.span.column,
            }
            for r in diag.related
        ],
    }
    if diag.left_out:
        item["left_out"] = diag.left_out
    return item


def render_json(result, cwd: Path) -> str:
    by_code = Counter(d.code for d in result.diagnostics)
    document = {
        "version": SCHEMA_VERSION,
        "tool": {"name": "skilllint", "version": __version__},
        "diagnostics": [diagnostic_to_dict(d, cwd) for d in result.diagnostics],
        "summary": {
            **counts(result.diagnostics),
            "packages": result.packages,
            "by_code": dict(sorted(by_code.items())),
            "left_out": sum(getattr(result, "left_out", {}).values()),
            "left_out_by_code": dict(sorted(getattr(result, "left_out", {}).items())),
        },
    }
    baseline = getattr(result, "baseline", None)
    if baseline is not None:
        document["summary"]["baseline"] = {"file": baseline.shown, "matched": baseline.matched, "no_longer_occurring": baseline.unmatched}
    return indented(document) + "\n"


def json_writer():
    """orjson, where it is installed; else None."""
    try:
        import orjson
    except ImportError:
        return None
    return orjson


def indented(document: dict) -> str:
    """``json.dumps(document, indent=2, ensure_ascii=False)``, written by orjson where it is installed:
    the same text for what a report holds (strings, ints, bools, lists, dicts, None), an eighth of
    the time (the standard library's encoder is pure Python when it indents; a warm run's report
    was a tenth of the run). What orjson refuses goes to the standard library: a lone surrogate (a
    file name that is not UTF-8), and a float subclass, which is how a caller passes a float
    (orjson writes ``1e-05`` as ``0.00001``)."""
    orjson = json_writer()
    if orjson is None:
        return json.dumps(document, indent=2, ensure_ascii=False)
    try:
        return orjson.dumps(document, option=orjson.OPT_INDENT_2).decode("utf-8")
    except TypeError:  # orjson.JSONEncodeError is one
        return json.dumps(document, indent=2, ensure_ascii=False)
