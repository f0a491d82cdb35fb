"""The built-in rules, one module per family."""

from . import catalog, disclosure, fields, parsing, references, safety, size

BUILTIN_RULES = [
    *parsing.RULES,
    *fields.RULES,
    *size.RULES,
    *references.RULES,
    *disclosure.RULES,
    *safety.RULES,
    *catalog.RULES,
]
