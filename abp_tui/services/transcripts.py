"""The transcripts of a blind item's responses, for the reviewer's compare screen.

Each response's run is read from the store (:mod:`abp_tui.store.transcripts`) and turned into a
:class:`~abp_tui.analysis.transcript.Transcript` masked with the design's identity masker, the
one that masks the outputs, in the placement this reviewer sees (Response 1, Response 2). Nothing
here names a run: what is returned is as blind as the item. The queue's task texts (what the
queue screen filters by) are read here too. No Textual, no SQL.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from abp_tui.analysis.transcript import Mask, Transcript, build_transcript
from abp_tui.services.reviewing import ReviewSession
from abp_tui.store import judging as sql
from abp_tui.store import transcripts as store

if TYPE_CHECKING:
    import sqlite_utils


def run_transcript(db: sqlite_utils.Database, run_pk: int, mask: Mask) -> Transcript:
    """One run's transcript, masked with ``mask``."""
    return transcript_of(store.run_record(db, run_pk), mask)


def transcript_of(record: store.RunRecord, mask: Mask) -> Transcript:
    """The transcript of a run's stored record (no database: it can run outside a lock)."""
    return build_transcript(
        record.source_format, record.metadata, record.events, record.event_count, mask
    )


def transcript_records(session: ReviewSession, code: str) -> tuple[store.RunRecord, ...]:
    """What the transcripts of item ``code``'s responses are made from, in the order this
    reviewer sees the responses."""
    item = sql.item_by_code(session.db, session.design_pk, code, placed=False)
    # The session's own placement: the transcripts line up with the outputs shown.
    order = session._placement(item)
    return tuple(store.run_record(session.db, pk) for pk in order)


def blind_transcripts(session: ReviewSession, code: str) -> tuple[Transcript, ...]:
    """The transcripts of item ``code``'s responses, masked, in the order this reviewer sees."""
    mask = session.masker.mask
    return tuple(transcript_of(r, mask) for r in transcript_records(session, code))


def task_texts(session: ReviewSession) -> dict[str, str]:
    """Each of the design's items' task text (title, then prompt), by blind code."""
    return store.task_texts(session.db, session.design_pk)
