"""Adjudication that is independent of the judgments it settles, and readable.

On the reference MT-Bench run (phi-3 against phi-3-dpo, question 81) bob and carol saw the pair
in opposite placements and each preferred what they saw as Response 1, in their own words. The
holes: bob, a reviewer of the item, could adjudicate his own dispute; and the adjudicator read
"Response 2 is better" beside bob's "Response 1 follows the outline format more closely", since
the pick was re-mapped to the adjudication screen's placement and the words could not be. Now a
reviewer of an item is refused its adjudication (in the core and on screen, in one line), a design
may name its adjudicators, and each reviewer's column says which way they saw the pair, gives a
swapped reviewer's pick in their own terms too, and heads their words with the mapping.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sqlite_utils
from rich.table import Table

from abp_tui.models import Judgment, PreferenceChoice, StudyDesign
from abp_tui.services.adjudicating import NotAnAdjudicator, adjudicate
from abp_tui.services.adjudication_transcripts import adjudication_transcripts
from abp_tui.services.coordinator import disagreement_queue, open_adjudication
from abp_tui.services.designing import create_design
from abp_tui.services.importing import import_paths
from abp_tui.services.reviewing import ReviewSession
from abp_tui.tui.app import make_app
from abp_tui.tui.screens.adjudicate import AdjudicationScreen
from abp_tui.tui.screens.disagreements import DisagreementsScreen
from abp_tui.tui.widgets.judgments_table import judgments_table
from tests.factories import Cli, afp_study, flipped
from tests.tui_helpers import drive, plain, press, screen_text, settle

BOB_WORDS = "Response 1 follows the outline format more closely"
CAROL_WORDS = "Response 1 answers the question more directly"


def _mtbench_dispute(
    reference: Path, db: sqlite_utils.Database, adjudicators: list[str] | None = None
) -> tuple[int, str]:
    """MT-Bench question 81 as a preference-only design judged by bob and carol, who saw the
    pair in opposite placements, each preferring their own Response 1 (so, opposite runs); bob
    submitted first. The design's pk and the item's code."""
    import_paths(db, [reference / "mt-bench"])
    design = StudyDesign(
        study="mt-bench",
        name="pref",
        seed=7,
        rubric="none",
        tasks=["81"],
        contrasts=[("phi-3", "phi-3-dpo")],
        reviewers=["bob", "carol"],
        reviewers_per_item=2,
        **({"adjudicators": adjudicators} if adjudicators else {}),
    )
    pk = create_design(db, design).pk
    bob, carol = ReviewSession(db, pk, "bob"), ReviewSession(db, pk, "carol")
    (code,) = [r.code for r in bob.queue()]
    assert flipped(bob, code) != flipped(carol, code)
    for session, words in ((bob, BOB_WORDS), (carol, CAROL_WORDS)):
        judgment = Judgment(preference=PreferenceChoice.RESPONSE_1, justification=words)
        session.save(code, judgment, 30, submit=True)
    return pk, code


def _placement(db: sqlite_utils.Database, reviewer: str) -> dict[str, int]:
    row = db.execute("SELECT placement FROM judgments WHERE reviewer = ?", [reviewer]).fetchone()
    return {k: int(v) for k, v in json.loads(row[0]).items()}


# -- who may adjudicate ---------------------------------------------------------------------------
def test_a_reviewer_of_the_item_cannot_adjudicate_it(
    reference: Path, tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk, code = _mtbench_dispute(reference, db)
    db_path = tmp_path / "test.db"
    refused = f"bob reviewed {code}: they cannot adjudicate it"
    with pytest.raises(NotAnAdjudicator, match=refused):
        open_adjudication(db_path, pk, code, "bob")
    final = Judgment(preference=PreferenceChoice.TIE, justification="Both are fine.")
    runs = _placement(db, "bob")
    with pytest.raises(NotAnAdjudicator, match=refused):
        adjudicate(db, pk, code, "bob", final, runs, "my own dispute")
    with pytest.raises(NotAnAdjudicator, match=refused):
        adjudication_transcripts(db_path, pk, code, "bob", runs)
    assert db.execute("SELECT COUNT(*) FROM adjudications").fetchone()[0] == 0
    (row,) = disagreement_queue(db_path, pk, "carol").rows
    assert row.refused.startswith(f"carol reviewed {code}")
    # Anyone else may (the design names no adjudicators).
    assert adjudicate(db, pk, code, "dave", final, runs, "Both meet the request.") == 1


def test_a_design_that_names_its_adjudicators_is_adjudicated_by_them_alone(
    reference: Path, tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk, code = _mtbench_dispute(reference, db, adjudicators=["lead"])
    final = Judgment(preference=PreferenceChoice.TIE, justification="Both are fine.")
    runs = _placement(db, "bob")
    with pytest.raises(
        NotAnAdjudicator,
        match=r"design pref v1 names its adjudicators \(lead\): dave is not one of them",
    ):
        adjudicate(db, pk, code, "dave", final, runs, "note")
    with pytest.raises(NotAnAdjudicator):
        open_adjudication(tmp_path / "test.db", pk, code, "dave")
    assert adjudicate(db, pk, code, "lead", final, runs, "Both meet the request.") == 1


def test_the_adjudicators_are_left_out_of_a_design_that_names_none() -> None:
    # A design written before the option keeps its document, so its hash.
    bare = StudyDesign(study="s", name="m", seed=1)
    assert "adjudicators" not in bare.model_dump(mode="json")
    named = StudyDesign(study="s", name="m", seed=1, adjudicators=["lead"])
    assert named.model_dump(mode="json")["adjudicators"] == ["lead"]
    with pytest.raises(ValueError, match="adjudicator 'lead' is listed twice"):
        StudyDesign(study="s", name="m", seed=1, adjudicators=["lead", "lead"])


# -- reading the reviewers' words -----------------------------------------------------------------
def _column(table: Table, index: int) -> str:
    column = table.columns[index]
    return "\n".join([plain(column.header), *(plain(cell) for cell in column.cells)])


def test_each_reviewers_pick_and_words_share_one_frame(
    reference: Path, tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk, code = _mtbench_dispute(reference, db)
    item = open_adjudication(tmp_path / "test.db", pk, code, "dave")
    bob_runs = _placement(db, "bob")
    # The screen is the reverse of bob's placement: bob's Response 1 is its Response 2.
    assert item.placement == {"1": bob_runs["2"], "2": bob_runs["1"]}
    assert item.seen_swapped == (True, False)
    bob, carol = (r.judgment for r in item.reviewers)
    assert bob.preference == PreferenceChoice.RESPONSE_2
    assert carol.preference == PreferenceChoice.RESPONSE_1
    table = judgments_table(item, show_names=False)
    bob_column, carol_column = _column(table, 1), _column(table, 2)
    assert "Reviewer 1\nsaw Response 1 and 2 swapped" in bob_column
    assert "Response 2 is better\n(their Response 1, as they saw it)" in bob_column
    assert "(their 1 is 2 here) " + BOB_WORDS in bob_column
    assert "Reviewer 2\nsaw Response 1 and 2 as here" in carol_column
    assert "Response 1 is better" in carol_column and CAROL_WORDS in carol_column
    assert "their" not in carol_column


async def test_the_adjudication_screen_shows_each_reviewer_in_their_frame(
    reference: Path, tmp_path: Path, db: sqlite_utils.Database
) -> None:
    _pk, code = _mtbench_dispute(reference, db)
    app = make_app(tmp_path / "test.db", reviewer="dave")
    async with drive(app, (160, 45)) as pilot:
        await settle(pilot)
        await press(pilot, "a")
        assert isinstance(app.screen, DisagreementsScreen)
        await settle(pilot)
        await press(pilot, "enter")
        screen = app.screen
        assert isinstance(screen, AdjudicationScreen) and screen.item is not None
        assert screen.code == code
        text = screen_text(pilot)
        assert "saw Response 1 and 2 swapped" in text and "saw Response 1 and 2 as here" in text
        assert "(their Response 1, as they saw it)" in text
        assert "(their 1 is 2 here)" in text and BOB_WORDS in text
        # p fills the form from Reviewer 1: their words keep their frame in the final judgment.
        await press(pilot, "p")
        assert screen.final.preference == PreferenceChoice.RESPONSE_2
        assert screen.final.justification == (
            "[Reviewer 1, who saw Response 1 and 2 swapped (their words: their Response 1 is "
            f"Response 2 here, their 2 is 1 here):] {BOB_WORDS}"
        )


async def test_the_screen_refuses_bob_his_own_dispute_in_one_line(
    reference: Path, tmp_path: Path, db: sqlite_utils.Database
) -> None:
    _pk, code = _mtbench_dispute(reference, db)
    app = make_app(tmp_path / "test.db", reviewer="bob")
    async with drive(app, (160, 45)) as pilot:
        await settle(pilot)
        await press(pilot, "a")
        assert isinstance(app.screen, DisagreementsScreen)
        await settle(pilot)
        listed = screen_text(pilot)
        assert "not yours to adjudicate: bob reviewed" in listed
        # One clause in the list (it wrapped over six lines at 80 columns); the why on opening.
        assert "an adjudication settles" not in listed
        await press(pilot, "enter")
        screen = app.screen
        assert isinstance(screen, AdjudicationScreen)
        await settle(pilot)
        assert screen.item is None
        text = screen_text(pilot)
        assert f"Refused: bob reviewed {code}: they cannot adjudicate it" in text
        assert "Ask another person to adjudicate it." in text
        assert CAROL_WORDS not in text
        await press(pilot, "s")
    assert db.execute("SELECT COUNT(*) FROM adjudications").fetchone()[0] == 0


def test_study_create_names_the_adjudicators(
    tmp_path: Path, db: sqlite_utils.Database, cli: Cli
) -> None:
    afp_study(tmp_path, db)
    target = tmp_path / "test.db"
    made = cli("study", "create", "--db", target, "--name", "m", "--adjudicators", "lead, dee")
    assert made.code == 0, made.err
    document = db.execute("SELECT document FROM designs WHERE name = 'm'").fetchone()[0]
    assert json.loads(document)["adjudicators"] == ["lead", "dee"]
    # Without the option the design names none, and its document has no such key.
    assert cli("study", "create", "--db", target, "--name", "n").code == 0
    document = db.execute("SELECT document FROM designs WHERE name = 'n'").fetchone()[0]
    assert "adjudicators" not in json.loads(document)


def _designs(db: sqlite_utils.Database) -> list[str]:
    return [row[0] for row in db.execute("SELECT name FROM designs ORDER BY pk")]


@pytest.mark.parametrize(
    ("option", "names", "said"),
    [
        ("--reviewers", "ann,bo,ann", "reviewers: reviewer 'ann' is listed twice"),
        ("--reviewers", "ann, ann", "reviewers: reviewer 'ann' is listed twice"),
        ("--adjudicators", "lead,dee,lead", "adjudicators: adjudicator 'lead' is listed twice"),
    ],
)
def test_study_create_refuses_a_name_listed_twice_naming_it(
    tmp_path: Path, db: sqlite_utils.Database, cli: Cli, option: str, names: str, said: str
) -> None:
    """A name typed twice is a slip to say, not to drop: the design would not be the one
    meant (one reviewer fewer on every item)."""
    afp_study(tmp_path, db)
    done = cli("study", "create", "--db", tmp_path / "test.db", "--rubric", "none", option, names)
    assert done.code == 1, done.out
    [line] = done.err.splitlines()
    assert said in line
    assert _designs(db) == []


def test_a_design_file_listing_a_reviewer_twice_is_refused_naming_it(
    tmp_path: Path, db: sqlite_utils.Database, cli: Cli
) -> None:
    afp_study(tmp_path, db)
    design = tmp_path / "d.toml"
    design.write_text('study = "s"\nname = "m"\nseed = 1\nreviewers = ["ann", "bo", "ann"]\n')
    done = cli("study", "create", "--db", tmp_path / "test.db", design)
    assert done.code == 1
    assert "d.toml" in done.err and "reviewer 'ann' is listed twice" in done.err
    assert _designs(db) == []


def test_an_adjudicator_who_reviews_every_item_is_refused(
    tmp_path: Path, db: sqlite_utils.Database, cli: Cli
) -> None:
    """Nobody adjudicates an item they reviewed: an adjudicator the design gives every item
    could adjudicate none of its disagreements, so naming them is refused, file or choices."""
    afp_study(tmp_path, db)
    target = tmp_path / "test.db"
    done = cli(
        "study", "create", "--db", target, "--rubric", "none",
        "--reviewers", "ann,bo", "--adjudicators", "ann",
    )  # fmt: skip
    assert done.code == 1, done.out
    [line] = done.err.splitlines()
    assert "adjudicators: 'ann' also reviews every item of this design" in line
    assert "can adjudicate none" in line
    design = tmp_path / "d.toml"
    design.write_text(
        'study = "s"\nname = "m"\nseed = 1\nrubric = "none"\nreviewers = ["ann", "bo"]\n'
        'reviewers_per_item = 2\nadjudicators = ["lead", "bo"]\n'
    )
    done = cli("study", "create", "--db", target, design)
    assert done.code == 1
    assert "d.toml" in done.err and "'bo' also reviews every item" in done.err
    assert _designs(db) == []
    # An adjudicator who reviews nothing is what the rule asks for.
    fine = cli(
        "study", "create", "--db", target, "--rubric", "none",
        "--reviewers", "ann,bo", "--adjudicators", "lead",
    )  # fmt: skip
    assert fine.code == 0, fine.err
    assert "adjudicat" not in fine.out


def test_an_adjudicator_who_reviews_some_items_is_warned_about(
    tmp_path: Path, db: sqlite_utils.Database, cli: Cli
) -> None:
    """Four reviewers, two on each of the two items: ann reviews one item and may adjudicate
    the other only. The warning says so, and counts the items nobody listed could settle."""
    afp_study(tmp_path, db)
    target = tmp_path / "test.db"
    base = ("study", "create", "--db", target, "--rubric", "none")
    spread = ("--reviewers", "ann,bo,cy,dee", "--reviewers-per-item", "2")
    alone = cli(*base, "--name", "alone", *spread, "--adjudicators", "ann")
    assert alone.code == 0, alone.err
    assert (
        "warning: adjudicator 'ann' is also a reviewer: adjudicates only the items 'ann' did "
        "not review; 1 item judged by several reviewers, every listed adjudicator among them: "
        "a disagreement there can be adjudicated by nobody"
    ) in alone.out
    helped = cli(*base, "--name", "helped", *spread, "--adjudicators", "ann,lead")
    assert helped.code == 0, helped.err
    assert "adjudicator 'ann' is also a reviewer" in helped.out
    assert "adjudicated by nobody" not in helped.out  # lead can settle every item
    assert _designs(db) == ["alone", "helped"]
