"""The judge report as one person may see it: a reviewer's pending items held back.

The judges are measured against the people's judgments, and a judge's verdict on an item may
anchor a reviewer who has not judged it yet (issue 12: "a blind reviewer who never sees a judge
verdict before submitting"). So, as the agreement report does for ``viewer``, everything touching
a run of an item the viewer has not submitted is left out before any figure is computed: the
judges' verdicts on it (agreement with people, position bias, agreement between judges, the
judge-assisted estimates) and the people's decisions about it (the reference and each
annotator's picks for the alt-test). The report says how many were held back. A viewer with no
pending item (the coordinator) sees every verdict.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from pydantic import NonNegativeInt

from abp_tui.analysis.judge_arrays import NO_RUN, VerdictTable
from abp_tui.analysis.judge_models import JudgesReport
from abp_tui.analysis.judge_summary import report_lines
from abp_tui.analysis.judge_units import Reference
from abp_tui.text.safe import safe_line


class JudgesView(JudgesReport):
    """:class:`JudgesReport` as ``viewer`` sees it, with what was held back from them."""

    viewer: str | None = None
    """Who looks; None: the coordinator's own command (nothing held back)."""
    items_held_back: NonNegativeInt = 0
    """Items the viewer has not submitted: nothing touching their runs is in any figure."""
    verdicts_held_back: NonNegativeInt = 0
    """AI judge verdicts left out because they touch one of those items' runs."""
    estimates_withheld: str | None = None
    """Why there are no judge-assisted estimates (win and pass rates by condition are results
    by condition: withheld while the study is blind); None when they are shown."""


def withhold_estimates(report: JudgesReport) -> tuple[JudgesReport, int]:
    """``report`` without its judge-assisted estimates, and how many were taken out; the
    agreement with people and the position figures stay."""
    judges = []
    taken = 0
    for judge in report.judges:
        found = getattr(judge, "estimates", ())
        taken += len(found)
        judges.append(judge.model_copy(update={"estimates": ()}) if found else judge)
    return report.model_copy(update={"judges": tuple(judges)}), taken


def hold_back(
    table: VerdictTable, reference: Reference, runs: frozenset[str]
) -> tuple[VerdictTable, Reference]:
    """``table`` and ``reference`` without anything touching one of ``runs`` (run ids)."""
    if not runs:
        return table, reference
    codes = np.array([i for i, run in enumerate(table.runs) if run in runs], dtype=np.int64)
    touched = np.isin(table.run_a, codes) | ((table.run_b != NO_RUN) & np.isin(table.run_b, codes))
    kept = table.take(np.flatnonzero(~touched))

    def clear(pair: tuple[str, str]) -> bool:
        return not runs.intersection(pair)

    people = replace(
        reference,
        pairs={p: v for p, v in reference.pairs.items() if clear(p)},
        pair_reasons={p: v for p, v in reference.pair_reasons.items() if clear(p)},
        raters={
            rater: {p: v for p, v in picks.items() if clear(p)}
            for rater, picks in reference.raters.items()
        },
        runs={r: v for r, v in reference.runs.items() if r not in runs},
        run_reasons={r: v for r, v in reference.run_reasons.items() if r not in runs},
        scores={r: v for r, v in reference.scores.items() if r not in runs},
    )
    return kept, people


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def view_line(view: JudgesView) -> str:
    """Whose view the report is, and what is held back from it: one line every face shows."""
    if view.viewer is None:
        return "Seen as the coordinator: every verdict counts."
    who = safe_line(view.viewer)
    if not view.items_held_back:
        return f"Seen by {who}: every verdict counts ({who} has no item here left to judge)."
    return (
        f"Seen by {who}: {_plural(view.verdicts_held_back, 'AI judge verdict')} and the people's "
        f"judgments of the {_plural(view.items_held_back, 'item')} {who} has not submitted held "
        f"back from every figure, until {who} submits their own judgment of them."
    )


def view_lines(view: JudgesReport) -> list[str]:
    """The report's lines (:func:`report_lines`), whose view it is second."""
    lines = report_lines(view)
    if isinstance(view, JudgesView):
        lines.insert(1, view_line(view))
        if view.estimates_withheld:
            lines.insert(2, safe_line(view.estimates_withheld))
    return lines


__all__ = ["JudgesView", "hold_back", "view_line", "view_lines", "withhold_estimates"]
