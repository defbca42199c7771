#!/usr/bin/env python3
"""Validates JSON files against a JSON Schema (draft 2020-12) with Python's jsonschema, the
independent validator the tests compare trailpack's own against.

Usage: check_schema.py SCHEMA FILE...   Prints one JSON object: {"FILE": {"valid": bool, "errors": [...]}}.
"""
import json, sys
import jsonschema

schema = json.load(open(sys.argv[1], encoding="utf-8"))
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)
result = {}
for path in sys.argv[2:]:
    try:
        document = json.load(open(path, encoding="utf-8"))
        errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}"[:300] for e in validator.iter_errors(document)]
    except ValueError as e:
        errors = [f"not JSON: {e}"]
    result[path] = {"valid": not errors, "errors": errors}
json.dump(result, sys.stdout, indent=1)
