"""The judge report: how far each AI judge agrees with people, and with itself.

For each judge, against the human reference the report names (:mod:`abp_tui.analysis.judges.units`):

- preference judges: per presentation order and requiring both orders, the pairs compared,
  percent agreement (Wilson interval) and Cohen's kappa with its bootstrap interval and
  confusion matrix (computed from the cell counts by
  :func:`abp_tui.stats.agreement.pair_from_counts`, the code of every reviewer pair); position
  consistency (the same pick in both orders) and Cohen's kappa between the two orders; position
  bias, the share of first-position picks among decisive
  verdicts with an exact binomial test; with three or more human annotators, the alt-test;
- score and pass/fail judges: :mod:`abp_tui.analysis.judges.runs`;
- agreement between judges that judged the same units.

Every unit left out of a figure is listed with its reason; ties follow :data:`TIES_RULE`.
The verdicts come in as a :class:`~abp_tui.analysis.judges.arrays.VerdictTable` and every figure
is a NumPy mask and count over it (:mod:`abp_tui.analysis.judges.pairs`): a study's hundreds of
thousands of verdicts cost no Python loop each. The kappas and binomial tests of every judge
are asked for while its counts are worked out and computed together at the end
(:mod:`abp_tui.analysis.judges.batch`: the same figures as one ``pair_from_counts`` or
``binomial_test`` call each). A judge whose verdicts are of two kinds gets a report per kind.
Pure: verdicts and a reference in, a model out (the bundle re-derives it from
its own files).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from itertools import combinations
from typing import Final

import numpy as np

from abp_tui.analysis.judges.arrays import (
    FAIL,
    I64,
    KINDS,
    NO_TURN,
    PASS,
    PASS_FAIL,
    PREFERENCE,
    SCORE,
    TIE_PICK,
    Bools,
    VerdictTable,
    first_rows,
    groups,
)
from abp_tui.analysis.judges.batch import FigureBatch, Settings
from abp_tui.analysis.judges.estimates import JudgeAssisted, win_rates
from abp_tui.analysis.judges.models import (
    BetweenJudges,
    Correlation,
    JudgeReport,
    JudgesReport,
    OrderAgreement,
    OrderAltTest,
    PassFailJudgeReport,
    PositionFigures,
    PreferenceJudgeReport,
    ScoreJudgeReport,
)
from abp_tui.analysis.judges.pairs import (
    MISSING,
    JudgePicks,
    LeftOut,
    LeftOuts,
    PairUnits,
    judge_picks,
    pair_units,
)
from abp_tui.analysis.judges.runs import (
    JUDGE,
    PASS_SCALE,
    PEOPLE,
    correlation,
    error_mask,
    pass_fail_report,
    run_names,
    run_side,
    score_report,
)
from abp_tui.analysis.judges.units import INCONSISTENT, ORDERS, TIES_RULE, Reference, VerdictRow
from abp_tui.models.judges import TIE, Judge
from abp_tui.stats.agreement import PairAgreement
from abp_tui.stats.alt_test import DEFAULT_EPSILON, MIN_ANNOTATORS, alt_test
from abp_tui.stats.inference import wilson

RESAMPLES: Final = 1000
"""Bootstrap resamples of each kappa (items resampled with replacement)."""
BOTH: Final = "both orders"
PICKS: Final = ("a", "b")
DECISIVE_SCALE: Final = ("a", "b", INCONSISTENT)
ORDER_SCALE: Final = ("a", "b", TIE)
CHANGED: Final = "a run changed since"
ONE_ORDER: Final = "judged in one order only, or with an error"

Build = Callable[[], PreferenceJudgeReport]


def _agreement(
    batch: FigureBatch,
    judge_id: str,
    order: str,
    judged: I64,
    people: I64,
    scale: tuple[str, ...],
) -> Callable[[], OrderAgreement]:
    """The judge's picks against people's on the units compared (codes into ``scale``)."""
    q = len(scale)
    cells = np.bincount(judged * q + people, minlength=q * q).reshape(q, q)
    agree, n = int(np.trace(cells)), int(judged.size)
    kappa = batch.kappa(cells, scale, (JUDGE, PEOPLE), f"{judge_id}: {order}")
    confidence = batch.settings[2]
    return lambda: OrderAgreement(
        order=order, n=n, agreement=wilson(agree, n, confidence=confidence), kappa=kappa()
    )


# -- preference judges --------------------------------------------------------------------------
def preference_report(
    judge: Judge,
    units: PairUnits,
    code: int,
    reference: Reference,
    settings: Settings,
    epsilon: float,
) -> tuple[PreferenceJudgeReport, JudgePicks]:
    """The report of the preference judge with code ``code`` in the table (and its picks, which
    the agreement between judges reuses)."""
    batch = FigureBatch(settings)
    build, picks = _preference(batch, judge, units, code, reference, epsilon)
    batch.run()
    return build(), picks


def _preference(
    batch: FigureBatch,
    judge: Judge,
    units: PairUnits,
    code: int,
    reference: Reference,
    epsilon: float,
) -> tuple[Build, JudgePicks]:
    """The judge's counts; its kappas and binomial test go into ``batch``, and the returned
    function builds the report once the batch has run."""
    table = units.table
    confidence = batch.settings[2]
    p = judge_picks(units, code)
    left = LeftOuts(table, units.named)
    live = p.judged & ~p.stale
    for figure in (*ORDERS, BOTH, "position consistency"):
        left.add(figure, CHANGED, p.judged & p.stale)
    human = units.human
    decisive = (human >= 0) & (human != TIE_PICK)
    orders = []
    for o, order in enumerate(ORDERS):
        pick = p.pick[o]
        picked = live & (pick >= 0)
        left.errors(order, live & (pick == -1), p.row[o])
        left.add(order, "no verdict in this order", live & (pick == MISSING))
        left.by_reason(order, picked & (human < 0), units.human_reason, units.reasons)
        left.add(order, "a tie on the people's side", picked & (human == TIE_PICK))
        left.add(order, "a tie on the judge's side", picked & decisive & (pick == TIE_PICK))
        compared = picked & decisive & (pick != TIE_PICK)
        orders.append(_agreement(batch, judge.id, order, pick[compared], human[compared], PICKS))
    first, second = p.pick
    both = live & (first >= 0) & (second >= 0)
    for figure in (BOTH, "position consistency"):
        left.add(figure, ONE_ORDER, live & ~both)
    left.by_reason(BOTH, both & (human < 0), units.human_reason, units.reasons)
    left.add(BOTH, "a tie on the people's side", both & (human == TIE_PICK))
    tied = (first == TIE_PICK) & (second == TIE_PICK)
    left.add(BOTH, "a tie on the judge's side, in both orders", both & decisive & tied)
    compared = both & decisive & ~tied
    combined = np.where(first == second, first, DECISIVE_SCALE.index(INCONSISTENT))
    orders.append(
        _agreement(batch, judge.id, BOTH, combined[compared], human[compared], DECISIVE_SCALE)
    )
    n_both = int(np.count_nonzero(both))
    between: Callable[[], PairAgreement] | None = None
    if n_both:
        cells = np.bincount(first[both] * 3 + second[both], minlength=9).reshape(3, 3)
        between = batch.kappa(
            cells, ORDER_SCALE, ("original", "swapped"), f"{judge.id}: between orders"
        )
    verdict = table.verdict[p.rows]
    shown_first = table.current[p.rows] & (verdict >= 0) & (verdict != TIE_PICK)
    firsts = int(np.count_nonzero(shown_first & (verdict == table.swapped[p.rows])))
    decided = int(np.count_nonzero(shown_first))
    test = batch.binomial(firsts, decided)
    consistent = int(np.count_nonzero(both & (first == second)))
    tests, note = _alt_tests(units, p, reference, epsilon)
    counts = (
        int(p.rows.size),
        int(np.count_nonzero(p.judged)),
        int(np.count_nonzero(verdict < 0)),
        int(np.count_nonzero(verdict == TIE_PICK)),
    )
    estimates = win_rates(units, p, confidence, reference.calibration, reference.allocation)

    def build() -> PreferenceJudgeReport:
        return PreferenceJudgeReport(
            judge=judge,
            verdicts=counts[0],
            units=counts[1],
            errors=counts[2],
            ties=counts[3],
            orders=tuple(o() for o in orders),
            position=PositionFigures(
                consistency=wilson(consistent, n_both, confidence=confidence),
                kappa_between_orders=between() if between is not None else None,
                first_position=wilson(firsts, decided, confidence=confidence),
                first_position_test=test(),
            ),
            alt_tests=tests,
            alt_test_note=note,
            estimates=estimates,
            left_out=left.models(),
        )

    return build, p


def _alt_tests(
    units: PairUnits, p: JudgePicks, reference: Reference, epsilon: float
) -> tuple[tuple[OrderAltTest, ...], str | None]:
    if len(reference.raters) < MIN_ANNOTATORS:
        return (), (
            f"{len(reference.raters)} human annotator(s) in the reference: the alt-test needs "
            f"{MIN_ANNOTATORS} or more per item"
        )
    humans = {name: dict(picks) for name, picks in reference.raters.items()}
    runs = units.table.runs
    out = []
    for o, order in enumerate(ORDERS):
        judge: dict[tuple[str, str], str] = {}
        pick = p.pick[o]
        for u in np.flatnonzero(p.judged & ~p.stale & (pick >= 0)).tolist():
            code = int(pick[u])
            chosen = TIE if code == TIE_PICK else runs[int((units.a, units.b)[code][u])]
            judge[units.key(u)] = chosen
        if judge:
            out.append(OrderAltTest(order=order, test=alt_test(humans, judge, epsilon=epsilon)))
    return tuple(out), None


# -- between judges -----------------------------------------------------------------------------
def _pairs_between(
    batch: FigureBatch,
    kind: str,
    codes: Mapping[str, tuple[Bools, I64]],
    scale: tuple[str, ...],
) -> Callable[[], BetweenJudges] | None:
    """Cohen's kappa of each pair of judges (names sorted) on the units both judged; ``codes``:
    judge -> (which units it judged, its code into ``scale`` on each)."""
    present = sorted(name for name, (valid, _c) in codes.items() if valid.any())
    if len(present) < 2:
        return None
    q = len(scale)
    pairs = []
    for a, b in combinations(present, 2):
        (va, ca), (vb, cb) = codes[a], codes[b]
        shared = va & vb
        cells = np.bincount(ca[shared] * q + cb[shared], minlength=q * q).reshape(q, q)
        pairs.append(batch.kappa(cells, scale, (a, b), kind))
    return lambda: BetweenJudges(kind=kind, pairs=tuple(pair() for pair in pairs))


def _between(
    batch: FigureBatch,
    table: VerdictTable,
    preference: Mapping[str, JudgePicks],
    run_judges: list[tuple[str, int, I64]],
    errors: Bools,
) -> list[Callable[[], BetweenJudges]]:
    """Builders of the agreement between judges (their kappas go into ``batch``)."""
    out: list[Callable[[], BetweenJudges]] = []
    table_current = table.current
    original = {}
    for name, p in preference.items():
        row = p.row[0]
        valid = (p.pick[0] >= 0) & table_current[np.where(row >= 0, row, 0)] & (row >= 0)
        original[name] = (valid, np.where(valid, p.pick[0], 0))
    found = _pairs_between(batch, "preference (original order)", original, ORDER_SCALE)
    if found is not None:
        out.append(found)
    singles = [(name, kind, rows) for name, kind, rows in run_judges if rows.size]
    if singles:
        every = np.concatenate([rows for _n, _k, rows in singles])
        unit_of_row, _first = groups((table.run_a[every], table.turn[every]))
        unit_count = int(unit_of_row.max()) + 1 if unit_of_row.size else 0
        at = 0
        passes: dict[str, tuple[Bools, I64]] = {}
        scores: dict[str, tuple[Bools, np.ndarray]] = {}
        for name, kind, rows in singles:
            unit = unit_of_row[at : at + rows.size]
            at += rows.size
            ok = table_current[rows] & ~errors[rows]
            if kind == PASS_FAIL:
                verdict = table.verdict[rows]
                ok &= (verdict == PASS) | (verdict == FAIL)
                valid = np.zeros(unit_count, dtype=bool)
                code = np.zeros(unit_count, dtype=np.int64)
                valid[unit[ok]] = True
                code[unit[ok]] = (verdict[ok] == FAIL).astype(np.int64)
                passes[name] = (valid, code)
            else:
                score = table.score[rows]
                ok &= ~np.isnan(score)
                valid = np.zeros(unit_count, dtype=bool)
                value = np.full(unit_count, np.nan)
                valid[unit[ok]] = True
                value[unit[ok]] = score[ok]
                scores[name] = (valid, value)
        found = _pairs_between(batch, "pass/fail", passes, PASS_SCALE)
        if found is not None:
            out.append(found)
        correlations: list[Correlation] = []
        for a, b in combinations(sorted(scores), 2):
            shared = scores[a][0] & scores[b][0]
            c = correlation("spearman", scores[a][1][shared], scores[b][1][shared])
            correlations.append(c.model_copy(update={"name": f"spearman: {a} vs {b}"}))
        if correlations:
            scored = BetweenJudges(kind="score", correlations=tuple(correlations))
            out.append(lambda: scored)
    return out


# -- the report ---------------------------------------------------------------------------------
def judges_report(
    study: str,
    judges: Iterable[Judge],
    verdicts: VerdictTable | Iterable[VerdictRow],
    reference: Reference,
    *,
    confidence: float = 0.95,
    seed: int = 0,
    resamples: int = RESAMPLES,
    epsilon: float = DEFAULT_EPSILON,
) -> JudgesReport:
    """Every judge's figures against ``reference`` (see the module notes)."""
    table = verdicts if isinstance(verdicts, VerdictTable) else VerdictTable.from_rows(verdicts)
    known = {j.id: j for j in judges}
    settings = (seed, resamples, confidence)
    # One report per judge and kind: judges by id, a judge's kinds as its verdicts first come.
    slots: list[tuple[str, int, int, int]] = []
    if len(table):
        kinds = len(KINDS)
        first = first_rows(table.judge * kinds + table.kind, len(table.judges) * kinds)
        for row in first.tolist():
            code, kind = int(table.judge[row]), int(table.kind[row])
            slots.append((table.judges[code], row, code, kind))
        slots.sort(key=lambda s: (s[0], s[1]))
    units = pair_units(table, reference) if (table.kind == PREFERENCE).any() else None
    side = run_side(table, reference) if (table.kind != PREFERENCE).any() else None
    errors = error_mask(table)
    batch = FigureBatch(settings)
    reports: list[JudgeReport | Build] = []
    picks: dict[str, JudgePicks] = {}
    run_judges: list[tuple[str, int, I64]] = []
    for name, _row, code, kind in slots:
        judge = known.get(name) or Judge(id=name, model=name, source="unknown")
        if kind == PREFERENCE:
            assert units is not None
            build, picks[name] = _preference(batch, judge, units, code, reference, epsilon)
            reports.append(build)
            continue
        assert side is not None
        rows = np.flatnonzero((table.judge == code) & (table.kind == kind))
        run_judges.append((name, kind, rows))
        if kind == SCORE:
            reports.append(score_report(judge, table, rows, side, errors))
        else:
            reports.append(pass_fail_report(judge, table, rows, side, errors, settings))
    between = _between(batch, table, picks, run_judges, errors)
    batch.run()
    return JudgesReport(
        study=study,
        reference=reference.name,
        reference_kind=reference.kind,
        confidence=confidence,
        seed=seed,
        resamples=resamples,
        epsilon=epsilon,
        judges=tuple(r() if callable(r) else r for r in reports),
        between=tuple(b() for b in between),
    )


__all__ = [
    "BOTH",
    "KINDS",
    "NO_TURN",
    "RESAMPLES",
    "TIES_RULE",
    "BetweenJudges",
    "Correlation",
    "JudgeAssisted",
    "JudgeReport",
    "JudgesReport",
    "LeftOut",
    "OrderAgreement",
    "PassFailJudgeReport",
    "PositionFigures",
    "PreferenceJudgeReport",
    "ScoreJudgeReport",
    "judges_report",
    "preference_report",
    "run_names",
]
