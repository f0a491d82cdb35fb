"""Where a Python script asks a question on the terminal, and whether a given command line gets there (SL701).

The script is parsed with :mod:`ast`, never imported or run. :func:`analyse` finds the
prompt calls (``input()``, ``getpass()``, click/typer ``prompt``/``confirm``, rich's
``Prompt.ask``, questionary, inquirer, pyinputplus, prompt_toolkit), resolving names
through the script's imports, and records for each what must hold for it to run:

* the tests of the ``if``/``while``/conditional expressions around it (body or
  ``else``), and of an earlier ``if …: return``/``exit()`` in the same block;
* a ``try`` whose handler catches its failure at end of input (``EOFError`` or a
  base of it for ``input()``/``getpass()``; ``Exception`` or wider for the libraries);
* when it sits in a function, the places that call the function (by name, within the
  module, a bounded number of levels up to the module's own statements, with the
  arguments each call passes bound to the parameters).

:meth:`ScriptModel.reaches` then asks whether one command line (the words after the
script's path) can satisfy those conditions. A test is decided when it is built
from what a command line fixes: ``sys.argv`` (``'--add' in sys.argv``,
``len(sys.argv) < 2``, ``sys.argv[1:]``), argparse options (``add_argument('--add',
action='store_true')`` read as ``args.add``), click options of the decorated
function, ``isatty()`` (false: an agent's shell has no terminal),
``__name__ == '__main__'`` (true), constants, ``not``/``and``/``or``/comparisons,
and names assigned from those (a parameter through its call's argument). Anything
else is unknown and counts as met, so a prompt is dropped only when every way to it
is decided against. A function referenced other than by a call (a callback, a
decorated command) or never called in its module may run: it is entered with
unknown arguments.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from .judge import Judge
from .model import UNKNOWN, ScriptFacts, Site

MAX_CALL_DEPTH = 8  # call levels followed from a prompt up to the module's statements
MAX_PATHS = 64  # call chains judged per prompt; past this the prompt counts as reachable

# What any prompt's text needs: a script without it is not parsed. Plain literal alternatives (no
# look-behind), so the scan can skip ahead by first character: linear, and fast.
_HINT = re.compile(r"input[ \t]*\(|getpass|click|typer|rich|questionary|inquirer|pyinput|pyip|prompt_toolkit")


class ScriptModel(ScriptFacts):
    """The prompts of one parsed script, what they need to run, and whether a command line gets to them."""

    def reaches(self, prompt_index: int, args: tuple[str, ...]) -> bool:
        """Whether a run with these arguments (after the script's path) can get to the prompt."""
        prompt, site = self.prompt_sites[prompt_index]
        if self.steps_left <= 0:
            return True
        judge = Judge(self, args, prompt)
        budget = [MAX_PATHS * MAX_CALL_DEPTH]
        paths = 0
        for chain in self._chains(site, (), 0, budget):
            paths += 1
            if paths > MAX_PATHS or chain[0] is UNKNOWN or judge.chain_holds(chain):
                return True
        return False

    def _chains(self, site: Site, stack: tuple, depth: int, budget: list[int]) -> Iterator[tuple]:
        """Call chains from the module's statements (or an entry not followed: None first) down to ``site``;
        UNKNOWN first when the search ran out of ``budget`` (steps shared by the whole search)."""
        budget[0] -= 1
        self.steps_left -= 1
        if budget[0] < 0 or self.steps_left < 0:
            yield (UNKNOWN,)
            return
        chain = (site, *stack)
        scope = site.scope
        if isinstance(scope, ast.Module):
            yield chain
            return
        if isinstance(scope, ast.ClassDef):
            yield chain
            return
        key = ("." + scope.name) if self.parent_class.get(scope) else scope.name
        callers = self.calls.get(key, []) + ([] if self.parent_class.get(scope) else self.calls.get("." + scope.name, []))
        if self.parent_class.get(scope) and scope.name == "__init__":
            callers = []
        if depth >= MAX_CALL_DEPTH or key in self.escaped or scope.name in self.escaped or not callers:
            yield (None, *chain)  # entered from somewhere not followed: arguments unknown
            return
        for caller in callers:
            if any(caller.scope is s.scope for s in chain):
                continue  # recursion: the chain through the first entry is judged on its own
            yield from self._chains(caller, chain, depth + 1, budget)


def analyse(text: str) -> ScriptModel | None:
    """The model of a script, or None when it is not Python 3 that this interpreter parses."""
    if not _HINT.search(text):
        return ScriptModel(ast.Module(body=[], type_ignores=[]), "")
    try:
        tree = ast.parse(text)
        return ScriptModel(tree, text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
