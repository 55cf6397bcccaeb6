"""The store: the only place that speaks SQL. Everything else speaks in models.

``connect`` opens a database with WAL, foreign keys and a busy timeout and applies the recorded
migrations; ``ImportWriter`` stores parsed records; ``queries`` reads summaries back.
"""

from abp_tui.store.db import connect, utc_now
from abp_tui.store.writer import ImportWriter, WriterError, canonical, sha256_text

__all__ = ["ImportWriter", "WriterError", "canonical", "connect", "sha256_text", "utc_now"]
