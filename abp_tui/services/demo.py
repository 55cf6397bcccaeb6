"""The bundled demo data: where it lives and how a fresh database is filled from it.

``fixtures/demo/<study>/`` holds each study's run records, ``fixtures/designs/`` their study
designs and ``fixtures/judgments/`` what the reviewers of a finished study decided. Judgments are
replayed through the same review session, adjudication and unblinding a person goes through, so
the finished study is what a real one would be (append-only revisions, frozen design, audit
log). Loading the demo twice adds nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import sqlite_utils
from pydantic import Field

from abp_tui.analysis.placement import (
    by_position,
    choice_at,
    order_of,
    placement_of,
    seen_order,
    shown_as,
)
from abp_tui.errors import InputError
from abp_tui.formats.base import loads_json, validate
from abp_tui.models import (
    Finding,
    Judgment,
    Model,
    PreferenceChoice,
    ResponseJudgment,
    Rubric,
)
from abp_tui.services.importing import ImportReport, import_paths
from abp_tui.store import judging as sql
from abp_tui.store import packs as psql
from abp_tui.store.queries import count

JUDGMENTS_FORMAT = "abp-tui-demo-judgments/v1"


def fixtures_dir() -> Path | None:
    """``fixtures/demo`` of the working tree (the current folder first, then the source tree)."""
    for base in (Path.cwd(), Path(__file__).resolve().parent.parent):
        candidate = base / "fixtures" / "demo"
        if candidate.is_dir():
            return candidate
    return None


def load_demo(db: sqlite_utils.Database, folder: Path | None = None) -> list[ImportReport]:
    """Import each study folder of the demo data under its folder's name as the study id,
    create the demo study designs (``fixtures/designs``) of the studies imported, then replay
    the judgments of finished studies (``fixtures/judgments``)."""
    root = folder or fixtures_dir()
    if root is None:
        return []
    reports = [
        import_paths(db, [study_dir], study=study_dir.name)
        for study_dir in sorted(p for p in root.iterdir() if p.is_dir())
    ]
    designs = root.parent / "designs"
    if designs.is_dir():
        from abp_tui.analysis.blinding import DEMO_PLAN_SECRET
        from abp_tui.services.designing import create_design, load_design_file

        for path in sorted(designs.iterdir()):
            if path.suffix in (".toml", ".json") and (root / path.stem).is_dir():
                # The demo's plan secret is published: the same codes on every machine.
                create_design(db, load_design_file(path), plan_secret=DEMO_PLAN_SECRET)
    judgments = root.parent / "judgments"
    if judgments.is_dir():
        for path in sorted(judgments.glob("*.json")):
            if (root / path.stem).is_dir():
                replay_judgments(db, path)
    return reports


def is_empty(db: sqlite_utils.Database) -> bool:
    return count(db, "studies") == 0


# -- a finished study's judgments ------------------------------------------------------------------
class DemoResponse(Model):
    """A judgment of the run of one condition."""

    scores: dict[str, int]
    rationales: dict[str, str] = Field(default_factory=dict)
    fatal_hits: tuple[str, ...] = ()


class DemoJudgment(Model):
    """A reviewer's submitted judgment of the pair item of a task and trial, keyed by condition
    (where each run was shown is the reviewer's placement, found when it is replayed)."""

    reviewer: str = Field(min_length=1)
    task: str
    trial: int = 1
    seconds: float = 0.0
    responses: dict[str, DemoResponse]
    """Condition id -> the judgment of that condition's run."""
    preference: str
    """A condition id, ``tie`` or ``insufficient_evidence``."""
    justification: str


class DemoAdjudication(DemoJudgment):
    reviewer: str = ""
    adjudicator: str = Field(min_length=1)
    note: str = Field(min_length=1)


class DemoFinding(Model):
    reviewer: str = Field(min_length=1)
    task: str
    trial: int = 1
    finding: Finding


class DemoJudgments(Model):
    """``fixtures/judgments/<study>.json``: what the reviewers of a finished study decided."""

    format: Literal["abp-tui-demo-judgments/v1"]
    note: str = ""
    study: str
    design: str
    judgments: list[DemoJudgment]
    adjudications: list[DemoAdjudication] = Field(default_factory=list)
    findings: list[DemoFinding] = Field(default_factory=list)
    unblinded_by: str | None = None
    """Who unblinded the study once it was judged (None: it stays blind)."""


def replay_judgments(db: sqlite_utils.Database, path: Path) -> int:
    """Replay a finished study's judgments, adjudications, findings and unblinding through the
    core, in one transaction; return the judgments saved (0 when the design already has some).
    """
    from abp_tui.services.adjudicating import adjudicate
    from abp_tui.services.designing import find_design
    from abp_tui.services.results_report import unblind
    from abp_tui.services.reviewing import ReviewSession

    display = str(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(display, f"cannot read file: {exc.strerror}") from None
    document = validate(DemoJudgments, loads_json(raw, display), display)
    design = find_design(db, document.study, document.design)
    reviewers = sorted({j.reviewer for j in document.judgments})
    items = {(i.task, i.trial): i for i in sql.items(db, design.pk) if i.is_pair}
    gate = {c.id: True for c in Rubric.model_validate(design.rubric).validity_gate}

    def item_of(task: str, trial: int, where: str) -> sql.StoredItem:
        found = items.get((task, trial))
        if found is None:
            raise InputError(display, f"no pair item of task {task!r}, trial {trial}", None, where)
        return found

    def positioned(entry: DemoJudgment, shown: dict[str, str], where: str) -> Judgment:
        """``entry`` (keyed by condition) by the positions ``shown`` (position -> condition)."""
        conditions = order_of(shown)
        if set(entry.responses) != set(conditions):
            raise InputError(display, f"expected conditions {conditions}", None, where)
        by_condition = Judgment(
            responses={c: ResponseJudgment(**entry.responses[c].model_dump()) for c in conditions},
            justification=entry.justification,
            validity=gate,
        )
        preference = choice_at(shown_as(shown, entry.preference)) or PreferenceChoice(
            entry.preference
        )
        return by_position(by_condition, shown).model_copy(update={"preference": preference})

    sessions: dict[str, ReviewSession] = {}
    with db.atomic():
        # Asked under the write lock: another load of the demo may have replayed them meanwhile.
        if any(psql.all_judgments(db, design.pk, r) for r in reviewers):
            return 0
        for number, entry in enumerate(document.judgments):
            where = f"$.judgments[{number}]"
            item = item_of(entry.task, entry.trial, where)
            session = sessions.get(entry.reviewer) or ReviewSession(db, design.pk, entry.reviewer)
            sessions[entry.reviewer] = session
            found = sql.assignment(db, item.pk, entry.reviewer)
            if found is None:
                raise InputError(display, f"{item.code} is not assigned to {entry.reviewer}")
            shown = placement_of(seen_order(item.conditions, found[1]))
            session.save(item.code, positioned(entry, shown, where), entry.seconds, submit=True)
        for number, adjudication in enumerate(document.adjudications):
            where = f"$.adjudications[{number}]"
            item = item_of(adjudication.task, adjudication.trial, where)
            adjudicate(
                db,
                design.pk,
                item.code,
                adjudication.adjudicator,
                positioned(adjudication, placement_of(item.conditions), where),
                placement_of(item.run_pks),
                adjudication.note,
            )
        for number, finding in enumerate(document.findings):
            item = item_of(finding.task, finding.trial, f"$.findings[{number}]")
            session = sessions.get(finding.reviewer) or ReviewSession(
                db, design.pk, finding.reviewer
            )
            session.record_finding(item.code, finding.finding)
        if document.unblinded_by is not None:
            unblind(db, document.study, document.unblinded_by)
    return len(document.judgments)
