"""The judge report as plain lines of text: what ``abp-tui judges`` prints and the Judges screen
shows (both faces write these lines, so they cannot drift). Every name that comes from a record
(judge ids, run ids) is made safe first; nothing here is markup.
"""

from __future__ import annotations

from abp_tui.analysis.judges.active import ActiveEstimate
from abp_tui.analysis.judges.estimates import JudgeAssisted
from abp_tui.analysis.judges.pairs import left_out_count
from abp_tui.analysis.judges.report import (
    JudgesReport,
    PassFailJudgeReport,
    PreferenceJudgeReport,
    ScoreJudgeReport,
)
from abp_tui.stats.agreement import REFUSED, Figure, PairAgreement
from abp_tui.stats.inference import Proportion
from abp_tui.stats.ppi_units import UnitsEstimate
from abp_tui.text.safe import safe_line

GAP = "  "
MAX_LISTED = 20
"""Left-out units listed per judge in text (JSON lists every one)."""


def _share(p: Proportion) -> str:
    if not p.defined or p.point is None or p.low is None or p.high is None:
        return f"{p.x}/{p.n} (undefined: {p.undefined_reason})"
    return f"{p.x}/{p.n} = {p.point:.3f} [{p.low:.3f}, {p.high:.3f}]"


def _kappa(figure: Figure) -> str:
    if figure.value is None:
        return f"undefined: {figure.undefined_reason}"
    text = f"{figure.value:.4f}"
    if figure.interval is not None:
        text += f" [{figure.interval.low:.4f}, {figure.interval.high:.4f}] bootstrap"
    elif figure.interval_note:
        text += f" (no interval: {figure.interval_note.removeprefix(REFUSED)})"
    return text


def _confusion(pair: PairAgreement) -> str:
    c = pair.confusion
    if c is None:
        return "confusion withheld while the study is blind (it counts the people's picks by side)"
    cells = "; ".join(
        f"{c.rows} {row_cat}: "
        + ", ".join(f"{col_cat} {n}" for col_cat, n in zip(c.categories, row, strict=True))
        for row_cat, row in zip(c.categories, c.counts, strict=True)
    )
    return f"confusion ({c.rows} down, {c.columns} across): {cells}"


def _preference(j: PreferenceJudgeReport) -> list[str]:
    out = [f"{GAP}{j.verdicts} verdicts on {j.units} pairs; {j.errors} errors, {j.ties} ties"]
    for o in j.orders:
        if o.n == 0:
            out.append(f"{GAP}{o.order}: n = 0, nothing to compare with people (left out, below)")
            continue
        out.append(
            f"{GAP}{o.order}: n = {o.n}, agreement {_share(o.agreement)}, "
            f"Cohen's kappa {_kappa(o.kappa.cohen_kappa)}"
        )
        out.append(f"{GAP}{GAP}{_confusion(o.kappa)}")
    p = j.position
    out.append(f"{GAP}position consistency (same pick in both orders): {_share(p.consistency)}")
    if p.kappa_between_orders is not None:
        between = _kappa(p.kappa_between_orders.cohen_kappa)
        out.append(f"{GAP}Cohen's kappa between orders: {between}")
    test = p.first_position_test
    shown = f"p = {test.p_value:.4g}" if test.p_value is not None else test.undefined_reason
    out.append(
        f"{GAP}position bias (first-position picks): {_share(p.first_position)}, exact "
        f"binomial {shown}"
    )
    if j.alt_test_note:
        out.append(f"{GAP}alt-test: {j.alt_test_note}")
    for entry in j.alt_tests:
        t = entry.test
        if t.winning_rate is None:
            out.append(f"{GAP}alt-test ({entry.order}): undefined: {t.undefined_reason}")
            continue
        verdict = "passes" if t.passed else "fails"
        out.append(
            f"{GAP}alt-test ({entry.order}, epsilon {t.epsilon:g}): {verdict}, winning rate "
            f"{t.winning_rate:.3f}, advantage probability {t.advantage_probability:.3f}"
        )
        for a in t.annotators:
            if a.p_value is None:
                out.append(f"{GAP}{GAP}{safe_line(a.annotator)}: {a.left_out_reason}")
            else:
                out.append(
                    f"{GAP}{GAP}{safe_line(a.annotator)}: {a.items} items, rho "
                    f"{a.advantage_probability:.3f}, p = {a.p_value:.4g}"
                    f"{', judge wins' if a.rejected else ''}"
                )
    return out


def _score(j: ScoreJudgeReport) -> list[str]:
    out = [f"{GAP}{j.verdicts} scores; {j.n} runs with people's total score"]
    for c in (j.spearman, j.kendall):
        if c.statistic is None:
            out.append(f"{GAP}{c.name}: undefined: {c.undefined_reason}")
        else:
            out.append(f"{GAP}{c.name}: {c.statistic:.4f}, p = {c.p_value:.4g} ({c.method})")
    return out


def _pass_fail(j: PassFailJudgeReport) -> list[str]:
    c = j.confusion
    return [
        f"{GAP}{j.verdicts} verdicts; n = {j.n}: judge pass & people pass {c['true_pass']}, "
        f"judge pass & people fail {c['false_pass']}, judge fail & people pass "
        f"{c['false_fail']}, judge fail & people fail {c['true_fail']}",
        f"{GAP}sensitivity {_share(j.sensitivity)}; specificity {_share(j.specificity)}",
        f"{GAP}agreement {_share(j.agreement)}; Cohen's kappa {_kappa(j.kappa.cohen_kappa)}",
    ]


def _mean(label: str, point: float | None, low: float | None, high: float | None, n: int) -> str:
    if point is None:
        return f"{label}: undefined (n = {n})"
    shown = f"{label}: {point:.3f}"
    if low is not None and high is not None:
        shown += f" [{low:.3f}, {high:.3f}]"
    return f"{shown} (n = {n})"


def _units(label: str, u: UnitsEstimate) -> str:
    if u.point is None or u.low is None or u.high is None:
        return f"{label}: undefined ({u.undefined_reason})"
    lam = "" if u.lam is None else f", lam {u.lam:.3f}"
    return f"{label}: {u.point:.3f} [{u.low:.3f}, {u.high:.3f}]{lam}"


def _active(e: JudgeAssisted, a: ActiveEstimate) -> list[str]:
    """A figure of a design with a human budget: the weighted estimate, then the others."""
    head = (
        f"{GAP}judge-assisted {safe_line(e.figure)}: "
        f"{_units('active allocation (inverse-probability weighted)', a.active)} "
        f"({a.n_labelled} drawn units judged by people, {a.n_units} units)"
    )
    out = [head, f"{GAP}{GAP}{e.assumption}"]
    out += _caution(a.n_labelled, a.active.low, a.active.high)
    out.append(f"{GAP}{GAP}{_units('people only (Horvitz-Thompson)', a.people_only)}")
    out.append(f"{GAP}{GAP}{_units('uniform sample (for comparison only)', a.uniform)}")
    j = e.estimate.judge_only
    out.append(f"{GAP}{GAP}{_mean('judge alone (biased, no interval)', j.point, None, None, j.n)}")
    effective = a.active.effective_labels
    if effective is not None and a.human_judgments_saved is not None:
        out.append(
            f"{GAP}{GAP}worth {effective:.1f} human judgments of a uniform sample; human "
            f"judgments saved {a.human_judgments_saved:+.1f}"
        )
    if e.human_without_verdict:
        out.append(
            f"{GAP}{GAP}{e.human_without_verdict} judged by people without a usable verdict "
            "(in neither set)"
        )
    return out


FEW_LABELS = 30
"""Fewer units judged by people than this, and a judge-assisted interval is said to rest on
too few: its normal approximation (PPI++, like the paper's) is a large-sample one."""


def _caution(n: int, low: float | None, high: float | None) -> list[str]:
    found = caution(n, low, high)
    return [f"{GAP}{GAP}caution: {found}"] if found else []


def caution(n: int, low: float | None, high: float | None) -> str | None:
    """What a reader of a judge-assisted figure must know before trusting its interval: too
    few people's judgments under it, or bounds outside the rate's own range, 0 to 1 (None:
    nothing)."""
    said = []
    if n < FEW_LABELS:
        said.append(
            f"only {n} unit{'' if n == 1 else 's'} judged by people: the interval is a "
            f"large-sample approximation, not to be trusted below about {FEW_LABELS}"
        )
    if low is not None and high is not None and (low < 0 or high > 1):
        said.append("the interval leaves 0 to 1, the range of the rate itself")
    return "; ".join(said) or None


def _estimate(e: JudgeAssisted) -> list[str]:
    if e.active is not None:
        return _active(e, e.active)
    p = e.estimate
    head = f"{GAP}judge-assisted {safe_line(e.figure)}: "
    if p.point is None:
        head += f"undefined: {p.undefined_reason}"
    else:
        head += (
            f"{p.point:.3f} [{p.low:.3f}, {p.high:.3f}] ({p.method}; lam {p.lam:.3f}; "
            f"{p.n_human} labelled by people, {p.n_judge_only} by the judge's verdict alone)"
        )
    out = [head, f"{GAP}{GAP}{e.assumption}"]
    if p.point is not None:
        out += _caution(p.n_human, p.low, p.high)
    h, j = p.human_only, p.judge_only
    out.append(
        f"{GAP}{GAP}{_mean('people alone', h.point, h.low, h.high, h.n)}; "
        f"{_mean('judge alone (biased, no interval)', j.point, None, None, j.n)}"
    )
    if h.point is not None and (alone := caution(h.n, h.low, h.high)):
        out.append(f"{GAP}{GAP}caution, people alone: {alone}")
    if p.effective_human_judgments is not None and p.human_judgments_saved is not None:
        out.append(
            f"{GAP}{GAP}worth {p.effective_human_judgments:.1f} human judgments "
            f"({p.human_judgments_saved:+.1f})"
        )
    if e.human_without_verdict:
        out.append(
            f"{GAP}{GAP}{e.human_without_verdict} judged by people without a usable verdict "
            "(in neither set)"
        )
    return out


def report_lines(report: JudgesReport) -> list[str]:
    """The whole report, one line per figure."""
    out = [
        f"AI judges of study {safe_line(report.study)}, against {safe_line(report.reference)}",
        f"intervals: Wilson {report.confidence:.4g} for shares; kappa: percentile bootstrap, "
        f"{report.resamples} resamples, seed {report.seed}",
        f"ties: {report.ties}",
    ]
    for j in report.judges:
        judge = j.judge
        named = f"{safe_line(judge.id)} (model {safe_line(judge.model)}"
        named += f", prompt {safe_line(judge.prompt)}" if judge.prompt else ""
        named += f", version {safe_line(judge.version)}" if judge.version else ""
        out.append("")
        out.append(f"{named}; {j.kind} verdicts)")
        if isinstance(j, PreferenceJudgeReport):
            out.extend(_preference(j))
        elif isinstance(j, ScoreJudgeReport):
            out.extend(_score(j))
        else:
            out.extend(_pass_fail(j))
        for e in getattr(j, "estimates", ()):
            out.extend(_estimate(e))
        if j.left_out:
            out.append(f"{GAP}left out ({left_out_count(j.left_out)}):")
            for entry in j.left_out:
                tally = f"{len(entry.units)} x {safe_line(entry.reason)}"
                out.append(f"{GAP}{GAP}{entry.figure}: {tally}")
            listed = [(e, unit) for e in j.left_out for unit in e.units[:MAX_LISTED]][:MAX_LISTED]
            for entry, unit in listed:
                out.append(
                    f"{GAP}{GAP}{GAP}{safe_line(unit)} ({entry.figure}): {safe_line(entry.reason)}"
                )
            more = left_out_count(j.left_out) - len(listed)
            if more > 0:
                out.append(f"{GAP}{GAP}{GAP}... {more} more (--json)")
    for between in report.between:
        out.append("")
        out.append(f"between judges ({between.kind}):")
        for pair in between.pairs:
            out.append(
                f"{GAP}{safe_line(pair.reviewer_a)} vs {safe_line(pair.reviewer_b)}: n = "
                f"{pair.n_items}, Cohen's kappa {_kappa(pair.cohen_kappa)}"
            )
        for c in between.correlations:
            shown = f"{c.statistic:.4f}" if c.statistic is not None else c.undefined_reason
            out.append(f"{GAP}{safe_line(c.name)}: n = {c.n}, {shown}")
    return out


__all__ = ["report_lines"]
