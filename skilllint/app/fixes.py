"""Fixes: applying fixes to files (``check --fix`` / ``--diff``).

A rule that finds a problem may attach a :class:`~skilllint.diagnostics.Fix`:
a short title, an applicability (``safe``: ``--fix`` applies it; ``unsafe``:
only with ``--unsafe-fixes``) and text edits, built with :mod:`skilllint.edits`.

Applying (:func:`fix_paths`) lints, applies every applicable fix whose edits
do not overlap an earlier one (the others wait for the next pass), and lints
again, in memory (:func:`skilllint.fsafe.overlay`), until no fix applies or
:data:`MAX_PASSES` passes ran. Only then are files written, each atomically
(a temporary file in the same folder, fsync, ``os.replace``) with its mode
kept, and never a symbolic link, a file whose real location is outside the
linted tree, a file over the size cap or one that changed on disk meanwhile.
"""

from __future__ import annotations

import difflib
import os
import stat
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ..diagnostics import Diagnostic, Fix
from ..edits import LINE_BREAK, FixError, LineIndex, apply_edits, offsets

MAX_PASSES = 10
"""Lint-and-fix passes before giving up (a fix that keeps re-appearing)."""


def _overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    if a[0] == a[1] == b[0] == b[1]:
        return True  # two insertions at one place: their order would be a guess
    return a[0] < b[1] and b[0] < a[1]


def applicable(fix: Fix | None, unsafe: bool) -> bool:
    """Whether ``--fix`` applies ``fix`` (unsafe ones only with ``--unsafe-fixes``)."""
    return fix is not None and bool(fix.edits) and (fix.applicability == "safe" or unsafe)


# -- the fix loop ------------------------------------------------------------------------


@dataclass(eq=False, repr=False)
class FixRun:
    """What ``--fix`` / ``--diff`` did."""

    result: object  # the LintResult of the fixed text: the problems that remain
    fixed: Counter = field(default_factory=Counter)  # problems fixed, per rule code
    applied: list[Diagnostic] = field(default_factory=list)  # the findings whose fix was applied
    changed: dict[Path, tuple[str, str]] = field(default_factory=dict)  # path -> (original, fixed text)
    refused: dict[Path, str] = field(default_factory=dict)  # path -> why its fixes were not applied
    passes: int = 0
    converged: bool = True
    written: list[Path] = field(default_factory=list)
    write_errors: dict[Path, str] = field(default_factory=dict)
    not_written: Counter = field(default_factory=Counter)  # path -> problems whose fix it would have carried
    # temporary files an earlier `--fix` left when it was killed: removed, or why not
    removed_temps: list[str] = field(default_factory=list)
    kept_temps: dict[str, str] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(self.fixed.values())


def lint_roots(paths: list[str], cwd: Path) -> list[Path]:
    """The trees the user asked to lint, as discovery takes them: a folder
    given, or for a file the skill folder holding it. Nothing outside them is
    ever written."""
    from ..discovery.walk import package_of_file
    from ..fsafe import added_entry

    roots = []
    for raw in paths or ["."]:
        path = Path(raw)
        path = Path(os.path.normpath(path if path.is_absolute() else cwd / path))
        if os.path.isdir(path):  # False where it cannot be looked at: discovery says why
            roots.append(path)
        elif os.path.isfile(path) or added_entry(path) is not None:  # a file, or a new one standard input stands for
            owner = package_of_file(path)
            if owner is not None:
                roots.append(owner)
    return roots


def _key(path: Path) -> str:
    return os.path.normpath(os.path.abspath(path))


def refusal(path: Path, roots: list[Path]) -> str | None:
    """Why ``path`` must not be written, or None."""
    from ..fsafe import is_within, real_path, real_path_or_given

    try:
        info = os.lstat(path)
        real = Path(real_path(path))
    except OSError as exc:
        return f"cannot be read: {exc.strerror or exc}"
    if stat.S_ISLNK(info.st_mode):
        return "is a symbolic link; skilllint never writes through one"
    if not stat.S_ISREG(info.st_mode):
        return "is not a regular file"
    if not any(is_within(Path(real_path_or_given(root)), real) for root in roots):
        return "lies outside the linted tree; skilllint writes only inside it"
    return None


class _Files:
    """The current text of every file being fixed, original and fixed; with ``stdin``
    (:class:`skilllint.cli.stdin.StdinFile`) only standard input's text is fixed, and
    ``overlaid`` (path -> bytes) stands for other files, read only."""

    def __init__(self, roots: list[Path], max_bytes: int, stdin=None, overlaid=None) -> None:
        self.roots = roots
        self.max_bytes = max_bytes
        self.original: dict[str, tuple[Path, bytes, str]] = {}  # key -> (path, bytes, text)
        # what the overlay serves
        self.current: dict[str, bytes] = {**(overlaid or {}), **stdin.contents()} if stdin is not None else {}
        self.refused: dict[Path, str] = {}
        self.stdin = stdin

    def text(self, path: Path) -> str | None:
        """The file's current text, or None (refused; the reason is recorded)."""
        from ..fsafe import UnsafeFile, read_capped

        key = _key(path)
        if key in self.original:
            return self.current[key].decode("utf-8")
        if path in self.refused:
            return None
        if self.stdin is not None:
            return self._stdin_text(path, key)
        why = refusal(path, self.roots)
        if why is None:
            try:
                result = read_capped(path, self.max_bytes)
                if result.truncated:
                    why = "is larger than the size cap; it was not read whole"
                else:
                    text = result.data.decode("utf-8")
                    self.original[key] = (path, result.data, text)
                    self.current[key] = result.data
                    return text
            except UnsafeFile as exc:
                why = str(exc)
            except UnicodeDecodeError:
                why = "is not valid UTF-8"
        self.refused[path] = why
        return None

    def _stdin_text(self, path: Path, key: str) -> str | None:
        """Standard input's text, when ``path`` is its file and may be fixed as a file there
        could be (a new file may); any other file None, unrecorded: nothing is written."""
        if key != self.stdin.key:
            return None
        why = refusal(path, self.roots) if os.path.lexists(path) else None
        data = self.current[key]
        if why is None and len(data) > self.max_bytes:
            why = "is larger than the size cap; it was not read whole"
        if why is None:
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                why = "is not valid UTF-8"
            else:
                self.original[key] = (path, data, text)
                return text
        self.refused[path] = why
        return None

    def set(self, path: Path, text: str) -> None:
        key = _key(path)
        keys = self.stdin.contents() if self.stdin is not None and key == self.stdin.key else (key,)
        for alias in keys:  # standard input's file by its path and its real path
            self.current[alias] = text.encode("utf-8")


def fix_paths(
    paths: list[str],
    settings,
    cwd: Path,
    force_exclude: bool = False,
    unsafe: bool = False,
    write: bool = True,
    max_passes: int = MAX_PASSES,
    stdin=None,
    overlaid=None,
) -> FixRun:
    """Lint ``paths`` and apply every applicable fix until none applies.

    ``write=False`` (``--diff``) leaves the disk alone: ``changed`` holds what
    would be written. ``stdin`` (:class:`skilllint.cli.stdin.StdinFile`): its text stands
    for its file, only that text is fixed, nothing is written, and ``stdin.fixed``
    gets the text as fixed. ``overlaid`` (with ``stdin`` only): other files' texts that stand
    for what is on disk, read only (the language server's other open documents)."""
    from ..lint.engine import lint_paths
    from ..fsafe import overlay

    files = _Files(lint_roots(paths, cwd), settings.read_cap(), stdin, overlaid)
    write = write and stdin is None
    run = FixRun(result=None)
    with overlay(files.current, stdin.new_files() if stdin is not None else ()):
        result = lint_paths(paths, settings, cwd, force_exclude=force_exclude)
        if write and result.abandoned_fix_temps:
            _remove_abandoned_temps(result, run)
        while True:
            todo = [d for d in result.diagnostics if applicable(d.fix, unsafe)]
            if not todo:
                break
            if run.passes >= max_passes:
                run.converged = False
                break
            run.passes += 1
            if not _one_pass(todo, files, run):
                break  # every fix left was refused or changed nothing
            result = lint_paths(paths, settings, cwd, force_exclude=force_exclude)
    run.refused = dict(files.refused)
    for key, (path, data, text) in files.original.items():
        if files.current[key] != data:
            run.changed[path] = (text, files.current[key].decode("utf-8"))
    if stdin is not None:
        stdin.fixed = files.current[stdin.key]
    if write:
        for path, (old, new) in sorted(run.changed.items()):
            try:
                write_atomic(path, new.encode("utf-8"), files.original[_key(path)][1], files.roots)
                run.written.append(path)
            except (OSError, FixError) as exc:
                run.write_errors[path] = str(exc) if isinstance(exc, FixError) else (exc.strerror or str(exc))
        if run.write_errors:
            _count_only_what_was_written(run)
            # what is on disk is not what was linted last: lint it again
            result = lint_paths(paths, settings, cwd, force_exclude=force_exclude)
    run.result = result
    return run


def _remove_abandoned_temps(result, run: FixRun) -> None:
    """Remove the temporary files earlier runs left (``result.abandoned_fix_temps``);
    ``run`` records which went and why the others stay."""
    from ..safewrite import remove_abandoned_fix_temp

    for path in result.abandoned_fix_temps:
        why = remove_abandoned_fix_temp(path)
        if why is None:
            run.removed_temps.append(path)
        else:
            run.kept_temps[path] = why
    result.abandoned_fix_temps = list(run.kept_temps)


def _count_only_what_was_written(run: FixRun) -> None:
    """A problem is fixed when every file its fix edits was written: the others leave
    ``fixed`` and ``applied`` and are counted in ``not_written`` under the first file
    that could not be written."""
    failed = {_key(path): path for path in run.write_errors}
    kept = []
    for diagnostic in run.applied:
        unwritten = [failed[_key(item.path)] for item in diagnostic.fix.edits if _key(item.path) in failed]
        if unwritten:
            run.not_written[unwritten[0]] += 1
        else:
            kept.append(diagnostic)
    run.applied = kept
    run.fixed = Counter(d.code for d in kept)


def _one_pass(todo: list[Diagnostic], files: _Files, run: FixRun) -> bool:
    """Apply the fixes of one pass; whether any text changed."""
    todo.sort(key=lambda d: (str(d.fix.edits[0].path), d.fix.edits[0].span.line, d.fix.edits[0].span.column, d.code))
    texts: dict[Path, str] = {}
    indexes: dict[Path, LineIndex] = {}
    taken: dict[Path, list[tuple[int, int]]] = {}
    chosen: dict[Path, list[tuple[int, int, str]]] = {}
    applied: set[tuple] = set()
    fixed: list[Diagnostic] = []
    for diagnostic in todo:
        fix = diagnostic.fix
        resolved = []
        try:
            for item in fix.edits:
                if item.path not in texts:
                    text = files.text(item.path)
                    if text is None:
                        raise FixError(files.refused.get(item.path, "cannot be fixed"))
                    texts[item.path] = text
                    indexes[item.path] = LineIndex(text)
                start, end = offsets(item, indexes[item.path])
                resolved.append((item.path, start, end, item.text))
        except FixError:
            continue
        if all(texts[p][s:e] == t for p, s, e, t in resolved):
            continue  # changes nothing: not a fix of this text
        identity = tuple(sorted((str(p), s, e, t) for p, s, e, t in resolved))
        if identity in applied:  # the same edits fix another finding too (one problem, two codes)
            fixed.append(diagnostic)
            continue
        if any(_overlaps((s, e), other) for p, s, e, _ in resolved for other in taken.get(p, [])):
            continue  # the next pass
        if any(_overlaps((s, e), (s2, e2)) for i, (p, s, e, _) in enumerate(resolved) for p2, s2, e2, _ in resolved[i + 1 :] if p == p2):
            continue  # a fix whose own edits overlap is broken; leave it
        for path, start, end, text in resolved:
            taken.setdefault(path, []).append((start, end))
            chosen.setdefault(path, []).append((start, end, text))
        applied.add(identity)
        fixed.append(diagnostic)
    changed = False
    for path, ranges in chosen.items():
        new = apply_edits(texts[path], ranges)
        if new != texts[path]:
            files.set(path, new)
            changed = True
    if changed:
        run.fixed.update(d.code for d in fixed)
        run.applied.extend(fixed)
    return changed


# -- writing -------------------------------------------------------------------------------


def write_atomic(path: Path, data: bytes, expected: bytes, roots: list[Path]) -> None:
    """Replace ``path``'s content with ``data`` (:meth:`skilllint.safewrite.SafeFolder.write_atomic`:
    a temporary file in the same folder, flushed to disk, then ``os.replace``). The file keeps
    its mode (and its owner where the process may set it; extended attributes and hard links
    to the old file are not carried over). It
    must still be a regular file inside ``roots``, not a symbolic link, and
    hold ``expected`` (what was fixed), else :class:`FixError`.

    The temporary file is locked (:func:`skilllint.safewrite.hold_fix_temp`) from its
    creation until it is renamed: one left by a run that was killed meanwhile is
    recognisable by its name and by the lock nobody holds, and the next run reports
    it (``check``) or removes it (``check --fix``)."""
    from ..fsafe import UnsafeFile, read_capped, real_path
    from ..safewrite import FIX_TEMP_SUFFIX, SafeFolder

    why = refusal(path, roots)
    if why is not None:
        raise FixError(f"{path.name} {why}")
    real = Path(real_path(path))
    before = os.lstat(real)
    try:
        current = read_capped(real, len(expected) + 1)
    except UnsafeFile as exc:
        raise FixError(f"{path.name} {exc}") from None
    if current.truncated or current.data != expected:
        raise FixError(f"{path.name} changed on disk while it was being fixed; not written")

    def still_the_file_read() -> None:
        after = os.lstat(real)
        if stat.S_ISLNK(after.st_mode) or (after.st_dev, after.st_ino) != (before.st_dev, before.st_ino):
            raise FixError(f"{path.name} was replaced while it was being fixed; not written")

    with SafeFolder.trusted(str(real.parent)) as folder:
        folder.write_atomic(real.name, data, temp_suffix=FIX_TEMP_SUFFIX, hold=True, before_rename=still_the_file_read)


# -- reporting -----------------------------------------------------------------------------


def unified_diff(run: FixRun, cwd: Path) -> str:
    """A unified diff of every file ``run`` changed (``--diff``).

    It is read in a terminal or a log: control characters, bidi controls and lone
    surrogates in names and lines are escaped (:func:`skilllint.output.printable`), so
    a diff applies as it is (``git apply``) to files without them. Each line ends in LF,
    a line of the file that ends in CRLF in CRLF; one that ends in a lone CR shows it
    escaped (``\\x0d``) before the LF."""
    from ..output import display_path, printable

    out = []
    for path in sorted(run.changed):
        old, new = run.changed[path]
        shown = printable(display_path(path, cwd))
        lines = difflib.unified_diff(_lines(old), _lines(new), f"a/{shown}", f"b/{shown}", lineterm="")
        for number, line in enumerate(lines):
            if number < 2 or line.startswith("@@"):  # the file names (escaped already), a hunk's range
                out.append(line + "\n")
                continue
            body = line.rstrip("\r\n")
            ending = line[len(body) :]
            if ending == "\r\n":
                out.append(printable(body) + "\r\n")
            elif ending:
                out.append(printable(body + ending.rstrip("\n")) + "\n")
            else:
                out.append(printable(body) + "\n\\ No newline at end of file\n")
    return "".join(out)


def _lines(text: str) -> list[str]:
    """``text``'s lines with their endings, as skilllint counts lines (LF, CRLF or CR; not
    the other breaks of ``str.splitlines``)."""
    lines, start = [], 0
    for match in LINE_BREAK.finditer(text):
        lines.append(text[start : match.end()])
        start = match.end()
    if start < len(text):
        lines.append(text[start:])
    return lines


def summary(run: FixRun) -> str:
    """``Fixed 3 problems (SL122 ×2, SL125).`` for the end of a ``--fix`` run."""
    total = run.total
    if not total:
        return "No fixes applied."
    parts = ", ".join(f"{code} ×{n}" if n > 1 else code for code, n in sorted(run.fixed.items()))
    return f"Fixed {total} problem{'s' if total != 1 else ''} ({parts})."


def report_run(run: FixRun, args, cwd: Path, fmt: str) -> int:
    """Tell what ``--fix`` / ``--diff`` did: refusals and errors on stderr,
    ``--diff``'s diff on stdout. Returns ``--diff``'s exit status (1 when there
    is a diff); for ``--fix`` 2 when a file could not be written, else 0."""
    import sys

    from ..output import display_path, printable_lines, tell

    def shown(path: Path | str) -> str:
        return display_path(Path(path), cwd)

    if not args.quiet:
        for path in run.removed_temps:
            tell(None, f"removed {shown(path)}, a temporary file left by an interrupted `skilllint check --fix`")
    for path, why in sorted(run.kept_temps.items()):
        tell("warning", f"{shown(path)}: a temporary file left by an interrupted `skilllint check --fix`; not removed: {why}")
    for path, why in sorted(run.refused.items()):
        tell("warning", f"not fixed: {shown(path)} {why}")
    if not run.converged:
        print(
            f"skilllint: warning: fixes kept applying after {MAX_PASSES} passes; stopped there (please report the skill)",
            file=sys.stderr,
        )
    if args.diff:
        sys.stdout.write(unified_diff(run, cwd))
        if run.result.internal_errors:
            for error in run.result.internal_errors:
                print(f"skilllint: {printable_lines(error)}", file=sys.stderr)
            return 2
        if not args.quiet:
            total = run.total
            files = len(run.changed)
            text = (
                f"Would fix {total} problem{'s' if total != 1 else ''} in {files} file{'s' if files != 1 else ''}."
                if run.changed
                else "No fixes available."
            )
            print(text, file=sys.stderr)
        return 1 if run.changed else 0
    for path, why in sorted(run.write_errors.items()):
        lost = run.not_written[path]
        unfixed = f" ({lost} problem{'s' if lost != 1 else ''} left unfixed)" if lost else ""
        tell("error", f"cannot write {shown(path)}: {why}{unfixed}")
    in_report = fmt == "full" and not args.statistics and not args.output_file
    if not args.quiet and not in_report:
        print(summary(run), file=sys.stderr)
    return 2 if run.write_errors else 0
