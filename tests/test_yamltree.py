"""One YAML parse, many parsers' views; safety bounds."""

import datetime

import pytest

from skilllint.skill.text import yamltree


def load(text, semantics):
    return yamltree.to_python(yamltree.parse(text).root, semantics)


def test_strict_view_keeps_every_scalar_a_string():
    assert load("name: 123\nflag: yes\nnothing: null\nempty:\n", "strict") == {
        "name": "123",
        "flag": "yes",
        "nothing": "null",
        "empty": "",
    }


def test_yaml11_view_types_like_pyyaml():
    data = load("a: yes\nb: off\nc: 012\nd: 2026-03-06\ne: 1.5\nf: ~\ng: '123'\nh: 0x1F\ni: 1_000", "yaml11")
    assert data == {
        "a": True,
        "b": False,
        "c": 10,
        "d": datetime.date(2026, 3, 6),
        "e": 1.5,
        "f": None,
        "g": "123",
        "h": 31,
        "i": 1000,
    }


def test_yaml12_view_types_like_the_core_schema():
    data = load("a: yes\nb: true\nc: 2026-03-06\nd: 42\ne: !!str 42", "yaml12")
    assert data == {"a": "yes", "b": True, "c": "2026-03-06", "d": 42, "e": "42"}


def test_duplicate_keys_keep_the_last_value_and_first_position():
    doc = yamltree.parse("name: a\nname: b\n")
    assert yamltree.to_python(doc.root, "yaml12") == {"name": "b"}
    assert [k.line for k, _ in doc.mapping_items()] == [0, 1]


def test_positions_are_kept_for_keys_and_values():
    doc = yamltree.parse("name: foo\ndescription: >\n  folded\n  text\n")
    (k1, v1), (k2, v2) = doc.mapping_items()
    assert (k1.line, k1.column, v1.line, v1.column, v1.end_column) == (0, 0, 0, 6, 9)
    assert (k2.line, v2.style) == (1, ">")
    assert yamltree.to_python(doc.root, "strict")["description"] == "folded text\n"


def test_flow_anchor_and_tag_usage_is_recorded():
    doc = yamltree.parse("a: [x, y]\nb: &k v\nc: *k\nd: !!str 5\n")
    assert len(doc.uses_flow) == 1
    assert len(doc.uses_anchor) == 2  # the anchor and the alias
    assert len(doc.uses_tag) == 1


def test_alias_bomb_is_refused_not_expanded():
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for level in range(1, 9):
        prev, cur = chr(ord("a") + level - 1), chr(ord("a") + level)
        lines.append(f"{cur}: &{cur} [" + ", ".join([f"*{prev}"] * 9) + "]")
    doc = yamltree.parse("\n".join(lines))
    with pytest.raises(yamltree.AliasBombError):
        yamltree.to_python(doc.root, "yaml11")


def test_deep_nesting_is_refused_without_recursion_error():
    with pytest.raises(yamltree.YamlError, match="nesting deeper"):
        yamltree.parse("a: " + "[" * 10_000 + "]" * 10_000)


def test_parse_errors_carry_positions():
    with pytest.raises(yamltree.YamlError) as info:
        yamltree.parse("name: x\ndescription: Use when: a thing\n")
    assert info.value.line == 1
    assert "mapping values are not allowed" in info.value.problem


def test_undefined_alias_is_an_error():
    with pytest.raises(yamltree.YamlError, match="undefined alias"):
        yamltree.parse("a: *nope\n")


def test_second_document_is_an_error():
    with pytest.raises(yamltree.YamlError, match="more than one"):
        yamltree.parse("a: 1\n---\nb: 2\n")
