"""The rankings section of ``report.html``: each source's ranking, pairwise table and length
bias, laid out as the report's tables (the figures are :mod:`abp_tui.export.ranking`'s, the
same ``results/ranking.json`` holds; every cell is text the page escapes)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from abp_tui.analysis.ranking.models import Bound, RankingReport
from abp_tui.analysis.ranking.text import NOT_RANKED, UNRESOLVED_MARK, ranking_lines
from abp_tui.analysis.tables import Column, Table
from abp_tui.export.ranking import RANKING_CSV, RANKING_JSON, VOTES, BundleRanking

FILES: Final = (RANKING_CSV, RANKING_JSON, VOTES)


def _bound(value: Bound) -> str:
    return value if isinstance(value, str) else f"{value:.1f}"


def _interval(value: tuple[Bound, Bound] | None) -> str:
    return "-" if value is None else f"[{_bound(value[0])}, {_bound(value[1])}]"


def _table(table_id: str, header: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> Table:
    columns = tuple(Column(f"c{k}", label=h) for k, h in enumerate(header))
    return Table(table_id, table_id, columns, tuple(rows))


def systems_table(report: RankingReport, table_id: str) -> Table:
    level = f"{report.confidence:.0%}"
    controlled = report.length_bias.length_controlled
    header: tuple[str, ...] = (
        "rank",
        "condition",
        "score",
        f"{level} interval",
        "rank interval",
        "W-L-T",
    )
    header += ("length-controlled (rank)",) if controlled else ()
    header += ("not resolved from the next",)
    rows = []
    for s in report.systems:
        ranks = "-" if s.rank_interval is None else f"{s.rank_interval[0]}-{s.rank_interval[1]}"
        row: tuple[str, ...] = (
            str(s.rank),
            s.condition,
            f"{s.score:.1f}",
            _interval(s.interval),
            ranks,
            f"{s.wins}-{s.losses}-{s.ties}",
        )
        if controlled:
            row += (f"{s.length_controlled_score or 0:.1f} ({s.length_controlled_rank})",)
        rows.append((*row, UNRESOLVED_MARK if s.resolved_from_next is False else ""))
    return _table(table_id, header, rows)


def pairwise_table(report: RankingReport, table_id: str) -> Table:
    level = f"{report.confidence:.0%}"
    header = (
        "a (ranked above)",
        "b",
        "W-L-T",
        f"observed win rate (Wilson {level})",
        "predicted",
        "difference (Elo)",
    )
    rows = []
    for p in report.pairwise:
        observed = "-"
        if p.observed.point is not None and p.observed.low is not None:
            observed = f"{p.observed.point:.3f} [{p.observed.low:.3f}, {p.observed.high:.3f}]"
        rows.append(
            (
                p.a,
                p.b,
                f"{p.wins}-{p.losses}-{p.ties}",
                observed,
                f"{p.predicted:.3f}",
                f"{p.difference:+.1f} {_interval(p.difference_interval)}",
            )
        )
    return _table(table_id, header, rows)


def _block(lines: list[str], start: str) -> list[str]:
    if start not in lines:
        return []
    out = []
    for line in lines[lines.index(start) + 1 :]:
        if not line:
            break
        out.append(line.strip())
    return out


@dataclass(frozen=True)
class RankingSection:
    """One source's part of the section."""

    source: str
    conventions: tuple[str, ...]
    """The method, ties and intervals lines (as ``abp-tui ranking`` prints them)."""
    systems: Table
    pairwise: Table
    win_rates: str
    length_bias: tuple[str, ...]
    agreement: tuple[str, ...]
    left_out: tuple[str, ...]
    notes: tuple[str, ...]
    not_ranked: str | None = None
    """Why the votes are too few for a ranking: said instead of the two tables."""


def ranking_sections(ranking: BundleRanking) -> list[RankingSection]:
    out = []
    for k, report in enumerate(ranking.reports):
        lines = ranking_lines(report)
        tau = "Agreement between the study's sources (Kendall's tau-b of the scores):"
        out.append(
            RankingSection(
                source=report.source,
                conventions=tuple(lines[:4]),
                systems=systems_table(report, f"ranking-{k}"),
                pairwise=pairwise_table(report, f"ranking-pairs-{k}"),
                win_rates=report.win_rates,
                length_bias=tuple(_block(lines, "Length bias:")),
                agreement=tuple(_block(lines, tau)),
                left_out=tuple(_block(lines, "Left out:")),
                notes=tuple(report.notes),
                not_ranked=(
                    f"{NOT_RANKED}{report.too_few_votes}" if report.too_few_votes else None
                ),
            )
        )
    return out


__all__ = ["FILES", "RankingSection", "pairwise_table", "ranking_sections", "systems_table"]
