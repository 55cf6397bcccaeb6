"""Bar charts of pass rates with their Wilson intervals, written as SVG text by hand.

Deterministic (fixed sizes, coordinates with two decimals), self-contained (no fonts, scripts or
links fetched), and every label from a record escaped. A proportion with no denominator is drawn
as a note, never as a zero-length bar.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from html import escape
from typing import Final

from abp_tui.analysis.results.tallies import DEFAULT_CONFIDENCE, confidence_label
from abp_tui.stats.inference import Proportion
from abp_tui.text.safe import safe_line

WIDTH = 720
LABEL_WIDTH = 220
PLOT_WIDTH = 340
ROW = 26
TOP = 48
BOTTOM = 30


def _x(value: float) -> float:
    return LABEL_WIDTH + value * PLOT_WIDTH


def _f(value: float) -> str:
    return f"{value:.2f}"


def _text(value: str) -> str:
    """A label as the chart writes it: on one line, visible and escaped (a plain label, most
    of a chart's, as it is)."""
    if type(value) is str and _NOT_PLAIN(value) is None:
        return value
    return escape(safe_line(value), quote=True)


_NOT_PLAIN: Final = re.compile("[^\x20\x21\x23-\x25\x28-\x3b\x3d\x3f-\x7e]").search
"""A character that writing a label on one line, visible (:func:`abp_tui.text.safe.safe_line`),
or escaping it may change: anything but printable ASCII, and ``&``, ``<``, ``>``, ``"`` and
``'``. A label without one is written as it is."""


# Hand-written, not matplotlib: its import alone took 1.27 s and a four-bar chart 31 ms, against
# 0.07 ms here (measured once each); and `verify` re-derives these bytes, so fewer moving parts.
def pass_rate_chart(
    svg_id: str,
    title: str,
    rows: Sequence[tuple[str, Proportion]],
    confidence: float = DEFAULT_CONFIDENCE,
) -> str:
    """A horizontal bar per row: the pass rate, its Wilson interval (at ``confidence``, named in
    the chart) as a whisker, and x/n."""
    return "".join(pass_rate_chart_pieces(svg_id, title, rows, len(rows), confidence))


def pass_rate_chart_pieces(
    svg_id: str,
    title: str,
    rows: Iterable[tuple[str, Proportion]],
    count: int,
    confidence: float = DEFAULT_CONFIDENCE,
) -> Iterator[str]:
    """:func:`pass_rate_chart` of the ``count`` ``rows``, a line at a time as each row is read
    (a large study's chart of tasks, a bar for each task and condition, is tens of megabytes:
    never whole in memory)."""
    level = confidence_label(confidence)
    height = TOP + ROW * max(1, count) + BOTTOM
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" id="{_text(svg_id)}" class="chart" '
        f'width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" role="img" '
        f'aria-labelledby="{_text(svg_id)}-title">',
        f'<title id="{_text(svg_id)}-title">{_text(title)}</title>',
        "<style>text{font-family:sans-serif;font-size:12px;fill:#222}"
        ".axis{stroke:#888;stroke-width:1}.grid{stroke:#ddd;stroke-width:1}"
        ".bar{fill:#4a78b5}.ci{stroke:#111;stroke-width:1.5}.none{fill:#a33}</style>",
        f'<text x="{LABEL_WIDTH}" y="18" font-weight="bold">{_text(title)}</text>',
    ]
    yield from (part + "\n" for part in parts)
    parts.clear()
    bottom = TOP + ROW * max(1, count)
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        x = _f(_x(tick))
        parts.append(f'<line class="grid" x1="{x}" y1="{TOP - 6}" x2="{x}" y2="{bottom}"/>')
        parts.append(f'<text x="{x}" y="{bottom + 16}" text-anchor="middle">{tick:g}</text>')
    parts.append(
        f'<line class="axis" x1="{LABEL_WIDTH}" y1="{TOP - 6}" x2="{LABEL_WIDTH}" y2="{bottom}"/>'
    )
    parts.append(
        f'<text x="{LABEL_WIDTH}" y="{TOP - 12}">pass rate (Wilson {level} interval); '
        "x/n = MODEL_PASS / (MODEL_PASS + MODEL_FAIL)</text>"
    )
    if not count:
        parts.append(f'<text class="none" x="{LABEL_WIDTH + 8}" y="{TOP + 17}">no runs</text>')
    yield from (part + "\n" for part in parts)
    right = _f(_x(1.0) + 8)
    for i, (label, p) in enumerate(rows):
        # Each row's coordinates as _f writes them, its label escaped once for its three uses.
        y = TOP + i * ROW
        shown = _text(label)
        base = f"{y + ROW / 2 + 4:.2f}"
        parts = [
            f'<g class="row" data-label="{shown}" data-x="{p.x}" data-n="{p.n}">\n'
            f'<text x="{LABEL_WIDTH - 8}" y="{base}" text-anchor="end">{shown}</text>\n'
        ]
        if p.point is None or p.low is None or p.high is None:
            parts.append(
                f'<text class="none" x="{LABEL_WIDTH + 8}" y="{base}">'
                f"{p.x}/{p.n}: no estimate ({_text(p.undefined_reason or 'undefined')})</text>\n"
            )
        else:
            mid = f"{y + ROW / 2:.2f}"
            top, low_end = f"{y + 8:.2f}", f"{y + ROW - 8:.2f}"
            lo, hi = _f(_x(p.low)), _f(_x(p.high))
            parts.append(
                f'<rect class="bar" x="{LABEL_WIDTH}" y="{y + 5:.2f}" '
                f'width="{p.point * PLOT_WIDTH:.2f}" height="{ROW - 10}"><title>{shown}: '
                f"{p.x}/{p.n} = {p.point:.3f}, {level} [{p.low:.3f}, {p.high:.3f}]</title></rect>\n"
                f'<line class="ci" x1="{lo}" y1="{mid}" x2="{hi}" y2="{mid}"/>\n'
                f'<line class="ci" x1="{lo}" y1="{top}" x2="{lo}" y2="{low_end}"/>\n'
                f'<line class="ci" x1="{hi}" y1="{top}" x2="{hi}" y2="{low_end}"/>\n'
                f'<text x="{right}" y="{base}">{p.x}/{p.n} = '
                f"{p.point:.2f} [{p.low:.2f}, {p.high:.2f}]</text>\n"
            )
        parts.append("</g>\n")
        yield "".join(parts)
    yield "</svg>\n"
