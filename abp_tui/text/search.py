"""Finding a typed phrase in a displayed text: every occurrence, case-insensitively, literally.

The query is plain text, never a pattern: a reviewer searching for ``a.b`` or ``[x]`` finds
those characters. Offsets are into the text as given (the display form a pane shows), so the
hits can be highlighted and scrolled to directly. No I/O, no UI types.
"""

from __future__ import annotations

import re

Range = tuple[int, int]
MAX_HITS = 100_000
"""At most this many hits are returned (a one-letter query in a megabyte would be all of it)."""


def find_all(text: str, query: str, limit: int = MAX_HITS) -> list[Range]:
    """Every (start, end) of ``query`` in ``text``, ignoring case, in order, not overlapping."""
    if not query or not text:
        return []
    lowered, needle = text.lower(), query.lower()
    if len(lowered) != len(text) or len(needle) != len(query):
        # A few characters lower-case to two ("İ"): offsets would shift, so match the text
        # itself, case-insensitively (slower, and rare).
        pattern = re.compile(re.escape(query), re.IGNORECASE)
        out = []
        for found in pattern.finditer(text):
            out.append(found.span())
            if len(out) >= limit:
                break
        return out
    hits: list[Range] = []
    size = len(needle)
    at = lowered.find(needle)
    while at != -1 and len(hits) < limit:
        hits.append((at, at + size))
        at = lowered.find(needle, at + size)
    return hits


def contains(text: str, query: str) -> bool:
    """Whether ``query`` occurs in ``text``, ignoring case."""
    return bool(query) and query.lower() in text.lower()
