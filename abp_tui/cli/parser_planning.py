"""The parsers of ``stats ppi``, ``stats cs`` and ``plan``: the human budget's statistics.
Parsing only (see :mod:`abp_tui.cli.parser`)."""

from __future__ import annotations

import argparse
from typing import TypeAlias

from abp_tui.cli.commands.planning import cmd_plan, cmd_stats_cs, cmd_stats_ppi

Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


def add_stats_tables(
    stats_sub: Subparsers, common: argparse.ArgumentParser, figures: argparse.ArgumentParser
) -> None:
    """``stats ppi`` and ``stats cs``: figures from a small CSV table, to check by hand."""
    p = stats_sub.add_parser(
        "ppi",
        parents=[common, figures],
        help="a judge-assisted mean (prediction-powered) from a table of units",
    )
    p.add_argument(
        "--table",
        required=True,
        metavar="FILE.csv",
        help="columns unit, prediction, label (blank: not judged by people), optionally "
        "probability (the chance of being sent to people)",
    )
    p.add_argument(
        "--method",
        choices=["classical", "ppi", "ppi++"],
        default="ppi++",
        help="people alone, PPI (lambda 1) or PPI++ (lambda tuned) (ppi++)",
    )
    p.add_argument("--confidence", type=float, default=0.95, help="confidence level (0.95)")
    p.set_defaults(func=cmd_stats_ppi)

    p = stats_sub.add_parser(
        "cs",
        parents=[common, figures],
        help="anytime-valid confidence sequences for a pass or win rate from values in order",
    )
    p.add_argument(
        "--table", required=True, metavar="FILE.csv", help="a column of values in [0, 1], in order"
    )
    p.add_argument(
        "--column", default=None, metavar="NAME", help="the column (value, else the only one)"
    )
    p.add_argument("--confidence", type=float, default=0.95, help="confidence level (0.95)")
    p.add_argument(
        "--null",
        type=float,
        default=0.5,
        metavar="M",
        help="the stopping rule: the first time the sequence excludes M (0.5)",
    )
    p.add_argument(
        "--t-opt",
        type=float,
        default=100.0,
        metavar="T",
        help="the normal-mixture sequence is tightest near T values, chosen beforehand (100)",
    )
    p.set_defaults(func=cmd_stats_cs)


def add_plan(
    sub: Subparsers, common: argparse.ArgumentParser, figures: argparse.ArgumentParser
) -> None:
    """``plan``: human judgments each figure of the judge report needs for a half-width."""
    p = sub.add_parser(
        "plan",
        parents=[common, figures],
        help="how many more human judgments reach a half-width, with the AI judge and without",
    )
    p.add_argument("--study", default=None)
    p.add_argument("--design", default=None, help="with --reference final: the design")
    p.add_argument(
        "--reference",
        choices=["final", "labels"],
        default=None,
        help="the human reference, as for `judges` (default: final once people judged some of "
        "the design, else labels)",
    )
    p.add_argument(
        "--width", type=float, default=0.05, metavar="W", help="target half-width (0.05)"
    )
    p.add_argument("--confidence", type=float, default=0.95, help="confidence level (0.95)")
    p.set_defaults(func=cmd_plan)
