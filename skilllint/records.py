"""``@record``: what ``@dataclasses.dataclass`` makes of skilllint's classes, made in a third of the time.

Every run defines ~45 record classes before it lints anything, and the standard
decorator costs ~0.7 ms a class (three ``exec`` calls and its general
machinery) plus ~9 ms to import ``dataclasses`` and ``inspect``: a sixth of a
cached run. This module makes the same methods, by the same rules, for the
subset of options skilllint uses, with one ``exec`` a class:

* ``@record``, ``@record(frozen=True)``, ``@record(eq=False)``;
* fields from the class's own annotations, in order, with a default, or
  ``field(default=..., default_factory=..., repr=..., compare=..., hash=...)``;
* ``__init__`` (a factory runs per instance; then ``__post_init__()`` if the class
  has one), ``__repr__`` (``Name(a=1, ...)``),
  ``__eq__`` (same class, equal compared fields), ``__hash__`` as dataclasses
  sets it (fields' hash when frozen, unhashable when mutable with ``eq``),
  frozen instances raising :class:`FrozenInstanceError`, ``__match_args__``;
  methods the class defines itself are kept.

:func:`as_dict` is ``dataclasses.asdict`` for records. Not supported (the
decorator refuses rather than guessing): base classes with fields,
``ClassVar``/``InitVar``/``KW_ONLY`` annotations, other options.
``tests/test_records.py`` checks the behaviour against ``dataclasses`` on the
same classes.
"""

from __future__ import annotations

from typing import Any

__all__ = ["FrozenInstanceError", "as_dict", "field", "record"]

_MISSING = object()


class FrozenInstanceError(AttributeError):
    """An assignment to a field of a frozen record."""


class Field:
    __slots__ = ("compare", "default", "default_factory", "hash", "name", "repr")

    def __init__(self, default: Any, default_factory: Any, repr: bool, compare: bool, hash: bool | None) -> None:  # noqa: A002
        if default is not _MISSING and default_factory is not _MISSING:
            raise ValueError("cannot specify both default and default_factory")
        self.name = ""
        self.default = default
        self.default_factory = default_factory
        self.repr = repr
        self.compare = compare
        self.hash = hash


def field(
    *,
    default: Any = _MISSING,
    default_factory: Any = _MISSING,
    repr: bool = True,  # noqa: A002 - the dataclasses name
    compare: bool = True,
    hash: bool | None = None,  # noqa: A002
) -> Any:
    return Field(default, default_factory, repr, compare, hash)


def record(cls: type | None = None, /, *, frozen: bool = False, eq: bool = True):
    def wrap(cls: type) -> type:
        return _process(cls, frozen, eq)

    return wrap if cls is None else wrap(cls)


def _fields(cls: type) -> list[Field]:
    if any(getattr(base, "__record_fields__", None) or hasattr(base, "__dataclass_fields__") for base in cls.__mro__[1:]):
        raise TypeError(f"{cls.__name__}: a record cannot inherit fields")
    fields: list[Field] = []
    for name, annotation in cls.__dict__.get("__annotations__", {}).items():
        text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", repr(annotation))
        if text.split("[", 1)[0].rsplit(".", 1)[-1] in ("ClassVar", "InitVar", "KW_ONLY"):
            raise TypeError(f"{cls.__name__}.{name}: {text} is not supported")
        value = cls.__dict__.get(name, _MISSING)
        spec = value if isinstance(value, Field) else Field(value, _MISSING, True, True, None)
        spec.name = name
        if spec.default is _MISSING:
            if name in cls.__dict__:
                delattr(cls, name)  # a field() without a default leaves no class attribute
        else:
            setattr(cls, name, spec.default)
        if isinstance(spec.default, (list, dict, set)):
            raise ValueError(f"{cls.__name__}.{name}: mutable default {type(spec.default).__name__}; use default_factory")
        fields.append(spec)
    return fields


def _process(cls: type, frozen: bool, eq: bool) -> type:
    fields = _fields(cls)
    names = [f.name for f in fields]
    namespace: dict[str, Any] = {"__MISSING": _MISSING, "__cls": cls, "__FrozenInstanceError": FrozenInstanceError}
    parameters, body = [], []
    seen_default = False
    for f in fields:
        if f.default is not _MISSING:
            namespace[f"__dflt_{f.name}"] = f.default
            parameters.append(f"{f.name}=__dflt_{f.name}")
            value = f.name
            seen_default = True
        elif f.default_factory is not _MISSING:
            namespace[f"__fct_{f.name}"] = f.default_factory
            parameters.append(f"{f.name}=__MISSING")
            value = f"__fct_{f.name}() if {f.name} is __MISSING else {f.name}"
            seen_default = True
        else:
            if seen_default:
                raise TypeError(f"non-default argument {f.name!r} follows default argument")
            parameters.append(f.name)
            value = f.name
        body.append(f"__object_setattr(self, {f.name!r}, {value})" if frozen else f"self.{f.name} = {value}")
    if "__post_init__" in cls.__dict__:
        body.append("self.__post_init__()")
    namespace["__object_setattr"] = object.__setattr__
    shown = ", ".join(f"{f.name}={{self.{f.name}!r}}" for f in fields if f.repr)
    compared = "".join(f"self.{f.name}," for f in fields if f.compare)
    compared_other = "".join(f"other.{f.name}," for f in fields if f.compare)
    hashed = "".join(f"self.{f.name}," for f in fields if (f.compare if f.hash is None else f.hash))
    source = [
        f"def __init__(self, {', '.join(parameters)}):" if parameters else "def __init__(self):",
        *(f"    {line}" for line in body or ["pass"]),
        "def __repr__(self):",
        f'    return self.__class__.__qualname__ + f"({shown})"',
        "def __eq__(self, other):",
        "    if other.__class__ is self.__class__:",
        f"        return ({compared}) == ({compared_other})",
        "    return NotImplemented",
        "def __hash__(self):",
        f"    return hash(({hashed}))",
        "def __setattr__(self, name, value):",
        f"    if type(self) is __cls or name in {tuple(names)!r}:",
        "        raise __FrozenInstanceError(f'cannot assign to field {name!r}')",
        "    super(__cls, self).__setattr__(name, value)",
        "def __delattr__(self, name):",
        f"    if type(self) is __cls or name in {tuple(names)!r}:",
        "        raise __FrozenInstanceError(f'cannot delete field {name!r}')",
        "    super(__cls, self).__delattr__(name)",
    ]
    exec("\n".join(source), namespace)  # noqa: S102 - our own source text, from the class's field names
    qualname = cls.__qualname__
    methods = {"__init__": True, "__repr__": True, "__eq__": eq}
    for name, wanted in methods.items():
        if wanted and name not in cls.__dict__:
            function = namespace[name]
            function.__qualname__ = f"{qualname}.{name}"
            setattr(cls, name, function)
    # __hash__ as dataclasses sets it: a class body that defines __eq__ gets __hash__ = None from Python itself
    own_hash = cls.__dict__.get("__hash__", _MISSING)
    explicit_hash = not (own_hash is _MISSING or (own_hash is None and "__eq__" in cls.__dict__))
    if eq and not explicit_hash:
        cls.__hash__ = namespace["__hash__"] if frozen else None  # type: ignore[method-assign]
    if frozen:
        for name in ("__setattr__", "__delattr__"):
            if name in cls.__dict__:
                raise TypeError(f"cannot overwrite attribute {name} in class {cls.__name__}")
            setattr(cls, name, namespace[name])
    if "__match_args__" not in cls.__dict__:
        cls.__match_args__ = tuple(names)
    cls.__record_fields__ = tuple(names)
    return cls


def as_dict(value: Any) -> Any:
    """``dataclasses.asdict`` for records: fields into dicts, recursively, through
    lists, tuples and dicts (other values as they are: records hold immutable ones)."""
    names = getattr(type(value), "__record_fields__", None)
    if names is not None:
        return {name: as_dict(getattr(value, name)) for name in names}
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # a named tuple, as dataclasses.asdict treats it
        return type(value)(*(as_dict(item) for item in value))
    if isinstance(value, (list, tuple)):
        return type(value)(as_dict(item) for item in value)
    if isinstance(value, dict):
        return {as_dict(key): as_dict(item) for key, item in value.items()}
    return value
