"""A design with a human budget (active allocation, Zrnic and Candès 2024), end to end: the
draw stored with the plan, only drawn items in the queues, the inverse-probability-weighted
figures beside the uniform-sample and people-only ones, and a bundle whose ``verify``
re-derives the probabilities, the draw and the figures; the coordinator's Judges screen shows
them as the command line does."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest
import sqlite_utils

from abp_tui.analysis.allocation import allocation_seed
from abp_tui.analysis.judges.estimates import JudgeAssisted
from abp_tui.analysis.judges.report import (
    JudgesReport,
    PassFailJudgeReport,
    PreferenceJudgeReport,
    judges_report,
)
from abp_tui.analysis.judges.units import AllocationUnits, Reference, VerdictRow
from abp_tui.analysis.judges.view import view_lines
from abp_tui.analysis.results.headline import pending_line, scope_line
from abp_tui.analysis.verdicts import decide
from abp_tui.export import BundleMismatch, verify
from abp_tui.models import Judgment, PreferenceChoice, StudyDesign
from abp_tui.services.designing import create_design
from abp_tui.services.importing import import_paths
from abp_tui.services.judges import judge_report
from abp_tui.services.publishing import export_bundle
from abp_tui.services.results_report import unblind
from abp_tui.services.reviewing import ReviewSession
from abp_tui.stats.allocation import allocation_probabilities, draw
from abp_tui.stats.ppi_units import estimate_from_units
from abp_tui.store import allocation as draws_sql
from abp_tui.store import judging
from abp_tui.store import secrets as secret_sql
from abp_tui.store.db import connect
from abp_tui.tui.app import make_app
from abp_tui.tui.screens.judges import JudgesScreen
from tests.factories import Cli, write_jsonl
from tests.tui_helpers import drive, press, settle, static_text, until

STUDY = "act"
JUDGE = "pair-judge/v1"
TASKS = [f"t{i:02d}" for i in range(1, 41)]
BUDGET = 12
FLOOR = 0.1
WIN_RATE = "win rate of A against B"
SECRET = "s" * 64


def _truth(task: str) -> str:
    return "B" if int(task[1:]) % 3 == 0 else "A"


def _judge_picks(task: str) -> tuple[str, str]:
    """Shown A first, then B first: split between the orders on every fifth task (the judge is
    unsure there), wrong in both on every seventh, right otherwise."""
    right = _truth(task)
    wrong = "B" if right == "A" else "A"
    i = int(task[1:])
    if i % 5 == 0:
        return right, wrong
    if i % 7 == 0:
        return wrong, wrong
    return right, right


def _judged_a(task: str) -> float:
    return sum(pick == "A" for pick in _judge_picks(task)) / 2


def _import(tmp_path: Path, db: sqlite_utils.Database) -> None:
    lines: list[dict[str, object]] = [
        {"type": "study", "id": STUDY},
        {"type": "judge", "id": JUDGE, "model": "judge-model"},
    ]
    for t in TASKS:
        lines.append({"type": "task", "id": t, "prompt": f"Answer {t}."})
        runs = [f"{t}-A", f"{t}-B"]
        for run, c in zip(runs, "AB", strict=True):
            lines.append({"type": "run", "id": run, "task_id": t, "condition_id": c, "output": c})
        for first, pick in zip(runs, _judge_picks(t), strict=True):
            lines.append(
                {
                    "type": "judge_verdict",
                    "judge": JUDGE,
                    "task_id": t,
                    "runs": runs,
                    "shown_first": first,
                    "verdict": f"{t}-{pick}",
                }
            )
    import_paths(db, [write_jsonl(tmp_path / "act.jsonl", lines)])


def _design(**more: object) -> StudyDesign:
    return StudyDesign.model_validate(
        {
            "study": STUDY,
            "name": "d",
            "seed": 11,
            "rubric": "none",
            "contrasts": [("A", "B")],
            "reviewers": ["alice"],
            "human_budget": BUDGET,
            "allocation_floor": FLOOR,
            **more,
        }
    )


def _study(tmp_path: Path, db: sqlite_utils.Database) -> tuple[int, dict[str, str]]:
    """The design stored with its draw; alice judges every item in her queue, rightly.
    Returns the design and the code of each task's item."""
    _import(tmp_path, db)
    pk = create_design(db, _design(), plan_secret=SECRET).pk
    code_of = {item.task: item.code for item in judging.items(db, pk)}
    session = ReviewSession(db, pk, "alice")
    task_of = {c: t for t, c in code_of.items()}
    for row in session.queue():
        t = task_of[row.code]
        first_is_a = session.read(row.code).responses[0].text == "A"
        choice = (
            PreferenceChoice.RESPONSE_1
            if first_is_a == (_truth(t) == "A")
            else PreferenceChoice.RESPONSE_2
        )
        session.save(
            row.code, Judgment(preference=choice, justification="Read both."), 3, submit=True
        )
    unblind(db, STUDY, "coordinator")
    return pk, code_of


def _win_rate(report: JudgesReport) -> JudgeAssisted:
    (judge,) = report.judges
    assert isinstance(judge, PreferenceJudgeReport)
    (found,) = judge.estimates
    assert found.figure == WIN_RATE
    return found


def test_the_draw_is_stored_reproducible_and_only_drawn_items_are_queued(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    _import(tmp_path, db)
    created = create_design(db, _design(), plan_secret=SECRET)
    pk = created.pk
    draws = draws_sql.draws(db, pk)
    items = judging.items(db, pk)
    assert [d.item for d in draws] == [i.code for i in items]  # plan order, every item
    by_task = {i.task: d for i, d in zip(items, draws, strict=True)}
    # Uncertainty: the judge's two orders at odds weigh 2, an agreement 0.
    for t, d in by_task.items():
        split = _judge_picks(t)[0] != _judge_picks(t)[1]
        assert d.uncertainty == (2.0 if split else 0.0)
    # Round trip: what the rule gives, stored exactly; expected draws = the budget.
    u = np.array([d.uncertainty for d in draws])
    pi = allocation_probabilities(u, float(BUDGET), FLOOR)
    assert [d.probability for d in draws] == pi.tolist()
    assert sum(d.probability for d in draws) == pytest.approx(BUDGET)
    assert min(d.probability for d in draws) >= FLOOR
    seed = allocation_seed(SECRET, 11)
    assert draws_sql.draw_seed(db, pk) == seed
    assert [d.drawn for d in draws] == draw(pi, seed).tolist()
    assert judging.records_of_design(db, pk).allocation == draws
    # Only the drawn items reach alice.
    drawn = {d.item for d in draws if d.drawn}
    assert {row.code for row in judging.queue(db, pk, "alice")} == drawn
    assert created.drawn == len(drawn) and created.assignments == len(drawn)
    # Given again unchanged, the design keeps its draw and says so.
    unchanged = create_design(db, _design(), plan_secret=SECRET)
    assert unchanged.status == "unchanged"
    assert (unchanged.drawn, unchanged.assignments) == (len(drawn), len(drawn))
    assert draws_sql.draws(db, pk) == draws
    # The same design and secret in another database draws the same items.
    other = connect(tmp_path / "other.db")
    _import(tmp_path, other)
    again = create_design(other, _design(), plan_secret=SECRET).pk
    assert draws_sql.draws(other, again) == draws
    assert secret_sql.plan_secret(other, again) == SECRET


def test_listed_reviewers_share_the_drawn_items_evenly_and_verify_deals_them_alike(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    """Every item used to be dealt to the reviewers in turn, the undrawn ones then dropped: one
    reviewer could get a third more than another (19, 25 and 22 of MT-Bench's 33 drawn pairs
    for three reviewers, two per item). The drawn items alone are dealt now, and the design
    records so, for ``verify`` to re-derive each judgment's placement the same way."""
    _import(tmp_path, db)
    reviewers = ["ann", "bo", "cy"]
    design = _design(reviewers=reviewers, reviewers_per_item=2, human_budget=25)
    created = create_design(db, design, plan_secret=SECRET)
    pk = created.pk
    drawn = {d.item for d in draws_sql.draws(db, pk) if d.drawn}
    assert 15 <= len(drawn) <= 35 and created.assignments == 2 * len(drawn)
    queues = {r: [row.code for row in judging.queue(db, pk, r)] for r in reviewers}
    loads = sorted(len(q) for q in queues.values())
    assert loads[-1] - loads[0] <= 1 and sum(loads) == 2 * len(drawn)
    assert all(set(q) <= drawn for q in queues.values())
    stored = judging.design(db, pk).document
    assert stored["budget_balanced"] is True
    for reviewer in reviewers:
        session = ReviewSession(db, pk, reviewer)
        for row in session.queue():
            judgment = Judgment(preference=PreferenceChoice.TIE, justification="Alike.")
            session.save(row.code, judgment, 2, submit=True)
    unblind(db, STUDY, "coordinator")
    out = export_bundle(db, pk, tmp_path / "bundle").folder
    assert verify(out).status  # each placement re-derived from the drawn items' deal
    # A judgment shown the other way round than that deal gives is refused.
    path = out / "judging" / "judgments.jsonl"
    original = path.read_text("utf-8").splitlines()
    lines = [json.loads(line) for line in original]
    first = lines[0]["placement"]
    lines[0]["placement"] = {"1": first["2"], "2": first["1"]}
    path.write_text("".join(json.dumps(x, sort_keys=True) + "\n" for x in lines), "utf-8")
    _rehash(out, "judging/judgments.jsonl")
    with pytest.raises(BundleMismatch, match="shows the runs in the order"):
        verify(out)
    # A draw altered is named as such, not as the placements the deal it changes would give.
    path.write_text("".join(line + "\n" for line in original), "utf-8")
    _rehash(out, "judging/judgments.jsonl")
    drawn_file = (out / "judging" / "allocation.jsonl").read_text("utf-8")
    draws = [json.loads(line) for line in drawn_file.splitlines()]
    flipped = next(d for d in draws if d["drawn"])
    flipped["drawn"] = False
    _rewrite(out, draws)
    with pytest.raises(BundleMismatch, match=f"allocation.*{flipped['item']}: drawn is false"):
        verify(out)


def test_an_open_design_enrols_people_on_the_drawn_items_only(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    _import(tmp_path, db)
    pk = create_design(db, _design(reviewers=[], reviewers_per_item=1)).pk
    drawn = {d.item for d in draws_sql.draws(db, pk) if d.drawn}
    session = ReviewSession(db, pk, "bo")
    assert {row.code for row in session.queue()} == drawn


def test_a_queue_of_drawn_items_is_numbered_from_one_to_its_length(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    """The workstation's bar said "item 12 of 7": each drawn item kept its place among every
    item of the design. Listed or enrolled, a reviewer's queue counts its own items."""
    _import(tmp_path, db)
    listed = create_design(db, _design(reviewers=["alice", "bo"], reviewers_per_item=1)).pk
    opened = create_design(db, _design(name="open", reviewers=[], reviewers_per_item=1)).pk
    for pk, reviewer in ((listed, "alice"), (listed, "bo"), (opened, "cy")):
        session = ReviewSession(db, pk, reviewer)
        queue = session.queue()
        assert queue and [row.order_index for row in queue] == list(range(len(queue)))
        places = [(session.read(row.code).index, session.read(row.code).total) for row in queue]
        assert places == [(i, len(queue)) for i in range(len(queue))]


def test_the_weighted_win_rate_is_the_papers_estimator_on_the_drawn_units(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk, code_of = _study(tmp_path, db)
    by_code = {d.item: d for d in draws_sql.draws(db, pk)}
    f = np.array([_judged_a(t) for t in TASKS])
    drawn = np.array([by_code[code_of[t]].drawn for t in TASKS])
    pi = np.array([by_code[code_of[t]].probability for t in TASKS])
    y = np.where(drawn, [1.0 if _truth(t) == "A" else 0.0 for t in TASKS], np.nan)
    found = _win_rate(judge_report(db, STUDY, resamples=0))
    assert found.active is not None
    a = found.active
    expected = estimate_from_units(f, y, pi, method="ppi++")
    assert a.active.point == pytest.approx(expected.point, abs=1e-12)
    assert (a.active.low, a.active.high) == pytest.approx((expected.low, expected.high))
    ht = estimate_from_units(f, y, pi, method="classical")
    assert a.people_only.point == pytest.approx(ht.point, abs=1e-12)
    uniform = estimate_from_units(f, y, None, method="ppi++")
    assert a.uniform.point == pytest.approx(uniform.point, abs=1e-12)
    assert a.n_labelled == int(drawn.sum()) and a.n_units == len(TASKS)
    assert expected.effective_labels is not None
    assert a.human_judgments_saved == pytest.approx(expected.effective_labels - int(drawn.sum()))
    assert found.labelled.active and found.labelled.n == int(drawn.sum())
    assert found.assumption.startswith(
        f"labelled set: the units drawn for people, n = {int(drawn.sum())} of "
        f"{int(drawn.sum())} drawn; drawn with known probabilities"
    )
    lines = view_lines(judge_report(db, STUDY, resamples=0))
    text = "\n".join(lines)
    assert "active allocation (inverse-probability weighted)" in text
    assert "people only (Horvitz-Thompson)" in text
    assert "uniform sample (for comparison only)" in text
    assert "human judgments saved" in text
    # A dozen people's judgments: the interval's large-sample approximation is not to be
    # trusted, and the text says so under the figure.
    assert (
        f"caution: only {int(drawn.sum())} units judged by people: the interval is a "
        "large-sample approximation, not to be trusted below about 30"
    ) in text
    # The results' headline counts the drawn items, and says they are no random sample.
    records = judging.records_of_design(db, pk)
    decisions = decide(records)
    assert scope_line(records, decisions, ["A", "B"]).startswith(
        f"Compared A, B: {int(drawn.sum())} of {int(drawn.sum())} pairs drawn for people under "
        f"the human budget ({len(TASKS)} planned"
    )
    assert pending_line(records, decisions).startswith("Nothing pending: every item drawn")


def _rehash(folder: Path, changed: str) -> None:
    manifest = json.loads((folder / "manifest.json").read_text("utf-8"))
    data = (folder / changed).read_bytes()
    for entry in manifest["files"]:
        if entry["path"] == changed:
            entry["sha256"], entry["bytes"] = hashlib.sha256(data).hexdigest(), len(data)
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True), "utf-8")


def _rewrite(folder: Path, lines: list[dict[str, object]]) -> None:
    path = folder / "judging" / "allocation.jsonl"
    path.write_text("".join(json.dumps(x, sort_keys=True) + "\n" for x in lines), "utf-8")
    _rehash(folder, "judging/allocation.jsonl")


def test_the_bundle_carries_the_draw_and_verify_refuses_altered_probabilities(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk, _codes = _study(tmp_path, db)
    out = export_bundle(db, pk, tmp_path / "bundle").folder
    assert verify(out).status
    # People judged every drawn item: the gate asks nothing of the items left to the judges.
    status = json.loads((out / "status.json").read_text("utf-8"))
    (judged,) = [c for c in status["checks"] if c["requirement"] == "every item judged"]
    drawn = sum(d.drawn for d in draws_sql.draws(db, pk))
    assert judged["met"], judged
    assert judged["detail"].startswith(f"{drawn} items (the items drawn under the human budget)")
    path = out / "judging" / "allocation.jsonl"
    original = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    assert [x["item"] for x in original] == [d.item for d in draws_sql.draws(db, pk)]
    published = json.loads((out / "results" / "ai_judges.json").read_text("utf-8"))
    (estimate,) = published["report"]["judges"][0]["estimates"]
    assert estimate["active"]["active"]["design"] == "known probabilities"

    page = (out / "report.html").read_text("utf-8")
    section = page[page.index('id="judges-assisted"') :]
    assert f"{WIN_RATE} (active allocation, inverse-probability weighted)" in section
    assert f"{WIN_RATE} (uniform sample, for comparison only)" in section
    assert "Active allocation (human_budget)" in section

    # A probability changed (and the manifest rehashed): named with the item.
    changed = [dict(x) for x in original]
    changed[0]["probability"] = 0.99
    _rewrite(out, changed)
    with pytest.raises(BundleMismatch, match=rf"allocation\.jsonl.*item {original[0]['item']}"):
        verify(out)
    # The uncertainty and the probability changed together: the draw no longer follows.
    flipped = [dict(x) for x in original]
    target = next(i for i, x in enumerate(flipped) if not x["drawn"])
    flipped[target]["drawn"] = True
    _rewrite(out, flipped)
    with pytest.raises(BundleMismatch, match=r"drawn is true, but the seeded draw gives false"):
        verify(out)
    # A line dropped.
    _rewrite(out, original[1:])
    with pytest.raises(BundleMismatch, match=r"has no draw"):
        verify(out)
    # Restored, it verifies; then an altered figure is caught by re-derivation.
    _rewrite(out, original)
    assert verify(out).status
    report = out / "results" / "ai_judges.json"
    point = estimate["active"]["active"]["point"]
    text = report.read_text("utf-8")
    assert json.dumps(point) in text
    report.write_text(text.replace(json.dumps(point), json.dumps(point + 0.01), 1), "utf-8")
    _rehash(out, "results/ai_judges.json")
    with pytest.raises(BundleMismatch, match=r"results/ai_judges\.json"):
        verify(out)


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (("--human-budget", "lots"), 1, "human budget: "),
        (("--human-budget", "0"), 1, "at least 1, got"),
        (("--human-budget", "150%"), 1, "at most 100%"),
        (("--human-budget", "2.5"), 1, "whole number of items"),
        (("--human-budget", "1", "--allocation-floor", "0.5"), 1, "lower the floor"),
        (("--human-budget", "5", "--allocation-floor", "1.5"), 1, "--allocation-floor: expected"),
        (("--human-budget", "5", "--allocation-floor", "0"), 1, "expected a probability above 0"),
        (("--allocation-floor", "0.2"), 1, "set human_budget too"),
    ],
)
def test_design_options_with_bad_values_are_one_line_errors(
    tmp_path: Path, cli: Cli, args: tuple[str, ...], code: int, message: str
) -> None:
    lines: list[dict[str, object]] = [{"type": "study", "id": STUDY}]
    for t in TASKS[:10]:
        lines.append({"type": "task", "id": t, "prompt": "p"})
        for c in "AB":
            lines.append(
                {"type": "run", "id": f"{t}-{c}", "task_id": t, "condition_id": c, "output": c}
            )
    assert cli("import", write_jsonl(tmp_path / "s.jsonl", lines)).code == 0
    db = ("--db", str(cli.db_path))
    found = cli("study", "create", *db, "--rubric", "none", *args)
    assert found.code == code, found.err
    assert message in found.err
    assert "Traceback" not in found.err
    if code == 1:
        assert len(found.err.strip().splitlines()) == 1
    assert cli("status").code == 0
    ok = cli("study", "create", *db, "--rubric", "none", "--human-budget", "40%")
    assert ok.code == 0, ok.err
    assert "human budget:" in ok.out and "of 10 items drawn for people" in ok.out
    # A budget that covers every item draws them all, and says no judge stands in for any.
    every = cli("study", "create", *db, "--rubric", "none", "--human-budget", "500")
    assert every.code == 0, every.err
    assert "human budget: all 10 items drawn for people" in every.out
    assert "the AI judges stand in for none" in every.out and "the rest" not in every.out


def test_a_floor_that_is_no_number_is_a_usage_error(
    cli: Cli, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        cli(
            "study", "create", "--db", cli.db_path, "--human-budget", "5", "--allocation-floor", "x"
        )
    assert exited.value.code == 2
    assert "argument --allocation-floor: invalid float value: 'x'" in capsys.readouterr().err


def test_pass_rates_weight_each_drawn_run_by_its_inclusion_probability() -> None:
    """A pass/fail judge's pass rate of a condition under a human budget: the runs drawn are
    labelled, each weighted by 1 / its probability; the figure is the paper's estimator on
    exactly those, and runs people judged outside the draw count by the judge alone."""
    rng = np.random.default_rng(9)
    runs = [f"r{i:03d}" for i in range(300)]
    truth = {r: bool(rng.random() < 0.6) for r in runs}
    said = {r: truth[r] if rng.random() < 0.8 else not truth[r] for r in runs}
    u = np.array([0.0 if said[r] == truth[r] else 2.0 for r in runs]) + rng.random(300)
    pi = allocation_probabilities(u, 60.0, 0.05)
    drawn = draw(pi, 4)
    chosen = {r for r, d in zip(runs, drawn.tolist(), strict=True) if d}
    outside = [r for r in runs if r not in chosen][:10]  # judged by people, never drawn
    allocation = AllocationUnits(
        budget="60",
        floor=0.05,
        items=300,
        drawn_items=len(chosen),
        expected=60.0,
        runs=dict(zip(runs, pi.tolist(), strict=True)),
        drawn_runs=frozenset(chosen),
    )
    reference = Reference(
        name="t",
        kind="final",
        runs={r: truth[r] for r in (*chosen, *outside)},
        conditions=dict.fromkeys(runs, "C"),
        allocation=allocation,
    )
    rows = [
        VerdictRow("pf", (r,), None, None, "pass_fail", "pass" if said[r] else "fail", None, None)
        for r in runs
    ]
    (judge,) = judges_report("s", [], rows, reference, resamples=0).judges
    assert isinstance(judge, PassFailJudgeReport)
    (found,) = judge.estimates
    assert found.active is not None
    f = np.array([float(said[r]) for r in runs])
    y = np.array([float(truth[r]) if r in chosen else np.nan for r in runs])
    expected = estimate_from_units(f, y, pi, method="ppi++")
    assert found.active.active.point == pytest.approx(expected.point, abs=1e-12)
    assert found.active.active.low == pytest.approx(expected.low, abs=1e-12)
    assert found.labelled.not_used == 10 and found.labelled.n == len(chosen)
    # Hand check of the lam = 1 form on the same units: mean(f + (y - f) xi / pi).
    terms = f + np.where(drawn, (np.nan_to_num(y) - f) / pi, 0.0)
    ppi = estimate_from_units(f, y, pi, method="ppi")
    assert ppi.point == pytest.approx(float(terms.mean()), abs=1e-12)


def test_a_replaced_design_draws_again_under_its_new_budget(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    _import(tmp_path, db)
    first = create_design(db, _design(), plan_secret=SECRET)
    second = create_design(db, _design(human_budget="50%"), plan_secret=SECRET)
    assert second.status == "replaced"
    draws = draws_sql.draws(db, second.pk)
    assert len(draws) == len(TASKS)
    assert sum(d.probability for d in draws) == pytest.approx(len(TASKS) / 2)
    assert draws_sql.draws(db, first.pk) == () or first.pk == second.pk
    count = db.execute("SELECT COUNT(*) FROM allocation_draws").fetchone()[0]
    assert count == len(TASKS)


def test_the_budget_is_read_as_a_count_or_a_share() -> None:
    assert _design(human_budget="25%").human_budget == "25%"
    assert _design(human_budget=" 12 ").human_budget == 12
    with pytest.raises(ValueError, match="both choose the items people judge"):
        _design(calibration_sample=0.1)


async def test_the_judges_screen_shows_the_active_allocation_figures(tmp_path: Path) -> None:
    db_path = tmp_path / "active.db"
    db = connect(db_path)
    try:
        _study(tmp_path, db)
        expected = view_lines(judge_report(db, STUDY, viewer="coordinator"))
    finally:
        db.close()
    app = make_app(db_path, reviewer="coordinator")
    async with drive(app, (160, 60)) as pilot:
        await settle(pilot)
        await press(pilot, "g")
        screen = app.screen
        assert isinstance(screen, JudgesScreen)
        await until(pilot, lambda: bool(screen.lines), "the judge report")
        await settle(pilot)
        assert screen.lines == expected
        body = static_text(pilot, "#judges-body")
        for shown in (
            "active allocation (inverse-probability weighted)",
            "people only (Horvitz-Thompson)",
            "uniform sample (for comparison only)",
            "human judgments saved",
        ):
            assert shown in body


@pytest.mark.parametrize(
    ("n", "low", "high", "said"),
    [
        (3, -0.101, 3.015, ("only 3 units", "leaves 0 to 1")),  # a walkthrough's figure
        (1, 0.2, 0.4, ("only 1 unit judged",)),
        (30, 0.2, 0.8, ()),
        (400, 0.95, 1.02, ("leaves 0 to 1",)),
        (400, None, None, ()),
    ],
)
def test_a_judge_assisted_interval_on_too_few_labels_or_beyond_0_to_1_is_cautioned(
    n: int, low: float | None, high: float | None, said: tuple[str, ...]
) -> None:
    from abp_tui.analysis.judges.summary import _caution

    lines = _caution(n, low, high)
    assert len(lines) == (1 if said else 0)
    assert all(part in lines[0] for part in said)
    if said:
        assert lines[0].strip().startswith("caution: ")
