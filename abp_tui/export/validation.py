"""JSON Schema validation of what an export writes and ``verify`` reads, by the jsonschema package.

The schemas ship in ``abp_tui/export/schemas/`` (draft 2020-12): ``abp-verdict/v1`` (seed 003
section 8), the bundle's ``manifest.json`` (``abp-tui-bundle/v1``) and a line of
``results/verdicts.jsonl`` (``abp-tui-verdicts/v1``). Violations come back as
one line each, ``$.json.path: what was expected``, in the project's own wording, so a refused
file names the field the way every other input error does.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any, Final

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

VERDICT_SCHEMA_FILE: Final = "abp-verdict-v1.schema.json"
MANIFEST_SCHEMA_FILE: Final = "abp-tui-bundle-v1.schema.json"
VERDICTS_SCHEMA_FILE: Final = "abp-tui-verdicts-v1.schema.json"
"""A line of ``results/verdicts.jsonl`` (``abp-tui-verdicts/v1``)."""


@cache
def load_schema(file_name: str) -> dict[str, Any]:
    """A JSON Schema this project ships, by its file name."""
    text = resources.files("abp_tui.export").joinpath("schemas", file_name).read_text("utf-8")
    loaded: dict[str, Any] = json.loads(text)
    return loaded


@cache
def _validator(file_name: str) -> Draft202012Validator:
    schema = load_schema(file_name)
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def _path(error: ValidationError) -> str:
    out = "$"
    for part in error.absolute_path:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def _message(error: ValidationError) -> str:
    where = _path(error)
    # The stubs type these as possibly unset; for an error raised by a validator both are set.
    kind: Any = error.validator
    expected: Any = error.validator_value
    schema: Any = error.schema
    if kind == "required":
        present = error.instance if isinstance(error.instance, dict) else {}
        missing = [name for name in expected if name not in present]
        return "; ".join(f"{where}: required field {name!r} is missing" for name in missing)
    if kind == "additionalProperties" and isinstance(error.instance, dict):
        known = set(schema.get("properties", {}))
        extra = sorted(name for name in error.instance if name not in known)
        return "; ".join(f"{where}: unexpected field {name!r}" for name in extra)
    if kind == "type":
        kinds = expected if isinstance(expected, list) else [expected]
        return f"{where}: expected {' or '.join(kinds)}, got {type(error.instance).__name__}"
    if kind == "minimum":
        return f"{where}: expected a value >= {expected}"
    if kind == "maximum":
        return f"{where}: expected a value <= {expected}"
    if kind == "enum":
        return f"{where}: expected one of {expected!r}"
    if kind == "const":
        return f"{where}: expected {expected!r}"
    return f"{where}: {error.message}"


def schema_errors(document: Any, file_name: str) -> list[str]:
    """Every violation of the named schema in ``document``, in document order."""
    errors = sorted(_validator(file_name).iter_errors(document), key=lambda e: list(e.path))
    out: list[str] = []
    for error in errors:
        out.extend(_message(error).split("; "))
    return out
