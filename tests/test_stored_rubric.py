"""A rubric read back from the store without its validator is the one validating it gives.

The workstation reads each design's rubric as the store keeps it (the JSON of a validated
rubric) with :func:`abp_tui.models.rubric.stored_rubric`, so that its first item is shown
without building the rubric's validator; these check that nothing read so differs from
:meth:`Rubric.model_validate` of the same document, whatever the rubric holds.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils

from abp_tui.models import Rubric
from abp_tui.models.builtin_rubrics import AFP_V01, BUSINESS_V1, PREFERENCE_ONLY, SCI_BENCH_V1
from abp_tui.models.rubric import stored_rubric
from abp_tui.services.designing import create_design, load_design_file
from abp_tui.services.reviewing import ReviewSession
from tests.factories import INLINE_RUBRIC_DESIGN, afp_study


def _same(document: dict[str, Any]) -> None:
    validated = Rubric.model_validate(document)
    read = stored_rubric(document)
    assert read == validated
    assert read.model_dump() == validated.model_dump()
    assert read.model_dump_json() == validated.model_dump_json()
    assert read.model_fields_set == validated.model_fields_set
    assert read.acceptance.model_fields_set == validated.acceptance.model_fields_set
    for mine, theirs in zip(read.dimensions, validated.dimensions, strict=True):
        assert mine.model_fields_set == theirs.model_fields_set
        assert [type(k) for k in mine.anchors] == [type(k) for k in theirs.anchors]
    assert type(read.dimensions) is type(validated.dimensions) is tuple
    assert type(read.validity_gate) is tuple


@pytest.mark.parametrize(
    "rubric", [AFP_V01, BUSINESS_V1, SCI_BENCH_V1, PREFERENCE_ONLY], ids=lambda r: r.id
)
def test_a_built_in_rubric_as_stored_reads_back_as_validated(rubric: Rubric) -> None:
    document = json.loads(rubric.model_dump_json())
    # JSON keeps the anchors' scores as text and the tuples as lists.
    assert all(isinstance(k, str) for d in document["dimensions"] for k in d["anchors"])
    _same(document)
    assert stored_rubric(document) == rubric


def test_an_afp_rubric_stored_before_rubrics_carried_their_gate_still_asks_seed_000s() -> None:
    document = json.loads(AFP_V01.model_dump_json())
    del document["validity_gate"]
    _same(document)
    assert [c.id for c in stored_rubric(document).validity_gate] == [
        "consistent",
        "visible",
        "same_requirement",
        "invariant_assertions",
        "observable",
    ]


def test_a_rubric_stored_with_only_its_required_fields_reads_back_as_validated() -> None:
    document = {
        "id": "brief",
        "name": "Brief",
        "version": "1",
        "dimensions": [{"id": "accuracy", "name": "Accuracy", "anchors": {"0": "no", "2": "yes"}}],
        "acceptance": {"text": "All right."},
    }
    _same(document)
    assert stored_rubric(document).validity_gate == ()


def test_a_design_files_own_rubric_is_read_by_the_session_as_validated(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    afp_study(tmp_path, db)
    path = tmp_path / "d.toml"
    path.write_text(INLINE_RUBRIC_DESIGN, "utf-8")
    created = create_design(db, load_design_file(path), str(path))
    session = ReviewSession(db, created.pk, "ann")
    _same(session.design_row.rubric)
    assert session.rubric == Rubric.model_validate(session.design_row.rubric)
    assert session.design.name == "own"
