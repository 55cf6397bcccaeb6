"""The judge report as one person may see it.

The judges are measured against the people's judgments, and a judge's verdict on an item may
anchor a reviewer who has not judged it yet (issue 12: "a blind reviewer who never sees a judge
verdict before submitting"), while the report names the runs the judges saw. So a reviewer with
items still to judge is refused the report outright
(:func:`abp_tui.services.coordinator_identity.refuse_pending`); whoever is shown it (the
coordinator, a reviewer who has submitted everything, someone outside the study) sees every
verdict, and the report says whose view it is. While the study is blind the judge-assisted
estimates, results by condition, are withheld (:func:`withhold_estimates`), and so are the
counts of a preference judge's confusion matrices against people (:func:`withhold_sides`): their
columns count the people's picks of side a and side b, the contrast's two conditions.
"""

from __future__ import annotations

from abp_tui.analysis.judges.models import JudgesReport, PreferenceJudgeReport
from abp_tui.analysis.judges.summary import report_lines
from abp_tui.text.safe import safe_line


class JudgesView(JudgesReport):
    """:class:`JudgesReport` as ``viewer`` sees it."""

    viewer: str | None = None
    """Who looks (a person with no item left to judge in the study); None: the coordinator's
    own command."""
    estimates_withheld: str | None = None
    """Why there are no judge-assisted estimates (win and pass rates by condition are results
    by condition: withheld while the study is blind); None when they are shown."""
    sides_withheld: bool = False
    """The study is blind: whatever shows the report leaves out the counts of its preference
    judges' confusion matrices against people (:func:`shown`); a plan still reads them."""


def shown(view: JudgesView) -> JudgesView:
    """``view`` as every face shows it: without the counts :attr:`JudgesView.sides_withheld`
    withholds."""
    if not view.sides_withheld:
        return view
    found = withhold_sides(view)[0]
    assert isinstance(found, JudgesView)  # model_copy keeps the class
    return found


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


def withhold_sides(report: JudgesReport) -> tuple[JudgesReport, int]:
    """``report`` without the confusion matrices of its preference judges against people
    (their figures stay), and how many were taken out."""
    judges = []
    for judge in report.judges:
        if isinstance(judge, PreferenceJudgeReport):
            orders = tuple(
                o.model_copy(update={"kappa": o.kappa.without_sides()}) for o in judge.orders
            )
            judge = judge.model_copy(update={"orders": orders})
        judges.append(judge)
    return report.model_copy(update={"judges": tuple(judges)}), sides_shown(report)


def sides_shown(report: JudgesReport) -> int:
    """How many confusion matrices of preference judges against people ``report`` shows."""
    return sum(
        o.kappa.confusion is not None
        for judge in report.judges
        if isinstance(judge, PreferenceJudgeReport)
        for o in judge.orders
    )


def view_line(view: JudgesView) -> str:
    """Whose view the report is: one line every face shows."""
    if view.viewer is None:
        return "Seen as the coordinator: every verdict counts."
    who = safe_line(view.viewer)
    return f"Seen by {who}: every verdict counts ({who} has no item here left to judge)."


def view_lines(view: JudgesReport) -> list[str]:
    """The report's lines (:func:`report_lines`), whose view it is second."""
    if isinstance(view, JudgesView):
        view = shown(view)
    lines = report_lines(view)
    if isinstance(view, JudgesView):
        lines.insert(1, view_line(view))
        if view.estimates_withheld:
            lines.insert(2, safe_line(view.estimates_withheld))
    return lines


__all__ = [
    "JudgesView",
    "shown",
    "sides_shown",
    "view_line",
    "view_lines",
    "withhold_estimates",
    "withhold_sides",
]
