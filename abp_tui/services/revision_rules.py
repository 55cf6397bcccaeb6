"""What one revision of a reviewer's judgment may hold, wherever it is made: the one check a
review session's save path applies, and the one a merge of a station's ratings applies to every
revision it brings in (:mod:`abp_tui.services.merging`), so that the two can never drift apart
and a ratings file, even one its reviewer signed with their own pack's key, stores nothing the
workstation would have refused.

A revision is refused (:class:`RevisionRefused`, naming the part of it at fault) when it holds:
a response the item does not show, a dimension the rubric lacks or a score off its scale
(:func:`abp_tui.analysis.judgment_checks.malformed`); a fatal hit that names no fatal criterion
of the item's task or of the rubric; correction minutes on a design without a correction
timing rule (seed 002); a state set by hand that is not INVALID_TEST, GRADER_DISPUTE or the
run's own record state confirmed, a reclassification of a run whose record gives no failure, or
a state set by hand where the rubric scores abstention (:mod:`abp_tui.services.reclassify`); a
draft after a submission, or a revised submission without a reason. A submission that still
lacks something (:func:`abp_tui.analysis.scoring.problems`, the record states to confirm) is
refused with :class:`NotReady`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from abp_tui.analysis.judgment_checks import malformed
from abp_tui.analysis.placement import by_run as by_run_of
from abp_tui.analysis.placement import placement_of, positions_shown
from abp_tui.analysis.scoring import problems
from abp_tui.errors import ALREADY_SUBMITTED, AbpError
from abp_tui.errors import NotReady as NotReady
from abp_tui.models import OVERRIDE_STATES, Judgment, Rubric
from abp_tui.services.reclassify import record_state_problems, refused_override
from abp_tui.store import judging as sql
from abp_tui.text.safe import safe_line

if TYPE_CHECKING:
    import sqlite_utils


class RevisionRefused(AbpError):
    """A revision no store holds; ``field`` is the part of it at fault: ``judgment``,
    ``status`` or ``reason``."""

    def __init__(self, message: str, field: str = "judgment") -> None:
        self.field = field
        super().__init__(message)


@dataclass(frozen=True)
class ItemRules:
    """What a revision of one item is checked against."""

    code: str
    rubric: Rubric
    order: tuple[int, ...]
    """The item's run pks in the placement the reviewer sees (Response 1, 2)."""
    fatal_criteria: frozenset[str]
    """The task's own fatal criteria and the rubric's general ones."""
    timing_rule: str | None
    """The design's correction timing rule (seed 002); None: no minutes are asked."""
    design: str

    @property
    def positions(self) -> list[str]:
        return positions_shown(placement_of(self.order))


def item_rules(
    db: sqlite_utils.Database,
    design: sql.DesignRow,
    rubric: Rubric,
    item: sql.StoredItem,
    order: list[int],
) -> ItemRules:
    """The rules of ``item`` of ``design`` as its reviewer sees it (runs in ``order``)."""
    task = sql.task_row(db, item.task_pk)
    effort = design.document.get("correction_effort") or {}
    return ItemRules(
        item.code,
        rubric,
        tuple(order),
        frozenset(task["fatal_criteria"]) | frozenset(rubric.fatal_criteria),
        effort.get("timing_rule") if isinstance(effort, dict) else None,
        design.name,
    )


def refuse_revision_once_unblinded(
    db: sqlite_utils.Database, study_id: str, reviewer: str, code: str
) -> None:
    """Refuse a reviewer's revision of a submitted judgment once the study is unblinded and its
    results are open to them (they have no item of it left to judge): a judgment changed then
    is no longer blind, and the results would still call it so. A reviewer still judging sees
    no results yet (they are held back until their last item) and may revise; so may a
    station's reviewer, whose ratings are merged (a station never shows results)."""
    from abp_tui.store.pending_items import pending_items
    from abp_tui.store.queries import unblinded

    opened = unblinded(db, study_id)
    if opened is None or pending_items(db, study_id, reviewer).items:
        return
    who, when = opened
    raise RevisionRefused(
        f"{code}: study {study_id} was unblinded by {who} at {when}, and its results are open "
        f"to {reviewer}: a revision now would not be a blind judgment, so the one submitted "
        "before stands",
        "status",
    )


def check_revision(
    db: sqlite_utils.Database,
    rules: ItemRules,
    judgment: Judgment,
    *,
    submit: bool,
    reason: str,
    previous: str | None,
) -> tuple[Judgment, list[str]]:
    """Check a revision of ``judgment`` (keyed by position) following one of status
    ``previous`` (None: the first); return it keyed by run pk, with what it still lacks.

    Raises :class:`RevisionRefused` for what no revision may hold and :class:`NotReady` for a
    submission that lacks something.
    """
    code = rules.code
    refused = malformed(rules.rubric, judgment, rules.positions) + _beyond_the_item(rules, judgment)
    if refused:
        raise RevisionRefused(f"{code}: {refused[0]}")
    by_run = by_run_of(judgment, placement_of(rules.order))
    try:
        refused_override(db, rules.rubric, code, rules.order, by_run)
    except AbpError as exc:
        raise RevisionRefused(str(exc)) from None
    if previous == "submitted":
        if not submit:
            raise RevisionRefused(
                f"{code} {ALREADY_SUBMITTED}: a change is a revised submission, not a draft "
                "after a submission",
                "status",
            )
        if not reason.strip():
            raise RevisionRefused(
                f"{code} {ALREADY_SUBMITTED}: changing it needs a reason", "reason"
            )
    pair = len(rules.order) == 2
    missing = problems(rules.rubric, by_run, [str(pk) for pk in rules.order], pair)
    if not rules.rubric.preference_only:  # seed 000: scores alone never change a record state
        missing += record_state_problems(db, rules.order, by_run)
    if submit and missing:
        raise NotReady(missing)
    return by_run, missing


def _beyond_the_item(rules: ItemRules, judgment: Judgment) -> list[str]:
    """What a response's judgment holds that the item never offered: a fatal hit that is not
    one of its criteria, minutes no timing rule asked for, a state no one sets by hand."""
    out: list[str] = []
    for key, response in judgment.responses.items():
        label = f"Response {key}"
        for hit in response.fatal_hits:
            if hit not in rules.fatal_criteria:
                shown = safe_line(hit)
                shown = shown if len(shown) <= 80 else shown[:79] + "…"
                out.append(
                    f"{label}: fatal criterion {shown!r} is not one of the task's or the "
                    f"rubric's ({len(rules.fatal_criteria)} criteria)"
                )
        if response.correction_minutes is not None and rules.timing_rule is None:
            out.append(
                f"{label}: correction minutes, but design {rules.design} has no correction "
                "timing rule to record them under"
            )
        override = response.state_override
        if override is not None and override not in OVERRIDE_STATES:
            out.append(f"{label}: {override.value} cannot be set by hand")
    return out
