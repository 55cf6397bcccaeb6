"""ABP traces (abp-trace/v1 JSONL). TO BE IMPLEMENTED: placeholder so the package imports."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from abp_tui.formats.base import Invalid, ParseContext, Record, SimpleFormat


def _never(path: Path, head: bytes) -> bool:
    return False


def _nothing(path: Path, ctx: ParseContext) -> Iterator[Record | Invalid]:
    return iter(())


FORMAT = SimpleFormat("abp-trace", "ABP trace (abp-trace/v1 JSONL)", _never, _nothing)
