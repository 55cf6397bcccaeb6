"""Shared set-up for the workstation's behaviour and snapshot tests (``tests/test_tui_*.py``).

Driving the app:

- ``drive(app, size)`` runs the real app headless (``App.run_test``) and, when the block ends,
  fails the test if any worker died of an internal error (the app keeps running after one and
  only shows it, so a test would otherwise pass over a bug);
- ``press`` sends keys the way the terminal driver does, one after the other, and returns once
  the app has handled them and the work they started is over (``settle``);
- ``until`` waits for a condition (polling the app) and fails after a timeout: never a fixed
  sleep. ``settle`` waits until no worker runs and every widget has handled what was queued.

``Pilot.press`` would do too, but it waits for the process to be idle twice per key (at least
40 ms each, more while the compare screen lays out), which made the compare tests take minutes;
here each key only waits until the app, its screen and the focused widget have handled it, and
a whole sequence is settled once at the end.

Reading what is shown: ``screen_text`` (the screenshot and every widget's full content, so text
scrolled out of view counts), ``plain``, ``rendered``, ``svg_text``; the database: ``rows``.
Snapshots: ``steady`` stops the text cursors blinking so every snapshot is the same.

Studies the TUI tests share (so a snapshot shows the same data its behaviour test checks):
``pair_study`` / ``pair_design`` (two tasks judged in pairs by ana; ``scored_pair_database``
with the automated judge's outcome of every run), ``home_study`` /
``studies_database`` (the home screen's counts), ``admin_database`` (a design two reviewers
judged, disagreeing on one item). This module holds no tests; the generic factories are in
``tests/factories.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import io
import re
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import sqlite_utils
from rich.console import Console
from rich.text import Text
from textual import events
from textual.app import App
from textual.keys import _character_to_key, key_to_character
from textual.pilot import Pilot
from textual.widgets import Collapsible, DataTable, Input, OptionList, Static, Tab
from textual.worker import WorkerCancelled

from abp_tui.models import Judgment, PreferenceChoice, ResponseJudgment, ResultState, StudyDesign
from abp_tui.services.designing import create_design
from abp_tui.services.importing import import_paths
from abp_tui.services.reviewing import ReviewSession
from abp_tui.store import connect
from abp_tui.store.automated import ScoreRow, current_run_pks, store_scores
from abp_tui.tui.app import AbpApp
from abp_tui.tui.screens.adjudicate import AdjudicationScreen
from abp_tui.tui.screens.compare import CompareScreen
from abp_tui.tui.screens.designs import open_review_screen
from abp_tui.tui.screens.home import HomeScreen
from abp_tui.tui.widgets.textpane import TextPane
from tests.factories import AFP_DIMS, GATE, flipped, write_jsonl

TIMEOUT = 20.0
"""Seconds a condition may take (generous: the machines running the suite are shared)."""


# -- building databases ---------------------------------------------------------------------------
def study_database(
    tmp_path: Path,
    lines: Sequence[Mapping[str, Any]],
    *designs: StudyDesign,
    name: str = "judge.db",
    source: str = "study.jsonl",
) -> Path:
    """A database at ``tmp_path / name`` with ``lines`` imported and ``designs`` created."""
    db_path = tmp_path / name
    db = connect(db_path)
    try:
        import_paths(db, [write_jsonl(tmp_path / source, lines)])
        for design in designs:
            create_design(db, design)
    finally:
        db.close()
    return db_path


def rows(db_path: Path, sql: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
    """What a query returns, read through a connection of its own."""
    db = sqlite_utils.Database(db_path)
    try:
        return [tuple(r) for r in db.execute(sql, params or []).fetchall()]
    finally:
        db.close()


# -- the studies the tests share -----------------------------------------------------------------
ANA, BO = "ana-lindqvist", "bo-okafor"
"""The two reviewers of the coordinator's study (``admin_database``)."""
STUDY = "pilot"


def pair_study(outputs: dict[tuple[str, str], str] | None = None) -> list[dict[str, Any]]:
    """Two conditions (A, C) and two tasks; each run's output says which task it answers."""
    outputs = outputs or {}
    lines: list[dict[str, Any]] = [
        {"type": "study", "id": "pilot", "rubric_id": "afp-v0.1", "synthetic": True},
        {"type": "condition", "id": "A", "label": "Model only"},
        {"type": "condition", "id": "C", "label": "Workflow"},
    ]
    for task in ("T1", "T2"):
        lines.append(
            {
                "type": "task",
                "id": task,
                "prompt": f"Summarise the memo for {task}.",
                "evidence": "Memo: the launch moves to May; Ana owns the checklist.",
                "expected_behaviour": "States the new month and the owner.",
                "fatal_criteria": [f"Invents an owner for {task}."],
            }
        )
        for cond in ("A", "C"):
            text = f"The launch moves to May.\nAna owns the checklist ({task}, {cond.lower()})."
            lines.append(
                {
                    "type": "run",
                    "id": f"{task}-{cond}",
                    "task_id": task,
                    "condition_id": cond,
                    "output": outputs.get((task, cond), text),
                }
            )
    return lines


def pair_design(reviewers: list[str] | None = None) -> StudyDesign:
    return StudyDesign(
        study="pilot",
        name="pairs",
        seed=11,
        contrasts=[("C", "A")],
        reviewers=["ana"] if reviewers is None else reviewers,
    )


def scored_pair_database(tmp_path: Path) -> tuple[Path, int]:
    """The TUI's pair study (conditions A "Model only" and C "Workflow") with an automated
    outcome stored for every run: A's runs fail, C's pass, and each reason names its
    condition's label and carries a terminal escape, as untrusted text may."""
    db_path = tmp_path / "judge.db"
    db = connect(db_path)
    try:
        import_paths(db, [write_jsonl(tmp_path / "study.jsonl", pair_study())])
        pk = create_design(db, pair_design()).pk
        runs = current_run_pks(db, "pilot")
        rows = []
        for run_id, (run_pk, _metadata) in sorted(runs.items()):
            passed = run_id.endswith("-C")
            label = "Workflow" if passed else "Model only"
            dimensions = [
                {
                    "dimension": "oracle",
                    "outcome": "pass" if passed else "fail",
                    "reason": f"the {label} answer \x1b[31mdiffers",
                },
                {"dimension": "code_correctness", "outcome": "unscored", "reason": "unscored"},
            ]
            row = ScoreRow(
                run_id=run_id,
                outcome="passed" if passed else "failed",
                dimensions=dimensions,
                document={},
            )
            rows.append((run_pk, row))
        store_scores(db, "pilot", "test-judge/1", "0" * 64, "1" * 64, rows)
    finally:
        db.close()
    return db_path, pk


def home_study(study_id: str = "pilot", name: str = "Pilot study") -> list[dict[str, Any]]:
    """Two conditions, three tasks, five runs (one an infrastructure error), three trace events."""

    def run(rid: str, task: str, cond: str) -> dict[str, Any]:
        return {"type": "run", "id": rid, "task_id": task, "condition_id": cond, "output": rid}

    return [
        {"type": "study", "id": study_id, "name": name, "synthetic": True},
        {"type": "condition", "id": "A", "label": "Model only"},
        {"type": "condition", "id": "B", "label": "General instructions"},
        {"type": "task", "id": "T1", "risk_type": "Source conflict"},
        {"type": "task", "id": "T2", "risk_type": "Missing evidence"},
        {"type": "task", "id": "T3"},
        {"type": "trace_event", "run_id": "r1", "seq": 1, "kind": "run.start"},
        {"type": "trace_event", "run_id": "r1", "seq": 2, "kind": "model.call"},
        {"type": "trace_event", "run_id": "r1", "seq": 3, "kind": "run.end"},
        run("r1", "T1", "A"),
        run("r2", "T1", "B"),
        run("r3", "T2", "A"),
        {**run("r4", "T2", "B"), "origin_status": "INFRA_ERROR"},
        run("r5", "T3", "B"),
    ]


def studies_database(tmp_path: Path, *studies: list[dict[str, Any]], name: str = "home.db") -> Path:
    """A database at ``tmp_path / name`` with each study's lines imported."""
    db_path = tmp_path / name
    db = connect(db_path)
    try:
        for index, lines in enumerate(studies):
            import_paths(db, [write_jsonl(tmp_path / f"study{index}.jsonl", lines)])
    finally:
        db.close()
    return db_path


def _admin_study_lines() -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = [
        {"type": "study", "id": STUDY, "rubric_id": "afp-v0.1", "synthetic": True},
        {"type": "condition", "id": "A", "label": "Model only"},
        {"type": "condition", "id": "C", "label": "Workflow"},
    ]
    for task in ("T1", "T2"):
        lines.append(
            {
                "type": "task",
                "id": task,
                "prompt": f"Summarise the memo for {task}.",
                "evidence": "Memo: the launch moves to May; Ana owns the checklist.",
                "fatal_criteria": [f"Invents an owner for {task}."],
            }
        )
        for cond in ("A", "C"):
            lines.append(
                {
                    "type": "run",
                    "id": f"{task}-{cond}",
                    "task_id": task,
                    "condition_id": cond,
                    "output": f"The launch moves to May ({task}, {cond.lower()}).",
                }
            )
    return lines


def _response(score: int) -> ResponseJudgment:
    return ResponseJudgment(
        scores={d: score for d in AFP_DIMS},
        rationales={d: "only partly supported" for d in AFP_DIMS} if score < 2 else {},
    )


def _judgment(first: int, second: int, preference: PreferenceChoice) -> Judgment:
    return Judgment(
        responses={"1": _response(first), "2": _response(second)},
        preference=preference,
        justification="Clearer about the owner.",
        validity=GATE,
    )


def _two_reviewer_design(
    tmp_path: Path, db: sqlite_utils.Database, *, name: str, **choices: Any
) -> tuple[int, ReviewSession, ReviewSession, list[str], PreferenceChoice]:
    """The admin study imported and a C-vs-A design judged by ana and bo on it: its pk, their
    sessions, the item codes, and the preference by which bo, as bo sees the first item, picks
    the other run than ana's Response 1."""
    source = tmp_path / "study.jsonl"
    write_jsonl(source, _admin_study_lines())
    import_paths(db, [source])
    design = StudyDesign(
        study=STUDY,
        name=name,
        seed=5,
        contrasts=[("C", "A")],
        reviewers=[ANA, BO],
        reviewers_per_item=2,
        **choices,
    )
    pk = create_design(db, design).pk
    ana, bo = ReviewSession(db, pk, ANA), ReviewSession(db, pk, BO)
    codes = sorted(r.code for r in ana.queue())
    same = flipped(ana, codes[0]) == flipped(bo, codes[0])
    return pk, ana, bo, codes, PreferenceChoice.RESPONSE_2 if same else PreferenceChoice.RESPONSE_1


def admin_database(tmp_path: Path, *, dispute_only: bool = False) -> tuple[Path, int, list[str]]:
    """A study with two pair items judged by ana and bo.

    The first item: ana prefers one run and scores everything 2, bo prefers the other run and
    scores one response 0 (preferences conflict, a dimension differs by 2). The second item:
    both agree. With ``dispute_only``, bo alone judges the second item and marks it
    GRADER_DISPUTE, so it is disputed while ana has not submitted it.
    """
    db_path = tmp_path / "admin.db"
    db = connect(db_path)
    try:
        pk, ana, bo, codes, other_for_bo = _two_reviewer_design(tmp_path, db, name="pairs")
        ana.save(codes[0], _judgment(2, 2, PreferenceChoice.RESPONSE_1), 3, submit=True)
        bo.save(codes[0], _judgment(0, 2, other_for_bo), 3, submit=True)
        if dispute_only:
            disputed = _judgment(2, 2, PreferenceChoice.TIE)
            responses = dict(disputed.responses)
            responses["1"] = ResponseJudgment(
                state_override=ResultState.GRADER_DISPUTE,
                override_reason="The expected behaviour contradicts the evidence.",
            )
            bo.save(codes[1], disputed.model_copy(update={"responses": responses}), 3, submit=True)
        else:
            ana.save(codes[1], _judgment(2, 2, PreferenceChoice.TIE), 3, submit=True)
            bo.save(codes[1], _judgment(2, 2, PreferenceChoice.TIE), 3, submit=True)
    finally:
        db.close()
    return db_path, pk, codes


def preference_admin_database(tmp_path: Path) -> tuple[Path, int, list[str]]:
    """The study of :func:`admin_database` on a preference-only design (no rubric) naming carol
    its adjudicator: ana and bo prefer different runs of the first item and agree on the
    second."""
    db_path = tmp_path / "preferences.db"
    db = connect(db_path)
    try:
        pk, ana, bo, codes, other_for_bo = _two_reviewer_design(
            tmp_path, db, name="prefs", rubric="none", adjudicators=["carol"]
        )
        said = "Reads better."
        ana.save(
            codes[0],
            Judgment(preference=PreferenceChoice.RESPONSE_1, justification=said),
            3,
            submit=True,
        )
        bo.save(codes[0], Judgment(preference=other_for_bo, justification=said), 3, submit=True)
        for session in (ana, bo):
            tie = Judgment(preference=PreferenceChoice.TIE, justification="The same.")
            session.save(codes[1], tie, 3, submit=True)
    finally:
        db.close()
    return db_path, pk, codes


# -- driving the app ------------------------------------------------------------------------------
@asynccontextmanager
async def drive(app: App[Any], size: tuple[int, int]) -> AsyncIterator[Pilot[Any]]:
    """Run ``app`` headless; afterwards, fail on any internal error a worker reported."""
    async with app.run_test(size=size) as pilot:
        yield pilot
    if isinstance(app, AbpApp):
        internal = [f"{f.description}: {f.reason}" for f in app.failures if f.internal]
        assert not internal, f"workers failed with internal errors: {internal}"


def _busy(app: App[Any]) -> bool:
    return any(not worker.is_finished for worker in app.workers)


async def settle(pilot: Pilot[Any], timeout: float = TIMEOUT) -> None:
    """Wait until no worker runs and every widget handled its messages (twice in a row: a
    worker's result may start another worker)."""
    app = pilot.app
    deadline = time.monotonic() + timeout
    quiet = 0
    while quiet < 2 and app.is_running:
        if time.monotonic() > deadline:
            raise AssertionError(f"the app did not settle within {timeout} s")
        if _busy(app):
            quiet = 0
            # An exclusive worker replaced by a newer one (the import path's completion, at each
            # key) ends cancelled: finished, not failed (drive() reports workers that failed).
            with contextlib.suppress(WorkerCancelled):
                await app.workers.wait_for_complete()
        await pilot.pause(0)
        quiet = quiet + 1 if not _busy(app) else 0


async def until(
    pilot: Pilot[Any], condition: Callable[[], object], what: str = "", timeout: float = TIMEOUT
) -> None:
    """Wait until ``condition()`` is true (the app keeps running meanwhile)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what or condition}")
        await pilot.pause(0)
        await asyncio.sleep(0.005)


def _key_event(key: str) -> events.Key:
    """The event a terminal sends for ``key`` (a key name, or one typed character: named the
    way Textual's own input parser names it)."""
    if len(key) == 1:
        return events.Key(_character_to_key(key), key)
    return events.Key(key, key_to_character(key))


async def _handled(pilot: Pilot[Any]) -> None:
    """Wait until a key just posted has been handled: by the app, then by the focused widget and
    each ancestor it bubbles through to the screen, where the screen's keys are resolved (one
    round per hop; each round waits for every node on the way to have handled its queue)."""
    app = pilot.app
    focused = app.focused
    depth = len(list(focused.ancestors_with_self)) if focused is not None else 1
    for _ in range(depth + 1):
        if not app.is_running:
            return
        nodes = {app, app.screen}
        if app.focused is not None:
            nodes.update(app.focused.ancestors_with_self)
        handled = []
        for node in nodes:
            done = asyncio.Event()
            if node.call_later(done.set):
                handled.append(done.wait())
        # A node whose app crashed (a bug, or markup it could not parse) handles nothing more:
        # stop waiting then, and let the test see that the app is no longer running.
        waiting = asyncio.ensure_future(asyncio.gather(*handled))
        while not waiting.done():
            if not app.is_running:
                waiting.cancel()
                return
            await asyncio.wait([waiting], timeout=0.05)


async def press(pilot: Pilot[Any], *keys: str, settled: bool = True) -> None:
    """Press ``keys`` one after the other, as the terminal delivers them; then settle (unless
    ``settled`` is False: the test waits for its own condition, a worker being held up)."""
    app = pilot.app
    for key in keys:
        app.post_message(_key_event(key))
        await _handled(pilot)
    if settled:
        await settle(pilot)


async def type_text(pilot: Pilot[Any], text: str) -> None:
    """Type ``text`` character by character, then settle."""
    await press(pilot, *text)


class HumanPace:
    """A clock for the compare screen's typing guard that moves a second per key it reads.

    The guard tells typing from deliberate keys by their distance in time. The tests press keys
    far faster than a person would; on this clock every key comes at a person's pace, so only
    the guard's own test (which sets its own clock) ever makes a burst of typing.
    """

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


async def adjudicate_highlighted(pilot: Pilot[Any]) -> AdjudicationScreen:
    """Enter on the disagreements list: the adjudication screen, once its item is shown."""
    app = pilot.app
    await press(pilot, "enter")
    await until(
        pilot,
        lambda: isinstance(app.screen, AdjudicationScreen) and app.screen.item is not None,
        "the item to adjudicate",
    )
    screen = app.screen
    assert isinstance(screen, AdjudicationScreen)
    return screen


async def adjudicating(pilot: Pilot[Any]) -> AdjudicationScreen:
    """From the app's first screen: its design's disagreements, then Enter on the first one."""
    app: Any = pilot.app
    await settle(pilot)
    open_review_screen(app, app.db_path, app.reviewer, "disagreements")
    await settle(pilot)
    return await adjudicate_highlighted(pilot)


def home_listed(app: App[Any], table: str = "studies") -> int:
    """The rows of one of the home screen's tables, 0 until the home screen is shown with its
    tables (at start-up it is pushed once the reviewer is found to have nothing to judge, and
    beneath an item it is built when first shown)."""
    screen = app.screen
    if not isinstance(screen, HomeScreen):
        return 0
    return sum(t.row_count for t in screen.query(f"#{table}").results(DataTable))


async def compare_screen(pilot: Pilot[Any]) -> CompareScreen:
    """The compare screen, once it shows an item and has settled (keys at a person's pace)."""

    def shown() -> bool:
        screen = pilot.app.screen
        return isinstance(screen, CompareScreen) and screen.item is not None

    await until(pilot, shown, "the compare screen to show an item")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, CompareScreen)
    screen.guard.clock = HumanPace()
    return screen


def showing(pilot: Pilot[Any], screen: object) -> bool:
    """Whether ``screen`` is the one shown (a function: mypy keeps no narrowing across it)."""
    return pilot.app.screen is screen


# -- reading the screen ---------------------------------------------------------------------------
def plain(renderable: object, width: int = 400) -> str:
    """The text of a renderable (a Rich ``Text`` as is, anything else rendered at ``width``)."""
    if isinstance(renderable, Text):
        return renderable.plain
    if isinstance(renderable, str):
        return renderable
    console = Console(width=width, record=True, file=io.StringIO(), color_system=None)
    console.print(renderable)
    return console.export_text()


def rendered(renderable: object, width: int = 160) -> str:
    """A renderable printed at ``width`` cells, as plain text (tables wrap as on screen)."""
    console = Console(width=width, record=True, file=io.StringIO(), color_system=None)
    console.print(renderable)
    return console.export_text()


def svg_text(svg: str) -> str:
    """The characters of a screenshot, line by line."""
    return html.unescape("".join(re.findall(r">([^<]*)</text>", svg))).replace("\xa0", " ")


def screen_text(pilot: Pilot[Any]) -> str:
    """Everything the current screen renders: the screenshot, and every widget's full content
    (so text scrolled out of view counts too)."""
    parts = [svg_text(pilot.app.export_screenshot())]
    for widget in pilot.app.screen.query("*"):
        if isinstance(widget, Static):
            parts.append(plain(widget.content))
        elif isinstance(widget, TextPane):
            parts.append(widget.text + "\n" + widget.placeholder)
        elif isinstance(widget, DataTable):
            for index in range(widget.row_count):
                parts.extend(plain(cell) for cell in widget.get_row_at(index))
        elif isinstance(widget, Input):
            parts.append(widget.value + "\n" + widget.placeholder)
        elif isinstance(widget, OptionList):
            parts.extend(
                str(widget.get_option_at_index(i).prompt) for i in range(widget.option_count)
            )
        elif isinstance(widget, Collapsible):
            parts.append(widget.title)
        elif isinstance(widget, Tab):
            parts.append(str(widget.label))
    return "\n".join(parts)


def static_text(pilot: Pilot[Any], selector: str) -> str:
    """The content of one ``Static`` of the current screen."""
    return plain(pilot.app.screen.query_one(selector, Static).content)


# -- snapshots ------------------------------------------------------------------------------------
def steady(pilot: Pilot[Any]) -> None:
    """No blinking text cursor on any screen: a snapshot never catches one half-drawn."""
    for screen in pilot.app.screen_stack:
        for field in screen.query(Input):
            field.cursor_blink = False
