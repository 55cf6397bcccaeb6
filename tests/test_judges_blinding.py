"""Blinding against AI judges: a reviewer never sees a judge's verdict before submitting their
own judgment of the item, and afterwards only when the design shows AI verdicts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sqlite_utils

from abp_tui.analysis.judges import PreferenceJudgeReport
from abp_tui.export.bundle import verify
from abp_tui.export.errors import BundleMismatch
from abp_tui.models import Judgment, PreferenceChoice, StudyDesign
from abp_tui.services.designing import create_design
from abp_tui.services.importing import import_paths
from abp_tui.services.judges import judge_report, verdicts_for_code
from abp_tui.services.publishing import export_bundle
from abp_tui.services.results_report import unblind
from abp_tui.services.reviewing import ReviewSession
from abp_tui.services.stations import build_study_pack
from abp_tui.store.judging import BlindingError
from tests.factories import write_jsonl

SECRET = "JUDGE-NOTE-7f3a: response one wins"
JUDGE_ID = "secret-judge/v9"


def _study(tmp_path: Path, db: sqlite_utils.Database) -> None:
    lines: list[dict[str, object]] = [
        {"type": "study", "id": "b"},
        {"type": "judge", "id": JUDGE_ID, "model": "judge-model-x"},
    ]
    for t in ("t1", "t2"):
        lines.append({"type": "task", "id": t, "prompt": f"Answer {t}."})
        for c in ("A", "B"):
            lines.append(
                {"type": "run", "id": f"{t}-{c}", "task_id": t, "condition_id": c, "output": c}
            )
        lines.append(
            {
                "type": "judge_verdict",
                "judge": JUDGE_ID,
                "task_id": t,
                "runs": [f"{t}-A", f"{t}-B"],
                "shown_first": f"{t}-A",
                "verdict": f"{t}-A",
                "explanation": SECRET,
            }
        )
    import_paths(db, [write_jsonl(tmp_path / "b.jsonl", lines)])


def _design(db: sqlite_utils.Database, name: str, show: bool) -> int:
    return create_design(
        db,
        StudyDesign(
            study="b",
            name=name,
            seed=4,
            rubric="none",
            contrasts=[("A", "B")],
            reviewers=["alice"],
            show_ai_after_submit=show,
        ),
    ).pk


def _submit(session: ReviewSession, code: str) -> None:
    judgment = Judgment(preference=PreferenceChoice.RESPONSE_1, justification="Clearer.")
    session.save(code, judgment, 5, submit=True)


def test_no_judge_verdict_before_submitting(tmp_path: Path, db: sqlite_utils.Database) -> None:
    _study(tmp_path, db)
    pk = _design(db, "shown", show=True)
    session = ReviewSession(db, pk, "alice")
    code = session.queue()[0].code
    # What the reviewer reads of the item, and their study pack, hold nothing of the judge.
    seen = repr(session.read(code)) + build_study_pack(db, pk, "alice").model_dump_json()
    assert SECRET not in seen and JUDGE_ID not in seen and "judge-model-x" not in seen
    with pytest.raises(BlindingError, match="before seeing an AI judge's"):
        verdicts_for_code(db, pk, code, "alice")
    # A draft is not a submission.
    session.save(code, Judgment(preference=PreferenceChoice.RESPONSE_2), 1)
    with pytest.raises(BlindingError):
        verdicts_for_code(db, pk, code, "alice")
    _submit(session, code)
    shown = verdicts_for_code(db, pk, code, "alice")
    assert [v.explanation for v in shown] == [SECRET]
    # Another item of the same design stays closed until that one is submitted too.
    other = session.queue()[1].code
    with pytest.raises(BlindingError):
        verdicts_for_code(db, pk, other, "alice")


def test_after_submitting_only_when_the_design_shows_them(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    _study(tmp_path, db)
    pk = _design(db, "hidden", show=False)
    session = ReviewSession(db, pk, "alice")
    code = session.queue()[0].code
    _submit(session, code)
    with pytest.raises(BlindingError, match="show_ai_after_submit = false"):
        verdicts_for_code(db, pk, code, "alice")


def test_the_default_design_hides_ai_verdicts_and_keeps_its_hash(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    design = StudyDesign(study="b", name="d", seed=1)
    assert design.show_ai_after_submit is False
    # Left out of the stored document at its default: designs made before it keep their hash.
    assert "show_ai_after_submit" not in design.model_dump(mode="json")
    assert design.model_copy(update={"show_ai_after_submit": True}).model_dump(mode="json")[
        "show_ai_after_submit"
    ]


def test_final_reference_and_the_bundle_rederive_the_judge_report(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    _study(tmp_path, db)
    pk = _design(db, "shown", show=True)
    session = ReviewSession(db, pk, "alice")
    for row in session.queue():
        # alice prefers condition A's run on both pairs, as the judge does.
        item = session.read(row.code)
        first_is_a = item.responses[0].text == "A"
        choice = PreferenceChoice.RESPONSE_1 if first_is_a else PreferenceChoice.RESPONSE_2
        session.save(row.code, Judgment(preference=choice, justification="A."), 3, submit=True)
    report = judge_report(db, "b", reference="final")
    assert report.reference == "final human verdicts of design shown v1"
    judge = report.judges[0]
    assert isinstance(judge, PreferenceJudgeReport)
    original = next(o for o in judge.orders if o.order == "original")
    assert (original.n, original.agreement.x) == (2, 2)

    unblind(db, "b", "coordinator")
    out = export_bundle(db, pk, tmp_path / "bundle").folder
    published = json.loads((out / "results" / "ai_judges.json").read_text())
    assert published["schema"] == "abp-tui-ai-judges/v1"
    assert published["report"]["reference"] == report.reference
    assert published["report"]["judges"][0]["orders"][0]["agreement"]["x"] == 2
    verdicts = (out / "judging" / "ai_judge_verdicts.jsonl").read_text()
    assert SECRET in verdicts  # the published verdicts keep the judge's explanation
    assert verify(out).status
    # A changed verdict no longer verifies.
    (out / "judging" / "ai_judge_verdicts.jsonl").write_text(verdicts.replace('t1-A"', 't1-B"', 1))
    with pytest.raises(BundleMismatch, match="ai_judge_verdicts"):
        verify(out)
