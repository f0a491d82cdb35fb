"""Where a package holds code the security behaviour rules (SL81x) read: each bundled script, in its
language, and each fenced code block of SKILL.md and of every Markdown document of the package whose
info word names a language (a shell transcript's ``$ `` lines taken as its commands).

A unit keeps where it sits, so that a finding names the file and the line of what it saw. Blocks
inside a Markdown template block (a README the skill writes) are read too: the agent writes and
often runs them. What a unit is for (a warning, a quoted attack) is for each rule to judge.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ... import lazyre
from ..scripts.lexers import package_scripts
from ..text.markdown import fenced_blocks, is_atx_heading
from .package_texts import DOCUMENT, SKILL_MD, package_texts

# Info words of fenced blocks, by the language the block is read in.
_FENCE_LANGUAGES = {
    **dict.fromkeys(("bash", "sh", "shell", "zsh", "ksh", "console", "shell-session", "shellsession", "sh-session", "terminal"), "shell"),
    **dict.fromkeys(("python", "py", "python3", "pycon"), "python"),
    **dict.fromkeys(("javascript", "js", "node", "mjs", "cjs", "typescript", "ts", "jsx", "tsx"), "js"),
    **dict.fromkeys(("powershell", "ps1", "pwsh"), "powershell"),
}
_TRANSCRIPTS = frozenset({"console", "shell-session", "shellsession", "sh-session", "terminal", "pycon"})

# The most code units read from one package: a package of thousands of documents is read up to here.
MAX_UNITS = 4000


@dataclass(eq=False, repr=False)
class CodeUnit:
    """A piece of code in the package: a whole script, or one fenced block of a Markdown file."""

    rel: str  # the file holding it, package-relative
    lang: str  # shell | python | js | powershell
    text: str  # the code (a block without its fences; a transcript's prompts removed)
    first_line: int  # the file's line of the code's first line (1-based)
    kind: str  # "script" or "block"
    _attack: bool | None = field(default=False, repr=False)  # None: not judged yet (see _context)
    _context: tuple | None = field(default=None, repr=False)  # (document lines, fence line, its sections)

    @property
    def named(self) -> str:
        """How a finding names this code: a fenced block of a document, or a script."""
        return "this block" if self.kind == "block" else "this script"

    @property
    def shown_as_attack(self) -> bool:
        """Whether the text around a block presents it as an attack or a bad example (judged on
        first asking: an analysis asks only of a unit that could hold what it looks for)."""
        if self._attack is None:
            lines, fence_line, sections = self._context
            self._attack = _shown_as_attack(lines, fence_line, self.text.split("\n")[:3], sections)
            self._context = None
        return self._attack

    def line_of(self, offset: int) -> int:
        """The file line of an offset in :attr:`text`."""
        return self.first_line + self.text.count("\n", 0, offset)


def code_units(package, memo: dict | None = None) -> list[CodeUnit]:
    """Every :class:`CodeUnit` of the package, scripts first (kept in ``memo``, the rules'
    per-package scratch)."""
    memo = memo if memo is not None else {}
    cached = memo.get("security.code_units")
    if cached is not None:
        return cached
    units: list[CodeUnit] = []
    for script in package_scripts(package, memo):
        if script.lang in ("shell", "python", "js", "powershell"):
            units.append(CodeUnit(script.rel, script.lang, script.text, 1, "script"))
    for text in package_texts(package, memo):
        if len(units) >= MAX_UNITS:
            break
        if text.kind not in (SKILL_MD, DOCUMENT) or not text.is_markdown or "```" not in text.text and "~~~" not in text.text:
            continue
        units.extend(_blocks(text.rel, text.text, text.body_start))
    memo["security.code_units"] = units[:MAX_UNITS]
    return memo["security.code_units"]


def _blocks(rel: str, text: str, body_start: int) -> list[CodeUnit]:
    lines = text.split("\n")
    found = []
    sections = _Sections(lines)
    for info, numbers in fenced_blocks(lines, body_start):
        lang = _FENCE_LANGUAGES.get(info)
        if lang is None or len(numbers) < 3:
            continue
        inner = numbers[1:-1] if numbers[-1] <= len(lines) and lines[numbers[-1] - 1].strip().startswith(("```", "~~~")) else numbers[1:]
        if not inner:
            continue
        code_lines = [lines[n - 1] for n in inner if n - 1 < len(lines)]
        if info in _TRANSCRIPTS:
            code_lines = _commands_of_transcript(code_lines, lang)
        found.append(CodeUnit(rel, lang, "\n".join(code_lines), inner[0], "block", None, (lines, numbers[0], sections)))
    return found


# What says a block shows an attack or what not to do: the block's own opening comment, the line
# leading into it, or the heading of its section. Words that name the harm, not a topic
# ("Detect duplicates" or "Usage patterns" say nothing of the kind).
_ATTACK_WORDS = lazyre.compile(
    r"(?i)\b(?:malicious|attacks?|attackers?|exploits?|exploitation|vulnerable|vulnerability|insecure|unsafe|dangerous"
    r"|red flags?|suspicious|backdoors?|exfiltrat\w*|bad (?:example|practice|pattern)|anti-?patterns?|never do|do not do"
    r"|don['’]t do|wrong)\b|❌|🚫|⛔|\bbad\s*[:(]"
)


def _shown_as_attack(lines: list[str], fence_line: int, code_lines: list[str], sections: "_Sections") -> bool:
    """Whether the text presents the block opening at ``fence_line`` (1-based) as an attack: its
    first comment lines, the last non-blank line before it, or a heading of the section it sits
    in ("## Reverse Shells and Backdoors" over "### Socket-Based")."""
    for line in code_lines[:3]:
        stripped = line.strip()
        if stripped.startswith(("#", "//", "--", "<!--")) and _ATTACK_WORDS.search(stripped):
            return True
    lead = next((lines[n].strip() for n in range(fence_line - 2, -1, -1) if lines[n].strip()), "")
    if lead and not lead.startswith("```") and _ATTACK_WORDS.search(lead):
        return True
    return any(_ATTACK_WORDS.search(heading) for heading in sections.path_at(fence_line - 1))


class _Sections:
    """The headings whose sections hold a line. The headings are found with one search of the
    text, and blocks are asked about in order, so each heading is read once whatever the number
    of blocks."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.headings: list[tuple[int, str]] | None = None  # (0-based line, heading), found on first asking
        self.next = 0  # the first heading not yet read
        self.stack: list[tuple[int, str]] = []  # (level, heading) of the open sections, outermost first

    def _find(self) -> list[tuple[int, str]]:
        text = "\n".join(self.lines)
        headings, line, at = [], 0, 0
        for match in _HEADING_LINE.finditer(text):
            line += text.count("\n", at, match.start())
            at = match.start()
            if is_atx_heading(match.group()):
                headings.append((line, match.group()))
        return headings

    def path_at(self, before: int) -> list[str]:
        """The headings of the sections line ``before`` (0-based) lies in, from any level. Asked
        about blocks in any order: a block above the last one asked starts the reading over."""
        if self.headings is None:
            self.headings = self._find()
        if self.next and self.headings[self.next - 1][0] >= before:
            self.next, self.stack = 0, []
        while self.next < len(self.headings) and self.headings[self.next][0] < before:
            line = self.headings[self.next][1]
            self.next += 1
            level = len(line) - len(line.lstrip("#"))
            while self.stack and self.stack[-1][0] >= level:
                self.stack.pop()
            self.stack.append((level, line))
        return [heading for _, heading in self.stack]


_HEADING_LINE = lazyre.compile(r"(?m)^#{1,6}(?:[ \t][^\n]*)?$")


def _commands_of_transcript(lines: list[str], lang: str) -> list[str]:
    """A transcript's input lines, prompts removed; its output lines blanked (kept as empty lines,
    so that line numbers still count)."""
    prompts = (">>> ", "... ") if lang == "python" else ("$ ", "# ", "% ")
    kept = []
    for line in lines:
        stripped = line.lstrip()
        prompt = next((p for p in prompts if stripped.startswith(p)), None)
        kept.append(stripped[len(prompt) :] if prompt else "")
    return kept
