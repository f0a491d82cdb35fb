"""The built-in rules, one module per family."""

from . import (
    catalog,
    catalog_discovery,
    catalog_listing,
    catalog_trigger,
    disclosure,
    fields,
    openai_yaml,
    parsing,
    references,
    safety,
    scripts,
    size,
    substitution,
    suppressions,
)

BUILTIN_RULES = [
    *parsing.RULES,
    *fields.RULES,
    *size.RULES,
    *references.RULES,
    *disclosure.RULES,
    *safety.RULES,
    *catalog.RULES,
    *catalog_listing.RULES,
    *catalog_trigger.RULES,
    *catalog_discovery.RULES,
    *openai_yaml.RULES,
    *scripts.RULES,
    *substitution.RULES,
    *suppressions.RULES,
]
