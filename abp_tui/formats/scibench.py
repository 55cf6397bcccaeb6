"""scibench importer. TO BE IMPLEMENTED: placeholder so the package imports; detects nothing yet."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from abp_tui.formats.base import Invalid, ParseContext, Record, SimpleFormat


def _never(path: Path, head: bytes) -> bool:
    return False


def _nothing(path: Path, ctx: ParseContext) -> Iterator[Record | Invalid]:
    return iter(())


SPEC = SimpleFormat("sci-spec", "Scientific benchmark specification", _never, _nothing)
SUBMISSION = SimpleFormat(
    "sci-submission", "Scientific benchmark structured submission", _never, _nothing
)
PILOT_RUN = SimpleFormat("sci-run", "Scientific benchmark pilot run record", _never, _nothing)
