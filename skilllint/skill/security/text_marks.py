"""Which of a fixed set of strings a text holds, for all of them in one pass when the hyperscan
library is installed (a dependency on the platforms where it publishes wheels).

The security rules (SL801-SL804) start by asking whether a text holds a string their patterns
begin with (``-----BEGIN``, ``://``, ``ghp_``, ``<!--``, ``curl``…): most texts hold none of them and
are not scanned further. Each question is a pass over the text in C, about a nanosecond a
character, and the rules ask some thirty of them of every text of a package: a fifth of what the
family costs. Hyperscan (Intel's multi-pattern matcher, BSD-licensed, wheels for Linux, macOS and
Windows) answers all of them in one pass over the text's UTF-8 encoding.

The answers are the same either way: every mark is ASCII, and UTF-8 writes an ASCII byte only
for that character (a byte of a multi-byte sequence is never below 0x80). Without hyperscan, or
when it cannot run here (no build for this CPU), or for a short text (where the call costs more
than the searches), a :class:`Marks` answers each question with ``in`` when asked, and says so
(:attr:`Marks.known` is False): a caller that would ask many questions to spare one scan asks
none and scans. ``SKILLLINT_NO_HYPERSCAN=1`` turns the library off (to compare, or to rule it out
when reporting a problem).
"""

from __future__ import annotations

import os
import threading

# Every string a caller may ask about. Literal, ASCII, and asked of whole texts only.
MARKS = (
    # SL803 (skilllint.skill.security.secrets): key blocks, connection strings, and the provider prefixes
    "-----BEGIN", "://", "xox", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-",
    "sk-", "k_live_", "AKIA", "ASIA", "ABIA", "ACCA", "AIza",
    # SL802 (skilllint.skill.security.hidden_instructions)
    "<!--",
    # SL804 (skilllint.skill.security.fetch_and_run): fetch words and what an install from a URL names
    "curl", "wget", "nvoke-", "iex", "IEX", "]::Create", "git+", "github:", "gitlab:", "gist:", "bitbucket:",
)  # fmt: skip
_MARK_SET = frozenset(MARKS)
# SL801 (skilllint.skill.security.hidden_text): whether the text holds a candidate hidden character other
# than U+FE0F (an emoji's presentation selector, judged apart), found in the same pass. A
# pattern, not a string: answered only by a one-pass scan (:attr:`Marks.hidden_other`).
_HIDDEN_OTHER = len(MARKS)

# Shorter texts are asked with `in`: a one-pass scan costs a few microseconds to set up and
# encode, about what a handful of searches of a 2,000-character text cost.
MIN_SCANNED_CHARS = 2_000


class Marks:
    """The marks of :data:`MARKS` one text holds: ``mark in marks``. :attr:`known`: whether every
    answer was found in one pass (else each is a search of the text when asked)."""

    __slots__ = ("text", "_found")

    def __init__(self, text: str, min_chars: int = MIN_SCANNED_CHARS) -> None:
        self.text = text
        self._found: frozenset[int] | None = _scan(text) if len(text) >= min_chars else None

    @property
    def known(self) -> bool:
        return self._found is not None

    @property
    def hidden_other(self) -> bool | None:
        """Whether the text holds a character :data:`skilllint.skill.security.hidden_text.CANDIDATE_BYTES`
        finds other than U+FE0F; None unless :attr:`known`."""
        return None if self._found is None else _HIDDEN_OTHER in self._found

    def __contains__(self, mark: str) -> bool:
        if mark not in _MARK_SET:
            raise KeyError(f"{mark!r} is not one of text_marks.MARKS")
        if self._found is not None:
            return _INDEX[mark] in self._found
        return mark in self.text


def marks_of(text: str, kept: dict | None = None) -> Marks:
    """The :class:`Marks` of ``text``, made once per text object in ``kept`` (:func:`kept_in` a
    package run's scratch: the rules that read one text share its scan)."""
    if kept is None:
        return Marks(text)
    held = kept.get(id(text))
    if held is None or held.text is not text:  # the Marks keeps the text alive: its id is not reused meanwhile
        held = kept[id(text)] = Marks(text)
    return held


def kept_in(memo: dict | None) -> dict | None:
    """Where a package run's scratch (the rules' memo) keeps its texts' marks: a dict of its own,
    which objects kept in the memo hold instead of the memo (no reference cycle); None without one."""
    return None if memo is None else memo.setdefault("text-marks", {})


# -- the one-pass scan ---------------------------------------------------------------------

_INDEX = {mark: index for index, mark in enumerate(MARKS)}
_DATABASE: list = []  # [the compiled database, or None when hyperscan cannot be used], once tried
_LOCK = threading.Lock()  # one scratch space per database: one scan at a time (a language server has threads)


def accelerated() -> bool:
    """Whether texts are scanned with hyperscan in this process."""
    return _database() is not None


def _database():
    if not _DATABASE:
        _DATABASE.append(_compile())
    return _DATABASE[0]


def _compile():
    if os.environ.get("SKILLLINT_NO_HYPERSCAN"):
        return None
    try:
        import hyperscan  # not installed everywhere (pyproject's marker); imported only when a text is scanned
    except ImportError:
        return None
    from .hidden_text import candidate_bytes_pattern

    expressions = [_escaped(mark) for mark in MARKS] + [candidate_bytes_pattern(but_vs16=True)]
    try:
        database = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
        database.compile(
            expressions=expressions,
            ids=list(range(len(expressions))),
            elements=len(expressions),
            flags=[hyperscan.HS_FLAG_SINGLEMATCH] * len(expressions),  # presence: one report a pattern
        )
        return database
    except Exception:  # a build that cannot run on this CPU, or an API it does not have: search instead
        return None


def _escaped(mark: str) -> bytes:
    """``mark`` as a hyperscan pattern that matches it literally."""
    return "".join(c if c.isalnum() else "\\" + c for c in mark).encode("ascii")


def _scan(text: str) -> frozenset[int] | None:
    """The indexes of the patterns ``text`` holds (those of :data:`MARKS`, and :data:`_HIDDEN_OTHER`),
    found in one pass; None when no scan can be made."""
    database = _database()
    if database is None:
        return None
    found: list[int] = []

    def on_match(mark: int, start: int, end: int, flags: int, context: object) -> None:
        found.append(mark)

    try:
        data = text.encode("utf-8", "surrogatepass")
        with _LOCK:
            database.scan(data, match_event_handler=on_match)
    except Exception:  # the library failed on this text: the searches answer instead
        return None
    return frozenset(found)
