"""The ranking on the results screen: scores with their intervals drawn as a chart, rank
intervals, unresolved neighbours, the pairwise table, length bias and the length-controlled
ranking, and Kendall's tau between the study's sources.

The figures are :func:`abp_tui.services.ranking.ranking_report`'s (as ``abp-tui ranking``),
read in the panel's own worker (the bootstrap takes a second on a large study) through
:func:`abp_tui.services.ranking_view.read_ranking_view`. Condition names and source names come
from records: they enter as ``rich.text.Text`` of safe strings, never markup. ``s`` on the
screen switches to the study's next source (verdicts, labels, judge:ID).
"""

from __future__ import annotations

import math
import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from rich.console import Group, RenderableType
from rich.table import Table as RichTable
from rich.text import Text
from textual.message import Message
from textual.widgets import Static
from textual.worker import get_current_worker

from abp_tui.analysis.ranking.models import Bound, RankingReport
from abp_tui.analysis.ranking.text import (
    NOT_RANKED,
    UNRESOLVED_MARK,
    ranking_lines,
    shown_notes,
)
from abp_tui.services.ranking_view import RankingView, read_ranking_view
from abp_tui.text.hints import is_default_db
from abp_tui.text.safe import safe_line
from abp_tui.tui.charts import plain
from abp_tui.tui.workers import background

TRACK: Final = 36
"""Cells of the chart's score axis."""
NAME_WIDTH: Final = 28


def _bound(value: Bound) -> str:
    return value if isinstance(value, str) else f"{value:.1f}"


def _interval(value: tuple[Bound, Bound] | None) -> str:
    return "-" if value is None else f"[{_bound(value[0])}, {_bound(value[1])}]"


def _finite(value: Bound) -> float | None:
    return value if isinstance(value, float | int) and math.isfinite(value) else None


def _extent(report: RankingReport) -> tuple[float, float]:
    """The axis: every score and finite bound, a little padded."""
    values = [s.score for s in report.systems]
    for s in report.systems:
        if s.interval is not None:
            values += [v for v in map(_finite, s.interval) if v is not None]
    low, high = min(values), max(values)
    pad = max((high - low) * 0.05, 1.0)
    return low - pad, high + pad


def score_track(
    score: float, interval: tuple[Bound, Bound] | None, extent: tuple[float, float]
) -> Text:
    """One system on the score axis: ``├──●──┤`` spans its interval, ``●`` marks the score; an
    unbounded side runs to the edge as ``◀`` / ``▶``."""
    low_end, high_end = extent

    def cell(value: float) -> int:
        return min(TRACK - 1, max(0, int((value - low_end) / (high_end - low_end) * TRACK)))

    point = cell(score)
    low = high = point
    open_low = open_high = False
    if interval is not None:
        a, b = interval
        open_low, open_high = a == "-inf", b == "+inf"
        low = 0 if open_low else cell(_finite(a) or score)
        high = TRACK - 1 if open_high else cell(_finite(b) or score)
    text = Text()
    for i in range(TRACK):
        if i == point:
            glyph = "●"
        elif i == low:
            glyph = "◀" if open_low else "├"
        elif i == high:
            glyph = "▶" if open_high else "┤"
        elif low < i < high:
            glyph = "─"
        else:
            glyph = "·"
        text.append(glyph, style="bold bright_white" if low <= i <= high else "dim")
    return text


def _axis(extent: tuple[float, float]) -> Text:
    left, right = f"{extent[0]:.0f}", f"{extent[1]:.0f}"
    middle = f"{(extent[0] + extent[1]) / 2:.0f}"
    marks = [" "] * TRACK
    for at, label in (
        (0, left),
        (TRACK // 2 - len(middle) // 2, middle),
        (TRACK - len(right), right),
    ):
        for k, ch in enumerate(label):
            marks[at + k] = ch
    return Text("".join(marks), style="dim")


def _table(*columns: str, title: str | None = None) -> RichTable:
    table = RichTable(
        title=title,
        title_justify="left",
        title_style="bold",
        header_style="bold",
        pad_edge=False,
        show_edge=False,
        box=None,
        padding=(0, 1),
    )
    for column in columns:
        table.add_column(Text(column))
    return table


def ranking_chart(report: RankingReport) -> RichTable:
    """Every system, best first: rank, name, its score on the axis, score and interval, rank
    interval, wins-losses-ties, the length-controlled score and rank, and ``~`` when the
    resamples do not resolve it from the next one down."""
    extent = _extent(report)
    level = f"{report.confidence:.0%}"
    controlled = report.length_bias.length_controlled
    columns = ["rank", "condition", "Elo score and interval", "score", f"{level} interval"]
    columns += ["ranks", "W-L-T"] + (["length-controlled"] if controlled else []) + [""]
    table = _table(*columns)
    for s in report.systems:
        ranks = "-" if s.rank_interval is None else f"{s.rank_interval[0]}-{s.rank_interval[1]}"
        row: list[RenderableType] = [
            Text(str(s.rank)),
            plain(s.condition, NAME_WIDTH, "bold"),
            score_track(s.score, s.interval, extent),
            Text(f"{s.score:.1f}", style="bold"),
            Text(_interval(s.interval)),
            Text(ranks),
            Text(f"{s.wins}-{s.losses}-{s.ties}"),
        ]
        if controlled:
            row.append(Text(f"{s.length_controlled_score or 0:.1f} ({s.length_controlled_rank})"))
        row.append(Text(UNRESOLVED_MARK if s.resolved_from_next is False else "", style="yellow"))
        table.add_row(*row)
    axis: list[RenderableType] = ["", "", _axis(extent), "", "", "", ""]
    table.add_row(*axis, *([""] if controlled else []), "")
    return table


def pairwise_table(report: RankingReport) -> RichTable:
    """Every pair (a ranked above b): votes, observed win rate with its Wilson interval, the
    fitted prediction and the score difference with its interval."""
    level = f"{report.confidence:.0%}"
    table = _table(
        "a",
        "b",
        "W-L-T",
        f"observed win rate (Wilson {level})",
        "predicted",
        "difference (Elo)",
        title="Pairwise (a ranked above b)",
    )
    for p in report.pairwise:
        observed = "-"
        if p.observed.point is not None and p.observed.low is not None:
            observed = f"{p.observed.point:.3f} [{p.observed.low:.3f}, {p.observed.high:.3f}]"
        difference = Text(f"{p.difference:+.1f} {_interval(p.difference_interval)}")
        if p.resolved is False:
            difference.append(f" {UNRESOLVED_MARK}", style="yellow")
        table.add_row(
            plain(p.a, NAME_WIDTH),
            plain(p.b, NAME_WIDTH),
            Text(f"{p.wins}-{p.losses}-{p.ties}"),
            Text(observed),
            Text(f"{p.predicted:.3f}"),
            difference,
        )
    return table


def _after(lines: Sequence[str], start: str) -> list[str]:
    """The block of the command's lines that begins with ``start`` (up to the next blank)."""
    if start not in lines:
        return []
    block = []
    for line in lines[lines.index(start) + 1 :]:
        if not line:
            break
        block.append(line)
    return block


PRIOR_OPTION: Final = "--prior K"
"""How the core's notes name the prior, which only the command line can set."""


def ranking_command(
    view: RankingView, db_path: Path | None = None, design: str | None = None
) -> str:
    """The ``abp-tui ranking`` command that ranks what ``view`` shows (``design``: the one
    whose verdicts the screen ranks)."""
    command = ["abp-tui", "ranking"]
    if db_path is not None and not is_default_db(db_path):  # as every hint (text.hints)
        command += ["--db", str(db_path)]
    command += ["--study", view.study]
    if design is not None and view.source == "verdicts":
        command += ["--design", design]
    if view.source is not None:
        command += ["--source", view.source]
    return shlex.join(command)


def command_line_prior(text: str, command: str) -> str:
    """``text`` (a note or a reason, the command's wording) as the screen says it: where it
    suggests ``--prior K``, it also says that is an option of ``command``, which this screen
    cannot set."""
    if PRIOR_OPTION not in text:
        return text
    return (
        f"{text.rstrip('.')}. {PRIOR_OPTION} is a command-line option this screen cannot "
        f"set: {command} {PRIOR_OPTION}"
    )


def _scores(report: RankingReport) -> list[RenderableType]:
    """The chart of the scores, the unresolved neighbours and the pairwise table."""
    parts: list[RenderableType] = [Text(""), ranking_chart(report)]
    if report.unresolved_neighbours:
        pairs = "; ".join(
            f"{safe_line(a)} / {safe_line(b)}" for a, b in report.unresolved_neighbours
        )
        parts.append(
            Text(f"{UNRESOLVED_MARK} not resolved from the next one down: {pairs}", style="yellow")
        )
    parts += [Text(""), pairwise_table(report), Text(safe_line(report.win_rates), style="dim")]
    return parts


def ranking_body(view: RankingView, command: str | None = None) -> RenderableType:
    """The whole ranking section of the results page, or why there is none (``command``: the
    command a note suggesting an option names; default: :func:`ranking_command` of ``view``)."""
    command = command or ranking_command(view)
    title = Text("Ranking", style="bold underline")
    sources = Text("Source: ", style="bold")
    for k, name in enumerate(view.sources):
        if k:
            sources.append("  ")
        sources.append(safe_line(name), style="bold reverse" if name == view.source else "dim")
    if len(view.sources) > 1:
        sources.append("   (s: next source)", style="dim")
    if view.report is None:
        why = Text(safe_line(command_line_prior(view.reason, command)), style="italic yellow")
        return Group(title, sources, why) if view.sources else Group(title, why)
    report = view.report
    lines = ranking_lines(report)  # the command's own wording of the conventions
    parts: list[RenderableType] = [title, sources, *(Text(line) for line in lines[:4])]
    if report.prior:
        parts.append(Text(lines[4]))
    if report.too_few_votes:  # one line instead of scores no one should read
        verdict = f"{NOT_RANKED}{safe_line(report.too_few_votes)}"
        parts += [Text(""), Text(verdict, style="italic yellow")]
    else:
        parts += _scores(report)
    for heading in ("Length bias:", "Left out:"):
        block = _after(lines, heading)
        if block:
            parts += [Text(""), Text(heading.rstrip(":"), style="bold")]
            parts += [Text(line) for line in block]
    if report.sources:
        heading = "Agreement between the study's sources (Kendall's tau-b of the scores):"
        parts += [Text(""), Text(heading, style="bold")]
        parts += [Text(line) for line in _after(lines, heading)]
    parts += [
        Text(f"Note: {safe_line(command_line_prior(n, command))}", style="dim")
        for n in shown_notes(report)
    ]
    return Group(*parts)


class RankingPanel(Static):
    """The ranking section: computed in its own worker once the screen may show it."""

    DEFAULT_CSS = """
    RankingPanel {
        height: auto;
        margin: 1 0;
    }
    """

    class Computed(Message):
        """The panel's worker found a view (a fact in the past tense)."""

        def __init__(self, view: RankingView, body: RenderableType) -> None:
            super().__init__()
            self.view = view
            self.body = body

    def __init__(
        self, db_path: Path, study: str, design: str | None = None, viewer: str | None = None
    ) -> None:
        super().__init__("", id="ranking")
        self.db_path = db_path
        self.study = study
        self.design = design
        self.viewer = viewer
        """Who looks: a reviewer with items still to judge is shown why there is no ranking."""
        self.view: RankingView | None = None
        """The view shown (the tests read it)."""

    @property
    def sources(self) -> tuple[str, ...]:
        return self.view.sources if self.view is not None else ()

    def computed(self, source: str | None = None) -> RankingPanel.Computed:
        """The ranking of ``source`` (None: the one shown, else the default), read and laid
        out; blocking: call it from a worker."""
        chosen = source or (self.view.source if self.view is not None else None)
        view = read_ranking_view(self.db_path, self.study, chosen, self.design, self.viewer)
        command = ranking_command(view, self.db_path, self.design)
        return self.Computed(view, ranking_body(view, command))

    def show(self, found: RankingPanel.Computed | None) -> None:
        """Show what a worker computed (None: compute the ranking shown again)."""
        if found is None:
            self.start()
            return
        self.view = found.view
        self.update(found.body)

    def start(self, source: str | None = None) -> None:
        """Compute the ranking of ``source`` in the panel's worker (None: the one shown)."""
        self.update(Text("Ranking: computing the scores and their intervals…", style="dim"))
        self.compute(source)

    def next_source(self) -> None:
        """Switch to the study's next source, round the list."""
        held = self.sources
        if len(held) < 2 or self.view is None or self.view.source is None:
            return
        self.start(held[(held.index(self.view.source) + 1) % len(held)])

    @background(group="ranking", description="Computing the ranking", exclusive=True)
    def compute(self, source: str | None) -> None:
        found = self.computed(source)
        if not get_current_worker().is_cancelled:
            self.post_message(found)

    def on_ranking_panel_computed(self, message: RankingPanel.Computed) -> None:
        # Bubbles on: the screen refreshes its key bar (the source key).
        self.view = message.view
        self.update(message.body)


__all__ = [
    "RankingPanel",
    "command_line_prior",
    "pairwise_table",
    "ranking_body",
    "ranking_chart",
    "ranking_command",
    "score_track",
]
