"""The built-in rules, one module per code decade in a folder per family, named as the folder of
its analysis is: ``SLabx`` lives in ``<family>/sl{a}{b}x_*.py`` (SL301 in
``references/sl30x_references.py``, its analysis in ``skilllint/skill/references/``).

These modules hold rule classes only; what the rules read (lexers, the reference graph,
prose heuristics) lives in the analysis modules they import. A rule imports its analysis in the
method that uses it, not at the top of the module: every run imports the rule modules (the
registry reads their classes), but a run whose results come from the cache runs few rules or
none, and should not pay for loading the analysis of the others."""

from types import ModuleType

from .fields import (
    sl00x_package,
    sl01x_parsing,
    sl10x_name,
    sl11x_description,
    sl12x_fields,
    sl13x_invocation,
)
from .size import sl20x_size
from .references import (
    sl30x_references,
    sl31x_disclosure,
)
from .safety import sl40x_safety
from .catalog import (
    sl50x_budget,
    sl51x_selection,
    sl52x_discovery,
    sl53x_evals,
)
from .openai_yaml import sl60x_openai_yaml
from .scripts import sl70x_scripts
from .security import sl80x_security, sl81x_behaviour
from .suppressions import sl90x_suppressions

# The modules imported above, in code order: each is named once, in the import.
RULE_MODULES = tuple(module for name, module in sorted(globals().items()) if name.startswith("sl") and isinstance(module, ModuleType))

BUILTIN_RULES = [rule for module in RULE_MODULES for rule in module.RULES]
