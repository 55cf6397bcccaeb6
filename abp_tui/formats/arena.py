"""arena importer. TO BE IMPLEMENTED: placeholder so the package imports; detects nothing yet."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from abp_tui.formats.base import Invalid, ParseContext, Record, SimpleFormat


def _never(path: Path, head: bytes) -> bool:
    return False


def _nothing(path: Path, ctx: ParseContext) -> Iterator[Record | Invalid]:
    return iter(())


FORMAT = SimpleFormat("arena", "Arena results.json (manifest + trial results)", _never, _nothing)
