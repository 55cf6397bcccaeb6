"""What a reviewer is shown of the AI judges' verdicts on an item they have submitted.

The store decides whether they may see any (:func:`abp_tui.store.judges.item_verdicts`: never
before their own submission, never unless the design sets ``show_ai_after_submit``); this module
only turns what it hands over into rows a blind screen can show. A verdict names runs; a row
names the positions this reviewer saw (Response 1, Response 2), both for the run a judge picked
and for the one it was shown first, and the judge's explanation and error are masked with the
design's identity masker, as the responses are. A row never carries a run id, a condition, an
engine or a model of a response: only the judge's own id and model, which say who judged, not
who answered. Rows are sorted by what they show (judge, turn, response), never by the runs or
the order of import, which could follow the conditions.

This module does not import textual and runs no SQL of its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from abp_tui.analysis.masking import Masker
from abp_tui.analysis.placement import labels
from abp_tui.models.judges import TIE, JudgeVerdict, VerdictKind
from abp_tui.services.reviewing import design_masker
from abp_tui.store import connect
from abp_tui.store import judging as sql
from abp_tui.store.judging import BlindingError

if TYPE_CHECKING:
    import sqlite_utils

_KIND_ORDER: dict[VerdictKind, int] = {"preference": 0, "score": 1, "pass_fail": 2}


@dataclass(frozen=True)
class ShownVerdict:
    """One AI judge's verdict on the item, as this reviewer may see it."""

    judge: str
    """The judge's id (its own identity, not a response's)."""
    model: str
    """The judging model, as its source names it ("" when unknown)."""
    kind: VerdictKind
    turn: int | None
    """The conversation turn judged, when the verdict is on one turn."""
    subject: str
    """What was judged: ``Response 1`` / ``Response 2`` / ``Response`` for a verdict on one
    response, ``both responses`` for a preference."""
    outcome: str
    """``Response 1`` / ``Response 2`` / ``tie`` (preference), ``pass`` / ``fail`` / ``partial``,
    a score with its scale (``6 on 1–10``); ``no verdict`` when the judge gave none."""
    shown_first: str | None
    """For a preference: the position of the response the judge was shown first."""
    error: str
    """Why the judge gave no verdict, masked ("" when it gave one)."""
    explanation: str
    """The judge's own text, masked as the responses are (untrusted: shown only as text)."""


def _number(value: float) -> str:
    return f"{value:g}"


def _outcome(verdict: JudgeVerdict, position: dict[str, str]) -> str | None:
    """The verdict in positions; None when it names a run the reviewer was not shown."""
    if verdict.error is not None:
        return "no verdict"
    if verdict.kind == "preference":
        if verdict.verdict == TIE:
            return TIE
        return position.get(verdict.verdict or "")
    if verdict.kind == "score":
        shown = _number(verdict.score) if verdict.score is not None else "?"
        if verdict.scale is not None:
            shown += f" on {_number(verdict.scale[0])}–{_number(verdict.scale[1])}"
        return shown
    return verdict.verdict or "no verdict"


def _shown(
    verdict: JudgeVerdict, position: dict[str, str], models: dict[str, str], masker: Masker
) -> ShownVerdict | None:
    if any(run not in position for run in verdict.runs):
        return None  # not a verdict on what this reviewer saw: never shown, never by run
    outcome = _outcome(verdict, position)
    if outcome is None:
        return None
    pair = len(verdict.runs) == 2
    return ShownVerdict(
        judge=verdict.judge,
        model=models.get(verdict.judge, ""),
        kind=verdict.kind,
        turn=verdict.turn,
        subject="both responses" if pair else position[verdict.runs[0]],
        outcome=outcome,
        shown_first=position[verdict.shown_first] if verdict.shown_first is not None else None,
        error=masker.mask(verdict.error)[0] if verdict.error is not None else "",
        explanation=masker.mask(verdict.explanation)[0],
    )


def _order(row: ShownVerdict) -> tuple[str, int, int, str, str, str]:
    return (
        row.judge,
        row.turn or 0,
        _KIND_ORDER[row.kind],
        row.subject,
        row.shown_first or "",
        row.outcome,
    )


def item_verdicts_shown(
    db: sqlite_utils.Database, design_pk: int, code: str, reviewer: str
) -> tuple[ShownVerdict, ...] | None:
    """The AI judges' verdicts on item ``code`` as ``reviewer`` may see them (empty: no judge
    judged its responses); None while they may not (not submitted yet, or the design does not
    show AI verdicts: the store refuses, and this answers "nothing to show")."""
    # Imported here: the judges' store reads verdicts into NumPy columns, which the compare
    # screen must not load before its first item (most designs never show AI verdicts).
    from abp_tui.store import judges as verdicts_sql

    item = sql.item_by_code(db, design_pk, code, placed=False)
    try:
        found = verdicts_sql.item_verdicts(db, item.pk, reviewer)
    except BlindingError:
        return None
    latest = sql.latest_judgment(db, item.pk, reviewer)
    if latest is None:  # the store refuses before a submission; kept safe all the same
        return None
    position = labels(latest.placement)
    design = sql.design(db, design_pk)
    models = {j.id: j.model for j in verdicts_sql.study_judges(db, design.study_id)}
    masker = design_masker(db, design)
    rows = [_shown(verdict, position, models, masker) for verdict, _current in found]
    return tuple(sorted((r for r in rows if r is not None), key=_order))


def read_item_verdicts(
    db_path: Path, design_pk: int, code: str, reviewer: str
) -> tuple[ShownVerdict, ...] | None:
    """:func:`item_verdicts_shown` for the workstation, on a connection of its own (a
    worker's)."""
    db = connect(db_path)
    try:
        return item_verdicts_shown(db, design_pk, code, reviewer)
    finally:
        db.close()


__all__ = ["ShownVerdict", "item_verdicts_shown", "read_item_verdicts"]
