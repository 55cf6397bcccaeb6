"""JSON Schema of the native formats, written by ``abp-tui schema``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from abp_tui.formats import native
from abp_tui.models import Condition, Rubric, Run, Study, Task, TraceEvent


def native_schemas() -> dict[str, dict[str, Any]]:
    schemas: dict[str, dict[str, Any]] = {"native-line.schema.json": native.json_schema()}
    for model in (Study, Condition, Task, Rubric, Run, TraceEvent):
        schemas[f"{model.__name__.lower()}.schema.json"] = model.model_json_schema()
    return schemas


def write_schemas(out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, schema in native_schemas().items():
        path = out / name
        path.write_text(json.dumps(schema, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        written.append(path)
    return written
