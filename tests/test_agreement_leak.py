"""The agreement view never shows a reviewer other judgments of an item before their own.

The attack (issue 15): on a shared database, reviewers a and c have judged both items; b has
judged one and has the other still to do. Before, ``abp-tui agreement`` and the ``k`` screen
showed b the pair a x c over both items: a confusion matrix that held a's and c's judgments of
the item b was about to judge. Now every figure b is shown leaves that item out (and says so);
the coordinator, who reviews none of the items, still sees every item.
"""

from __future__ import annotations

import getpass
import json
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils
from textual.widgets import Static

from abp_tui.models import Judgment, PreferenceChoice, StudyDesign
from abp_tui.services.agreement_report import study_agreement
from abp_tui.services.designing import create_design
from abp_tui.services.importing import import_paths
from abp_tui.services.results_report import unblind
from abp_tui.services.reviewing import ReviewSession
from abp_tui.store import connect
from abp_tui.store import judging as sql
from abp_tui.store.judging import BlindingError
from abp_tui.tui.app import make_app
from abp_tui.tui.screens.agreement import AgreementScreen
from abp_tui.tui.screens.designs import open_review_screen
from tests.factories import Cli, afp_judgment, afp_study, flipped, judged_pairs, panda_pairs
from tests.tui_helpers import drive, rendered, settle, until


def _side(session: ReviewSession, code: str, side: str) -> PreferenceChoice:
    """The choice that prefers the item's run ``side`` as this reviewer sees the item."""
    first = (side == "a") != flipped(session, code)
    return PreferenceChoice.RESPONSE_1 if first else PreferenceChoice.RESPONSE_2


def _three_reviewers(tmp_path: Path, db: sqlite_utils.Database) -> tuple[int, str, str]:
    """Design m of study s judged by a, b and c on both items: a and c agree on the first
    item and disagree on the second (preference and scores); b submits the first and keeps a
    draft of the second. The study is unblinded by its coordinator, carol: the preference's
    counts are shown, and a pending reviewer is held back from them all the same. Returns the
    design's key, the submitted and the pending item."""
    afp_study(tmp_path, db)
    pk = create_design(
        db,
        StudyDesign(
            study="s",
            name="m",
            seed=3,
            contrasts=[("C", "A")],
            reviewers=["a", "b", "c"],
            reviewers_per_item=3,
        ),
    ).pk
    a, b, c = (ReviewSession(db, pk, name) for name in "abc")
    done, pending = sorted(r.code for r in a.queue())
    a.save(done, afp_judgment(2, 2, _side(a, done, "a")), 2, submit=True)
    c.save(done, afp_judgment(2, 2, _side(c, done, "a")), 2, submit=True)
    b.save(done, afp_judgment(2, 2, _side(b, done, "a")), 2, submit=True)
    a.save(pending, afp_judgment(2, 2, _side(a, pending, "a")), 2, submit=True)
    c.save(pending, afp_judgment(0, 1, _side(c, pending, "b")), 2, submit=True)
    b.save(pending, afp_judgment(1, 1, PreferenceChoice.TIE), 2, submit=False)
    unblind(db, "s", "carol")
    return pk, done, pending


def _pair(report: Any, variable: str, x: str, y: str) -> Any:
    (found,) = [v for v in report.variables if v.variable == variable]
    (pair,) = [p for p in found.pairs if {p.reviewer_a, p.reviewer_b} == {x, y}]
    return pair


def _off_diagonal(counts: Any) -> int:
    """Items on which the pair disagreed."""
    return sum(n for k, row in enumerate(counts) for m, n in enumerate(row) if k != m)


def test_the_store_rule_and_the_agreement_view_agree(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk, done, pending = _three_reviewers(tmp_path, db)
    b = ReviewSession(db, pk, "b")
    assert len(b.others(done)) == 2
    with pytest.raises(BlindingError):
        b.others(pending)
    coordinator = study_agreement(db, "s", pk, resamples=0)
    seen_by_b = study_agreement(db, "s", pk, resamples=0, viewer="b")
    # The coordinator sees a and c disagree on the pending item...
    everything = _pair(coordinator, "preference", "a", "c")
    assert everything.n_items == 2 and everything.percent_agreement.value == 0.5
    assert _off_diagonal(everything.confusion.counts) == 1
    # ...b sees nothing of it: a x c over the one item b has submitted, where they agree.
    shown = _pair(seen_by_b, "preference", "a", "c")
    assert shown.n_items == 1 and shown.confusion.counts[0][0] == 1
    assert _off_diagonal(shown.confusion.counts) == 0
    assert (seen_by_b.viewer, seen_by_b.items_held_back) == ("b", 1)
    for variable in seen_by_b.variables:
        # No figure counts a judgment of the pending item: one item (or its two runs).
        assert variable.n_items_judged <= (1 if variable.variable == "preference" else 2)

    # c's 0 on the pending item is in the coordinator's a x c matrix, in no figure b sees.
    def zeros(report: Any) -> int:
        counts = _pair(report, "dimension:task_correctness", "a", "c").confusion.counts
        return int(sum(counts[0]) + sum(row[0] for row in counts))

    assert zeros(coordinator) == 1 and zeros(seen_by_b) == 0
    # Once b submits, the item counts for b too.
    b.save(pending, afp_judgment(1, 1, PreferenceChoice.TIE), 2, submit=True)
    after = study_agreement(db, "s", pk, resamples=0, viewer="b")
    assert after.items_held_back == 0
    assert _pair(after, "preference", "a", "c") == everything


def test_a_reviewer_of_none_of_the_items_sees_the_coordinators_view(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk, _done, _pending = _three_reviewers(tmp_path, db)
    assert study_agreement(db, "s", pk, resamples=0, viewer="carol") == study_agreement(
        db, "s", pk, resamples=0, viewer=None
    ).model_copy(update={"viewer": "carol"})
    # a has submitted both items: nothing is held back from a either.
    assert study_agreement(db, "s", pk, resamples=0, viewer="a").items_held_back == 0


def test_the_pending_reviewer_running_agreement_sees_no_value_of_their_item(
    tmp_path: Path, db: sqlite_utils.Database, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    pk, _done, _pending = _three_reviewers(tmp_path, db)
    target = tmp_path / "test.db"
    # b runs the command as themselves, logged in as b: no option to forget.
    monkeypatch.setattr(getpass, "getuser", lambda: "b")
    found = cli("agreement", "--db", target, "--json", "--resamples", "0")
    assert found.code == 0, found.err
    document = json.loads(found.out)
    assert (document["viewer"], document["items_held_back"]) == ("b", 1)
    (preference,) = [v for v in document["variables"] if v["variable"] == "preference"]
    (ac,) = [p for p in preference["pairs"] if {p["reviewer_a"], p["reviewer_b"]} == {"a", "c"}]
    assert ac["n_items"] == 1 and _off_diagonal(ac["confusion"]["counts"]) == 0
    text = cli("agreement", "--db", target, "--resamples", "0")
    assert "Seen by b: 1 item of this design held back from every figure" in text.out
    # Naming yourself does the same; the coordinator (no item to judge) sees both items.
    named = json.loads(cli("agreement", "--db", target, "--json", "--reviewer", "b").out)
    assert named["items_held_back"] == 1
    coordinator = json.loads(
        cli("agreement", "--db", target, "--json", "--resamples", "0", "--reviewer", "carol").out
    )
    (preference,) = [v for v in coordinator["variables"] if v["variable"] == "preference"]
    (ac,) = [p for p in preference["pairs"] if {p["reviewer_a"], p["reviewer_b"]} == {"a", "c"}]
    assert ac["n_items"] == 2 and _off_diagonal(ac["confusion"]["counts"]) == 1
    assert coordinator["items_held_back"] == 0
    refused = cli("agreement", "--db", target, "--reviewer", " ")
    assert refused.code == 1 and "reviewer: expected a name" in refused.err
    assert pk


@pytest.mark.parametrize(("reviewer", "items"), [("b", 1), ("carol", 2)])
async def test_the_k_screen_holds_back_the_pending_item(
    tmp_path: Path, reviewer: str, items: int
) -> None:
    db_path = tmp_path / "shared.db"
    db = connect(db_path)
    try:
        _three_reviewers(tmp_path, db)
    finally:
        db.close()
    app = make_app(db_path, reviewer=reviewer)
    async with drive(app, (160, 45)) as pilot:
        await settle(pilot)
        open_review_screen(app, db_path, reviewer, "agreement")
        await until(pilot, lambda: getattr(app.screen, "shown", None) is not None, "agreement")
        screen = app.screen
        assert isinstance(screen, AgreementScreen) and screen.shown is not None
        report = screen.shown.report
        assert report.viewer == reviewer and report.items_held_back == 2 - items
        assert _pair(report, "preference", "a", "c").n_items == items
        index = [v.variable for v in screen.shown.variables].index("preference")
        detail = rendered(screen.shown.details[index])
        assert "a × c" in detail
        summary = rendered(screen.query_one("#agreement-summary", Static).content)
        if items == 1:
            assert "Seen by b: 1 item of this design held back from every figure" in summary
        else:
            assert "Seen by carol: every item counts" in summary


def test_imported_labels_of_a_pending_item_reach_no_figure(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    # Four labelled pairs; only the last is labelled a tie, by both annotators.
    source = [
        {
            "idx": i,
            "instruction": f"Summarise note {i}.",
            "response1": f"Summary one of note {i}.",
            "response2": f"Summary two of note {i}.",
            "cmp_key": "m1_m2",
            "annotator1": 0 if i == 3 else 1 + i % 2,
            "annotator2": 0 if i == 3 else 2,
        }
        for i in range(4)
    ]
    path = tmp_path / "panda.json"
    path.write_text(json.dumps(source), "utf-8")
    import_paths(db, [path], study="panda")
    pk = create_design(
        db,
        StudyDesign(
            study="panda",
            name="again",
            seed=4,
            contrasts=[("m2", "m1")],
            reviewers=["ann", "bo"],
            reviewers_per_item=2,
        ),
    ).pk
    ann, bo = ReviewSession(db, pk, "ann"), ReviewSession(db, pk, "bo")
    tie_item = next(i.code for i in sql.items(db, pk) if i.task == "3")
    for row in ann.queue():
        ann.save(
            row.code,
            Judgment(preference=_side(ann, row.code, "a"), justification="Read both."),
            2,
            submit=True,
        )
    for row in bo.queue():
        if row.code != tie_item:
            bo.save(
                row.code,
                Judgment(preference=_side(bo, row.code, "b"), justification="Read both."),
                2,
                submit=True,
            )
    unblind(db, "panda", "carol")  # the preference's counts are shown once unblinded

    def ties(report: Any) -> int:
        """Tie labels counted anywhere: ann against each label set, the labels among
        themselves."""
        matrices = [r.pair.confusion for r in report.references]
        matrices += [p.confusion for p in report.label_agreement.pairs]
        return sum(
            n
            for m in matrices
            for k, row in enumerate(m.counts)
            for j, n in enumerate(row)
            if "tie" in (m.categories[k], m.categories[j])
        )

    coordinator = study_agreement(db, "panda", pk, resamples=0)
    assert ties(coordinator) > 0 and coordinator.label_agreement is not None
    assert coordinator.label_agreement.n_items == 4
    seen_by_bo = study_agreement(db, "panda", pk, resamples=0, viewer="bo")
    assert ties(seen_by_bo) == 0
    assert (seen_by_bo.items_held_back, seen_by_bo.labels_held_back) == (1, 1)
    assert seen_by_bo.label_agreement is not None and seen_by_bo.label_agreement.n_items == 3
    assert [s.n_held_back for s in seen_by_bo.label_sets] == [1, 1]
    assert {r.pair.n_items for r in seen_by_bo.references if r.reviewer == "ann"} == {3}


async def test_a_blind_study_shows_no_count_of_picks_by_side(tmp_path: Path, cli: Cli) -> None:
    """Side a is always the contrast's first condition: while the study is blind the
    preference's confusion matrices (between reviewers, against the imported labels) would
    say which condition the reviewers favour. The command, its document and the screen keep
    every figure and withhold the counts; once unblinded the counts are there."""
    db = connect(cli.db_path)
    try:
        judged_pairs(db, tmp_path, 30)  # ann, bo and cy, two to an item, labelled by three
    finally:
        db.close()
    doc = json.loads(cli("agreement", "--json", "--resamples", "0").out)
    (preference,) = [v for v in doc["variables"] if v["variable"] == "preference"]
    assert preference["pairs"] and doc["references"]
    for pair in [*preference["pairs"], *(r["pair"] for r in doc["references"])]:
        assert pair["confusion"] is None
    assert preference["pairs"][0]["percent_agreement"]["value"] is not None
    # The labels among themselves are imported, not blind: their counts stay.
    assert all(p["confusion"]["counts"] for p in doc["label_agreement"]["pairs"])
    text = cli("agreement", "--resamples", "0").out
    assert "counts withheld while the study is blind" in " ".join(text.split())
    app = make_app(cli.db_path, reviewer="coordinator")
    async with drive(app, (160, 45)) as pilot:
        await settle(pilot)
        open_review_screen(app, cli.db_path, "coordinator", "agreement")
        await until(pilot, lambda: getattr(app.screen, "shown", None) is not None, "agreement")
        screen = app.screen
        assert isinstance(screen, AgreementScreen) and screen.shown is not None
        index = [v.variable for v in screen.shown.variables].index("preference")
        detail = " ".join(rendered(screen.shown.details[index]).split())
        assert "Heat maps: counts withheld while the study is blind" in detail

    assert cli("unblind", "--study", "panda", "--yes").code == 0
    doc = json.loads(cli("agreement", "--json", "--resamples", "0").out)
    (preference,) = [v for v in doc["variables"] if v["variable"] == "preference"]
    for pair in preference["pairs"]:
        assert sum(map(sum, pair["confusion"]["counts"])) == pair["n_items"] > 0
    assert all(r["pair"]["confusion"]["counts"] for r in doc["references"])


def test_a_blind_study_names_no_side_in_a_figures_reason(tmp_path: Path, cli: Cli) -> None:
    """Every reviewer preferred side b: kappa is undefined, and its reason said so by name
    ("both reviewers used only 'b'"); while blind it says "one side", the figures unchanged."""
    source = tmp_path / "panda.json"
    source.write_text(json.dumps(panda_pairs(6, (lambda i: 1,))), "utf-8")
    db = connect(cli.db_path)
    try:
        import_paths(db, [source], study="panda")
        design = StudyDesign(
            study="panda",
            name="pairs",
            seed=7,
            contrasts=[("m2", "m1")],
            reviewers=["ann", "bo"],
            reviewers_per_item=2,
        )
        pk = create_design(db, design).pk
        for reviewer in ("ann", "bo"):
            session = ReviewSession(db, pk, reviewer)
            for row in session.queue():
                choice = _side(session, row.code, "b")
                judgment = Judgment(preference=choice, justification="Read both.")
                session.save(row.code, judgment, 2, submit=True)
    finally:
        db.close()
    blind = cli("agreement", "--json", "--resamples", "0").out
    doc = json.loads(blind)
    (preference,) = [v for v in doc["variables"] if v["variable"] == "preference"]
    (pair,) = preference["pairs"]
    assert pair["cohen_kappa"]["undefined_reason"].endswith("(both reviewers used only one side)")
    assert "'b'" not in blind and "'a'" not in blind
    assert pair["percent_agreement"]["value"] == 1.0
    assert cli("unblind", "--study", "panda", "--yes").code == 0
    shown = json.loads(cli("agreement", "--json", "--resamples", "0").out)
    (preference,) = [v for v in shown["variables"] if v["variable"] == "preference"]
    assert preference["pairs"][0]["cohen_kappa"]["undefined_reason"].endswith("only 'b')")
