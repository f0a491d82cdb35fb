"""Whether a value satisfies a JSON Schema, for the few keywords skilllint's own schemas use.

The configuration is validated on every run, and importing jsonschema is a
large part of a cached run. A valid configuration, the usual case, is
confirmed here without it; :func:`skilllint.config.settings.validate_config` imports
jsonschema only when this check says "invalid" (for its error message) or
"cannot tell" (a keyword outside this subset, say from a plugin rule's
options schema).

Draft 2020-12 semantics for: ``type``, ``enum``, ``properties``,
``additionalProperties``, ``required``, ``items``, ``minimum``, ``maximum``,
``exclusiveMinimum``, ``exclusiveMaximum``, ``minLength``, ``maxLength`` and
``pattern``; annotations are ignored. tests/test_schemacheck.py checks the
answers against jsonschema's on generated schemas and values.
"""

from __future__ import annotations

import re
from typing import Any

# Keywords that never constrain a value.
_ANNOTATIONS = frozenset({"$id", "$schema", "$comment", "title", "description", "default", "examples", "x-rule-codes"})
_KNOWN = _ANNOTATIONS | {
    "type",
    "enum",
    "properties",
    "additionalProperties",
    "required",
    "items",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "pattern",
}


class CannotTell(Exception):
    """The schema uses something this check does not model."""


def is_valid(schema: Any, value: Any) -> bool | None:
    """True or False as jsonschema's Draft 2020-12 validator would answer, or None
    when the schema is outside the modelled subset."""
    try:
        return _valid(schema, value)
    except CannotTell:
        return None


def _valid(schema: Any, value: Any) -> bool:
    if schema is True:
        return True
    if schema is False:
        return False
    if not isinstance(schema, dict) or not _KNOWN.issuperset(schema):
        raise CannotTell
    for keyword, argument in schema.items():
        if keyword in _ANNOTATIONS:
            continue
        if not _CHECKS[keyword](argument, value, schema):
            return False
    return True


def _is_type(name: str, value: Any) -> bool:
    if name == "object":
        return isinstance(value, dict)
    if name == "array":
        return isinstance(value, list)
    if name == "string":
        return isinstance(value, str)
    if name == "boolean":
        return isinstance(value, bool)
    if name == "null":
        return value is None
    if isinstance(value, bool):  # JSON has no bool-as-number
        return False
    if name == "number":
        return isinstance(value, (int, float))
    if name == "integer":
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    raise CannotTell


def _type(argument, value, _schema) -> bool:
    names = [argument] if isinstance(argument, str) else argument
    if not isinstance(names, list):
        raise CannotTell
    return any(_is_type(name, value) for name in names)


def _json_equal(a: Any, b: Any) -> bool:
    """Equality as JSON Schema means it: a boolean is never equal to a number."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_json_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_json_equal(a[k], b[k]) for k in a)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return type(a) is type(b) and a == b


def _enum(argument, value, _schema) -> bool:
    if not isinstance(argument, list):
        raise CannotTell
    return any(_json_equal(value, option) for option in argument)


def _properties(argument, value, _schema) -> bool:
    if not isinstance(value, dict):
        return True
    if not isinstance(argument, dict):
        raise CannotTell
    return all(_valid(argument[key], item) for key, item in value.items() if key in argument)


def _additional(argument, value, schema) -> bool:
    if not isinstance(value, dict):
        return True
    declared = schema.get("properties", {})
    return all(_valid(argument, item) for key, item in value.items() if key not in declared)


def _required(argument, value, _schema) -> bool:
    if not isinstance(argument, list):
        raise CannotTell
    return not isinstance(value, dict) or all(key in value for key in argument)


def _items(argument, value, _schema) -> bool:
    return not isinstance(value, list) or all(_valid(argument, item) for item in value)


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _bound(compare):
    def check(argument, value, _schema) -> bool:
        if not _number(argument):
            raise CannotTell
        return not _number(value) or compare(value, argument)

    return check


def _length(compare):
    def check(argument, value, _schema) -> bool:
        if not isinstance(argument, int) or isinstance(argument, bool):
            raise CannotTell
        return not isinstance(value, str) or compare(len(value), argument)

    return check


def _pattern(argument, value, _schema) -> bool:
    if not isinstance(argument, str):
        raise CannotTell
    return not isinstance(value, str) or re.search(argument, value) is not None


_CHECKS = {
    "type": _type,
    "enum": _enum,
    "properties": _properties,
    "additionalProperties": _additional,
    "required": _required,
    "items": _items,
    "minimum": _bound(lambda v, a: v >= a),
    "maximum": _bound(lambda v, a: v <= a),
    "exclusiveMinimum": _bound(lambda v, a: v > a),
    "exclusiveMaximum": _bound(lambda v, a: v < a),
    "minLength": _length(lambda n, a: n >= a),
    "maxLength": _length(lambda n, a: n <= a),
    "pattern": _pattern,
}
