"""Text for the terminal: prose wrapped to a width, and the width to write for (the
terminal's, or none for a file or a pipe). Light: the commands that only print a few lines
import it without the tables' modules."""

from __future__ import annotations

import shutil
import textwrap
from collections.abc import Iterable
from typing import Final, TextIO

from abp_tui.text.safe import safe_line

GAP = "  "
"""Between two columns; the indent of a wrapped line's following lines."""
WIDTH = 80
"""A table wider than this is written as one block per row
(the command line's tables: :func:`abp_tui.cli.text.fitted_lines`), unless a width is given."""
UNLIMITED: Final = 1_000_000
"""The width of text written for no terminal: a file or a pipe (tables aligned as they are)."""


def wrapped(text: str, indent: str = "", hanging: str = GAP, width: int = WIDTH) -> list[str]:
    """One line of prose wrapped to ``width``, its following lines ``hanging`` further in;
    names are never broken."""
    return textwrap.wrap(
        text,
        width,
        initial_indent=indent,
        subsequent_indent=indent + hanging,
        break_long_words=False,
        break_on_hyphens=False,
    ) or [indent]


def prose(lines: Iterable[str], width: int = UNLIMITED) -> list[str]:
    """Lines of prose, each wrapped to ``width``, its following lines indented past its own
    indent."""
    if width >= UNLIMITED:  # no terminal: each line as it is, byte for byte
        return [safe_line(line) for line in lines]
    out: list[str] = []
    for line in map(safe_line, lines):
        text = line.lstrip(" ")
        out += wrapped(text, line[: len(line) - len(text)], width=width)
    return out


def terminal_width(stream: TextIO) -> int:
    """The width to write text for: the terminal's (``COLUMNS`` first, at least 40) when
    ``stream`` is one, else :data:`UNLIMITED`: a file or a pipe gets the tables aligned as
    they are, for a pager or a script."""
    try:
        if not stream.isatty():
            return UNLIMITED
    except (AttributeError, ValueError, OSError):
        return UNLIMITED
    return max(40, shutil.get_terminal_size((WIDTH, 24)).columns)
