"""``abp-tui schema``: the JSON Schema of the native formats, and the database made browsable.

It writes one JSON Schema per native model (and of a native JSONL line) and a Datasette
``metadata.json`` describing every table, view and column; with a database, it also brings the
browsing views up to date and takes a fresh snapshot of every design's final verdicts into the
``final_verdicts`` table, and of its pairs' final preferences into ``final_preferences``
(:mod:`abp_tui.store.views`), so ``datasette data/abp.db --metadata schemas/metadata.json``
shows current figures.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import sqlite_utils

from abp_tui.analysis.verdicts import decide
from abp_tui.errors import writing
from abp_tui.export.bundle import write_file
from abp_tui.export.targets import check_target
from abp_tui.formats import native
from abp_tui.models import Condition, ItemPreference, Rubric, Run, Study, Task, TraceEvent
from abp_tui.store import judging, views
from abp_tui.store.db import connect_memory, utc_now
from abp_tui.store.metadata import datasette_metadata
from abp_tui.text.canonical import canonical_json

METADATA_FILE = "metadata.json"


def native_schemas() -> dict[str, dict[str, Any]]:
    schemas: dict[str, dict[str, Any]] = {"native-line.schema.json": native.json_schema()}
    for model in (Study, Condition, Task, Rubric, Run, TraceEvent):
        schemas[f"{model.__name__.lower()}.schema.json"] = model.model_json_schema()
    return schemas


def _write_json(path: Path, document: Any) -> Path:
    """Written whole or not at all; a full disk is one WriteError naming the file."""
    write_file(path, (json.dumps(document, indent=2, sort_keys=True) + "\n").encode("utf-8"))
    return path


def _preference_row(p: ItemPreference) -> views.FinalPreferenceRow:
    return (
        p.item,
        p.task,
        p.runs[0],
        p.conditions[0],
        p.runs[1],
        p.conditions[1],
        p.source,
        p.preferred,
        p.preferred_condition,
        len(p.reviews),
        canonical_json(
            [{"reviewer": r.reviewer, "pick": r.pick, "shown_as": r.shown_as} for r in p.reviews]
        ),
        p.adjudicator,
    )


def refresh_final_verdicts(db: sqlite_utils.Database) -> int:
    """Snapshot every design's final verdicts into ``final_verdicts`` and its pairs' final
    preferences into ``final_preferences``; return the rows written."""
    written = 0
    taken_at = utc_now()
    for design_pk in views.design_pks(db):
        decisions = decide(judging.records_of_design(db, design_pk, with_runs=False))
        written += views.replace_final_preferences(
            db, design_pk, (_preference_row(p) for p in decisions.preferences), taken_at
        )
        # Verdicts name runs by id (a design's items hold one version of each run).
        facts = {f[0]: f for f in views.run_facts_by_pk(db, design_pk).values()}
        rows = [
            (
                *facts[v.run],
                v.source,
                None if v.result_state is None else v.result_state.value,
                canonical_json(v.scores),
                canonical_json(list(v.fatal_hits)),
                v.judgments,
                canonical_json(list(v.items)),
            )
            for v in decisions.verdicts
        ]
        written += views.replace_final_verdicts(db, design_pk, rows, taken_at)
    return written


def write_schemas(
    out: Path, db: sqlite_utils.Database | None = None, database: str = "abp"
) -> list[Path]:
    """Write the schemas and ``metadata.json`` into ``out``; with ``db``, refresh its views and
    final verdicts first, and describe its columns as they are (score columns included)."""
    check_target(out, "folder", "the schemas")
    with writing(out):
        out.mkdir(parents=True, exist_ok=True)
    written = [_write_json(out / name, schema) for name, schema in native_schemas().items()]
    if db is None:
        db = connect_memory()  # a new database: every table and view, no scores
    else:
        views.refresh_views(db)
        refresh_final_verdicts(db)
    written.append(
        _write_json(out / METADATA_FILE, datasette_metadata(database, views.table_columns(db)))
    )
    return written
