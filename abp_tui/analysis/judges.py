"""The judge report: how far each AI judge agrees with people, and with itself.

For each judge, against the human reference the report names (:mod:`abp_tui.analysis.judge_units`):

- preference judges: per presentation order and requiring both orders, the pairs compared,
  percent agreement (Wilson interval) and Cohen's kappa with its bootstrap interval and
  confusion matrix (computed by :func:`abp_tui.stats.agreement.compute_variable`, the code of
  every reviewer pair); position consistency (the same pick in both orders) and Cohen's kappa
  between the two orders; position bias, the share of first-position picks among decisive
  verdicts with an exact binomial test; with three or more human annotators, the alt-test;
- score judges: Spearman's rho and Kendall's tau (SciPy) with people's total scores;
- pass/fail judges: the confusion matrix, sensitivity and specificity (Wilson), agreement and
  Cohen's kappa;
- agreement between judges that judged the same units.

Every unit left out of a figure is listed with its reason; ties follow :data:`TIES_RULE`.
Pure: rows and a reference in, a model out (the bundle re-derives it from its own files).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final, Literal

from pydantic import FiniteFloat, NonNegativeInt
from scipy.stats import kendalltau, spearmanr

from abp_tui.analysis.judge_estimates import JudgeAssisted, pass_rates, win_rates
from abp_tui.analysis.judge_units import (
    INCONSISTENT,
    ORDERS,
    TIES_RULE,
    Reference,
    ReferenceKind,
    VerdictRow,
    human_side,
    pair_key,
    pair_units,
    unit_name,
)
from abp_tui.models.base import Model
from abp_tui.models.judges import TIE, Judge
from abp_tui.stats.agreement import PairAgreement, compute_variable
from abp_tui.stats.alt_test import DEFAULT_EPSILON, MIN_ANNOTATORS, AltTest, alt_test
from abp_tui.stats.inference import BinomialTest, Proportion, binomial_test, wilson

RESAMPLES: Final = 1000
"""Bootstrap resamples of each kappa (items resampled with replacement)."""
JUDGE: Final = "judge"
PEOPLE: Final = "people"
BOTH: Final = "both orders"
PICKS: Final = ("a", "b")
DECISIVE_SCALE: Final = ("a", "b", INCONSISTENT)
ORDER_SCALE: Final = ("a", "b", TIE)
PASS_SCALE: Final = ("pass", "fail")


class LeftOut(Model):
    """A unit in no denominator of a figure, and why."""

    unit: str
    figure: str
    """original, swapped, both orders, position consistency, score, pass/fail."""
    reason: str


class OrderAgreement(Model):
    """The judge against people in one presentation order, or in both."""

    order: str
    n: NonNegativeInt
    """Units compared."""
    agreement: Proportion
    """The share of units where the judge picked what people picked (Wilson interval)."""
    kappa: PairAgreement
    """Cohen's kappa (bootstrap interval), percent agreement and the confusion matrix: judge
    down the rows, people across the columns."""


class PositionFigures(Model):
    """How the order the judge was shown the two outputs moves its verdicts."""

    consistency: Proportion
    """Units with the same pick in both orders (a tie counts as a pick), among those judged in
    both orders without an error."""
    kappa_between_orders: PairAgreement | None
    """Cohen's kappa between the two orders' picks (a, b, tie); None when no unit has both."""
    first_position: Proportion
    """The share of decisive verdicts (any order) that picked the output shown first."""
    first_position_test: BinomialTest
    """Exact two-sided binomial test of the first-position picks against 0.5."""


class OrderAltTest(Model):
    order: str
    test: AltTest


class PreferenceJudgeReport(Model):
    judge: Judge
    kind: Literal["preference"] = "preference"
    verdicts: NonNegativeInt
    units: NonNegativeInt
    """Pairs (and turns) the judge judged in at least one order."""
    errors: NonNegativeInt
    """Verdicts with an error (no pick)."""
    ties: NonNegativeInt
    """The judge's tie verdicts."""
    orders: tuple[OrderAgreement, ...]
    position: PositionFigures
    alt_tests: tuple[OrderAltTest, ...]
    alt_test_note: str | None = None
    """Why there is no alt-test (fewer than three human annotators per item)."""
    estimates: tuple[JudgeAssisted, ...] = ()
    """Each contrast's judge-assisted win rate (prediction-powered)."""
    left_out: tuple[LeftOut, ...]


class Correlation(Model):
    name: str
    statistic: FiniteFloat | None = None
    p_value: FiniteFloat | None = None
    n: NonNegativeInt
    undefined_reason: str | None = None
    method: str


class ScoreJudgeReport(Model):
    judge: Judge
    kind: Literal["score"] = "score"
    verdicts: NonNegativeInt
    n: NonNegativeInt
    """Runs with the judge's score and people's total score."""
    spearman: Correlation
    kendall: Correlation
    left_out: tuple[LeftOut, ...]


class PassFailJudgeReport(Model):
    judge: Judge
    kind: Literal["pass_fail"] = "pass_fail"
    verdicts: NonNegativeInt
    n: NonNegativeInt
    confusion: dict[str, NonNegativeInt]
    """true_pass (both pass), false_pass (judge pass, people fail), false_fail, true_fail."""
    sensitivity: Proportion
    """Judge pass among the runs people passed."""
    specificity: Proportion
    """Judge fail among the runs people failed."""
    agreement: Proportion
    kappa: PairAgreement
    estimates: tuple[JudgeAssisted, ...] = ()
    """Each condition's judge-assisted pass rate (prediction-powered)."""
    left_out: tuple[LeftOut, ...]


JudgeReport = PreferenceJudgeReport | ScoreJudgeReport | PassFailJudgeReport


class BetweenJudges(Model):
    """Agreement between judges on the units they all judged (preferences: original order)."""

    kind: str
    pairs: tuple[PairAgreement, ...] = ()
    correlations: tuple[Correlation, ...] = ()


class JudgesReport(Model):
    study: str
    reference: str
    """The human reference every figure is measured against, named."""
    reference_kind: ReferenceKind
    ties: str = TIES_RULE
    confidence: FiniteFloat
    seed: int
    resamples: NonNegativeInt
    epsilon: FiniteFloat
    """The alt-test's cost-benefit margin."""
    judges: tuple[JudgeReport, ...]
    between: tuple[BetweenJudges, ...]


# -- helpers ------------------------------------------------------------------------------------
def _pair_figure(
    records: list[tuple[str, str, Any]],
    scale: Sequence[str],
    seed: int,
    resamples: int,
    confidence: float,
    variable: str,
) -> PairAgreement:
    """Cohen's kappa of two raters over ``records`` (as every reviewer pair's)."""
    found = compute_variable(
        records,
        "nominal",
        list(scale),
        variable=variable,
        seed=seed,
        resamples=0,
        pair_resamples=resamples,
        confidence=confidence,
    )
    if found.pairs:
        return found.pairs[0]
    # Fewer than two raters judged anything: the pair still exists, with no item in common,
    # so that its figures say "undefined" and why.
    raters = sorted({r for _u, r, _v in records} | {JUDGE, PEOPLE})[:2]
    padded = [(f"\x00{n}", rater, scale[0]) for n, rater in enumerate(raters)]
    return compute_variable(
        padded, "nominal", list(scale), variable=variable, resamples=0, confidence=confidence
    ).pairs[0]


def _agreement(
    judge_id: str,
    order: str,
    compared: list[tuple[str, str, str]],
    scale: Sequence[str],
    settings: tuple[int, int, float],
) -> OrderAgreement:
    seed, resamples, confidence = settings
    records: list[tuple[str, str, Any]] = []
    agree = 0
    for unit, judge_pick, human_pick in compared:
        records.append((unit, JUDGE, judge_pick))
        records.append((unit, PEOPLE, human_pick))
        agree += judge_pick == human_pick
    return OrderAgreement(
        order=order,
        n=len(compared),
        agreement=wilson(agree, len(compared), confidence=confidence),
        kappa=_pair_figure(records, scale, seed, resamples, confidence, f"{judge_id}: {order}"),
    )


def _judge(judges: Mapping[str, Judge], judge_id: str) -> Judge:
    return judges.get(judge_id) or Judge(id=judge_id, model=judge_id, source="unknown")


# -- preference judges --------------------------------------------------------------------------
def preference_report(
    judge: Judge,
    rows: Sequence[VerdictRow],
    reference: Reference,
    settings: tuple[int, int, float],
    epsilon: float,
) -> PreferenceJudgeReport:
    units = pair_units(rows)
    left: list[LeftOut] = []
    compared: dict[str, list[tuple[str, str, str]]] = {o: [] for o in (*ORDERS, BOTH)}
    consistent = both_answered = 0
    between: list[tuple[str, str, Any]] = []
    for (runs, turn), unit in units.items():
        name = unit_name(runs, turn)
        if unit.stale:
            for figure in (*ORDERS, BOTH, "position consistency"):
                left.append(LeftOut(unit=name, figure=figure, reason="a run changed since"))
            continue
        human, why = human_side(reference, unit.runs)
        for order in ORDERS:
            pick = unit.picks.get(order)
            reason = None
            if order in unit.errors:
                reason = f"judge error: {unit.errors[order]}"
            elif pick is None:
                reason = "no verdict in this order"
            elif why is not None:
                reason = why
            elif human == TIE:
                reason = "a tie on the people's side"
            elif pick == TIE:
                reason = "a tie on the judge's side"
            if reason is None:
                compared[order].append((name, str(pick), str(human)))
            else:
                left.append(LeftOut(unit=name, figure=order, reason=reason))
        picks = [unit.picks.get(o) for o in ORDERS]
        if all(p is not None for p in picks):
            both_answered += 1
            consistent += picks[0] == picks[1]
            between.append((name, "original", picks[0]))
            between.append((name, "swapped", picks[1]))
            reason = why or ("a tie on the people's side" if human == TIE else None)
            if reason is None and picks[0] == picks[1] == TIE:
                reason = "a tie on the judge's side, in both orders"
            if reason is None:
                combined = picks[0] if picks[0] == picks[1] else INCONSISTENT
                compared[BOTH].append((name, str(combined), str(human)))
            else:
                left.append(LeftOut(unit=name, figure=BOTH, reason=reason))
        else:
            reason = "judged in one order only, or with an error"
            left.append(LeftOut(unit=name, figure=BOTH, reason=reason))
            left.append(LeftOut(unit=name, figure="position consistency", reason=reason))
    seed, resamples, confidence = settings
    orders = tuple(
        _agreement(judge.id, o, compared[o], DECISIVE_SCALE if o == BOTH else PICKS, settings)
        for o in (*ORDERS, BOTH)
    )
    current = [r for r in rows if r.current and r.error is None and r.verdict not in (None, TIE)]
    first = sum(1 for r in current if r.verdict == r.shown_first)
    position = PositionFigures(
        consistency=wilson(consistent, both_answered, confidence=confidence),
        kappa_between_orders=_pair_figure(
            between, ORDER_SCALE, seed, resamples, confidence, f"{judge.id}: between orders"
        )
        if between
        else None,
        first_position=wilson(first, len(current), confidence=confidence),
        first_position_test=binomial_test(first, len(current)),
    )
    tests, note = _alt_tests(units, reference, epsilon)
    return PreferenceJudgeReport(
        judge=judge,
        verdicts=len(rows),
        units=len(units),
        errors=sum(1 for r in rows if r.error is not None or r.verdict is None),
        ties=sum(1 for r in rows if r.verdict == TIE),
        orders=orders,
        position=position,
        alt_tests=tests,
        alt_test_note=note,
        estimates=win_rates(rows, reference, confidence, units),
        left_out=tuple(left),
    )


def _alt_tests(
    units: Mapping[Any, Any], reference: Reference, epsilon: float
) -> tuple[tuple[OrderAltTest, ...], str | None]:
    if len(reference.raters) < MIN_ANNOTATORS:
        return (), (
            f"{len(reference.raters)} human annotator(s) in the reference: the alt-test needs "
            f"{MIN_ANNOTATORS} or more per item"
        )
    humans = {
        name: {pair_key(p): pick for p, pick in picks.items()}
        for name, picks in reference.raters.items()
    }
    out = []
    for order in ORDERS:
        judge: dict[Any, str] = {}
        for unit in units.values():
            pick = unit.picks.get(order)
            if pick is None or unit.stale:
                continue
            judge[pair_key(unit.runs)] = (
                TIE if pick == TIE else unit.runs[0] if pick == "a" else unit.runs[1]
            )
        if judge:
            out.append(OrderAltTest(order=order, test=alt_test(humans, judge, epsilon=epsilon)))
    return tuple(out), None


# -- score and pass/fail judges -----------------------------------------------------------------
def _correlation(name: str, x: list[float], y: list[float]) -> Correlation:
    method = (
        "scipy.stats.spearmanr (ranks, ties averaged)"
        if name == "spearman"
        else "scipy.stats.kendalltau (tau-b)"
    )
    if len(x) < 3:
        return Correlation(
            name=name, n=len(x), undefined_reason=f"{len(x)} runs: needs 3 or more", method=method
        )
    if len(set(x)) < 2 or len(set(y)) < 2:
        return Correlation(
            name=name, n=len(x), undefined_reason="no variation on one side", method=method
        )
    result = spearmanr(x, y) if name == "spearman" else kendalltau(x, y)
    return Correlation(
        name=name,
        statistic=float(result.statistic),
        p_value=float(result.pvalue),
        n=len(x),
        method=method,
    )


def _run_reason(row: VerdictRow, reference: Reference, have: Mapping[str, Any]) -> str | None:
    run = row.runs[0]
    if not row.current:
        return "the run changed since"
    if row.error is not None:
        return f"judge error: {row.error}"
    if run not in have:
        return reference.run_reasons.get(run, "no human verdict")
    return None


def score_report(
    judge: Judge, rows: Sequence[VerdictRow], reference: Reference
) -> ScoreJudgeReport:
    x: list[float] = []
    y: list[float] = []
    left = []
    for row in rows:
        reason = _run_reason(row, reference, reference.scores)
        if reason is None and row.score is None:
            reason = "no score"
        if reason is not None:
            left.append(LeftOut(unit=unit_name(row.runs, row.turn), figure="score", reason=reason))
            continue
        x.append(float(row.score))  # type: ignore[arg-type]
        y.append(reference.scores[row.runs[0]])
    return ScoreJudgeReport(
        judge=judge,
        verdicts=len(rows),
        n=len(x),
        spearman=_correlation("spearman", x, y),
        kendall=_correlation("kendall", x, y),
        left_out=tuple(left),
    )


def pass_fail_report(
    judge: Judge, rows: Sequence[VerdictRow], reference: Reference, settings: tuple[int, int, float]
) -> PassFailJudgeReport:
    seed, resamples, confidence = settings
    cells = {"true_pass": 0, "false_pass": 0, "false_fail": 0, "true_fail": 0}
    records: list[tuple[str, str, Any]] = []
    left = []
    for row in rows:
        name = unit_name(row.runs, row.turn)
        reason = _run_reason(row, reference, reference.runs)
        if reason is None and row.verdict not in PASS_SCALE:
            reason = "partial credit: neither pass nor fail"
        if reason is not None:
            left.append(LeftOut(unit=name, figure="pass/fail", reason=reason))
            continue
        judged = row.verdict == "pass"
        human = reference.runs[row.runs[0]]
        key = ("true_" if judged == human else "false_") + ("pass" if judged else "fail")
        cells[key] += 1
        records.append((name, JUDGE, row.verdict))
        records.append((name, PEOPLE, "pass" if human else "fail"))
    n = sum(cells.values())
    return PassFailJudgeReport(
        judge=judge,
        verdicts=len(rows),
        n=n,
        confusion=cells,
        sensitivity=wilson(
            cells["true_pass"], cells["true_pass"] + cells["false_fail"], confidence=confidence
        ),
        specificity=wilson(
            cells["true_fail"], cells["true_fail"] + cells["false_pass"], confidence=confidence
        ),
        agreement=wilson(cells["true_pass"] + cells["true_fail"], n, confidence=confidence),
        kappa=_pair_figure(records, PASS_SCALE, seed, resamples, confidence, f"{judge.id}: pass"),
        estimates=pass_rates(rows, reference, confidence),
        left_out=tuple(left),
    )


# -- between judges -----------------------------------------------------------------------------
def _between(
    by_judge: Mapping[str, Sequence[VerdictRow]],
    kinds: Mapping[str, str],
    settings: tuple[int, int, float],
) -> tuple[BetweenJudges, ...]:
    seed, resamples, confidence = settings
    out = []
    preference: list[tuple[str, str, Any]] = []
    passes: list[tuple[str, str, Any]] = []
    scores: dict[str, dict[str, float]] = {}
    for judge_id, rows in by_judge.items():
        kind = kinds[judge_id]
        for row in rows:
            if not row.current or row.error is not None:
                continue
            if kind == "preference":
                if row.shown_first == row.runs[0] and row.verdict is not None:
                    pick = TIE if row.verdict == TIE else "a" if row.verdict == row.runs[0] else "b"
                    preference.append((unit_name(row.runs, row.turn), judge_id, pick))
            elif kind == "pass_fail" and row.verdict in PASS_SCALE:
                passes.append((unit_name(row.runs, row.turn), judge_id, row.verdict))
            elif kind == "score" and row.score is not None:
                scores.setdefault(judge_id, {})[unit_name(row.runs, row.turn)] = row.score
    for kind, records, scale in (
        ("preference (original order)", preference, ORDER_SCALE),
        ("pass/fail", passes, PASS_SCALE),
    ):
        if len({r for _u, r, _v in records}) >= 2:
            found = compute_variable(
                records,
                "nominal",
                list(scale),
                variable=kind,
                seed=seed,
                resamples=0,
                pair_resamples=resamples,
                confidence=confidence,
            )
            out.append(BetweenJudges(kind=kind, pairs=found.pairs))
    names = sorted(scores)
    correlations = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            shared = sorted(set(scores[a]) & set(scores[b]))
            found_c = _correlation(
                "spearman", [scores[a][u] for u in shared], [scores[b][u] for u in shared]
            )
            correlations.append(found_c.model_copy(update={"name": f"spearman: {a} vs {b}"}))
    if correlations:
        out.append(BetweenJudges(kind="score", correlations=tuple(correlations)))
    return tuple(out)


# -- the report ---------------------------------------------------------------------------------
def judges_report(
    study: str,
    judges: Iterable[Judge],
    rows: Iterable[VerdictRow],
    reference: Reference,
    *,
    confidence: float = 0.95,
    seed: int = 0,
    resamples: int = RESAMPLES,
    epsilon: float = DEFAULT_EPSILON,
) -> JudgesReport:
    """Every judge's figures against ``reference`` (see the module notes)."""
    known = {j.id: j for j in judges}
    by_judge: dict[str, list[VerdictRow]] = defaultdict(list)
    kinds: dict[str, str] = {}
    for row in rows:
        by_judge[row.judge].append(row)
        kinds.setdefault(row.judge, row.kind)
    settings = (seed, resamples, confidence)
    reports: list[JudgeReport] = []
    for judge_id in sorted(by_judge):
        judge, judged = _judge(known, judge_id), by_judge[judge_id]
        kind = kinds[judge_id]
        if kind == "preference":
            reports.append(preference_report(judge, judged, reference, settings, epsilon))
        elif kind == "score":
            reports.append(score_report(judge, judged, reference))
        else:
            reports.append(pass_fail_report(judge, judged, reference, settings))
    return JudgesReport(
        study=study,
        reference=reference.name,
        reference_kind=reference.kind,
        confidence=confidence,
        seed=seed,
        resamples=resamples,
        epsilon=epsilon,
        judges=tuple(reports),
        between=_between(by_judge, kinds, settings),
    )


__all__ = [
    "BOTH",
    "BetweenJudges",
    "Correlation",
    "JudgeReport",
    "JudgesReport",
    "LeftOut",
    "OrderAgreement",
    "PassFailJudgeReport",
    "PositionFigures",
    "PreferenceJudgeReport",
    "ScoreJudgeReport",
    "judges_report",
]
