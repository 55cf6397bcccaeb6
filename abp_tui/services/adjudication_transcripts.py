"""The transcripts of a disputed item's responses, for the adjudication screen.

The adjudicator reads what the agents did exactly as a reviewer does on the compare screen: each
run's transcript built from its stored record and masked with the design's identity masker (the
one that masks the outputs), in this screen's blind-swapped placement (the reverse of what the
first reviewer saw, :func:`abp_tui.services.coordinator.open_adjudication`). The same refusal as
the item applies (:func:`abp_tui.services.adjudicating.adjudication_refused`): whoever may not
adjudicate it gets nothing. Nothing returned
names a run, a condition, an engine or a model. No Textual, no SQL.
"""

from __future__ import annotations

from pathlib import Path

from abp_tui.analysis.placement import order_of
from abp_tui.analysis.transcript import Transcript
from abp_tui.errors import AbpError
from abp_tui.services.adjudicating import adjudication_refused
from abp_tui.services.reviewing import design_masker
from abp_tui.services.transcripts import transcript_of
from abp_tui.store import connect
from abp_tui.store import judging as sql
from abp_tui.store import transcripts as store


def adjudication_transcripts(
    db_path: Path, design_pk: int, code: str, adjudicator: str, placement: dict[str, int]
) -> tuple[Transcript, ...]:
    """Item ``code``'s transcripts in the screen's ``placement`` (position -> run key, as
    :class:`~abp_tui.services.coordinator.AdjudicationItem` holds it), masked.

    Raises the item's refusal for whoever may not adjudicate it
    (:func:`abp_tui.services.adjudicating.adjudication_refused`: BlindingError for a reviewer of
    it who has not submitted), and AbpError when ``placement`` names runs that are not the
    item's.
    """
    db = connect(db_path)
    try:
        item = sql.item_by_code(db, design_pk, code)
        refused = adjudication_refused(db, sql.design(db, design_pk), item, adjudicator)
        if refused is not None:
            raise refused
        order = order_of(placement)
        if sorted(order) != sorted(item.run_pks):
            raise AbpError(f"{code}: the placement given does not name this item's responses")
        mask = design_masker(db, sql.design(db, design_pk)).mask
        records = [store.run_record(db, pk) for pk in order]
    finally:
        db.close()
    # Built once the connection is closed: a long transcript takes a while.
    return tuple(transcript_of(record, mask) for record in records)


class AdjudicationTranscripts:
    """What the screen's transcript reader asks: ``transcripts(code)`` of the item open."""

    def __init__(self, db_path: Path, design_pk: int, adjudicator: str) -> None:
        self.db_path = db_path
        self.design_pk = design_pk
        self.adjudicator = adjudicator
        self.placements: dict[str, dict[str, int]] = {}
        """The placement of each item opened (its screen order), by blind code."""

    def opened(self, code: str, placement: dict[str, int]) -> None:
        self.placements[code] = dict(placement)

    def transcripts(self, code: str) -> tuple[Transcript, ...]:
        placement = self.placements.get(code)
        if placement is None:
            raise AbpError(f"{code} is not open on the adjudication screen")
        return adjudication_transcripts(
            self.db_path, self.design_pk, code, self.adjudicator, placement
        )


__all__ = ["AdjudicationTranscripts", "adjudication_transcripts"]
