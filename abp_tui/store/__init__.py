"""The store: the only place that speaks SQL. Everything else speaks in models.

``connect`` opens a database with WAL, foreign keys and a busy timeout and applies the recorded
migrations; ``ImportWriter`` stores parsed records; ``queries`` reads summaries back;
``overview`` reads the counts ``abp-tui status`` prints with the standard library alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from abp_tui.store.db import connect, utc_now
    from abp_tui.store.writer import ImportWriter, WriterError
else:
    # Imported on first use, not here: importing any module of the store runs this file, and
    # sqlite-utils and the models it pulls in would cost ``abp-tui status`` most of its time.
    _LAZY = {
        "connect": "abp_tui.store.db",
        "utc_now": "abp_tui.store.db",
        "ImportWriter": "abp_tui.store.writer",
        "WriterError": "abp_tui.store.writer",
    }

    def __getattr__(name: str) -> object:
        if name not in _LAZY:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)


__all__ = ["ImportWriter", "WriterError", "connect", "utc_now"]
