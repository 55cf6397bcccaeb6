"""Opening a study pack on a reviewer station: the station remembers its reviewer, refuses a
database that holds anything else, and the reviewer starts on their first unfinished item."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils

from abp_tui.models import PreferenceChoice, StudyDesign
from abp_tui.services.designing import create_design
from abp_tui.services.reviewing import ReviewSession
from abp_tui.services.stations import (
    StationRefused,
    merge_ratings,
    open_pack,
    open_station,
    station_reviewer,
    write_ratings,
    write_study_pack,
)
from abp_tui.store import connect
from abp_tui.tui.app import make_app
from abp_tui.tui.screens.home import HomeScreen
from abp_tui.tui.widgets.keybar import KeyBar
from tests.factories import Cli, afp_judgment, two_reviewer_design
from tests.tui_helpers import (
    compare_screen,
    drive,
    press,
    settle,
    static_text,
    until,
)

SIZE = (150, 45)


def _dump(path: Path) -> list[str]:
    """Every row of every table of a database file, as SQL (to see that nothing stored changed;
    the browsing views, which opening a database refreshes, are left out)."""
    db = sqlite_utils.Database(path)
    try:
        return [line for line in db.conn.iterdump() if line.startswith("INSERT")]
    finally:
        db.close()


def _packs(tmp_path: Path, db: sqlite_utils.Database) -> tuple[int, Path, Path]:
    """The two-reviewer design with a pack for each of its reviewers, a and b."""
    pk = two_reviewer_design(tmp_path, db)[0]
    write_study_pack(db, pk, "a", tmp_path / "a.pack.json")
    write_study_pack(db, pk, "b", tmp_path / "b.pack.json")
    return pk, tmp_path / "a.pack.json", tmp_path / "b.pack.json"


def test_a_station_remembers_its_reviewer_and_reopening_changes_nothing(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    _pk, a_pack, _b_pack = _packs(tmp_path, db)
    assert station_reviewer(db) is None  # the coordinator's database is nobody's station
    station_path = tmp_path / "a.db"
    station = connect(station_path)
    opened = open_station(station, a_pack)
    assert (opened.reviewer, opened.items, opened.already_open) == ("a", 2, False)
    assert station_reviewer(station) == "a"
    station.close()
    before = _dump(station_path)
    station = connect(station_path)
    again = open_station(station, a_pack)
    station.close()
    assert again.already_open and again.design_pk == opened.design_pk
    assert _dump(station_path) == before
    actions = [r[0] for r in connect(station_path).execute("SELECT action FROM audit_log")]
    assert actions == ["pack opened"]


def test_another_reviewers_pack_or_a_second_pack_is_refused_and_nothing_changes(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk, a_pack, b_pack = _packs(tmp_path, db)
    station_path = tmp_path / "a.db"
    open_pack(connect(station_path), a_pack)
    before = _dump(station_path)
    with pytest.raises(StationRefused, match=r"b's pack, but .*a\.db is the station of a"):
        open_pack(connect(station_path), b_pack)
    # The same pack issued again is the same file: it simply opens.
    write_study_pack(db, pk, "a", tmp_path / "again.pack.json")
    assert open_pack(connect(station_path), tmp_path / "again.pack.json") > 0
    # A pack of another design for the same reviewer needs a station of its own.
    other = StudyDesign(
        study="s", name="m2", seed=4, contrasts=[("C", "A")], reviewers=["a"], reviewers_per_item=1
    )
    write_study_pack(db, create_design(db, other).pk, "a", tmp_path / "m2.pack.json")
    with pytest.raises(StationRefused, match=r"another pack of a \(design s / m v1\)"):
        open_pack(connect(station_path), tmp_path / "m2.pack.json")
    assert _dump(station_path) == before


def test_a_pack_never_merges_into_a_coordinators_database(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    _pk, a_pack, _b_pack = _packs(tmp_path, db)
    db.close()
    coordinator = tmp_path / "test.db"
    before = _dump(coordinator)
    with pytest.raises(StationRefused, match=r"test\.db holds other studies \(s\)"):
        open_pack(connect(coordinator), a_pack)
    assert _dump(coordinator) == before


def test_pack_open_says_who_the_station_judges_as_and_refuses_in_one_line(
    tmp_path: Path, db: sqlite_utils.Database, cli: Cli
) -> None:
    _pk, a_pack, b_pack = _packs(tmp_path, db)
    db.close()
    station = tmp_path / "station a.db"
    done = cli("--db", station, "pack", "open", a_pack)
    assert done.code == 0, done.err
    assert "2 items for a (design m v1)" in done.out
    assert f"judge with: abp-tui --db '{station}' (opens as a)" in done.out
    as_json = json.loads(cli("--db", station, "pack", "open", a_pack, "--json").out)
    assert (as_json["reviewer"], as_json["already_open"]) == ("a", True)
    refused = cli("--db", station, "pack", "open", b_pack)
    assert refused.code == 1
    assert refused.err.count("\n") == 1 and "refused; nothing was changed" in refused.err
    merged = cli("--db", tmp_path / "test.db", "pack", "open", a_pack)
    assert merged.code == 1 and "holds other studies" in merged.err
    assert "Traceback" not in refused.err + merged.err


def test_a_plain_abp_tui_on_a_station_opens_as_its_reviewer(
    tmp_path: Path, db: sqlite_utils.Database, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    _pk, a_pack, _b_pack = _packs(tmp_path, db)
    station = tmp_path / "a.db"
    assert cli("--db", station, "pack", "open", a_pack).code == 0
    opened: list[tuple[Path, str | None]] = []

    class Fake:
        def __init__(self, db_path: Path, reviewer: str | None) -> None:
            self.lost_work: list[str] = []  # what the real app reports unsaved when it exits
            opened.append((db_path, reviewer))

        def run(self) -> None:
            pass

    def fake_app(db_path: Path, reviewer: str | None = None) -> Any:
        return Fake(db_path, reviewer)

    monkeypatch.setattr("abp_tui.tui.app.make_app", fake_app)
    assert cli("--db", station).code == 0
    assert cli("--db", station, "tui", "--reviewer", "b").code == 0
    assert cli("--db", tmp_path / "test.db").code == 0
    assert opened == [(station, "a"), (station, "b"), (tmp_path / "test.db", None)]


# -- where a reviewer starts ----------------------------------------------------------------------
async def test_the_station_opens_on_the_first_item_as_its_reviewer(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    _pk, a_pack, _b_pack = _packs(tmp_path, db)
    station_path = tmp_path / "a.db"
    station = connect(station_path)
    first = ReviewSession(station, open_pack(station, a_pack), "a").queue()[0].code
    reviewer = station_reviewer(station)
    station.close()
    app = make_app(station_path, reviewer)
    async with drive(app, SIZE) as pilot:
        screen = await compare_screen(pilot)
        assert screen.item is not None
        assert (screen.item.code, screen.item.index, screen.item.total) == (first, 0, 2)
        assert app.reviewer == "a"


async def test_issuing_a_pack_leaves_the_reviewer_on_their_first_unfinished_item(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk, a_pack, _b_pack = _packs(tmp_path, db)
    queue = [r.code for r in ReviewSession(db, pk, "a").queue()]
    # Writing the pack read every item; it did not walk the reviewer to the last one.
    assert ReviewSession(db, pk, "a").resume_code() == queue[0]
    # The station submits the first item; merged back, the coordinator's queue starts on the
    # second, the first one not finished.
    station = connect(tmp_path / "a.db")
    session = ReviewSession(station, open_pack(station, a_pack), "a")
    session.save(queue[0], afp_judgment(2, 2, PreferenceChoice.TIE), 20, submit=True)
    write_ratings(station, tmp_path / "a.ratings.json")
    merge_ratings(db, [tmp_path / "a.ratings.json"])
    db.close()
    app = make_app(tmp_path / "test.db", "a")
    async with drive(app, SIZE) as pilot:
        screen = await compare_screen(pilot)
        assert screen.item is not None
        assert (screen.item.code, screen.item.index, screen.item.status) == (queue[1], 1, "todo")


async def test_the_stations_home_says_how_to_send_the_ratings_back(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    """A station imports nothing: its home screen names the next step, `pack ratings`, where a
    coordinator's says how to import runs."""
    _pk, a_pack, _b_pack = _packs(tmp_path, db)
    station_path = tmp_path / "a.db"
    station = connect(station_path)
    open_pack(station, a_pack)
    station.close()
    app = make_app(station_path, "a")
    async with drive(app, SIZE) as pilot:
        await compare_screen(pilot)
        await press(pilot, "h")
        await until(pilot, lambda: "Reviewer station" in static_text(pilot, "#import-hint"), "hint")
        hint = static_text(pilot, "#import-hint")
        assert f"abp-tui pack ratings --out FILE --db {station_path}" in hint
        assert "import" not in hint.lower()
        # Neither importing nor designing is offered on a station, nor done by its keys.
        offered = {entry.description for entry in app.screen.query_one(KeyBar).entries}
        assert "Reload" in offered and not offered & {"Import", "New design"}
        await press(pilot, "i", "n")
        assert isinstance(app.screen, HomeScreen)
    coordinator = make_app(tmp_path / "test.db", "lead")
    async with drive(coordinator, SIZE) as pilot:
        await settle(pilot)
        # A database with studies: more run records, no demo data offered.
        hint = static_text(pilot, "#import-hint")
        assert "More run records: press i" in hint and "demo" not in hint
        offered = {entry.description for entry in coordinator.screen.query_one(KeyBar).entries}
        assert {"Import", "New design"} <= offered


def _pack_for(reviewer: str, db: Path, out: Path) -> tuple[str | Path, ...]:
    """The arguments of `abp-tui pack study` writing ``reviewer``'s pack of ``db`` to ``out``."""
    return ("pack", "study", "--db", db, "--reviewer", reviewer, "--out", out)


def test_a_pack_leaves_out_what_its_reviewer_judged_here_so_its_ratings_merge(
    tmp_path: Path, db: sqlite_utils.Database, cli: Cli
) -> None:
    """A station numbers its first revision of an item 1; an item its reviewer judged in the
    coordinator's database already has a revision 1 there, and the merge refuses a revision
    that differs from the one stored, the whole file with it. So the pack holds only the items
    not judged here, and a reviewer who judged them all gets no pack."""
    pk = two_reviewer_design(tmp_path, db)[0]
    here = ReviewSession(db, pk, "a")
    first, second = (r.code for r in here.queue())
    here.save(first, afp_judgment(2, 2, PreferenceChoice.TIE), 20, submit=True)
    db.close()
    issued = cli(*_pack_for("a", tmp_path / "test.db", tmp_path / "a.pack.json"))
    assert issued.code == 0, issued.err
    assert ": 1 item for a (design" in issued.out
    assert "left out: 1 item a judged in this database" in issued.out
    db = connect(tmp_path / "test.db")
    here = ReviewSession(db, pk, "a")
    station = connect(tmp_path / "a.db")
    session = ReviewSession(station, open_pack(station, tmp_path / "a.pack.json"), "a")
    assert [r.code for r in session.queue()] == [second]
    shown = session.read(second)
    assert (shown.index, shown.total) == (0, 1)  # "item 1 of 1" on the station, not "2 of 1"
    session.save(second, afp_judgment(1, 1, PreferenceChoice.RESPONSE_1), 20, submit=True)
    write_ratings(station, tmp_path / "a.ratings.json")
    assert merge_ratings(db, [tmp_path / "a.ratings.json"])[0]["added"] == 1
    assert {r.code: r.status for r in here.queue()} == {first: "submitted", second: "submitted"}
    # Every item judged here now: no pack, said in one line, and nothing recorded.
    db.close()
    refused = cli(*_pack_for("a", tmp_path / "test.db", tmp_path / "again.pack.json"))
    assert refused.code == 1 and refused.err.count("\n") == 1
    assert "a has judged every one of their 2 items" in refused.err
    assert not (tmp_path / "again.pack.json").exists()


def test_the_stations_commands_act_as_its_reviewer_not_the_user_logged_in(
    tmp_path: Path, db: sqlite_utils.Database, cli: Cli
) -> None:
    """``abp-tui --db STATION agreement`` said "Seen by root" on ann's station: the command
    line now takes the station's reviewer, as the workstation does; ``--reviewer`` still wins."""
    _pk, a_pack, _b_pack = _packs(tmp_path, db)
    station_path = tmp_path / "a.db"
    station = connect(station_path)
    open_station(station, a_pack)
    station.close()
    seen = cli("agreement", "--db", str(station_path))
    assert seen.code == 0 and "Seen by a:" in seen.out, seen.out + seen.err
    named = cli("agreement", "--db", str(station_path), "--reviewer", "b")
    assert "Seen by b:" in named.out
    coordinator = cli("agreement", "--db", str(tmp_path / "test.db"))
    assert "Seen by a:" not in coordinator.out
