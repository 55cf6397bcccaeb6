"""SQL for the model each current run of a study says it ran on (seed 000 sections 3 and 10).

Only the few fields the model-version rule compares are read, straight from each run's stored
record, so results of a large study do not load its outputs for them. Nothing is written.
"""

from __future__ import annotations

import sqlite_utils

from abp_tui.analysis.model_versions import RunModel, run_model

_SELECT = """
SELECT r.id, t.id, c.id, r.provider, r.model, r.model_version, r.reasoning,
  json_extract(r.document, '$.metadata.requested_model'),
  json_extract(r.document, '$.metadata.returned_model'),
  json_type(r.document, '$.metadata.requested_model') IS NOT NULL
    OR json_type(r.document, '$.metadata.returned_model') IS NOT NULL
FROM runs r JOIN tasks t ON t.pk = r.task_pk JOIN conditions c ON c.pk = r.condition_pk
WHERE r.study_id = ? AND r.current = 1
"""


def run_models(db: sqlite_utils.Database, study_id: str) -> list[RunModel]:
    """The model of every current run of a study, as its record names it."""
    out = []
    for run, task, condition, provider, model, version, reasoning, req, ret, afp in db.execute(
        _SELECT, [study_id]
    ).fetchall():
        record: dict[str, object] = {
            "provider": provider,
            "model": model,
            "model_version": version,
            "reasoning": reasoning,
        }
        if afp:  # an AFP runner row: its metadata names both models
            record["metadata"] = {"requested_model": req, "returned_model": ret}
        out.append(run_model(run, task, condition, record))
    return out
