"""Blinding against AI judges: a reviewer never sees a judge's verdict before submitting their
own judgment of the item, and afterwards only when the design shows AI verdicts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sqlite_utils

from abp_tui.analysis.judges.report import JudgesReport, PreferenceJudgeReport
from abp_tui.errors import AbpError
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
from abp_tui.store.coordinator_views import views_by
from abp_tui.store.judging import BlindingError
from tests.factories import Cli, write_jsonl

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


# -- the judge report as a reviewer still judging sees it (issue 12) ------------------------------
def _two_reviewers(db: sqlite_utils.Database) -> tuple[ReviewSession, ReviewSession]:
    """Study b's pairs judged by alice and bob (a design that lists them): bob has submitted
    both, agreeing with the judge (condition A's run); alice has submitted nothing yet."""
    pk = create_design(
        db,
        StudyDesign(
            study="b",
            name="pair",
            seed=4,
            rubric="none",
            contrasts=[("A", "B")],
            reviewers=["alice", "bob"],
            reviewers_per_item=2,
        ),
    ).pk
    alice, bob = ReviewSession(db, pk, "alice"), ReviewSession(db, pk, "bob")
    for row in bob.queue():
        _prefer_a(bob, row.code)
    return alice, bob


def _prefer_a(session: ReviewSession, code: str) -> None:
    """Submit a preference for condition A's run, wherever it was shown."""
    first_is_a = session.read(code).responses[0].text == "A"
    choice = PreferenceChoice.RESPONSE_1 if first_is_a else PreferenceChoice.RESPONSE_2
    session.save(code, Judgment(preference=choice, justification="A."), 3, submit=True)


def _original(report: JudgesReport) -> tuple[int, int]:
    judge = report.judges[0]
    assert isinstance(judge, PreferenceJudgeReport)
    original = next(o for o in judge.orders if o.order == "original")
    return original.n, original.agreement.x


def _task_of(session: ReviewSession, code: str) -> str:
    return session.read(code).task.prompt.removeprefix("Answer ").removesuffix(".")


def test_a_pending_reviewer_is_refused_the_judge_report_until_they_submit(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    _study(tmp_path, db)
    alice, _bob = _two_reviewers(db)
    first, second = (item.code for item in alice.queue())
    # The coordinator sees the judge against bob's verdicts on both pairs.
    full = judge_report(db, "b", reference="final", resamples=0)
    assert _original(full) == (2, 2) and full.viewer is None

    # alice has judged nothing: the report (which names the runs and what the judge and bob
    # decided about them) is refused her, and her look is not recorded as a coordinator's.
    with pytest.raises(AbpError, match="alice has 2 items of study b not submitted yet"):
        judge_report(db, "b", reference="final", resamples=0, viewer="alice")
    assert views_by(db, "b", "alice") == []

    # One item submitted is not enough: one is still to judge.
    _prefer_a(alice, first)
    with pytest.raises(AbpError, match="alice has 1 item of study b not submitted yet"):
        judge_report(db, "b", reference="final", resamples=0, viewer="alice")

    # Every item submitted: she sees every verdict, as the coordinator does.
    _prefer_a(alice, second)
    seen = judge_report(db, "b", reference="final", resamples=0, viewer="alice")
    assert seen.viewer == "alice" and _original(seen) == (2, 2)
    assert "t1-A" in seen.model_dump_json()


def test_the_judges_command_refuses_a_pending_reviewer_in_one_line(
    tmp_path: Path, db: sqlite_utils.Database, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    import getpass

    _study(tmp_path, db)
    _two_reviewers(db)
    monkeypatch.setattr(getpass, "getuser", lambda: "alice")
    target = tmp_path / "test.db"
    final = ("--study", "b", "--reference", "final", "--resamples", "0")
    for extra in ((), ("--json",)):
        shown = cli("judges", "--db", target, *final, *extra)
        assert shown.code != 0 and shown.out == ""
        assert "alice has 2 items of study b not submitted yet" in shown.err
        assert "Traceback" not in shown.err and len(shown.err.strip().splitlines()) == 1
        assert SECRET not in shown.err and "t1-A" not in shown.err
    # Named on the command line, before or after the command, alice is refused as well.
    monkeypatch.setattr(getpass, "getuser", lambda: "coordinator")
    for named in (("--reviewer", "alice", "judges"), ("judges", "--reviewer", "alice")):
        refused = cli(*named, "--db", target, *final)
        assert refused.code != 0 and "alice has 2 items of study b" in refused.err, named
    # bob has submitted everything: he sees every verdict, and is told so.
    monkeypatch.setattr(getpass, "getuser", lambda: "bob")
    bob = cli("judges", "--db", target, *final)
    assert bob.code == 0, bob.err
    assert "Seen by bob: every verdict counts (bob has no item here left to judge)." in bob.out
    assert "original: n = 2, agreement 2/2" in bob.out


async def test_the_judges_screen_refuses_a_pending_reviewer(tmp_path: Path) -> None:
    from abp_tui.store import connect
    from abp_tui.tui.app import make_app
    from abp_tui.tui.screens.home import HomeScreen
    from abp_tui.tui.screens.judges import JudgesScreen
    from tests.tui_helpers import drive, press, settle, static_text, until

    db_path = tmp_path / "judges.db"
    db = connect(db_path)
    try:
        _study(tmp_path, db)
        _two_reviewers(db)
    finally:
        db.close()
    app = make_app(db_path, reviewer="alice")
    async with drive(app, (120, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "h")  # the compare screen opened on her queue: home, then g
        assert isinstance(app.screen, HomeScreen)
        await press(pilot, "g")
        screen = app.screen
        assert isinstance(screen, JudgesScreen)
        await until(pilot, lambda: screen.refusal is not None, "the refusal")
        await settle(pilot)
        summary = static_text(pilot, "#judges-summary")
        assert "No judge report: alice has 2 items of study b not submitted yet" in summary
        assert not screen.lines
        body = static_text(pilot, "#judges-body")
        assert SECRET not in body and "t1-A" not in body and "position consistency" not in body
