"""Summary tables as rows: the CSV files of a bundle, the report's tables and the CLI's text.

Every proportion is shown as x/n beside its interval; an undefined statistic shows its reason;
all six result states are always columns. There is no blended score across unlike tasks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from abp_tui.analysis.scoring import result_state
from abp_tui.analysis.verdicts import Disagreement
from abp_tui.export.bundle_analysis import Analysis, excluded_runs
from abp_tui.export.records import PublishedFinding
from abp_tui.models import PreferenceChoice, ResultState, Rubric
from abp_tui.services.results_report import Comparison, GroupResult, ResultsReport
from abp_tui.stats.agreement import AgreementReport, Figure
from abp_tui.stats.inference import PositionBias, Proportion
from abp_tui.text.safe import safe_line

STATES = tuple(s.value for s in ResultState)
Table = tuple[list[str], list[list[Any]]]


def interval(p: Proportion) -> str:
    """``x/n = 0.917 [0.646, 0.985]``, or ``x/n (reason)`` when undefined."""
    if p.point is None or p.low is None or p.high is None:
        return f"{p.x}/{p.n} ({p.undefined_reason or 'undefined'})"
    return f"{p.x}/{p.n} = {p.point:.3f} [{p.low:.3f}, {p.high:.3f}]"


def _dimension_columns(rubric: Rubric) -> list[tuple[str, str | None]]:
    cols: list[tuple[str, str | None]] = []
    for d in rubric.dimensions:
        if d.scored:
            cols.extend((d.id, f"{s:g}") for s in d.scale)
            cols.append((d.id, None))
    return cols


def group_table(groups: Sequence[GroupResult], rubric: Rubric, by_task: bool) -> Table:
    dims = _dimension_columns(rubric)
    header = ["condition", *(["task"] if by_task else []), "runs", "unjudged", *STATES]
    header += [
        "pass_x",
        "pass_n",
        "pass_rate",
        "wilson95_low",
        "wilson95_high",
        "pass_rate_undefined",
        "fatal_x",
        "fatal_n",
        "acceptance_x",
        "acceptance_n",
    ]
    header += [f"{d}={s}" if s is not None else f"{d}_n" for d, s in dims]
    rows = []
    for g in groups:
        p = g.pass_rate
        row: list[Any] = [g.condition, *([g.task] if by_task else []), g.runs, g.unjudged]
        row += [g.states[s] for s in STATES]
        row += [p.x, p.n, p.point, p.low, p.high, p.undefined_reason]
        row += [g.fatal_failures.x, g.fatal_failures.n, g.acceptance.x, g.acceptance.n]
        for d, s in dims:
            if s is None:
                row.append(g.dimension_n.get(d, 0))
            else:
                row.append(g.dimensions.get(d, {}).get(s, 0))
        rows.append(row)
    return header, rows


def group_display_table(groups: Sequence[GroupResult], rubric: Rubric, by_task: bool) -> Table:
    """The same figures for reading: x/n beside each interval, distributions as score:count."""
    dims = [d for d in rubric.dimensions if d.scored]
    header = [
        "condition",
        *(["task"] if by_task else []),
        "runs",
        "unjudged",
        *STATES,
        "pass rate (Wilson 95%)",
        "fatal failures",
        "acceptance",
        *(d.name for d in dims),
    ]
    rows = []
    for g in groups:
        row: list[Any] = [g.condition, *([g.task] if by_task else []), g.runs, g.unjudged]
        row += [g.states[s] for s in STATES]
        row += [
            interval(g.pass_rate),
            f"{g.fatal_failures.x}/{g.fatal_failures.n}",
            f"{g.acceptance.x}/{g.acceptance.n}",
        ]
        for d in dims:
            counts = g.dimensions.get(d.id, {})
            n = g.dimension_n.get(d.id, 0)
            shown = " ".join(f"{s:g}:{counts.get(f'{s:g}', 0)}" for s in d.scale)
            row.append(f"{shown} (n={n})")
        rows.append(row)
    return header, rows


def comparison_table(comparisons: Sequence[Comparison]) -> Table:
    header = [
        "a",
        "b",
        "pairs",
        "both_pass",
        "a_pass_b_fail",
        "a_fail_b_pass",
        "both_fail",
        "excluded_a",
        "excluded_b",
        "unjudged_a",
        "unjudged_b",
        "unpaired_a",
        "unpaired_b",
        "mcnemar_discordant",
        "mcnemar_p_exact",
        "mcnemar_undefined",
        "pref_wins_a",
        "pref_wins_b",
        "pref_ties",
        "pref_insufficient",
        "pref_total",
        "pref_decisive",
        "pref_a_share",
        "pref_a_share_low",
        "pref_a_share_high",
        "pref_p_exact",
        "pref_undefined",
    ]
    rows = []
    for c in comparisons:
        p, m, f = c.paired, c.paired.mcnemar, c.preferences
        rows.append(
            [
                c.a,
                c.b,
                p.pairs,
                p.both_pass,
                p.a_pass_b_fail,
                p.a_fail_b_pass,
                p.both_fail,
                p.excluded_a,
                p.excluded_b,
                p.unjudged_a,
                p.unjudged_b,
                p.unpaired_a,
                p.unpaired_b,
                m.n,
                m.p_value,
                m.undefined_reason,
                f.wins_a,
                f.wins_b,
                f.ties,
                f.insufficient,
                f.total,
                f.decisive,
                f.a_share.point,
                f.a_share.low,
                f.a_share.high,
                f.test.p_value,
                f.test.undefined_reason,
            ]
        )
    return header, rows


def _p(p_value: float | None, reason: str | None) -> str:
    return f"p = {p_value:.4g}" if p_value is not None else f"undefined: {reason}"


def comparison_display_table(comparisons: Sequence[Comparison]) -> Table:
    """Comparisons for reading: discordant pairs beside the test, preferences beside theirs."""
    header = [
        "contrast",
        "paired runs",
        "both pass",
        "a pass, b fail",
        "a fail, b pass",
        "both fail",
        "left out (excluded / unjudged / unpaired)",
        "exact McNemar",
        "preferences a / b / tie / insufficient",
        "a's share of decisive",
        "exact binomial",
    ]
    rows = []
    for c in comparisons:
        p, m, f = c.paired, c.paired.mcnemar, c.preferences
        rows.append(
            [
                f"{c.a} vs {c.b}",
                p.pairs,
                p.both_pass,
                p.a_pass_b_fail,
                p.a_fail_b_pass,
                p.both_fail,
                f"a: {p.excluded_a} / {p.unjudged_a} / {p.unpaired_a}; "
                f"b: {p.excluded_b} / {p.unjudged_b} / {p.unpaired_b}",
                _p(m.p_value, m.undefined_reason),
                f"{f.wins_a} / {f.wins_b} / {f.ties} / {f.insufficient}",
                interval(f.a_share),
                _p(f.test.p_value, f.test.undefined_reason),
            ]
        )
    return header, rows


def efficiency_display_table(comparisons: Sequence[Comparison]) -> Table:
    header = ["contrast", "metric", "median a (n, missing)", "median b (n, missing)", "relative"]
    rows = []
    for c in comparisons:
        for e in c.efficiency:
            d = e.difference
            if d.point is None:
                value = f"undefined: {d.undefined_reason}"
            else:
                value = f"{d.point:+.3f}"
                if d.low is not None and d.high is not None:
                    value += (
                        f" [{d.low:+.3f}, {d.high:+.3f}] ({d.confidence:.0%} bootstrap, "
                        f"seed {d.seed}, {d.resamples_used}/{d.resamples} resamples)"
                    )
                elif d.undefined_reason:
                    value += f" (interval undefined: {d.undefined_reason})"

            def median(m: float | None, n: int, missing: int) -> str:
                return f"{m:g} ({n}, {missing})" if m is not None else f"missing ({n}, {missing})"

            rows.append(
                [
                    f"{c.a} vs {c.b}",
                    e.metric,
                    median(d.median_a, d.n_a, d.missing_a),
                    median(d.median_b, d.n_b, d.missing_b),
                    value,
                ]
            )
    return header, rows


def efficiency_table(comparisons: Sequence[Comparison]) -> Table:
    header = [
        "a",
        "b",
        "metric",
        "n_a",
        "n_b",
        "missing_a",
        "missing_b",
        "median_a",
        "median_b",
        "relative_median_difference",
        "bootstrap_low",
        "bootstrap_high",
        "confidence",
        "seed",
        "resamples",
        "resamples_used",
        "undefined",
    ]
    rows = []
    for c in comparisons:
        for e in c.efficiency:
            d = e.difference
            rows.append(
                [
                    c.a,
                    c.b,
                    e.metric,
                    d.n_a,
                    d.n_b,
                    d.missing_a,
                    d.missing_b,
                    d.median_a,
                    d.median_b,
                    d.point,
                    d.low,
                    d.high,
                    d.confidence,
                    d.seed,
                    d.resamples,
                    d.resamples_used,
                    d.undefined_reason,
                ]
            )
    return header, rows


def position_table(bias: PositionBias) -> Table:
    s = bias.left_share
    return (
        [
            "left_preferred",
            "right_preferred",
            "decisive",
            "left_share",
            "wilson95_low",
            "wilson95_high",
            "p_exact",
            "undefined",
        ],
        [
            [
                bias.left_preferred,
                bias.right_preferred,
                bias.decisive,
                s.point,
                s.low,
                s.high,
                bias.test.p_value,
                bias.test.undefined_reason,
            ]
        ],
    )


def excluded_table(analysis: Analysis) -> Table:
    header = ["run", "task", "condition", "trial", "state", "source", "reasons"]
    rows = [
        [r["run"], r["task"], r["condition"], r["trial"], r["state"], r["source"], r["reasons"]]
        for r in excluded_runs(analysis)
    ]
    return header, rows


def disagreement_table(disagreements: Sequence[Disagreement]) -> Table:
    return (
        ["item", "reviewers", "reasons", "adjudicated"],
        [[d.code, d.reviewers, d.reasons, d.adjudicated] for d in disagreements],
    )


def _figure_row(variable: str, level: str, scope: str, f: Figure) -> list[Any]:
    low = f.interval.low if f.interval else None
    high = f.interval.high if f.interval else None
    return [
        variable,
        level,
        scope,
        f.name,
        f.value,
        low,
        high,
        f.n_items,
        f.n_reviewers,
        f.n_judgments,
        f.weights,
        f.undefined_reason or f.interval_note,
    ]


def agreement_table(report: AgreementReport) -> Table:
    header = [
        "variable",
        "level",
        "reviewers",
        "figure",
        "value",
        "interval_low",
        "interval_high",
        "n_items",
        "n_reviewers",
        "n_judgments",
        "weights",
        "undefined_or_note",
    ]
    rows = []
    for v in report.variables:
        for f in (
            v.percent_agreement,
            v.fleiss_kappa,
            v.fleiss_kappa_generalized,
            v.krippendorff_alpha,
            v.gwet_ac1,
            v.gwet_ac2,
        ):
            rows.append(_figure_row(v.variable, v.level, "all", f))
        for p in v.pairs:
            scope = f"{p.reviewer_a} | {p.reviewer_b}"
            for f in (
                p.percent_agreement,
                p.cohen_kappa,
                p.cohen_kappa_linear,
                p.cohen_kappa_quadratic,
            ):
                rows.append(_figure_row(v.variable, v.level, scope, f))
    return header, rows


def latest_findings(findings: Sequence[PublishedFinding]) -> list[PublishedFinding]:
    latest: dict[str, PublishedFinding] = {}
    for f in findings:
        if f.id not in latest or f.revision > latest[f.id].revision:
            latest[f.id] = f
    return [latest[k] for k in sorted(latest)]


def findings_table(findings: Sequence[PublishedFinding]) -> Table:
    header = [
        "id",
        "revision",
        "title",
        "severity",
        "layer",
        "occurrences",
        "retest_status",
        "runs",
        "reviewer",
        "created_at",
    ]
    rows = [
        [
            f.id,
            f.revision,
            f.finding.title,
            f.finding.severity,
            f.finding.layer,
            f.finding.occurrences,
            f.finding.retest_status,
            list(f.runs),
            f.reviewer,
            f.created_at,
        ]
        for f in latest_findings(findings)
    ]
    return header, rows


def judgments_table(analysis: Analysis) -> Table:
    """Every judgment revision (drafts included) and every adjudication, one row per response."""
    inputs = analysis.inputs
    rubric = inputs.rubric
    dims = [d.id for d in rubric.dimensions]
    items = {i.code: i for i in inputs.items}
    condition_of = {r.id: r.condition for r in inputs.runs}
    for i in inputs.items:
        condition_of.update(zip(i.runs, i.conditions, strict=True))
    header = [
        "kind",
        "item",
        "item_kind",
        "task",
        "trial",
        "reviewer",
        "revision",
        "status",
        "created_at",
        "reason",
        "seconds_spent",
        "position",
        "run",
        "condition",
        *(f"score:{d}" for d in dims),
        *(f"rationale:{d}" for d in dims),
        "fatal_hits",
        "state_override",
        "override_reason",
        "state",
        "preference",
        "preferred_run",
        "justification",
        "validity_failed",
    ]
    rows: list[list[Any]] = []
    entries: list[tuple[tuple[str, int, str, int], str, Any]] = []
    for j in inputs.judgments:
        entries.append(((j.item, 0, j.reviewer, j.revision), "judgment", j))
    for a in inputs.adjudications:
        entries.append(((a.item, 1, a.adjudicator, a.revision), "adjudication", a))
    for _key, kind, e in sorted(entries, key=lambda x: x[0]):
        item = items.get(e.item)
        judgment = e.judgment
        preferred = ""
        choice = judgment.preference
        if choice in (PreferenceChoice.RESPONSE_1, PreferenceChoice.RESPONSE_2):
            preferred = e.placement.get("1" if choice == PreferenceChoice.RESPONSE_1 else "2", "")
        elif choice is not None:
            preferred = choice.value
        failed = [k for k, ok in sorted(judgment.validity.items()) if not ok]
        for position, run in sorted(e.placement.items()):
            response = judgment.responses.get(run)
            scores = response.scores if response else {}
            rationales = response.rationales if response else {}
            state = result_state(rubric, response) if response else None
            rows.append(
                [
                    kind,
                    e.item,
                    item.kind if item else "",
                    item.task if item else "",
                    item.trial if item else "",
                    e.reviewer if kind == "judgment" else e.adjudicator,
                    e.revision,
                    e.status if kind == "judgment" else "adjudicated",
                    e.created_at,
                    e.reason if kind == "judgment" else e.note,
                    e.seconds_spent if kind == "judgment" else None,
                    position,
                    run,
                    condition_of.get(run, ""),
                    *(scores.get(d) for d in dims),
                    *(rationales.get(d, "") for d in dims),
                    list(response.fatal_hits) if response else [],
                    response.state_override.value if response and response.state_override else "",
                    response.override_reason if response else "",
                    state.value if state else "",
                    choice.value if choice else "",
                    preferred,
                    judgment.justification,
                    failed,
                ]
            )
    return header, rows


# -- text for the command line ---------------------------------------------------------------------
def _text_table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [
        max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)
    ]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)).rstrip()]
    for r in rows:
        lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())
    return lines


def results_text(report: ResultsReport) -> str:
    """The results of a design as plain text tables (``abp-tui results``)."""
    short = ["PASS", "FAIL", "PROV_BLK", "INFRA", "INVALID", "DISPUTE"]
    lines = [
        f"Results of study {safe_line(report.study)}, design {safe_line(report.design)} "
        f"v{report.design_version} (rubric {safe_line(report.rubric)}); unblinded by "
        f"{safe_line(report.unblinded_by)} at {report.unblinded_at}",
        "",
        "By condition (pass rate = MODEL_PASS / (MODEL_PASS + MODEL_FAIL), Wilson 95%):",
    ]

    def group_rows(groups: list[GroupResult], with_task: bool) -> list[list[str]]:
        out = []
        for g in groups:
            out.append(
                [
                    safe_line(g.condition),
                    *([safe_line(g.task or "")] if with_task else []),
                    str(g.runs),
                    str(g.unjudged),
                    *(str(g.states[s]) for s in STATES),
                    interval(g.pass_rate),
                    f"{g.fatal_failures.x}/{g.fatal_failures.n}",
                    f"{g.acceptance.x}/{g.acceptance.n}",
                ]
            )
        return out

    head = ["condition", "runs", "unjudged", *short, "pass rate", "fatal", "accepted"]
    lines += _text_table(head, group_rows(report.conditions, False))
    lines += ["", "By task:"]
    head = ["condition", "task", "runs", "unjudged", *short, "pass rate", "fatal", "accepted"]
    lines += _text_table(head, group_rows(report.by_task, True))
    if report.comparisons:
        lines += ["", "Paired comparisons (same task and trial; exact McNemar):"]
        rows = []
        for c in report.comparisons:
            m = c.paired.mcnemar
            p = f"p = {m.p_value:.4g}" if m.p_value is not None else str(m.undefined_reason)
            f = c.preferences
            fp = (
                f"p = {f.test.p_value:.4g}"
                if f.test.p_value is not None
                else str(f.test.undefined_reason)
            )
            rows.append(
                [
                    safe_line(f"{c.a} vs {c.b}"),
                    str(c.paired.pairs),
                    f"{m.b} / {m.c}",
                    p,
                    f"{f.wins_a} / {f.wins_b} / {f.ties} / {f.insufficient}",
                    fp,
                ]
            )
        lines += _text_table(
            [
                "contrast",
                "pairs",
                "discordant a/b",
                "McNemar",
                "prefs a/b/tie/insufficient",
                "binomial",
            ],
            rows,
        )
        eff = []
        for c in report.comparisons:
            for e in c.efficiency:
                d = e.difference
                if d.point is None:
                    value = str(d.undefined_reason)
                else:
                    value = f"{d.point:+.3f}"
                    if d.low is not None and d.high is not None:
                        value += f" [{d.low:+.3f}, {d.high:+.3f}]"
                    elif d.undefined_reason:
                        value += f" ({d.undefined_reason})"
                eff.append(
                    [
                        safe_line(f"{c.a} vs {c.b}"),
                        e.metric,
                        f"{d.median_a:g}" if d.median_a is not None else "missing",
                        f"{d.median_b:g}" if d.median_b is not None else "missing",
                        value,
                    ]
                )
        if eff:
            lines += ["", "Efficiency ((median b - median a) / median a, seeded bootstrap 95%):"]
            lines += _text_table(["contrast", "metric", "median a", "median b", "relative"], eff)
    bias = report.position_bias
    lines += [
        "",
        f"Position bias: left preferred {interval(bias.left_share)} of decisive judgments; "
        + (
            f"binomial p = {bias.test.p_value:.4g}"
            if bias.test.p_value is not None
            else str(bias.test.undefined_reason)
        ),
        "",
        *(f"Note: {n}" for n in report.notes),
    ]
    return "\n".join(lines)
