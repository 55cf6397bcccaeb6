"""Input formats: one module per format, plus detection. Parsers produce models, nothing else."""

from __future__ import annotations

from pathlib import Path

from abp_tui.errors import AbpError
from abp_tui.formats import (
    abp,
    abp_trace,
    afp,
    arena,
    inspect_log,
    native,
    pairwise,
    scibench,
)
from abp_tui.formats.base import Format, head_bytes

FORMATS: list[Format] = [
    native.FORMAT,
    abp.TASK,
    abp.RUN,
    abp_trace.FORMAT,
    abp.VERDICT,
    arena.FORMAT,
    afp.PACK,
    afp.RUNNER,
    scibench.SPEC,
    scibench.SUBMISSION,
    scibench.PILOT_RUN,
    inspect_log.JSON_LOG,
    inspect_log.EVAL_LOG,
    pairwise.FORMAT,
]


def detect(path: Path) -> Format | None:
    """The format of ``path`` judged from its name and first bytes, or None."""
    head = head_bytes(path)
    for fmt in FORMATS:
        if fmt.sniff(path, head):
            return fmt
    return None


def format_by_name(name: str) -> Format:
    for fmt in FORMATS:
        if fmt.name == name:
            return fmt
    known = ", ".join(f.name for f in FORMATS)
    raise AbpError(f"--format {name}: unknown format; expected one of {known}")
