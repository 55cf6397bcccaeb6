"""Results by condition: only after unblinding; automated outcomes; human verdicts supersede."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlite_utils

from abp_tui.analysis.results.tallies import results
from abp_tui.analysis.tables import csv_rows, group_table
from abp_tui.analysis.verdicts import AUTOMATED_STATES, Verdict, outcome
from abp_tui.errors import AbpError
from abp_tui.models import (
    AdjudicationRevision,
    DesignRecords,
    Item,
    Judgment,
    JudgmentRevision,
    PreferenceChoice,
    ResponseJudgment,
    ResultState,
    Rubric,
    RunFacts,
    StudyDesign,
)
from abp_tui.models.builtin_rubrics import AFP_V01, BUILT_IN, BUSINESS_V1
from abp_tui.services.demo import load_demo
from abp_tui.services.designing import find_design
from abp_tui.services.results_report import StudyIsBlind, compute_results, unblind
from abp_tui.services.reviewing import ReviewSession
from abp_tui.services.stations import open_pack, write_study_pack
from abp_tui.store import connect
from tests.factories import FIXTURES, GATE, afp_judgment, business_judgment


def test_results_need_unblinding_which_is_audited(db: sqlite_utils.Database) -> None:
    load_demo(db, FIXTURES / "demo")
    design = find_design(db, "abp-demo")
    with pytest.raises(StudyIsBlind, match="still blind"):
        compute_results(db, design.pk)
    who, _when = unblind(db, "abp-demo", "coordinator")
    assert who == "coordinator"
    assert unblind(db, "abp-demo", "someone-else")[0] == "coordinator"
    # (The demo's finished study was unblinded when it was loaded: its entry comes first.)
    rows = db.execute(
        "SELECT actor, action, detail FROM audit_log WHERE action = 'unblind'"
    ).fetchall()
    assert rows[-1] == ("coordinator", "unblind", '{"study": "abp-demo"}')
    assert len(rows) == 2
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
    assert all(o.source == "automated" for o in report.outcomes)

    # A human judgment of one run supersedes its automated outcome; both are kept.
    session = ReviewSession(db, design.pk, "demo")
    code = next(r.code for r in session.queue() if r.kind == "pair")
    session.save(code, business_judgment(0, 2, PreferenceChoice.RESPONSE_2), 1, submit=True)
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


# -- the rules on plain records, with no database --------------------------------------------------
def _run(
    condition: str,
    trial: int,
    automated: str | None = None,
    record: ResultState | None = None,
    tokens: int | None = None,
) -> RunFacts:
    return RunFacts(
        id=f"t1/{condition}/{trial}",
        task="t1",
        condition=condition,
        trial=trial,
        origin_status=record,
        automated_outcome=automated,
        excluded_reason=None,
        total_tokens=tokens,
        wall_clock_ms=None,
        cost_usd=None,
        diff_bytes=None,
    )


def _verdict(state: ResultState) -> Verdict:
    return Verdict(
        run="t1/A/1",
        source="single review",
        result_state=state,
        scores={},
        fatal_hits=(),
        judgments=1,
        items=("P-X",),
    )


@pytest.mark.parametrize(
    ("verdict", "automated", "record", "state", "source"),
    [
        (
            ResultState.MODEL_FAIL,
            "resolved",
            ResultState.INFRA_ERROR,
            ResultState.MODEL_FAIL,
            "single review",
        ),
        (None, "Agent-Error", None, ResultState.INFRA_ERROR, "automated"),
        (
            None,
            "passed",
            ResultState.PROVIDER_BLOCK,
            ResultState.MODEL_PASS,
            "automated",
        ),
        (None, None, ResultState.PROVIDER_BLOCK, ResultState.PROVIDER_BLOCK, "record"),
        (None, "no-such-outcome", None, None, "unjudged"),
    ],
)
def test_the_outcome_that_counts(
    verdict: ResultState | None,
    automated: str | None,
    record: ResultState | None,
    state: ResultState | None,
    source: str,
) -> None:
    found = outcome(_run("A", 1, automated, record), _verdict(verdict) if verdict else None)
    assert (found.state, found.source) == (state, source)
    assert found.human_state == verdict
    assert found.automated_state == AUTOMATED_STATES.get((automated or "").lower())


def test_results_on_plain_records_leave_engine_errors_out_of_efficiency() -> None:
    runs = (
        _run("A", 1, "resolved", tokens=100),
        _run("A", 2, "agent-error", tokens=1_000_000),
        _run("B", 1, "unresolved", tokens=300),
        _run("B", 2, "resolved", tokens=300),
    )
    records = DesignRecords(
        design=StudyDesign(study="s", name="m", seed=5, contrasts=[("A", "B")]),
        rubric=BUSINESS_V1,
        seed=5,
        items=(),
        judgments=(),
        adjudications=(),
        runs=runs,
    )
    found = results(records)
    a, b = found.conditions
    assert (a.condition, a.pass_rate.x, a.pass_rate.n, a.states["INFRA_ERROR"]) == ("A", 1, 1, 1)
    assert (b.pass_rate.x, b.pass_rate.n) == (1, 2)
    (cmp,) = found.comparisons
    assert (cmp.paired.pairs, cmp.paired.a_pass_b_fail) == (1, 1)
    (tokens,) = cmp.efficiency
    assert (tokens.metric, tokens.difference.median_a, tokens.difference.median_b) == (
        "total_tokens",
        100.0,
        300.0,
    )


# -- acceptance and unresolved runs, on plain records ----------------------------------------------
def _single(code: str, run: str, reviewer: str, response: ResponseJudgment) -> JudgmentRevision:
    return JudgmentRevision(
        item=code,
        reviewer=reviewer,
        revision=1,
        status="submitted",
        created_at="",
        reason="",
        seconds_spent=0.0,
        placement={"1": run},
        judgment=Judgment(responses={run: response}, validity=GATE),
    )


def _single_items(runs: tuple[RunFacts, ...]) -> tuple[Item, ...]:
    return tuple(
        Item(
            code=f"S-{n:06d}",
            index=n,
            kind="single",
            task=r.task,
            trial=r.trial,
            runs=(r.id,),
            conditions=(r.condition,),
            base_flip=False,
        )
        for n, r in enumerate(runs)
    )


@pytest.mark.parametrize("rubric", list(BUILT_IN.values()), ids=list(BUILT_IN))
def test_a_fatal_hit_is_never_accepted_whatever_the_scores(rubric: Rubric) -> None:
    # Seed 000 (AFP v0.1, "Fatal failures"): a run that hits a fatal criterion is MODEL_FAIL
    # regardless of its total score; seed 002 (business protocol): the acceptance rule requires
    # "no critical failure", and fluency cannot compensate. Both runs get the rubric's top score
    # on every scored dimension; only the first has a fatal hit.
    top = {d.id: max(d.scale) for d in rubric.dimensions if d.scored}
    runs = (_run("A", 1, None), _run("A", 2, None))
    items = _single_items(runs)
    records = DesignRecords(
        design=StudyDesign(study="s", name="m", seed=5, contrasts="none", single_items=True),
        rubric=rubric,
        seed=5,
        items=items,
        judgments=(
            _single(
                items[0].code, runs[0].id, "a", ResponseJudgment(scores=top, fatal_hits=("F",))
            ),
            _single(items[1].code, runs[1].id, "a", ResponseJudgment(scores=top)),
        ),
        adjudications=(),
        runs=runs,
    )
    (group,) = results(records).conditions
    assert (group.pass_rate.x, group.pass_rate.n) == (1, 2)
    assert (group.fatal_failures.x, group.fatal_failures.n) == (1, 2)
    # Accepted x/n never exceeds passed x/n: the fatal run is not accepted.
    assert (group.acceptance.x, group.acceptance.n) == (1, 2)


def _pair_records(
    first: Judgment, second: Judgment, adjudication: Judgment | None = None
) -> DesignRecords:
    runs = (_run("A", 1, None), _run("B", 1, None))
    item = Item(
        code="P-OPEN01",
        index=0,
        kind="pair",
        task="t1",
        trial=1,
        runs=(runs[0].id, runs[1].id),
        conditions=("A", "B"),
        base_flip=False,
    )
    placement = {"1": runs[0].id, "2": runs[1].id}

    def by_run(j: Judgment) -> Judgment:
        return j.model_copy(update={"responses": {placement[k]: v for k, v in j.responses.items()}})

    judged = tuple(
        JudgmentRevision(
            item=item.code,
            reviewer=who,
            revision=1,
            status="submitted",
            created_at="",
            reason="",
            seconds_spent=0.0,
            placement=placement,
            judgment=by_run(j),
        )
        for who, j in (("a", first), ("b", second))
    )
    settled = (
        ()
        if adjudication is None
        else (
            AdjudicationRevision(
                item=item.code,
                adjudicator="carol",
                revision=1,
                created_at="",
                note="Settled.",
                show_names=False,
                placement=placement,
                judgment=by_run(adjudication),
            ),
        )
    )
    return DesignRecords(
        design=StudyDesign(
            study="s", name="m", seed=5, contrasts=[("A", "B")], reviewers=["a", "b"]
        ),
        rubric=AFP_V01,
        seed=5,
        items=(item,),
        judgments=judged,
        adjudications=settled,
        runs=runs,
    )


@pytest.mark.parametrize(
    "second",
    [
        # Both pass (no dimension at 0) but prefer different runs: same states, open dispute.
        afp_judgment(1, 1, PreferenceChoice.RESPONSE_2),
        # The result states differ as well (they used to show as "unjudged").
        afp_judgment(0, 0, PreferenceChoice.RESPONSE_2),
    ],
    ids=["same-states", "states-differ"],
)
def test_unresolved_runs_are_counted_apart_until_adjudicated(second: Judgment) -> None:
    first = afp_judgment(2, 2, PreferenceChoice.RESPONSE_1)
    found = results(_pair_records(first, second))
    for group in found.conditions:
        assert (group.runs, group.unjudged, group.unresolved) == (1, 0, 1)
        assert group.unresolved_items == ["P-OPEN01"]
        assert sum(group.states.values()) == 0
        assert (group.pass_rate.n, group.fatal_failures.n, group.acceptance.n) == (0, 0, 0)
        assert all(n == 0 for n in group.dimension_n.values())
    (cmp,) = found.comparisons
    assert cmp.paired.pairs == 0
    table = group_table(found.conditions, by_task=False, rubric=AFP_V01)
    assert "Unresolved" in [c.header for c in table.columns if c.shown]
    header, rows = csv_rows(table)
    assert [dict(zip(header, r, strict=True))["unresolved"] for r in rows] == [1, 1]
    assert [dict(zip(header, r, strict=True))["unresolved_items"] for r in rows] == [
        "P-OPEN01",
        "P-OPEN01",
    ]

    settled = results(_pair_records(first, second, afp_judgment(2, 1, PreferenceChoice.RESPONSE_1)))
    for group in settled.conditions:
        assert (group.unresolved, group.unresolved_items) == (0, [])
        assert (group.pass_rate.x, group.pass_rate.n) == (1, 1)
        assert (group.acceptance.x, group.acceptance.n) == (1, 1)
    assert settled.comparisons[0].paired.pairs == 1


def test_each_run_named_twice_among_the_records_gets_its_verdict_both_times() -> None:
    """Outcomes take each verdict out as they are made (a large study's verdicts are let go
    one at a time), yet a run id the records list twice still reads its verdict each time."""
    from dataclasses import replace

    from abp_tui.analysis.reruns import held_outcomes
    from abp_tui.analysis.verdicts import decide, outcomes

    judged = afp_judgment(2, 1, PreferenceChoice.RESPONSE_1)
    once = _pair_records(judged, judged)
    twice = replace(once, runs=(*once.runs, once.runs[0]))
    decisions = decide(twice)
    found = held_outcomes(twice, decisions)
    assert found == outcomes(twice.runs, decisions.verdicts, twice.superseded)
    assert found[0] == found[2] and found[0].human_state is not None
