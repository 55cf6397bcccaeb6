"""What a source states of a whole log, as ``abp-tui status`` shows it: Inspect logs' own figures.

An Inspect log carries, beside its samples, its eval spec, its ``plan`` (solver steps and config),
its ``results`` (the scores and metrics Inspect computed) and its ``stats`` (start and end times,
each model's token usage). Import keeps them whole, one reference verdict per log
(:data:`abp_tui.formats.inspect_log.LOG_SCHEMA`); this module reads them back in a few lines per
log for the coordinator's overview. They name the model: no blind screen reads this module.
While the study is blind its logs' scores and model usage are results by condition (each model is
a condition), so :func:`read` withholds them (:func:`withhold`) until the study is unblinded.

Standard library only, like :mod:`abp_tui.store.overview` (``status`` must start fast).
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from abp_tui.store import ownership
from abp_tui.store.overview import unblinded
from abp_tui.text.hints import command, quoted

LOG_SCHEMA = "inspect-log/v1"
"""As :data:`abp_tui.formats.inspect_log.LOG_SCHEMA` (not imported: pydantic is slow to load)."""


@dataclass(frozen=True)
class LogSummary:
    """One log's own figures, as text fields (each may be empty when the log lacks it)."""

    log: str
    task: str
    model: str
    status: str
    started_at: str
    completed_at: str
    samples: str
    """``completed of total`` samples, as the results state."""
    metrics: tuple[str, ...]
    """``scorer metric value`` for every metric of every scorer."""
    usage: tuple[str, ...]
    """``model: in N, out M, total T`` per model of the stats."""
    plan: tuple[str, ...]
    """The solver of each plan step, in order."""
    document: dict[str, Any]
    """Everything the log stated of itself, whole (while blind: without what scores it)."""
    withheld: str = ""
    """Why the metrics and usage are not shown (the study is blind), else empty."""


SHOWN_WHILE_BLIND: dict[str, tuple[str, ...] | None] = {
    "log": None,
    "version": None,
    "status": None,
    "error": None,
    "eval": None,
    "plan": None,
    "results": ("total_samples", "completed_samples"),
    "stats": ("started_at", "completed_at"),
}
"""What of a log document a blind study shows: these fields (None: whole; else only the keys
listed). Everything else, scores, reductions and model usage among them, waits for unblinding."""


def withhold(summary: LogSummary, study_id: str, db: object = None) -> LogSummary:
    """The summary as a blind study shows it: no metrics, no usage, only the document's fields
    that score nothing (:data:`SHOWN_WHILE_BLIND`)."""
    doc = summary.document
    kept: dict[str, Any] = {}
    for name, keys in SHOWN_WHILE_BLIND.items():
        if name not in doc:
            continue
        value = doc[name]
        if keys is None:
            kept[name] = value
        elif isinstance(value, dict):
            kept[name] = {k: value[k] for k in keys if k in value}
    return replace(
        summary,
        metrics=(),
        usage=(),
        document=kept,
        withheld=f"withheld until `{command(f'unblind --study {quoted(study_id)} --yes', db)}`",
    )


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def summarize(log_id: str, doc: dict[str, Any]) -> LogSummary:
    """The summary of one stored log document (fields of the wrong type are left out)."""

    def part(name: str) -> dict[str, Any]:
        value = doc.get(name)
        return value if isinstance(value, dict) else {}

    spec, plan, results, stats = part("eval"), part("plan"), part("results"), part("stats")
    metrics = []
    for score in results.get("scores") or []:
        if not isinstance(score, dict):
            continue
        found = score.get("metrics")
        for name, metric in (found if isinstance(found, dict) else {}).items():
            value = metric.get("value") if isinstance(metric, dict) else metric
            metrics.append(f"{_text(score.get('name'))} {name} {_text(value)}")
    usage = []
    models = stats.get("model_usage")
    for model, used in (models if isinstance(models, dict) else {}).items():
        if isinstance(used, dict):
            counts = ", ".join(
                f"{label} {used[key]}"
                for key, label in (
                    ("input_tokens", "in"),
                    ("output_tokens", "out"),
                    ("total_tokens", "total"),
                )
                if key in used
            )
            usage.append(f"{model}: {counts}")
    steps = [
        _text(step.get("solver")) for step in plan.get("steps") or [] if isinstance(step, dict)
    ]
    samples = ""
    if "total_samples" in results:
        samples = f"{_text(results.get('completed_samples'))} of {_text(results['total_samples'])}"
    return LogSummary(
        log=log_id,
        task=_text(spec.get("task")),
        model=_text(spec.get("model")),
        status=_text(doc.get("status")),
        started_at=_text(stats.get("started_at")),
        completed_at=_text(stats.get("completed_at")),
        samples=samples,
        metrics=tuple(metrics),
        usage=tuple(usage),
        plan=tuple(steps),
        document=doc,
    )


def log_summaries(conn: sqlite3.Connection, study_id: str, db: object = None) -> list[LogSummary]:
    """The study's logs' own figures, in import order (withheld while the study is blind; the
    hint names ``db``, the database's path, when it is not the default)."""
    blind = unblinded(conn, study_id) is None
    rows = conn.execute(
        "SELECT id, document FROM reference_verdicts WHERE study_id = ? AND schema_name = ? "
        "ORDER BY pk",
        [study_id, LOG_SCHEMA],
    ).fetchall()
    out = []
    for log_id, document in rows:
        doc = json.loads(document)
        if isinstance(doc, dict):
            found = summarize(str(log_id), doc)
            out.append(withhold(found, study_id, db) if blind else found)
    return out


def read(path: Path) -> dict[str, list[LogSummary]]:
    """Every study's log summaries (studies without any are left out), read-only."""
    conn = sqlite3.connect(ownership.read_only_uri(path), uri=True)
    try:
        ids = [r[0] for r in conn.execute("SELECT id FROM studies ORDER BY id").fetchall()]
        found = {study: log_summaries(conn, study, path) for study in ids}
    finally:
        conn.close()
    return {study: logs for study, logs in found.items() if logs}
