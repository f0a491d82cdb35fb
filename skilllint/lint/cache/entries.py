"""A result entry of the cache: the JSON form of a diagnostic (:func:`encode`, :func:`decode`), and
what an entry read back may hold (:func:`checked_diagnostics`): its shape and bounds, its paths inside
the package, the probes and link answers it rests on, and its move to where the package lies now."""

from __future__ import annotations

import os
from pathlib import Path

from ...diagnostics import Diagnostic, Edit, Fix, Related, Severity, Span
from ...targets import TARGET_IDS

# A package's lookups beyond itself are bounded by its references (at most 100,000 are kept).
MAX_PROBES = 100_000
MAX_PROBE_CHARS = 4096


# -- the JSON form of a diagnostic ------------------------------------------------------


def _span(span: Span) -> list[int]:
    return [span.line, span.column, span.end_line, span.end_column]


def encode(d: Diagnostic) -> dict:
    item = {
        "code": d.code,
        "name": d.name,
        "severity": int(d.severity),
        "targets": list(d.targets),
        "message": d.message,
        "path": str(d.path),
        "span": _span(d.span),
        "related": [[r.message, str(r.path), _span(r.span)] for r in d.related],
    }
    if d.left_out:
        item["left_out"] = d.left_out
    if d.fix is not None:
        item["fix"] = {
            "message": d.fix.message,
            "applicability": d.fix.applicability,
            "edits": [[str(e.path), _span(e.span), e.text, e.start, e.end] for e in d.fix.edits],
        }
    return item


def decode(item: dict, paths: dict[str, Path] | None = None) -> Diagnostic:
    """A diagnostic from :func:`encode`'s form; ``paths`` shares Path objects between calls."""
    paths = {} if paths is None else paths

    def path_of(text: str) -> Path:
        found = paths.get(text)
        if found is None:
            found = paths[text] = Path(text)
        return found

    fix = None
    if "fix" in item:
        raw = item["fix"]
        fix = Fix(
            raw["message"],
            raw["applicability"],
            tuple(Edit(path_of(p), Span(*s), text, start, end) for p, s, text, start, end in raw["edits"]),
        )
    return Diagnostic(
        code=item["code"],
        name=item["name"],
        severity=Severity(item["severity"]),
        targets=tuple(item["targets"]),
        message=item["message"],
        path=path_of(item["path"]),
        span=Span(*item["span"]),
        fix=fix,
        related=tuple(Related(m, path_of(p), Span(*s)) for m, p, s in item["related"]),
        left_out=item.get("left_out", 0),
    )


# -- what a result file may hold ---------------------------------------------------------

MAX_POSITION = 2**31  # a line, column or offset past any file skilllint reads
APPLICABILITIES = ("safe", "unsafe")


class _Refused(Exception):
    """A result file holds something skilllint would not have written: a miss."""


def moved(data: dict, made: str, root: str, anchor: str) -> dict | None:
    """``data`` with every path below ``made`` (the package's root where the entry was made)
    moved below ``root``; None when a path lies elsewhere or a text names ``anchor`` (the
    absolute folder the place was named from there): such a finding is tied to that place."""
    below = made.rstrip(os.sep) + os.sep
    here = root.rstrip(os.sep) + os.sep

    def path(text: object) -> str:
        if type(text) is not str:
            raise _Refused
        if text == made:
            return root
        if text.startswith(below):
            return here + text[len(below) :]
        raise _Refused

    def text(value: object) -> object:
        if type(value) is str and anchor in value:
            raise _Refused
        return value

    items = data.get("diagnostics")
    if type(items) is not list:
        return None
    moved = []
    try:
        for item in items:
            item = dict(item)
            item["path"] = path(item["path"])
            item["message"] = text(item["message"])
            item["related"] = [[text(m), path(p), span] for m, p, span in item["related"]]
            fix = item.get("fix")
            if fix is not None:
                fix = item["fix"] = dict(fix)
                fix["message"] = text(fix["message"])
                fix["edits"] = [[path(p), span, text(t), start, end] for p, span, t, start, end in fix["edits"]]
            moved.append(item)
    except (_Refused, KeyError, TypeError, ValueError):  # a finding of the wrong shape: a miss anyway
        return None
    return {**data, "diagnostics": moved}


def probes_hold(data: object, package, lstats: dict | None = None) -> bool:
    """Whether every path beyond the package that the cached result rests on is found as it was
    (a sibling skill created since would make "no such file" stale). A probe is looked up only
    inside the linted tree (:meth:`skilllint.skill.package.SkillPackage.exists_in_tree`): a cache file
    naming other places is refused, not followed. ``lstats``: the run's memo of the paths
    looked at (:meth:`~skilllint.skill.package.SkillPackage.exists_in_tree`)."""
    if type(data) is not dict:
        return False
    probes = data.get("probes", [])
    if type(probes) is not list or len(probes) > MAX_PROBES:
        return False
    for probe in probes:
        if type(probe) is not list or len(probe) != 2 or type(probe[0]) is not str or type(probe[1]) is not bool:
            return False
        if len(probe[0]) > MAX_PROBE_CHARS or package.exists_in_tree(probe[0], lstats) is not probe[1]:
            return False
    return True


def holds_documents(data: dict, documents_hold) -> bool:
    """Whether the targets that read a nested skill through a link are those the cached result
    was made for (an entry without the answer was made for a skill every target lists: the key
    covers where it lies and the plugin manifests above it)."""
    if "documents" not in data:
        return True
    kept = data["documents"]
    if type(kept) is not list or len(kept) > len(TARGET_IDS) or any(t not in TARGET_IDS for t in kept):
        return False
    return documents_hold is not None and documents_hold(tuple(kept))


def checked_diagnostics(data: object, package, names: dict[str, str], targets: set[str]) -> list[Diagnostic] | None:
    """The findings of a result file (:func:`encode`'s form), or None unless every one is what
    skilllint could have written for ``package``: a kept rule's code and name (``names``), a
    severity, targets among ``targets``, text where text goes, positions in bounds, and paths
    inside the package (a note may also name where one of its links leads).

    Written out in one loop: a warm run checks every finding it reports from the cache."""
    if type(data) is not dict:
        return None
    items = data.get("diagnostics")
    if type(items) is not list:
        return None
    paths = _PackagePaths(package)
    inside, noted, checked = paths.inside, paths.noted, paths.checked
    known_targets: dict[tuple, tuple] = {}
    found = []
    try:
        for item in items:
            code, severity, message = item["code"], item["severity"], item["message"]
            if names.get(code) != item["name"] or type(severity) is not int or type(message) is not str:
                raise _Refused
            level = _SEVERITIES[severity]
            shared = tuple(item["targets"])
            if type(item["targets"]) is not list:
                raise _Refused
            kept = known_targets.get(shared)
            if kept is None:
                if not targets.issuperset(shared):
                    raise _Refused
                kept = known_targets[shared] = shared
            fix = item.get("fix")
            if fix is not None:
                fix = _checked_fix(fix, inside)
            related = item["related"]
            left_out = item.get("left_out", 0)
            if type(related) is not list or type(left_out) is not int or not 0 <= left_out <= MAX_LEFT_OUT:
                raise _Refused
            notes = []
            for note in related:
                if type(note) is not list or len(note) != 3 or type(note[0]) is not str:
                    raise _Refused
                where = checked.get(note[1]) if type(note[1]) is str else None
                notes.append(Related(note[0], where or noted(note[1]), _span_of(note[2])))
            found.append(
                Diagnostic(
                    code=code,
                    name=item["name"],
                    severity=level,
                    targets=kept,
                    message=message,
                    path=(type(item["path"]) is str and checked.get(item["path"])) or inside(item["path"]),
                    span=_span_of(item["span"]),
                    fix=fix,
                    related=tuple(notes),
                    left_out=left_out,
                )
            )
    except (_Refused, KeyError, TypeError, ValueError):  # a missing key, a value of the wrong kind
        return None
    return found


_SEVERITIES = {int(s): s for s in Severity}
MAX_LEFT_OUT = 10**9  # findings a rule could leave out in one file: a bound, not a count


def _span_of(values: object) -> Span:
    if type(values) is list and len(values) == 4:
        a, b, c, d = values
        if (
            type(a) is int
            and type(b) is int
            and type(c) is int
            and type(d) is int
            and 0 <= a <= MAX_POSITION
            and 0 <= b <= MAX_POSITION
            and 0 <= c <= MAX_POSITION
            and 0 <= d <= MAX_POSITION
        ):
            return Span(a, b, c, d)
    raise _Refused


def _offset(value: object) -> int | None:
    if value is None or (type(value) is int and 0 <= value <= MAX_POSITION):
        return value
    raise _Refused


def _checked_fix(raw: object, inside) -> Fix:
    if type(raw) is not dict or type(raw.get("message")) is not str or raw.get("applicability") not in APPLICABILITIES:
        raise _Refused
    edits = raw.get("edits")
    if type(edits) is not list:
        raise _Refused
    checked = []
    for edit in edits:
        if type(edit) is not list or len(edit) != 5 or type(edit[2]) is not str:
            raise _Refused
        path, span, text, start, end = edit
        checked.append(Edit(inside(path), _span_of(span), text, _offset(start), _offset(end)))
    return Fix(raw["message"], raw["applicability"], tuple(checked))


class _PackagePaths:
    """The paths a package's findings may name, one Path object per text: files of the package,
    and for a note also where its links lead (its real location, SKILL.md's, a link's target)."""

    def __init__(self, package) -> None:
        self.package = package
        self.root = str(package.root)
        self._below = self.root.rstrip(os.sep) + os.sep
        self.checked: dict[str, Path] = {}  # texts found inside the package
        self._named: set[str] | None = None

    def inside(self, text: object) -> Path:
        found = self.checked.get(text) if type(text) is str else None
        if found is None:
            # on strings, as fsafe.is_within: the package's root and what lies below it, normalised
            if not (type(text) is str and (text == self.root or text.startswith(self._below)) and os.path.normpath(text) == text):
                raise _Refused
            found = self.checked[text] = Path(text)
        return found

    def noted(self, text: object) -> Path:
        try:
            return self.inside(text)
        except _Refused:
            if type(text) is not str or text not in self.named():
                raise
            return Path(text)

    def named(self) -> set[str]:
        """Places outside the package its findings name: its real location, SKILL.md's, and where links lead."""
        if self._named is None:
            from ...skill.safety.containment import trace

            package = self.package
            named = {package.real_root}
            if package.skill_md_name is not None:
                named.add(package.real_skill_md)
            for rel, entry in package.inventory.entries.items():
                if entry.link is not None and entry.link.status == "escapes":
                    named.update(p for p in (entry.link.outside, trace(package, rel).outside) if p)
            self._named = named
        return self._named
