"""The built-in rules, one module per family."""

from . import fields, parsing, size

BUILTIN_RULES = [*parsing.RULES, *fields.RULES, *size.RULES]
