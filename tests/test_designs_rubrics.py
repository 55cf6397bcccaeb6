"""A design's rubric: built in, ``none``, or defined in the design file itself; and the validity
gate, which belongs to the rubric (a rubric without one asks none)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import sqlite_utils

from abp_tui.analysis.scoring import problems, result_state
from abp_tui.errors import AbpError
from abp_tui.models import Judgment, ResponseJudgment, ResultState, Rubric
from abp_tui.models.builtin_rubrics import AFP_V01, BUSINESS_V1, SCI_BENCH_V1
from abp_tui.services.designing import create_design, load_design_file
from abp_tui.services.reviewing import ReviewSession
from tests.factories import GATE, INLINE_RUBRIC_DESIGN, afp_study


def _write(tmp_path: Path, text: str, name: str = "d.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, "utf-8")
    return path


def test_a_rubric_defined_in_the_design_file_is_what_reviewers_judge_on(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    afp_study(tmp_path, db)  # the study names the AFP rubric; the design's own one wins
    path = _write(tmp_path, INLINE_RUBRIC_DESIGN)
    created = create_design(db, load_design_file(path), str(path))
    assert created.rubric == "brief-v1"
    session = ReviewSession(db, created.pk, "ann")
    code = session.resume_code()
    assert code is not None
    rubric = session.open(code).rubric
    assert (rubric.source, rubric.max_total, rubric.fatal_criteria) == (
        "design",
        4,
        ("Invents a figure.",),
    )
    assert [c.id for c in rubric.validity_gate] == ["same_task"]
    assert rubric.acceptance.text.startswith("Any fatal criterion hit => MODEL_FAIL")
    # The gate asked is the rubric's one check, not the AFP five.
    asked = problems(rubric, Judgment(), ["1", "2"], pair=True)
    assert [p for p in asked if p.startswith("validity gate")] == [
        "validity gate: check 'same_task' is not answered"
    ]
    # Acceptance: total at least 3 and accuracy 2.
    passing = ResponseJudgment(scores={"accuracy": 2, "brevity": 1})
    failing = ResponseJudgment(scores={"accuracy": 1, "brevity": 2})
    assert result_state(rubric, passing) == ResultState.MODEL_PASS
    assert result_state(rubric, failing) == ResultState.MODEL_FAIL
    # Recreating the same file changes nothing.
    assert create_design(db, load_design_file(path), str(path)).status == "unchanged"


ERRORS = [
    (
        'anchors = { 0 = "Rambles", 1 = "Some padding", 2 = "Tight" }',
        'anchors = { 0 = "Rambles", 2 = "Tight" }',
        r"rubric\.dimensions\[1\]\.anchors: expected an anchor text for each score 0, 1 and 2 "
        r"\(missing 1\)",
    ),
    ('id = "brevity"', 'id = "accuracy"', r"rubric\.dimensions\[1\]\.id: duplicate dimension id"),
    ('id = "brevity"', 'id = "brev ity"', r"rubric\.dimensions\[1\]\.id: String should match"),
    (
        'required_twos = ["accuracy"]',
        'required_twos = ["clarity"]',
        r"rubric\.acceptance\.required_twos: 'clarity' is not one of the rubric's dimensions",
    ),
    (
        'acceptance = { min_total = 3, required_twos = ["accuracy"] }',
        'acceptance = { text = "Good enough." }',
        r"rubric\.acceptance: expected at least one of min_total, min_each or required_twos",
    ),
    ("min_total = 3", "min_total = 9", r"rubric\.acceptance\.min_total: expected a total between"),
    ('id = "same_task"', 'id = ""', r"rubric\.validity_gate\[0\]\.id: String should match"),
    ('name = "Brief answers"', 'nmae = "Brief answers"', r"rubric\.nmae: unexpected field"),
    ('id = "brief-v1"', 'id = "afp-v0.1"', r"rubric\.id: 'afp-v0\.1' is the id of another rubric"),
]


@pytest.mark.parametrize(("old", "new", "expected"), ERRORS)
def test_rubric_errors_name_the_design_file_and_the_toml_key(
    tmp_path: Path, db: sqlite_utils.Database, old: str, new: str, expected: str
) -> None:
    afp_study(tmp_path, db)
    assert old in INLINE_RUBRIC_DESIGN
    path = _write(tmp_path, INLINE_RUBRIC_DESIGN.replace(old, new, 1))
    with pytest.raises(AbpError, match=rf"^{re.escape(str(path))}: {expected}"):
        create_design(db, load_design_file(path), str(path))
    assert db.execute("SELECT COUNT(*) FROM designs").fetchone()[0] == 0


def test_a_json_design_file_names_the_json_path(tmp_path: Path) -> None:
    document = {
        "study": "s",
        "name": "own",
        "seed": 1,
        "rubric": {
            "acceptance": {"min_each": 1},
            "dimensions": [{"id": "a", "anchors": {"0": "x", "1": "y", "2": "z"}}, {"id": "b"}],
        },
    }
    path = _write(tmp_path, json.dumps(document), "d.json")
    with pytest.raises(AbpError, match=r"d\.json: \$\.rubric\.dimensions\[1\]\.anchors: required"):
        load_design_file(path)
    document["rubric"] = 7
    path.write_text(json.dumps(document), "utf-8")
    with pytest.raises(AbpError, match=r'd\.json: \$\.rubric: expected a rubric id, "none"'):
        load_design_file(path)


def test_the_validity_gate_belongs_to_the_rubric() -> None:
    # Seed 000 defines the AFP gate (five checks); seeds 002 and 004 define none.
    assert len(AFP_V01.validity_gate) == 5
    assert BUSINESS_V1.validity_gate == () and SCI_BENCH_V1.validity_gate == ()
    scores = {d.id: 2 for d in BUSINESS_V1.dimensions}
    ready = Judgment(responses={"r": ResponseJudgment(scores=scores)})
    assert problems(BUSINESS_V1, ready, ["r"], pair=False) == []
    afp = Judgment(responses={"r": ResponseJudgment(scores={d.id: 2 for d in AFP_V01.dimensions})})
    assert len(problems(AFP_V01, afp, ["r"], pair=False)) == 5
    assert problems(AFP_V01, afp.model_copy(update={"validity": GATE}), ["r"], pair=False) == []


def test_an_afp_rubric_stored_before_rubrics_carried_their_gate_still_asks_it() -> None:
    stored = json.loads(AFP_V01.model_dump_json())
    del stored["validity_gate"]
    assert Rubric.model_validate(stored).validity_gate == AFP_V01.validity_gate
    business = json.loads(BUSINESS_V1.model_dump_json())
    del business["validity_gate"]
    assert Rubric.model_validate(business).validity_gate == ()
    # An explicit empty gate is kept empty, AFP id or not.
    assert Rubric.model_validate({**stored, "validity_gate": []}).validity_gate == ()
