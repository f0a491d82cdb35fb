"""Recordings of ``skilllint eval`` decisions: ``--record FILE`` and ``--replay FILE``.

A recording keeps every decision with the exact catalog text it was made against and the
agent (and its version) that made it, as sorted, stable JSON, so that it can be reviewed
in a diff and committed. A replay answers from it with no agent and no network; a case
whose catalog text changed since it was recorded is answered as recorded but marked
stale (``Verdict.detail["stale"]``), and a case never recorded is marked stale with no
answer (``detail["recorded"] is False``).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

from ..catalog.routing import CatalogView, Router, SkillView, Verdict
from ..fsafe import UnsafeFile, read_capped

FORMAT = "skilllint-eval-recording"
VERSION = 1
# A recording is text a person can review; one larger than this is not one.
MAX_RECORDING_BYTES = 256 * 1024 * 1024


class RecordError(Exception):
    """A recording that cannot be read or written: the command reports it and exits 2."""


def catalog_key(text: str) -> str:
    """The name a catalog text goes by in a recording (its SHA-256)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _plain(value):
    """``value`` as JSON can hold it (a router's detail may hold tuples, sets or paths)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted(_plain(v) for v in value)
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


class RecordingRouter:
    """Decides with ``inner`` and writes every decision made so far to ``path`` after
    each skill, so that an interrupted run keeps what it paid for.

    A recording already at ``path`` is added to: the skills this run evaluates replace
    their old decisions, the others keep theirs (so skills can be recorded one at a
    time). A file there that is not a recording, or holds another router's decisions, is
    refused rather than overwritten."""

    def __init__(self, inner: Router, path: Path) -> None:
        self.inner = inner
        self.path = path
        self.name = inner.name
        self._catalogs: dict[str, str] = {}
        self._decisions: dict[tuple[str, str, str, str], dict] = {}
        self._kept: list[dict] = []
        self._replaced: set[tuple[str, str]] = set()
        if _holds_something(path):
            try:
                doc = read_recording(path, option="--record")
            except RecordError as exc:
                raise RecordError(f"{exc}; it was left as it is") from None
            if doc.get("router") != self.name:
                raise RecordError(f"--record {path}: it holds the decisions of {doc.get('router')!r}, and this run decides with {self.name!r}; record to another file")
            self._catalogs.update(doc["catalogs"])
            self._kept = doc["decisions"]

    def decide(self, queries: list[str], catalog: CatalogView, skill: SkillView) -> list[Verdict]:
        verdicts = self.inner.decide(queries, catalog, skill)
        self._replaced.add((catalog.target, skill.name))
        key = catalog_key(catalog.rendered)
        self._catalogs[key] = catalog.rendered
        for query, verdict in zip(queries, verdicts):
            self._decisions[(catalog.target, skill.name, query, key)] = {
                "target": catalog.target,
                "skill": skill.name,
                "query": query,
                "catalog": key,
                "triggered": list(verdict.triggered),
                "rate": verdict.rate,
                "detail": _plain(verdict.detail),
            }
        self._write()
        return verdicts

    def document(self) -> dict:
        kept = [d for d in self._kept if (d["target"], d["skill"]) not in self._replaced]
        decisions = sorted(kept + list(self._decisions.values()), key=lambda d: (d["target"], d["skill"], d["query"], d["catalog"]))
        agents = sorted({str(d["detail"]["agent_version"]) for d in decisions if d.get("detail", {}).get("agent_version")})
        used = {d["catalog"] for d in decisions}
        return {
            "format": FORMAT,
            "version": VERSION,
            "router": self.name,
            "agent_versions": agents,
            "catalogs": {k: v for k, v in sorted(self._catalogs.items()) if k in used},
            "decisions": decisions,
        }

    def _write(self) -> None:
        doc = self.document()
        text = json.dumps(doc, sort_keys=True, indent=2, ensure_ascii=False) + "\n"
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate (JSON escapes allow one): keep it escaped
            text = json.dumps(doc, sort_keys=True, indent=2) + "\n"
        folder = self.path.parent if str(self.path.parent) else Path(".")
        try:
            fd, temp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=folder)
            try:
                with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
                    handle.write(text)
                os.replace(temp, self.path)
            except BaseException:
                try:
                    os.unlink(temp)
                except OSError:
                    pass
                raise
        except OSError as exc:
            raise RecordError(f"--record {self.path}: cannot write the recording ({exc.strerror or exc})") from None


def _holds_something(path: Path) -> bool:
    try:
        return path.stat().st_size > 0 or not path.is_file()
    except OSError:
        return False  # nothing there yet (or nothing readable: writing will say)


def read_recording(path: Path, *, option: str = "--replay") -> dict:
    """The recording at ``path``, checked for shape; :class:`RecordError` (naming
    ``option``) when it is not one skilllint wrote."""

    def _fail(path: Path, what: str) -> RecordError:
        return RecordError(f"{option} {path}: {what}")

    try:
        # resolved first: the user named this file, a link to it is as good as it
        result = read_capped(path.resolve(), MAX_RECORDING_BYTES, whole=True)
    except (OSError, UnsafeFile) as exc:
        raise _fail(path, f"cannot read it: {exc}") from None
    try:
        doc = json.loads(result.data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise _fail(path, f"not JSON ({exc})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise _fail(path, f"not a recording written by `skilllint eval --record` (no \"format\": \"{FORMAT}\")")
    if doc.get("version") != VERSION:
        raise _fail(path, f"recording version {doc.get('version')!r}; this skilllint reads version {VERSION}")
    catalogs = doc.get("catalogs")
    if not isinstance(catalogs, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in catalogs.items()):
        raise _fail(path, "\"catalogs\" must map names to catalog texts")
    decisions = doc.get("decisions")
    if not isinstance(decisions, list):
        raise _fail(path, "\"decisions\" must be a list")
    for index, entry in enumerate(decisions):
        problem = _entry_problem(entry, catalogs)
        if problem:
            raise _fail(path, f"decision {index}: {problem}")
    return doc


def _entry_problem(entry, catalogs: dict) -> str | None:
    if not isinstance(entry, dict):
        return "not an object"
    for key in ("target", "skill", "query", "catalog"):
        if not isinstance(entry.get(key), str):
            return f"\"{key}\" must be a string"
    if entry["catalog"] not in catalogs:
        return f"names catalog {entry['catalog'][:12]}..., which the recording does not hold"
    triggered = entry.get("triggered")
    if not isinstance(triggered, list) or not all(isinstance(t, str) for t in triggered):
        return "\"triggered\" must be a list of skill names"
    rate = entry.get("rate")
    if rate is not None and (isinstance(rate, bool) or not isinstance(rate, (int, float))):
        return "\"rate\" must be a number or null"
    if not isinstance(entry.get("detail", {}), dict):
        return "\"detail\" must be an object"
    return None


class ReplayRouter:
    """Answers from a recording: no agent, no network. See the module docstring for what
    a stale case is."""

    def __init__(self, path: Path) -> None:
        doc = read_recording(path)
        self.path = path
        self.name = f"replay of {doc.get('router') or 'a recording'}"
        self._catalogs: dict[str, str] = doc["catalogs"]
        self._entries: dict[tuple[str, str, str], list[dict]] = {}
        for entry in doc["decisions"]:
            self._entries.setdefault((entry["target"], entry["skill"], entry["query"]), []).append(entry)

    def decide(self, queries: list[str], catalog: CatalogView, skill: SkillView) -> list[Verdict]:
        return [self._answer(query, catalog, skill) for query in queries]

    def _answer(self, query: str, catalog: CatalogView, skill: SkillView) -> Verdict:
        entries = self._entries.get((catalog.target, skill.name, query), [])
        if not entries:
            return Verdict(triggered=(), rate=None, detail={"replayed": True, "recorded": False, "stale": True})
        fresh = [e for e in entries if self._catalogs[e["catalog"]] == catalog.rendered]
        entry = (fresh or entries)[0]
        detail = dict(entry.get("detail", {}))
        detail.update({"replayed": True, "recorded": True, "stale": not fresh})
        rate = entry.get("rate")
        return Verdict(triggered=tuple(entry["triggered"]), rate=None if rate is None else float(rate), detail=detail)
