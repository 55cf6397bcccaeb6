"""The judge report (``results/ai_judges.json``) as the tables ``report.html`` shows: each AI
judge against people, its position consistency and bias, the alt-test, and the judge-assisted
estimates, marked as such. Built on the one table model (:mod:`abp_tui.analysis.tables`), so
the page writes and escapes them like every other table; nothing here reads a file. Each
judge-assisted figure states its labelled set (the design's calibration sample, or every unit
people judged, assumed to be a random sample).
"""

from __future__ import annotations

from typing import Final

from abp_tui.analysis.judges.active import ActiveEstimate
from abp_tui.analysis.judges.models import (
    JudgesReport,
    PassFailJudgeReport,
    PreferenceJudgeReport,
    ScoreJudgeReport,
)
from abp_tui.analysis.judges.pairs import left_out_count
from abp_tui.analysis.judges.summary import caution
from abp_tui.analysis.tables import Cell, Column, Estimate, Kind, Number, PValue, Table
from abp_tui.models.judges import Judge
from abp_tui.stats.agreement import REFUSED, Figure
from abp_tui.stats.ppi import MeanEstimate

NONE = "no pair judged in both orders"
LABELLED_NOTES: Final = {
    True: "Labelled set, the calibration sample: only the units of the design's seeded random "
    "calibration sample that people judged correct the judge, so the interval is valid whatever "
    "the judge's quality; units people judged outside it count by the judge's verdict alone.",
    False: "Labelled set, every unit people judged: assumed to be a random sample of the units "
    "the judge judged, not verified; set calibration_sample in the design for a guarantee.",
}
"""The estimates table's note for each kind of labelled set it holds (calibration sample or
not), beside each figure's own statement."""
ACTIVE_NOTE: Final = (
    "Active allocation (human_budget): people judged the units a seeded draw sent them, each "
    "with a known probability growing with the AI judges' uncertainty; the weighted figure "
    "corrects the judge by each drawn unit's error times 1 / its probability (Zrnic & Candès "
    "2024), valid whatever the judge's quality. Beside it, people alone is Horvitz-Thompson "
    "(1 / probability weights, no judge); the uniform-sample row treats the drawn units as a "
    "simple random sample, which they are not, and is shown for comparison only."
)


def _named(judge: Judge) -> str:
    parts = [judge.id, f"model {judge.model}"]
    if judge.prompt:
        parts.append(f"prompt {judge.prompt}")
    if judge.version:
        parts.append(f"version {judge.version}")
    return "; ".join(parts)


def _kappa(figure: Figure) -> Estimate:
    interval = figure.interval
    if figure.value is None:
        return Estimate(point=None, reason=figure.undefined_reason)
    if interval is None:
        note = figure.interval_note or ""
        return Estimate(point=figure.value, reason=note.removeprefix(REFUSED) or None)
    return Estimate(
        point=figure.value,
        low=interval.low,
        high=interval.high,
        confidence=interval.confidence,
        seed=interval.seed,
        resamples=interval.resamples,
        resamples_used=interval.resamples_used,
    )


def _columns(*spec: tuple[str, Kind]) -> tuple[Column, ...]:
    return tuple(Column(label, kind=kind) for label, kind in spec)


def _active_row(
    name: str, figure: str, a: ActiveEstimate, alone: MeanEstimate, assumption: str
) -> tuple[Cell, ...]:
    """A figure of a design with a human budget: the weighted estimate, people alone weighted
    (Horvitz-Thompson)."""
    w, h = a.active, a.people_only
    return (
        name,
        f"{figure} (active allocation, inverse-probability weighted)",
        Estimate(w.point, w.low, w.high, w.undefined_reason, w.confidence),
        Estimate(h.point, h.low, h.high, h.undefined_reason, h.confidence),
        Number(alone.point, reason=alone.undefined_reason),
        a.n_labelled,
        a.n_units - a.n_labelled,
        Number(w.effective_labels, reason=w.undefined_reason),
        assumption,
    )


SCOPE_NOTE: Final = (
    "Counted over the judges' verdicts on this design's runs, the ones the bundle holds; "
    "abp-tui judges on the study's database counts every verdict the judges gave."
)
"""Why a figure here may differ from the command's: the bundle holds only the design's runs."""


def judge_tables(report: JudgesReport) -> dict[str, Table]:
    """The page's judge tables by name: against people (every judge, order by order), position
    (preference judges), alt-test, estimates (judge-assisted), and judges' agreement."""
    against: list[tuple[Cell, ...]] = []
    position: list[tuple[Cell, ...]] = []
    alt: list[tuple[Cell, ...]] = []
    estimates: list[tuple[Cell, ...]] = []
    cautions: list[str] = []  # as `abp-tui judges` says them, under the figure
    sets: set[bool] = set()
    active = False
    for j in report.judges:
        name = _named(j.judge)
        left = left_out_count(j.left_out)
        if isinstance(j, PreferenceJudgeReport):
            for o in j.orders:
                against.append(
                    (name, o.order, o.n, o.agreement, _kappa(o.kappa.cohen_kappa), "", left)
                )
            p = j.position
            test = p.first_position_test
            orders_kappa = p.kappa_between_orders
            position.append(
                (
                    name,
                    p.consistency,
                    _kappa(orders_kappa.cohen_kappa)
                    if orders_kappa
                    else Estimate(None, reason="no unit"),
                    p.first_position,
                    PValue(test.p_value, test.undefined_reason),
                )
            )
            for entry in j.alt_tests:
                t = entry.test
                verdict = "undefined" if t.passed is None else "passes" if t.passed else "fails"
                if t.undefined_reason is not None:
                    verdict = f"{verdict}: {t.undefined_reason}"
                alt.append(
                    (
                        name,
                        entry.order,
                        Number(t.epsilon),
                        verdict
                        if t.undefined_reason is None
                        else f"{verdict}: {t.undefined_reason}",
                        Number(t.winning_rate, reason=t.undefined_reason),
                        Number(t.advantage_probability, reason=t.undefined_reason),
                        t.tested,
                    )
                )
            if j.alt_test_note:
                alt.append((name, "", None, j.alt_test_note, Number(None), Number(None), 0))
        elif isinstance(j, PassFailJudgeReport):
            c = j.confusion
            detail = (
                f"sensitivity {j.sensitivity.x}/{j.sensitivity.n}, specificity "
                f"{j.specificity.x}/{j.specificity.n}; judge pass and people fail "
                f"{c['false_pass']}, judge fail and people pass {c['false_fail']}"
            )
            against.append(
                (name, "pass/fail", j.n, j.agreement, _kappa(j.kappa.cohen_kappa), detail, left)
            )
        elif isinstance(j, ScoreJudgeReport):
            shown = []
            for corr in (j.spearman, j.kendall):
                value = f"{corr.statistic:.4f}" if corr.statistic is not None else "undefined"
                shown.append(f"{corr.name} {value} ({corr.undefined_reason or corr.method})")
            against.append(
                (name, "score", j.n, None, Estimate(None, reason="scores"), "; ".join(shown), left)
            )
        for e in getattr(j, "estimates", ()):
            est = e.estimate
            h, alone = est.human_only, est.judge_only
            if e.active is not None:
                estimates.append(_active_row(name, e.figure, e.active, alone, e.assumption))
                active = True
                w = e.active.active
                said = caution(e.active.n_labelled, w.low, w.high) if w.point is not None else None
            else:
                said = caution(est.n_human, est.low, est.high) if est.point is not None else None
            if said:
                cautions.append(f"Caution, {name}, {e.figure}: {said}.")
            alone_said = caution(h.n, h.low, h.high) if h.point is not None else None
            if alone_said:
                cautions.append(f"Caution, {name}, {e.figure}, people alone: {alone_said}.")
            estimates.append(
                (
                    name,
                    f"{e.figure} (uniform sample, for comparison only)"
                    if e.active is not None
                    else f"{e.figure} (judge-assisted)",
                    Estimate(est.point, est.low, est.high, est.undefined_reason, est.confidence),
                    Estimate(h.point, h.low, h.high, h.undefined_reason, est.confidence),
                    Number(alone.point, reason=alone.undefined_reason),
                    est.n_human,
                    est.n_judge_only,
                    Number(est.effective_human_judgments, reason=est.undefined_reason),
                    e.assumption,
                )
            )
            sets.add(e.labelled.calibration)
    between: list[tuple[Cell, ...]] = []
    for b in report.between:
        for pair in b.pairs:
            between.append(
                (
                    b.kind,
                    f"{pair.reviewer_a} vs {pair.reviewer_b}",
                    pair.n_items,
                    _kappa(pair.cohen_kappa),
                )
            )
        for corr in b.correlations:
            between.append(
                (b.kind, corr.name, corr.n, Estimate(corr.statistic, reason=corr.undefined_reason))
            )
    return {
        "against": Table(
            "judges-against-people",
            "Each AI judge against people",
            _columns(
                ("judge", Kind.TEXT),
                ("order shown", Kind.TEXT),
                ("n", Kind.COUNT),
                ("agreement with people", Kind.PROPORTION),
                ("Cohen's kappa", Kind.INTERVAL),
                ("detail", Kind.TEXT),
                ("left out", Kind.COUNT),
            ),
            tuple(against),
            (f"Ties: {report.ties}.", SCOPE_NOTE),
        ),
        "position": Table(
            "judges-position",
            "Position consistency and bias",
            _columns(
                ("judge", Kind.TEXT),
                ("same pick in both orders", Kind.PROPORTION),
                ("Cohen's kappa between orders", Kind.INTERVAL),
                ("first-position picks", Kind.PROPORTION),
                ("exact binomial p (vs 0.5)", Kind.P_VALUE),
            ),
            tuple(position),
            (SCOPE_NOTE,),
        ),
        "alt": Table(
            "judges-alt-test",
            "Alternative Annotator Test",
            _columns(
                ("judge", Kind.TEXT),
                ("order shown", Kind.TEXT),
                ("epsilon", Kind.NUMBER),
                ("result", Kind.TEXT),
                ("winning rate", Kind.NUMBER),
                ("advantage probability", Kind.NUMBER),
                ("annotators tested", Kind.COUNT),
            ),
            tuple(alt),
        ),
        "estimates": Table(
            "judges-assisted",
            "Judge-assisted estimates",
            _columns(
                ("judge", Kind.TEXT),
                ("figure", Kind.TEXT),
                ("judge-assisted (PPI++)", Kind.INTERVAL),
                ("people alone", Kind.INTERVAL),
                ("judge alone (biased)", Kind.NUMBER),
                ("labelled by people", Kind.COUNT),
                ("by the judge's verdict alone", Kind.COUNT),
                ("worth human judgments", Kind.NUMBER),
                ("labelled set", Kind.TEXT),
            ),
            tuple(estimates),
            tuple(LABELLED_NOTES[c] for c in sorted(sets, reverse=True))
            + ((ACTIVE_NOTE,) if active else ())
            + tuple(cautions),
        ),
        "between": Table(
            "judges-between",
            "Agreement between judges",
            _columns(
                ("verdicts", Kind.TEXT),
                ("judges", Kind.TEXT),
                ("n", Kind.COUNT),
                ("Cohen's kappa or Spearman's rho", Kind.INTERVAL),
            ),
            tuple(between),
        ),
    }


__all__ = ["judge_tables"]
