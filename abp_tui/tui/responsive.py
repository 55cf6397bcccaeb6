"""What keeps the compare screen's event loop free: the word diff in a helper process, and the
screen's long-lived objects kept out of the garbage collector's way.

Both exist for one measured reason (``abp-tui bench ui``): the event loop reads keys and draws
the screen, so anything that holds it for tens of milliseconds is felt as a stall.

- A word diff of two long, unrelated texts is seconds of pure-Python work. In a worker thread it
  would still hold the interpreter lock the screen needs; in a process of its own it cannot.
  :class:`DiffRunner` owns that one process.
- Every full collection walks every live object. Once the compare screen shows its first item,
  nearly everything alive (modules, styles, the screen's widgets) lives as long as the screen;
  :class:`LongLived` moves those objects out of the collector's generations, once, and gives
  them back when the screen closes. Until then, as the workstation starts, the collector does
  not run at all (:func:`hold_collector`): the start-up makes hundreds of thousands of objects
  that all stay alive, and walking them again and again was a tenth of the time to the first
  item; it runs again once they are moved out of its way, or after
  :data:`COLLECTOR_HELD_AT_MOST` seconds whatever the first screen is.

Nothing here imports Textual or draws anything.
"""

from __future__ import annotations

import gc
import threading
from typing import TYPE_CHECKING

from abp_tui.tui.widgets.textlayout import DiffMarks, diff_marks

if TYPE_CHECKING:  # imported with the helper process, after the first item is on screen
    from concurrent.futures import ProcessPoolExecutor


COLLECTOR_HELD_AT_MOST = 3.0
"""Seconds after the app starts when the collector runs again at the latest."""

_collector_held = False


def hold_collector() -> None:
    """Stop the cyclic garbage collector until :func:`release_collector` (if it runs now)."""
    global _collector_held
    if gc.isenabled():
        gc.disable()
        _collector_held = True


def release_collector() -> None:
    """Let the collector run again if :func:`hold_collector` stopped it (else nothing)."""
    global _collector_held
    if _collector_held:
        _collector_held = False
        gc.enable()


def _ready() -> bool:
    return True


class DiffRunner:
    """Runs :func:`~abp_tui.tui.widgets.textlayout.diff_marks` in one helper process (started on
    first use, from a thread).

    If no process can be started, the diff runs in the calling thread instead.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pool: ProcessPoolExecutor | None = None
        self._broken = False
        self._answered = False

    def _executor(self) -> ProcessPoolExecutor | None:
        with self._lock:
            if self._pool is None and not self._broken:
                import multiprocessing
                from concurrent.futures import ProcessPoolExecutor

                try:
                    self._pool = ProcessPoolExecutor(
                        max_workers=1, mp_context=multiprocessing.get_context("spawn")
                    )
                except (OSError, ValueError):
                    self._broken = True
            return self._pool

    @property
    def ready(self) -> bool:
        """A diff asked now does not wait for the helper process to start: it has answered (or
        none can start, and the diff runs in the calling thread)."""
        return self._answered or self._broken

    def warm_up(self) -> None:
        """Start the helper process now (blocking: call it from a worker thread)."""
        pool = self._executor()
        if pool is not None:
            from concurrent.futures.process import BrokenProcessPool

            try:
                pool.submit(_ready).result()
                self._answered = True
            except (BrokenProcessPool, OSError):
                self._broken = True

    def diff(self, left: str, right: str) -> DiffMarks:
        """The diff marks of two display texts (blocking: call it from a worker thread)."""
        pool = self._executor()
        if pool is not None:
            from concurrent.futures.process import BrokenProcessPool

            try:
                marks = pool.submit(diff_marks, left, right).result()
                self._answered = True
                return marks
            except (BrokenProcessPool, OSError):
                self._broken = True
        return diff_marks(left, right)

    def close(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)


class LongLived:
    """The objects alive when :meth:`freeze` is called, kept out of the collector's generations
    until :meth:`thaw` (both at most once each; ``gc.freeze`` is process-wide)."""

    def __init__(self) -> None:
        self.frozen = False

    def freeze(self) -> None:
        if not self.frozen:
            gc.freeze()
            self.frozen = True
        release_collector()  # what the start-up made is out of its way now

    def thaw(self) -> None:
        if self.frozen:
            # Back to the collector: the screen's widgets are garbage once it has closed.
            gc.unfreeze()
            self.frozen = False
