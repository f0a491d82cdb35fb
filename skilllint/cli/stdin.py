"""``skilllint check --stdin-filename PATH -``: lint standard input as the file PATH.

Editors and formatters pipe an unsaved buffer this way (ruff's ``--stdin-filename``).
The text stands for PATH in every rule through the overlay the language server
lints editor buffers with (:func:`skilllint.fsafe.overlay`); the rest of PATH's
skill is read from disk, and PATH need not exist there (a new file). Only the
findings on PATH are reported. The result cache is neither read nor written: its
keys describe what is on disk. With ``--fix`` nothing is written: the fixed text
(or the text unchanged) goes to standard output and the report to standard error.
"""

from __future__ import annotations

import os
import sys
from contextlib import redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

STDIN = "-"


@dataclass(eq=False, repr=False)
class StdinFile:
    """Standard input's bytes and the file they stand for."""

    key: str  # the file's path, absolute and normalised (the overlay's key)
    data: bytes
    fixed: bytes | None = None  # the text as ``--fix`` left it (set by skilllint.app.fixes.fix_paths)

    def __post_init__(self) -> None:
        from ..fsafe import real_path_or_given

        # a file reached through a linked folder, or a linked SKILL.md, is read at its real path
        self.aliases = frozenset((self.key, real_path_or_given(self.key)))

    def contents(self) -> dict[str, bytes]:
        """What the overlay serves: the text by the file's path and by its real path."""
        return {alias: self.data for alias in self.aliases}

    def new_files(self) -> tuple[str, ...]:
        """The file, when nothing is on disk there yet (an unsaved new file)."""
        return () if os.path.lexists(self.key) else (self.key,)

    def owns(self, path: Path) -> bool:
        return os.path.normpath(os.path.abspath(path)) in self.aliases

    def keep_own(self, result) -> None:
        """Leave in ``result`` only the findings on the file (those elsewhere in its skill
        are not the buffer's: the editor shows what it is given)."""
        from ..lint.engine import left_out_by_code

        result.diagnostics = [d for d in result.diagnostics if self.owns(d.path)]
        result.left_out = left_out_by_code(result.diagnostics)


def check_stdin(args, check: Callable, usage_error: type[Exception]) -> int:
    """Run ``check(args)`` (the ``check`` verb) on standard input as ``--stdin-filename``."""
    others = [path for path in args.paths if path != STDIN]
    if args.stdin_filename is None:
        raise usage_error("`-` reads standard input: name the file it stands for with --stdin-filename PATH")
    if others:
        raise usage_error(f"--stdin-filename lints standard input alone; give `-` as the only path, not {others[0]!r}")
    if not args.stdin_filename:
        raise usage_error("--stdin-filename: expected the path of the file standard input stands for")
    key = os.path.normpath(os.path.join(os.getcwd(), args.stdin_filename))
    if os.path.isdir(key):
        raise usage_error(f"--stdin-filename {args.stdin_filename}: is a folder; name the file standard input stands for")
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:
        raise usage_error("--stdin-filename: standard input cannot be read")
    stdin = StdinFile(key, stream.read())
    args.paths = [args.stdin_filename]
    args.no_cache = True  # the cache keys on what is on disk
    args.stdin_file = stdin
    from ..fsafe import overlay

    with overlay(stdin.contents(), stdin.new_files()):
        if not args.fix or args.diff:
            return check(args)
        with redirect_stdout(sys.stderr):  # standard output carries the text alone
            status = check(args)
        _write_text(stdin.fixed if stdin.fixed is not None else stdin.data)
        return status


def _write_text(data: bytes) -> None:
    sys.stdout.flush()
    stream = getattr(sys.stdout, "buffer", None)
    if stream is not None:
        stream.write(data)
        stream.flush()
    else:  # a text stream (tests capture output so): its bytes kept as surrogates
        sys.stdout.write(data.decode("utf-8", errors="surrogateescape"))
