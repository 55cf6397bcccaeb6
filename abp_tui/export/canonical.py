"""Deterministic bytes for everything an export writes: JSON, JSON Lines, CSV and file names.

Two exports of the same judgments must be byte-identical, and ``verify`` must re-derive the same
bytes from a bundle on another machine. So: keys are sorted, text is UTF-8 with ``\\n`` line
ends, and derived figures are rounded to six significant digits (enough for any published table,
and it keeps the last bits of floating-point arithmetic out of the comparison). Source data
(run records, judgments) is written exactly as stored, never rounded.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import re
from collections.abc import Iterable, Sequence
from typing import Any

from abp_tui.text.canonical import canonical_json
from abp_tui.text.csvsafe import Figure, csv_text

SIGNIFICANT = 6
"""Significant digits of the derived figures."""


def rounded(value: Any) -> Any:
    """``value`` with every float rounded to :data:`SIGNIFICANT` significant digits."""
    if isinstance(value, float):
        if not math.isfinite(value):
            return None
        return float(f"{value:.{SIGNIFICANT}g}")
    if isinstance(value, dict):
        return {k: rounded(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [rounded(v) for v in value]
    return value


def json_bytes(document: Any, *, derived: bool = False) -> bytes:
    """A JSON document: sorted keys, one-space indent, a final newline."""
    data = rounded(document) if derived else document
    return (json.dumps(data, sort_keys=True, ensure_ascii=False, indent=1) + "\n").encode("utf-8")


def jsonl_bytes(rows: Iterable[Any], *, derived: bool = False) -> bytes:
    """One compact JSON document per line, keys sorted."""
    out = io.StringIO()
    for row in rows:
        data = rounded(row) if derived else row
        out.write(canonical_json(data))
        out.write("\n")
    return out.getvalue().encode("utf-8")


def jsonl_lines(data: bytes, errors: str = "strict") -> list[str]:
    """The lines of a JSONL file as :func:`jsonl_bytes` writes it: split on ``\\n`` alone.

    A JSON string may hold U+0085, U+2028 or U+2029 as they are (only control characters below
    U+0020 are escaped), and ``str.splitlines`` would take each for the end of a line, cutting
    a record in two."""
    text = data.decode("utf-8", errors)
    if not text:
        return []
    return (text[:-1] if text.endswith("\n") else text).split("\n")


def cell(value: Any) -> str:
    """A CSV cell: empty for missing, figures with six significant digits (a number comes back
    as a :class:`~abp_tui.text.csvsafe.Figure`, which the CSV writer leaves as it is)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        r = rounded(value)
        return "" if r is None else Figure(f"{r:g}" if abs(r) < 1e16 else repr(r))
    if isinstance(value, int):
        return Figure(value)
    if isinstance(value, list | tuple):
        return "; ".join(cell(v) for v in value)
    return str(value)


def csv_bytes(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> bytes:
    """A CSV table with a header row, ``\\n`` line ends and minimal quoting; a text cell that a
    spreadsheet would run as a formula is neutralised (:mod:`abp_tui.text.csvsafe`), numbers are
    written as numbers."""
    return csv_text(header, ([cell(v) for v in row] for row in rows)).encode("utf-8")


_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


def file_stem(identifier: str) -> str:
    """A file name stem for a record id: safe characters only, unique by a short hash.

    Run ids carry slashes and other characters no file system accepts everywhere; the hash suffix
    keeps two ids apart even on case-insensitive file systems.
    """
    slug = _UNSAFE_NAME.sub("_", identifier).strip("._")[:80] or "run"
    return f"{slug}-{hashlib.sha256(identifier.encode('utf-8')).hexdigest()[:8]}"
