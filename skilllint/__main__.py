"""``python -m skilllint``: the console script, run as a module.

``-m`` puts the working folder first on ``sys.path``, and the working folder is
usually the tree being linted, which is untrusted: a ``yaml.py``, ``json/`` or
``ruamel/`` there would be imported, that is run, in place of the real module.
The ``skilllint`` console script has its own folder there instead. So before
anything else is imported, the entry ``-m`` added leaves ``sys.path`` (only
that one: a ``PYTHONPATH`` the user set is theirs, as for the console script).

What this file cannot undo, because it runs after it: the ``skilllint``
package itself is imported before this file, so a ``skilllint/`` folder in the
working folder is what runs; and the few standard modules Python's ``-m``
machinery (runpy) imports for itself are found the same way. Neither concerns
the console script, nor ``python -P -m skilllint`` (Python 3.11+), which adds
no such entry.
"""

import os
import sys


def _forget_the_working_folder() -> None:
    if getattr(sys.flags, "safe_path", False) or not sys.path:
        return  # -P or PYTHONSAFEPATH: nothing was added
    first = sys.path[0]
    if first == "" or first == os.curdir:
        del sys.path[0]
        return
    try:
        here = os.getcwd()
    except OSError:  # the working folder was removed
        return
    if first in (here, os.path.realpath(here)) or os.path.realpath(first) == os.path.realpath(here):
        del sys.path[0]


_forget_the_working_folder()

from .cli.main import run  # only once sys.path is safe

run()
