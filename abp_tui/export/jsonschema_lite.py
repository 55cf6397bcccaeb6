"""A small JSON Schema validator for the schemas this project ships (draft 2020-12 subset).

Supported keywords: ``type``, ``const``, ``enum``, ``properties``, ``required``,
``additionalProperties``, ``items``, ``prefixItems``, ``minItems``, ``maxItems``, ``minimum``,
``maximum``, ``minLength``, ``pattern``, ``anyOf``, ``oneOf`` and local ``$ref``
(``#/$defs/...``). Any other keyword in a schema is an error, so a schema never silently asks for
more than is checked. Kept here rather than adding a runtime dependency.
"""

from __future__ import annotations

import re
from typing import Any

_TYPES: dict[str, Any] = {
    "object": dict,
    "array": list,
    "string": str,
    "boolean": bool,
    "null": type(None),
}
_ANNOTATIONS = {"$schema", "$id", "$comment", "title", "description", "$defs", "examples"}
_KEYWORDS = {
    "type",
    "const",
    "enum",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "prefixItems",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
    "minLength",
    "pattern",
    "anyOf",
    "oneOf",
    "$ref",
}


class SchemaError(Exception):
    """The schema uses a keyword this validator does not support."""


def _is(value: Any, kind: str) -> bool:
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    return isinstance(value, _TYPES[kind])


def _where(path: str) -> str:
    return path or "$"


def validate(document: Any, schema: dict[str, Any]) -> list[str]:
    """Every violation of ``schema`` in ``document``, as ``$.json.path: message`` lines."""
    errors: list[str] = []
    _check(document, schema, schema, "$", errors)
    return errors


def _resolve(ref: str, root: dict[str, Any]) -> dict[str, Any]:
    if not ref.startswith("#/"):
        raise SchemaError(f"only local references are supported, got {ref!r}")
    node: Any = root
    for part in ref[2:].split("/"):
        node = node[part]
    if not isinstance(node, dict):
        raise SchemaError(f"{ref} is not a schema")
    return node


def _check(
    value: Any, schema: dict[str, Any] | bool, root: dict[str, Any], path: str, out: list[str]
) -> None:
    if schema is True:
        return
    if schema is False:
        out.append(f"{_where(path)}: no value is allowed here")
        return
    unknown = set(schema) - _KEYWORDS - _ANNOTATIONS
    if unknown:
        raise SchemaError(f"unsupported keywords {sorted(unknown)} at {path}")
    if "$ref" in schema:
        _check(value, _resolve(schema["$ref"], root), root, path, out)
    if "type" in schema:
        kinds = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_is(value, k) for k in kinds):
            out.append(f"{path}: expected {' or '.join(kinds)}, got {type(value).__name__}")
            return
    if "const" in schema and value != schema["const"]:
        out.append(f"{path}: expected {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        out.append(f"{path}: expected one of {schema['enum']!r}")
    if isinstance(value, dict):
        props = schema.get("properties", {})
        for name in schema.get("required", ()):
            if name not in value:
                out.append(f"{path}: required field {name!r} is missing")
        extra = schema.get("additionalProperties", True)
        for name, item in value.items():
            if name in props:
                _check(item, props[name], root, f"{path}.{name}", out)
            elif extra is False:
                out.append(f"{path}: unexpected field {name!r}")
            elif isinstance(extra, dict):
                _check(item, extra, root, f"{path}.{name}", out)
    if isinstance(value, list):
        prefix = schema.get("prefixItems", [])
        for i, item in enumerate(value):
            if i < len(prefix):
                _check(item, prefix[i], root, f"{path}[{i}]", out)
            elif "items" in schema:
                _check(item, schema["items"], root, f"{path}[{i}]", out)
        if "minItems" in schema and len(value) < schema["minItems"]:
            out.append(f"{path}: expected at least {schema['minItems']} items")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            out.append(f"{path}: expected at most {schema['maxItems']} items")
    if _is(value, "number"):
        if "minimum" in schema and value < schema["minimum"]:
            out.append(f"{path}: expected a value >= {schema['minimum']}")
        if "maximum" in schema and value > schema["maximum"]:
            out.append(f"{path}: expected a value <= {schema['maximum']}")
    if isinstance(value, str):
        if "minLength" in schema and len(value) < schema["minLength"]:
            out.append(f"{path}: expected at least {schema['minLength']} characters")
        if "pattern" in schema and not re.search(schema["pattern"], value):
            out.append(f"{path}: does not match {schema['pattern']!r}")
    for keyword in ("anyOf", "oneOf"):
        if keyword not in schema:
            continue
        passing = 0
        for option in schema[keyword]:
            trial: list[str] = []
            _check(value, option, root, path, trial)
            passing += not trial
        if keyword == "anyOf" and passing == 0:
            out.append(f"{path}: matches none of the allowed shapes")
        if keyword == "oneOf" and passing != 1:
            out.append(f"{path}: expected exactly one allowed shape to match, {passing} did")
