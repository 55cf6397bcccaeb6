"""``abp-tui bench workstation``: the workstation on a large study, beside a 2,000-item one.

For each size (2,000 items, the baseline, always first; then each ``--items`` size) a
PandaLM-shaped study is generated (:func:`abp_tui.bench.pairwise_import.write_pairs`: five
models, three annotators, answers of a few hundred characters), imported, and given a
preference design judged by three reviewers, each judging every item (``study create
--reviewers demo,ann,bo``). Then the workstation (``make_app``) is driven headlessly
(``App.run_test``), each time in a fresh app:

1. the home screen, as a coordinator with nothing to judge opens it: from the app's start to
   the first screen update that shows the studies, the study's conditions, its first page of
   tasks and its designs' progress;
2. the first item, as a reviewer of the design opens the workstation: from the app's start to
   the first screen update showing the item's two responses (the compare screen opens over the
   home screen, which loads beneath it meanwhile);
3. the next-item key ``]``, pressed ``presses`` times, each as soon as the screen has settled
   (the item shown with its diff, and every worker done: the item after it read ahead), the way
   a reviewer skims: the median time to the settled screen and to the first paint of the new
   item; and the first ``]`` pressed one second after the first item was shown.

Every study is built first; then one untimed run warms what a first run loads once (modules, the
diff process), and the baseline is timed before the other sizes and again after them: its figures
are the mean of both runs (each printed under ``runs``), so the machine's drift meanwhile touches
both sides alike. Each figure is printed beside the 2,000-item one (their ratio, and for the
opening times their difference). Goals: the home screen and the first item within a second of
the 2,000-item times; the next item within 1.5 times the 2,000-item time. Building a study is
not timed (its seconds are printed): 100,000 items take a few minutes.
"""

from __future__ import annotations

import asyncio
import os
import platform
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import textual
from textual.app import App

from abp_tui.bench.pairwise_import import write_pairs
from abp_tui.bench.ui import (
    _compare_shown,
    _idle_workers,
    _press,
    _Probe,
    _stall_timer,
    _watch_paints,
)
from abp_tui.errors import AbpError

BASELINE_ITEMS = 2_000
SIZES = (20_000,)
"""Sizes measured when none are given (beside the baseline)."""
PRESSES = 20
REVIEWERS = "demo,ann,bo"
REVIEWER = "demo"
COORDINATOR = "coordinator"
"""Opens the workstation with nothing to judge: the home screen stays on top."""
OPEN_GOAL_SECONDS = 1.0
NEXT_GOAL_RATIO = 1.5
TERMINAL = (160, 45)
TIMEOUT_SECONDS = 300.0
PAUSE_SECONDS = 1.0


def build(root: Path, items: int) -> tuple[Path, float]:
    """A database holding a study of ``items`` generated pairs and its design; its path and
    the seconds it took to build."""
    from abp_tui.services.designing import DesignChoices, create_from_choices
    from abp_tui.services.importing import import_paths
    from abp_tui.store import connect

    began = time.perf_counter()
    source = root / f"pairs-{items}.json"
    write_pairs(source, items)
    db_path = root / f"workstation-{items}.db"
    db = connect(db_path)
    try:
        import_paths(db, [source], fmt="pairwise")
        create_from_choices(db, DesignChoices(reviewers=REVIEWERS, seed=20261206))
    finally:
        db.close()
    source.unlink()
    return db_path, time.perf_counter() - began


# -- what is shown --------------------------------------------------------------------------------
def _home_shown(app: App[None]) -> bool:
    """The home screen lists the studies and shows the highlighted study's detail."""
    from abp_tui.tui.screens.home import HomeScreen

    screen = app.screen
    if not isinstance(screen, HomeScreen) or screen.shown_study is None:
        return False
    detail = screen.details.get(screen.shown_study)
    return (
        detail is not None
        and screen.table("studies").row_count > 0
        and screen.table("conditions").row_count == len(detail.conditions)
        and screen.table("tasks").row_count == len(detail.tasks) > 0
    )


def _item_shown(app: App[None]) -> bool:
    from abp_tui.tui.screens.compare import CompareScreen

    screen = app.screen
    return isinstance(screen, CompareScreen) and _compare_shown(screen, None)


async def _until_painted(
    app: App[None], probe: _Probe, shown: Callable[[], bool], began: float
) -> float:
    """Seconds from ``began`` to the first screen update made while ``shown`` held."""
    deadline = time.perf_counter() + TIMEOUT_SECONDS
    while True:
        painted = next((t for t, ok, _d in probe.paints if ok), None)
        if painted is not None:
            return painted - began
        if time.perf_counter() > deadline:
            raise AbpError("bench workstation: the screen was not shown within five minutes")
        await asyncio.sleep(0.002)


async def _open_home(db_path: Path) -> float:
    from abp_tui.tui.app import make_app

    app = make_app(db_path, COORDINATOR)
    probe = _Probe()
    probe.shown = lambda: _home_shown(app)
    began = time.perf_counter()
    async with app.run_test(size=TERMINAL):
        _watch_paints(app, probe)
        return await _until_painted(app, probe, probe.shown, began)


async def _judge(db_path: Path, presses: int) -> dict[str, Any]:
    from abp_tui.tui.app import make_app
    from abp_tui.tui.screens.compare import CompareScreen

    app = make_app(db_path, REVIEWER)
    probe = _Probe()
    probe.shown = lambda: _item_shown(app)
    stop = asyncio.Event()
    began = time.perf_counter()
    async with app.run_test(size=TERMINAL) as pilot:
        _watch_paints(app, probe)
        first_item = await _until_painted(app, probe, probe.shown, began)
        timer = asyncio.create_task(_stall_timer(probe, stop))
        try:
            # The first key a second after the item was shown, as a reviewer who glanced at it.
            await asyncio.sleep(
                max(0.0, PAUSE_SECONDS - (time.perf_counter() - began - first_item))
            )
            results = []
            for _ in range(presses + 1):
                screen = app.screen
                if not isinstance(screen, CompareScreen) or screen.item is None:
                    raise AbpError("bench workstation: the compare screen is not showing an item")
                previous = screen.item.code

                def shown(screen: CompareScreen = screen, previous: str = previous) -> bool:
                    return _compare_shown(screen, previous)

                def diffed(screen: CompareScreen = screen) -> bool:
                    return screen.pair.marks is not None

                def ready(screen: CompareScreen = screen, previous: str = previous) -> bool:
                    return shown(screen, previous) and diffed(screen) and _idle_workers(app)

                probe.shown, probe.diffed = shown, diffed
                results.append(await _press(pilot, probe, ready))
        finally:
            stop.set()
            await timer
    after_pause, timed = results[0], results[1:]
    return {
        "first_item_shown_seconds": round(first_item, 4),
        "first_key_after_pause_seconds": round(after_pause.first_paint or after_pause.settled, 4),
        "next_item_median_seconds": _median([p.settled for p in timed]),
        "next_item_first_paint_median_seconds": _median([p.first_paint for p in timed]),
        "next_item_samples_seconds": [round(p.settled, 4) for p in timed],
        "max_stall_seconds": round(max(p.max_stall_to_idle for p in timed), 4),
    }


def _median(values: Sequence[float | None]) -> float:
    present = [v for v in values if v is not None]
    return round(statistics.median(present), 4) if present else 0.0


def _measure(db_path: Path, presses: int) -> dict[str, Any]:
    home = asyncio.run(_open_home(db_path))
    judged = asyncio.run(_judge(db_path, presses))
    return {"home_shown_seconds": round(home, 4), **judged}


_OPENING = ("home_shown_seconds", "first_item_shown_seconds", "first_key_after_pause_seconds")
_MOVING = ("next_item_median_seconds", "next_item_first_paint_median_seconds")


def _beside(figures: dict[str, Any], baseline: dict[str, Any]) -> dict[str, Any]:
    """Each figure beside the baseline's: their ratio (and the difference, for the openings)."""
    out: dict[str, Any] = {}
    for key in (*_OPENING, *_MOVING):
        ours, base = figures[key], baseline[key]
        entry = {"ratio": round(ours / base, 3) if base else None}
        if key in _OPENING:
            entry["extra_seconds"] = round(ours - base, 4)
        out[key] = entry
    return out


def bench_workstation(
    sizes: Sequence[int] = SIZES, presses: int = PRESSES, baseline_items: int = BASELINE_ITEMS
) -> dict[str, Any]:
    """Open and drive the workstation on each size beside the ``baseline_items`` study (2,000
    items; the tests use a smaller one); the JSON document."""
    if presses < 1:
        raise AbpError("bench workstation: --repeat (key presses) must be at least 1")
    if any(n < 10 for n in (*sizes, baseline_items)):
        raise AbpError("bench workstation: each --items size must be at least 10")
    measured = [baseline_items, *(n for n in sizes if n != baseline_items)]
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="abp-bench-workstation-") as tmp:
        root = Path(tmp)
        # Every study is built before anything is timed, so the timings follow one another.
        built = {items: build(root, items) for items in measured}
        base_path = built[baseline_items][0]
        _measure(base_path, 2)  # untimed: what a first run loads once (modules, the diff process)
        first_base = _measure(base_path, presses)
        for items in measured:
            figures = first_base if items == baseline_items else _measure(built[items][0], presses)
            results[str(items)] = {
                "items": items,
                "build_seconds": round(built[items][1], 2),
                **figures,
            }
        # The baseline again, last: the machine's drift meanwhile touches both ends alike.
        again = _measure(base_path, presses)
    baseline = results[str(baseline_items)]
    baseline["runs"] = [
        {k: first_base[k] for k in (*_OPENING, *_MOVING)},
        {k: again[k] for k in (*_OPENING, *_MOVING)},
    ]
    for key in (*_OPENING, *_MOVING):
        baseline[key] = round((first_base[key] + again[key]) / 2, 4)
    baseline["next_item_samples_seconds"] += again["next_item_samples_seconds"]
    goals: dict[str, Any] = {
        "open_goal_seconds": OPEN_GOAL_SECONDS,
        "next_goal_ratio": NEXT_GOAL_RATIO,
        "by_size": {},
    }
    for label, figures in results.items():
        figures["beside_baseline"] = _beside(figures, baseline)
        goals["by_size"][label] = {
            "home_within_goal": figures["home_shown_seconds"] - baseline["home_shown_seconds"]
            <= OPEN_GOAL_SECONDS,
            "first_item_within_goal": figures["first_item_shown_seconds"]
            - baseline["first_item_shown_seconds"]
            <= OPEN_GOAL_SECONDS,
            "next_item_within_goal": figures["next_item_median_seconds"]
            <= NEXT_GOAL_RATIO * baseline["next_item_median_seconds"],
        }
    return {
        "benchmark": "workstation",
        "input": {
            "baseline_items": baseline_items,
            "sizes": measured,
            "presses": presses,
            "reviewers": REVIEWERS.split(","),
            "terminal": list(TERMINAL),
            "note": "generated PandaLM-shaped pairs (five models, three annotators, answers of a "
            "few hundred characters), one preference design judged by three reviewers; "
            "headless driver; each ']' pressed once the screen settled (next item read ahead); "
            "first_key_after_pause: the first ']', one second after the first item was shown "
            "(to its first paint); the presses after it are the next-item samples",
        },
        "machine": {
            "cpu_count": os.cpu_count(),
            "python": platform.python_version(),
            "textual": textual.__version__,
            "sqlite": sqlite3.sqlite_version,
            "platform": platform.platform(),
        },
        "results": results,
        "goals": goals,
    }
