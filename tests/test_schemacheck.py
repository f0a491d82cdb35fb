"""The quick JSON Schema check (skilllint.config.schemacheck) answers as jsonschema does, or not at all."""

from __future__ import annotations

import math
import subprocess
import sys

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from skilllint.config.settings import config_schema
from skilllint.registry import registry
from skilllint.config.schemacheck import is_valid

# What a TOML file can hold (dates aside): JSON's values, with ints and floats apart.
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5),
    st.sampled_from([0.0, 1.0, 2.5, -1.5, math.inf]),
    st.text(alphabet="ab-_1é ", max_size=4),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["a", "b", "c", "d"]), inner, max_size=3),
    max_leaves=8,
)
TYPES = st.sampled_from(["object", "array", "string", "boolean", "null", "number", "integer"])


def schemas(inner):
    keywords = {
        "type": TYPES | st.lists(TYPES, min_size=1, max_size=3, unique=True),
        "enum": st.lists(VALUES, min_size=1, max_size=3),
        "properties": st.dictionaries(st.sampled_from(["a", "b", "c"]), inner, max_size=2),
        "additionalProperties": inner,
        "required": st.lists(st.sampled_from(["a", "b", "c"]), max_size=2, unique=True),
        "items": inner,
        "minimum": st.integers(-3, 3),
        "maximum": st.integers(-3, 3) | st.just(2.5),
        "exclusiveMinimum": st.integers(-3, 3),
        "exclusiveMaximum": st.just(1.5) | st.integers(-3, 3),
        "minLength": st.integers(0, 3),
        "maxLength": st.integers(0, 3),
        "pattern": st.sampled_from(["^a", "b$", "[0-9]", "é"]),
        "description": st.just("annotation only"),
    }
    return st.fixed_dictionaries({}, optional=keywords)


SCHEMAS = st.recursive(st.booleans() | st.just({}), schemas, max_leaves=6)


def jsonschema_says(schema, value) -> bool:
    return jsonschema.Draft202012Validator(schema).is_valid(value)


@given(schema=SCHEMAS, value=VALUES)
def test_answers_as_jsonschema_does(schema, value):
    answer = is_valid(schema, value)
    assert answer is not None  # every keyword generated is in the subset
    assert answer == jsonschema_says(schema, value)


@pytest.mark.parametrize(
    ("schema", "value", "expected"),
    [
        ({"type": "integer"}, 1.0, True),  # a float without a fraction is an integer (draft 4 on)
        ({"type": "integer"}, True, False),  # a boolean is never a number
        ({"enum": [1]}, True, False),
        ({"enum": [1]}, 1.0, True),
        ({"minimum": 1}, "text", True),  # bounds ignore non-numbers
        ({"additionalProperties": False}, {"x": 1}, False),
        ({"properties": {"x": {}}, "additionalProperties": False}, {"x": 1}, True),
    ],
)
def test_edge_cases(schema, value, expected):
    assert is_valid(schema, value) is expected is jsonschema_says(schema, value)


@pytest.mark.parametrize("schema", [{"oneOf": [{}]}, {"patternProperties": {"a": {}}}, {"type": "unknown"}, {"minimum": "1"}])
def test_what_it_does_not_model_it_says_so(schema):
    assert is_valid(schema, 1) is None


CONFIGS = [
    {},
    {"exclude": ["rulebook/", "tests/"]},
    {"targets": ["codex", "claude-code"], "select": ["SL1", "SL2"], "ignore": ["SL512"]},
    {"rules": {"SL201": {"max-lines": 400}, "body-too-many-tokens": {"max-tokens": 3000, "encoding": "cl100k_base"}}},
    {"rules": {"SL201": {"max-lines": 0}}},  # below the minimum
    {"rules": {"SL201": {"max-lines": "many"}}},
    {"rules": {"SL999": {}}},
    {"unknown-key": 1},
    {"per-file-ignores": {"skills/legacy/**": ["SL2"]}},
    {"fail-on": "warning", "cache": False},
    {"catalog": {"context-window": 200000}},
    {"targets": "codex"},
]


@pytest.mark.parametrize("config", CONFIGS)
def test_the_configuration_schema_is_checked_as_jsonschema_does(config):
    schema = config_schema(registry())
    assert is_valid(schema, config) == jsonschema_says(schema, config)


def test_a_valid_configuration_does_not_import_jsonschema(tmp_path):
    (tmp_path / "skilllint.toml").write_text('exclude = ["drafts/"]\n[rules.SL201]\nmax-lines = 400\n')
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from skilllint.config.settings import load_settings\n"
        "from skilllint.registry import registry\n"
        f"load_settings(registry(), Path({str(tmp_path)!r}))\n"
        "print('jsonschema' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
