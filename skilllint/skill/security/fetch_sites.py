"""Where SL804 looks for code fetched and run in one step (:mod:`skilllint.skill.security.fetch_and_run`
says what counts): each bundled script, by its language, and the commands SKILL.md's body gives the
agent (fenced shell and PowerShell blocks, a transcript's ``$ `` lines, code spans given to run),
less the downloads a warning beside them or a host named as an attacker's marks as an example."""

from __future__ import annotations

from dataclasses import dataclass

from ... import lazyre
from ..scripts.invocations import PROMPTED_FENCES, SHELL_FENCES
from ..scripts.lexers import Script, lex_powershell, lex_shell, package_scripts
from ..scripts.runner_pins import given_to_run
from ..text.markdown import CODE_SPAN, FENCE_LINE, atx_heading, is_atx_heading
from ..text.passages import Passages
from .fetch_and_run import HINT, PS_FENCES, candidate_lines, has_candidate, powershell_fetch_runs, program_fetch_runs, shell_fetch_runs
from .fetch_commands import FetchRun
from .text_marks import Marks, kept_in, marks_of

# A host that names an attacker: the text illustrates an attack, it does not give a command.
_ATTACKER_HOST = lazyre.compile(r"(?i)://[^/\s\"']*(?:attacker|evil|malicious|exfil|hackmolt)")

# Text that warns against what follows, or shows it as an attack.
_WARNING = lazyre.compile(
    r"(?i)\b(?:never|don['’]t|do not|avoid|instead of|rather than|anti-?patterns?|dangerous|insecure|unsafe"
    r"|malicious|attackers?|attacks?|exploits?|vulnerable|vulnerability|payloads?|bad practice|not recommended"
    r"|discouraged|red flags?|detects?|flags?)\b|❌|🚫|⛔|\bbad\b\s*[:(]"
)
# "ask the user to install it with …", "provide fix instructions:": the command is for the person,
# not the agent. Instructions, steps and fixes the agent is told to give are said to someone: an
# agent does not instruct itself.
_FOR_THE_USER = lazyre.compile(
    r"(?i)\b(?:ask|tell|instruct|advise|have|prompt|direct)\s+(?:the\s+)?user\b"
    r"|\b(?:provide|give|offer|suggest|recommend|share|present)\s+(?:[\w-]+\s+){0,3}?"
    r"(?:instructions?|steps|fix(?:es)?|remed(?:y|ies)|solutions?|guidance|advice)\b"
)
_LIST_OR_TABLE = lazyre.compile(r"[ \t]*(?:\||[-*+][ \t]|\d{1,9}[.)][ \t])")

def script_fetch_runs(script: Script, marks: Marks | None = None) -> list[FetchRun]:
    """What a bundled script fetches and runs in one step, by its language (``marks``: what
    :mod:`skilllint.skill.security.text_marks` found in its text, when the caller has it)."""
    if not has_candidate(script.text, script.lang in ("python", "js"), marks):
        return []
    if script.lang == "shell":
        runs = shell_fetch_runs(script.text, script.masked.code)
    elif script.lang == "powershell":
        runs = powershell_fetch_runs(script.text, script.masked.code)
    else:
        runs = program_fetch_runs(script)
    return [run for run in runs if not _ATTACKER_HOST.search(run.what)]


def package_script_fetch_runs(package, memo: dict | None = None) -> list[tuple[Script, list[FetchRun]]]:
    """The package's scripts that fetch code and run it, each with what it runs (``memo``: the
    rules' per-package scratch, where the scripts are kept once lexed)."""
    found = []
    kept = kept_in(memo)
    for script in package_scripts(package, memo):
        runs = script_fetch_runs(script, marks_of(script.text, kept))
        if runs:
            found.append((script, runs))
    return found


# -- SKILL.md ------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False, repr=False)
class SkillMdFetchRun:
    run: FetchRun
    line: int  # in SKILL.md
    column: int  # 1-based
    fenced: bool


def skill_md_fetch_runs(package, memo: dict | None = None) -> list[SkillMdFetchRun]:
    """What the commands SKILL.md's body gives the agent fetch and run in one step: fenced shell and
    PowerShell blocks (in a transcript, the lines after a ``$ `` prompt) and code spans given to run
    (``memo``: the rules' per-package scratch, where SKILL.md's marks are shared)."""
    if not package.readable:
        return []
    raw = package.source.text
    hint_lines = candidate_lines(raw, package.body_start_line, marks=marks_of(raw, kept_in(memo)))
    if not hint_lines:
        return []
    lines = package.source.lines
    body_start = package.body_start_line
    found: list[SkillMdFetchRun] = []
    fenced: set[int] = set()
    for info, numbers in package.body_fenced_blocks:
        fenced.update(numbers)
        shell = info in SHELL_FENCES or info == ""
        if not shell and info not in PS_FENCES:
            continue
        texts = [(number, lines[number - 1]) for number in numbers[1:] if number - 1 < len(lines)]
        if texts and FENCE_LINE.match(texts[-1][1]):
            texts = texts[:-1]
        if not any(number in hint_lines for number, _ in texts):
            continue
        prompted = info in PROMPTED_FENCES or any(line.lstrip().startswith("$ ") for _, line in texts)
        kept = []
        previous_continued = False
        for _, line in texts:
            stripped = line.lstrip()
            if prompted and stripped.startswith("$ "):
                at = len(line) - len(stripped)
                line = " " * (at + 2) + line[at + 2 :]
            elif prompted and not previous_continued:
                line = ""
            previous_continued = line.rstrip().endswith("\\")
            kept.append(line)
        block = "\n".join(kept)
        masked = lex_shell(block) if shell else lex_powershell(block)
        runs = shell_fetch_runs(block, masked.code) if shell else powershell_fetch_runs(block, masked.code)
        if not runs or _warned_block(lines, numbers[0], body_start):
            continue
        for run in runs:
            line_index, column = masked.position(run.offset)
            number = texts[line_index - 1][0]
            if _ATTACKER_HOST.search(run.what) or _warned_comment(kept, line_index - 1):
                continue
            found.append(SkillMdFetchRun(run, number, column, True))
    passages: Passages | None = None
    seen = {(item.run.runner, item.run.what) for item in found}
    for index in sorted(hint_lines):
        if index in fenced:
            continue
        text = lines[index - 1]
        if "`" not in text:
            continue
        table = text.lstrip().startswith("|")
        for span in CODE_SPAN.finditer(text):
            content = span.group(2)
            if not HINT.search(content):
                continue
            if table:
                content = content.replace("\\|", " |")  # a pipe escaped in a table cell
            runs = shell_fetch_runs(content)
            if not runs:
                continue
            if passages is None:
                passages = Passages(lines, 0, fenced)
            before, _ = passages.sentence_around(index, span.start())
            if not given_to_run(before, "") or _WARNING.search(before) or _FOR_THE_USER.search(before):
                continue
            lead = _lead_in(lines, index, body_start, fenced)
            if lead and _FOR_THE_USER.search(lead):
                continue  # a row or item of what the agent is told to hand to the user
            for run in runs:
                if _ATTACKER_HOST.search(run.what) or (run.runner, run.what) in seen:
                    continue
                seen.add((run.runner, run.what))
                found.append(SkillMdFetchRun(run, index, span.start(2) + run.offset + 1, False))
    found.sort(key=lambda item: (item.line, item.column))
    return found


def _lead_in(lines: list[str], number: int, body_start: int, fenced: set[int]) -> str:
    """The sentence that introduces the table or list holding file line ``number`` ("If any check
    fails, provide fix instructions:"), when one does: the paragraph line ending in a colon before
    it, across the tables and lists beside it and the subheadings of its own section ("### Docker
    issues" under the "## Environment check" that holds the sentence)."""
    if not _LIST_OR_TABLE.match(lines[number - 1]):
        return ""
    deepest_crossed = 7  # the highest heading level walked past (smaller is higher)
    index = number - 2
    while index >= body_start and number - index < 200:
        if index + 1 in fenced:
            return ""  # a code block between: the sentence before it introduces the block
        line = lines[index]
        heading = atx_heading(line)
        if heading is not None:
            deepest_crossed = min(deepest_crossed, heading[0])
        elif line.strip() and not _LIST_OR_TABLE.match(line):
            break
        index -= 1
    else:
        return ""
    text = lines[index].strip()
    if not text.rstrip("*_ ").endswith(":"):
        return ""
    if deepest_crossed < 7:
        section = index - 1
        while section >= body_start and (section + 1 in fenced or not is_atx_heading(lines[section])):
            section -= 1
        level = atx_heading(lines[section])[0] if section >= body_start else 0
        if deepest_crossed <= level:
            return ""  # a heading of its own level or above ends what the sentence introduces
    return text


def _warned_block(lines: list[str], fence_line: int, body_start: int) -> bool:
    """Whether the text right before a fenced block (its lead-in, and the heading of its section)
    warns against it or shows it as an attack."""
    lead: list[str] = []
    index = fence_line - 2
    while index >= body_start and len(lead) < 2:
        line = lines[index]
        if is_atx_heading(line):
            break
        if line.strip() and not FENCE_LINE.match(line):
            lead.append(line)
        elif lead:
            break
        index -= 1
    while index >= body_start and not is_atx_heading(lines[index]):
        index -= 1
    heading = lines[index] if index >= body_start else ""
    return any(_WARNING.search(text) for text in (*lead, heading))


def _warned_comment(kept: list[str], at: int) -> bool:
    """Whether the comment line right above a command in a block warns against it (``# BAD: …``)."""
    index = at - 1
    while index >= 0 and not kept[index].strip():
        index -= 1
    return index >= 0 and kept[index].lstrip().startswith("#") and _WARNING.search(kept[index]) is not None
