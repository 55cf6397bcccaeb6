"""``bench startup``: the workstation's first item in a real terminal beside a bare Textual
app, and ``abp-tui status`` beside a bare interpreter.

The workstation: in a pseudo-terminal of 120x35, ``python -m abp_tui --db DEMO`` is started and
the clock stops when the terminal shows the first item's text (the first response's distinctive
words, found in what the program wrote with the escape sequences removed). The baseline is a
bare Textual app, written to a temporary file and started the same way, that shows the same two
texts side by side: the least any Textual program showing them costs. Goal: within 2x.

The command line:

A database is filled with the bundled demo data (not timed). Then, ``repeat`` times and
interleaved so that drift in the machine's speed touches every contender alike, each runs as a
fresh process of the same interpreter:

1. ours: ``python -m abp_tui status --db DEMO`` (start, import, read, print);
2. ``python -c pass``: the floor of any Python command;
3. ``python -c "import sqlite3"``: the floor of any Python command that reads a database.

One untimed round runs first so that every contender starts with the files in the page cache
and its modules compiled: every contender runs with its bytecode cached (in a folder of the
run's own, ``PYTHONPYCACHEPREFIX``, whatever ``PYTHONDONTWRITEBYTECODE`` says), as from a
person's second launch on, when Python has written our modules' bytecode beside them (Textual's
was written when it was installed; a run that compiled only ours would time the compiler).
The medians, every sample and whether the goal (``status`` within 0.3 s) is met are reported.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Final

from abp_tui.errors import AbpError

GOAL_SECONDS: Final = 0.3
"""``abp-tui status`` answers within this: it is what people type to see where a study stands."""
WORKSTATION_GOAL_RATIO: Final = 2.0
"""The workstation's first item within this many times a bare Textual app showing its texts."""
TERMINAL: Final = (120, 35)
"""Columns and rows of the pseudo-terminal."""
_SHOWN_TIMEOUT: Final = 120.0

_BARE_APP: Final = """
import json, sys
from textual.app import App
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Static

TEXTS = json.loads(open(sys.argv[1], encoding="utf-8").read())

class Bare(App):
    def compose(self):
        with Horizontal():
            for text in TEXTS:
                with VerticalScroll():
                    yield Static(text, markup=False)

Bare().run()
"""
_DIGITS: Final = 4


def _contenders(db: Path) -> dict[str, list[str]]:
    python = sys.executable
    return {
        "ours": [python, "-m", "abp_tui", "status", "--db", str(db)],
        "python_pass": [python, "-c", "pass"],
        "python_import_sqlite3": [python, "-c", "import sqlite3"],
    }


def _environment(cwd: Path) -> dict[str, str]:
    """The contenders' environment: bytecode written and read in ``cwd`` (the same for all)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(cwd / "bytecode")
    return env


def _time(argv: list[str], cwd: Path) -> float:
    began = time.perf_counter()
    done = subprocess.run(
        argv, cwd=cwd, env=_environment(cwd), capture_output=True, text=True, check=False
    )
    took = time.perf_counter() - began
    if done.returncode != 0:
        raise AbpError(f"bench startup: {argv[1:]} exited {done.returncode}: {done.stderr[-500:]}")
    return took


_ESCAPES = re.compile(
    rb"\x1b(\[[0-9;?<=>]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][A-Za-z0-9]|.)"
)


def _on_its_terminal() -> None:
    """In the child, before its program starts: the terminal becomes its controlling terminal,
    and a hang-up ends it whatever this process was started with (``nohup`` ignores SIGHUP, a
    thread may block it: both are inherited by a program this process starts)."""
    import fcntl
    import signal
    import termios

    fcntl.ioctl(0, termios.TIOCSCTTY, 0)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGHUP])
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


def _until_shown(argv: list[str], cwd: Path, marker: str) -> float:
    """Seconds from starting ``argv`` in a pseudo-terminal until it shows ``marker``."""
    import fcntl
    import pty
    import select
    import signal
    import struct
    import termios

    master, slave = pty.openpty()
    cols, rows = TERMINAL
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    env = {**_environment(cwd), "TERM": "xterm-256color", "COLUMNS": str(cols), "LINES": str(rows)}
    wanted = marker.encode()
    seen = b""
    began = time.perf_counter()
    # The terminal is the child's controlling terminal (a session of its own, then TIOCSCTTY),
    # as a real one is: if this process dies before it can kill the child, closing the master
    # hangs the child up, instead of leaving it reading a terminal nobody holds.
    child = subprocess.Popen(
        argv,
        cwd=cwd,
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        start_new_session=True,
        preexec_fn=_on_its_terminal,
    )
    os.close(slave)
    try:
        while True:
            if time.perf_counter() - began > _SHOWN_TIMEOUT:
                raise AbpError(f"bench startup: {marker!r} not shown within {_SHOWN_TIMEOUT} s")
            ready, _, _ = select.select([master], [], [], 0.5)
            if not ready:
                if child.poll() is not None:
                    tail = _ESCAPES.sub(b"", seen)[-500:].decode(errors="replace")
                    raise AbpError(f"bench startup: {argv[1:3]} exited early: {tail}")
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                raise AbpError(f"bench startup: {argv[1:3]} closed its terminal")
            seen += chunk
            if wanted in _ESCAPES.sub(b"", seen[-262144:]):
                return time.perf_counter() - began
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(child.pid, signal.SIGKILL)
        child.wait()
        os.close(master)


def _marker(text: str) -> str:
    """A word of the first response that a wrapped screen shows whole: its longest early one."""
    words = [w.strip(".,;:!?()[]\"'") for w in text.split()[:40]]
    usable = [w for w in words if w.isascii() and w.isprintable() and len(w) <= 20]
    if not usable:
        raise AbpError("bench startup: the demo's first response has no word to look for")
    return max(usable, key=len)


def _first_item_texts(db_path: Path) -> list[str]:
    from abp_tui.services.designing import find_design
    from abp_tui.services.desk import Desk
    from abp_tui.store import connect

    db = connect(db_path)
    try:
        design_pk = find_design(db, "afp-pilot-demo").pk
    finally:
        db.close()
    desk = Desk(db_path, design_pk, "demo")
    try:
        item = desk.open()  # what the workstation opens first: where "demo" left off
    finally:
        desk.close()
    if item is None:
        raise AbpError("bench startup: the demo study has nothing to judge")
    return [r.text for r in item.responses]


def bench_startup(repeat: int = 11) -> dict[str, Any]:
    """Time the workstation's first item and ``abp-tui status`` on the demo database."""
    from abp_tui.services.demo import fixtures_dir, load_demo
    from abp_tui.store import connect, overview

    if repeat < 1:
        raise AbpError("--repeat must be at least 1")
    folder = fixtures_dir()
    if folder is None:
        raise AbpError(
            "bench startup: no fixtures/demo folder found (run from the project's folder)"
        )
    with tempfile.TemporaryDirectory(prefix="abp-bench-startup-") as tmp:
        cwd = Path(tmp)
        db_path = cwd / "demo.db"
        db = connect(db_path)
        load_demo(db, folder)
        db.close()
        studies = len(overview.read(db_path))
        texts = _first_item_texts(db_path)
        marker = _marker(texts[0])
        (cwd / "texts.json").write_text(json.dumps(texts), encoding="utf-8")
        (cwd / "bare.py").write_text(_BARE_APP, encoding="utf-8")
        shown = {
            "workstation": [sys.executable, "-m", "abp_tui", "--db", str(db_path)],
            "bare_textual": [sys.executable, str(cwd / "bare.py"), str(cwd / "texts.json")],
        }
        contenders = _contenders(db_path)
        for argv in contenders.values():
            _time(argv, cwd)
        for argv in shown.values():
            _until_shown(argv, cwd, marker)
        samples: dict[str, list[float]] = {name: [] for name in [*contenders, *shown]}
        for _ in range(repeat):
            for name, argv in contenders.items():
                samples[name].append(_time(argv, cwd))
            for name, argv in shown.items():
                samples[name].append(_until_shown(argv, cwd, marker))
    # Rounded as printed: every figure derived from them (a ratio, a difference, a goal met)
    # recomputes from the document itself.
    medians = {name: round(statistics.median(s), _DIGITS) for name, s in samples.items()}
    what = {
        "ours": "python -m abp_tui status --db DEMO (the demo database)",
        "python_pass": 'python -c "pass"',
        "python_import_sqlite3": 'python -c "import sqlite3"',
    }
    ratio = medians["workstation"] / medians["bare_textual"]
    return {
        "benchmark": "startup",
        "input": {"database": "bundled demo data", "studies": studies, "repeat": repeat},
        "workstation": {
            "what": (
                f"python -m abp_tui --db DEMO in a {TERMINAL[0]}x{TERMINAL[1]} pseudo-terminal, "
                f"until the first item's text ({marker!r}) is on screen"
            ),
            "samples_seconds": [round(s, _DIGITS) for s in samples["workstation"]],
            "median_seconds": medians["workstation"],
        },
        "bare_textual": {
            "what": "a bare Textual app showing the same two texts side by side, the same way",
            "samples_seconds": [round(s, _DIGITS) for s in samples["bare_textual"]],
            "median_seconds": medians["bare_textual"],
        },
        "workstation_ratio": round(ratio, 2),
        "workstation_goal_ratio": WORKSTATION_GOAL_RATIO,
        "workstation_goal_met": round(ratio, 2) <= WORKSTATION_GOAL_RATIO,
        "bytecode": "cached for every contender (compiled in an untimed first round)",
        "status": "the figures below: abp-tui status beside bare interpreters",
        "machine": {
            "cpu_count": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
            "sqlite": sqlite3.sqlite_version,
        },
        **{
            name: {
                "what": what[name],
                "samples_seconds": [round(s, _DIGITS) for s in samples[name]],
                "median_seconds": medians[name],
            }
            for name in what
        },
        "ours_over_python_pass_seconds": round(medians["ours"] - medians["python_pass"], _DIGITS),
        "goal_seconds": GOAL_SECONDS,
        "goal_met": medians["ours"] <= GOAL_SECONDS,
    }
