"""Designs and the reviewer session: freeze, versions, drafts, submissions, revisions, blinding."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sqlite_utils

from abp_tui.errors import AbpError
from abp_tui.models import Judgment, PreferenceChoice, ResponseJudgment, ResultState, StudyDesign
from abp_tui.services.designing import create_design, find_design, load_design_file
from abp_tui.services.reviewing import NotReady, ReviewSession
from abp_tui.store.judging import BlindingError
from tests.factories import AFP_DIMS, afp_study, full_judgment, two_reviewer_design


def test_design_file_create_is_idempotent_and_freezes_on_first_judgment(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    afp_study(tmp_path, db)
    path = tmp_path / "d.toml"
    path.write_text('study = "s"\nname = "main"\nseed = 1\ncontrasts = [["C", "A"]]\n', "utf-8")
    design = load_design_file(path)
    first = create_design(db, design)
    assert (first.status, first.items, first.version_no) == ("created", 2, 1)
    assert create_design(db, design).status == "unchanged"
    changed = design.model_copy(update={"single_items": True})
    replaced = create_design(db, changed)
    assert (replaced.status, replaced.version_no, replaced.items) == ("replaced", 1, 6)
    session = ReviewSession(db, replaced.pk, "alice")
    code = session.resume_code()
    assert code is not None
    session.save(code, Judgment(), 3.0)
    assert find_design(db, "s", "main").frozen_at is not None
    again = create_design(db, design)
    assert (again.status, again.version_no) == ("new version", 2)


def test_design_file_errors_name_the_field(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text('study = "s"\nname = "x"\nseed = "abc"\n', "utf-8")
    # A TOML file's errors name the key as the file writes it.
    with pytest.raises(AbpError, match=r"bad.toml: seed: .*integer"):
        load_design_file(path)
    path.write_text('study = "s"\nname = \n', "utf-8")
    with pytest.raises(AbpError, match=r"bad\.toml: malformed TOML"):
        load_design_file(path)


def test_blind_item_shows_no_identity(tmp_path: Path, db: sqlite_utils.Database) -> None:
    afp_study(tmp_path, db)
    created = create_design(db, StudyDesign(study="s", name="m", seed=3, contrasts=[("C", "A")]))
    session = ReviewSession(db, created.pk, "alice")
    for row in session.queue():
        item = session.open(row.code)
        blob = json.dumps([r.text for r in item.responses]) + item.code
        for identity in ("Governed Workflow", "demo-model-9", "acme", "P01-A", "P01-C"):
            assert identity not in blob
        assert all(r.masked == 1 for r in item.responses)
        assert item.task.fatal_criteria[0].startswith("Fatal P0")


def test_submit_requires_complete_judgment_and_revisions_append(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    afp_study(tmp_path, db)
    created = create_design(db, StudyDesign(study="s", name="m", seed=3, contrasts=[("C", "A")]))
    session = ReviewSession(db, created.pk, "alice")
    code = session.resume_code()
    assert code is not None
    with pytest.raises(NotReady) as exc:
        session.save(code, full_judgment(2, pref=None), 5.0, submit=True)
    assert any("preference" in p for p in exc.value.problems)
    lower = full_judgment(2)
    lower.responses["1"] = ResponseJudgment(
        scores={**{d: 2 for d in AFP_DIMS}, "task_correctness": 1}
    )
    with pytest.raises(NotReady, match="needs a rationale"):
        session.save(code, lower, 1.0, submit=True)
    assert session.save(code, full_judgment(2), 2.0, submit=True).status == "submitted"
    with pytest.raises(AbpError, match="needs a reason"):
        session.save(code, full_judgment(2), 1.0, submit=True)
    revised = session.save(
        code,
        full_judgment(2, PreferenceChoice.RESPONSE_1),
        1.5,
        submit=True,
        reason="Reread the evidence",
    )
    assert revised.revision == 2
    rows = db.execute(
        "SELECT revision, status, reason, seconds_spent FROM judgments ORDER BY revision"
    ).fetchall()
    assert rows == [(1, "submitted", "", 2.0), (2, "submitted", "Reread the evidence", 3.5)]
    with pytest.raises(Exception, match="append-only"):
        db.execute("UPDATE judgments SET status = 'draft'")
    with pytest.raises(Exception, match="append-only"):
        db.execute("DELETE FROM judgments")


def test_placement_is_stored_and_judgment_reads_back_by_position(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    _pk, a, b, _codes = two_reviewer_design(tmp_path, db)
    code = a.queue()[0].code
    judgment = full_judgment(2, PreferenceChoice.RESPONSE_1)
    a.save(code, judgment, 1.0, submit=True)
    assert a.open(code).judgment.preference == PreferenceChoice.RESPONSE_1
    stored = db.execute("SELECT placement FROM judgments").fetchone()[0]
    assert sorted(json.loads(stored)) == ["1", "2"]
    flips = {row.code: row.flipped for row in a.queue()}
    assert {row.code: row.flipped for row in b.queue()} == {c: not f for c, f in flips.items()}


def test_others_judgments_are_hidden_until_own_submission(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    _pk, a, b, _codes = two_reviewer_design(tmp_path, db)
    code = a.queue()[0].code
    judgment = full_judgment(2)
    judgment.responses["1"] = ResponseJudgment(
        state_override=ResultState.GRADER_DISPUTE, override_reason="rubric unclear"
    )
    a.save(code, judgment, 1.0, submit=True)
    with pytest.raises(BlindingError):
        b.others(code)
    b.save(code, full_judgment(2), 1.0)
    with pytest.raises(BlindingError):
        b.others(code)
    b.save(code, full_judgment(2), 1.0, submit=True)
    seen = b.others(code)
    assert len(seen) == 1
    disputed = [k for k, r in seen[0].responses.items() if r.state_override]
    flipped_for_b = next(r.flipped for r in b.queue() if r.code == code)
    assert disputed == (
        ["2"] if flipped_for_b != next(r.flipped for r in a.queue() if r.code == code) else ["1"]
    )


def test_unlisted_reviewer_is_refused_and_resume_returns_last_item(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    afp_study(tmp_path, db)
    created = create_design(db, StudyDesign(study="s", name="m", seed=3, reviewers=["a"]))
    with pytest.raises(AbpError, match="not a reviewer"):
        ReviewSession(db, created.pk, "mallory")
    session = ReviewSession(db, created.pk, "a")
    codes = [r.code for r in session.queue()]
    session.open(codes[-1])
    assert ReviewSession(db, created.pk, "a").resume_code() == codes[-1]


def test_reading_ahead_writes_nothing_and_entering_stores_staged_drafts(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    from abp_tui.services.desk import Desk

    afp_study(tmp_path, db)
    created = create_design(db, StudyDesign(study="s", name="m", seed=3, reviewers=["a"]))
    session = ReviewSession(db, created.pk, "a")
    first, second = (r.code for r in session.queue())
    session.open(first)
    desk = Desk(tmp_path / "test.db", created.pk, "a")
    try:
        desk.stage(first, 1, Judgment(validity={"consistent": True}))
        ahead = desk.peek_after(first)
        assert ahead is not None and ahead.code == second
        assert desk.peek_after(second) is None
        # Reading ahead stored no draft and did not move the reviewer.
        assert desk.has_staged(first)
        assert ReviewSession(db, created.pk, "a").resume_code() == first
        assert [r.status for r in session.queue()] == ["todo", "todo"]
        # Entering the item stores what was staged, reports it, and moves the reviewer there.
        revision, stored = desk.enter(second)
        assert revision == 0
        assert [(d.code, d.version, d.result.status) for d in stored] == [(first, 1, "draft")]
        assert not desk.has_staged(first)
        assert ReviewSession(db, created.pk, "a").resume_code() == second
    finally:
        desk.close()


def test_others_preference_is_given_in_this_reviewers_positions(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    # The two reviewers see each pair the other way round: a's Response 1 is b's Response 2,
    # so a's preference reaches b naming the run a preferred where b sees it.
    _pk, a, b, _codes = two_reviewer_design(tmp_path, db)
    code = a.queue()[0].code
    assert next(r.flipped for r in a.queue() if r.code == code) != next(
        r.flipped for r in b.queue() if r.code == code
    )
    a.save(code, full_judgment(2, PreferenceChoice.RESPONSE_1), 1.0, submit=True)
    b.save(code, full_judgment(2, PreferenceChoice.TIE), 1.0, submit=True)
    assert [j.preference for j in b.others(code)] == [PreferenceChoice.RESPONSE_2]
    assert [j.preference for j in a.others(code)] == [PreferenceChoice.TIE]
