"""skilllint.records makes what dataclasses makes, for the options skilllint uses."""

from __future__ import annotations

import dataclasses
from functools import cached_property

import pytest

from skilllint import records


def both(body, **options):
    """The same class body under @dataclasses.dataclass and @records.record."""
    made = []
    for decorate, field in ((dataclasses.dataclass, dataclasses.field), (records.record, records.field)):
        namespace = body(field)
        cls = type(namespace.pop("__name__"), (), namespace)
        made.append(decorate(**options)(cls))
    return made


def sample(field):
    return {
        "__name__": "Sample",
        "__annotations__": {"a": "int", "b": "str", "c": "list", "d": "tuple", "e": "int | None"},
        "b": "x",
        "c": field(default_factory=list),
        "d": field(default=(), repr=False),
        "e": field(default=None, compare=False, hash=False),
        "__doc__": "A sample.",
    }


@pytest.mark.parametrize("options", [{}, {"frozen": True}, {"eq": False}])
def test_the_same_methods_as_dataclasses(options):
    real, mine = both(sample, **options)
    for cls in (real, mine):
        one, two = cls(1), cls(1, "x", [], (), 5)
        assert (one.a, one.b, one.c, one.d, one.e) == (1, "x", [], (), None)
        assert (two.a, two.b, two.c, two.d, two.e) == (1, "x", [], (), 5)
        assert cls(1).c is not cls(1).c  # a factory runs per instance
        assert cls(a=2, b="y").b == "y"
    assert repr(mine(1, "y", [2])).replace("Sample", "X") == repr(real(1, "y", [2])).replace("Sample", "X")
    for x, y in [((1,), (1,)), ((1,), (2,)), ((1, "x", [], (), 5), (1,)), ((1, "x", [], (9,)), (1,))]:
        assert (real(*x) == real(*y)) == (mine(*x) == mine(*y)), (x, y)
        assert (real(*x) != real(*y)) == (mine(*x) != mine(*y))
    assert (mine(1) == real(1)) is False and mine(1) != "text"
    assert (real.__hash__ is None) == (mine.__hash__ is None)
    if options.get("frozen"):
        assert hash(mine(1, "x", (), (), 5)) == hash(mine(1, "x", (), (), 9)) == hash(real(1, "x", (), (), 5))  # e: not hashed
        with pytest.raises(AttributeError):
            mine(1).a = 2
        with pytest.raises(records.FrozenInstanceError):
            del mine(1).b
    elif options.get("eq") is False:
        item = mine(1)
        assert item == item and mine(1) != mine(1) and hash(item) == id(item) >> 4 or hash(item) == object.__hash__(item)
    else:
        item = mine(1)
        item.a = 3
        assert item.a == 3
    assert mine.__match_args__ == real.__match_args__
    assert mine.__doc__ == "A sample."
    assert mine.__init__.__qualname__ == "Sample.__init__"


def test_class_attributes_as_dataclasses_leave_them():
    real, mine = both(sample)
    for name in ("b", "d", "e"):
        assert getattr(mine, name) == getattr(real, name)
    assert not hasattr(mine, "c") and not hasattr(real, "c")


def test_methods_the_class_defines_are_kept():
    @records.record(frozen=True)
    class Named:
        name: str

        def __repr__(self) -> str:
            return f"<{self.name}>"

        def __eq__(self, other):
            return isinstance(other, Named) and other.name.lower() == self.name.lower()

        def __hash__(self):
            return hash(self.name.lower())

    assert repr(Named("A")) == "<A>" and Named("A") == Named("a") and hash(Named("A")) == hash(Named("a"))


def test_cached_property_works_on_a_frozen_record():
    @records.record(frozen=True)
    class Lazy:
        value: int

        @cached_property
        def double(self) -> int:
            return self.value * 2

    item = Lazy(4)
    assert item.double == 8 and item.double == 8


@pytest.mark.parametrize(
    "make",
    [
        lambda: records.record(type("Late", (), {"__annotations__": {"a": "int", "b": "int"}, "a": 1})),
        lambda: records.record(type("Mutable", (), {"__annotations__": {"a": "list"}, "a": []})),
        lambda: records.record(type("Var", (), {"__annotations__": {"a": "ClassVar[int]"}})),
    ],
)
def test_what_it_does_not_support_it_refuses(make):
    with pytest.raises((TypeError, ValueError)):
        make()


def test_a_record_cannot_inherit_fields():
    @records.record
    class Base:
        a: int

    with pytest.raises(TypeError):

        @records.record
        class Child(Base):
            b: int


def test_a_run_imports_neither_dataclasses_nor_inspect(tmp_path):
    """The point of this module: a run does not pay for dataclasses (nor the inspect it imports)."""
    import subprocess
    import sys

    from conftest import write_skill

    write_skill(tmp_path / "skills", "one", "---\nname: one\ndescription: Does one thing. Use when asked.\n---\n# One\n")
    code = (
        "import sys\n"
        "from skilllint.cli import main\n"
        "code = main(['check', '--no-cache', '--output-format', 'json', 'skills'])\n"
        "print(sorted(m for m in ('dataclasses', 'inspect') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path).stdout
    assert out.strip().splitlines()[-1] == "[]"


def test_post_init_runs_after_the_fields_are_set():
    def post(field):
        def check(self):
            if self.a < 0:
                raise ValueError("negative")

        return {"__name__": "Checked", "__annotations__": {"a": "int"}, "__post_init__": check}

    for cls in both(post, frozen=True):
        assert cls(1).a == 1
        with pytest.raises(ValueError):
            cls(-1)


def test_as_dict_is_asdict():
    from typing import NamedTuple

    class Pair(NamedTuple):
        x: int
        y: int

    def inner(field):
        return {"__name__": "Inner", "__annotations__": {"n": "int", "pair": "Pair"}, "pair": Pair(1, 2)}

    real_inner, mine_inner = both(inner, frozen=True)

    def outer(field, item=None):
        return {"__name__": "Outer", "__annotations__": {"items": "tuple", "names": "list", "table": "dict"}}

    real_outer, mine_outer = both(outer, frozen=True)
    real = real_outer((real_inner(1), real_inner(2)), ["a"], {"k": real_inner(3)})
    mine = mine_outer((mine_inner(1), mine_inner(2)), ["a"], {"k": mine_inner(3)})
    assert records.as_dict(mine) == dataclasses.asdict(real)
    assert type(records.as_dict(mine)["items"][0]["pair"]) is Pair
