"""The reviewer's desk: one review session shared by the judging screens and their workers.

The screens call the desk from worker threads; the desk serialises every use of the session's
connection with one lock, so a draft, an item being opened and a submission never interleave. A
draft is *staged* by the screen (instant, in memory) and stored by a worker; when several drafts
of an item are staged before a worker runs, only the newest is stored, so the latest decision
always wins and no older state can overwrite it. Time on an item is measured here (monotonic
clock) and passed to each save.

The automated judge's outcome of an item (:meth:`Desk.automated`) is shown only once the
reviewer has submitted their own judgment of it: before, it would anchor them, so the store
refuses it and the desk answers "nothing yet". It is keyed by the positions the reviewer saw,
never by run, and its text is masked as the responses are.

This module does not import textual and runs no SQL: it calls ``abp_tui.services.reviewing`` and
the store's read functions.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from abp_tui.analysis.placement import in_order
from abp_tui.models import Finding, Judgment
from abp_tui.services.reviewing import BlindItem, ReviewSession, SaveResult
from abp_tui.store import connect, queue_pages
from abp_tui.store import judging as store
from abp_tui.store.judging import BlindingError
from abp_tui.store.judging import QueueRow as QueueRow
from abp_tui.store.queue_pages import QueueCounts

if TYPE_CHECKING:
    from abp_tui.analysis.transcript import Transcript


@dataclass(frozen=True)
class JudgeableDesign:
    """A study design this reviewer can judge: assigned to them, or open to anyone."""

    pk: int
    study_id: str
    name: str
    version_no: int
    assigned: bool
    """True when the design names this reviewer; False for an open design."""
    total: int
    """Items this reviewer has (or will have once enrolled)."""
    submitted: int
    joined: bool = False
    """True when the reviewer already has items in the design (assigned or enrolled)."""

    @property
    def unfinished(self) -> int:
        return self.total - self.submitted

    @property
    def label(self) -> str:
        return f"{self.study_id} / {self.name} v{self.version_no}"


def judgeable_designs(db_path: Path, reviewer: str) -> list[JudgeableDesign]:
    """The latest version of every design the reviewer may judge, the best one to start first.

    Designs that name the reviewer come before open ones, and designs with work left before
    finished ones. Reading only: an open design is not joined until it is opened.
    """
    db = connect(db_path)
    try:
        latest: dict[tuple[str, str], queue_pages.DesignHead] = {}
        for row in queue_pages.design_heads(db):
            latest[(row.study_id, row.name)] = row
        found = []
        for row in latest.values():
            reviewers = row.reviewers
            if reviewers and reviewer not in reviewers:
                continue
            mine = {p.reviewer: p for p in store.progress(db, row.pk)}.get(reviewer)
            if mine is not None:
                total, submitted = mine.assigned, mine.submitted
            else:
                total, submitted = queue_pages.design_items(db, row.pk), 0
            found.append(
                JudgeableDesign(
                    row.pk,
                    row.study_id,
                    row.name,
                    row.version_no,
                    bool(reviewers),
                    total,
                    submitted,
                    mine is not None,
                )
            )
    finally:
        db.close()
    found.sort(key=lambda d: (not d.assigned, d.unfinished == 0, d.study_id, d.name))
    return found


@dataclass(frozen=True)
class StoredDraft:
    """A staged draft that reached the database."""

    code: str
    version: int
    """The screen's change counter the draft was staged with."""
    result: SaveResult


@dataclass(frozen=True)
class AutomatedDimension:
    dimension: str
    outcome: str
    """pass, fail or unscored (unscored is neither: never shown as a zero)."""
    reason: str


@dataclass(frozen=True)
class AutomatedOutcome:
    """The automated judge's outcome of one response, where this reviewer saw it."""

    position: str
    """"1" (Response 1) or "2" (Response 2); "1" for a single item."""
    scorer: str
    outcome: str
    """passed or failed."""
    dimensions: tuple[AutomatedDimension, ...]


@dataclass(frozen=True)
class QueuePage:
    """A page of the reviewer's queue (blind codes only), as the queue screen shows it."""

    study_id: str
    design_name: str
    start: int
    """The first row's place (0-based) among the rows the filters keep."""
    rows: list[QueueRow]
    tasks: dict[str, str]
    """Each row's task text (title, then prompt) by blind code."""
    matching: int
    """How many rows the filters keep in all."""
    counts: QueueCounts
    """The whole queue's items by status."""


@dataclass(frozen=True)
class QueueView:
    """The reviewer's items in their order, each with its status (blind codes only)."""

    study_id: str
    design_name: str
    rows: list[QueueRow]


class Desk:
    """One reviewer's work on one design, safe to call from several worker threads."""

    def __init__(self, db_path: Path, design_pk: int, reviewer: str) -> None:
        self.db_path = db_path
        self.design_pk = design_pk
        self.reviewer = reviewer
        self._lock = threading.RLock()
        self._staged_lock = threading.Lock()
        self._staged: dict[str, tuple[int, Judgment]] = {}
        self._discards = 0
        """How many times the staged drafts were discarded: a save that fails after a discard
        must not stage again what the reviewer chose to leave."""
        self._clock: dict[str, float] = {}
        self._session: ReviewSession | None = None

    # -- the session --------------------------------------------------------------------------
    def _open_session(self) -> ReviewSession:
        if self._session is None:
            self._session = ReviewSession(connect(self.db_path), self.design_pk, self.reviewer)
        return self._session

    def close(self) -> None:
        with self._lock:
            self._store_staged()
            if self._session is not None:
                self._session.db.close()
                self._session = None

    @property
    def title(self) -> str:
        """``study / design`` (blind: names of the study and the design, no conditions)."""
        with self._lock:
            session = self._open_session()
            return f"{session.design_row.study_id} / {session.design_row.name}"

    @property
    def station(self) -> bool:
        """Whether this is a reviewer station: the study was opened from a reviewer's pack."""
        from abp_tui.services.design_choices import PACK_PROTOCOL
        from abp_tui.store.queries import study_protocol

        with self._lock:
            session = self._open_session()
            return study_protocol(session.db, session.design_row.study_id) == PACK_PROTOCOL

    # -- reading ------------------------------------------------------------------------------
    def open(self, code: str | None = None) -> BlindItem | None:
        """The item ``code`` (default: where the reviewer left off); None for an empty queue.

        Drafts still staged are stored first, so the item shows what was decided last.
        """
        with self._lock:
            self._store_staged()
            session = self._open_session()
            code = code or session.resume_code()
            if code is None:
                return None
            item = session.open(code)
            self._clock[code] = time.monotonic()
            return item

    def peek_after(self, code: str) -> BlindItem | None:
        """The item after ``code`` in the queue, read ahead (None after the last one).

        Nothing is written: staged drafts stay staged (their worker stores and reports them),
        the reviewer is not moved there and no clock runs; :meth:`enter` does that once the
        item is shown.
        """
        with self._lock:
            session = self._open_session()
            following = session.next_code(code, 1)
            return None if following is None else session.read(following)

    def enter(self, code: str, restart_clock: bool = True) -> tuple[int, list[StoredDraft]]:
        """Make ``code`` (shown from :meth:`peek_after`) the current item; start its clock
        (unless ``restart_clock`` is False: the item was shown all along).

        Drafts still staged are stored first and returned. Also returns the item's latest
        revision, so the caller can tell whether what it read ahead is still the newest.
        """
        with self._lock:
            stored = self._store_staged()
            revision = self._open_session().enter(code)
            if restart_clock or code not in self._clock:
                self._clock[code] = time.monotonic()
            return revision, stored

    def next_code(self, code: str, step: int = 1, unfinished: bool = False) -> str | None:
        with self._lock:
            self._store_staged()
            return self._open_session().next_code(code, step, unfinished)

    def first_unfinished(self, other_than: str | None = None) -> str | None:
        """The first item of the queue not submitted yet, other than ``other_than``."""
        with self._lock:
            self._store_staged()
            return self._open_session().first_unfinished(other_than)

    def queue(self) -> QueueView:
        """The whole queue (a pack, a test); the queue screen reads it a page at a time."""
        with self._lock:
            self._store_staged()
            session = self._open_session()
            return QueueView(session.design_row.study_id, session.design.name, session.queue())

    def queue_page(
        self,
        status_filter: str,
        words: list[str],
        start: int | None,
        size: int,
        around: str | None = None,
    ) -> QueuePage:
        """``size`` rows of the queue from row ``start`` among those the filters keep (None:
        the page holding item ``around``, else the first), with the counts of the queue."""
        with self._lock:
            self._store_staged()
            session = self._open_session()
            before = None
            if start is None and around is not None:
                matching, before = session.queue_matching_before(around, status_filter, words)
            else:
                matching = session.queue_matching(status_filter, words)
            if start is None:
                start = 0 if before is None else before - before % size
            last_page = max(0, (matching - 1) // size * size)
            start = max(0, min(start, last_page))
            found = session.queue_page(status_filter, words, start, size, matching)
            return QueuePage(
                session.design_row.study_id,
                session.design.name,
                found.start,
                found.rows,
                found.tasks,
                matching,
                session.counts(),
            )

    def transcripts(self, code: str) -> tuple[Transcript, ...]:
        """The item's responses as transcripts, masked, by position (built after the session
        is free again: a long one takes a while)."""
        # Transcripts are read when a Trace tab is first shown: the first item without them.
        from abp_tui.services.transcripts import transcript_of, transcript_records

        with self._lock:
            session = self._open_session()
            records = transcript_records(session, code)
        return tuple(transcript_of(r, session.masker.mask) for r in records)

    def task_texts(self) -> dict[str, str]:
        """Each item's task text by blind code (the queue filters by it)."""
        from abp_tui.services.transcripts import task_texts

        with self._lock:
            return task_texts(self._open_session())

    def automated(self, code: str) -> tuple[AutomatedOutcome, ...] | None:
        """The automated judge's outcomes of the item's responses, by position (empty: it
        scored none of them); None while this reviewer has not submitted their own judgment.

        Call it for the item shown, never while reading ahead: the answer is for a reviewer
        who is looking at the item.
        """
        # Imported here: the scoring service loads every input format's models, which the
        # compare screen's first item must not wait for.
        from abp_tui.services.scibench_scoring import revealed_scores

        with self._lock:
            session = self._open_session()
            try:
                scores = revealed_scores(session.db, self.design_pk, code, self.reviewer)
            except BlindingError:
                return None
            item = store.item_by_code(session.db, self.design_pk, code, placed=False)
            latest = store.latest_judgment(session.db, item.pk, self.reviewer)
            placement = latest.placement if latest is not None else {}
            masked = session.masker.mask
            found = []
            for position, run in in_order(placement):
                score = scores.get(run)
                if score is None:
                    continue
                dimensions = tuple(
                    AutomatedDimension(
                        masked(str(d.get("dimension", "")))[0],
                        str(d.get("outcome", "")),
                        masked(str(d.get("reason", "")))[0],
                    )
                    for d in score.dimensions
                )
                found.append(AutomatedOutcome(position, score.scorer, score.outcome, dimensions))
            return tuple(found)

    def finding_ids(self) -> set[str]:
        """Ids of this reviewer's own findings in the study (a new one needs a fresh id).
        Never another reviewer's: which ids they took would tell which items they found
        something on."""
        with self._lock:
            session = self._open_session()
            return {
                f.id
                for f in store.finding_revisions(session.db, session.design_row.study_id)
                if f.reviewer == session.reviewer
            }

    # -- writing ------------------------------------------------------------------------------
    def stage(self, code: str, version: int, judgment: Judgment) -> None:
        """Remember the newest draft of an item; :meth:`store_staged` writes it. Never blocks."""
        with self._staged_lock:
            held = self._staged.get(code)
            if held is None or held[0] <= version:
                self._staged[code] = (version, judgment)

    def has_staged(self, code: str) -> bool:
        with self._staged_lock:
            return code in self._staged

    def discard_staged(self) -> list[str]:
        """Forget every staged draft (the reviewer chose to leave them unsaved); their codes."""
        with self._staged_lock:
            codes = list(self._staged)
            self._staged.clear()
            self._discards += 1
            return codes

    def discard_staged_of(self, code: str) -> bool:
        """Forget item ``code``'s staged draft (one the store will never take); whether there
        was one."""
        with self._staged_lock:
            found = self._staged.pop(code, None) is not None
            self._discards += found
            return found

    def store_staged(self) -> list[StoredDraft]:
        """Write every staged draft (the newest of each item) as a new revision."""
        with self._lock:
            return self._store_staged()

    def _store_staged(self) -> list[StoredDraft]:
        stored: list[StoredDraft] = []
        while True:
            with self._staged_lock:
                if not self._staged:
                    return stored
                code = next(iter(self._staged))
                version, judgment = self._staged.pop(code)
                discards = self._discards
            try:
                result = self._open_session().save(code, judgment, self._elapsed(code))
            except BaseException:
                with self._staged_lock:
                    discarded = self._discards != discards
                if not discarded:  # left unsaved on purpose while this save was waiting
                    self.stage(code, version, judgment)
                raise
            stored.append(StoredDraft(code, version, result))

    def submit(self, code: str, judgment: Judgment, reason: str = "") -> SaveResult:
        """Submit (raises NotReady with the problems, or AbpError without a needed reason)."""
        with self._lock:
            with self._staged_lock:
                self._staged.pop(code, None)
            return self._open_session().save(
                code, judgment, self._elapsed(code), submit=True, reason=reason
            )

    def record_finding(self, code: str, finding: Finding, positions: tuple[str, ...]) -> int:
        with self._lock:
            return self._open_session().record_finding(code, finding, positions)

    def _elapsed(self, code: str) -> float:
        now = time.monotonic()
        started = self._clock.get(code, now)
        self._clock[code] = now
        return now - started
