"""What a reviewer with items still to judge could learn of the others' judgments of them.

The holes: reviewer alice, with nothing submitted, opened the disagreement queue (``a`` in the
workstation) and saw which of her own pending items bob and carol disagreed on ("open, 2
reviewers"), the items they agreed on missing from it; and once the study was unblinded,
``results`` was refused to her but ``export judgments`` wrote bob's and carol's judgments of her
pending items, rationales included, while ``abp-tui --reviewer alice results`` ignored the name
given before the command. Now the queue holds those items back (the summary says how many), every
export is refused as the results are, and ``--reviewer NAME`` before or after any command is who
looks.
"""

from __future__ import annotations

import getpass
from pathlib import Path

import pytest
import sqlite_utils

from abp_tui.cli import build_parser
from abp_tui.models import PreferenceChoice, StudyDesign
from abp_tui.services.coordinator import disagreement_queue
from abp_tui.services.designing import create_design
from abp_tui.services.results_report import unblind
from abp_tui.services.reviewing import ReviewSession
from abp_tui.store.coordinator_views import views_by
from abp_tui.tui.app import make_app
from abp_tui.tui.screens.disagreements import DisagreementsScreen
from tests.factories import Cli, afp_judgment, afp_study, flipped
from tests.tui_helpers import drive, press, screen_text, settle

ALICE_PENDING = (
    "abp-tui: alice has 2 items of study s not submitted yet (in design m v1): the results count "
    "the other reviewers' judgments of them, so they are held back from alice until they submit "
    "their own\n"
)
RATIONALE = "Bob's reasoning about the evidence"


def _bob_and_carol_judged(tmp_path: Path, db: sqlite_utils.Database) -> tuple[int, list[str]]:
    """Design m of study s (C vs A): alice, bob and carol judge both items. bob and carol
    disagree on the first (opposite runs preferred, scores 2 against 0) and agree on the second;
    alice has submitted nothing. Unblinded."""
    afp_study(tmp_path, db)
    design = StudyDesign(
        study="s",
        name="m",
        seed=3,
        contrasts=[("C", "A")],
        reviewers=["alice", "bob", "carol"],
        reviewers_per_item=3,
    )
    pk = create_design(db, design).pk
    bob, carol = ReviewSession(db, pk, "bob"), ReviewSession(db, pk, "carol")
    codes = sorted(r.code for r in bob.queue())
    assert len(codes) == 2 and len(ReviewSession(db, pk, "alice").queue()) == 2
    same = flipped(bob, codes[0]) == flipped(carol, codes[0])
    other = PreferenceChoice.RESPONSE_2 if same else PreferenceChoice.RESPONSE_1
    judged = afp_judgment(2, 2, PreferenceChoice.RESPONSE_1)
    responses = {
        key: response.model_copy(update={"rationales": {"task_correctness": RATIONALE}})
        for key, response in judged.responses.items()
    }
    bob.save(codes[0], judged.model_copy(update={"responses": responses}), 5, submit=True)
    carol.save(codes[0], afp_judgment(0, 0, other), 5, submit=True)
    for session in (bob, carol):
        session.save(codes[1], afp_judgment(2, 2, PreferenceChoice.TIE), 5, submit=True)
    unblind(db, "s", "coordinator")
    return pk, codes


# -- the disagreement queue -----------------------------------------------------------------------
def test_the_queue_holds_back_the_items_alice_still_has_to_judge(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk, codes = _bob_and_carol_judged(tmp_path, db)
    db_path = tmp_path / "test.db"
    alice = disagreement_queue(db_path, pk, "alice")
    # Nothing of her pending items: neither the disputed one nor the verdict sources.
    assert (alice.rows, alice.verdict_sources, alice.held_back) == ((), {}, 2)
    # The coordinator (dave reviews nothing) sees the dispute and every source.
    dave = disagreement_queue(db_path, pk, "dave")
    assert [(r.code, r.reviewers, r.refused) for r in dave.rows] == [(codes[0], 2, "")]
    assert "preferences conflict" in dave.rows[0].reasons
    assert dave.held_back == 0 and sum(dave.verdict_sources.values()) == 4
    # Once alice has submitted the first item, it is hers to see (not to adjudicate).
    ReviewSession(db, pk, "alice").save(
        codes[0], afp_judgment(1, 1, PreferenceChoice.TIE), 5, submit=True
    )
    after = disagreement_queue(db_path, pk, "alice")
    assert [r.code for r in after.rows] == [codes[0]] and after.held_back == 1
    assert after.rows[0].refused.startswith("alice reviewed")


async def test_pressing_a_shows_alice_no_disagreement_of_her_pending_items(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    _pk, codes = _bob_and_carol_judged(tmp_path, db)
    app = make_app(tmp_path / "test.db", reviewer="alice")
    async with drive(app, (160, 45)) as pilot:
        await settle(pilot)
        await press(pilot, "a")
        assert isinstance(app.screen, DisagreementsScreen)
        await settle(pilot)
        text = screen_text(pilot)
        assert codes[0] not in text and codes[1] not in text
        assert "2 reviewers" not in text and "preferences conflict" not in text
        assert "0 disagreements" in text
        assert "2 items of this design held back: alice still has them" in text
        assert "No disagreement among the items shown" in text
        assert "every item judged by two or more reviewers agrees" not in text
        assert "No final verdict among the items shown yet." in text and "(of 0" not in text


# -- exports and results --------------------------------------------------------------------------
@pytest.mark.parametrize("what", ["judgments", "verdicts", "abp-verdict", "bundle"])
def test_every_export_is_refused_to_alice_as_the_results_are(
    tmp_path: Path, db: sqlite_utils.Database, cli: Cli, what: str
) -> None:
    _bob_and_carol_judged(tmp_path, db)
    target, out = tmp_path / "test.db", tmp_path / f"out-{what}"
    for argv in (
        ("--reviewer", "alice", "export", what),
        ("export", what, "--reviewer", "alice"),
        ("export", what, "--by", "alice"),
    ):
        refused = cli(*argv, "--db", target, "--out", out)
        assert (refused.code, refused.out, refused.err) == (1, "", ALICE_PENDING), argv
        assert not out.exists() and not out.with_suffix(".zip").exists()
    assert views_by(db, "s", "alice") == []
    # dave, who reviews nothing, exports; his look is recorded like any coordinator's.
    shown = cli("--reviewer", "dave", "export", what, "--db", target, "--out", out)
    assert shown.code == 0, shown.err
    assert [v.figure for v in views_by(db, "s", "dave")] == ["exports"]


def test_the_judgments_export_held_bobs_rationale_of_alices_item(
    tmp_path: Path, db: sqlite_utils.Database, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    _bob_and_carol_judged(tmp_path, db)
    target, out = tmp_path / "test.db", tmp_path / "judgments.csv"
    monkeypatch.setattr(getpass, "getuser", lambda: "alice")
    assert cli("export", "judgments", "--db", target, "--out", out).code == 1
    assert not out.exists()
    monkeypatch.setattr(getpass, "getuser", lambda: "dave")
    assert cli("export", "judgments", "--db", target, "--out", out).code == 0
    assert RATIONALE in out.read_text(encoding="utf-8")


def test_reviewer_before_the_command_is_who_looks_at_the_results(
    tmp_path: Path, db: sqlite_utils.Database, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    _bob_and_carol_judged(tmp_path, db)
    target = tmp_path / "test.db"
    monkeypatch.setattr(getpass, "getuser", lambda: "dave")
    for argv in (("--reviewer", "alice", "results"), ("results", "--reviewer", "alice")):
        refused = cli(*argv, "--db", target)
        assert (refused.code, refused.out, refused.err) == (1, "", ALICE_PENDING), argv
    assert cli("results", "--db", target).code == 0  # dave, the user logged in


def test_every_command_takes_reviewer_before_or_after_it(
    tmp_path: Path, db: sqlite_utils.Database, cli: Cli
) -> None:
    _bob_and_carol_judged(tmp_path, db)
    target = tmp_path / "test.db"
    # Once, for all commands: each accepts it on either side (and pack study still needs it).
    assert cli("status", "--reviewer", "alice", "--db", target).code == 0
    assert cli("--reviewer", "alice", "status", "--db", target).code == 0
    out = tmp_path / "alice.pack.json"
    made = cli("--reviewer", "alice", "pack", "study", "--db", target, "--out", out)
    assert made.code == 0, made.err
    assert "for alice" in made.out
    with pytest.raises(SystemExit) as missing:
        cli("pack", "study", "--db", target, "--out", out)
    assert missing.value.code == 2
    # The workstation too: a name before `tui` is no longer dropped by the command's own option.
    parser = build_parser()
    for argv in (["--reviewer", "alice", "tui"], ["tui", "--reviewer", "alice"]):
        assert parser.parse_args(argv).reviewer == "alice", argv


def test_common_options_are_taken_between_a_command_and_its_action() -> None:
    """``abp-tui study --db X list`` names the database as ``abp-tui study list --db X`` does
    (the group's parser refused it as an unknown action)."""
    parser = build_parser()
    groups = (("study", "list"), ("stats", "wilson", "3", "10"), ("team", "list"))
    for group, action, *rest in groups:
        argv = [group, "--db", "x.db", "--reviewer", "alice", action, *rest]
        args = parser.parse_args(argv)
        assert args.db == "x.db" and args.reviewer == "alice", argv
