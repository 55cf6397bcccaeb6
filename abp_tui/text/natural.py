"""Natural order for identifiers people number: ``T2`` before ``T10``, ``0, 1, 2, 10, 11``.

Task ids are text, and text order puts ``10`` before ``2``; every list of tasks a person reads
sorts with :func:`natural_key` instead. Runs of ASCII digits compare as numbers and the rest as
text; ids equal as numbers (``P1``, ``P01``) still get one fixed order, by their text.
"""

from __future__ import annotations

import re

_PARTS = re.compile(r"[0-9]+|[^0-9]+")

NaturalKey = tuple[tuple[tuple[int, int, str], ...], str]


def natural_key(text: str) -> NaturalKey:
    """The sort key of ``text`` in natural order (total: different texts never tie)."""
    parts = tuple(
        (0, int(part), "") if "0" <= part[0] <= "9" else (1, 0, part)
        for part in _PARTS.findall(text)
    )
    return parts, text
