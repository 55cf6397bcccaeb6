"""The reliability report as lines of plain text: the command line prints them and the
coordinator's agreement screen shows them. Every name from a record (reviewer, label set, AI
judge, item) goes through :func:`abp_tui.text.safe.safe_line`."""

from __future__ import annotations

from abp_tui.analysis.reliability.model import AnnotatorReliability, Cell, ReliabilityReport
from abp_tui.stats.agreement_models import Interval
from abp_tui.text.safe import safe_line

MODEL_NAMES = {"dawid-skene": "Dawid-Skene", "one-coin": "one-coin Dawid-Skene"}
SHOWN_PARTED = 20
"""Items where the model and the verdicts part, named in the text (all of them in --json)."""


def _bounds(found: Interval | None) -> str:
    return "" if found is None else f" [{found.low:.3f}, {found.high:.3f}]"


def view_line(report: ReliabilityReport) -> str:
    if report.viewer is None:
        return "Seen as the coordinator: every item counts."
    who = safe_line(report.viewer)
    if not report.items_held_back:
        return f"Seen by {who}: every item counts ({who} has no item here left to judge)."
    n = report.items_held_back
    return (
        f"Seen by {who}: {n} item{'s' if n != 1 else ''} held back from the model, until {who} "
        "submits their own judgment of them."
    )


def matrix_title(annotator: AnnotatorReliability) -> str:
    return f"{safe_line(annotator.name)}: P(label | category)"


def cells_of(annotator: AnnotatorReliability) -> dict[tuple[str, str], Cell]:
    """An annotator's confusion matrix by (the item's category, the label given)."""
    return {(c.category, c.label): c for c in annotator.confusion}


def cell_figure(cell: Cell) -> str:
    return f"{cell.value:.3f}{_bounds(cell.interval)}"


def accuracy_figure(annotator: AnnotatorReliability) -> str:
    return f"{annotator.accuracy:.3f}{_bounds(annotator.accuracy_interval)}"


def _matrix(annotator: AnnotatorReliability, categories: tuple[str, ...]) -> list[str]:
    cells = cells_of(annotator)
    width = max(8, *(len(c) for c in categories))
    lines = [f"  {matrix_title(annotator)}"]
    lines.append("    " + "category".ljust(width) + "".join(f"  {c:>22}" for c in categories))
    for k in categories:
        row = [f"  {cell_figure(cells[(k, label)]):>22}" for label in categories]
        lines.append("    " + k.ljust(width) + "".join(row))
    return lines


MATRICES_HEADING = "Confusion matrices (rows: the item's category; columns: the label given):"


def head_lines(report: ReliabilityReport) -> list[str]:
    """The model, whose view, the categories and priors, what was withheld."""
    where = f"study {safe_line(report.study)}"
    if report.design is not None:
        where += f", design {safe_line(report.design)} v{report.design_version}"
    settled = (
        f"settled after {report.iterations} rounds"
        if report.converged
        else f"stopped at {report.iterations} rounds unsettled"
    )
    lines = [
        f"Reliability of {where}: {MODEL_NAMES[report.model]} over {report.n_items} items and "
        f"{report.n_labels} labels (EM {settled}; tol {report.tol:g}).",
        view_line(report),
        "A lens beside the verdicts, not a replacement: the final verdicts stay what people "
        "decided.",
    ]
    categories = ", ".join(report.categories)
    if report.priors is not None:
        shares = ", ".join(f"{c} {v:.3f}" for c, v in report.priors.items())
        lines.append(f"Categories: {categories}. Priors: {shares}.")
    else:
        lines.append(f"Categories: {categories}.")
    if report.withheld:
        lines.append(safe_line(report.withheld))
    return lines


def annotators_heading(report: ReliabilityReport) -> str:
    interval_note = (
        f"{report.confidence:.0%} percentile bootstrap over items, {report.resamples} "
        f"resamples, seed {report.seed}"
        if report.resamples
        else "no intervals (--resamples 0)"
    )
    what = "accuracy" if report.model == "dawid-skene" else "competence"
    return f"Annotators ({what}; {interval_note}):"


def reliability_lines(report: ReliabilityReport) -> list[str]:
    """The report as text: the model, whose view, priors, annotators, their matrices and the
    items where the model and the final verdicts part."""
    lines = [*head_lines(report), "", annotators_heading(report)]
    width = max(len(safe_line(a.name)) for a in report.annotators)
    for a in report.annotators:
        note = f"  ({a.interval_note})" if a.interval_note else ""
        lines.append(
            f"  {safe_line(a.name).ljust(width)}  {a.kind:<15}  {a.n_labels:>6} labels  "
            f"{accuracy_figure(a)}{note}"
        )
    if report.model == "dawid-skene" and any(a.confusion for a in report.annotators):
        lines += ["", MATRICES_HEADING]
        for a in report.annotators:
            lines += _matrix(a, report.categories)
    return [*lines, *tail_lines(report)]


def tail_lines(report: ReliabilityReport) -> list[str]:
    """Where the model parts from the final verdicts, then the report's notes."""
    lines = ["", f"Compared with {safe_line(report.reference)}:"]
    if not report.n_compared:
        lines.append("  no item has both a model label and a final verdict.")
    else:
        n = len(report.parted)
        lines.append(
            f"  {report.n_compared} items compared; the model parts from the verdict on {n}"
            + (":" if n else ".")
        )
        posterior = {i.item: i for i in report.items}
        for name in report.parted[:SHOWN_PARTED]:
            item = posterior.get(name)
            if item is None:
                lines.append(f"    {safe_line(name)}")
                continue
            lines.append(
                f"    {safe_line(name)}: model {item.label} "
                f"({item.posterior[item.label]:.3f}), verdict {item.final}"
            )
        if n > SHOWN_PARTED:
            lines.append(f"    ... and {n - SHOWN_PARTED} more (every one with --json)")
    for note in report.notes:
        lines.append(safe_line(note))
    return lines
