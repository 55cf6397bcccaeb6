"""Views that make the database read well in Datasette and any SQLite browser.

``datasette data/abp.db --metadata schemas/metadata.json`` is how people browse and publish a
study's SQLite file. The tables are normalised for the workstation (keys, versions, JSON
payloads); these views join them into what a person asks for:

- ``current_runs`` (migration ``0005_browsing``): the current version of every run, with its
  task, condition label and output text;
- ``latest_judgments``: each reviewer's latest submitted judgment, one row per judged run (a
  preference alone, as a preference-only design records it, has a row per run of its pair), with
  the rubric's dimension scores as columns (``score_<dimension>``), built from the dimensions of
  the rubrics the database holds, so it is rebuilt when a new dimension appears;
- ``final_verdicts`` (migration ``0005_browsing``): a table, not a view, because a final verdict
  follows rules that live in Python (:mod:`abp_tui.analysis.verdicts`); it is a snapshot
  written by ``abp-tui schema``, and its ``computed_at`` column says when;
- ``final_preferences`` (migration ``0012_final_preferences``): the same snapshot for the final
  preference of every judged pair (a preference belongs to its pair, not to a run).

The views add no information the tables do not hold, and never change them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    import sqlite_utils

_LATEST_JUDGMENTS: Final = """
CREATE VIEW latest_judgments AS
WITH latest AS (
    SELECT j.* FROM judgments j
    WHERE j.status = 'submitted' AND j.revision = (
        SELECT max(k.revision) FROM judgments k
        WHERE k.item_pk = j.item_pk AND k.reviewer = j.reviewer AND k.status = 'submitted'
    )
)
SELECT d.study_id, d.name AS design, d.version_no AS design_version, i.code AS item,
       l.reviewer, l.revision, l.created_at AS submitted_at, l.seconds_spent,
       r.id AS run_id, t.id AS task_id, c.id AS condition_id, r.trial,
       (SELECT p.key FROM json_each(l.placement) p WHERE p.value = r.pk) AS shown_as,
       json_extract(l.resp, '$.state_override') AS state_override,
       json_extract(l.resp, '$.fatal_hits') AS fatal_hits,
       (SELECT sum(s.value) FROM json_each(l.resp, '$.scores') s) AS total_score,
       json_extract(l.payload, '$.preference') AS preference,
       (SELECT pr.id FROM runs pr WHERE pr.pk = l.preferred_pk) AS preferred_run_id,
       (SELECT pc.id FROM runs pr JOIN conditions pc ON pc.pk = pr.condition_pk
        WHERE pr.pk = l.preferred_pk) AS preferred_condition_id,
       json_extract(l.payload, '$.justification') AS justification,
       l.reason AS revision_reason{scores}
FROM (
    -- Every run of the item: a judgment that scored it has its response; a preference alone
    -- (a preference-only design) has none, and still one row per run of its pair.
    SELECT latest.*, r.pk AS run_pk,
           json_extract(latest.payload, '$.responses."' || r.pk || '"') AS resp,
           json_extract(
               latest.placement,
               CASE json_extract(latest.payload, '$.preference')
                   WHEN 'response_1' THEN '$."1"' WHEN 'response_2' THEN '$."2"' END
           ) AS preferred_pk
    FROM latest
    JOIN items it ON it.pk = latest.item_pk
    JOIN runs r ON r.pk IN (it.run_a_pk, it.run_b_pk)
    WHERE json_extract(latest.payload, '$.responses."' || r.pk || '"') IS NOT NULL
       OR json_extract(latest.payload, '$.preference') IS NOT NULL
) l
JOIN items i ON i.pk = l.item_pk
JOIN designs d ON d.pk = i.design_pk
JOIN runs r ON r.pk = l.run_pk
JOIN tasks t ON t.pk = r.task_pk
JOIN conditions c ON c.pk = r.condition_pk
"""


def _quote_identifier(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _quote_string(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def dimension_ids(db: sqlite_utils.Database) -> list[str]:
    """Every rubric dimension id the database's rubrics and designs declare, sorted."""
    rows = db.execute(
        """
        SELECT json_extract(d.value, '$.id') FROM rubrics, json_each(rubrics.document,
            '$.dimensions') d
        UNION
        SELECT json_extract(d.value, '$.id') FROM designs, json_each(designs.rubric,
            '$.dimensions') d
        """
    ).fetchall()
    return sorted({str(r[0]) for r in rows if r[0] is not None})


def latest_judgments_sql(dimensions: Sequence[str]) -> str:
    """The ``latest_judgments`` view with one ``score_<dimension>`` column per dimension."""
    scores = "".join(
        f",\n       json_extract(l.resp, {_quote_string(f'$.scores.{_json_key(dim)}')})"
        f" AS {_quote_identifier('score_' + dim)}"
        for dim in dimensions
    )
    return _LATEST_JUDGMENTS.format(scores=scores).strip()


def _json_key(key: str) -> str:
    # A JSON path quotes a key holding anything but letters, digits and underscores.
    return key if key.replace("_", "").isalnum() else '"' + key.replace('"', '\\"') + '"'


def _view_sql(db: sqlite_utils.Database, name: str) -> str | None:
    row = db.execute("SELECT sql FROM sqlite_master WHERE type = 'view' AND name = ?", [name])
    found = row.fetchone()
    return None if found is None else str(found[0])


def refresh_views(db: sqlite_utils.Database) -> bool:
    """Bring ``latest_judgments`` up to the dimensions stored; True when it was rebuilt.

    Reading the dimensions costs one small query; the view is only rewritten when they changed.
    """
    wanted = latest_judgments_sql(dimension_ids(db))
    if _view_sql(db, "latest_judgments") == wanted:
        return False
    with db.atomic():
        db.execute("DROP VIEW IF EXISTS latest_judgments")
        db.execute(wanted)
    return True


FinalVerdictRow = tuple[Any, ...]
"""(run_id, task_id, condition_id, trial, source, result_state, scores JSON, fatal_hits JSON,
judgments, items JSON), as :func:`replace_final_verdicts` stores them."""


_DESIGN_COLUMNS: Final = ("design_pk", "study_id", "design", "design_version")
_VERDICT_COLUMNS: Final = (
    "run_id",
    "task_id",
    "condition_id",
    "trial",
    "source",
    "result_state",
    "scores",
    "fatal_hits",
    "judgments",
    "items",
)
_PREFERENCE_COLUMNS: Final = (
    "item",
    "task_id",
    "run_a_id",
    "condition_a_id",
    "run_b_id",
    "condition_b_id",
    "source",
    "preferred",
    "preferred_condition_id",
    "judgments",
    "reviews",
    "adjudicator",
)


def _replace_snapshot(
    db: sqlite_utils.Database,
    table: str,
    columns: Sequence[str],
    design_pk: int,
    rows: Iterable[tuple[Any, ...]],
    computed_at: str,
) -> int:
    """Replace one design's rows of a snapshot table (each row: the design's key, study, name
    and version, then ``columns``, then when it was computed); return how many it holds."""
    design = db.execute(
        "SELECT study_id, name, version_no FROM designs WHERE pk = ?", [design_pk]
    ).fetchone()
    if design is None:
        raise KeyError(design_pk)
    stored = [(design_pk, *design, *row, computed_at) for row in rows]
    names = (*_DESIGN_COLUMNS, *columns, "computed_at")
    with db.atomic():
        db.execute(f"DELETE FROM {table} WHERE design_pk = ?", [design_pk])
        db.conn.executemany(
            f"INSERT INTO {table} ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})",
            stored,
        )
    return len(stored)


def replace_final_verdicts(
    db: sqlite_utils.Database, design_pk: int, rows: Iterable[FinalVerdictRow], computed_at: str
) -> int:
    """Replace the snapshot of one design's final verdicts; return how many rows it holds."""
    return _replace_snapshot(db, "final_verdicts", _VERDICT_COLUMNS, design_pk, rows, computed_at)


FinalPreferenceRow = tuple[Any, ...]
"""(item, task_id, run_a_id, condition_a_id, run_b_id, condition_b_id, source, preferred,
preferred_condition_id, judgments, reviews JSON, adjudicator), as
:func:`replace_final_preferences` stores them."""


def replace_final_preferences(
    db: sqlite_utils.Database, design_pk: int, rows: Iterable[FinalPreferenceRow], computed_at: str
) -> int:
    """Replace the snapshot of one design's final preferences; return how many rows it holds."""
    return _replace_snapshot(
        db, "final_preferences", _PREFERENCE_COLUMNS, design_pk, rows, computed_at
    )


def design_pks(db: sqlite_utils.Database) -> list[int]:
    """Every design's key, oldest first."""
    return [int(r[0]) for r in db.execute("SELECT pk FROM designs ORDER BY pk").fetchall()]


def run_facts_by_pk(
    db: sqlite_utils.Database, design_pk: int
) -> dict[int, tuple[str, str, str, int]]:
    """Run key -> (run id, task id, condition id, trial) for every run a design's items name."""
    rows = db.execute(
        """
        SELECT r.pk, r.id, t.id, c.id, r.trial FROM runs r
        JOIN tasks t ON t.pk = r.task_pk JOIN conditions c ON c.pk = r.condition_pk
        WHERE r.pk IN (SELECT run_a_pk FROM items WHERE design_pk = ?
                       UNION SELECT run_b_pk FROM items WHERE design_pk = ?)
        """,
        [design_pk, design_pk],
    ).fetchall()
    return {int(r[0]): (str(r[1]), str(r[2]), str(r[3]), int(r[4])) for r in rows}


def table_columns(db: sqlite_utils.Database) -> dict[str, list[str]]:
    """Every table and view of the database -> its column names, in order."""
    names = [
        str(r[0])
        for r in db.execute(
            "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') "
            "AND name NOT LIKE 'sqlite_%' ORDER BY name"
        ).fetchall()
    ]
    return {
        name: [str(c[1]) for c in db.execute(f"PRAGMA table_info({_quote_identifier(name)})")]
        for name in names
    }
