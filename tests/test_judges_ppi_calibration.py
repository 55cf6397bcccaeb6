"""Judge-assisted estimates on a design's calibration sample.

With ``calibration_sample`` set, only the units of the seeded random sample that people judged
correct the judge (the labelled set of prediction-powered inference); units people judged
outside it, picked in whatever order they liked, count by the judge's verdict alone. Without a
sample, every unit people judged is labelled and the figure says that it is assumed, not
verified, to be a random sample. The figures are checked against ppi-python's ``ppi_mean_ci``
on exactly the units they should use, and the text report, ``results/ai_judges.json`` and
``report.html`` state the labelled set, which ``verify`` re-derives.
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path

import numpy as np
import pytest
import sqlite_utils
from ppi_py import ppi_mean_ci, ppi_mean_pointestimate

from abp_tui.analysis.judges.estimates import JudgeAssisted
from abp_tui.analysis.judges.report import (
    JudgesReport,
    PassFailJudgeReport,
    PreferenceJudgeReport,
    judges_report,
)
from abp_tui.analysis.judges.units import CalibrationSample, Reference, VerdictRow
from abp_tui.analysis.judges.view import view_lines
from abp_tui.export import BundleMismatch, verify
from abp_tui.models import Judgment, PreferenceChoice, StudyDesign
from abp_tui.services.designing import create_design
from abp_tui.services.importing import import_paths
from abp_tui.services.judge_order import review_queue
from abp_tui.services.judges import final_reference, judge_report
from abp_tui.services.publishing import export_bundle
from abp_tui.services.results_report import unblind
from abp_tui.services.reviewing import ReviewSession
from abp_tui.store import judging
from tests.factories import write_jsonl

STUDY = "cal"
JUDGE = "pair-judge/v1"
TASKS = [f"t{i:02d}" for i in range(1, 41)]
SHARE = 0.25
DRAWN = math.ceil(SHARE * len(TASKS))
NOT_YET = 2
"""Calibration items left unjudged (the last of the reviewer's sample)."""
OUTSIDE = 12
"""Items judged outside the sample: only ones where the judge is right in both orders."""
WIN_RATE = "win rate of A against B"


def _truth(task: str) -> str:
    """The condition people prefer: B on every third task, A on the rest."""
    return "B" if int(task[1:]) % 3 == 0 else "A"


def _judge_picks(task: str) -> tuple[str, str]:
    """The judge's pick shown A first, then shown B first: wrong on every fourth task, split
    between the two orders on every fifth of the rest, right otherwise."""
    right = _truth(task)
    wrong = "B" if right == "A" else "A"
    i = int(task[1:])
    if i % 4 == 0:
        return wrong, wrong
    if i % 5 == 0:
        return right, wrong
    return right, right


def _judged_a(task: str) -> float:
    """The judge's win of A on the task, the mean of its two orders."""
    return sum(pick == "A" for pick in _judge_picks(task)) / 2


def _people_a(task: str) -> float:
    return 1.0 if _truth(task) == "A" else 0.0


def _study(
    tmp_path: Path, db: sqlite_utils.Database, share: float | None
) -> tuple[int, dict[str, str]]:
    """Forty A/B pairs the judge judged in both orders; alice judges the calibration sample
    first (all but NOT_YET of it, one of those as insufficient evidence), then OUTSIDE more
    chosen where the judge is right (a biased choice). Without a sample (``share`` None) she
    judges the same tasks. Returns the design and what she judged: task -> ``sample``,
    ``insufficient`` or ``outside``."""
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
    import_paths(db, [write_jsonl(tmp_path / "cal.jsonl", lines)])
    design = StudyDesign(
        study=STUDY,
        name="d",
        seed=11,
        rubric="none",
        contrasts=[("A", "B")],
        reviewers=["alice"],
        calibration_sample=share,
    )
    pk = create_design(db, design).pk
    task_of = {item.code: item.task for item in judging.items(db, pk)}
    queued = review_queue(db, pk)
    # Without a sample, she judges as many items of the plan first, then the biased ones.
    sample = [task_of[q.code] for q in queued if q.calibration] or [
        task_of[q.code] for q in queued[:DRAWN]
    ]
    assert len(sample) == DRAWN
    session = ReviewSession(db, pk, "alice")
    queue = [task_of[row.code] for row in session.queue()]
    code_of = {t: c for c, t in task_of.items()}
    judged: dict[str, str] = {}
    ordered_sample = [t for t in queue if t in sample]
    for t in ordered_sample[: DRAWN - NOT_YET]:
        judged[t] = "insufficient" if not judged else "sample"
    right = [t for t in queue if t not in sample and _judge_picks(t) == (_truth(t), _truth(t))]
    for t in right[:OUTSIDE]:
        judged[t] = "outside"
    for t, why in judged.items():
        code = code_of[t]
        if why == "insufficient":
            choice = PreferenceChoice.INSUFFICIENT
        else:
            first_is_a = session.read(code).responses[0].text == "A"
            choice = (
                PreferenceChoice.RESPONSE_1
                if first_is_a == (_truth(t) == "A")
                else PreferenceChoice.RESPONSE_2
            )
        session.save(code, Judgment(preference=choice, justification="Read both."), 3, submit=True)
    unblind(db, STUDY, "coordinator")
    return pk, judged


def _win_rate(report: JudgesReport) -> JudgeAssisted:
    (judge,) = report.judges
    assert isinstance(judge, PreferenceJudgeReport)
    (found,) = judge.estimates
    assert found.figure == WIN_RATE
    return found


def _ppi(labelled: list[str], unlabelled: list[str]) -> tuple[float, float, float]:
    """ppi-python's tuned (PPI++) point and 95% interval for A's win rate."""
    y = np.array([_people_a(t) for t in labelled])
    yhat = np.array([_judged_a(t) for t in labelled])
    rest = np.array([_judged_a(t) for t in unlabelled])
    point = ppi_mean_pointestimate(y, yhat, rest)
    low, high = ppi_mean_ci(y, yhat, rest, alpha=0.05)
    return float(np.ravel(point)[0]), float(low[0]), float(high[0])


def test_the_reference_carries_the_calibration_sample_the_queue_drew(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk, judged = _study(tmp_path, db, SHARE)
    reference = final_reference(db, pk)
    assert reference.calibration is not None
    task_of = {item.code: item.task for item in judging.items(db, pk)}
    queued = {task_of[q.code] for q in review_queue(db, pk) if q.calibration}
    assert len(queued) == DRAWN
    assert reference.calibration.pairs == {(f"{t}-A", f"{t}-B") for t in queued}
    assert reference.calibration.runs == {f"{t}-{c}" for t in queued for c in "AB"}
    # The biased pairs people judged are in the reference (for agreement), not in the sample.
    outside = {t for t, why in judged.items() if why == "outside"}
    assert len(outside) == OUTSIDE
    assert all((f"{t}-A", f"{t}-B") in reference.pairs for t in outside)
    assert not outside & queued


def test_only_the_calibration_units_people_judged_correct_the_judge(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    _pk, judged = _study(tmp_path, db, SHARE)
    labelled = [t for t in TASKS if judged.get(t) == "sample"]
    assert len(labelled) == DRAWN - NOT_YET - 1
    # Every other unit the judge judged is unlabelled, the biased ones people judged included;
    # the one people found insufficient is in neither set.
    unlabelled = [t for t in TASKS if judged.get(t) not in ("sample", "insufficient")]
    assert len(unlabelled) == len(TASKS) - len(labelled) - 1
    found = _win_rate(judge_report(db, STUDY, resamples=0))
    e = found.estimate
    point, low, high = _ppi(labelled, unlabelled)
    assert (e.n_human, e.n_judge_only) == (len(labelled), len(unlabelled))
    assert e.point == pytest.approx(point, abs=1e-12)
    assert e.low == pytest.approx(low, abs=1e-12)
    assert e.high == pytest.approx(high, abs=1e-12)
    assert e.human_only.n == len(labelled)
    assert e.human_only.point == pytest.approx(np.mean([_people_a(t) for t in labelled]))
    # Taking every unit people judged as labelled (the biased ones too) gives another interval:
    # the one the estimate must not be.
    everyone = [t for t in TASKS if judged.get(t) in ("sample", "outside")]
    rest = [t for t in TASKS if t not in judged]
    _p, biased_low, biased_high = _ppi(everyone, rest)
    assert (e.low, e.high) != pytest.approx((biased_low, biased_high), abs=1e-6)
    s = found.labelled
    assert s.calibration
    assert (s.n, s.drawn, s.without_verdict, s.not_yet_judged, s.not_used) == (
        len(labelled),
        DRAWN,
        1,
        NOT_YET,
        OUTSIDE,
    )
    assert found.assumption.startswith(
        f"labelled set: the calibration sample, n = {len(labelled)} of {DRAWN} drawn "
        f"(1 without a usable verdict, {NOT_YET} not yet judged by people)"
    )
    assert f"{OUTSIDE} judged by people outside the sample count by the judge's verdict" in (
        found.assumption
    )


def test_without_a_calibration_sample_the_labelled_set_is_assumed_random(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    _pk, judged = _study(tmp_path, db, None)
    everyone = [t for t in TASKS if judged.get(t) in ("sample", "outside")]
    rest = [t for t in TASKS if t not in judged]
    found = _win_rate(judge_report(db, STUDY, resamples=0))
    point, low, high = _ppi(everyone, rest)
    e = found.estimate
    assert (e.n_human, e.n_judge_only) == (len(everyone), len(rest))
    assert (e.point, e.low, e.high) == pytest.approx((point, low, high), abs=1e-12)
    assert not found.labelled.calibration
    assert found.assumption == (
        f"labelled set: every unit people judged, n = {len(everyone)}; assumed to be a random "
        "sample of the units the judge judged, not verified (set calibration_sample in the "
        "design for a guarantee)"
    )


def test_pass_rates_use_the_calibration_runs_alone() -> None:
    """A pass/fail judge's pass rate of each condition: runs of the sample's items are the
    labelled set, whatever other runs people judged."""
    rng = np.random.default_rng(5)
    runs = [f"r{i:03d}" for i in range(200)]
    truth = {r: bool(rng.random() < 0.6) for r in runs}
    said = {r: truth[r] if rng.random() < 0.8 else not truth[r] for r in runs}
    sample = set(runs[::8])
    # People also judged 40 runs outside the sample, all of them ones the judge passed.
    outside = [r for r in runs if r not in sample and said[r]][:40]
    people = {r: truth[r] for r in (*sample, *outside)}
    reference = Reference(
        name="t",
        kind="final",
        runs=people,
        conditions=dict.fromkeys(runs, "C"),
        calibration=CalibrationSample(share=0.125, items=len(sample), runs=frozenset(sample)),
    )
    rows = [
        VerdictRow("pf", (r,), None, None, "pass_fail", "pass" if said[r] else "fail", None, None)
        for r in runs
    ]
    (judge,) = judges_report("s", [], rows, reference, resamples=0).judges
    assert isinstance(judge, PassFailJudgeReport)
    (found,) = judge.estimates
    assert found.figure == "pass rate of C"
    labelled = [r for r in runs if r in sample]
    y = np.array([float(truth[r]) for r in labelled])
    yhat = np.array([float(said[r]) for r in labelled])
    rest = np.array([float(said[r]) for r in runs if r not in sample])
    low, high = ppi_mean_ci(y, yhat, rest, alpha=0.05)
    e = found.estimate
    assert (e.n_human, e.n_judge_only) == (25, 175)
    assert (e.low, e.high) == pytest.approx((float(low[0]), float(high[0])), abs=1e-12)
    assert (found.labelled.n, found.labelled.drawn, found.labelled.not_used) == (25, 25, 40)
    # The same people without a calibration sample: all 65 runs are labelled, as assumed.
    plain = Reference(name="t", kind="labels", runs=people, conditions=dict.fromkeys(runs, "C"))
    (judge,) = judges_report("s", [], rows, plain, resamples=0).judges
    assert isinstance(judge, PassFailJudgeReport)
    (assumed,) = judge.estimates
    assert assumed.estimate.n_human == 65
    assert "assumed to be a random sample" in assumed.assumption


def _rehash(folder: Path, changed: str) -> None:
    """Update manifest.json for a changed file, as someone covering their tracks would."""
    manifest = json.loads((folder / "manifest.json").read_text("utf-8"))
    data = (folder / changed).read_bytes()
    for entry in manifest["files"]:
        if entry["path"] == changed:
            entry["sha256"], entry["bytes"] = hashlib.sha256(data).hexdigest(), len(data)
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True), "utf-8")


def test_the_text_report_and_the_bundle_state_the_labelled_set(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk, judged = _study(tmp_path, db, SHARE)
    labelled = sum(1 for why in judged.values() if why == "sample")
    view = judge_report(db, STUDY, resamples=0)
    statement = _win_rate(view).assumption
    head = f"labelled set: the calibration sample, n = {labelled} of {DRAWN} drawn"
    assert statement.startswith(head)
    lines = view_lines(view)
    at = next(i for i, line in enumerate(lines) if f"judge-assisted {WIN_RATE}:" in line)
    assert f"{labelled} labelled by people" in lines[at]
    assert lines[at + 1].strip() == statement
    out = export_bundle(db, pk, tmp_path / "bundle").folder
    published = json.loads((out / "results" / "ai_judges.json").read_text("utf-8"))
    # The bundle re-derives the sample from its own items and seed: the same statement.
    assert published["labelled_sets"] == {f"{JUDGE}: {WIN_RATE}": statement}
    (estimate,) = published["report"]["judges"][0]["estimates"]
    assert estimate["labelled"]["n"] == labelled and estimate["labelled"]["calibration"]
    page = (out / "report.html").read_text("utf-8")
    section = page[page.index('id="judges-assisted"') :]
    assert head in section and "Labelled set, the calibration sample" in section
    assert verify(out).status
    # A labelled set published larger than the records give no longer re-derives.
    path = out / "results" / "ai_judges.json"
    path.write_text(
        path.read_text("utf-8").replace(head, head.replace(f"n = {labelled}", "n = 30"))
    )
    _rehash(out, "results/ai_judges.json")
    with pytest.raises(BundleMismatch, match=r"results/ai_judges\.json"):
        verify(out)
