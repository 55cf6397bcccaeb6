"""Results by condition: only after unblinding; automated outcomes; human verdicts supersede."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlite_utils

from abp_tui.demo import load_demo
from abp_tui.errors import AbpError
from abp_tui.models import Judgment, PreferenceChoice, ResponseJudgment
from abp_tui.packs import open_pack, write_study_pack
from abp_tui.results import StudyIsBlind, compute_results, unblind
from abp_tui.review import ReviewSession
from abp_tui.rubrics import BUSINESS_V1
from abp_tui.store import connect
from abp_tui.studies import find_design
from tests.conftest import FIXTURES
from tests.test_adjudication import GATE


def _business(score1: int, score2: int, pref: PreferenceChoice) -> Judgment:
    def resp(score: int) -> ResponseJudgment:
        dims = [d.id for d in BUSINESS_V1.dimensions]
        return ResponseJudgment(
            scores={d: score for d in dims},
            rationales={d: "gap" for d in dims} if score < 2 else {},
        )

    return Judgment(
        responses={"1": resp(score1), "2": resp(score2)},
        preference=pref,
        justification="because",
        validity=GATE,
    )


def test_results_need_unblinding_which_is_audited(db: sqlite_utils.Database) -> None:
    load_demo(db, FIXTURES / "demo")
    design = find_design(db, "abp-demo")
    with pytest.raises(StudyIsBlind, match="still blind"):
        compute_results(db, design.pk)
    who, _when = unblind(db, "abp-demo", "coordinator")
    assert who == "coordinator"
    assert unblind(db, "abp-demo", "someone-else")[0] == "coordinator"
    row = db.execute("SELECT actor, action, detail FROM audit_log").fetchone()
    assert row == ("coordinator", "unblind", '{"study": "abp-demo"}')
    # The AFP study stays blind.
    with pytest.raises(StudyIsBlind):
        compute_results(db, find_design(db, "afp-pilot-demo").pk)


def test_automated_outcomes_count_until_a_person_judges(db: sqlite_utils.Database) -> None:
    load_demo(db, FIXTURES / "demo")
    design = find_design(db, "abp-demo")
    unblind(db, "abp-demo", "coordinator")
    report = compute_results(db, design.pk)
    rates = {g.condition: (g.pass_rate.x, g.pass_rate.n) for g in report.conditions}
    # The demo traces resolve 11 of 12 trials for alpha and 8 of 12 for beta.
    assert rates == {"demo-engine-alpha": (11, 12), "demo-engine-beta": (8, 12)}
    assert all(
        set(g.states)
        == {
            "MODEL_PASS",
            "MODEL_FAIL",
            "PROVIDER_BLOCK",
            "INFRA_ERROR",
            "INVALID_TEST",
            "GRADER_DISPUTE",
        }
        for g in report.conditions
    )
    (cmp,) = report.comparisons
    assert (cmp.paired.a_pass_b_fail, cmp.paired.a_fail_b_pass) == (4, 1)
    # Exact McNemar, 2 * P(X <= 1), X ~ Bin(5, 1/2) = 2 * 6/32.
    assert cmp.paired.mcnemar.p_value == pytest.approx(0.375)
    assert {e.metric for e in cmp.efficiency} >= {"total_tokens", "wall_clock_ms", "diff_bytes"}
    assert all(o.source == "automated verification" for o in report.outcomes)

    # A human judgment of one run supersedes its automated outcome; both are kept.
    session = ReviewSession(db, design.pk, "demo")
    code = next(r.code for r in session.queue() if r.kind == "pair")
    session.save(code, _business(0, 2, PreferenceChoice.RESPONSE_2), 1, submit=True)
    report = compute_results(db, design.pk)
    human = [o for o in report.outcomes if o.source == "single review"]
    assert len(human) == 2
    assert all(o.automated_state is not None for o in human)
    assert report.position_bias.right_preferred == 1
    assert sum(c.preferences.total for c in report.comparisons) == 1


def test_a_reviewer_station_never_unblinds(tmp_path: Path, db: sqlite_utils.Database) -> None:
    load_demo(db, FIXTURES / "demo")
    design = find_design(db, "afp-pilot-demo")
    write_study_pack(db, design.pk, "demo", tmp_path / "p.json")
    station = connect(tmp_path / "station.db")
    open_pack(station, tmp_path / "p.json")
    with pytest.raises(AbpError, match="reviewer station"):
        unblind(station, "afp-pilot-demo", "demo")
