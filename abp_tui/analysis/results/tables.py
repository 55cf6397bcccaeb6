"""Results as tables: by condition, by task, rubric dimensions, comparisons, the runs left out
of them, efficiency, engines head to head, position bias and the AI judges' tallies, built once
on the table model (:mod:`abp_tui.analysis.table_model`) for every face to write."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Final, Protocol

from abp_tui.analysis.abp_efficiency import HEAD_TO_HEAD_NOTE, STRICT_ORDER, EngineEfficiency
from abp_tui.analysis.automated import JudgeTally
from abp_tui.analysis.results.compared import compared_table
from abp_tui.analysis.results.tallies import (
    DEFAULT_CONFIDENCE,
    PASS_RATE_NOTE,
    RESULTS_NOTES,
    RUN_NOTES,
    Comparison,
    GroupResult,
    PositionBiasResult,
    VerdictSource,
    any_state,
    confidence_label,
)
from abp_tui.analysis.table_model import (
    Cell,
    Column,
    Counts,
    Distribution,
    Estimate,
    Kind,
    MadeRows,
    Number,
    Pair,
    Part,
    PValue,
    Table,
    Tally,
    count_column,
)
from abp_tui.models import ResultState, Rubric
from abp_tui.stats.inference import (
    BinomialTest,
    McNemar,
    PairedPassFail,
    PositionBias,
    RelativeMedianDifference,
)
from abp_tui.stats.task_bootstrap import TaskInterval

# -- results ---------------------------------------------------------------------------------------
STATE_LABELS: Final = {
    ResultState.MODEL_PASS: "PASS",
    ResultState.MODEL_FAIL: "FAIL",
    ResultState.PROVIDER_BLOCK: "PROV BLOCK",
    ResultState.INFRA_ERROR: "INFRA",
    ResultState.INVALID_TEST: "INVALID",
    ResultState.GRADER_DISPUTE: "DISPUTE",
}
"""All six result states, always columns, in this order."""

NO_ITEMS: Final = "none"
"""What people read in a list of items that has none (the CSV field stays empty): a blank
beside "Unresolved 0" reads as missing data."""
ITEMS_SHOWN: Final = 20  # unresolved items a cell people read names (the CSV files all)


def _wilson(confidence: float) -> str:
    """A Wilson interval's name in a header: "Wilson 95%"."""
    return f"Wilson {confidence_label(confidence)}"


def _wilson_fields(confidence: float) -> tuple[str, str]:
    """The CSV fields of a Wilson interval's bounds, named by its level: wilson95_low (the
    files' names at the default level), wilson90_low, wilson97.5_low."""
    level = confidence_label(confidence).rstrip("%")
    return f"wilson{level}_low", f"wilson{level}_high"


def _pass_rate_csv(confidence: float) -> tuple[tuple[str, Part], ...]:
    low, high = _wilson_fields(confidence)
    return (
        ("pass_x", "x"),
        ("pass_n", "n"),
        ("pass_rate", "point"),
        (low, "low"),
        (high, "high"),
        ("pass_rate_undefined", "reason"),
    )


_JUDGED_COLUMNS: Final = frozenset({"fatal", "acceptance", "unresolved_items"})
"""What people's judgments of runs give: not shown (the CSV keeps its fields) when nobody
judged."""


_JUDGMENT_NOTES: Final = frozenset(RESULTS_NOTES) - {PASS_RATE_NOTE}
"""Notes on preferences and reviewers' disagreements: not printed when nobody judged."""


def bootstrap_estimate(b: RelativeMedianDifference | TaskInterval) -> Estimate:
    """The cell of a seeded percentile bootstrap: the row shows its seed and resamples beside
    it."""
    return Estimate(
        b.point,
        b.low,
        b.high,
        b.undefined_reason,
        b.confidence,
        b.seed,
        b.resamples,
        b.resamples_used,
    )


def bootstrap_csv(point: str, low: str, high: str) -> tuple[tuple[str, Part], ...]:
    """The CSV fields of a :func:`bootstrap_estimate` cell: the figure's own names for its point
    and bounds, then the settings every seeded bootstrap publishes to be redrawn."""
    return (
        (point, "point"),
        (low, "low"),
        (high, "high"),
        ("confidence", "confidence"),
        ("seed", "seed"),
        ("resamples", "resamples"),
        ("resamples_used", "resamples_used"),
        ("undefined", "reason"),
    )


def group_table(
    groups: Sequence[GroupResult],
    *,
    by_task: bool,
    rubric: Rubric | None = None,
    confidence: float = DEFAULT_CONFIDENCE,
    judged: bool = True,
) -> Table:
    """Runs, unjudged and unresolved runs, all six result states, pass rate (its Wilson interval
    at ``confidence``, named in the header and the CSV fields), fatal failures and acceptance
    per group; the CSV lists the unresolved items by blind code.

    With ``rubric``, the CSV also gets each scored dimension's count per score of its declared
    scale (unobserved scores included) and its n; people read those in :func:`dimensions_table`.
    ``judged`` False (automated outcomes alone): fatal failures, acceptance and unresolved items
    are not shown, since nobody judged (every cell would be 0/0 or empty); the CSV keeps them.
    """
    columns = [
        Column("condition", "Condition"),
        *([Column("task", "Task")] if by_task else []),
        count_column("runs", "Runs"),
        count_column("unjudged", "Unjudged"),
        count_column("unresolved", "Unresolved"),
        *(count_column(s.value, label) for s, label in STATE_LABELS.items()),
        Column(
            "pass_rate",
            f"Pass rate x/n [{_wilson(confidence)}]",
            Kind.PROPORTION,
            csv=_pass_rate_csv(confidence),
        ),
        Column("fatal", "Fatal", Kind.TALLY, csv=(("fatal_x", "x"), ("fatal_n", "n"))),
        Column(
            "acceptance",
            "Accepted",
            Kind.TALLY,
            csv=(("acceptance_x", "x"), ("acceptance_n", "n")),
        ),
        Column("unresolved_items", "Unresolved items", empty=NO_ITEMS, cut=ITEMS_SHOWN),
    ]
    if not judged:
        columns = [replace(c, shown=False) if c.key in _JUDGED_COLUMNS else c for c in columns]
    dims = [d for d in rubric.dimensions if d.scored] if rubric is not None else []
    for d in dims:
        columns += [count_column(f"{d.id}={s:g}", shown=False) for s in d.scale]
        columns.append(count_column(f"{d.id}_n", shown=False))

    def row_of(g: GroupResult) -> tuple[Cell, ...]:
        row: list[Cell] = [g.condition, *([g.task] if by_task else [])]
        row += [g.runs, g.unjudged, g.unresolved]
        row += [g.states.get(s.value, 0) for s in STATE_LABELS]
        row += [
            g.pass_rate,
            Tally(g.fatal_failures.x, g.fatal_failures.n),
            Tally(g.acceptance.x, g.acceptance.n),
            " ".join(g.unresolved_items),
        ]
        for d in dims:
            counts = g.dimensions.get(d.id, {})
            row += [counts.get(f"{s:g}", 0) for s in d.scale]
            row.append(g.dimension_n.get(d.id, 0))
        return tuple(row)

    # Each row made when it is read (written to a CSV, to the report): a study's table of
    # tasks has a row for each task and condition, never held whole.
    rows = MadeRows(groups, row_of)
    return Table(
        "tasks" if by_task else "conditions",
        f"By {'task' if by_task else 'condition'}: all six result states",
        tuple(columns),
        rows,
    )


def dimensions_table(groups: Sequence[GroupResult]) -> Table:
    """Each rubric dimension's distribution per condition as score:count, with its n."""
    dims = sorted({d for g in groups for d in g.dimensions})
    columns = (
        Column("condition", "Condition"),
        *(Column(d, d, Kind.DISTRIBUTION, csv=()) for d in dims),
    )
    rows: tuple[tuple[Cell, ...], ...] = tuple(
        (
            g.condition,
            *(
                Distribution(
                    tuple((s, c) for s, c in g.dimensions.get(d, {}).items()),
                    g.dimension_n.get(d, 0),
                )
                for d in dims
            ),
        )
        for g in groups
    )
    return Table(
        "dimensions", "Rubric dimensions (score:count over runs judged by a person)", columns, rows
    )


def _p_value(test: McNemar | BinomialTest) -> PValue:
    return PValue(test.p_value, test.undefined_reason)


_PREFERENCE_COLUMNS: Final = frozenset(
    {"preferences", "a_share", "binomial", "pref_unresolved", "pref_unresolved_items"}
)
"""What people judged of a pair: not shown (the CSV keeps its fields) when nobody judged."""


# The paired pass/fail test's reason in a preference design whose runs have no verdict.
NOT_PAIRED: Final = "not applicable: no run has a pass or fail verdict (preferences only)"

_PASS_FAIL_COLUMNS: Final = frozenset(
    {"pairs", "both_pass", "a_pass_b_fail", "a_fail_b_pass", "both_fail", "mcnemar"}
)
"""Paired pass/fail: not shown (the CSV keeps its fields) when no run has a verdict."""


def _left_out(p: PairedPassFail) -> tuple[Cell, ...]:  # its runs left out, and its test
    left = (p.excluded_a, p.excluded_b, p.unjudged_a, p.unjudged_b, p.unpaired_a, p.unpaired_b)
    return (*left, p.mcnemar.n, _p_value(p.mcnemar))


def comparisons_table(
    comparisons: Sequence[Comparison],
    confidence: float = DEFAULT_CONFIDENCE,
    *,
    judged: bool = True,
    paired: bool = True,
) -> Table:
    """Paired pass/fail (exact McNemar beside the discordant counts) and preferences, with the
    preference judgments of items whose reviewers disagree (not adjudicated) counted apart.
    ``judged`` False (automated outcomes alone, no design): the preference columns are not
    shown, since no person could prefer anything. ``paired`` False (a preference-only design
    whose runs have no verdict): the pass/fail columns are not shown, since they cannot have
    data, and the table is the preference tally."""
    columns: tuple[Column, ...] = (
        Column("contrast", "Contrast a vs b", Kind.PAIR, csv=(("a", "a"), ("b", "b"))),
        count_column("pairs", "Pairs"),
        count_column("both_pass", "Both pass"),
        count_column("a_pass_b_fail", "a pass, b fail"),
        count_column("a_fail_b_pass", "a fail, b pass"),
        count_column("both_fail", "Both fail"),
        *(
            count_column(f"{what}_{side}", shown=False)
            for what in ("excluded", "unjudged", "unpaired")
            for side in ("a", "b")
        ),
        count_column("mcnemar_discordant", shown=False),
        Column(
            "mcnemar",
            "Exact McNemar",
            Kind.P_VALUE,
            csv=(("mcnemar_p_exact", "p"), ("mcnemar_undefined", "reason")),
        ),
        Column(
            "preferences",
            "Prefer a / b / tie / insufficient",
            Kind.COUNTS,
            csv=(
                ("pref_wins_a", "0"),
                ("pref_wins_b", "1"),
                ("pref_ties", "2"),
                ("pref_insufficient", "3"),
            ),
        ),
        count_column("pref_total", shown=False),
        count_column("pref_decisive", shown=False),
        Column(
            "a_share",
            f"a's share of decisive [{_wilson(confidence)}]",
            Kind.PROPORTION,
            csv=(
                ("pref_a_share", "point"),
                ("pref_a_share_low", "low"),
                ("pref_a_share_high", "high"),
            ),
        ),
        Column(
            "binomial",
            "Exact binomial",
            Kind.P_VALUE,
            csv=(("pref_p_exact", "p"), ("pref_undefined", "reason")),
        ),
        # Last, so that the files only gained fields (issue 14).
        Column("pref_unresolved", "Unresolved judgments", Kind.COUNT, short="Unres. judg."),
        Column(
            "pref_unresolved_items",
            "Unresolved items",
            short="Unres. items",
            empty=NO_ITEMS,
            cut=ITEMS_SHOWN,
        ),
        Column("pref_a_share_confidence", kind=Kind.NUMBER, shown=False),
    )
    hidden = (set() if judged else _PREFERENCE_COLUMNS) | (set() if paired else _PASS_FAIL_COLUMNS)
    if hidden:
        columns = tuple(replace(c, shown=False) if c.key in hidden else c for c in columns)
    rows = []
    for c in comparisons:
        p, f = c.paired, c.preferences
        # No run has a verdict: the pass/fail fields are empty, not counts of runs "unjudged"
        # (each was judged, by preference) nor a test "undefined" for want of pairs.
        pass_fail: tuple[Cell, ...] = (
            (p.pairs, p.both_pass, p.a_pass_b_fail, p.a_fail_b_pass, p.both_fail, *_left_out(p))
            if paired
            else (*(None,) * 12, PValue(None, NOT_PAIRED))
        )
        rows.append(
            (
                Pair(c.a, c.b),
                *pass_fail,
                Counts((f.wins_a, f.wins_b, f.ties, f.insufficient)),
                f.total,
                f.decisive,
                f.a_share,
                _p_value(f.test),
                f.unresolved_judgments,
                " ".join(f.unresolved_items),
                f.a_share.confidence,
            )
        )
    title = (
        "Paired comparisons (same task and trial)"
        if paired
        else "Preferences by pair of conditions (same task and trial)"
    )
    return Table("comparisons", title, columns, tuple(rows))


def left_out_table(comparisons: Sequence[Comparison]) -> Table:
    """Runs left out of each paired comparison, and why."""
    columns = (
        Column("contrast", "Contrast a vs b", Kind.PAIR),
        Column("excluded", "Excluded a / b", Kind.COUNTS),
        Column("unjudged", "Unjudged or unresolved a / b", Kind.COUNTS),
        Column("unpaired", "Unpaired a / b", Kind.COUNTS),
    )
    rows: tuple[tuple[Cell, ...], ...] = tuple(
        (
            Pair(c.a, c.b),
            Counts((c.paired.excluded_a, c.paired.excluded_b)),
            Counts((c.paired.unjudged_a, c.paired.unjudged_b)),
            Counts((c.paired.unpaired_a, c.paired.unpaired_b)),
        )
        for c in comparisons
    )
    return Table("left-out", "Left out of the pairing", columns, rows)


EFFICIENCY_NOTE: Final = (
    "Relative median difference (median b - median a) / median a over the runs that are "
    "measurements (not excluded), with a seeded percentile bootstrap interval; a missing "
    "measurement is left out and counted, never read as zero."
)


def efficiency_table(
    comparisons: Sequence[Comparison], confidence: float = DEFAULT_CONFIDENCE
) -> Table:
    """Relative median differences (b vs a) with their seeded bootstrap intervals."""
    columns = (
        Column("contrast", "Contrast a vs b", Kind.PAIR, csv=(("a", "a"), ("b", "b"))),
        Column("metric", "Metric"),
        *(count_column(k, shown=False) for k in ("n_a", "n_b", "missing_a", "missing_b")),
        Column("median_a", "Median a (n, missing)", Kind.NUMBER),
        Column("median_b", "Median b (n, missing)", Kind.NUMBER),
        Column(
            "relative",
            f"Relative difference [{confidence_label(confidence)} bootstrap]",
            Kind.INTERVAL,
            csv=bootstrap_csv("relative_median_difference", "bootstrap_low", "bootstrap_high"),
            digits=3,
            signed=True,
        ),
    )
    rows = []
    for c in comparisons:
        for e in c.efficiency:
            d = e.difference
            rows.append(
                (
                    Pair(c.a, c.b),
                    e.metric,
                    d.n_a,
                    d.n_b,
                    d.missing_a,
                    d.missing_b,
                    Number(d.median_a, d.n_a, d.missing_a),
                    Number(d.median_b, d.n_b, d.missing_b),
                    bootstrap_estimate(d),
                )
            )
    return Table(
        "efficiency",
        "Efficiency (relative median difference, b vs a)",
        columns,
        tuple(rows),
        (EFFICIENCY_NOTE,),
    )


def engine_efficiency_table(engines: Sequence[EngineEfficiency]) -> Table:
    """Each engine's own medians (normalised diff, tokens, wall clock, cost) with the runs that
    measured each and those that did not, over the runs that are measurements (not excluded)."""
    labels = dict(STRICT_ORDER)
    metrics = [field for field, _label in STRICT_ORDER]
    columns = (
        Column("engine", "Condition"),
        *(
            Column(
                f"median_{m}",
                f"Median {labels[m]} (n, missing)",
                Kind.NUMBER,
                csv=((f"median_{m}", "value"), (f"n_{m}", "n"), (f"missing_{m}", "missing")),
            )
            for m in metrics
        ),
    )
    rows: list[tuple[Cell, ...]] = []
    for e in engines:
        by_metric = {m.metric: m for m in e.medians}
        rows.append(
            (
                e.engine,
                *(
                    Number(by_metric[m].median, by_metric[m].n, by_metric[m].missing)
                    if m in by_metric
                    else None
                    for m in metrics
                ),
            )
        )
    measured = any(m.n for e in engines for m in e.medians)
    return Table(
        "engine-efficiency",
        "Efficiency by engine (medians over the runs that are measurements)",
        columns,
        tuple(rows) if measured else (),
        (
            "Each engine's own medians; engine errors and other excluded runs are not "
            "measurements. (n, missing): runs that measured it, and runs that did not.",
        )
        if measured
        else (),
    )


def head_to_head_table(comparisons: Sequence[Comparison]) -> Table:
    """Each engine pair's wins, losses and ties in seed 003's strict efficiency order, over the
    pairs both resolved, beside the resolution McNemar test on the same pairing."""
    steps = [label for _f, label in STRICT_ORDER]
    columns = (
        Column("contrast", "Contrast a vs b", Kind.PAIR, csv=(("a", "a"), ("b", "b"))),
        Column(
            "wins",
            "a wins / b wins / ties / undecided",
            Kind.COUNTS,
            csv=(("wins_a", "0"), ("wins_b", "1"), ("ties", "2"), ("undecided", "3")),
        ),
        count_column("resolved_pairs", "Both resolved (n)"),
        # The two texts people read; the CSV has their counts in the columns after them.
        Column("decided_by", "Decided by", csv=()),
        Column(
            "discordant",
            "Resolved by a only / b only (of n paired)",
            Kind.TEXT,
            csv=(),
        ),
        Column(
            "mcnemar",
            "Exact McNemar (resolution)",
            Kind.P_VALUE,
            csv=(("mcnemar_p_exact", "p"), ("mcnemar_undefined", "reason")),
        ),
        *(count_column(k, shown=False) for k in ("pairs", "a_pass_b_fail", "a_fail_b_pass")),
        *(count_column(f"decided_by_{f}", shown=False) for f, _label in STRICT_ORDER),
        *(count_column(f"undecided_by_{f}", shown=False) for f, _label in STRICT_ORDER),
    )
    rows: list[tuple[Cell, ...]] = []
    for c in comparisons:
        h = c.head_to_head
        if h is None:
            continue
        decided = "; ".join(
            f"{step} {h.decided_by[step]}/{h.resolved_pairs}"
            for step in steps
            if step in h.decided_by
        )
        missing = "; ".join(
            f"{step} missing {h.undecided_by[step]}/{h.resolved_pairs}"
            for step in steps
            if step in h.undecided_by
        )
        p = c.paired
        rows.append(
            (
                Pair(c.a, c.b),
                Counts((h.wins_a, h.wins_b, h.ties, h.undecided)),
                h.resolved_pairs,
                "; ".join(x for x in (decided, missing) if x),
                f"{p.a_pass_b_fail} / {p.a_fail_b_pass} (of {p.pairs})",
                _p_value(p.mcnemar),
                p.pairs,
                p.a_pass_b_fail,
                p.a_fail_b_pass,
                *(h.decided_by.get(step, 0) for step in steps),
                *(h.undecided_by.get(step, 0) for step in steps),
            )
        )
    return Table(
        "head-to-head",
        "Head-to-head efficiency (seed 003 strict order, pairs both resolved)",
        columns,
        tuple(rows),
        (HEAD_TO_HEAD_NOTE,) if rows else (),
    )


def position_table(bias: PositionBias, confidence: float = DEFAULT_CONFIDENCE) -> Table:
    """How often the response shown first (left) was preferred among decisive judgments; the
    decisive judgments of items whose reviewers disagree (not adjudicated) are counted apart."""
    low, high = _wilson_fields(confidence)
    columns = (
        count_column("left_preferred", "Left preferred"),
        count_column("right_preferred", "Right preferred"),
        count_column("decisive", "Decisive"),
        Column(
            "left_share",
            f"Left share [{_wilson(confidence)}]",
            Kind.PROPORTION,
            csv=(("left_share", "point"), (low, "low"), (high, "high")),
        ),
        Column(
            "test",
            "Exact binomial against 0.5",
            Kind.P_VALUE,
            csv=(("p_exact", "p"), ("undefined", "reason")),
        ),
        count_column("unresolved", "Unresolved judgments"),
        Column("unresolved_items", "Unresolved items", empty=NO_ITEMS, cut=ITEMS_SHOWN),
    )
    held = bias if isinstance(bias, PositionBiasResult) else None
    row = (
        bias.left_preferred,
        bias.right_preferred,
        bias.decisive,
        bias.left_share,
        _p_value(bias.test),
        held.unresolved_judgments if held else 0,
        " ".join(held.unresolved_items) if held else "",
    )
    return Table("position-bias", "Position bias", columns, (row,))


def judge_table(tallies: Sequence[JudgeTally]) -> Table:
    """The automated judge's own account per condition and dimension: how many of the runs it
    scored passed, failed, or were left unscored (never counted as a fail or a zero)."""
    columns = (
        Column("condition", "Condition"),
        Column("dimension", "Dimension"),
        count_column("pass", "Pass"),
        count_column("fail", "Fail"),
        count_column("unscored", "Unscored"),
    )
    rows: tuple[tuple[Cell, ...], ...] = tuple(
        (t.condition, t.dimension, t.passed, t.failed, t.unscored) for t in tallies
    )
    return Table(
        "automated-judge",
        "Automated judge (per dimension, over the runs it scored)",
        columns,
        rows,
        notes=(
            "The automated judge's own outcomes, beside the outcome that counts (a person's "
            "verdict supersedes it); an unscored dimension is neither a pass nor a fail.",
        )
        if rows
        else (),
    )


class ResultsSource(Protocol):
    """What the results tables are built from: a design's results (``abp-tui results``) or a
    bundle's summary, which share these fields."""

    @property
    def conditions(self) -> Sequence[GroupResult]: ...
    @property
    def by_task(self) -> Sequence[GroupResult]: ...
    @property
    def comparisons(self) -> Sequence[Comparison]: ...
    @property
    def position_bias(self) -> PositionBias: ...
    @property
    def notes(self) -> Sequence[str]: ...
    @property
    def confidence(self) -> float: ...
    @property
    def verdict_source(self) -> VerdictSource: ...
    @property
    def automated_judge(self) -> Sequence[JudgeTally]: ...


@dataclass(frozen=True)
class ResultsTables:
    """Every table of a design's results, and the notes that go with them."""

    conditions: Table
    dimensions: Table
    comparisons: Table
    left_out: Table
    efficiency: Table
    position_bias: Table
    tasks: Table
    notes: tuple[str, ...]
    confidence: float = DEFAULT_CONFIDENCE
    """The level of every interval in these tables."""
    judge: Table = field(default_factory=lambda: judge_table(()))
    """The automated judge's per-dimension outcomes (no rows when it scored nothing)."""
    automated: bool = False
    """Every verdict is an automated outcome (no study design): no person scored or preferred."""
    preference_only: bool = False
    """A preference-only design: people preferred one response of a pair and scored nothing."""
    verdicts: bool = True
    """Some run has a result state to count (a person's verdict, an automated outcome or its
    record's state); a preference alone gives a run none."""
    head_to_head: Table = field(default_factory=lambda: head_to_head_table(()))
    """Engines' wins, losses and ties in seed 003's strict efficiency order (rows for engines)."""
    warnings: tuple[str, ...] = ()
    """What every face leads with: engines that did not run on the same model."""
    headline: tuple[str, ...] = ()
    """The answer to the design's question (:mod:`abp_tui.analysis.results.headline`), after the
    warnings and before every table."""
    engine_efficiency: Table = field(default_factory=lambda: engine_efficiency_table(()))
    """Engines' own efficiency medians (rows for engines that measured any)."""
    business: tuple[Table, ...] = ()
    """Seed 002's tables (:mod:`abp_tui.analysis.business.tables`), for a business design."""
    reclassified: Table | None = None
    """Seed 000: record failures reviewers reclassified (:mod:`abp_tui.analysis.rule_tables`)."""
    scibench: tuple[Table, ...] = ()
    """Seed 004's condition and dimension counts and excluded runs, which replace the pass-rate
    tables for a rubric that scores abstention (no top-line accuracy)."""
    uncompared: tuple[tuple[str, str], ...] = ()
    """The contrasts (a, b) no item of the design compares: rows of :attr:`comparisons` (the
    CSV file's) that people read in one line of :attr:`compared` instead."""

    @property
    def compared(self) -> Table:
        """The comparisons as people read them (:func:`compared_table`); :attr:`comparisons`
        keeps every contrast of the design, for the CSV file."""
        return compared_table(self.comparisons, self.uncompared)

    @property
    def in_order(self) -> tuple[Table, ...]:
        """Every table in reading order, with the reclassified record failures when any; the
        comparisons as people read them (:attr:`compared`)."""
        found = self._in_order()
        if self.reclassified is not None and self.reclassified.rows:
            found = (*found, self.reclassified)
        return found

    def _in_order(self) -> tuple[Table, ...]:
        """The tables in reading order; comparisons, the runs left out of them, efficiency,
        the automated judge and the by-task table only when they have rows; rubric dimensions
        and position bias only when people judged (a design's results).

        A preference-only design leads with its preference tally (the comparisons) and position
        bias, and shows no rubric dimensions; its pass-rate and result-state tables only when
        some run has a verdict to count there (an automated outcome), since otherwise every
        cell of them would be 0/0."""
        # A contrast no item compares is a note of the comparisons: shown with no row left.
        compared = self.compared
        comparisons = (compared,) if compared.rows or self.uncompared else ()
        if self.scibench:  # seed 004: counts, no pass rate, no position bias without pairs
            return (
                *self.scibench,
                *((self.judge,) if self.judge.rows and not self.automated else ()),
                *comparisons,
                *(t for t in (self.left_out, self.efficiency) if t.rows),
            )
        if self.preference_only:
            runs = (self.conditions, self.left_out) if self.verdicts else ()
            return (
                *comparisons,
                self.position_bias,
                *(t for t in (*runs, self.efficiency) if t.rows),
                *((self.judge,) if self.judge.rows else ()),
                *((self.tasks,) if self.verdicts and self.tasks.rows else ()),
            )
        human = () if self.automated else (self.dimensions,)
        return (
            self.conditions,
            *((self.judge,) if self.judge.rows else ()),
            *human,
            *((self.engine_efficiency,) if self.engine_efficiency.rows else ()),
            *comparisons,
            *(t for t in (self.head_to_head, self.left_out, self.efficiency) if t.rows),
            *(() if self.automated else (self.position_bias,)),
            *((self.tasks,) if self.tasks.rows else ()),
            *self.business,
        )


def results_tables(
    results: ResultsSource, rubric: Rubric | None = None, *, preference_only: bool | None = None
) -> ResultsTables:
    """The results as tables, every interval named by the results' level; ``rubric`` adds the
    per-score columns of the CSV files. ``preference_only`` (default: what ``rubric`` says, else
    False) puts the preference tally first and leaves out the tables that cannot have data."""
    level = results.confidence
    automated = results.verdict_source == "automated"
    if preference_only is None:
        preference_only = rubric is not None and rubric.preference_only
    preference_only = preference_only and not automated
    verdicts = any_state(results.conditions)
    # Imported here: the business tables are built from this module's columns. Only a business
    # design's results carry them (``business``).
    from abp_tui.analysis.business.tables import business_headline, business_tables

    seed002 = getattr(results, "business", None)
    business = business_tables(seed002, level)
    headline = business_headline(seed002)
    from abp_tui.analysis.rule_tables import reclassified_table, sci_tables

    seed004 = getattr(results, "scibench", None)
    rule_notes = tuple(seed004.notes) if seed004 is not None else ()
    return ResultsTables(
        conditions=group_table(
            results.conditions, by_task=False, rubric=rubric, confidence=level, judged=not automated
        ),
        dimensions=dimensions_table(results.conditions),
        comparisons=comparisons_table(
            results.comparisons,
            level,
            judged=not automated,
            paired=verdicts or not preference_only,
        ),
        left_out=left_out_table(results.comparisons),
        efficiency=efficiency_table(results.comparisons, level),
        position_bias=position_table(results.position_bias, level),
        tasks=group_table(
            results.by_task, by_task=True, rubric=rubric, confidence=level, judged=not automated
        ),
        notes=(
            *((headline,) if headline else ()),
            *rule_notes,
            *(
                n
                for n in results.notes
                if (verdicts or not preference_only or n not in RUN_NOTES)
                and (seed004 is None or n != PASS_RATE_NOTE)
                and not (automated and n in _JUDGMENT_NOTES)
            ),
        ),
        confidence=level,
        judge=judge_table(results.automated_judge),
        automated=automated,
        preference_only=preference_only,
        verdicts=verdicts,
        head_to_head=head_to_head_table(results.comparisons),
        # Not every source has warnings (they come with engines that ran on different models).
        warnings=tuple(getattr(results, "warnings", ())),
        headline=tuple(getattr(results, "headline", ())),
        engine_efficiency=engine_efficiency_table(getattr(results, "engine_efficiency", ())),
        business=business,
        reclassified=reclassified_table(getattr(results, "reclassifications", ())),
        scibench=sci_tables(seed004),
        uncompared=tuple((c.a, c.b) for c in results.comparisons if c.uncompared),
    )
