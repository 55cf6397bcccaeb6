"""A large study opens and moves as a small one does: the reviewer's queue is walked by index
from the item's place, its counts come from a summary kept on write, and the queue screen and
the home screen's tasks are read a page at a time.

The work a step costs is measured as SQLite counts it (virtual-machine instructions, through a
progress handler), never as time: moving to the next item of a ten-times-longer queue must cost
about the same.
"""

from __future__ import annotations

import sqlite3
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import sqlite_utils
from textual.widgets import DataTable

from abp_tui.bench.pairwise_import import write_pairs
from abp_tui.models import Judgment, PreferenceChoice
from abp_tui.services.designing import DesignChoices, create_from_choices
from abp_tui.services.desk import Desk
from abp_tui.services.importing import import_paths
from abp_tui.services.reviewing import ReviewSession
from abp_tui.services.studies import TASK_PAGE, read_study_detail
from abp_tui.store import connect, overview, queue_pages
from abp_tui.store.judging import QueueRow
from abp_tui.store.transcripts import task_texts
from abp_tui.text.natural import natural_key
from abp_tui.tui.app import make_app
from abp_tui.tui.screens.home import HomeScreen
from abp_tui.tui.screens.queue import PAGE, QueueScreen
from tests.tui_helpers import compare_screen, drive, home_listed, plain, press, until

SIZE = (140, 40)
_BUILT: dict[int, Path] = {}


def _study(root: Path, pairs: int) -> Path:
    """A PandaLM-shaped study of ``pairs`` pairs with a design judged by ann and bo (built once
    per size, copied for each test)."""
    if pairs not in _BUILT:
        folder = Path(tempfile.mkdtemp(prefix=f"abp-scale-{pairs}-"))
        source = folder / "pairs.json"
        write_pairs(source, pairs, seed=5)
        db = connect(folder / "study.db")
        try:
            import_paths(db, [source], fmt="pairwise")
            create_from_choices(db, DesignChoices(reviewers="ann,bo", seed=11))
        finally:
            db.close()
        _BUILT[pairs] = folder / "study.db"
    target = root / f"study-{pairs}.db"
    target.write_bytes(_BUILT[pairs].read_bytes())
    return target


def _design_pk(db: sqlite_utils.Database) -> int:
    return int(db.execute("SELECT pk FROM designs").fetchone()[0])


@contextmanager
def _instructions(db: sqlite_utils.Database) -> Iterator[Callable[[], int]]:
    """Count the SQLite virtual-machine instructions run on ``db`` meanwhile (in hundreds)."""
    counted = [0]

    def tick() -> int:
        counted[0] += 1
        return 0

    db.conn.set_progress_handler(tick, 100)
    try:
        yield lambda: counted[0]
    finally:
        db.conn.set_progress_handler(None, 0)


def _preference(choice: PreferenceChoice = PreferenceChoice.RESPONSE_1) -> Judgment:
    return Judgment(preference=choice, justification="The first is clearer.")


def _step_cost(db_path: Path) -> tuple[int, list[str]]:
    """The instructions of reading the next item ahead and entering it, five times over, and
    the codes visited."""
    desk = Desk(db_path, _design_pk(connect(db_path)), "ann")
    try:
        item = desk.open()
        assert item is not None
        visited = [item.code]
        session = desk._open_session()
        with _instructions(session.db) as spent:
            for _ in range(5):
                ahead = desk.peek_after(item.code)
                assert ahead is not None
                desk.enter(ahead.code)
                item = ahead
                visited.append(item.code)
            return spent(), visited
    finally:
        desk.close()


def test_the_next_item_costs_the_same_in_a_ten_times_longer_queue(tmp_path: Path) -> None:
    small, small_codes = _step_cost(_study(tmp_path, 40))
    large, large_codes = _step_cost(_study(tmp_path, 400))
    # Reading the whole queue for each step made this ten times dearer (the old code: 9x).
    assert large < 1.5 * small, (small, large)
    for path, codes in ((_study(tmp_path, 40), small_codes), (_study(tmp_path, 400), large_codes)):
        db = connect(path)
        queue = [r.code for r in ReviewSession(db, _design_pk(db), "ann").queue()]
        assert codes == queue[: len(codes)]  # the queue's own order, from its first item


def _reference_next(rows: list[QueueRow], code: str, step: int, unfinished: bool) -> str | None:
    """Where the next and previous keys led when the whole queue was read for each step."""
    codes = [r.code for r in rows]
    if code not in codes:
        return codes[0] if codes else None
    i = codes.index(code)
    for k in range(1, len(rows) + 1):
        j = i + step * k
        if not 0 <= j < len(rows):
            return None
        if not unfinished or rows[j].status != "submitted":
            return rows[j].code
    return None


def test_moving_by_index_leads_where_reading_the_whole_queue_led(tmp_path: Path) -> None:
    db = connect(_study(tmp_path, 30))
    session = ReviewSession(db, _design_pk(db), "ann")
    rows = session.queue()
    # A mix of statuses: submitted runs, drafts, a submission revised back to a draft.
    for n, row in enumerate(rows):
        if n % 3 == 0 or n in (10, 11, 13, 14, 15):
            session.save(row.code, _preference(), 1.0, submit=True)
        elif n % 5 == 1:
            session.save(row.code, _preference(), 1.0)
    rows = session.queue()
    assert {r.status for r in rows} == {"submitted", "draft", "todo"}
    for row in [*rows, QueueRow(0, "P-NOTOURS", "pair", 0, False, "todo", 0)]:
        for step in (1, -1, 2, -3):
            for unfinished in (False, True):
                if unfinished and abs(step) != 1:
                    continue  # the keys move one item at a time when skipping submitted ones
                assert session.next_code(row.code, step, unfinished) == _reference_next(
                    rows, row.code, step, unfinished
                ), (row.code, step, unfinished)
    first_open = next(r.code for r in rows if r.status != "submitted")
    assert session.first_unfinished() == first_open
    assert session.first_unfinished(other_than=first_open) == next(
        r.code for r in rows if r.status != "submitted" and r.code != first_open
    )
    for index, row in enumerate(rows):
        item = session.read(row.code)
        assert (item.index, item.total) == (index, len(rows))


def _counted(rows: list[QueueRow]) -> tuple[int, int, int]:
    return (
        len(rows),
        sum(r.status == "submitted" for r in rows),
        sum(r.status == "draft" for r in rows),
    )


def test_the_counts_kept_on_write_follow_every_save(tmp_path: Path) -> None:
    db = connect(_study(tmp_path, 12))
    pk = _design_pk(db)
    ann, bo = ReviewSession(db, pk, "ann"), ReviewSession(db, pk, "bo")
    codes = [r.code for r in ann.queue()]
    steps: list[tuple[ReviewSession, str, bool, str]] = [
        (ann, codes[0], False, ""),  # a draft
        (ann, codes[0], True, ""),  # submitted: no longer a draft
        (ann, codes[1], False, ""),
        (bo, codes[2], False, ""),
        (bo, codes[2], False, ""),  # a second draft of an item stays one draft
        (bo, codes[3], True, ""),
        (ann, codes[0], True, "Reconsidered."),  # a revised submission stays one submission
    ]
    for session, code, submit, reason in steps:
        session.save(code, _preference(), 1.0, submit=submit, reason=reason)
        for who in (ann, bo):
            held = who.counts()
            assert (held.assigned, held.submitted, held.drafts) == _counted(who.queue())
    progress = {p.reviewer: p for p in overview.progress(db.conn, pk)}
    assert (progress["ann"].assigned, progress["ann"].submitted, progress["ann"].drafts) == (
        12,
        1,
        1,
    )
    assert (progress["bo"].submitted, progress["bo"].drafts) == (1, 1)


def test_a_replaced_plan_leaves_no_counts_behind(tmp_path: Path) -> None:
    db = connect(_study(tmp_path, 12))
    # Nobody has judged it yet: the same name replaces the plan (one reviewer now).
    create_from_choices(db, DesignChoices(name="pairs", reviewers="ann", seed=12))
    new = int(db.execute("SELECT MAX(pk) FROM designs").fetchone()[0])
    assert db.execute("SELECT design_pk, reviewer, assigned FROM queue_summaries").fetchall() == [
        (new, "ann", 12)
    ]


def _page_rows(session: ReviewSession, status: str, words: list[str], start: int) -> list[str]:
    return [r.code for r in session.queue_page(status, words, start, 7).rows]


def test_a_page_of_the_queue_is_the_slice_of_the_whole_queue(tmp_path: Path) -> None:
    db = connect(_study(tmp_path, 30))
    session = ReviewSession(db, _design_pk(db), "ann")
    for n, row in enumerate(session.queue()):
        if n % 4 == 0:
            session.save(row.code, _preference(), 1.0, submit=n % 8 == 0)
    rows = session.queue()
    tasks = task_texts(db, session.design_pk)
    word = tasks[rows[5].code].split()[2].upper()
    filters: dict[str, Callable[[QueueRow], bool]] = {
        "all": lambda r: True,
        "unfinished": lambda r: r.status != "submitted",
        "todo": lambda r: r.status == "todo",
        "draft": lambda r: r.status == "draft",
        "submitted": lambda r: r.status == "submitted",
    }
    for status, keep in filters.items():
        for words in ([], [word.lower()], [word.lower(), "draft"]):

            def matches(r: QueueRow, words: list[str] = words) -> bool:
                hay = " ".join((r.code, r.kind, r.status, tasks[r.code])).lower()
                return all(w in hay for w in words)

            expected = [r.code for r in rows if keep(r) and matches(r)]
            assert session.queue_matching(status, words) == len(expected)
            for start in range(0, len(expected) + 7, 7):
                assert _page_rows(session, status, words, start) == expected[start : start + 7]


def test_the_home_screen_lists_the_tasks_a_page_at_a_time_in_natural_order(
    tmp_path: Path,
) -> None:
    path = _study(tmp_path, 450)
    first = read_study_detail(path, "pandalm-pairs")
    assert first.task_total == 450 and len(first.tasks) == TASK_PAGE == 200
    pages = [
        first,
        read_study_detail(path, "pandalm-pairs", 200),
        read_study_detail(path, "pandalm-pairs", 400),
    ]
    ids = [t.summary.task.id for page in pages for t in page.tasks]
    assert ids == sorted(ids, key=natural_key) and len(set(ids)) == 450
    assert all(t.summary.runs == 2 and t.excluded == 0 for page in pages for t in page.tasks)
    assert sum(c.summary.runs for c in first.conditions) == 900
    ((_label, progress),) = first.progress
    assert [(p.reviewer, p.assigned, p.submitted) for p in progress] == [
        ("ann", 450, 0),
        ("bo", 450, 0),
    ]


def test_tasks_written_behind_the_order_are_ranked_again(tmp_path: Path) -> None:
    path = _study(tmp_path, 12)
    db = connect(path)
    db.execute("DELETE FROM task_order_stamps")
    db.execute("DELETE FROM task_order")
    db.conn.commit()
    db.close()
    detail = read_study_detail(path, "pandalm-pairs")
    ids = [t.summary.task.id for t in detail.tasks]
    assert len(ids) == 12 and ids == sorted(ids, key=natural_key)
    assert rows_in(path, "SELECT COUNT(*) FROM task_order") == 12


def rows_in(path: Path, sql: str) -> Any:
    with sqlite3.connect(path) as conn:
        return conn.execute(sql).fetchone()[0]


async def test_the_queue_screen_pages_through_a_long_queue(tmp_path: Path) -> None:
    path = _study(tmp_path, 450)
    app = make_app(path, reviewer="ann")
    async with drive(app, SIZE) as pilot:
        await compare_screen(pilot)
        app.screen.set_focus(None)
        await press(pilot, "l")
        queue = app.screen
        assert isinstance(queue, QueueScreen)
        await until(pilot, lambda: queue.view is not None, "the queue")
        table = queue.query_one(DataTable)
        summary = queue.query_one("#queue-summary")

        def numbers() -> list[int]:
            return [int(plain(table.get_row_at(i)[0])) for i in range(table.row_count)]

        assert table.row_count == PAGE
        assert numbers() == list(range(1, PAGE + 1))
        assert "items 1-200 of 450" in plain(summary.render())
        assert "450 items: 0 submitted" in plain(summary.render())
        await press(pilot, "right_square_bracket")
        assert numbers() == list(range(201, 401))
        await press(pilot, "right_square_bracket")
        assert numbers() == list(range(401, 451))
        assert "items 401-450 of 450" in plain(summary.render())
        await press(pilot, "right_square_bracket")  # past the end: stays
        assert numbers() == list(range(401, 451))
        await press(pilot, "left_square_bracket")
        assert numbers() == list(range(201, 401))


def test_a_page_starts_where_it_was_asked_to(tmp_path: Path) -> None:
    db = connect(_study(tmp_path, 12))
    page = queue_pages.page(db, _design_pk(db), "ann", "all", [], 3, 4)
    assert page.start == 3 and [r.order_index for r in page.rows] == [3, 4, 5, 6]
    assert set(page.tasks) == {r.code for r in page.rows}


def test_the_migration_counts_what_was_judged_before_it(tmp_path: Path) -> None:
    path = _study(tmp_path, 12)
    db = connect(path)
    pk = _design_pk(db)
    ann = ReviewSession(db, pk, "ann")
    codes = [r.code for r in ann.queue()]
    ann.save(codes[0], _preference(), 1.0, submit=True)
    ann.save(codes[1], _preference(), 1.0)
    ann.save(codes[2], _preference(), 1.0)
    ann.save(codes[2], _preference(), 1.0, submit=True)
    expected = _counted(ann.queue())
    # The database as an abp-tui before the summaries left it.
    for statement in (
        "DROP TRIGGER queue_summaries_assigned",
        "DROP TRIGGER queue_summaries_unassigned",
        "DROP TRIGGER queue_summaries_judged",
        "DROP TRIGGER queue_summaries_design_deleted",
        "DROP TABLE queue_summaries",
        "DROP TABLE task_order",
        "DROP TABLE task_order_stamps",
        "DROP INDEX tasks_current",
        "DROP INDEX runs_study_counts",
        "DROP INDEX runs_task",
        "DELETE FROM _migrations WHERE name = '0015_workstation_summaries'",
    ):
        db.execute(statement)
    db.conn.commit()
    db.close()
    again = connect(path)  # migrates
    held = ReviewSession(again, pk, "ann").counts()
    assert (held.assigned, held.submitted, held.drafts) == expected == (12, 2, 1)
    assert ReviewSession(again, pk, "bo").counts().assigned == 12


async def test_the_home_screen_pages_through_many_tasks(tmp_path: Path) -> None:
    path = _study(tmp_path, 450)
    app = make_app(path, reviewer="coordinator")  # nothing to judge: the home screen stays
    async with drive(app, SIZE) as pilot:
        await until(pilot, lambda: home_listed(app), "the home screen")
        home = app.screen
        assert isinstance(home, HomeScreen)
        await until(pilot, lambda: "pandalm-pairs" in home.details, "the study's detail")
        table = home.table("tasks")
        title = home.query_one("#tasks-title")

        def ids() -> list[str]:
            return [plain(table.get_row_at(i)[0]) for i in range(table.row_count)]

        first = ids()
        assert len(first) == 200 and "1-200 of 450" in plain(title.render())
        await press(pilot, "right_square_bracket")
        await until(pilot, lambda: ids() != first, "the next page")
        assert "201-400 of 450" in plain(title.render())
        second = ids()
        await press(pilot, "right_square_bracket")
        await until(pilot, lambda: ids() != second, "the last page")
        assert len(ids()) == 50 and "401-450 of 450" in plain(title.render())
        listed = first + second + ids()
        assert listed == sorted(listed, key=natural_key) and len(set(listed)) == 450


def test_the_queue_opens_on_the_page_of_the_item_shown(tmp_path: Path) -> None:
    path = _study(tmp_path, 30)
    db = connect(path)
    pk = _design_pk(db)
    rows = ReviewSession(db, pk, "ann").queue()
    desk = Desk(path, pk, "ann")
    try:
        page = desk.queue_page("all", [], None, 7, around=rows[16].code)
        assert page.start == 14 and [r.code for r in page.rows] == [r.code for r in rows[14:21]]
        assert (page.matching, page.counts.assigned) == (30, 30)
        # Past the last row: the last page, never a page of one row out of step.
        late = desk.queue_page("all", [], 29, 7)
        assert late.start == 28 and len(late.rows) == 2
        assert desk.queue_page("all", [], 500, 7).start == 28
        # Not in the filtered rows: the page where it would be.
        desk.store_staged()
        none = desk.queue_page("submitted", [], None, 7, around=rows[16].code)
        assert none.start == 0 and none.rows == [] and none.matching == 0
    finally:
        desk.close()
