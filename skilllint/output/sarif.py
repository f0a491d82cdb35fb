"""SARIF 2.1.0 for GitHub code scanning and other SARIF viewers.

One run: ``tool.driver.rules`` lists every enabled rule with its rule-book page
as help; each result names its rule by ``ruleId`` and ``ruleIndex``, places
itself with a URI relative to ``%SRCROOT%`` (the git work tree holding the
working directory, else the working directory) and carries a
``partialFingerprints`` entry computed from the flagged text, never from the
line number, so an alert keeps its identity when unrelated lines move.

Code scanning rejects a whole upload that breaks one of its limits, so a run
holds at most :data:`MAX_RESULTS` results (the most severe; the invocation's
notifications and :func:`left_out_note` say what was left out) and a result at
most :data:`MAX_RELATED_LOCATIONS` related locations.

Validated in the tests against the official OASIS schema (errata 01).
"""

from __future__ import annotations

import hashlib
import os
import re
from collections import Counter
from pathlib import Path
from urllib.parse import quote

from .. import HOMEPAGE, __version__
from ..diagnostics import Diagnostic, Severity, Span, counted
from ..fsafe import real_path_or_given
from . import root_relative, source_root, valid_unicode
from .json import indented

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SRCROOT = "%SRCROOT%"
# The run's identity for code scanning; the category before the last `/` must
# match the upload's (`category: skilllint` in the Action). upload-sarif keeps
# an id the file already has.
AUTOMATION_ID = "skilllint/"
# A rule's helpUri: its rule-book page in the project's repository (skilllint.HOMEPAGE), with
# {folder} its rule-book folder (SL511-duplicate-name). Without a home there is none: the help
# text is the page itself, and `skilllint rule CODE` prints it offline.
RULEBOOK_PATH = "/blob/main/rulebook/{folder}/README.md"
FINGERPRINT_KEY = "skilllint/v1"

_LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}

# GitHub code scanning's maximum values for an uploaded SARIF file ("SARIF results exceed
# limits" in its documentation): more results in one run, or more locations in one result,
# and the upload is rejected whole.
MAX_RESULTS = 25_000
MAX_RELATED_LOCATIONS = 1_000


# -- message text ----------------------------------------------------------------


def message_text(text: str) -> str:
    """Plain text as a result's SARIF message: ``{`` and ``}`` doubled (SARIF
    2.1.0 §3.11.5: a viewer would otherwise read ``{0}`` as a placeholder)."""
    return text.replace("{", "{{").replace("}", "}}")


def _link_text(text: str) -> str:
    """Text inside an embedded link ``[text](id)``: ``\\``, ``[`` and ``]``
    escaped with a backslash (§3.11.6), then braces doubled."""
    return message_text(re.sub(r"([\\\[\]])", r"\\\1", text))


# -- locations -------------------------------------------------------------------


def _artifact(path: Path, root: Path) -> dict:
    rel = root_relative(path, root)
    if rel is None:  # outside the repository: an absolute file URI, no base
        return {"uri": Path(real_path_or_given(path)).as_uri()}  # (a link there may not be readable)
    # Percent-encode the name's bytes (a non-UTF-8 name keeps them exactly).
    return {"uri": quote(os.fsencode(rel), safe="/"), "uriBaseId": SRCROOT}


def _region(span: Span, exact: bool = False) -> dict:
    """A SARIF region (1-based; endColumn one past the last character, like
    Span). A point span has no end unless ``exact`` (a fix's insertion point)."""
    line, column = max(1, span.line), max(1, span.column)
    region = {"startLine": line, "startColumn": column}
    end = (max(1, span.end_line), max(1, span.end_column))
    if exact or end > (line, column):
        region["endLine"], region["endColumn"] = max(end, (line, column))
    return region


def _physical(path: Path, span: Span, root: Path) -> dict:
    return {"artifactLocation": _artifact(path, root), "region": _region(span)}


# -- fingerprints ----------------------------------------------------------------


def flagged_text(diag: Diagnostic, sources) -> tuple[str, str]:
    """The normalised text of the flagged line and of the flagged snippet
    (whitespace runs collapsed), or empty strings where there is no text line."""
    line = sources.line(diag.path, diag.span.line) if diag.span.line >= 1 else None
    if line is None:
        return "", ""
    snippet = ""
    if diag.span.end_line == diag.span.line and diag.span.end_column > diag.span.column:
        snippet = line[diag.span.column - 1 : diag.span.end_column - 1]
    return " ".join(line.split()), " ".join(snippet.split())


def fingerprints(diagnostics: list[Diagnostic], root: Path) -> list[str]:
    """One fingerprint per diagnostic: sha256 of code, root-relative path, the
    flagged line's and snippet's normalised text, and the occurrence index among
    diagnostics sharing all of these (in report order). No line number, so
    inserting or deleting unrelated lines keeps every fingerprint."""
    from .full import _Sources

    sources = _Sources()
    seen: Counter = Counter()
    prints = []
    for diag in diagnostics:
        rel = root_relative(diag.path, root) or diag.path.as_posix()
        key = (diag.code, rel, *flagged_text(diag, sources))
        index = seen[key]
        seen[key] += 1
        digest = hashlib.sha256("\x00".join((*key, str(index))).encode("utf-8", "surrogatepass")).hexdigest()
        prints.append(digest[:32])
    return prints


# -- rules -----------------------------------------------------------------------


def _section(page: str, title: str) -> str | None:
    """The text of ``## title`` in a rule-book page, as one paragraph."""
    match = re.search(rf"^## {re.escape(title)}\s*\n(.*?)(?=^## |\Z)", page, re.MULTILINE | re.DOTALL)
    if not match:
        return None
    text = " ".join(match.group(1).split())
    return text or None


def _page(folder: Path | None) -> str | None:
    try:
        return (folder / "README.md").read_text(encoding="utf-8") if folder else None
    except OSError:
        return None


def rule_descriptor(rule, settings=None, folders: dict[str, Path] | None = None) -> dict:
    """The reportingDescriptor of ``rule``; ``folders``: the rule book's folders by code."""
    if folders is None:
        from ..rulebook import rule_folders

        folders = rule_folders()
    folder = folders.get(rule.code)
    page = _page(folder)
    override = settings.severity_override(rule) if settings is not None else None
    level = override or max(rule.severity.values())
    full = (_section(page, "What it checks") if page else None) or rule.summary
    help_markdown = page.strip() if page else f"# {rule.code} {rule.name}\n\n{rule.summary}"
    module = getattr(rule, "__module__", "") or ""
    # the rule family: the subject of its code decade's module (``rules/fields/sl10x_name.py``: name)
    family = module.rsplit(".", 1)[-1].partition("_")[2] if module.startswith("skilllint.rules.") else "plugin"
    descriptor = {
        "id": rule.code,
        "name": rule.name,
        # Rule metadata is shown as written (as CodeQL does: braces in its help
        # are not doubled); only result messages get §3.11.5's doubling.
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": full},
        "help": {"text": help_markdown, "markdown": help_markdown},
        "defaultConfiguration": {"level": _LEVELS[level]},
        "properties": {
            "tags": ["agent-skills", family],
            "severity-by-target": {target: str(sev) for target, sev in sorted(rule.severity.items())},
        },
    }
    if HOMEPAGE:
        descriptor["helpUri"] = HOMEPAGE + RULEBOOK_PATH.format(folder=folder.name if folder else f"{rule.code}-{rule.name}")
    if rule.fixable:
        descriptor["properties"]["fix"] = rule.fixable
    if rule.security_severity is not None:
        # GitHub code scanning files a rule tagged "security" under security alerts and ranks them by
        # `security-severity`, a number written as a string.
        if "security" not in descriptor["properties"]["tags"]:  # the SL80x module's family is "security" already
            descriptor["properties"]["tags"].append("security")
        descriptor["properties"]["security-severity"] = f"{float(rule.security_severity):.1f}"
    return descriptor


class _Unknown:
    """A descriptor stand-in for a code no registered rule has (defensive)."""

    fixable = None
    security_severity = None

    def __init__(self, diag: Diagnostic) -> None:
        self.code, self.name, self.summary = diag.code, diag.name, diag.name
        self.severity = {t: diag.severity for t in diag.targets}


# -- results ---------------------------------------------------------------------


def _result(diag: Diagnostic, rule_index: int, fingerprint: str, root: Path) -> dict:
    text = message_text(diag.message)
    related = []
    if diag.related:
        links = []
        for number, note in enumerate(diag.related[:MAX_RELATED_LOCATIONS], start=1):
            related.append(
                {
                    "id": number,
                    "message": {"text": message_text(note.message)},
                    "physicalLocation": _physical(note.path, note.span, root),
                }
            )
            links.append(f"[{_link_text(note.message)}]({number})")
        if len(diag.related) > MAX_RELATED_LOCATIONS:
            links.append(f"and {counted(len(diag.related) - MAX_RELATED_LOCATIONS, 'more place')}")
        text += "\n" + "; ".join(links)  # code scanning links related locations named in the message
    result = {
        "ruleId": diag.code,
        "ruleIndex": rule_index,
        "level": _LEVELS[diag.severity],
        "message": {"text": text},
        "locations": [{"physicalLocation": _physical(diag.path, diag.span, root)}],
        "partialFingerprints": {FINGERPRINT_KEY: fingerprint},
        "properties": {"targets": list(diag.targets), "name": diag.name},
    }
    if related:
        result["relatedLocations"] = related
    if diag.fix is not None:
        result["fixes"] = [_fix(diag, root)]
        result["properties"]["fix"] = diag.fix.applicability
    return result


def _fix(diag: Diagnostic, root: Path) -> dict:
    by_path: dict[Path, list] = {}
    for edit in diag.fix.edits:
        by_path.setdefault(edit.path, []).append(
            {"deletedRegion": _region(edit.span, exact=True), "insertedContent": {"text": edit.text}}
        )
    return {
        "description": {"text": message_text(f"{diag.fix.message} ({diag.fix.applicability})")},
        "artifactChanges": [
            {"artifactLocation": _artifact(path, root), "replacements": replacements} for path, replacements in by_path.items()
        ],
    }


# -- the results limit -----------------------------------------------------------


def kept_results(diagnostics: list[Diagnostic]) -> list[int]:
    """The indices of the diagnostics a run reports, in report order: all of them, or
    the :data:`MAX_RESULTS` most severe (the earlier first among equals)."""
    if len(diagnostics) <= MAX_RESULTS:
        return list(range(len(diagnostics)))
    by_severity = sorted(range(len(diagnostics)), key=lambda i: -diagnostics[i].severity)
    return sorted(by_severity[:MAX_RESULTS])


def left_out_note(diagnostics: list[Diagnostic]) -> str | None:
    """What a SARIF run of ``diagnostics`` leaves out to stay within code scanning's
    results limit, as one sentence; None when it holds every finding."""
    if len(diagnostics) <= MAX_RESULTS:
        return None
    kept = set(kept_results(diagnostics))
    dropped = [d for i, d in enumerate(diagnostics) if i not in kept]
    severities = Counter(d.severity for d in dropped)
    rules = Counter(d.code for d in dropped).most_common()
    shown = ", ".join(f"{code} {count:,}" for code, count in rules[:10]) + (", ..." if len(rules) > 10 else "")
    return (
        f"code scanning accepts at most {MAX_RESULTS:,} results in a run: the SARIF report holds the "
        f"{MAX_RESULTS:,} most severe of {len(diagnostics):,} findings and leaves out {len(dropped):,} "
        f"({counted(severities[Severity.ERROR], 'error')}, {counted(severities[Severity.WARNING], 'warning')}, "
        f"{severities[Severity.INFO]:,} info; by rule: {shown}); the other output formats have every finding"
    )


def sarif_log(result, cwd: Path, settings=None, root: Path | None = None) -> dict:
    """The SARIF log of ``result`` as a dict."""
    root = root or source_root(cwd)
    from ..registry import registry

    rules = list(settings.enabled_rules()) if settings is not None else []
    index = {rule.code: number for number, rule in enumerate(rules)}
    for diag in result.diagnostics:  # without settings, or a code outside the selection: still described
        if diag.code not in index:
            index[diag.code] = len(rules)
            rules.append(registry().rules.get(diag.code) or _Unknown(diag))
    from ..rulebook import rule_folders

    folders = rule_folders()
    # Fingerprints of the whole report, so a kept result's identity does not depend on the cap.
    prints = fingerprints(result.diagnostics, root)
    kept = kept_results(result.diagnostics)
    left_out = left_out_note(result.diagnostics)
    notifications = [
        {"level": "error", "message": {"text": message_text(error.splitlines()[0] if error else "internal error")}}
        for error in result.internal_errors
    ] + [{"level": "warning", "message": {"text": message_text(warning)}} for warning in result.warnings]
    if left_out:
        notifications.append({"level": "warning", "message": {"text": message_text(left_out)}})
    invocation = {"executionSuccessful": not result.internal_errors}
    if notifications:
        invocation["toolExecutionNotifications"] = notifications
    run = {
        "tool": {
            "driver": {
                "name": "skilllint",
                "version": __version__,
                "semanticVersion": __version__,
                **({"informationUri": HOMEPAGE} if HOMEPAGE else {}),
                "rules": [rule_descriptor(rule, settings, folders) for rule in rules],
            }
        },
        "automationDetails": {"id": AUTOMATION_ID},
        "invocations": [invocation],
        "originalUriBaseIds": {SRCROOT: {"uri": Path(real_path_or_given(root)).as_uri().rstrip("/") + "/"}},
        "columnKind": "unicodeCodePoints",
        "results": [_result(result.diagnostics[i], index[result.diagnostics[i].code], prints[i], root) for i in kept],
    }
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def _clean(value):
    """Every string of the log as valid Unicode (see :func:`valid_unicode`); a float (none is written
    today) as a :class:`_Float`, which orjson refuses, so that the standard library writes the log."""
    if isinstance(value, str):
        return valid_unicode(value)
    if isinstance(value, dict):
        return {_clean(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    if type(value) is float:
        return _Float(value)
    return value


class _Float(float):
    """A float json writes as it writes floats (``1e-05``), and orjson does not (``0.00001``)."""


def render_sarif(result, cwd: Path, settings=None) -> str:
    return indented(_clean(sarif_log(result, cwd, settings))) + "\n"
