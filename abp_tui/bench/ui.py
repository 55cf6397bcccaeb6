"""``abp-tui bench ui``: from the "next item" key to a settled compare screen, beside a floor.

For each output size (10 KB and 200 KB by default) a study of generated pairs is imported into a
temporary database with a design judged by one reviewer, and two contenders are driven headlessly
(``App.run_test``) with the same key, ``]``, in the same run:

1. ours: the workstation (``make_app``) on its compare screen as a reviewer uses it: while an
   item is shown, the next one is read ahead in a worker (masked, wrapped and diffed in the
   helper process), so the key shows it at once; the reading ahead for the item after it then
   runs while the reviewer reads;
2. ours, cold: the same screen with reading ahead switched off (``CompareScreen.READ_AHEAD``),
   as when the reviewer jumps to an item from the queue: the item is read in a worker after the
   key, and the word diff of a long pair arrives after its texts;
3. the floor: a bare Textual app that shows the same two texts of each pair in two ``Static``
   widgets inside two ``VerticalScroll`` containers side by side, switching to the next pair's
   texts on the same key: the least any Textual screen showing both texts can do.

The key is delivered as a terminal would deliver it (a ``Key`` event sent through the driver), and
every screen update the app makes is timed where the compositor hands it to the driver, so the
settled time is the moment of the screen's last update, not the moment a polling loop noticed it
(see ``SETTLED``). Meanwhile a 2 ms asyncio timer in the same event loop records how late it
wakes: its worst lateness is the longest the event loop was blocked, reported from the key until
the diff highlighting was drawn (ours), until the screen settled (all), and until every worker had
finished (all; for ours this includes reading ahead and diffing the next item, so the stall goal
covers every diff the screen computes).

This module only measures; apart from switching reading ahead off for the cold run, it changes
nothing in the workstation.
"""

from __future__ import annotations

import asyncio
import json
import os
import platform
import random
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import textual
from rich.console import RenderableType
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Static

from abp_tui.errors import AbpError
from abp_tui.tui.screens.compare import CompareScreen

SIZES = (10 * 1024, 200 * 1024)
"""Characters (bytes: the generated text is ASCII) of each response of a pair."""
FLOOR_GOAL = 1.5
"""Ours against the floor at the smallest size: at most this many times its settled time."""
STALL_GOAL_SECONDS = 0.1
"""At the largest size: the event loop is never blocked longer than this while the diff runs."""
TERMINAL = (160, 45)
TICK_SECONDS = 0.002
"""Period of the timer that measures how long the event loop is blocked."""
TIMEOUT_SECONDS = 120.0
NEXT_KEY = "right_square_bracket"

SETTLED = (
    "t0 is taken just before the ']' key event is sent through the app's driver (as a terminal "
    "delivers it). The screen is settled once (a) it shows the next item (ours: the compare "
    "screen's current blind code changed and both response panes hold the new item's texts, "
    "wrapped; the floor: both Statics hold the next pair's texts), (b) ours only: the word diff "
    "of the new pair has arrived and is shown, (c) no worker is pending or running, and (d) "
    "Pilot.pause() returned (every message queue of the screen drained and the process idle). "
    "The settled time is then the time of the app's last screen update after t0 (timed where "
    "the compositor hands the update to the driver), so polling adds nothing to it. first_paint "
    "is the first update that shows both new texts; diff_painted (ours) the first update with "
    "the new pair's diff highlighting."
)

_CORPUS = (
    "the service returns an error when the request carries a stale token and the cache "
    "has not been refreshed since the last deployment so every retry fails in the same way "
    "until the operator clears it by hand which is why the runbook asks for a restart of the "
    "gateway before anything else we checked the logs of both regions and found that the "
    "timeout was raised after thirty seconds while the upstream answered in under two seconds "
    "this suggests the connection pool was exhausted by long running report queries that hold "
    "their connections open for the whole export a fix would cap the pool per tenant and move "
    "exports to a separate worker queue with its own limits the migration touches three tables "
    "orders invoices and customers and needs a backfill that can run in batches of ten thousand "
    "rows without locking readers the test suite covers the happy path but not the case where a "
    "batch fails halfway through leaving partial rows that the next run would count twice we "
    "recommend adding an idempotency key to each batch and a check that compares totals before "
    "and after the evidence in the ticket shows the customer saw a duplicate charge on the "
    "fourth of may which matches the window when the scheduler restarted twice in one hour "
    "owner priority impact summary decision rollback checklist reviewer approval budget "
    "latency throughput regression baseline metric dashboard alert threshold incident"
)
_WORDS = _CORPUS.split()
_SWAPS = (
    "however",
    "probably",
    "clearly",
    "immediately",
    "carefully",
    "unexpectedly",
    "roughly",
    "finally",
    "instead",
    "currently",
)
_CODE = (
    "    def settle(batch: list[Row]) -> int:",
    "        total = sum(row.amount for row in batch)",
    "        if total != expected_total(batch):",
    "            raise BatchMismatch(batch.id, total)",
    "        return len(batch)",
    "$ psql -c 'SELECT count(*) FROM invoices WHERE batch_id IS NULL;'",
)


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(_WORDS) for _ in range(rng.randint(8, 26))]
    words[0] = words[0].capitalize()
    if rng.random() < 0.2:
        words.insert(rng.randint(1, len(words) - 1), f"{rng.randint(2, 9999):,}")
    return " ".join(words) + rng.choice(".....?!")


def _edit(sentence: str, rng: random.Random) -> str:
    """The other condition's version of a sentence: a few words replaced, dropped or added."""
    words = sentence.split(" ")
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(words))
        roll = rng.random()
        if roll < 0.5:
            words[i] = rng.choice(_SWAPS)
        elif roll < 0.75 and len(words) > 4:
            del words[i]
        else:
            words.insert(i, rng.choice(_SWAPS))
    return " ".join(words)


def output_pair(size: int, seed: int) -> tuple[str, str]:
    """Two answers to one task, about ``size`` characters each, differing word by word.

    Markdown as agents write it: headings, paragraphs (long lines that wrap), bullet lists and
    code lines. The second answer edits about a third of the sentences of the first (words
    replaced, dropped or inserted) and adds or drops a sentence now and then, so a word diff
    has real work spread over the whole text.
    """
    rng = random.Random(seed)
    left: list[str] = []
    right: list[str] = []
    length = 0
    section = 0
    while length < size:
        section += 1
        heading = f"## {section}. {' '.join(rng.choice(_WORDS) for _ in range(3)).title()}"
        blocks_left = [heading, ""]
        blocks_right = [heading, ""]
        for _ in range(rng.randint(2, 4)):
            kind = rng.random()
            if kind < 0.6:
                para_l, para_r = [], []
                for _ in range(rng.randint(3, 7)):
                    sentence = _sentence(rng)
                    para_l.append(sentence)
                    roll = rng.random()
                    if roll < 0.33:
                        para_r.append(_edit(sentence, rng))
                    elif roll < 0.36:
                        continue
                    else:
                        para_r.append(sentence)
                    if rng.random() < 0.03:
                        para_r.append(_sentence(rng))
                blocks_left += [" ".join(para_l), ""]
                blocks_right += [" ".join(para_r), ""]
            elif kind < 0.85:
                for _ in range(rng.randint(2, 5)):
                    item = "- " + _sentence(rng)
                    blocks_left.append(item)
                    blocks_right.append(_edit(item, rng) if rng.random() < 0.3 else item)
                blocks_left.append("")
                blocks_right.append("")
            else:
                code = ["```", *rng.sample(_CODE, 4), "```", ""]
                blocks_left += code
                blocks_right += code
        left += blocks_left
        right += blocks_right
        length = sum(len(line) + 1 for line in left)
    return "\n".join(left)[:size], "\n".join(right)[:size]


# -- the study ------------------------------------------------------------------------------------
def _study_lines(size: int, tasks: int) -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = [
        {
            "type": "study",
            "id": "bench-ui",
            "name": "UI benchmark",
            "rubric_id": "afp-v0.1",
            "synthetic": True,
        },
        {"type": "condition", "id": "A", "label": "Model only"},
        {"type": "condition", "id": "B", "label": "With workflow"},
    ]
    for t in range(tasks):
        task = f"T{t + 1:02d}"
        lines.append(
            {
                "type": "task",
                "id": task,
                "prompt": f"Diagnose the failed nightly export ({task}) and propose a fix.",
                "evidence": "Gateway logs of both regions; the export job's timings.",
                "expected_behaviour": "Names the exhausted pool and a safe fix.",
                "fatal_criteria": ["Recommends deleting the partial rows by hand."],
                "synthetic": True,
            }
        )
        text_a, text_b = output_pair(size, seed=size * 1000 + t)
        for cond, text in (("A", text_a), ("B", text_b)):
            lines.append(
                {
                    "type": "run",
                    "id": f"{task}-{cond}",
                    "task_id": task,
                    "condition_id": cond,
                    "output": text,
                    "synthetic": True,
                }
            )
    return lines


def build_database(root: Path, size: int, tasks: int) -> tuple[Path, list[tuple[str, str]]]:
    """A database with one pair design of ``tasks`` items; also the pairs' texts, by task."""
    from abp_tui.models import StudyDesign
    from abp_tui.services.designing import create_design
    from abp_tui.services.importing import import_paths
    from abp_tui.store import connect

    lines = _study_lines(size, tasks)
    source = root / f"bench-ui-{size}.jsonl"
    source.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    db_path = root / f"bench-ui-{size}.db"
    db = connect(db_path)
    try:
        import_paths(db, [source])
        create_design(
            db,
            StudyDesign(
                study="bench-ui", name="bench", seed=1, contrasts=[("B", "A")], reviewers=["bench"]
            ),
        )
    finally:
        db.close()
    runs = [x["output"] for x in lines if x["type"] == "run"]
    return db_path, [(runs[i], runs[i + 1]) for i in range(0, len(runs), 2)]


def _copy_database(source: Path, target: Path) -> Path:
    """A copy of the study database, so each contender starts on the first item."""
    with closing(sqlite3.connect(source)) as src, closing(sqlite3.connect(target)) as dst:
        src.backup(dst)
    return target


# -- the floor ------------------------------------------------------------------------------------
class FloorApp(App[None]):
    """Two texts side by side in two plain scrollable widgets; ``]`` shows the next pair."""

    # A bench fixture, not part of the workstation: its few rules stay beside it.
    CSS = """
    #floor { height: 1fr; }
    #floor > VerticalScroll { width: 1fr; height: 1fr; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(NEXT_KEY, "next_pair", "Next", id="floor.next", tooltip="Show the next pair.")
    ]

    def __init__(self, pairs: list[tuple[str, str]]) -> None:
        super().__init__()
        self.pairs = pairs
        self.index = 0

    def compose(self) -> ComposeResult:
        left, right = self.pairs[0]
        with Horizontal(id="floor"):
            with VerticalScroll():
                yield Static(left, markup=False, id="left")
            with VerticalScroll():
                yield Static(right, markup=False, id="right")

    def action_next_pair(self) -> None:
        if self.index + 1 >= len(self.pairs):
            return
        self.index += 1
        left, right = self.pairs[self.index]
        for name, text in (("left", left), ("right", right)):
            static = self.query_one(f"#{name}", Static)
            static.update(text)
            scroller = static.parent
            if isinstance(scroller, VerticalScroll):
                scroller.scroll_home(animate=False)


# -- measuring ------------------------------------------------------------------------------------
@dataclass
class Press:
    """One "next" key press: when things happened, in seconds after the key was sent."""

    settled: float
    first_paint: float | None
    diff_painted: float | None
    max_stall_to_diff: float | None
    max_stall_to_settled: float
    max_stall_to_idle: float
    """From the key until no worker was running (ours: the next item read ahead and diffed)."""
    paints: int


@dataclass
class _Probe:
    """What one app did after a key: its screen updates and the event loop's lateness."""

    shown: Callable[[], bool] = field(default=lambda: False)
    diffed: Callable[[], bool] = field(default=lambda: True)
    paints: list[tuple[float, bool, bool]] = field(default_factory=list)
    """(time, the new texts shown, the new diff shown) of each screen update."""
    wakes: list[tuple[float, float]] = field(default_factory=list)
    """(time, lateness) of each wake of the stall timer."""

    def on_paint(self) -> None:
        self.paints.append((time.perf_counter(), self.shown(), self.diffed()))


def _watch_paints(app: App[None], probe: _Probe) -> None:
    """Note the time of every screen update the app hands to its driver.

    ``App._display`` is where the compositor's update goes to the terminal (a no-op in headless
    mode, after the update was rendered): the one place every repaint passes.
    """
    display = app._display

    def timed(screen: Screen[Any], renderable: RenderableType | None) -> None:
        display(screen, renderable)
        if renderable is not None:
            probe.on_paint()

    app.__dict__["_display"] = timed


async def _stall_timer(probe: _Probe, stop: asyncio.Event) -> None:
    while not stop.is_set():
        before = time.perf_counter()
        await asyncio.sleep(TICK_SECONDS)
        now = time.perf_counter()
        probe.wakes.append((now, now - before - TICK_SECONDS))


def _max_stall(probe: _Probe, start: float, end: float) -> float:
    """The longest the event loop was blocked within [start, end] (a wake late by L seconds
    means the loop could not run for L seconds before it)."""
    worst = 0.0
    for woke, late in probe.wakes:
        if woke >= start and woke - late <= end:
            worst = max(worst, late)
    return worst


def _idle_workers(app: App[None]) -> bool:
    return all(worker.is_finished for worker in app.workers)


async def _settle(pilot: Pilot[None], done: Callable[[], bool]) -> None:
    app = pilot.app
    deadline = time.perf_counter() + TIMEOUT_SECONDS
    while True:
        if time.perf_counter() > deadline:
            raise AbpError("bench ui: the screen did not settle within two minutes")
        await asyncio.sleep(0.005)
        if done() and _idle_workers(app):
            await pilot.pause()
            if done() and _idle_workers(app):
                return


async def _press(pilot: Pilot[None], probe: _Probe, done: Callable[[], bool]) -> Press:
    app = pilot.app
    probe.paints.clear()
    probe.wakes.clear()
    driver = app._driver
    if driver is None:
        raise AbpError("bench ui: the app has no driver")
    began = time.perf_counter()
    key = events.Key(NEXT_KEY, "]")
    key.set_sender(app)
    driver.send_message(key)
    await _settle(pilot, done)
    idle = time.perf_counter()
    paints = [p for p in probe.paints if p[0] >= began]
    if not paints:
        raise AbpError("bench ui: the next item was never drawn")
    settled = paints[-1][0]
    first = next((t for t, shown, _d in paints if shown), None)
    diffed = next((t for t, shown, d in paints if shown and d), None)
    return Press(
        settled=settled - began,
        first_paint=None if first is None else first - began,
        diff_painted=None if diffed is None else diffed - began,
        max_stall_to_diff=None if diffed is None else _max_stall(probe, began, diffed),
        max_stall_to_settled=_max_stall(probe, began, settled),
        max_stall_to_idle=_max_stall(probe, began, idle),
        paints=len(paints),
    )


async def _run_ours(db_path: Path, presses: int, *, read_ahead: bool = True) -> list[Press]:
    from abp_tui.tui.app import make_app

    app = make_app(db_path, "bench")
    saved = CompareScreen.READ_AHEAD
    CompareScreen.READ_AHEAD = read_ahead
    try:
        return await _drive_ours(app, presses)
    finally:
        CompareScreen.READ_AHEAD = saved


async def _drive_ours(app: App[None], presses: int) -> list[Press]:
    probe = _Probe()
    stop = asyncio.Event()
    results: list[Press] = []
    async with app.run_test(size=TERMINAL) as pilot:
        _watch_paints(app, probe)
        timer = asyncio.create_task(_stall_timer(probe, stop))
        try:
            await _settle(pilot, lambda: _compare_ready(app))
            for _ in range(presses):
                screen = app.screen
                if not isinstance(screen, CompareScreen) or screen.item is None:
                    raise AbpError("bench ui: the compare screen is not showing an item")
                previous = screen.item.code

                def shown(screen: CompareScreen = screen, previous: str = previous) -> bool:
                    return _compare_shown(screen, previous)

                def diffed(screen: CompareScreen = screen) -> bool:
                    return screen.pair.marks is not None

                def ready(screen: CompareScreen = screen, previous: str = previous) -> bool:
                    return _compare_shown(screen, previous) and screen.pair.marks is not None

                probe.shown, probe.diffed = shown, diffed
                results.append(await _press(pilot, probe, ready))
        finally:
            stop.set()
            await timer
    return results


def _compare_shown(screen: CompareScreen, previous: str | None) -> bool:
    """The compare screen shows an item other than ``previous``, both texts wrapped in panes."""
    item = screen.item
    pair = screen.pair
    if item is None or item.code == previous or len(pair.texts) != 2:
        return False
    panes = pair.panes()
    return len(panes) == 2 and all(
        pane.text is text and pane.is_laid_out for pane, text in zip(panes, pair.texts, strict=True)
    )


def _compare_ready(app: App[None]) -> bool:
    """The compare screen shows its first item with the diff (the state before the first key)."""
    screen = app.screen
    return (
        isinstance(screen, CompareScreen)
        and _compare_shown(screen, None)
        and screen.pair.marks is not None
    )


async def _run_floor(pairs: list[tuple[str, str]], presses: int) -> list[Press]:
    app = FloorApp(pairs)
    probe = _Probe()
    stop = asyncio.Event()
    results: list[Press] = []
    async with app.run_test(size=TERMINAL) as pilot:
        _watch_paints(app, probe)
        timer = asyncio.create_task(_stall_timer(probe, stop))
        try:
            await _settle(pilot, lambda: True)
            for _ in range(presses):
                target = app.index + 1
                left = app.query_one("#left", Static)
                right = app.query_one("#right", Static)

                def shown(target: int = target, left: Static = left, right: Static = right) -> bool:
                    pair = pairs[target]
                    return (
                        app.index == target and left.content is pair[0] and right.content is pair[1]
                    )

                probe.shown = shown
                probe.diffed = shown
                results.append(await _press(pilot, probe, shown))
        finally:
            stop.set()
            await timer
    return results


# -- the report -----------------------------------------------------------------------------------
def _median(values: Sequence[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return round(statistics.median(present), 4) if present else None


def _samples(values: Sequence[float | None]) -> list[float | None]:
    return [None if v is None else round(v, 4) for v in values]


def _figures(presses: list[Press], *, diff: bool) -> dict[str, Any]:
    timed = presses[1:]  # the first press warms up (modules, caches, the diff process)
    figures: dict[str, Any] = {
        "median_seconds": _median([p.settled for p in timed]),
        "samples_seconds": _samples([p.settled for p in timed]),
        "first_paint_median_seconds": _median([p.first_paint for p in timed]),
        "first_paint_samples_seconds": _samples([p.first_paint for p in timed]),
    }
    if diff:
        figures |= {
            "diff_painted_median_seconds": _median([p.diff_painted for p in timed]),
            "diff_painted_samples_seconds": _samples([p.diff_painted for p in timed]),
            "max_stall_until_diff_seconds": round(
                max((p.max_stall_to_diff or 0.0) for p in timed), 4
            ),
            "stall_until_diff_samples_seconds": _samples([p.max_stall_to_diff for p in timed]),
        }
    figures |= {
        "max_stall_until_settled_seconds": round(max(p.max_stall_to_settled for p in timed), 4),
        "stall_until_settled_samples_seconds": _samples([p.max_stall_to_settled for p in timed]),
        "max_stall_until_idle_seconds": round(max(p.max_stall_to_idle for p in timed), 4),
        "stall_until_idle_samples_seconds": _samples([p.max_stall_to_idle for p in timed]),
        "screen_updates_per_press": [p.paints for p in timed],
        "warm_up_press_seconds": round(presses[0].settled, 4),
    }
    return figures


def _label(size: int) -> str:
    return f"{size // 1024}KB" if size % 1024 == 0 else f"{size}B"


def bench_ui(repeat: int = 7, sizes: Sequence[int] = SIZES) -> dict[str, Any]:
    """Time the next-item key on the compare screen and on the floor app; the JSON document."""
    if repeat < 1:
        raise AbpError("bench ui: --repeat must be at least 1")
    if not sizes or any(s < 200 for s in sizes):
        raise AbpError("bench ui: each output size must be at least 200 characters")
    presses = repeat + 1
    tasks = presses + 1
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="abp-bench-ui-") as tmp:
        root = Path(tmp)
        for size in sizes:
            db_path, pairs = build_database(root, size, tasks)
            cold_path = _copy_database(db_path, root / f"bench-ui-{size}-cold.db")
            floor = asyncio.run(_run_floor(pairs, presses))
            ours = asyncio.run(_run_ours(db_path, presses))
            cold = asyncio.run(_run_ours(cold_path, presses, read_ahead=False))
            ours_figures = _figures(ours, diff=True)
            cold_figures = _figures(cold, diff=True)
            floor_figures = _figures(floor, diff=False)
            ratio = ours_figures["median_seconds"] / floor_figures["median_seconds"]
            cold_ratio = cold_figures["median_seconds"] / floor_figures["median_seconds"]
            first_ratio = (
                ours_figures["first_paint_median_seconds"]
                / floor_figures["first_paint_median_seconds"]
            )
            results[_label(size)] = {
                "characters_per_response": size,
                "bytes_per_pair": sum(len(t.encode()) for t in pairs[0]),
                "ours": {
                    "what": "the workstation's compare screen (make_app), next item with ']'; "
                    "the next item was read ahead while this one was shown",
                    **ours_figures,
                },
                "ours_cold": {
                    "what": "the same, reading ahead switched off: the item is read after the "
                    "key (as when jumping to an item from the queue)",
                    **cold_figures,
                },
                "floor": {
                    "what": "bare Textual app: two Static in two VerticalScroll side by side, "
                    "next pair with ']'",
                    **floor_figures,
                },
                "ratios": {
                    "ours_settled_over_floor": round(ratio, 3),
                    "ours_first_paint_over_floor": round(first_ratio, 3),
                    "ours_cold_settled_over_floor": round(cold_ratio, 3),
                },
            }
    small, large = results[_label(sizes[0])], results[_label(sizes[-1])]
    small_ratio = small["ratios"]["ours_settled_over_floor"]
    # Every diff the screen computes counts: the cold press diffs its own pair; with reading
    # ahead, the next pair is diffed after the key, while the reviewer reads.
    stall = max(
        large["ours"]["max_stall_until_idle_seconds"],
        large["ours_cold"]["max_stall_until_idle_seconds"],
    )
    return {
        "benchmark": "ui",
        "settled": SETTLED,
        "input": {
            "sizes": [_label(s) for s in sizes],
            "repeat": repeat,
            "presses_per_contender": presses,
            "terminal": list(TERMINAL),
            "note": "generated, deterministic markdown-like answers; the two responses of a "
            "pair differ word by word in about a third of their sentences; one untimed warm-up "
            "press per contender and size; headless driver (no terminal output)",
        },
        "machine": {
            "cpu_count": os.cpu_count(),
            "python": platform.python_version(),
            "textual": textual.__version__,
            "sqlite": sqlite3.sqlite_version,
            "platform": platform.platform(),
        },
        "results": results,
        "goals": {
            "floor_goal": FLOOR_GOAL,
            "floor_goal_size": _label(sizes[0]),
            "ours_over_floor": small_ratio,
            "floor_goal_met": small_ratio <= FLOOR_GOAL,
            "stall_goal_seconds": STALL_GOAL_SECONDS,
            "stall_goal_size": _label(sizes[-1]),
            "max_stall_seconds": stall,
            "max_stall_is": "the longest the event loop was blocked from a key until every worker "
            "had finished (the item shown and diffed, and the next one read ahead and diffed), "
            "over ours and ours_cold",
            "stall_goal_met": stall <= STALL_GOAL_SECONDS,
            "cold_over_floor": small["ratios"]["ours_cold_settled_over_floor"],
        },
    }
