"""The order results list a study's runs in, as bytes SQLite can sort by.

:func:`abp_tui.store.queries.results_order` sorts runs by condition, task (natural order), trial
and run id (natural order). A large study's runs are sorted by SQLite instead of in memory: each
run's key is written to a temporary table as bytes that compare (byte by byte, as SQLite's BLOBs
do) exactly as its :func:`results_order` key compares, and the runs are read back in that order
(:func:`abp_tui.store.bulk.each_current_run`), so that no list of every run is held.
"""

from __future__ import annotations

import re
import struct

_PARTS = re.compile(r"[0-9]+|[^0-9]+")
"""The parts :func:`abp_tui.text.natural.natural_key` splits a text into."""

_END = b"\x00"
"""After the last part of a natural key: before any part, as a shorter key sorts first."""
_NUMBER = b"\x01"
_TEXT = b"\x02"
_INT = struct.Struct(">Q")
_OFFSET = 1 << 63


def text_bytes(text: str) -> bytes:
    """``text`` as bytes that compare as Python compares the texts (by code point), ended so
    that whatever follows does not change the order: UTF-8 (lone surrogates kept in place),
    each NUL byte escaped as ``00 FF``, then ``00 00``."""
    data = text.encode("utf-8", "surrogatepass")
    return data.replace(b"\x00", b"\x00\xff") + b"\x00\x00"


def natural_bytes(text: str) -> bytes:
    """Bytes that compare as :func:`abp_tui.text.natural.natural_key` of ``text`` does: each run
    of digits by its value (as its count of digits without leading zeros, then those digits),
    each other run by its text, a number before a text, a shorter key before a longer one; ties
    (``P1``, ``P01``) by the text itself."""
    out = bytearray()
    for part in _PARTS.findall(text):
        if "0" <= part[0] <= "9":
            digits = part.lstrip("0")
            out += _NUMBER + _INT.pack(len(digits)) + digits.encode("ascii")
        else:
            out += _TEXT + text_bytes(part)
    out += _END
    out += text_bytes(text)
    return bytes(out)


def results_order_bytes(condition: str, task: str, trial: int, run: str) -> bytes:
    """Bytes that compare as :func:`abp_tui.store.queries.results_order` of a run's row does
    (condition, task in natural order, trial, run id in natural order)."""
    return b"".join(
        (text_bytes(condition), natural_bytes(task), _INT.pack(trial + _OFFSET), natural_bytes(run))
    )


__all__ = ["natural_bytes", "results_order_bytes", "text_bytes"]
