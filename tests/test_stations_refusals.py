"""``pack open`` refuses a pack a station cannot hold as it is, and any database that is not an
empty station, naming the file and the field and writing nothing; names from files reach the
terminal with their escape sequences made visible."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils

from abp_tui.errors import InputError
from abp_tui.models import Judgment, PreferenceChoice
from abp_tui.services.designing import DesignChoices, create_from_choices
from abp_tui.services.reviewing import ReviewSession
from abp_tui.services.station_files import body_hash
from abp_tui.services.stations import (
    StationRefused,
    merge_ratings,
    open_pack,
    write_ratings,
    write_study_pack,
)
from abp_tui.store import connect
from abp_tui.store.packs import audit
from tests.factories import Cli, afp_study, two_reviewer_design

Document = dict[str, Any]
ESC = "\x1b"


def _dump(path: Path) -> list[str]:
    """Every row of a database file as SQL (the browsing views, refreshed on open, left out)."""
    db = sqlite_utils.Database(path)
    try:
        return [line for line in db.conn.iterdump() if line.startswith("INSERT")]
    finally:
        db.close()


@pytest.fixture
def pack(tmp_path: Path, db: sqlite_utils.Database) -> Path:
    pk = two_reviewer_design(tmp_path, db)[0]
    path = tmp_path / "a.pack.json"
    write_study_pack(db, pk, "a", path)
    return path


def _forged(pack: Path, name: str, change: Callable[[Document], None]) -> Path:
    """The pack changed by ``change``, its hash recomputed (anyone can)."""
    document = json.loads(pack.read_text("utf-8"))
    change(document)
    document["sha256"] = body_hash(document)
    path = pack.with_name(name)
    path.write_text(json.dumps(document), "utf-8")
    return path


def _refused(path: Path, station: Path, pattern: str) -> None:
    connect(station).close()
    before = _dump(station)
    with pytest.raises(InputError, match=pattern) as caught:
        open_pack(connect(station), path)
    assert str(path) in str(caught.value)
    assert _dump(station) == before
    assert all(line.startswith('INSERT INTO "_migrations"') for line in before)


def test_duplicate_item_codes_are_refused(pack: Path, tmp_path: Path) -> None:
    def twice(document: Document) -> None:
        document["items"][1]["code"] = document["items"][0]["code"]

    _refused(_forged(pack, "dup.json", twice), tmp_path / "s.db", r"\$\.items\[1\]: item code")


def test_duplicate_response_keys_are_refused(pack: Path, tmp_path: Path) -> None:
    def same_key(document: Document) -> None:
        document["items"][0]["responses"][1]["key"] = "1"

    pattern = r"items\[0\]\.responses: item P-\w+: a response key appears twice"
    _refused(_forged(pack, "keys.json", same_key), tmp_path / "s.db", pattern)


def test_a_pair_with_one_response_is_refused(pack: Path, tmp_path: Path) -> None:
    def one(document: Document) -> None:
        document["items"][0]["responses"] = document["items"][0]["responses"][:1]

    pattern = r"a pair item has responses 1 and 2, not 1"
    _refused(_forged(pack, "one.json", one), tmp_path / "s.db", pattern)


def test_an_empty_reviewer_is_refused(pack: Path, tmp_path: Path) -> None:
    def nobody(document: Document) -> None:
        document["reviewer"] = "  "

    _refused(_forged(pack, "nobody.json", nobody), tmp_path / "s.db", r"\$\.reviewer: the pack")


def test_a_rubric_with_no_dimensions_is_refused(pack: Path, tmp_path: Path) -> None:
    def hollow(document: Document) -> None:
        document["rubric"]["dimensions"] = []

    pattern = r"\$\.rubric\.dimensions: a rubric with no dimensions"
    _refused(_forged(pack, "hollow.json", hollow), tmp_path / "s.db", pattern)


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_nan_or_infinity_anywhere_is_refused(pack: Path, tmp_path: Path, constant: str) -> None:
    text = pack.read_text("utf-8")
    assert '"masked": ' in text
    path = tmp_path / "nan.json"
    path.write_text(text.replace('"masked": ', f'"masked": {constant}, "x": ', 1), "utf-8")
    _refused(path, tmp_path / "s.db", constant)


def test_a_pack_of_the_previous_format_is_refused_with_what_to_do(
    pack: Path, tmp_path: Path
) -> None:
    def old(document: Document) -> None:
        document["format"] = "abp-tui-reviewer-pack/v1"
        del document["signing_key"]

    pattern = r"written before packs carried a signing key: ask the coordinator for a new pack"
    _refused(_forged(pack, "old.json", old), tmp_path / "s.db", pattern)


def test_a_preference_only_pack_has_no_rubric_and_opens(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    afp_study(tmp_path, db)
    created = create_from_choices(db, DesignChoices(rubric="none", reviewers="ann"))
    path = tmp_path / "ann.pack.json"
    write_study_pack(db, created.pk, "ann", path)
    assert json.loads(path.read_text("utf-8"))["rubric"] is None
    station = connect(tmp_path / "ann.db")
    session = ReviewSession(station, open_pack(station, path), "ann")
    assert session.rubric.preference_only
    for row in session.queue():
        choice = Judgment(preference=PreferenceChoice.TIE, justification="Same.")
        session.save(row.code, choice, 2.0, submit=True)
    write_ratings(station, tmp_path / "ann.ratings.json")
    assert merge_ratings(db, [tmp_path / "ann.ratings.json"])[0]["added"] == 2


def test_a_database_that_is_not_empty_is_refused_and_unchanged(pack: Path, tmp_path: Path) -> None:
    path = tmp_path / "used.db"
    used = connect(path)
    audit(used, "someone", "note", {"what": "a database in use"})
    used.close()
    before = _dump(path)
    with pytest.raises(StationRefused, match=r"used\.db is not an empty database.*audit_log"):
        open_pack(connect(path), pack)
    assert _dump(path) == before


def test_file_names_with_escape_sequences_are_shown_as_text(
    tmp_path: Path, db: sqlite_utils.Database, cli: Cli
) -> None:
    pk = two_reviewer_design(tmp_path, db)[0]
    db.close()
    coordinator = str(tmp_path / "test.db")
    pack = tmp_path / f"a{ESC}]0;owned{ESC}\\.pack.json"
    made = cli("pack", "study", "--db", coordinator, "--reviewer", "a", "--out", pack)
    assert made.code == 0, made.err
    assert ESC not in made.out and "wrote" in made.out
    station = tmp_path / "station.db"
    opened = cli("--db", station, "pack", "open", pack)
    assert opened.code == 0, opened.err
    assert ESC not in opened.out and "opened" in opened.out
    ratings = tmp_path / f"r{ESC}[2J.json"
    written = cli("--db", station, "pack", "ratings", "--out", ratings)
    assert written.code == 0 and ESC not in written.out
    merged = cli("merge", "--db", coordinator, ratings)
    assert merged.code == 0, merged.err
    assert ESC not in merged.out and "0 judgment revisions added from a" in merged.out
    refused = cli("--db", tmp_path / "other.db", "merge", pack)
    assert refused.code == 1 and ESC not in refused.err
    assert pk > 0
