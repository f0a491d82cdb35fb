"""Validate an invoice against the schema of its version: validate.py INVOICE.json"""
import json
import sys
from pathlib import Path

from jsonschema import Draft202012Validator

SCHEMAS = Path(__file__).parent / "schemas"

invoice = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
schema = json.loads((SCHEMAS / f"invoice-v{invoice.get('version', 2)}.json").read_text(encoding="utf-8"))
errors = sorted(Draft202012Validator(schema).iter_errors(invoice), key=lambda e: e.json_path)
for error in errors:
    print(f"{error.json_path}: {error.message}")
sys.exit(1 if errors else 0)
