"""The figures of a large judged study hold what many records hold alike once.

What was found: on a PandaLM-shaped study judged by three reviewers, ``results``, ``agreement``
and ``ranking`` each kept every submitted judgment, every reviewer's pick of a pair, every
pair's final preference and every preferred run's verdict as a validated record with a set of
field names of its own (and a copy of the judgment's placement in every pick): about 2 kB a
pair beside what the figures need. They are read and built as trusted records now (the store
keeps only validated ones), one set of field names shared by every record of a kind.
"""

from __future__ import annotations

import random
from pathlib import Path

import sqlite_utils

from abp_tui.analysis.verdicts import decide
from abp_tui.bench.pairwise_import import write_pairs
from abp_tui.models import Judgment, PreferenceChoice
from abp_tui.services.designing import DesignChoices, create_from_choices
from abp_tui.services.importing import import_paths
from abp_tui.services.reviewing import ReviewSession
from abp_tui.store import judging

CHOICES = (PreferenceChoice.RESPONSE_1, PreferenceChoice.RESPONSE_2, PreferenceChoice.TIE)


def _judged(db: sqlite_utils.Database, tmp_path: Path) -> int:
    source = tmp_path / "pairs" / "testset-v1.json"
    write_pairs(source, 12)
    import_paths(db, [source], study="panda")
    pk = create_from_choices(
        db, DesignChoices(study="panda", reviewers="ann,bo,cy", reviewers_per_item=2)
    ).pk
    rng = random.Random(5)
    for reviewer in ("ann", "bo", "cy"):
        session = ReviewSession(db, pk, reviewer)
        for row in session.queue():
            judgment = Judgment(preference=rng.choice(CHOICES), justification="Reads better.")
            session.save(row.code, judgment, 3.0, submit=True)
    return pk


def test_a_judged_studys_records_share_their_field_names_and_placements(
    db: sqlite_utils.Database, tmp_path: Path
) -> None:
    pk = _judged(db, tmp_path)
    records = judging.records_of_design(db, pk)
    assert len(records.judgments) == 24
    assert len({id(j.__pydantic_fields_set__) for j in records.judgments}) == 1
    # The record read back is the one stored: every field set, of its type.
    first = records.judgments[0]
    assert first.model_fields_set == set(type(first).model_fields)
    assert isinstance(first.seconds_spent, float) and first.seconds_spent == 3.0
    assert first.status == "submitted" and isinstance(first.revision, int)

    decisions = decide(records)
    preferences = decisions.preferences
    assert len(preferences) == 12
    assert len({id(p.__pydantic_fields_set__) for p in preferences}) == 1
    reviews = [r for p in preferences for r in p.reviews]
    assert len(reviews) == 24
    assert len({id(r.__pydantic_fields_set__) for r in reviews}) == 1
    by_reviewer = {(j.item, j.reviewer): j for j in records.judgments}
    for p in preferences:
        for r in p.reviews:
            assert r.placement is by_reviewer[(p.item, r.reviewer)].placement
    preferred = [v for v in decisions.verdicts if v.preference_only]
    assert preferred
    assert len({id(v.__pydantic_fields_set__) for v in preferred}) == 1
