"""Dawid-Skene and the one-coin model over a study's annotators, checked against crowd-kit.

The reference values (tests/reference_values/crowdkit_dawid_skene.json) were computed by
crowd-kit 1.4.2's ``DawidSkene`` and ``OneCoinDawidSkene`` (n_iter 100, tol 1e-5) on PandaLM's
test set (its three annotators) and LLMBar's manual set (the gold label and each AI judge in
each presentation order), by tests/reference_values/make_crowdkit.py; crowd-kit is not a
dependency. The kernel is compared on the stored rows (and on a seeded synthetic set where
posteriors reach 0 and error rates the 1e-10 floor); the study's report on the same sets as
imported from the reference data folder.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import sqlite_utils
from textual.widgets import Static

from abp_tui.analysis.reliability.model import PairLabel, Unit, reliability
from abp_tui.analysis.reliability.text import reliability_lines
from abp_tui.errors import AbpError
from abp_tui.models import Judgment, PreferenceChoice, StudyDesign
from abp_tui.services.design_choices import design_choices
from abp_tui.services.designing import create_design
from abp_tui.services.importing import import_paths
from abp_tui.services.reliability import study_reliability
from abp_tui.services.results_report import unblind
from abp_tui.services.reviewing import ReviewSession
from abp_tui.stats.reliability import LabelData, bootstrap, fit
from abp_tui.store import connect
from abp_tui.tui.app import make_app
from abp_tui.tui.screens.agreement import AgreementScreen, reliability_section
from tests.factories import Cli, flipped, panda_pairs
from tests.tui_helpers import drive, plain, settle, until

REFERENCE = json.loads(
    (Path(__file__).parent / "reference_values" / "crowdkit_dawid_skene.json").read_text("utf-8")
)
MODELS = ("dawid-skene", "one-coin")
TOLERANCE = 1e-8
"""crowd-kit floors its output posteriors at 1e-10 without renormalising; EM otherwise runs
the same arithmetic (log base 2 there, natural logs here)."""
RELATIVE = 1e-7
"""An error rate agrees to rounding, the tiny ones too (a floor of 1e-10 shows there)."""


def _data(rows: list[list[str]]) -> tuple[LabelData, list[str], list[str], list[str]]:
    items = sorted({r[0] for r in rows}, key=int)
    annotators = sorted({r[1] for r in rows})
    categories = sorted({r[2] for r in rows})
    at = {name: n for n, name in enumerate(items)}
    who = {name: n for n, name in enumerate(annotators)}
    cat = {name: n for n, name in enumerate(categories)}
    data = LabelData(
        n_items=len(items),
        n_annotators=len(annotators),
        n_categories=len(categories),
        item=np.array([at[r[0]] for r in rows], dtype=np.int64),
        annotator=np.array([who[r[1]] for r in rows], dtype=np.int64),
        label=np.array([cat[r[2]] for r in rows], dtype=np.int64),
    )
    return data, items, annotators, categories


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("case", ["pandalm", "llmbar", "synthetic"])
def test_the_kernel_is_crowd_kits_em(case: str, model: str) -> None:
    found = REFERENCE["cases"][case]
    expected = found[model]
    data, items, annotators, categories = _data(found["rows"])
    result = fit(data, model)  # type: ignore[arg-type]
    assert result.converged and result.iterations == expected["iterations"]
    cat = {name: n for n, name in enumerate(categories)}
    at = {name: n for n, name in enumerate(items)}
    for k, value in expected["priors"].items():
        assert result.priors[cat[k]] == pytest.approx(value, abs=TOLERANCE)
    for task, row in expected["probas"].items():
        for k, value in row.items():
            assert result.probas[at[task], cat[k]] == pytest.approx(value, abs=TOLERANCE)
    assert {items[i]: categories[k] for i, k in enumerate(result.labels)} == expected["labels"]
    for a, worker in enumerate(annotators):
        for label, row in expected["errors"][worker].items():
            for k, value in row.items():
                assert result.errors[a, cat[label], cat[k]] == pytest.approx(value, rel=RELATIVE)
    if model == "one-coin":
        for a, worker in enumerate(annotators):
            assert result.accuracy[a] == pytest.approx(expected["skills"][worker], abs=TOLERANCE)


def test_a_bootstrap_resample_is_a_fit_on_the_items_drawn() -> None:
    data, *_ = _data(REFERENCE["cases"]["llmbar"]["rows"])
    boot = bootstrap(data, "dawid-skene", resamples=100, seed=42)
    # The first resample by hand: the same generator's first draw of item indices.
    drawn = np.random.default_rng(42).integers(0, data.n_items, data.n_items)
    item, annotator, label = [], [], []
    for position, source in enumerate(drawn):
        mine = data.item == source
        item += [position] * int(mine.sum())
        annotator += data.annotator[mine].tolist()
        label += data.label[mine].tolist()
    by_hand = fit(
        LabelData(
            n_items=data.n_items,
            n_annotators=data.n_annotators,
            n_categories=data.n_categories,
            item=np.array(item, dtype=np.int64),
            annotator=np.array(annotator, dtype=np.int64),
            label=np.array(label, dtype=np.int64),
        )
    )
    np.testing.assert_allclose(boot.accuracy[0], by_hand.accuracy, atol=1e-12)
    np.testing.assert_allclose(boot.errors[0], by_hand.errors, atol=1e-12)
    again = bootstrap(data, "dawid-skene", resamples=100, seed=42)
    np.testing.assert_array_equal(again.accuracy, boot.accuracy)
    other = bootstrap(data, "dawid-skene", resamples=100, seed=43)
    assert not np.array_equal(other.accuracy, boot.accuracy)


@pytest.mark.parametrize("count", [1, 99, 100_001, -1])
def test_the_bootstrap_refuses_a_count_outside_the_rule(count: int) -> None:
    data, *_ = _data(REFERENCE["cases"]["llmbar"]["rows"])
    with pytest.raises(ValueError, match="resamples"):
        bootstrap(data, resamples=count, seed=0)


def _import(db: sqlite_utils.Database, reference: Path, case: str) -> str:
    if case == "pandalm":
        import_paths(db, [reference / "pandalm" / "testset-v1.json"])
        return "pandalm-testset-v1"
    import_paths(db, [reference / "llmbar-manual"], study="llmbar")
    return "llmbar"


def _worker(name: str, study: str) -> str:
    """Our annotator's name as the reference file names it."""
    name = name.removeprefix(f"{study}:")
    for order in ("original", "swapped"):
        name = name.replace(f" ({order} order)", f"|{order}")
    return name


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("case", ["pandalm", "llmbar"])
def test_a_studys_annotators_give_crowd_kits_figures(
    reference: Path, db: sqlite_utils.Database, case: str, model: str
) -> None:
    study = _import(db, reference, case)
    unblind(db, study, "coordinator")
    report = study_reliability(db, study, model=model, resamples=0)  # type: ignore[arg-type]
    expected = REFERENCE["cases"][case][model]
    assert report.iterations == expected["iterations"] and report.converged
    assert report.n_items == len(expected["probas"])
    assert report.n_labels == len(REFERENCE["cases"][case]["rows"])
    assert report.priors is not None
    assert report.priors == pytest.approx(expected["priors"], abs=TOLERANCE)
    # Items are the source's, in the source's own orientation (response 1, 2).
    assert {i.item: i.label for i in report.items} == expected["labels"]
    for item in report.items:
        assert item.posterior == pytest.approx(expected["probas"][item.item], abs=TOLERANCE)
    workers = {_worker(a.name, study): a for a in report.annotators}
    assert set(workers) == set(expected["errors"])
    for worker, annotator in workers.items():
        if model == "one-coin":
            assert annotator.accuracy == pytest.approx(expected["skills"][worker], abs=TOLERANCE)
            continue
        cells = {(c.label, c.category): c.value for c in annotator.confusion}
        for label, row in expected["errors"][worker].items():
            for k, value in row.items():
                assert cells[(label, k)] == pytest.approx(value, rel=RELATIVE)
        # A label the annotator never gave has probability 0 whatever the category.
        for (label, _k), value in cells.items():
            if label not in expected["errors"][worker]:
                assert value == 0
    kinds = {a.kind for a in report.annotators}
    assert kinds == ({"imported labels"} if case == "pandalm" else {"imported labels", "AI judge"})


def test_the_model_parts_from_the_gold_label_where_crowd_kit_does(
    reference: Path, db: sqlite_utils.Database
) -> None:
    study = _import(db, reference, "llmbar")
    unblind(db, study, "coordinator")
    report = study_reliability(db, study, resamples=0)
    gold = {r[0]: r[2] for r in REFERENCE["cases"]["llmbar"]["rows"] if r[1] == "label"}
    labels = REFERENCE["cases"]["llmbar"]["dawid-skene"]["labels"]
    assert report.reference == "the labels imported with the study (llmbar:label)"
    assert report.n_compared == 46
    assert report.parted == tuple(t for t in gold if labels[t] != gold[t])
    assert report.parted  # the gold label is not the model's on every item
    assert all(i.parts == (i.item in report.parted) for i in report.items)


def test_a_blind_study_withholds_priors_and_items_but_not_the_annotators(
    reference: Path, db: sqlite_utils.Database
) -> None:
    study = _import(db, reference, "llmbar")
    blind = study_reliability(db, study, resamples=0)
    assert blind.priors is None and blind.items == ()
    assert blind.withheld is not None and "unblind --study llmbar" in blind.withheld
    unblind(db, study, "coordinator")
    seen = study_reliability(db, study, resamples=0)
    assert seen.withheld is None and len(seen.items) == 46
    assert [a.accuracy for a in blind.annotators] == [a.accuracy for a in seen.annotators]
    assert blind.parted == seen.parted


def test_intervals_are_seeded_and_drawn_over_items(
    reference: Path, db: sqlite_utils.Database
) -> None:
    study = _import(db, reference, "llmbar")
    first = study_reliability(db, study, resamples=200, seed=5)
    again = study_reliability(db, study, resamples=200, seed=5)
    assert first.annotators == again.annotators
    for annotator in first.annotators:
        found = annotator.accuracy_interval
        assert found is not None and found.resamples == 200 and found.seed == 5
        assert 0 <= found.low <= found.high <= 1
        assert all(c.interval is not None for c in annotator.confusion)
    other = study_reliability(db, study, resamples=200, seed=6)
    assert [a.accuracy_interval for a in other.annotators] != [
        a.accuracy_interval for a in first.annotators
    ]


def _prefer(session: ReviewSession, code: str, side: str) -> Judgment:
    first = (side == "a") != flipped(session, code)
    choice = PreferenceChoice.RESPONSE_1 if first else PreferenceChoice.RESPONSE_2
    return Judgment(preference=choice, justification="Read both.")


def _llmbar_design(db: sqlite_utils.Database, reference: Path) -> int:
    import_paths(db, [reference / "llmbar-manual"], study="llmbar")
    return create_design(
        db,
        StudyDesign(
            study="llmbar",
            name="check",
            seed=2,
            tasks=[str(n) for n in range(12)],
            contrasts=[("response1", "response2")],
            reviewers=["ann", "bo"],
            reviewers_per_item=2,
        ),
    ).pk


def test_a_designs_reviewers_are_annotators_and_its_final_verdicts_the_comparison(
    reference: Path, db: sqlite_utils.Database
) -> None:
    pk = _llmbar_design(db, reference)
    for name in ("ann", "bo"):
        session = ReviewSession(db, pk, name)
        for row in session.queue():
            session.save(row.code, _prefer(session, row.code, "a"), 3.0, submit=True)
    unblind(db, "llmbar", "coordinator")
    report = study_reliability(db, "llmbar", resamples=0, viewer="coordinator")
    assert report.design == "check" and report.categories == ("a", "b")
    assert report.reference == "the final verdicts of design check v1"
    kinds = {a.name: a.kind for a in report.annotators}
    assert kinds["ann"] == kinds["bo"] == "reviewer"
    assert kinds["llmbar:label"] == "imported labels"
    assert kinds["GPT-4-Vanilla (original order)"] == "AI judge"
    # Every item's final verdict is run a (both reviewers preferred it): the model parts from
    # it exactly where its own label is b.
    assert report.n_items == report.n_compared == 12
    assert all(i.final == "a" for i in report.items)
    assert report.parted == tuple(i.item for i in report.items if i.label == "b")
    assert all(i.item.startswith("P-") for i in report.items)


def test_the_bootstrap_draws_with_the_designs_seed_unless_told(
    reference: Path, db: sqlite_utils.Database
) -> None:
    """As the agreement and the publication bundle draw theirs: one study, one set of figures."""
    pk = _llmbar_design(db, reference)  # seed 2
    for name in ("ann", "bo"):
        session = ReviewSession(db, pk, name)
        for i, row in enumerate(session.queue()):
            session.save(row.code, _prefer(session, row.code, "ab"[i % 2]), 3.0, submit=True)
    unblind(db, "llmbar", "coordinator")
    default = study_reliability(db, "llmbar", resamples=100, viewer="coordinator")
    assert default.seed == 2
    assert default == study_reliability(db, "llmbar", resamples=100, seed=2, viewer="coordinator")
    zero = study_reliability(db, "llmbar", resamples=100, seed=0, viewer="coordinator")
    assert zero.seed == 0 and zero.annotators != default.annotators  # other draws, other intervals


def test_a_reviewer_still_judging_sees_nothing_of_their_items(
    reference: Path, db: sqlite_utils.Database
) -> None:
    pk = _llmbar_design(db, reference)
    ann = ReviewSession(db, pk, "ann")
    rows = ann.queue()
    for row in rows[:5]:
        ann.save(row.code, _prefer(ann, row.code, "a"), 3.0, submit=True)
    unblind(db, "llmbar", "coordinator")
    report = study_reliability(db, "llmbar", resamples=0, viewer="ann")
    pending = {row.code for row in rows[5:]}
    assert report.items_held_back == len(pending) == 7
    shown = {i.item for i in report.items} | set(report.parted)
    assert not shown & pending
    assert report.n_items == 5
    assert reliability_lines(report)[1] == (
        "Seen by ann: 7 items held back from the model, until ann submits their own judgment "
        "of them."
    )
    coordinator = study_reliability(db, "llmbar", resamples=0, viewer="coordinator")
    assert coordinator.items_held_back == 0 and coordinator.n_items == 12


def test_one_annotator_or_one_category_is_refused() -> None:
    units = [Unit("1", ("x", "y")), Unit("2", ("u", "v"))]
    one = [
        PairLabel("ann", "reviewer", ("x", "y"), "x"),
        PairLabel("ann", "reviewer", ("u", "v"), "v"),
    ]
    with pytest.raises(AbpError, match="two or more annotators"):
        reliability(units, one, {}, sides=("a", "b"), reference="none")
    same = [PairLabel(name, "reviewer", ("x", "y"), "x") for name in ("ann", "bo")]
    with pytest.raises(AbpError, match="two or more categories"):
        reliability(units, same, {}, sides=("a", "b"), reference="none")


def _lines(result: Any) -> list[str]:
    return [line for line in result.err.splitlines() if line.strip()]


def test_the_command_prints_the_model_and_refuses_bad_input(
    reference: Path, cli: Cli, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli("import", reference / "llmbar-manual", "--study", "llmbar").code == 0
    shown = cli("reliability", "--study", "llmbar", "--resamples", "0")
    assert shown.code == 0, shown.err
    assert "Dawid-Skene over 46 items and 230 labels" in shown.out
    assert "GPT-4-Vanilla (swapped order)" in shown.out
    assert "withheld until" in shown.out
    # Blind: how often each annotator gives side a or b is withheld with the priors.
    assert "P(label | category)" not in shown.out and "accuracy" in shown.out
    document = json.loads(
        cli(
            "reliability", "--study", "llmbar", "--model", "one-coin", "--resamples", "0", "--json"
        ).out
    )
    assert document["model"] == "one-coin" and document["priors"] is None
    with pytest.raises(SystemExit) as usage:
        cli("reliability", "--study", "llmbar", "--model", "glad")
    assert usage.value.code == 2 and "--model" in capsys.readouterr().err
    for args, says in (
        (["--resamples", "5"], "--resamples"),
        (["--resamples", "100001"], "--resamples"),
        (["--seed", "-1"], "--seed"),
        (["--confidence", "1.5"], "--confidence"),
        (["--study", "nope"], "nope"),
    ):
        found = cli("reliability", *(["--study", "llmbar"] if "--study" not in args else []), *args)
        assert found.code == 1, (args, found.err)
        lines = _lines(found)
        assert len(lines) == 1 and says in lines[0] and "Traceback" not in found.err


def _section(app: Any) -> str:
    if not isinstance(app.screen, AgreementScreen):
        return ""
    return plain(app.screen.query_one("#reliability", Static).content, 160)


async def test_the_agreement_screen_shows_the_model_under_the_figures(
    tmp_path: Path, reference: Path
) -> None:
    db_path = tmp_path / "llmbar.db"
    db = connect(db_path)
    try:
        _import(db, reference, "llmbar")
    finally:
        db.close()
    (choice,) = design_choices(db_path, imported_labels=True)
    app = make_app(db_path, reviewer="carol")
    async with drive(app, (160, 45)) as pilot:
        await settle(pilot)
        await app.push_screen(AgreementScreen(db_path, choice))
        await settle(pilot)
        await until(pilot, lambda: "Dawid-Skene" in _section(app), "the reliability section")
        shown = _section(app)
        await settle(pilot)
    assert "Reliability beyond agreement" in shown
    assert "Dawid-Skene over 46 items and 230 labels" in shown
    assert "GPT-4-Vanilla (original order)" in shown and "llmbar:label" in shown
    assert "withheld until" in shown  # the study is blind: no priors, no item's posterior


def test_the_screens_section_says_why_there_is_no_model(tmp_path: Path) -> None:
    db_path = tmp_path / "one.db"
    path = tmp_path / "panda.json"
    rows = panda_pairs(4, [lambda i: 1 + i % 2])
    path.write_text(json.dumps(rows), "utf-8")
    db = connect(db_path)
    try:
        import_paths(db, [path], study="panda")
    finally:
        db.close()
    (choice,) = design_choices(db_path, imported_labels=True)
    lines = plain(reliability_section(db_path, choice, "carol")).splitlines()
    assert lines[-1] == (
        "No model of the annotators: reliability needs the labels of two or more annotators, "
        "found 1: judge the design, import labels or AI judges' verdicts"
    )
