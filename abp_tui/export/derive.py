"""Every derived file of a bundle, as a pure function of the bundle's source files and the
confidence level of its results.

The export writes what :func:`derive` returns and records the level in the manifest; ``verify``
calls the same function on the bundle's own files at the manifest's level and compares bytes.
Nothing here reads the database, the clock or the environment.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import UTC, datetime
from typing import Any, Final

from markupsafe import Markup

from abp_tui.analysis.results.tallies import DEFAULT_CONFIDENCE
from abp_tui.analysis.shared_runs import SHARED_RUNS_LIMITATION, exposed_reviewers
from abp_tui.export import records as rec
from abp_tui.export.bundle_analysis import (
    SUMMARY_LEFT_OUT,
    Analysis,
    Inputs,
    Summary,
    agreement,
    analyse,
    excluded_runs,
    parse,
    summarise,
)
from abp_tui.export.canonical import json_bytes, json_chunks, jsonl_chunks, rounded
from abp_tui.export.gate import GateStatus, evaluate
from abp_tui.export.judges import bundle_judge_report, judge_results
from abp_tui.export.ranking import bundle_rankings, ranking_files
from abp_tui.export.report import leads_with_preferences, render_pieces
from abp_tui.export.svg import pass_rate_chart, pass_rate_chart_pieces
from abp_tui.export.tables import bundle_tables, judgments_table, table_csv, table_csv_chunks
from abp_tui.export.verdict import VERDICT_CONFIDENCE, abp_verdict, schema_errors
from abp_tui.text.natural import natural_key

STATUS = "status.json"
REPORT = "report.html"
VERDICTS = "results/verdicts.jsonl"
JUDGMENTS_CSV = "results/judgments.csv"
SUMMARY = "results/summary.json"
ABP_VERDICT = "results/abp-verdict.json"
JUDGE_CSV = "results/automated_judge.csv"
RECLASSIFIED_CSV = "results/reclassified_runs.csv"
"""Seed 000: the record failures reviewers reclassified, with who and why (when any)."""
HEAD_TO_HEAD_CSV = "results/head_to_head.csv"
"""Seed 003: each engine pair's wins, losses and ties in the strict efficiency order."""
ENGINE_EFFICIENCY_CSV = "results/engine_efficiency.csv"
"""Seed 003: each engine's own efficiency medians with their n and missing counts."""
CONDITIONS_CSV = "results/conditions.csv"
TASKS_CSV = "results/tasks.csv"
PLOT_CONDITIONS = "plots/pass_rate_by_condition.svg"
PLOT_TASKS = "plots/pass_rate_by_task.svg"

STANDARD_LIMITATIONS: Final = (
    "The preference tally counts each pair once, by its final preference; the position-bias "
    "test counts the reviewers' own judgments, and several reviewers' judgments of one pair "
    "are not independent, although the test counts them as if they were.",
    "Repeated runs (trials) of one task are not independent tasks; pass rates pool them, and a "
    "condition's rate is dominated by the tasks with the most runs.",
    "Runs in INFRA_ERROR, PROVIDER_BLOCK, INVALID_TEST or GRADER_DISPUTE are excluded from pass "
    "rates and listed separately; they may not be missing at random.",
    "Reviewers judged blind to condition names, but masking identity terms is textual: style, "
    "length and format can still reveal a condition.",
    "A person's verdict supersedes automated verification of the same run; runs judged only by "
    "automated verification have no rubric component scores.",
    "Agreement between reviewers is not correctness: reviewers can share an error.",
    "Every interval and test is computed per comparison, with no correction for multiple "
    "comparisons.",
    "Efficiency figures are the records' own measurements; a measurement a record lacks is "
    "reported as missing, never as zero.",
)
AFP_LIMITATION: Final = (
    "AFP v0.1 evaluates text-layer workflows only; it must not be cited as evidence of full "
    "agent or tool-use capability (seed 000, test boundary)."
)
SYNTHETIC_LIMITATION: Final = (
    "The records are synthetic: no real model produced them; nothing here may be cited as a "
    "benchmark result."
)


ADJUDICATED_UNBLINDED: Final = (
    "{late} of {total} adjudicated items were adjudicated (or their adjudication revised) after "
    "the study was unblinded at {when}: their adjudicators could have known which condition "
    "produced each response ({items})."
)
"""The limitation a results bundle states when an adjudication came after unblinding."""
JUDGED_UNBLINDED: Final = (
    "{late} of {total} submitted judgments were submitted (or revised) after the study was "
    "unblinded at {when}: each item was shown blind, but its results by condition could have "
    "been known to their reviewers ({items})."
)
"""The limitation a results bundle states when a judgment was submitted after unblinding (a
design made after it, a reviewer who finished late)."""
_ITEMS_NAMED: Final = 10


def _unblinded_at(inputs: Inputs) -> str | None:
    """When the study was first unblinded, by its audit log (None: it is not)."""
    return next(  # the log's first (its entries are in the order they were made)
        (
            e.at
            for e in inputs.audit
            if e.action == "unblind" and e.detail.get("study") == inputs.study.id
        ),
        None,
    )


def _after_unblinding(inputs: Inputs) -> list[str]:
    """:data:`JUDGED_UNBLINDED` and :data:`ADJUDICATED_UNBLINDED` for the judgments submitted
    and the items adjudicated after the study's first unblinding in its audit log (none: none
    was, or the study is not unblinded)."""
    opened = _unblinded_at(inputs)
    if opened is None:
        return []
    out = []
    total = late = 0
    judged: set[str] = set()
    for j in inputs.judgments:
        if j.status == "submitted":
            total += 1
            if _later(j.created_at, opened):
                late += 1
                judged.add(j.item)
    if late:
        items = _named(judged)
        out.append(JUDGED_UNBLINDED.format(late=late, total=total, when=opened, items=items))
    adjudicated = {a.item for a in inputs.adjudications if _later(a.created_at, opened)}
    if adjudicated:
        total = len({a.item for a in inputs.adjudications})
        out.append(
            ADJUDICATED_UNBLINDED.format(
                late=len(adjudicated), total=total, when=opened, items=_named(adjudicated)
            )
        )
    return out


def _named(items: set[str]) -> str:
    """The first :data:`_ITEMS_NAMED` of ``items`` in natural order, and how many more."""
    named = sorted(items, key=natural_key)
    shown = ", ".join(named[:_ITEMS_NAMED])
    if len(named) > _ITEMS_NAMED:
        shown += f" and {len(named) - _ITEMS_NAMED} more"
    return shown


def _later(at: str, than: str) -> bool:
    """Whether time ``at`` is after ``than`` (ISO 8601, as the records store them; a time
    without a zone is read as UTC, as the store writes every time)."""
    try:
        found, opened = datetime.fromisoformat(at), datetime.fromisoformat(than)
    except ValueError:  # not a time: as the text reads
        return at > than
    return _utc(found) > _utc(opened)


def _utc(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def limitations(analysis: Analysis) -> list[dict[str, str]]:
    study = analysis.inputs.study
    out = [{"source": "study", "text": text} for text in study.limitations]
    if study.synthetic:
        out.append({"source": "abp-tui", "text": SYNTHETIC_LIMITATION})
    if study.protocol == "afp":
        out.append({"source": "abp-tui", "text": AFP_LIMITATION})
    out.extend({"source": "abp-tui", "text": text} for text in STANDARD_LIMITATIONS)
    inputs = analysis.inputs
    judged = [(j.reviewer, j.item) for j in inputs.judgments]
    exposed = exposed_reviewers(((i.code, i.runs) for i in inputs.items), judged)
    if exposed:  # items sharing a run (a baseline) judged by one reviewer: not hidden from them
        reviewers = len({reviewer for reviewer, _ in judged})
        text = SHARED_RUNS_LIMITATION.format(exposed=len(exposed), reviewers=reviewers)
        out.append({"source": "abp-tui", "text": text})
    out.extend({"source": "abp-tui", "text": text} for text in _after_unblinding(inputs))
    return out


def verdict_lines(analysis: Analysis) -> bytes:
    return b"".join(verdict_chunks(analysis))


def verdict_chunks(analysis: Analysis) -> Iterator[bytes]:
    """``verdicts.jsonl``'s bytes, a thousand lines at a time (each line made without its
    run's model: :meth:`abp_tui.export.bundle_analysis.RunVerdicts.lines`)."""
    return jsonl_chunks(map(_rounded_scores, analysis.verdicts.lines()))


def _rounded_scores(line: dict[str, Any]) -> dict[str, Any]:
    """A verdict's line as :func:`abp_tui.export.canonical.rounded` gives it: its component
    scores are its only floats (a review's scores are whole numbers), so only they are
    rounded, rather than every value of the line walked."""
    line["scores"] = rounded(line["scores"])
    return line


def judgments_csv(analysis: Analysis) -> bytes:
    return table_csv(judgments_table(analysis))


def abp_verdict_document(
    analysis: Analysis, summary: Summary | None = None
) -> tuple[dict[str, Any], Summary, GateStatus]:
    """The abp-verdict/v1 document, its summary and the gate. The format names its intervals
    95% (``wilson95``, ``bootstrap95``), so a ``summary`` at another level is not used for it:
    the results are summarised again at 95%."""
    if summary is None or summary.confidence != VERDICT_CONFIDENCE:
        summary = summarise(analysis, VERDICT_CONFIDENCE)
    gate = evaluate(analysis)
    document = abp_verdict(analysis, summary, gate)
    errors = schema_errors(document)
    if errors:  # a bug, not bad input: the document is built here
        raise AssertionError("abp-verdict/v1 document does not match its schema: " + errors[0])
    return document, summary, gate


Derived = bytes | Iterator[bytes]
"""A derived file: its bytes, or its bytes a piece at a time (made as they are read)."""


def derive(
    files: Mapping[str, bytes],
    analysis: Analysis | None = None,
    confidence: float = DEFAULT_CONFIDENCE,
) -> dict[str, bytes]:
    """The derived files (path -> bytes) of a bundle whose source files are ``files``, every
    results interval at ``confidence`` (summary.json records it; abp-verdict/v1 stays at 95%).

    ``analysis`` may be passed when the caller already analysed these same files. An export and
    ``verify`` take the files one at a time from :func:`derive_each` instead.
    """
    return {
        path: data if isinstance(data, bytes) else b"".join(data)
        for path, data in derive_each(files, analysis, confidence)
    }


def derive_each(
    files: Mapping[str, bytes],
    analysis: Analysis | None = None,
    confidence: float = DEFAULT_CONFIDENCE,
) -> Iterator[tuple[str, Derived]]:
    """The derived files of :func:`derive`, one at a time: each is made when the one before it
    was taken (written, or hashed), and the largest (``summary.json``, ``verdicts.jsonl``) a
    piece at a time, so no file of a large study is whole in memory, nor two of them."""
    if analysis is None:
        analysis = analyse(parse(files))
    summary = summarise(analysis, confidence)
    verdict, _verdict_summary, gate = abp_verdict_document(analysis, summary)
    agreed = agreement(analysis)
    tables = bundle_tables(analysis, summary, agreed)
    results = tables.results
    stated = limitations(analysis)
    yield STATUS, json_bytes(gate.model_dump(mode="json"), derived=True)
    yield VERDICTS, verdict_chunks(analysis)
    yield JUDGMENTS_CSV, table_csv_chunks(tables.judgments)
    yield SUMMARY, summary_chunks(analysis, summary, gate, stated)
    yield ABP_VERDICT, json_bytes(verdict, derived=True)
    del verdict
    # No pass rate to publish (every row 0/0): no table or chart of them is written.
    rates = not leads_with_preferences(results)
    if rates:
        yield CONDITIONS_CSV, table_csv_chunks(results.conditions)
        yield TASKS_CSV, table_csv_chunks(results.tasks)
    yield "results/comparisons.csv", table_csv(results.comparisons)
    yield "results/efficiency.csv", table_csv(results.efficiency)
    yield "results/position_bias.csv", table_csv(results.position_bias)
    yield "results/excluded_runs.csv", table_csv(tables.excluded)
    yield "results/disagreements.csv", table_csv_chunks(tables.disagreements)
    yield "results/agreement.json", json_bytes(agreed.model_dump(mode="json"), derived=True)
    yield "results/agreement.csv", table_csv(tables.agreement)
    yield "results/findings.csv", table_csv(tables.findings)
    yield "results/limitations.json", json_bytes(stated, derived=True)

    # The chart of conditions is made once, as the markup the report takes it as; the chart of
    # tasks (a bar for each task and condition: tens of megabytes for a large study) a line at
    # a time, each time it is written (its file, then the report), never whole.
    def condition_pieces() -> Iterator[str]:
        yield pass_rate_chart(
            "plot-pass-rate-condition",
            "Pass rate by condition",
            [(g.condition, g.pass_rate) for g in summary.conditions],
            summary.confidence,
        )

    # No pass rate: no chart is made, unless the page asks for it (it does not).
    made = Markup("".join(condition_pieces())) if rates else None
    condition_chart: str | Callable[[], Iterable[str]] = made or condition_pieces

    def task_chart() -> Iterator[str]:
        return pass_rate_chart_pieces(
            "plot-pass-rate-task",
            "Pass rate by task and condition",
            ((f"{g.task} / {g.condition}", g.pass_rate) for g in summary.by_task),
            len(summary.by_task),
            summary.confidence,
        )

    if made is not None:
        yield PLOT_CONDITIONS, made.encode("utf-8")
        yield PLOT_TASKS, encoded(task_chart())
    for table in results.business:  # seed 002's tables, for a business design
        yield f"results/{table.id.replace('-', '_')}.csv", table_csv(table)
    if results.judge.rows:  # the automated judge scored some run (sci-bench)
        yield JUDGE_CSV, table_csv(results.judge)
    if results.reclassified is not None and results.reclassified.rows:  # seed 000
        yield RECLASSIFIED_CSV, table_csv(results.reclassified)
    if results.head_to_head.rows:  # seed 003: engines that may be compared
        yield HEAD_TO_HEAD_CSV, table_csv(results.head_to_head)
    if results.engine_efficiency.rows:  # seed 003: engines that measured any figure
        yield ENGINE_EFFICIENCY_CSV, table_csv(results.engine_efficiency)
    for table in results.scibench:  # seed 004: condition and dimension counts
        yield f"results/{table.id.replace('-', '_')}.csv", table_csv(table)
    judged = bundle_judge_report(files, analysis)  # AI judges' verdicts, when it has some
    yield from judge_results(judged).items()
    # Rankings from the bundle's votes (abp_tui.export.ranking), when it carries some.
    ranked = bundle_rankings(files, analysis, confidence)
    yield from ranking_files(ranked).items()
    shown = [f"({x['source']}) {x['text']}" for x in stated]
    charts: dict[str, str | Callable[[], Iterable[str]]] = {
        "condition": condition_chart,
        "task": task_chart,
    }
    pieces = render_pieces(analysis, gate, tables, agreed, shown, charts, judged, ranked)
    yield REPORT, encoded(pieces)


def encoded(pieces: Iterable[str], batch: int = 256) -> Iterator[bytes]:
    """The UTF-8 bytes of ``pieces`` joined, ``batch`` pieces (or :data:`_SLICE` characters)
    at a time; a long piece (a chart) a slice at a time, never copied whole."""
    held: list[str] = []
    size = 0
    for piece in pieces:
        if len(piece) > _SLICE:
            if held:
                yield "".join(held).encode("utf-8")
                held.clear()
                size = 0
            for start in range(0, len(piece), _SLICE):
                yield piece[start : start + _SLICE].encode("utf-8")
            continue
        held.append(piece)
        size += len(piece)
        if len(held) >= batch or size >= _SLICE:
            yield "".join(held).encode("utf-8")
            held.clear()
            size = 0
    if held:
        yield "".join(held).encode("utf-8")


_SLICE: Final = 1 << 20
"""Characters of a long text encoded at a time."""


def summary_chunks(
    analysis: Analysis, summary: Summary, gate: GateStatus, stated: list[dict[str, str]]
) -> Iterator[bytes]:
    """``results/summary.json``'s bytes, its per-task groups made and written one at a time."""
    document = {
        "schema": rec.SUMMARY_SCHEMA,
        **summary.model_dump(mode="json", exclude={*SUMMARY_LEFT_OUT, "by_task"}),
        "status": gate.model_dump(mode="json"),
        "limitations": stated,
    }
    streamed: dict[str, Iterable[Any]] = {
        "by_task": (g.model_dump(mode="json") for g in summary.by_task),
        # Each disagreement written as it is made (a large study has one an item or so).
        "disagreements": (
            {
                "item": d.code,
                "reviewers": d.reviewers,
                "reasons": d.reasons,
                "adjudicated": d.adjudicated,
            }
            for d in analysis.disagreements
        ),
        "excluded_runs": excluded_runs(analysis),
    }
    return json_chunks(document, streamed, derived=True)
