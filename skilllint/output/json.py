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
    return dumps_indented(document) + "\n"


_encode_string = json.encoder.encode_basestring  # C-accelerated; ensure_ascii=False's escaping


def dumps_indented(value) -> str:
    """``json.dumps(value, indent=2, ensure_ascii=False)``, the same text, a few times faster.

    json.dumps runs its pure-Python encoder whenever it indents (the C encoder cannot):
    a quarter of a warm run's time on the corpus, seconds for 36,000 findings. For the
    types reports hold: dicts with string keys, lists, tuples, strings, numbers, bools, None.
    """
    out: list[str] = []
    try:
        _write(value, "\n", out)
    except _Unusual:
        return json.dumps(value, indent=2, ensure_ascii=False)
    return "".join(out)


class _Unusual(Exception):
    """A value this writer leaves to json.dumps (a non-string key, an unknown type)."""


def _write(value, newline: str, out: list[str]) -> None:
    # ``newline`` is "\n" plus the current indentation: one string join per item, not per token.
    if isinstance(value, str):
        out.append(_encode_string(value))
    elif value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, int):
        out.append(int.__repr__(value))
    elif isinstance(value, float):
        out.append(json.dumps(value))  # float repr; NaN and Infinity as json.dumps writes them
    elif isinstance(value, dict):
        if not value:
            out.append("{}")
            return
        inner = newline + "  "
        separator = "{" + inner
        for key, item in value.items():
            if not isinstance(key, str):
                raise _Unusual
            out.append(separator + _encode_string(key) + ": ")
            _write(item, inner, out)
            separator = "," + inner
        out.append(newline + "}")
    elif isinstance(value, (list, tuple)):
        if not value:
            out.append("[]")
            return
        inner = newline + "  "
        separator = "[" + inner
        for item in value:
            out.append(separator)
            _write(item, inner, out)
            separator = "," + inner
        out.append(newline + "]")
    else:
        raise _Unusual
