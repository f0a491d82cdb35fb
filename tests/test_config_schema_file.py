"""The configuration JSON Schema is kept in the repository, current.

`skilllint/schemas/config.schema.json` is what `skilllint config --schema`
prints for the built-in rules, so editors can complete `.skilllint.toml`
(taplo / Even Better TOML) without running skilllint. It is generated:
`python scripts/generate.py` rewrites it after rules or settings change
(tests/test_generated.py checks it is current).
"""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCHEMA_FILE = ROOT / "skilllint" / "schemas" / "config.schema.json"

# Keywords that mean the same in JSON Schema draft 7 (what editors' validators,
# taplo's among them, implement at least) and 2020-12 (what skilllint validates
# with), so an editor flags exactly what `skilllint check` refuses.
SHARED_KEYWORDS = {
    "$schema", "title", "description", "type", "properties", "additionalProperties", "items", "enum", "const",
    "pattern", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "default", "required",
    "minItems", "maxItems", "minLength", "maxLength", "uniqueItems",
}


def test_cli_prints_the_same_schema():
    from conftest import run_cli

    from skilllint.registry import registry
    from skilllint.rules import BUILTIN_RULES

    code, out, _ = run_cli("config", "--schema")
    assert code == 0
    if set(registry().rules) == {rule.code for rule in BUILTIN_RULES}:  # no plugin installed
        assert out == SCHEMA_FILE.read_text(encoding="utf-8")
    else:
        assert json.loads(out)["properties"].keys() == json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))["properties"].keys()


def test_schema_file_validates_real_configurations():
    import jsonschema

    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft7Validator.check_schema({k: v for k, v in schema.items() if k != "$schema"})
    good = {
        "targets": ["agentskills", "claude-code"], "select": ["SL"], "ignore": ["SL131"], "fail-on": "warning",
        "output-format": "github", "per-file-ignores": {"legacy/**": ["SL1"]},
        "rules": {"SL201": {"severity": "error", "max-lines": 400}, "body-too-many-tokens": {"max-tokens": 4000}},
    }
    for validator in (jsonschema.Draft202012Validator(schema), jsonschema.Draft7Validator(schema)):
        assert not list(validator.iter_errors(good))
        assert list(validator.iter_errors({"output-format": "xml"}))
        assert list(validator.iter_errors({"rules": {"SL201": {"max-lines": "many"}}}))
        assert list(validator.iter_errors({"slect": ["SL1"]}))


def _keywords(node: dict):
    """The schema keywords used in ``node`` and below (property names are not keywords)."""
    for key, value in node.items():
        if key.startswith("x-") or key == "$id":  # extensions and the id: ignored by both drafts' validators
            continue
        yield key
        if key == "properties":
            for sub in value.values():
                yield from _keywords(sub)
        elif key in ("additionalProperties", "items") and isinstance(value, dict):
            yield from _keywords(value)


def test_schema_file_uses_keywords_taplo_reads_alike():
    used = set(_keywords(json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))))
    assert {"properties", "enum", "additionalProperties"} <= used
    assert used <= SHARED_KEYWORDS, sorted(used - SHARED_KEYWORDS)


def test_the_configuration_page_shows_how_to_associate_the_schema():
    page = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    assert "skilllint/schemas/config.schema.json" in page and ".taplo.toml" in page and "#:schema" in page
    assert "skilllint config --schema >" in page
