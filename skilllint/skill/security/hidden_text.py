"""Characters that render as nothing or reorder text (SL801), told apart from their legitimate uses.

Which characters: Unicode's Default_Ignorable_Code_Point property (the characters a renderer
shows as nothing when it has no glyph for them), taken from DerivedCoreProperties.txt
(:data:`DEFAULT_IGNORABLE`; a test checks it against :mod:`unicodedata`'s format characters),
plus the Arabic letter mark. Among them the bidirectional controls (embeddings, overrides,
isolates and the implicit marks), which reorder the display of the text around them, the
Trojan Source class (CVE-2021-42574).

What is legitimate, each use from the standard that defines it:

- a zero-width joiner inside an emoji sequence (UTS #51: between two pictographs), after a
  virama (Indic conjuncts) or beside an Arabic-script letter; a zero-width non-joiner after a
  virama or beside an Arabic-script letter (Persian half-spaces). UAX #31 Appendix A and
  RFC 5892 Appendix A.1/A.2 (IDNA's CONTEXTJ rules) allow the joiners in exactly such places;
- a zero-width space beside a letter of a script written without spaces (Thai, Lao, Khmer,
  Myanmar, Tibetan, Japanese, Chinese), where it marks a word break; after ``@`` or ``#``
  (it keeps a mention or an issue number from linking); before a fence marker at a line's
  start (it keeps a Markdown fence inside a code example from closing the example);
- a variation selector right after the character it selects a glyph of (``⚠️``); a run of
  them is data, not a glyph choice (the "emoji smuggling" encoding: one byte per selector);
- tag characters spelling a region after U+1F3F4 (the flags of England, Scotland, Wales:
  UTS #51 emoji tag sequences); anywhere else they spell hidden ASCII text (shown decoded);
- the implicit marks (LRM, RLM, ALM) on a line that holds right-to-left letters, and
  balanced embeddings and isolates there outside code (the W3C's "How to use Unicode
  controls for bidi text"); the overrides (LRO, RLO), which reverse the order letters show
  in, never, nor any bidirectional control inside code (Rust's
  ``text_direction_codepoint_in_literal``/``_in_comment`` lints deny all nine);
- a soft hyphen between letters, a combining grapheme joiner before a combining mark, and
  the script-specific format characters (Hangul, Mongolian, Khmer, Duployan, musical
  symbols) beside characters of their script;
- a byte-order mark at the start of a file; a character the line itself names (``"ig<ZWSP>nore"
  with a zero-width space``), which the reader is told about.

Everything is found by one compiled search per text, over the bytes of its UTF-8 encoding that
are not ASCII; a text without a candidate costs that search (after an ``isascii`` test) and
nothing else.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from ... import lazyre

# Unicode 15.1 DerivedCoreProperties.txt, Default_Ignorable_Code_Point, as (first, last) ranges.
DEFAULT_IGNORABLE: tuple[tuple[int, int], ...] = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
    (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
    (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)  # fmt: skip

# Findings kept per text: far more than any output shows of one rule in one file (the engine
# keeps 50), and a bound on the work a text full of hidden characters makes.
MAX_PER_TEXT = 500

_CLASS = "".join(f"\\U{a:08x}" if a == b else f"\\U{a:08x}-\\U{b:08x}" for a, b in DEFAULT_IGNORABLE if b < 0x10000)
_FIRST_ASTRAL = min(a for a, _ in DEFAULT_IGNORABLE if a >= 0x10000)
_ASTRAL_START = chr(_FIRST_ASTRAL)
_ASTRAL = tuple((a, b) for a, b in DEFAULT_IGNORABLE if a >= 0x10000)
# Runs of candidates: the default-ignorable characters of the BMP, and every character from the
# first astral one on (emoji among them). A class of one astral range is searched several times
# faster than the exact ranges; the few emoji it also finds are sifted out in Python.
CANDIDATE_RUN = lazyre.compile(f"[{_CLASS}\\U{_FIRST_ASTRAL:08x}-\\U{DEFAULT_IGNORABLE[-1][1]:08x}]+")


def _utf8_prefix(first: int, last: int) -> bytes:
    """A bytes pattern matching the start of the UTF-8 encoding of every code point from ``first``
    to ``last`` (their common leading bytes, then a class of the next byte): a superset, as a
    prefilter may be."""
    low, high = chr(first).encode(), chr(last).encode()
    same = 0
    while same < len(low) - 1 and low[same] == high[same]:
        same += 1
    head = b"".join(b"\\x%02x" % byte for byte in low[:same])
    return head + (b"[\\x%02x-\\x%02x]" % (low[same], high[same]))


def candidate_bytes_pattern(but_vs16: bool = False) -> bytes:
    """:data:`CANDIDATE_BYTES`'s pattern; ``but_vs16``: without U+FE0F (the patterns are prefixes
    of whole UTF-8 sequences, so this matches what the whole one matches once U+FE0F is deleted)."""
    ranges = DEFAULT_IGNORABLE
    if but_vs16:
        ranges = tuple((first, last - 1) if last == 0xFE0F else (first, last) for first, last in ranges)  # (0xFE00, 0xFE0F)
    return b"|".join(_utf8_prefix(first, last) for first, last in ranges)


# The same characters (and a few neighbours) as UTF-8 bytes: a text's encoding is searched for them
# first, byte by byte, which is faster than a search of its code points; most texts have none.
CANDIDATE_BYTES = lazyre.compile(candidate_bytes_pattern())


_ASCII = bytes(range(0x80))


def _non_ascii_bytes(text: str) -> bytes:
    """The UTF-8 encoding of ``text`` less its ASCII bytes: every multi-byte sequence whole (none
    of its bytes is ASCII) and in order, so :data:`CANDIDATE_BYTES` finds in it what it finds in
    the whole encoding (a match starts at a lead byte, which no other byte can be), in the small
    part of a mostly ASCII text that can hold a candidate."""
    return text.encode("utf-8", "surrogatepass").translate(None, _ASCII)


_VS16_BYTES = "\ufe0f".encode()


def _each_vs16_takes_a_glyph(text: str) -> bool:
    """Whether every U+FE0F of ``text`` (when no other candidate is in it) is a lone variation
    selector after a visible character: the one use :func:`find_hidden` never reports, and by
    far the commonest (emoji written with their presentation selector)."""
    at = text.find("\ufe0f")
    while at >= 0:
        before = text[at - 1] if at else ""
        if not before or before.isspace() or before == "\ufe0f" or text[at + 1 : at + 2] == "\ufe0f":
            return False
        at = text.find("\ufe0f", at + 1)
    return True


def is_default_ignorable(code: int) -> bool:
    """Whether a code point is in :data:`DEFAULT_IGNORABLE`."""
    if code < _FIRST_ASTRAL:
        return any(a <= code <= b for a, b in DEFAULT_IGNORABLE[: len(DEFAULT_IGNORABLE) - len(_ASTRAL)])
    return any(a <= code <= b for a, b in _ASTRAL)

BIDI_EMBEDDINGS = {0x202A: "LRE", 0x202B: "RLE", 0x202D: "LRO", 0x202E: "RLO"}
BIDI_ISOLATES = {0x2066: "LRI", 0x2067: "RLI", 0x2068: "FSI"}
BIDI_POP = {0x202C: "PDF", 0x2069: "PDI"}
BIDI_OVERRIDES = frozenset({0x202D, 0x202E})
BIDI_MARKS = {0x200E: "LRM", 0x200F: "RLM", 0x061C: "ALM"}
BIDI_CONTROLS = frozenset({*BIDI_EMBEDDINGS, *BIDI_ISOLATES, *BIDI_POP})

ZWSP, ZWNJ, ZWJ, WORD_JOINER, BOM = 0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF
SOFT_HYPHEN, GRAPHEME_JOINER, KEYCAP = 0x00AD, 0x034F, 0x20E3
WAVING_BLACK_FLAG, CANCEL_TAG = 0x1F3F4, 0xE007F

# Letters of the right-to-left scripts (Hebrew, Arabic, Syriac, Thaana, N'Ko, Samaritan, Mandaic,
# their presentation forms and the historic scripts of the SMP's right-to-left blocks).
RTL_LETTER = lazyre.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefe\U00010800-\U00010fff\U0001e800-\U0001efff]")
# Scripts written without spaces between words, where a zero-width space marks a word break.
_NO_SPACE_SCRIPTS = (
    (0x0E00, 0x0EFF), (0x0F00, 0x0FFF), (0x1000, 0x109F), (0x1780, 0x17FF), (0x19E0, 0x19FF),
    (0x1B00, 0x1B7F), (0x3040, 0x30FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xA980, 0xA9DF),
    (0xAA60, 0xAADF), (0xF900, 0xFAFF), (0x20000, 0x3FFFF),
)  # fmt: skip
# Where each script-specific format character belongs: (first, last) of its script's block.
_OWN_SCRIPT = {
    0x115F: (0x1100, 0x11FF), 0x1160: (0x1100, 0x11FF), 0x17B4: (0x1780, 0x17FF), 0x17B5: (0x1780, 0x17FF),
    0x180E: (0x1800, 0x18AF), **{c: (0x1BC00, 0x1BC9F) for c in range(0x1BCA0, 0x1BCA4)},
    **{c: (0x1D100, 0x1D1FF) for c in range(0x1D173, 0x1D17B)},
}  # fmt: skip
# A line that says what it holds: the reader is told the character is there.
_NAMED = lazyre.compile(
    r"(?i)zero[- ]?width|\bZW(?:SP|NJ|J)\b|word[- ]joiner|\bU\+[0-9A-F]{4,6}\b|\\u[0-9a-f]{4}|invisible|"
    r"variation selector|soft hyphen|byte[- ]order mark|\bbidi|right-to-left|left-to-right|tag characters?"
)
_FENCE_AFTER = lazyre.compile(r"(?:`{3,}|~{3,})")
_SUBDIVISION = lazyre.compile(r"[a-z]{2}[a-z0-9]{1,4}")  # an emoji tag sequence's region (gbeng, ussc)


@dataclass(frozen=True, eq=False)
class Hidden:
    """A run of hidden characters that has no legitimate use where it stands."""

    start: int  # offset of the run in the text
    end: int
    what: str  # the message's account of the run
    bidi: bool  # holds a bidirectional control (an error inside code)
    payload: bool  # spells a hidden message (its removal changes what the model reads)
    pieces: tuple[tuple[int, int], ...] = ()  # the hidden characters' (start, end), when the span holds visible text too

    def removals(self) -> tuple[tuple[int, int], ...]:
        """The (start, end) ranges that removing the hidden characters deletes."""
        return self.pieces or ((self.start, self.end),)


def escaped(text: str) -> str:
    """Each code point shown as ``U+XXXX``, joined by spaces."""
    return " ".join(f"U+{ord(c):04X}" for c in text)


def escape_of(char: str) -> str:
    """The character as a Python, JavaScript or JSON string writes it (``\\u202e``)."""
    code = ord(char)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def _name(char: str) -> str:
    name = unicodedata.name(char, "")
    if name:
        return name
    code = ord(char)
    if 0xE0100 <= code <= 0xE01EF:
        return f"VARIATION SELECTOR-{code - 0xE0100 + 17}"
    return "an unassigned default-ignorable code point"


def _in(code: int, ranges) -> bool:
    return any(a <= code <= b for a, b in ranges)


def _is_variation_selector(code: int) -> bool:
    return 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF or 0x180B <= code <= 0x180D or code == 0x180F


def _is_tag(code: int) -> bool:
    return 0xE0000 <= code <= 0xE007F


def _is_pictograph(char: str) -> bool:
    return unicodedata.category(char) == "So"


def _base_before(text: str, at: int) -> str:
    """The character an emoji joiner follows: the one before ``at``, past variation selectors
    and skin-tone modifiers."""
    index = at - 1
    while index >= 0 and (_is_variation_selector(ord(text[index])) or 0x1F3FB <= ord(text[index]) <= 0x1F3FF):
        index -= 1
    return text[index] if index >= 0 else ""


def _letter_before(text: str, at: int) -> str:
    """The letter before ``at``, past combining marks (a Persian letter with its vowel sign)."""
    index = at - 1
    while index >= 0 and unicodedata.category(text[index]) in ("Mn", "Mc"):
        index -= 1
    return text[index] if index >= 0 else ""


def _arabic_script(char: str) -> bool:
    return bool(char) and unicodedata.bidirectional(char) == "AL"


def _joiner_in_use(text: str, at: int, code: int) -> bool:
    """Whether the ZWJ/ZWNJ at ``at`` stands where its script uses it."""
    before = text[at - 1] if at else ""
    after = text[at + 1] if at + 1 < len(text) else ""
    if before and unicodedata.combining(before) == 9:
        return True  # after a virama: a conjunct's half form (RFC 5892 A.1, A.2)
    if _arabic_script(_letter_before(text, at)) or _arabic_script(after):
        return True  # joining or non-joining an Arabic-script letter (Persian, Urdu, Arabic)
    if code == ZWJ:
        base = _base_before(text, at)
        return bool(base and after) and _is_pictograph(base) and _is_pictograph(after)
    return False


def _word_break_in_use(text: str, at: int, line_start: int) -> bool:
    """Whether the zero-width space (or word joiner) at ``at`` marks a word break, breaks a
    link, or keeps a fence marker from being read as one."""
    before = text[at - 1] if at else ""
    after = text[at + 1] if at + 1 < len(text) else ""
    if (before and _in(ord(before), _NO_SPACE_SCRIPTS)) or (after and _in(ord(after), _NO_SPACE_SCRIPTS)):
        return True
    if before in ("@", "#"):
        return True
    return at - line_start <= 3 and not text[line_start:at].strip(" ") and _FENCE_AFTER.match(text, at + 1) is not None


def _decoded_tags(run: str) -> str:
    return "".join(chr(ord(c) - 0xE0000) for c in run if 0xE0020 <= ord(c) <= 0xE007E)


def _decoded_selectors(run: str) -> bytes:
    out = bytearray()
    for char in run:
        code = ord(char)
        if 0xFE00 <= code <= 0xFE0F:
            out.append(code - 0xFE00)
        elif 0xE0100 <= code <= 0xE01EF:
            out.append(code - 0xE0100 + 16)
    return bytes(out)


def _shown(data: str) -> str:
    """Decoded hidden text as a message quotes it: printable, at most 80 characters."""
    clean = "".join(c if c.isprintable() else "·" for c in data)
    return clean if len(clean) <= 80 else clean[:79] + "…"


def _balanced(line: str) -> bool:
    """Whether every embedding and isolate on the line is closed, in order, and every pop opened."""
    stack: list[str] = []
    for char in line:
        code = ord(char)
        if code in BIDI_EMBEDDINGS:
            stack.append("PDF")
        elif code in BIDI_ISOLATES:
            stack.append("PDI")
        elif code in BIDI_POP:
            if not stack or stack.pop() != BIDI_POP[code]:
                return False
    return not stack


def find_hidden(text: str, code_at=None, hidden_other: bool | None = None) -> list[Hidden]:
    """The hidden characters of ``text`` that have no legitimate use where they stand.

    ``code_at(offset) -> bool`` says whether an offset lies in code (a fenced block, a
    code span, a script): there no bidirectional control is legitimate. ``hidden_other``: whether
    the text holds a candidate other than U+FE0F, when a one-pass scan found it
    (:attr:`skilllint.skill.security.text_marks.Marks.hidden_other`); else its bytes are searched here."""
    if text.isascii():
        return []
    if hidden_other is None:
        data = _non_ascii_bytes(text)
        if CANDIDATE_BYTES.search(data) is None:
            return []
        hidden_other = CANDIDATE_BYTES.search(data.replace(_VS16_BYTES, b"")) is not None
    if not hidden_other and ("\ufe0f" not in text or _each_vs16_takes_a_glyph(text)):
        return []  # none, or only emoji presentation selectors, each after the character it styles (⚠️)
    found: list[Hidden] = []
    lines: dict[int, _Line] = {}  # what each line holding a candidate says, worked out once
    for start, end in _hidden_runs(text):
        if len(found) >= MAX_PER_TEXT:
            break
        if start == 0 and text[0] == "\ufeff":
            start += 1  # a byte-order mark opening the file
            if start == end:
                continue
        line_start = text.rfind("\n", 0, start) + 1
        line = lines.get(line_start)
        if line is None:
            line = lines[line_start] = _Line(text, line_start)
        found.extend(_judge_run(text, start, end, code_at, line))
    return _bidi_lines(text, found)


def _hidden_runs(text: str):
    """(start, end) of each run of default-ignorable characters (a hidden message is a run, judged as one)."""
    for match in CANDIDATE_RUN.finditer(text):
        start, end = match.span()
        if max(text[start:end]) < _ASTRAL_START:
            yield start, end  # BMP candidates only: each is default-ignorable
            continue
        index = start
        while index < end:
            if not is_default_ignorable(ord(text[index])):
                index += 1
                continue
            first = index
            while index < end and is_default_ignorable(ord(text[index])):
                index += 1
            yield first, index


class _Line:
    """One line of a text, and what is asked of it once, when first asked."""

    __slots__ = ("text", "start", "_rtl", "_named", "_balanced")

    def __init__(self, text: str, start: int) -> None:
        end = text.find("\n", start)
        self.text = text[start : len(text) if end < 0 else end]
        self.start = start
        self._rtl = self._named = self._balanced = None

    @property
    def rtl(self) -> bool:
        if self._rtl is None:
            self._rtl = RTL_LETTER.search(self.text) is not None
        return self._rtl

    @property
    def named(self) -> bool:
        if self._named is None:
            self._named = _NAMED.search(self.text) is not None
        return self._named

    @property
    def balanced(self) -> bool:
        if self._balanced is None:
            self._balanced = _balanced(self.text)
        return self._balanced


def _bidi_lines(text: str, found: list[Hidden]) -> list[Hidden]:
    """The bidirectional controls of one line reported once, as compilers do: they work together."""
    out: list[Hidden] = []
    count, codes, first = 1, set(), ""
    for item in found:
        last = out[-1] if out else None
        if last is not None and last.bidi and item.bidi and "\n" not in text[last.end : item.start]:
            count += 1
            codes.update(f"U+{ord(text[a]):04X}" for a, _ in item.removals())
            what = f"{count} bidirectional controls on one line ({', '.join(sorted(codes)[:9])}); the first: {first}"
            out[-1] = Hidden(last.start, item.end, what, True, False, last.removals() + item.removals())
        else:
            count, first = 1, item.what
            codes = {f"U+{ord(text[a]):04X}" for a, _ in item.removals()}
            out.append(item)
    return out


def _judge_run(text: str, start: int, end: int, code_at, line: _Line) -> list[Hidden]:
    run = text[start:end]
    codes = [ord(c) for c in run]
    # A hidden message: tag characters, or variation selectors beyond the one a glyph takes.
    tags = [c for c in codes if _is_tag(c)]
    if tags:
        before = text[start - 1] if start else ""
        spec = _decoded_tags(run[:200])
        if (
            len(tags) == len(codes)
            and before and ord(before) == WAVING_BLACK_FLAG
            and codes[-1] == CANCEL_TAG
            and _SUBDIVISION.fullmatch(spec)
        ):
            return []  # an emoji tag sequence: the flag of a subdivision (🏴 + gbeng + cancel)
        shown = f": they spell “{_shown(spec)}”" if spec.strip() else ""
        return [Hidden(start, end, f"{len(tags)} Unicode tag character{'s' if len(tags) > 1 else ''} ({_first_last(run)}), invisible when rendered{shown}", False, True)]
    selectors = [c for c in codes if _is_variation_selector(c)]
    if len(selectors) == len(codes):
        before = text[start - 1] if start else ""
        has_base = bool(before) and not before.isspace()
        if has_base and len(codes) == 1:
            return []  # one selector choosing its character's glyph (⚠️)
        if len(codes) > 1:
            data = _decoded_selectors(run[:200])
            try:
                shown = f": read as one byte each, they spell “{_shown(data.decode('utf-8'))}”"
            except UnicodeDecodeError:
                shown = f": read as one byte each, they carry {len(codes)} bytes of data"
            return [Hidden(start, end, f"{len(codes)} variation selectors in a row ({_first_last(run)}), more than a glyph takes{shown}", False, True)]
    # Otherwise each character on its own.
    out: list[Hidden] = []
    for index, code in enumerate(codes):
        at = start + index
        char = run[index]
        if code in BIDI_CONTROLS or code in BIDI_MARKS:
            if code in BIDI_MARKS:
                if line.rtl:
                    continue  # a mark in right-to-left text: its use
                out.append(Hidden(at, at + 1, f"U+{code:04X} ({_name(char)}) on a line without right-to-left letters, where it has no use", False, False))
                continue
            in_code = code_at is not None and code_at(at)
            if not in_code and code not in BIDI_OVERRIDES and line.rtl and line.balanced:
                continue  # a balanced embedding or isolate in right-to-left prose
            out.append(Hidden(at, at + 1, _bidi_account(code, char, in_code), True, False))
            continue
        if _in_use(text, at, code, line.start):
            continue
        if line.named:
            continue  # the line says the character is there
        out.append(Hidden(at, at + 1, _account(text, at, code, char), False, False))
    return _merged(out)


def _first_last(run: str) -> str:
    if len(run) == 1:
        return f"U+{ord(run[0]):04X}"
    return f"U+{ord(run[0]):04X} … U+{ord(run[-1]):04X}"


def _in_use(text: str, at: int, code: int, line_start: int) -> bool:
    """Whether the (non-bidirectional) character at ``at`` is where its legitimate use puts it."""
    before = text[at - 1] if at else ""
    after = text[at + 1] if at + 1 < len(text) else ""
    if code in (ZWJ, ZWNJ):
        return _joiner_in_use(text, at, code)
    if code in (ZWSP, WORD_JOINER, BOM):
        return _word_break_in_use(text, at, line_start)
    if _is_variation_selector(code):
        return bool(before) and not before.isspace() and not _is_variation_selector(ord(before))
    if code == SOFT_HYPHEN:
        return before.isalpha() and after.isalpha()
    if code == GRAPHEME_JOINER:
        return bool(after) and unicodedata.category(after).startswith("M")
    own = _OWN_SCRIPT.get(code)
    if own is not None:
        return (bool(before) and _in(ord(before), (own,))) or (bool(after) and _in(ord(after), (own,)))
    return False


def _bidi_account(code: int, char: str, in_code: bool) -> str:
    short = BIDI_EMBEDDINGS.get(code) or BIDI_ISOLATES.get(code) or BIDI_POP.get(code)
    effect = (
        "reverses the order the following letters are shown in"
        if code in BIDI_OVERRIDES
        else "changes the order the text around it is shown in"
    )
    where = "inside code, where the shown order and the order a program or the model reads differ" if in_code else "so what is shown differs from what the model reads"
    return f"U+{code:04X} ({_name(char)}, {short}) {effect}, {where} (the Trojan Source attack, CVE-2021-42574)"


def _account(text: str, at: int, code: int, char: str) -> str:
    before = text[at - 1] if at else ""
    after = text[at + 1] if at + 1 < len(text) else ""
    inside = before.isalnum() and after.isalnum()
    if inside:
        left = at
        while left > 0 and text[left - 1].isalnum() and at - left < 20:
            left -= 1
        right = at + 1
        while right < len(text) and text[right].isalnum() and right - at < 20:
            right += 1
        where = f" inside the word “{text[left:at]}<U+{code:04X}>{text[at + 1:right]}”"
    else:
        where = ""
    return f"U+{code:04X} ({_name(char)}){where} renders as nothing"


def _merged(found: list[Hidden]) -> list[Hidden]:
    """Adjacent characters of one kind reported as one run."""
    groups: list[list[Hidden]] = []
    for item in found:
        if groups and groups[-1][-1].end == item.start and groups[-1][-1].bidi == item.bidi:
            groups[-1].append(item)
        else:
            groups.append([item])
    out = []
    for group in groups:
        if len(group) == 1:
            out.append(group[0])
            continue
        first, last = group[0], group[-1]
        shown = ", ".join(g.what.partition(" ")[0] for g in group[:6]) + (", …" if len(group) > 6 else "")
        what = f"{len(group)} characters in a row that render as nothing ({shown}); the first: {first.what}"
        out.append(Hidden(first.start, last.end, what, first.bidi, False))
    return out
