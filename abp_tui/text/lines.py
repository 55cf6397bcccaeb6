"""Untrusted text made into one display line: a title from a task's text, a label in a list.

Task texts arrive with real line breaks, and some sources store them escaped (the two
characters ``\\n``, as a JSON string written twice would). A title shows either as one space,
never as a literal ``\\n``; every other unsafe character is made visible as
:mod:`abp_tui.text.safe` does. Plain strings in, plain strings out: no markup.
"""

from __future__ import annotations

import re

from abp_tui.text.safe import safe_text

_ESCAPED_BREAK = re.compile(r"\\r\\n|\\[nrt]")
"""Line breaks and tabs written as escapes (backslash, then n, r or t)."""
_WHITESPACE = re.compile(r"\s+")
ELLIPSIS = "…"


def one_line(text: str, limit: int | None = None) -> str:
    """``text`` on one line: real and escaped line breaks and every run of white space become
    one space, unsafe characters are made visible; at most ``limit`` characters (cut with an
    ellipsis)."""
    line = _WHITESPACE.sub(" ", _ESCAPED_BREAK.sub(" ", text)).strip()
    line = safe_text(line)
    if limit is not None and len(line) > limit:
        line = line[: max(0, limit - len(ELLIPSIS))].rstrip() + ELLIPSIS
    return line
