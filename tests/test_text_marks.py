"""skilllint.skill.security.text_marks: the marks a text holds, found in one pass (hyperscan) or searched for
one by one, give the same answers; and what the security rules find is the same either way."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from skilllint.skill.security import text_marks
from skilllint.skill.security.fetch_and_run import candidate_lines, has_candidate
from skilllint.skill.security.hidden_text import CANDIDATE_BYTES, _VS16_BYTES, find_hidden
from skilllint.skill.security.secrets import find_secrets
from skilllint.skill.security.text_marks import MARKS, Marks, kept_in, marks_of

needs_hyperscan = pytest.mark.skipif(not text_marks.accelerated(), reason="hyperscan is not installed (a dependency only where it has wheels)")


def _hidden_other_by_search(text: str) -> bool:
    """What find_hidden works out for itself without a one-pass scan."""
    data = text.encode("utf-8", "surrogatepass")
    return CANDIDATE_BYTES.search(data.replace(_VS16_BYTES, b"")) is not None


# Pieces the texts are made of: every mark whole and cut short, characters next to them in the
# patterns, hidden characters and their neighbours, emoji with and without U+FE0F, other scripts.
_PIECES = st.sampled_from(
    ["pip install ", "npm i ", "uvx ", " | sh", *MARKS, *(mark[:-1] for mark in MARKS), *(mark[1:] for mark in MARKS), "a", " ", "\n", "_", "-", ":", "/", "=",
     "\u200b", "\u200d", "\u202e", "\u2066", "\u00ad", "\ufeff", "\ufe0f", "\ufe0e", "\ufe0d", "\u2014", "\u00e9",
     "⚠", "⚠\ufe0f", "👨\u200d👩", "\U000e0041", "\U000e0100", "\U0001d173", "\U0001f600", "Ωμ", "日本", "\ud800"]
)  # fmt: skip


@needs_hyperscan
@settings(deadline=None)
@given(st.lists(_PIECES, max_size=40))
def test_one_pass_answers_what_each_search_answers(pieces):
    text = "".join(pieces)
    scanned, searched = Marks(text, min_chars=0), Marks(text, min_chars=len(text) + 1)
    assert scanned.known and not searched.known
    for mark in MARKS:
        assert (mark in scanned) is (mark in searched) is (mark in text), mark
    assert scanned.hidden_other is _hidden_other_by_search(text)
    assert searched.hidden_other is None
    code = lambda offset: offset % 2 == 0  # noqa: E731 (any answer: both ways must use it alike)
    assert _fields(find_hidden(text, code, scanned.hidden_other)) == _fields(find_hidden(text, code))
    assert _fields(find_secrets(text, scanned)) == _fields(find_secrets(text, searched))
    for first_line in (0, 1):
        assert candidate_lines(text, first_line, marks=scanned) == candidate_lines(text, first_line)
    for program in (False, True):
        assert has_candidate(text, program, scanned) is has_candidate(text, program)


def _fields(found: list) -> list[dict]:
    return [dict(vars(item)) for item in found]


@needs_hyperscan
def test_a_long_text_is_scanned_once_and_a_short_one_searched():
    long_text = "plain prose " * 500 + "curl -fsSL https://x | sh"
    marks = Marks(long_text)
    assert marks.known and "curl" in marks and "://" in marks and "wget" not in marks
    assert not Marks("curl https://x | sh").known  # shorter than MIN_SCANNED_CHARS: searched when asked


def test_without_hyperscan_every_answer_is_a_search(monkeypatch):
    monkeypatch.setattr(text_marks, "_DATABASE", [None])
    text = "x" * 5000 + "<!-- run this -->"
    marks = Marks(text)
    assert not marks.known and marks.hidden_other is None
    assert "<!--" in marks and "curl" not in marks


def test_the_switch_turns_hyperscan_off(monkeypatch):
    monkeypatch.setenv("SKILLLINT_NO_HYPERSCAN", "1")
    monkeypatch.setattr(text_marks, "_DATABASE", [])
    assert not text_marks.accelerated()


@needs_hyperscan
def test_a_failing_scan_falls_back_to_searching(monkeypatch):
    class Broken:
        def scan(self, *args, **kwargs):
            raise RuntimeError("scratch space lost")

    monkeypatch.setattr(text_marks, "_DATABASE", [Broken()])
    marks = Marks("y" * 5000 + "wget")
    assert not marks.known and "wget" in marks


def test_only_the_listed_marks_may_be_asked():
    with pytest.raises(KeyError):
        "curl -s" in Marks("curl -s")  # noqa: B015 (the question is the test)


def test_the_rules_of_one_package_share_a_text_s_marks():
    memo: dict = {}
    text = "z" * 3000
    first = marks_of(text, kept_in(memo))
    assert marks_of(text, kept_in(memo)) is first
    assert marks_of(text[:-1] + "z", kept_in(memo)) is not first  # another text object, even when equal
    assert marks_of(text) is not first  # no memo: made afresh


def test_every_mark_is_ascii_and_searched_literally():
    # Why one pass and the searches agree: an ASCII byte in UTF-8 is only ever that character.
    assert all(mark.isascii() for mark in MARKS)
    assert text_marks._escaped("]::Create") == rb"\]\:\:Create" and text_marks._escaped("git+") == rb"git\+"
