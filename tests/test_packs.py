"""Offline reviewer stations: packs hold no identity; ratings merge back exactly once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sqlite_utils

from abp_tui.errors import InputError
from abp_tui.models import Judgment, PreferenceChoice, ResponseJudgment
from abp_tui.services.reviewing import ReviewSession
from abp_tui.services.station_files import body_hash, signature
from abp_tui.services.stations import merge_ratings, open_pack, write_ratings, write_study_pack
from abp_tui.store import connect
from tests.factories import AFP_DIMS, two_reviewer_design

IDENTITIES = (
    "Governed Workflow",
    "Model Only",
    "demo-model-9",
    "acme",
    "P01-A",
    "P01-C",
    "s.jsonl",
)


def _judgment(pref: PreferenceChoice) -> Judgment:
    return Judgment(
        responses={k: ResponseJudgment(scores={d: 2 for d in AFP_DIMS}) for k in ("1", "2")},
        preference=pref,
        justification="Response 1 cites the governing source.",
        validity={
            k: True
            for k in (
                "consistent",
                "visible",
                "same_requirement",
                "invariant_assertions",
                "observable",
            )
        },
    )


def _coordinator(tmp_path: Path, db: sqlite_utils.Database) -> int:
    return two_reviewer_design(tmp_path, db)[0]


def test_pack_holds_no_identity_and_round_trips(tmp_path: Path, db: sqlite_utils.Database) -> None:
    design_pk = _coordinator(tmp_path, db)
    pack_path = tmp_path / "a.pack.json"
    pack = write_study_pack(db, design_pk, "a", pack_path)
    text = pack_path.read_text("utf-8")
    for identity in IDENTITIES:
        assert identity not in text
    assert '"C"' not in text and '"A"' not in text
    station = connect(tmp_path / "station.db")
    station_design = open_pack(station, pack_path)
    assert open_pack(station, pack_path) == station_design
    session = ReviewSession(station, station_design, "a")
    codes = [r.code for r in session.queue()]
    assert codes == [i.code for i in sorted(pack.items, key=lambda i: i.order_index)]
    session.save(codes[0], _judgment(PreferenceChoice.RESPONSE_1), 12.0, submit=True)
    ratings_path = tmp_path / "a.ratings.json"
    write_ratings(station, ratings_path)
    result = merge_ratings(db, [ratings_path])
    assert result[0]["added"] == 1
    assert merge_ratings(db, [ratings_path])[0]["added"] == 0
    coordinator = ReviewSession(db, design_pk, "a")
    merged = coordinator.open(codes[0])
    assert merged.status == "submitted"
    assert merged.judgment.preference == PreferenceChoice.RESPONSE_1
    station_item = session.open(codes[0])
    assert [r.text for r in merged.responses] == [r.text for r in station_item.responses]
    assert db.execute("SELECT seconds_spent FROM judgments").fetchone()[0] == 12.0


def test_tampered_foreign_and_other_version_ratings_are_refused(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    design_pk = _coordinator(tmp_path, db)
    pack_path = tmp_path / "b.pack.json"
    write_study_pack(db, design_pk, "b", pack_path)
    station = connect(tmp_path / "station.db")
    session = ReviewSession(station, open_pack(station, pack_path), "b")
    code = session.queue()[0].code
    session.save(code, _judgment(PreferenceChoice.TIE), 3.0, submit=True)
    ratings_path = tmp_path / "b.ratings.json"
    write_ratings(station, ratings_path)
    before = db.execute("SELECT COUNT(*) FROM judgments").fetchone()[0]

    tampered = json.loads(ratings_path.read_text("utf-8"))
    tampered["judgments"][0]["judgment"]["preference"] = "response_1"
    bad = tmp_path / "tampered.json"
    bad.write_text(json.dumps(tampered), "utf-8")
    with pytest.raises(InputError, match="does not match its sha256"):
        merge_ratings(db, [ratings_path, bad])

    other = connect(tmp_path / "other.db")
    with pytest.raises(InputError, match="did not issue the pack"):
        merge_ratings(other, [ratings_path])

    # A new design version after the pack was issued: the old pack still merges into its own
    # version; a pack claiming another version of the design is refused.
    # (Signed with the pack's own key, as the station could: only the version is wrong.)
    forged = json.loads(ratings_path.read_text("utf-8"))
    forged["design"]["version"] = 2
    key = json.loads(pack_path.read_text("utf-8"))["signing_key"]
    forged["sha256"] = body_hash(forged)
    forged["signature"] = signature(forged, key)
    forged_path = tmp_path / "forged.json"
    forged_path.write_text(json.dumps(forged), "utf-8")
    with pytest.raises(InputError, match="made for design m v2"):
        merge_ratings(db, [forged_path])
    assert db.execute("SELECT COUNT(*) FROM judgments").fetchone()[0] == before


def test_a_pack_given_to_merge_and_ratings_given_to_open_say_which_file_was_meant(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    """A pack and its ratings file are both JSON named after the reviewer: each refusal names
    the file given and the step that takes it."""
    design_pk = _coordinator(tmp_path, db)
    pack_path = tmp_path / "a.pack.json"
    write_study_pack(db, design_pk, "a", pack_path)
    with pytest.raises(InputError) as merged:
        merge_ratings(db, [pack_path])
    said = str(merged.value)
    assert str(pack_path) in said and "this is a reviewer's pack, not their ratings" in said
    assert "abp-tui pack ratings --out FILE" in said
    station = connect(tmp_path / "station.db")
    session = ReviewSession(station, open_pack(station, pack_path), "a")
    session.save(session.queue()[0].code, _judgment(PreferenceChoice.TIE), 3.0, submit=True)
    ratings_path = tmp_path / "a.ratings.json"
    write_ratings(station, ratings_path)
    with pytest.raises(InputError, match="this is a station's ratings file, merged with"):
        open_pack(connect(tmp_path / "second.db"), ratings_path)
