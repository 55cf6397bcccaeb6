"""A reviewer's session on a study design: the queue, blind items, drafts, submissions, resume.

This is what the workstation's screens call. What it returns is blind: blind codes, masked
outputs and traces, "Response 1" / "Response 2" keys; never run ids, condition names, engines,
models, providers, file names or other reviewers' judgments. Judgments come in and go out keyed
by position ("1", "2"); they are stored keyed by run, with the placement that was shown.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from abp_tui.analysis.blinding import Masker, PlanError, PlannedItem, enrol
from abp_tui.analysis.placement import (
    by_position,
    placement_of,
    positions_shown,
    relabel,
    run_at,
    seen_order,
)
from abp_tui.analysis.records import design_document
from abp_tui.errors import AbpError
from abp_tui.errors import NotReady as NotReady
from abp_tui.models import (
    Finding,
    Judgment,
    ResultState,
    Rubric,
    StudyDesign,
)
from abp_tui.models.rubric import stored_rubric
from abp_tui.store import judging as sql
from abp_tui.store import queue_pages
from abp_tui.store.design_masking import masked_loose
from abp_tui.store.secrets import plan_secret

if TYPE_CHECKING:
    import sqlite_utils

RECORD_STATES = (ResultState.PROVIDER_BLOCK.value, ResultState.INFRA_ERROR.value)


@dataclass(frozen=True)
class BlindTask:
    title: str
    prompt: str
    base_instruction: str
    evidence: str
    expected_behaviour: str
    fatal_criteria: tuple[str, ...]
    """The task's own fatal criteria, then the rubric's general ones."""
    risk_type: str


@dataclass(frozen=True)
class BlindTraceEvent:
    seq: int
    kind: str
    tool: str | None
    input_tokens: int | None
    output_tokens: int | None
    duration_ms: float | None


@dataclass(frozen=True)
class BlindResponse:
    key: str
    """"1" or "2" (pair items), "1" (single items)."""
    text: str
    """The output with identity terms masked (may be empty)."""
    masked: int
    """How many identity terms were masked in the text."""
    record_state: str | None
    """PROVIDER_BLOCK or INFRA_ERROR when the record says so, for the reviewer to confirm."""
    trace: tuple[BlindTraceEvent, ...]


@dataclass
class BlindItem:
    code: str
    kind: str
    index: int
    """Position in this reviewer's queue (0-based)."""
    total: int
    task: BlindTask
    responses: tuple[BlindResponse, ...]
    rubric: Rubric
    status: str
    """todo, draft or submitted."""
    revision: int
    judgment: Judgment = field(default_factory=Judgment)
    """This reviewer's latest judgment, keyed by position."""
    seconds_spent: float = 0.0
    timing_rule: str | None = None
    """The design's correction timing rule (seed 002): minutes are asked per response."""


@dataclass(frozen=True)
class SaveResult:
    revision: int
    status: str
    problems: tuple[str, ...] = ()


def design_masker(db: sqlite_utils.Database, row: sql.DesignRow) -> Masker:
    """The identity masker a design recorded when it was made, with the well-known names it
    may leave (none for a design made before they were kept)."""
    return Masker(
        tuple(row.document.get("masked_terms", ())),
        tuple(row.document.get("masked_short_ids", ())),
        masked_loose(db, row.pk),
    )


def masked_count(db: sqlite_utils.Database, masker: Masker, run_pk: int) -> int:
    """How many identity terms ``masker`` masks in run ``run_pk``'s output (an item's count)."""
    output = sql.run_content(db, run_pk).output
    return masker.mask(output)[1] if output else 0


def item_masking(
    db: sqlite_utils.Database, masker: Masker, items: Sequence[PlannedItem]
) -> dict[str, dict[str, int]]:
    """Each planned item's count of terms masked in each response (``a``, ``b``), as its blind
    screen masks them; the few distinct counts held once."""
    masking: dict[str, dict[str, int]] = {}
    alike: dict[tuple[tuple[str, int], ...], dict[str, int]] = {}
    for item in items:
        counts = {"a": masked_count(db, masker, item.run_a.pk)}
        if item.run_b is not None:
            counts["b"] = masked_count(db, masker, item.run_b.pk)
        masking[item.key] = alike.setdefault(tuple(counts.items()), counts)
    return masking


def blind_task(db: sqlite_utils.Database, task_pk: int, rubric: Rubric) -> BlindTask:
    """A task as blind screens show it: its texts, its own then the rubric's fatal criteria."""
    task = sql.task_row(db, task_pk)
    return BlindTask(
        task["title"],
        task["prompt"],
        task["base_instruction"],
        task["evidence"],
        task["expected_behaviour"],
        tuple(task["fatal_criteria"]) + rubric.fatal_criteria,
        task["risk_type"],
    )


def blind_responses(
    db: sqlite_utils.Database, masker: Masker, runs: list[int]
) -> tuple[BlindResponse, ...]:
    """The runs' outputs and traces, masked, as Response 1, 2... in the order given."""
    out = []
    for position, run_pk in enumerate(runs, start=1):
        content = sql.run_content(db, run_pk)
        text, masked = masker.mask(content.output or "")
        trace: tuple[BlindTraceEvent, ...] = ()
        if content.trace_pk is not None:
            trace = tuple(
                BlindTraceEvent(
                    seq,
                    masker.mask(kind)[0],
                    masker.mask(tool)[0] if tool else None,
                    tokens_in,
                    tokens_out,
                    ms,
                )
                for seq, kind, tool, tokens_in, tokens_out, ms in sql.trace_events(
                    db, content.trace_pk
                )
            )
        state = content.origin_status if content.origin_status in RECORD_STATES else None
        out.append(BlindResponse(str(position), text, masked, state, trace))
    return tuple(out)


class ReviewSession:
    """One reviewer working on one study design."""

    def __init__(self, db: sqlite_utils.Database, design_pk: int, reviewer: str) -> None:
        if not reviewer.strip():
            raise AbpError("a reviewer name is required")
        self.db = db
        self.reviewer = reviewer
        self.design_row = sql.design(db, design_pk)
        # The stored design and rubric were validated as they were written: the rubric is read
        # back without its validator and the design is validated when first needed (after the
        # first item is on screen), its reviewers read from the document as stored.
        self.rubric: Rubric = stored_rubric(self.design_row.rubric)
        self.masker = design_masker(db, self.design_row)
        reviewers = self.design_row.document.get("reviewers") or []
        if reviewers and reviewer not in reviewers:
            raise AbpError(
                f"{reviewer!r} is not a reviewer of design {self.design_row.name!r} "
                f"(its reviewers: {', '.join(reviewers)})"
            )
        if not reviewers:
            self._enrol()

    @cached_property
    def design(self) -> StudyDesign:
        return StudyDesign.model_validate(design_document(self.design_row.document))

    @property
    def design_pk(self) -> int:
        return self.design_row.pk

    def _enrol(self) -> None:
        if sql.enrolment_slot(self.db, self.design_pk, self.reviewer) is not None:
            return
        # Whoever has seen the coordinator's figures of the study would not judge independently.
        from abp_tui.services.coordinator_identity import refuse_enrolment

        refuse_enrolment(self.db, self.design_row.study_id, self.design.name, self.reviewer)
        rows = sql.items(self.db, self.design_pk)
        from abp_tui.analysis.blinding import ORDER_BLOCKS_KEY, PlannedItem, PlanRun

        planned = [
            PlannedItem(
                r.key,
                r.code,
                r.kind,
                "",
                r.trial,
                PlanRun(r.run_a_pk, "", "", "", 0),
                PlanRun(r.run_b_pk, "", "", "", 0) if r.run_b_pk else None,
                r.base_flip,
            )
            for r in rows
        ]
        with self.db.atomic():
            slot = sql.add_enrolment(self.db, self.design_pk, self.reviewer)
            try:
                secret = plan_secret(self.db, self.design_pk)
                in_blocks = ORDER_BLOCKS_KEY in self.design_row.document
                assignments = enrol(self.design, planned, self.reviewer, slot, secret, in_blocks)
            except PlanError as exc:
                raise AbpError(str(exc)) from None
            keys = {r.key: r.pk for r in rows}
            from abp_tui.services.allocating import drawn_only

            sql.insert_assignments(
                self.db, keys, drawn_only(self.db, self.design_pk, keys, assignments)
            )
            # Imported on enrolment only: ordering by the AI judges' distrust needs NumPy, which
            # the workstation's first screen must not wait for.
            from abp_tui.services.judge_order import order_queues

            order_queues(self.db, self.design_pk, self.reviewer)

    # -- the queue ------------------------------------------------------------------------------
    def queue(self) -> list[sql.QueueRow]:
        return sql.queue(self.db, self.design_pk, self.reviewer)

    def resume_code(self) -> str | None:
        """Where the reviewer left off, else the first item not yet submitted."""
        pos = sql.position(self.db, self.reviewer, self.design_pk)
        if pos is not None:
            code = queue_pages.code_of(self.db, self.design_pk, self.reviewer, pos)
            if code is not None:
                return code
        return queue_pages.first(
            self.db, self.design_pk, self.reviewer, unfinished=True
        ) or queue_pages.first(self.db, self.design_pk, self.reviewer)

    def next_code(self, code: str, step: int = 1, unfinished: bool = False) -> str | None:
        """The item ``step`` places after ``code`` (before, when negative; ``unfinished``: the
        nearest not submitted that way); None past an end; the first item when ``code`` is not
        in the queue. Read from ``code``'s place by index, whatever the queue's length."""
        index = queue_pages.place(self.db, self.design_pk, self.reviewer, code)
        if index is None:
            return queue_pages.first(self.db, self.design_pk, self.reviewer)
        return queue_pages.neighbour(
            self.db, self.design_pk, self.reviewer, index, step or 1, unfinished
        )

    def first_unfinished(self, other_than: str | None = None) -> str | None:
        """The first item of the queue not submitted yet, other than ``other_than``."""
        return queue_pages.first(
            self.db, self.design_pk, self.reviewer, unfinished=True, other_than=other_than
        )

    def counts(self) -> queue_pages.QueueCounts:
        """The reviewer's items by status (kept on write: no item is read)."""
        return queue_pages.counts(self.db, self.design_pk, self.reviewer)

    def queue_page(
        self,
        status_filter: str,
        words: list[str],
        start: int,
        size: int,
        matching: int | None = None,
    ) -> queue_pages.QueuePage:
        """``size`` rows of the queue from row ``start`` of those the filters keep (``matching``:
        how many they keep, when known, to read them the quicker way)."""
        return queue_pages.page(
            self.db, self.design_pk, self.reviewer, status_filter, words, start, size, matching
        )

    def queue_matching(self, status_filter: str, words: list[str]) -> int:
        """How many rows of the queue the filters keep."""
        return queue_pages.matching_count(
            self.db, self.design_pk, self.reviewer, status_filter, words
        )

    def queue_matching_before(
        self, code: str, status_filter: str, words: list[str]
    ) -> tuple[int, int | None]:
        """How many rows the filters keep, and how many of them come before item ``code``
        (None: not in the queue), in one reading of the queue."""
        index = queue_pages.place(self.db, self.design_pk, self.reviewer, code)
        if index is None:
            return self.queue_matching(status_filter, words), None
        return queue_pages.matching_and_before(
            self.db, self.design_pk, self.reviewer, index, status_filter, words
        )

    # -- one item -------------------------------------------------------------------------------
    def _placement(self, item: sql.StoredItem) -> list[int]:
        found = sql.assignment(self.db, item.pk, self.reviewer)
        if found is None:
            raise AbpError(f"item {item.code} is not assigned to {self.reviewer}")
        _slot, flipped = found
        return seen_order(item.run_pks, flipped)

    def open(self, code: str) -> BlindItem:
        """The item ``code``, which becomes where the reviewer is (resumed there next time)."""
        blind = self.read(code)
        self.enter(code)
        return blind

    def enter(self, code: str) -> int:
        """Make ``code`` where the reviewer is; its latest revision (0: never saved)."""
        item = sql.item_by_code(self.db, self.design_pk, code, placed=False)
        sql.set_position(self.db, self.reviewer, self.design_pk, item.pk)
        latest = sql.latest_judgment(self.db, item.pk, self.reviewer)
        return latest.revision if latest else 0

    def read(self, code: str) -> BlindItem:
        """The item ``code`` as this reviewer sees it, without moving the reviewer there."""
        item = sql.item_by_code(self.db, self.design_pk, code, placed=False)
        order = self._placement(item)
        responses = blind_responses(self.db, self.masker, order)
        # Its place from its assignment, the queue's length from the summary: not the queue.
        index = queue_pages.place(self.db, self.design_pk, self.reviewer, code) or 0
        total = self.counts().assigned
        latest = sql.latest_judgment(self.db, item.pk, self.reviewer)
        judgment = Judgment.model_construct()  # nothing saved: the empty one, not validated
        if latest is not None:
            judgment = by_position(latest.judgment, latest.placement)
        return BlindItem(
            code=code,
            kind=item.kind,
            index=index,
            total=total,
            task=blind_task(self.db, item.task_pk, self.rubric),
            responses=responses,
            rubric=self.rubric,
            status=latest.status if latest else "todo",
            revision=latest.revision if latest else 0,
            judgment=judgment,
            seconds_spent=latest.seconds_spent if latest else 0.0,
            timing_rule=(self.design_row.document.get("correction_effort") or {}).get(
                "timing_rule"
            ),
        )

    def save(
        self,
        code: str,
        judgment: Judgment,
        seconds: float,
        *,
        submit: bool = False,
        reason: str = "",
    ) -> SaveResult:
        """Append a revision: a draft, or a submission (refused with NotReady when incomplete).

        ``judgment`` is keyed by position. ``seconds`` is the time spent on the item since it was
        shown or last saved; it is added to the running total. Changing a submitted judgment
        needs a ``reason``.
        """
        item = sql.item_by_code(self.db, self.design_pk, code, placed=False)
        order = self._placement(item)
        latest = sql.latest_judgment(self.db, item.pk, self.reviewer)
        # The one check of what a revision may hold; a merge applies the same (revision_rules,
        # imported with the first save: the first item is shown without it).
        from abp_tui.services.revision_rules import (
            check_revision,
            item_rules,
            refuse_revision_once_unblinded,
        )

        if submit and latest is not None and latest.status == "submitted":
            study = self.design_row.study_id
            refuse_revision_once_unblinded(self.db, study, self.reviewer, code)
        by_run, missing = check_revision(
            self.db,
            item_rules(self.db, self.design_row, self.rubric, item, order),
            judgment,
            submit=submit,
            reason=reason,
            previous=latest.status if latest is not None else None,
        )
        placement = placement_of(order)
        total = (latest.seconds_spent if latest else 0.0) + max(0.0, seconds)
        status = "submitted" if submit else "draft"
        revision = sql.append_judgment(
            self.db,
            item.pk,
            self.reviewer,
            status,
            by_run.model_dump_json(),
            json.dumps(placement),
            reason,
            total,
        )
        return SaveResult(revision, status, tuple(missing))

    def record_finding(self, code: str, finding: Finding, positions: tuple[str, ...] = ()) -> int:
        """Store a finding about an item, linked to the runs shown at ``positions`` ("1", "2";
        all of the item's runs when empty); return the finding's revision.

        The finding is recorded under the design's study; recording an id again adds a revision.
        """
        problem = finding.retest_problem()  # seed 002: a retest lists what it retested
        if problem is not None:
            raise AbpError(f"finding {finding.id}: {problem}")
        item = sql.item_by_code(self.db, self.design_pk, code, placed=False)
        shown = placement_of(self._placement(item))
        chosen = []
        for key in positions or positions_shown(shown):
            run = run_at(shown, key)
            if run is None:
                raise AbpError(f"unknown response {key!r}: expected 1..{len(shown)}")
            chosen.append(run)
        return sql.append_finding(
            self.db,
            self.design_row.study_id,
            finding.id,
            self.reviewer,
            finding.model_dump_json(),
            sorted(set(chosen)),
        )

    def others(self, code: str) -> list[Judgment]:
        """Other reviewers' submitted judgments (positions as this reviewer sees them).

        Raises BlindingError until this reviewer has submitted their own.
        """
        item = sql.item_by_code(self.db, self.design_pk, code, placed=False)
        order = self._placement(item)
        rows = sql.others_judgments(self.db, item.pk, self.reviewer)
        mine = relabel(placement_of(order), item.run_id)
        return [by_position(r.judgment, r.placement, mine) for r in rows]
