"""Imported labels are a reference: each design reviewer measured against each label set.

Sources of the published values:
- SAS PROC FREQ printout of the 3 x 3 table [[0, 4, 1], [0, 8, 0], [0, 1, 5]], as reproduced in
  statsmodels' tests (statsmodels/stats/tests/test_inter_rater.py): simple kappa 0.4842, ASE
  0.1380, 95% confidence limits 0.2137 and 0.7547.
- PandaLM's README (WeOpenML/PandaLM, "Test data"): the Cohen's kappa of each pair of its three
  annotators on data/testset-v1.json, 0.85 (#1, #2), 0.88 (#1, #3) and 0.86 (#2, #3).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import krippendorff
import numpy as np
import pytest
import sqlite_utils
from textual.widgets import DataTable

from abp_tui.analysis.agreement.labels import SOURCE_SCALE, source_scale
from abp_tui.formats.pairwise import label_choices
from abp_tui.models import Judgment, PreferenceChoice, StudyDesign
from abp_tui.services.agreement_report import study_agreement
from abp_tui.services.designing import create_design
from abp_tui.services.importing import import_paths
from abp_tui.services.results_report import unblind
from abp_tui.services.reviewing import ReviewSession
from abp_tui.store import connect
from abp_tui.store import judging as sql
from abp_tui.tui.app import make_app
from abp_tui.tui.screens.agreement import AgreementScreen
from abp_tui.tui.screens.designs import open_review_screen
from tests.factories import Cli, flipped
from tests.tui_helpers import drive, rendered, screen_text, settle, until

SAS_TABLE = [[0, 4, 1], [0, 8, 0], [0, 1, 5]]
"""Rows: the reviewer; columns: the imported label; categories run a, run b, tie."""
SIDES = ("a", "b", "tie")


def _prefer(session: ReviewSession, code: str, side: str) -> Judgment:
    """The judgment preferring the item's run ``side`` ("a", "b") or a tie, whatever placement
    this reviewer sees."""
    if side == "tie":
        choice = PreferenceChoice.TIE
    else:
        first = (side == "a") != flipped(session, code)
        choice = PreferenceChoice.RESPONSE_1 if first else PreferenceChoice.RESPONSE_2
    return Judgment(preference=choice, justification="Read both.")


def _pandalm(idx: int, **labels: int) -> dict[str, Any]:
    return {
        "idx": idx,
        "instruction": f"Rewrite sentence {idx} plainly.",
        "input": "",
        "response1": f"First rewrite of sentence {idx}.",
        "response2": f"Second rewrite of sentence {idx}.",
        "cmp_key": "m1_m2",
        **labels,
    }


def test_a_reviewer_against_the_labels_is_cohens_kappa_through_the_runs(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    # 19 labelled pairs; the design compares m2 with m1, so each item's run a is the source's
    # response 2: a label read by position instead of by run would swap a and b.
    cells = [(k, m) for k, row in enumerate(SAS_TABLE) for m, n in enumerate(row) for _ in range(n)]
    label_of = {"a": 2, "b": 1, "tie": 0}  # PandaLM: 1 response1 better, 2 response2, 0 tie
    source = [
        _pandalm(i, annotator1=label_of[SIDES[m]], annotator2=label_of[SIDES[k]])
        for i, (k, m) in enumerate(cells)
    ]
    path = tmp_path / "panda.json"
    path.write_text(json.dumps(source), "utf-8")
    import_paths(db, [path], study="panda")
    pk = create_design(
        db,
        StudyDesign(
            study="panda", name="again", seed=9, contrasts=[("m2", "m1")], reviewers=["ann"]
        ),
    ).pk
    items = {i.task: i for i in sql.items(db, pk)}
    assert all(i.runs == (f"{task}/2", f"{task}/1") for task, i in items.items())
    ann = ReviewSession(db, pk, "ann")
    # Both placements occur, so the reviewer's side is read through the placement too.
    assert {r.flipped for r in ann.queue()} == {True, False}
    for i, (k, _m) in enumerate(cells):
        code = items[str(i)].code
        ann.save(code, _prefer(ann, code, SIDES[k]), 4.0, submit=True)

    unblind(db, "panda", "coordinator")  # the preference's counts are shown once unblinded
    report = study_agreement(db, "panda", pk, resamples=500, viewer="coordinator")
    assert [s.name for s in report.label_sets] == ["panda:annotator1", "panda:annotator2"]
    assert [(s.field, s.n_labels, s.n_in_design) for s in report.label_sets] == [
        ("annotator1", 19, 19),
        ("annotator2", 19, 19),
    ]
    by_ref = {r.reference: r for r in report.references}
    assert set(by_ref) == {"panda:annotator1", "panda:annotator2"}
    against = by_ref["panda:annotator1"]
    assert against.reviewer == "ann" and against.pair.n_items == 19
    pair = against.pair
    counts = pair.matrix().counts
    if pair.reviewer_a != "ann":  # ann's categories down the rows
        counts = tuple(zip(*counts, strict=True))
    assert pair.matrix().categories == ("a", "b", "tie", "insufficient_evidence")
    assert [list(r[:3]) for r in counts[:3]] == SAS_TABLE
    kappa = pair.cohen_kappa
    # SAS: simple kappa 0.4842, ASE 0.1380, limits 0.2137 and 0.7547.
    assert round(kappa.value or 0, 4) == 0.4842
    large = kappa.large_sample
    assert large is not None and large.low is not None and large.high is not None
    assert (round(large.standard_error, 4), round(large.low, 4), round(large.high, 4)) == (
        0.1380,
        0.2137,
        0.7547,
    )
    # The bootstrap interval is drawn on the reference pair itself.
    assert kappa.interval is not None and kappa.interval.resamples == 500
    assert kappa.interval.low < (kappa.value or 0) < kappa.interval.high
    assert pair.percent_agreement.value == pytest.approx(13 / 19)
    # annotator2 gave what ann gave on every item: perfect agreement.
    assert by_ref["panda:annotator2"].pair.percent_agreement.value == 1.0
    # The two label sets among themselves are the same table, transposed.
    assert report.label_agreement is not None
    (among,) = report.label_agreement.pairs
    assert round(among.cohen_kappa.value or 0, 4) == 0.4842


def test_pandalm_annotators_among_themselves_are_the_published_kappas(
    tmp_path: Path, reference: Path, db: sqlite_utils.Database
) -> None:
    src = reference / "pandalm" / "testset-v1.json"
    import_paths(db, [src])
    pk = create_design(
        db,
        StudyDesign(
            study="pandalm-testset-v1",
            name="small",
            seed=7,
            tasks=["0", "13", "17"],
            conditions=["llama-7b", "bloom-7b"],
            contrasts=[("llama-7b", "bloom-7b")],
            reviewers=["ann"],
        ),
    ).pk
    ann = ReviewSession(db, pk, "ann")
    for row in ann.queue():
        ann.save(row.code, _prefer(ann, row.code, "a"), 3.0, submit=True)
    report = study_agreement(db, "pandalm-testset-v1", pk, resamples=0, viewer="coordinator")
    among = report.label_agreement
    assert among is not None and (among.n_items, among.n_reviewers) == (999, 3)
    kappas = {
        (p.reviewer_a.split(":")[1], p.reviewer_b.split(":")[1]): round(p.cohen_kappa.value or 0, 2)
        for p in among.pairs
    }
    # PandaLM's README: 0.85 (#1, #2), 0.88 (#1, #3), 0.86 (#2, #3).
    assert kappas == {
        ("annotator1", "annotator2"): 0.85,
        ("annotator1", "annotator3"): 0.88,
        ("annotator2", "annotator3"): 0.86,
    }
    # Krippendorff's alpha over the three annotators, as the krippendorff package computes it
    # from the file's own labels.
    data = json.loads(src.read_text("utf-8"))
    matrix = np.array([[item[f"annotator{k}"] for item in data] for k in (1, 2, 3)], float)
    expected = krippendorff.alpha(reliability_data=matrix, level_of_measurement="nominal")
    assert among.krippendorff_alpha.value == pytest.approx(expected, abs=1e-12)
    # Each annotator is a reference for the design's reviewer, on the design's three items.
    assert [(r.reference, r.pair.n_items) for r in report.references] == [
        ("pandalm-testset-v1:annotator1", 3),
        ("pandalm-testset-v1:annotator2", 3),
        ("pandalm-testset-v1:annotator3", 3),
    ]


def test_ai_judges_are_not_reviewers_and_not_references(
    reference: Path, db: sqlite_utils.Database
) -> None:
    import_paths(db, [reference / "llmbar-manual"], study="llmbar")
    pk = create_design(
        db,
        StudyDesign(
            study="llmbar",
            name="check",
            seed=2,
            tasks=["0", "1", "2", "3"],
            contrasts=[("response2", "response1")],
            reviewers=["ann", "bo"],
            reviewers_per_item=2,
        ),
    ).pk
    for name, side in (("ann", "a"), ("bo", "b")):
        session = ReviewSession(db, pk, name)
        for row in session.queue():
            session.save(row.code, _prefer(session, row.code, side), 3.0, submit=True)
    report = study_agreement(db, "llmbar", pk, resamples=0, viewer="coordinator")
    (preference,) = report.variables
    assert preference.n_reviewers == 2
    assert {(p.reviewer_a, p.reviewer_b) for p in preference.pairs} == {("ann", "bo")}
    # One label set (the gold label): a reference, with nothing to agree with among labels.
    assert [s.name for s in report.label_sets] == ["llmbar:label"]
    assert report.label_agreement is None
    assert {(r.reviewer, r.reference) for r in report.references} == {
        ("ann", "llmbar:label"),
        ("bo", "llmbar:label"),
    }
    shown = report.model_dump_json()
    assert "GPT-4-Vanilla" not in shown and "ChatGPT-Vanilla" not in shown


def test_the_command_shows_each_reviewer_against_the_labels(
    tmp_path: Path, db: sqlite_utils.Database, cli: Cli
) -> None:
    path = tmp_path / "panda.json"
    path.write_text(
        json.dumps([_pandalm(i, annotator1=1 + i % 2, annotator2=2) for i in range(4)]), "utf-8"
    )
    import_paths(db, [path], study="panda")
    pk = create_design(
        db,
        StudyDesign(
            study="panda", name="again", seed=9, contrasts=[("m2", "m1")], reviewers=["ann"]
        ),
    ).pk
    ann = ReviewSession(db, pk, "ann")
    for row in ann.queue():
        ann.save(row.code, _prefer(ann, row.code, "a"), 3.0, submit=True)
    target = tmp_path / "test.db"
    text = cli("agreement", "--db", target, "--reviewer", "carol", "--resamples", "100")
    assert text.code == 0, text.err
    assert "Against imported labels (panda:annotator1, panda:annotator2):" in text.out
    assert "panda:annotator1: 4 labels, 4 on this design's pair items" in text.out
    assert "Seen by carol: every item counts" in text.out
    assert "preference among imported labels (nominal): 4 items" in text.out
    found = cli("agreement", "--db", target, "--reviewer", "carol", "--resamples", "0", "--json")
    document = json.loads(found.out)
    assert document["viewer"] == "carol" and document["items_held_back"] == 0
    refs = {r["reference"]: r["pair"] for r in document["references"]}
    # ann prefers run a (the source's response 2) throughout: annotator2 always agrees,
    # annotator1 (response 2 on odd items) on half.
    assert refs["panda:annotator2"]["percent_agreement"]["value"] == 1.0
    assert refs["panda:annotator1"]["percent_agreement"]["value"] == 0.5
    assert document["label_agreement"]["variable"] == "preference among imported labels"


async def test_the_k_screen_shows_the_reviewers_against_the_labels(tmp_path: Path) -> None:
    db_path = tmp_path / "labels.db"
    path = tmp_path / "panda.json"
    path.write_text(
        json.dumps([_pandalm(i, annotator1=2, annotator2=1 + i % 2) for i in range(4)]), "utf-8"
    )
    db = connect(db_path)
    try:
        import_paths(db, [path], study="panda")
        pk = create_design(
            db,
            StudyDesign(
                study="panda", name="again", seed=9, contrasts=[("m2", "m1")], reviewers=["ann"]
            ),
        ).pk
        ann = ReviewSession(db, pk, "ann")
        for row in ann.queue():
            ann.save(row.code, _prefer(ann, row.code, "a"), 3.0, submit=True)
    finally:
        db.close()
    app = make_app(db_path, reviewer="carol")
    async with drive(app, (160, 45)) as pilot:
        await settle(pilot)
        open_review_screen(app, db_path, "carol", "agreement")
        await until(pilot, lambda: getattr(app.screen, "shown", None) is not None, "agreement")
        screen = app.screen
        assert isinstance(screen, AgreementScreen) and screen.shown is not None
        names = [v.variable for v in screen.shown.variables]
        assert names == ["preference", "preference among imported labels"]
        table = screen.query_one("#variables", DataTable)
        assert table.row_count == 2
        detail = rendered(screen.shown.details[0], width=200)
        assert "Against imported labels (panda:annotator1, panda:annotator2)" in detail
        # ann prefers run a, the source's response 2, as annotator1 does on every item.
        (ann_line,) = [
            line
            for line in detail.splitlines()
            if "panda:annotator1" in line and line.startswith("ann ")
        ]
        assert " 4 " in ann_line and "1.000" in ann_line
        among = rendered(screen.shown.details[1], width=200)
        assert "panda:annotator1 × panda:annotator2" in among
        # At 80 columns the list's names are cut to leave the figures room: a name of several
        # words takes two lines of its row instead ("preference among i…" before).
        await pilot.resize_terminal(80, 24)
        await settle(pilot)
        text = screen_text(pilot)
        assert "preference among i…" not in text
        assert "preference among" in text and "imported labels" in text


def test_pandalm_ac1_counts_only_the_three_categories_its_annotators_may_give(
    reference: Path, db: sqlite_utils.Database
) -> None:
    """PandaLM's annotators label 0 (tie), 1 or 2: a scale of three categories. Gwet's AC1
    counts the scale's categories in its chance term, so the fourth category of a reviewer's
    preference (insufficient evidence), which no PandaLM label can be, is not one of them."""
    import_paths(db, [reference / "pandalm" / "testset-v1.json"])
    report = study_agreement(db, "pandalm-testset-v1", None, resamples=0)
    (among,) = report.variables
    assert among.categories == ("1", "2", "tie")
    # irrCAC's gwet.ac1.raw on the file's three annotator columns (categories 0, 1, 2): its
    # formula, written out here on the raw file, and its published figure, 0.88645 (from its
    # printed P_o 0.91992 and P_e 0.29479; the unrounded value is 0.8864447).
    data = json.loads((reference / "pandalm" / "testset-v1.json").read_text("utf-8"))
    counts = np.array(
        [[sum(item[f"annotator{k}"] == c for k in (1, 2, 3)) for c in (0, 1, 2)] for item in data]
    )
    p_o = float((counts * (counts - 1)).sum(axis=1).mean() / 6)
    pi = counts.mean(axis=0) / 3
    p_e = float((pi * (1 - pi)).sum() / (3 - 1))
    assert among.gwet_ac1.value == pytest.approx((p_o - p_e) / (1 - p_e), abs=1e-12)
    assert among.gwet_ac1.value == pytest.approx(0.88645, abs=1e-5)
    assert among.gwet_ac1.chance_agreement == pytest.approx(0.29479, abs=1e-5)
    # Before: four categories counted (0.90033), one of which no PandaLM label can be.
    assert among.gwet_ac1.value != pytest.approx(0.90033, abs=1e-5)


def test_the_labels_scale_is_what_their_format_allows_or_every_category_when_unknown() -> None:
    pandalm = [c.value for c in (label_choices("annotator1") or ())]
    llmbar = [c.value for c in (label_choices("label") or ())]
    assert source_scale([pandalm, pandalm]) == ("1", "2", "tie")
    assert source_scale([llmbar]) == ("1", "2")
    assert source_scale([pandalm, llmbar]) == ("1", "2", "tie")
    assert label_choices("comment") is None
    assert source_scale([pandalm, None]) == SOURCE_SCALE
