"""A ranking as plain text lines: what ``abp-tui ranking`` prints without ``--json``.

Condition names come from run records, so every one passes through
:func:`abp_tui.text.safe.safe_line` (no escape sequence reaches a terminal) and nothing here is
markup. Computes nothing: it lays out :class:`RankingReport`.
"""

from __future__ import annotations

from collections.abc import Sequence

from abp_tui.analysis.ranking.models import UNBOUNDED_NOTE, Bound, RankingReport
from abp_tui.text.safe import safe_line
from abp_tui.text.wrapping import GAP, UNLIMITED, prose, wrapped

UNRESOLVED_MARK = "~"
NOT_RANKED = "Not ranked: "
"""How a ranking from too few votes is shown: this, then why, instead of the scores."""
"""Beside a system whose difference from the next one down the resamples do not resolve."""


def _bound(value: Bound) -> str:
    return value if isinstance(value, str) else f"{value:.1f}"


def _interval(value: tuple[Bound, Bound] | None) -> str:
    return "-" if value is None else f"[{_bound(value[0])}, {_bound(value[1])}]"


def _columns(
    header: Sequence[str],
    rows: Sequence[Sequence[str]],
    width: int = UNLIMITED,
    named: int = 2,
) -> list[str]:
    """The rows as aligned columns under the header; wider than ``width``, a block per row:
    its first ``named`` cells (and those of columns without a header) on a line, then each
    other cell as "header: value" under it. The cells are the same either way."""
    widths = [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(header)]

    def line(cells: Sequence[str]) -> str:
        return GAP.join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip()

    lines = [line(header), *(line(r) for r in rows)]
    if max(map(len, lines)) <= width or not rows:  # no row: the header says what is missing
        return lines
    out: list[str] = []
    for row in rows:
        heading = [c for i, c in enumerate(row) if (i < named or not header[i]) and c]
        out.append(GAP.join(heading))
        for label, cell in zip(header[named:], row[named:], strict=True):
            if label:
                out += wrapped(f"{label}: {cell}", GAP, GAP, width)
    return out


def ranking_lines(report: RankingReport, width: int = UNLIMITED) -> list[str]:
    """The ranking, the pairwise table, length bias, the sources' agreement, the notes; within
    ``width`` columns (prose wrapped, a table too wide as a block per row)."""
    design = f", design {safe_line(report.design)}" if report.design else ""
    level = f"{report.confidence:.0%}"
    lines = [
        f"Ranking of study {safe_line(report.study)} from {safe_line(report.source)}{design}: "
        f"{report.comparisons} votes on {report.tasks} tasks",
        f"Method: {report.method}; {report.scale}",
        f"Ties: {report.ties}",
        f"Intervals: {level} bootstrap percentiles over {report.resamples} resamples of "
        f"{report.resampled} (seed {report.seed})",
    ]
    if report.prior:
        lines.append(f"Prior: {report.prior:g} pseudo-ties on every compared pair (--prior)")
    lines = prose(lines, width)
    lines.append("")
    if report.too_few_votes:
        lines += prose([f"{NOT_RANKED}{safe_line(report.too_few_votes)}"], width)
    else:
        lines += _scores(report, level, width)
    return lines + prose(_after_scores(report), width)


def _after_scores(report: RankingReport) -> list[str]:
    """Length bias, the sources' agreement, what was left out and the notes."""
    bias = report.length_bias
    lines = ["", "Length bias:"]
    if bias.decisive_votes:
        p_value = bias.test.p_value
        lines.append(
            f"{GAP}{bias.chose_longer} of {bias.decisive_votes} decisive votes on outputs of "
            f"different lengths chose the longer ({bias.share_longer:.1%}); exact binomial "
            f"p = {p_value:.4g}"
            if p_value is not None and bias.share_longer is not None
            else f"{GAP}{bias.chose_longer} of {bias.decisive_votes} chose the longer"
        )
    else:
        lines.append(f"{GAP}no decisive vote on outputs of different lengths")
    if bias.unknown_length:
        lines.append(f"{GAP}{bias.unknown_length} votes on an output of unknown length")
    if bias.coefficient_elo is not None:
        lines.append(
            f"{GAP}length-controlled fit: {bias.coefficient_elo:+.1f} Elo points for the longer "
            "output per root mean square of the normalised length difference, (a - b) / (a + b)"
        )
    elif bias.unavailable_reason:
        lines.append(f"{GAP}no length-controlled ranking: {safe_line(bias.unavailable_reason)}")
    if report.sources:
        lines += ["", "Agreement between the study's sources (Kendall's tau-b of the scores):"]
        for a in report.sources:
            what = (
                f"tau = {a.tau:.3f}, p = {a.p_value:.4g}, over {a.systems} systems"
                if a.tau is not None and a.p_value is not None
                else f"no tau: {safe_line(a.reason or '')}"
            )
            lines.append(f"{GAP}{safe_line(a.a)} vs {safe_line(a.b)}: {what}")
    if report.excluded:
        lines += ["", "Left out:"]
        lines += [f"{GAP}{e.votes} votes: {e.reason}" for e in report.excluded]
    notes = shown_notes(report)
    if notes:
        lines.append("")
        lines += [f"Note: {safe_line(n)}" for n in notes]
    return lines


def shown_notes(report: RankingReport) -> list[str]:
    """The report's notes as a ranking shown is read with them: not ranked (too few votes), it
    shows no interval, and says nothing of the resamples behind them (its JSON does)."""
    if not (report.too_few_votes and report.unbounded_resamples):
        return list(report.notes)
    unbounded = UNBOUNDED_NOTE.format(
        unbounded=report.unbounded_resamples, resamples=report.resamples
    )
    return [n for n in report.notes if not n.startswith(unbounded)]


def _scores(report: RankingReport, level: str, width: int = UNLIMITED) -> list[str]:
    """The systems' table and the pairwise table, within ``width`` columns."""
    lines: list[str] = []
    controlled = report.length_bias.length_controlled
    header = ["rank", "condition", "score", f"{level} interval", "rank interval", "W-L-T"]
    if controlled:
        header += ["length-controlled (rank)"]
    header.append("")
    rows = []
    for s in report.systems:
        ranks = "-" if s.rank_interval is None else f"{s.rank_interval[0]}-{s.rank_interval[1]}"
        row = [
            str(s.rank),
            safe_line(s.condition),
            f"{s.score:.1f}",
            _interval(s.interval),
            ranks,
            f"{s.wins}-{s.losses}-{s.ties}",
        ]
        if controlled:
            row.append(f"{s.length_controlled_score or 0:.1f} ({s.length_controlled_rank})")
        row.append(UNRESOLVED_MARK if s.resolved_from_next is False else "")
        rows.append(row)
    lines += _columns(header, rows, width)
    if report.unresolved_neighbours:
        pairs = "; ".join(
            f"{safe_line(a)} / {safe_line(b)}" for a, b in report.unresolved_neighbours
        )
        lines += prose([f"{UNRESOLVED_MARK} not resolved from the next one down: {pairs}"], width)
    lines += ["", *prose(["Pairwise (a ranked above b): " + report.win_rates], width)]
    pair_rows = []
    for p in report.pairwise:
        observed = "-"
        if p.observed.point is not None:
            observed = f"{p.observed.point:.3f} [{p.observed.low:.3f}, {p.observed.high:.3f}]"
        pair_rows.append(
            [
                safe_line(p.a),
                safe_line(p.b),
                f"{p.wins}-{p.losses}-{p.ties}",
                observed,
                f"{p.predicted:.3f}",
                f"{p.difference:+.1f} {_interval(p.difference_interval)}",
            ]
        )
    lines += _columns(
        ["a", "b", "W-L-T", "observed win rate", "predicted", "difference (Elo)"],
        pair_rows,
        width,
    )
    return lines
