"""Agreement and disagreements as tables: every variable x every declared figure, reviewer
pairs, reviewers against imported labels, and the items reviewers disagreed on, built once on
the table model (:mod:`abp_tui.analysis.table_model`) for every face to write."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from abp_tui.analysis.agreement.labels import ReferenceAgreement
from abp_tui.analysis.results.tallies import confidence_label
from abp_tui.analysis.table_model import (
    Cell,
    Column,
    Estimate,
    FigureValue,
    Kind,
    Number,
    Pair,
    Table,
    count_column,
)
from abp_tui.analysis.verdicts import Disagreement
from abp_tui.stats.agreement import (
    PAIR_COEFFICIENTS,
    REFUSED,
    VARIABLE_COEFFICIENTS,
    AgreementReport,
    Coefficient,
    Figure,
    VariableAgreement,
)
from abp_tui.stats.agreement_coefficients import not_applicable_line


# -- agreement -------------------------------------------------------------------------------------
def _estimate(f: Figure) -> Estimate:
    i = f.interval
    return Estimate(
        f.value,
        i.low if i else None,
        i.high if i else None,
        f.undefined_reason,
        resamples=i.resamples if i else None,
        resamples_used=i.resamples_used if i else None,
    )


def _figure_value(f: Figure) -> FigureValue:
    """A figure as one cell: its value, large-sample interval and bootstrap interval."""
    i, ls = f.interval, f.large_sample
    refused = f.interval_note if f.interval_note and f.interval_note.startswith(REFUSED) else None
    return FigureValue(
        point=f.value,
        reason=f.undefined_reason,
        se=ls.standard_error if ls else None,
        se_low=ls.low if ls else None,
        se_high=ls.high if ls else None,
        se_reason=ls.interval_note if ls else f.large_sample_note,
        se_null=ls.standard_error_null if ls else None,
        z=ls.z if ls else None,
        p=ls.p_value if ls else None,
        low=i.low if i else None,
        high=i.high if i else None,
        boot_reason=refused,
        resamples=i.resamples if i else None,
        resamples_used=i.resamples_used if i else None,
        confidence=i.confidence if i else (ls.confidence if ls else None),
    )


PAIRS_NOTE: Final = (
    "Cohen's kappa: value [large-sample interval, Fleiss, Cohen and Everitt 1969]; "
    "boot [...]: percentile bootstrap over the items both judged (only with pair resamples)."
)


def agreement_table(report: AgreementReport) -> Table:
    """Every variable x every declared figure, then each reviewer pair's figures: one row each.

    The CSV keeps its first fields (value and bootstrap bounds, denominators, weights, note)
    and gains the figure's key, its weight basis, the bootstrap's resample counts and each
    kappa's large-sample standard errors, interval and test of kappa = 0.
    """
    level = confidence_label(report.confidence)
    columns = (
        Column("variable", "Variable"),
        Column("level", "Level"),
        Column("reviewers", "Among reviewers"),
        Column("figure", "Figure"),
        Column(
            "value",
            f"Value [{level} large-sample] boot [{level} bootstrap]",
            Kind.INTERVAL,
            csv=(("value", "point"), ("interval_low", "low"), ("interval_high", "high")),
        ),
        count_column("n_items", "Items"),
        count_column("n_reviewers", "Reviewers"),
        count_column("n_judgments", "Judgments"),
        Column("weights", "Weights"),
        Column("undefined_or_note", "Undefined, or note"),
        Column("coefficient", shown=False),
        Column("weight_basis", shown=False),
        Column(
            "bootstrap",
            kind=Kind.INTERVAL,
            shown=False,
            csv=(
                ("resamples", "resamples"),
                ("resamples_used", "resamples_used"),
                ("confidence", "confidence"),
            ),
        ),
        Column("standard_error", "SE", Kind.NUMBER, digits=4),
        Column("p_kappa_0", "p (kappa = 0)", Kind.NUMBER, csv=(("p_value_kappa_0", "value"),)),
        Column(
            "large_sample",
            kind=Kind.INTERVAL,
            shown=False,
            csv=(
                ("large_sample_low", "se_low"),
                ("large_sample_high", "se_high"),
                ("standard_error_null", "se_null"),
                ("z_kappa_0", "z"),
                ("large_sample_note", "se_reason"),
            ),
        ),
    )

    def row(v: VariableAgreement, among: str, c: Coefficient, f: Figure) -> tuple[Cell, ...]:
        cell = _figure_value(f)
        return (
            v.variable,
            v.level,
            among,
            f.name,
            cell,
            f.n_items,
            f.n_reviewers,
            f.n_judgments,
            f.weights,
            f.undefined_reason or f.interval_note,
            c.key,
            f.weight_basis,
            cell,
            Number(cell.se),
            Number(cell.p),
            cell,
        )

    rows = []
    for v in report.variables:
        rows += [row(v, "all", c, f) for c, f in v.figures() if c.applies(v.level)]
        for p in v.pairs:
            among = f"{p.reviewer_a} | {p.reviewer_b}"
            rows += [row(v, among, c, f) for c, f in p.figures() if c.applies(v.level)]
    notes = []
    for level in dict.fromkeys(v.level for v in report.variables):
        found = not_applicable_line(level, VARIABLE_COEFFICIENTS, PAIR_COEFFICIENTS)
        if found is not None:
            names = ", ".join(v.variable for v in report.variables if v.level == level)
            notes.append(f"{names}: {found}")
    return Table("agreement", "Agreement between reviewers", columns, tuple(rows), tuple(notes))


NOT_APPLICABLE: Final = "n/a"
"""A figure the variable's level has no use for (the detail lists them as not applicable)."""


def variables_table(variables: Iterable[VariableAgreement]) -> Table:
    """One row per variable: its denominators and each declared figure's value alone; the
    figures a declaration keeps out of the compact list are in the CSV file only."""
    columns = (
        Column("variable", "Variable"),
        Column("level", "Level"),
        count_column("n_items", "Items 2+"),
        count_column("n_reviewers", "Reviewers"),
        count_column("n_judgments", "Judgments"),
        *(
            Column(c.key, c.label, Kind.NUMBER, short=c.short, digits=3, shown=c.compact)
            for c in VARIABLE_COEFFICIENTS
        ),
    )
    rows: tuple[tuple[Cell, ...], ...] = tuple(
        (
            v.variable,
            v.level,
            v.n_items,
            v.n_reviewers,
            v.n_judgments,
            *(
                # A figure the level has no use for (a weighted one of a nominal scale) is
                # not applicable, as the detail says, rather than undefined.
                Number(f.value, reason=f.undefined_reason) if c.applies(v.level) else NOT_APPLICABLE
                for c, f in v.figures()
            ),
        )
        for v in variables
    )
    return Table("agreement-variables", "Agreement by variable", columns, rows)


def _figure_note(f: Figure) -> str:
    parts = []
    if f.value is not None and f.interval is None and f.interval_note:
        note = f.interval_note
        parts.append(f"no interval: {note.removeprefix(REFUSED)}")
    if f.interval is not None:
        i = f.interval
        parts.append(
            f"{i.resamples_used} of {i.resamples} resamples usable"
            if i.resamples_used < i.resamples
            else f"{i.resamples} resamples"
        )
    if f.value is not None and f.weight_basis == "observed":
        parts.append("weights on the observed ranks")
    return "; ".join(parts)


def figures_table(variable: VariableAgreement) -> Table:
    """Every declared figure of one variable with its own denominators and its note."""
    columns = (
        Column("figure", "Figure"),
        Column("value", "Value [95% interval]", Kind.INTERVAL),
        Column("items", "Items"),
        count_column("reviewers", "Reviewers"),
        count_column("judgments", "Judgments"),
        Column("note", "Note"),
    )
    rows = []
    for c, f in variable.figures():
        if not c.applies(variable.level):  # listed once, in the note below
            continue
        items = f"{f.n_items}"
        if f.n_items_chance is not None and f.n_items_chance != f.n_items:
            items += f" ({f.n_items_chance} in chance)"
        # An undefined figure's reason is a sentence: in the note, which has the room for it.
        value: Cell = _estimate(f)
        note = _figure_note(f)
        if f.value is None:
            value = Number(None, reason=f.undefined_reason or "no reason given")
            note = "; ".join(p for p in (f"undefined: {f.undefined_reason}", note) if p)
        rows.append((f.name, value, items, f.n_reviewers, f.n_judgments, note))
    declared = (
        (VARIABLE_COEFFICIENTS, PAIR_COEFFICIENTS) if variable.pairs else (VARIABLE_COEFFICIENTS,)
    )
    found = not_applicable_line(variable.level, *declared)
    notes = () if found is None else (found,)
    return Table("figures", variable.variable, columns, tuple(rows), notes)


def pairs_table(variable: VariableAgreement) -> Table:
    """Each pair of reviewers: the items both judged and every declared pair figure, each kappa
    with its large-sample interval (and bootstrap interval, when the pairs were resampled)."""
    columns = (
        Column("reviewers", "Reviewers", Kind.PAIR),
        count_column("n_items", "Items"),
        *(
            Column(
                c.key,
                c.label,
                Kind.INTERVAL,
                short=c.short,
                csv=((c.key, "point"), (f"{c.key}_se", "se"), (f"{c.key}_reason", "reason")),
            )
            for c in PAIR_COEFFICIENTS
            if c.applies(variable.level)  # the others: the figures table's note says which
        ),
    )
    rows: tuple[tuple[Cell, ...], ...] = tuple(
        (
            Pair(p.reviewer_a, p.reviewer_b, " × "),
            p.n_items,
            *(_figure_value(f) for c, f in p.figures() if c.applies(variable.level)),
        )
        for p in variable.pairs
    )
    return Table("pairs", "Reviewer pairs", columns, rows, (PAIRS_NOTE,))


REFERENCES_NOTE: Final = (
    "Each reviewer's first submitted preference against an imported label set, on the pair items "
    "of the design whose two responses the label names (mapped through the runs, whatever order "
    "the reviewer saw them in). Cohen's kappa: value [large-sample interval] boot [percentile "
    "bootstrap over the items both judged]."
)


def references_table(references: Sequence[ReferenceAgreement], confidence: float) -> Table:
    """Each design reviewer against each imported label set: the items both judged, percent
    agreement and Cohen's kappa with its large-sample and bootstrap intervals."""
    level = confidence_label(confidence)
    columns = (
        Column("reviewer", "Reviewer"),
        Column("reference", "Against imported labels"),
        count_column("n_items", "Items"),
        Column(
            "percent_agreement",
            f"Percent agreement boot [{level} bootstrap]",
            Kind.INTERVAL,
            csv=(
                ("percent_agreement", "point"),
                ("percent_agreement_low", "low"),
                ("percent_agreement_high", "high"),
            ),
        ),
        Column(
            "cohen_kappa",
            f"Cohen's kappa [{level} large-sample] boot [{level} bootstrap]",
            Kind.INTERVAL,
            short="Cohen κ",
            csv=(
                ("cohen_kappa", "point"),
                ("cohen_kappa_se", "se"),
                ("cohen_kappa_large_sample_low", "se_low"),
                ("cohen_kappa_large_sample_high", "se_high"),
                ("cohen_kappa_boot_low", "low"),
                ("cohen_kappa_boot_high", "high"),
                ("cohen_kappa_reason", "reason"),
            ),
        ),
    )
    rows: tuple[tuple[Cell, ...], ...] = tuple(
        (
            r.reviewer,
            r.reference,
            r.pair.n_items,
            _figure_value(r.pair.percent_agreement),
            _figure_value(r.pair.cohen_kappa),
        )
        for r in references
    )
    return Table("references", "Against imported labels", columns, rows, (REFERENCES_NOTE,))


# -- disagreements ---------------------------------------------------------------------------------
def disagreements_table(disagreements: Sequence[Disagreement]) -> Table:
    columns = (
        Column("item", "Item"),
        Column("reviewers", "Reviewers"),
        Column("reasons", "Reasons"),
        Column("adjudicated", "Adjudicated", Kind.FLAG),
    )
    rows: tuple[tuple[Cell, ...], ...] = tuple(
        (d.code, tuple(d.reviewers), tuple(d.reasons), d.adjudicated) for d in disagreements
    )
    return Table("disagreements", "Disagreements", columns, rows)
