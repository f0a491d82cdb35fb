"""The built-in rules, one module per code decade: ``SLabx`` lives in ``sl{a}{b}x_*.py``.

These modules hold rule classes only; what the rules read (lexers, the reference graph,
prose heuristics) lives in the analysis modules they import."""

from . import (
    sl00x_package,
    sl01x_parsing,
    sl10x_name,
    sl11x_description,
    sl12x_fields,
    sl13x_invocation,
    sl20x_size,
    sl30x_references,
    sl31x_disclosure,
    sl40x_safety,
    sl50x_budget,
    sl51x_selection,
    sl52x_discovery,
    sl60x_openai_yaml,
    sl70x_scripts,
    sl80x_security,
    sl90x_suppressions,
)

RULE_MODULES = (
    sl00x_package,
    sl01x_parsing,
    sl10x_name,
    sl11x_description,
    sl12x_fields,
    sl13x_invocation,
    sl20x_size,
    sl30x_references,
    sl31x_disclosure,
    sl40x_safety,
    sl50x_budget,
    sl51x_selection,
    sl52x_discovery,
    sl60x_openai_yaml,
    sl70x_scripts,
    sl80x_security,
    sl90x_suppressions,
)

BUILTIN_RULES = [rule for module in RULE_MODULES for rule in module.RULES]
