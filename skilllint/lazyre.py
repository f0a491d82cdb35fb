"""Regular expressions compiled when first used.

``re`` compiles a pattern in every process anew (its cache does not outlive the
process), and compiling the rules' module-level patterns is a large part of a
pre-commit run's start-up. A run whose skills all come from the cache uses none
of them, so they are compiled on first use instead.
"""

from __future__ import annotations

import re


class LazyPattern:
    """Stands for ``re.compile(pattern, flags)``: compiled when a method or an
    attribute other than ``pattern`` is first asked for. Each attribute asked
    for is then kept on the instance, so later uses cost what a compiled
    pattern's do (an instance attribute, not a call to ``__getattr__``).

    Use its methods (``PATTERN.sub(...)``); ``re.sub(PATTERN, ...)`` wants a
    real pattern (:meth:`compiled`)."""

    def __init__(self, pattern: str | bytes, flags: int = 0) -> None:
        self.pattern = pattern
        self._flags = flags
        _MADE.append(self)

    def compiled(self) -> re.Pattern:
        compiled = self.__dict__.get("_compiled")
        if compiled is None:
            compiled = self.__dict__["_compiled"] = re.compile(self.pattern, self._flags)
        return compiled

    def __getattr__(self, name: str):
        # Only called for attributes not on the instance yet: the first use of each.
        if name.startswith("__"):
            raise AttributeError(name)  # copy/pickle probes must not compile
        value = getattr(self.compiled(), name)
        self.__dict__[name] = value
        return value

    def __repr__(self) -> str:
        return f"LazyPattern({self.pattern!r}, {self._flags!r})"


_MADE: list[LazyPattern] = []  # every pattern, for compile_all()


def compile(pattern: str | bytes, flags: int = 0) -> LazyPattern:  # noqa: A001 (stands for re.compile)
    return LazyPattern(pattern, flags)


def compile_all() -> None:
    """Compile every pattern made so far: a process that forks a worker per task (the
    language server) compiles them once, rather than each worker those it uses."""
    for pattern in list(_MADE):
        try:
            pattern.compiled()
        except re.error:  # raised again where it is used, as before
            pass
