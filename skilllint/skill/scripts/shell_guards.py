"""Where a shell text has made sure a command is there before it runs it (SL703).

``npx tool`` and ``bunx tool`` fetch nothing when ``tool`` is already there: in the project's
``node_modules/.bin`` or on the PATH. A script says so by its structure:

- a test that the command exists guards the call: ``command -v tool && npx tool``, ``if command -v
  tool …; then npx tool …; fi``, or the ``else`` of ``if ! command -v tool``;
- a failed test is answered before the call: ``if ! command -v tool; then npm install -D pkg; fi``
  or ``… then echo "install tool"; exit 1; fi`` (``command -v tool || exit 1``), after which the
  command is there, whatever package provides it. A test may also run the command itself
  (``npx asc --version``, ``tool --help``) or look the package up in ``package.json`` (``grep -q
  pkg package.json``).

The text is read as written: ``if``/``then``/``elif``/``else``/``fi`` at the start of a command
(comments, strings and heredoc bodies already blanked in ``code``), and the simple commands of
:func:`shell_commands`.
"""

from __future__ import annotations

import posixpath
from bisect import bisect_left
from dataclasses import dataclass, field

from ... import lazyre
from ..security.fetch_commands import plain_words
from .shell_commands import Command, command_words

_TOKEN = lazyre.compile(r"[^\s;&|()]+|[;&|()\n]")
_STARTS_COMMAND = frozenset({"if", "then", "elif", "else", "do", "while", "until", "!", "{", "time"})
_STRUCTURE = frozenset({"if", "then", "elif", "else", "fi"})
_LOOKUP_COMMANDS = frozenset({"which", "type", "hash", "whereis"})
_PROBE_OPTIONS = frozenset({"--version", "-v", "-V", "version", "--help", "-h", "help"})
_PACKAGE_NAME = lazyre.compile(r"@?[a-z0-9][\w.-]*(?:/[\w.-]+)?")
_NPM_RUNNERS = frozenset({"npx", "bunx"})
_INSTALLERS = {"npm": {"install", "i", "add"}, "pnpm": {"add", "install", "i"}, "yarn": {"add"}, "bun": {"add", "install", "i"}}
_LEAVES = frozenset({"exit", "return"})


@dataclass(eq=False, repr=False)
class _Clause:
    condition: tuple[int, int]
    body: tuple[int, int]


@dataclass(eq=False, repr=False)
class _If:
    start: int
    end: int = -1
    clauses: list[_Clause] = field(default_factory=list)
    otherwise: tuple[int, int] | None = None


@dataclass(frozen=True, eq=False, repr=False)
class _Probe:
    """A command that tests whether ``names`` are there."""

    command: Command
    names: frozenset[str]
    negated: bool


def _probe_names(words: list[str], keywords: tuple[str, ...], names_of) -> frozenset[str]:
    """What a command tests the presence of: ``command -v x``, ``which x``, ``x --version``,
    ``npx x --version``, ``grep -q pkg package.json``; empty for any other command."""
    words = plain_words(words)
    if not words:
        return frozenset()
    head = posixpath.basename(words[0])
    rest = words[1:]
    if ("command" in keywords and head in ("-v", "-V")) or head in _LOOKUP_COMMANDS:
        return frozenset(word for word in rest if not word.startswith("-"))
    if head == "grep" and "package.json" in rest:
        patterns = [word for word in rest if not word.startswith("-") and word != "package.json"]
        if len(patterns) == 1 and _PACKAGE_NAME.fullmatch(patterns[0].strip("\"'")):
            return frozenset(names_of(patterns[0].strip("\"'")))
        return frozenset()
    if head in _NPM_RUNNERS:
        rest = [word for word in rest if word not in ("-y", "--yes", "--no-install", "--no")]
        if rest and not rest[0].startswith("-"):
            head, rest = rest[0], rest[1:]
    if rest and all(word in _PROBE_OPTIONS for word in rest):
        return frozenset({head})
    return frozenset()


class LocalCommands:
    """What a shell text has made sure is there, at each of its commands."""

    def __init__(self, text: str, code: str, commands: list[Command], names_of) -> None:
        self.text = text
        self.code = code
        self.commands = commands
        self.names_of = names_of  # a package name -> the commands it may provide
        self._ifs: list[_If] | None = None
        self._probes: list[_Probe] | None = None
        self._found: tuple[list[tuple[int, int, frozenset[str]]], set[int]] | None = None
        self._starts = [command.start for command in commands]

    # -- reading the text

    def _structure(self) -> list[_If]:
        if self._ifs is not None:
            return self._ifs
        ifs: list[_If] = []
        stack: list[tuple[_If, str, int]] = []  # the `if`, what is being read (condition, body, else), from where
        at_start = True
        for token in _TOKEN.finditer(self.code):
            word = token.group(0)
            if word in ";&|()\n":
                at_start = True
                continue
            if not at_start:
                continue
            at_start = word in _STARTS_COMMAND
            if word not in _STRUCTURE:
                continue
            position, after = token.start(), token.end()
            if word == "if":
                statement = _If(position)
                ifs.append(statement)
                stack.append((statement, "condition", after))
                continue
            if not stack:
                continue
            statement, reading, since = stack.pop()
            if word == "then" and reading == "condition":
                stack.append((statement, "body", after))
                statement.clauses.append(_Clause((since, position), (after, after)))
            elif word == "elif" and reading == "body":
                statement.clauses[-1].body = (since, position)
                stack.append((statement, "condition", after))
            elif word == "else" and reading == "body":
                statement.clauses[-1].body = (since, position)
                stack.append((statement, "else", after))
            elif word == "fi":
                if reading == "body":
                    statement.clauses[-1].body = (since, position)
                elif reading == "else":
                    statement.otherwise = (since, position)
                statement.end = after
            else:
                stack.append((statement, reading, since))  # not what this place can hold: read on
        for statement, reading, since in stack:  # unclosed at the end of the text
            if reading == "body":
                statement.clauses[-1].body = (since, len(self.code))
            elif reading == "else":
                statement.otherwise = (since, len(self.code))
        self._ifs = ifs
        return ifs

    def _all_probes(self) -> list[_Probe]:
        if self._probes is None:
            self._probes = []
            for command in self.commands:
                name = posixpath.basename(command.name)
                if not (name in ("-v", "-V", "grep") or name in _LOOKUP_COMMANDS or "--" in self.code[command.start : command.end]
                        or " -" in self.code[command.start : command.end] or name in _PROBE_OPTIONS):
                    continue
                names = _probe_names(command_words(self.text, command), command.keywords, self.names_of)
                if names:
                    self._probes.append(_Probe(command, names, "!" in command.keywords))
        return self._probes

    def _regions(self) -> tuple[list[tuple[int, int, frozenset[str]]], set[int]]:
        """Where the text has made sure of what: (from, to, names), and the probes an ``if !``
        answers (by their command's start)."""
        if self._found is not None:
            return self._found
        probes = self._all_probes()
        regions: list[tuple[int, int, frozenset[str]]] = []
        answered: set[int] = set()
        if not probes:
            self._found = (regions, answered)
            return self._found

        def tested(span: tuple[int, int], negated: bool) -> list[_Probe]:
            return [probe for probe in probes if span[0] <= probe.command.start < span[1] and probe.negated == negated]

        end = len(self.code)
        for statement in self._structure():
            negated_names: set[str] = set()
            for index, clause in enumerate(statement.clauses):
                for probe in tested(clause.condition, False):
                    regions.append((clause.body[0], clause.body[1], probe.names))  # `if command -v tool; then npx tool`
                absent = tested(clause.condition, True)
                negated_names.update(*(probe.names for probe in absent))
                if index == 0 and absent and statement.end >= 0 and self._answers_absence(clause.body):
                    for probe in absent:  # after `if ! command -v tool; then install or leave; fi`
                        regions.append((statement.end, end, probe.names))
                        answered.add(probe.command.start)
            if statement.otherwise and negated_names:
                regions.append((statement.otherwise[0], statement.otherwise[1], frozenset(negated_names)))  # `else`
        for probe in probes:
            tail = self.code[probe.command.end : probe.command.end + 2]
            if probe.negated or tail not in ("&&", "||"):
                continue
            line_end = self.code.find("\n", probe.command.end)
            line_end = end if line_end < 0 else line_end
            if tail == "&&":  # `command -v tool && npx tool`: the rest of the list
                list_end = self.code.find(";", probe.command.end, line_end)
                regions.append((probe.command.end, line_end if list_end < 0 else list_end, probe.names))
            elif self._answers_absence((probe.command.end, line_end)):  # `command -v tool || exit 1`
                regions.append((line_end, end, probe.names))
        self._found = (regions, answered)
        return self._found

    def _answers_absence(self, span: tuple[int, int]) -> bool:
        """Whether the commands in ``span`` leave (``exit``, ``return``) or install packages."""
        starts = self._starts
        index = bisect_left(starts, span[0])
        while index < len(starts) and starts[index] < span[1]:
            command = self.commands[index]
            index += 1
            name = posixpath.basename(command.name)
            if name in _LEAVES:
                return True
            if name in _INSTALLERS:
                words = command_words(self.text, command)
                if len(words) > 2 and words[1] in _INSTALLERS[name]:
                    return True
        return False

    # -- the question

    def names_there(self, command: Command) -> frozenset[str]:
        """The commands the text has made sure are there when ``command`` runs; for the test of
        an ``if !`` whose body installs or leaves, what it tests (it asks whether the command is
        there, and the script answers a no)."""
        if not self.commands:
            return frozenset()
        regions, answered = self._regions()
        start = command.start
        names: set[str] = set()
        for begin, finish, found in regions:
            if begin <= start < finish:
                names.update(found)
        if start in answered:
            names.update(*(probe.names for probe in self._all_probes() if probe.command.start == start))
        return frozenset(names)
