"""Inspect AI logs. TO BE IMPLEMENTED: placeholder so the package imports."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from abp_tui.formats.base import Invalid, ParseContext, Record, SimpleFormat


def _never(path: Path, head: bytes) -> bool:
    return False


def _nothing(path: Path, ctx: ParseContext) -> Iterator[Record | Invalid]:
    return iter(())


JSON_LOG = SimpleFormat("inspect-json", "Inspect AI log (.json)", _never, _nothing)
EVAL_LOG = SimpleFormat("inspect-eval", "Inspect AI log (.eval zip)", _never, _nothing)
