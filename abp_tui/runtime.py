"""What the process does while a command runs, shared by every layer."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Callable, Iterator
from contextvars import ContextVar


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off for the block.

    An import, an export, a verification or a table read makes hundreds of thousands of small
    containers (records, rows, parsed lines) that hold no reference cycles and all live until
    it ends: each collection triggered meanwhile walks them all again and frees nothing
    (reference counting frees them). Cycles made meanwhile are collected once the collector
    runs again. ``gc.disable`` is process-wide: the collector is switched back on only if it
    was on.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


_REPORT: ContextVar[Callable[[str], None] | None] = ContextVar("abp_tui_phase", default=None)


def phase(text: str) -> None:
    """Say what a long command is doing now (``text``: "hashing 40,032 files"), to whoever is
    :func:`reporting` it; nothing when nobody is. ``export bundle`` and ``verify`` of a large
    study take minutes: the command line shows their step on a terminal
    (:mod:`abp_tui.cli.progress`)."""
    report = _REPORT.get()
    if report is not None:
        report(text)


@contextlib.contextmanager
def reporting(report: Callable[[str], None]) -> Iterator[None]:
    """Within the block, each :func:`phase` said (in this thread) goes to ``report``."""
    token = _REPORT.set(report)
    try:
        yield
    finally:
        _REPORT.reset(token)
