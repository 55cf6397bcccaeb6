"""ABP formats (seed 003): abp-task/v1, abp-run/v1, abp-verdict/v1 (traces: abp_trace).

TO BE IMPLEMENTED: placeholder so the package imports; detects nothing yet.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from abp_tui.formats.base import Invalid, ParseContext, Record, SimpleFormat


def _never(path: Path, head: bytes) -> bool:
    return False


def _nothing(path: Path, ctx: ParseContext) -> Iterator[Record | Invalid]:
    return iter(())


TASK = SimpleFormat("abp-task", "ABP task manifest (abp-task/v1)", _never, _nothing)
RUN = SimpleFormat("abp-run", "ABP run configuration (abp-run/v1)", _never, _nothing)
VERDICT = SimpleFormat("abp-verdict", "ABP verdict (abp-verdict/v1)", _never, _nothing)
