"""What the process does while a command runs, shared by every layer."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


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
