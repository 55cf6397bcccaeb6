"""The bundle's ``report.html``: one self-contained page with the tables, plots and protocol.

Rendered by Jinja2 from ``templates/report.html.j2`` with autoescaping on. Every value the
template writes goes through the environment's ``finalize`` (:func:`_shown`): made visible with
:func:`abp_tui.text.safe.safe_text`, then HTML-escaped, so no record (task texts, outputs, names,
rationales, notes) can add markup to the page and no template can forget to escape one. The
exceptions: the inline SVG of the charts, markup we generate (:mod:`abp_tui.export.svg`), marked
safe in :func:`render_pieces`; and a table's rows (:attr:`HtmlTable.html_rows`), written here with
every cell made visible and escaped exactly as ``finalize`` and autoescaping do it.

No network resource of any kind (inline CSS, inline SVG, no scripts, no fonts, no images); links
only to files inside the bundle. The page is a pure function of its inputs: two exports of the
same records give the same bytes.
"""

from __future__ import annotations

import itertools
import json
import re
import secrets
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from html import escape
from typing import Any, Final

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

from abp_tui.analysis.judges.models import JudgesReport
from abp_tui.analysis.made_when_read import MadeWhenRead
from abp_tui.analysis.matched_models import (
    COMPARISONS_WITHHELD,
    engines_comparable,
    model_match,
)
from abp_tui.analysis.material import material_headline, splits_tasks
from abp_tui.analysis.results.tables import ResultsTables
from abp_tui.analysis.results.tallies import confidence_label
from abp_tui.analysis.scibench_results import sci_withheld
from abp_tui.analysis.tables import NUMERIC, Cell, Column, Kind, Table, cell_text, cut_list
from abp_tui.export import records as rec
from abp_tui.export.bundle_analysis import Analysis
from abp_tui.export.canonical import cell
from abp_tui.export.gate import JUDGING_REQUIREMENTS, PENDING, GateStatus
from abp_tui.export.judge_tables import judge_tables
from abp_tui.export.judges import REPORT as JUDGE_REPORT
from abp_tui.export.judges import assisted
from abp_tui.export.ranking import BundleRanking
from abp_tui.export.ranking_page import FILES as RANKING_FILES
from abp_tui.export.ranking_page import ranking_sections
from abp_tui.export.tables import BundleTables
from abp_tui.stats.agreement import PAIR_COEFFICIENTS, VARIABLE_COEFFICIENTS, AgreementReport
from abp_tui.text.safe import safe_text

NAV: Final = (
    ("summary", "Summary"),
    ("comparisons", "Comparisons"),
    ("agreement", "Agreement"),
    ("excluded", "Excluded runs"),
    ("findings", "Findings"),
    ("limitations", "Limitations"),
    ("gate", "Publication gate"),
    ("protocol", "Protocol"),
    ("runs", "Runs"),
    ("judgments", "Judgments"),
    ("audit", "Audit log"),
    ("reproduce", "Verify"),
)
MACHINE_READABLE: Final = ("results/conditions.csv", "results/tasks.csv", "results/summary.json")


class _Visible(str):
    """A value made visible, escaped when the template writes it (autoescape calls this)."""

    __slots__ = ()

    def __html__(self) -> str:
        # html.escape, not markupsafe's: quotes become &quot; and &#x27;, the entities the report
        # has always used (and that its tests look for).
        return escape(self, quote=True)


def _shown(value: Any) -> Markup | _Visible:
    """Every value the template writes: visible (control and bidi characters shown as
    placeholders), then escaped by autoescaping. Markup passes as it is: the template's own
    macros, and the charts marked safe in :func:`render_pieces`."""
    if isinstance(value, Markup):
        return value
    return _Visible(safe_text(value if type(value) is str else cell(value)))


@cache
def _environment() -> Environment:
    return Environment(
        loader=PackageLoader("abp_tui.export", "templates"),
        autoescape=True,
        finalize=_shown,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


@dataclass(frozen=True)
class HtmlTable:
    """A table as the template writes it: headers, which columns hold numbers (right-aligned),
    and each cell's text."""

    id: str
    headers: tuple[str, ...]
    numeric: tuple[bool, ...]
    rows: Sequence[tuple[str, ...]]
    """Rows of strings, each made when the template reaches it (:class:`LazyRows`): a long
    table (every run, every task) is never whole in memory."""
    notes: tuple[str, ...] = ()
    everything_in: str = ""
    """The bundle's file holding every row, when the table may be long: the page then shows
    its first :data:`REPORT_ROWS` rows and says how many there are and where they all are."""

    def cells(self, row: tuple[str, ...]) -> Iterator[tuple[bool, str]]:
        return zip(self.numeric, row, strict=True)

    @property
    def shown(self) -> int:
        """How many rows the page shows."""
        total = len(self.rows)
        return min(total, REPORT_ROWS) if self.everything_in else total

    @property
    def cut(self) -> Markup:
        """The line under a table the page shows in part ("" for a whole one)."""
        total = len(self.rows)
        if self.shown == total:
            return Markup("")
        return shown_in_part(self.shown, total, "rows: every one is in", self.everything_in)

    @property
    def html_rows(self) -> Iterator[Markup]:
        """The rows as the page's markup, a few hundred ``<tr>`` lines at a time: each cell
        written as the template writes a value (:func:`_shown`, then escaped), so a long table
        costs no template loop per cell. A row whose texts are all plain (most rows: ids,
        names, figures) is written at once; another row a cell at a time, each made visible
        and escaped (which leaves a plain text as it is)."""
        starts = tuple('<td class="num">' if numeric else "<td>" for numeric in self.numeric)
        line = "<tr>" + "".join(start + "{}</td>" for start in starts) + "</tr>\n"
        width = len(starts)
        plain = _NOT_PLAIN.search

        def row_html(row: tuple[str, ...]) -> str:
            if len(row) != width:
                raise ValueError(f"table {self.id}: a row of {len(row)} texts, not {width}")
            if plain("".join(row)) is None:
                return line.format(*row)
            return line.format(*[escape(safe_text(text), quote=True) for text in row])

        return in_pieces(map(row_html, itertools.islice(self.rows, self.shown)), _ROWS_AT_ONCE)


def in_pieces(parts: Iterable[str], size: int) -> Iterator[Markup]:
    """``parts`` of the page's markup joined ``size`` at a time: the template writes each piece
    it is given with a call or two of its own, however long the table or the list of tasks."""
    it = iter(parts)
    while held := list(itertools.islice(it, size)):
        yield Markup("".join(held))


REPORT_ROWS: Final = 5_000
"""Rows of a long table (every run, every judgment, every task...) the page shows, and tasks
whose texts its protocol section gives: the rest are in the bundle's file named beside it. A
20,000-pair study's page of every row was 43 MB, which a headless Chromium took minutes to
open; every reference study (MT-Bench, PandaLM's 1,998 runs and 3,996 judgments) is shown
whole."""


def shown_in_part(shown: int, total: int, what: str, file: str) -> Markup:
    """The line under a list the page shows in part: how much of it, and the file with all."""
    where = escape(file)
    return Markup(f'Showing the first {shown:,} of {total:,} {what} <a href="{where}">{where}</a>.')


_NOT_PLAIN: Final = re.compile("[^\t\n\x20\x21\x23-\x25\x28-\x3b\x3d\x3f-\x7e]")
"""A character that making text visible (:func:`abp_tui.text.safe.safe_text`) or escaping it
may change: anything but printable ASCII, tabs and newlines, and ``&``, ``<``, ``>``, ``"``
and ``'``. Text without one is written as it is (most cells: ids, names, figures)."""
_ROWS_AT_ONCE: Final = 256
"""Rows of a table written to the page as one piece."""


class LazyRows(MadeWhenRead[tuple[str, ...]]):
    """``count`` rows, the row at ``i`` made by ``make(i)`` each time it is read; read in
    turn, the rows ``each()`` gives when it is given (the same rows, made in one pass)."""

    def __init__(
        self,
        count: int,
        make: Callable[[int], tuple[str, ...]],
        each: Callable[[], Iterable[tuple[str, ...]]] | None = None,
    ) -> None:
        self._count = count
        self._make = make
        self._each = each

    def __len__(self) -> int:
        return self._count

    def _at(self, index: int) -> tuple[str, ...]:
        return self._make(index)

    def __iter__(self) -> Iterator[tuple[str, ...]]:
        if self._each is not None:
            return iter(self._each())
        return map(self._make, range(self._count))


def _with_charts(
    pieces: Iterable[str], charts: Mapping[str, Callable[[], Iterable[str]]]
) -> Iterator[str]:
    """``pieces`` with each chart's marker replaced by the chart's lines."""
    for piece in pieces:
        while True:
            found = [(at, marker) for marker in charts if (at := piece.find(marker)) >= 0]
            if not found:
                break
            at, marker = min(found)
            yield piece[:at]
            yield from charts[marker]()
            piece = piece[at + len(marker) :]
        yield piece


_TASK_TEXTS: Final = (
    ("Risk type", "risk_type"),
    ("Version", "version"),
    ("Prompt", "prompt"),
    ("Base instruction", "base_instruction"),
    ("Evidence", "evidence"),
    ("Expected behaviour (grader only)", "expected_behaviour"),
)
"""A task's texts the page shows (each when it is not empty), with their labels."""


def _escaped(value: Any) -> str:
    """``value`` as the template writes it: :func:`_shown`, then escaped by autoescaping (a
    plain text, most of a task's, as it is: :data:`_NOT_PLAIN`)."""
    if type(value) is str and _NOT_PLAIN.search(value) is None:
        return value
    return escape(safe_text(value if type(value) is str else cell(value)), quote=True)


def task_html(task: rec.PublishedTask) -> Markup:
    """A task of the protocol section, as the page's markup: its id and title, each text it
    has, its fatal criteria and whether it is a placeholder; every value made visible and
    escaped as the template writes one (:func:`_shown`), in one piece rather than a template
    loop per text (a large study has a task a pair)."""
    shown = _escaped(task.id)
    parts = [f'<h4 id="task-{shown}">{shown} {_escaped(task.title)}</h4><dl class="task">\n']
    for label, name in _TASK_TEXTS:
        text = getattr(task, name)
        if text:
            parts.append(f'<dt>{label}</dt><dd><pre class="text">{_escaped(text)}</pre></dd>\n')
    if task.fatal_criteria:
        listed = "".join([f"<li>{_escaped(c)}</li>" for c in task.fatal_criteria])
        parts.append(f"<dt>Fatal criteria</dt><dd><ul>{listed}</ul></dd>\n")
    if task.placeholder:
        parts.append("<dt>Note</dt><dd>No task record was imported for this id.</dd>\n")
    parts.append("</dl>\n")
    return Markup("".join(parts))


def tasks_html(tasks: Iterable[rec.PublishedTask]) -> Iterator[Markup]:
    """The protocol section's tasks as the page's markup (:func:`task_html`), a few hundred
    joined into one piece (a large study has a task a pair)."""
    return in_pieces(map(task_html, tasks), _TASKS_AT_ONCE)


_TASKS_AT_ONCE: Final = 256
"""Tasks written to the page as one piece."""


def _html(table: Table, table_id: str, everything_in: str = "") -> HtmlTable:
    rows = table.rows
    return _lazy_html(table, table_id, len(rows), rows.__getitem__, lambda: rows, everything_in)


def _lazy_html(
    table: Table,
    table_id: str,
    count: int,
    row: Callable[[int], Sequence[Cell]],
    each: Callable[[], Iterable[Sequence[Cell]]] | None = None,
    everything_in: str = "",
) -> HtmlTable:
    """``table``'s columns and notes with ``count`` rows, the one at ``i`` being ``row(i)``
    (all of them in turn ``each()``, when given), each made into text when written."""
    shown = table.shown
    width = len(table.columns)
    # Each shown column with the format cell_text gives a float of it.
    visible = tuple(
        (k, c, "g" if c.digits is None else f".{c.digits}f")
        for k, c in enumerate(table.columns)
        if c.shown
    )

    def text_of(cells: Sequence[Cell]) -> tuple[str, ...]:
        if len(cells) != width:
            raise ValueError(f"table {table_id}: a row of {len(cells)} cells, not {width}")
        # A text, a count, a list of texts, a float or a missing cell (most cells of a long
        # table) is written as cell_text writes it, without a call for it.
        return tuple(
            [
                ((cut_list(v, c.cut) if c.cut else v) or c.empty)
                if type(v := cells[k]) is str
                else c.empty
                if v is None
                else int.__repr__(v)
                if type(v) is int
                else "; ".join(v)
                if type(v) is tuple
                else format(v, spec)
                if type(v) is float
                else cell_text(c, v)
                for k, c, spec in visible
            ]
        )

    return HtmlTable(
        table_id,
        tuple(c.header for c in shown),
        tuple(c.kind in NUMERIC for c in shown),
        LazyRows(
            count,
            lambda i: text_of(row(i)),
            None if each is None else lambda: map(text_of, each()),
        ),
        table.notes,
        everything_in,
    )


def _plain(
    table_id: str,
    header: Sequence[str],
    rows: tuple[tuple[Cell, ...], ...],
    numbers: Sequence[str] = (),
) -> Table:
    """A table of the report alone (gate checks, rubric anchors, runs, audit log)."""
    columns = tuple(Column(h, kind=Kind.NUMBER if h in numbers else Kind.TEXT) for h in header)
    return Table(table_id, table_id, columns, rows)


def _compact(detail: Mapping[str, Any]) -> str:
    return json.dumps(detail, sort_keys=True, ensure_ascii=False, separators=(", ", ": "))


def _no_state(source: str) -> str:
    """The state column of a run with none: unjudged, or judged with no state to give (a
    preference alone, an open disagreement)."""
    return "unjudged" if source == "unjudged" else "no state"


def leads_with_preferences(results: ResultsTables) -> bool:
    """A preference design with no state to count: its report leads with its preferences, and
    neither it nor the bundle draws a pass rate, state or dimension table of zeros."""
    return results.preference_only and not results.verdicts


def render_pieces(
    analysis: Analysis,
    gate: GateStatus,
    tables: BundleTables,
    agreement: AgreementReport,
    limitations: Sequence[str],
    charts: Mapping[str, str | Callable[[], Iterable[str]]],
    judges: JudgesReport | None = None,
    ranking: BundleRanking | None = None,
) -> Iterator[str]:
    """The page, a piece at a time as the template makes it (a large study's page is never
    whole in memory, nor the list of its pieces), from the bundle's analysis, its gate, its
    tables and its two charts (SVG); with ``judges`` (the bundle's ``results/ai_judges.json``),
    a section on its AI judges."""
    inputs = analysis.inputs
    rubric = inputs.rubric
    results = tables.results
    material = splits_tasks(inputs.study_design)  # seed 002: which material each run is
    verdicts, runs = analysis.verdicts, {r.id: r for r in inputs.runs}

    def run_row(i: int) -> tuple[Cell, ...]:
        v = verdicts.facts_at(i)
        output, trace = runs[v.run].paths()
        return (
            v.run,
            v.task,
            v.condition,
            v.trial,
            *((v.material,) if material else ()),
            v.state.value if v.state else _no_state(v.source),
            v.source,
            v.automated_outcome,
            ", ".join([f"{k}={s:g}" for k, s in sorted(v.scores.items())]) if v.scores else "",
            tuple(v.fatal_hits),
            "missing" if output is None else output,
            "" if trace is None else trace,
        )

    page_tables = {
        "conditions": _html(results.conditions, "summary-conditions"),
        "dimensions": _html(results.dimensions, "summary-dimensions"),
        "tasks": _html(results.tasks, "summary-tasks", "results/tasks.csv"),
        "comparisons": _html(results.compared, "comparisons-table"),
        "left_out": _html(results.left_out, "comparisons-left-out"),
        "efficiency": _html(results.efficiency, "efficiency"),
        "head_to_head": _html(results.head_to_head, "head-to-head"),
        "engine_efficiency": _html(results.engine_efficiency, "engine-efficiency"),
        "position_bias": _html(results.position_bias, "position-bias"),
        # Seed 004's counts replace the pass-rate tables; seed 000's reclassifications.
        "scibench": tuple(_html(t, t.id) for t in results.scibench),
        "reclassified": _html(results.reclassified, "reclassified-runs")
        if results.reclassified is not None and results.reclassified.rows
        else None,
        "agreement": _html(tables.agreement, "agreement-table"),
        "disagreements": _html(tables.disagreements, "disagreements", "results/disagreements.csv"),
        "excluded": _html(tables.excluded, "excluded-runs", "results/excluded_runs.csv"),
        "findings": _html(tables.findings, "findings-table", rec.FINDINGS),
        "judgments": _html(tables.judgments, "judgments-table", "results/judgments.csv"),
        "gate": _html(
            _plain(
                "gate-checks",
                ["requirement", "met", "detail"],
                tuple((c.requirement, c.met, c.detail) for c in gate.checks),
            ),
            "gate-checks",
        ),
        "rubric": _html(
            _plain(
                "rubric",
                ["dimension", "id", "scored", "score", "anchor"],
                tuple(
                    (d.name, d.id, d.scored, score, d.anchors.get(score, ""))
                    for d in rubric.dimensions
                    for score in d.scale
                ),
                numbers=("score",),
            ),
            "rubric",
        ),
        "runs": _lazy_html(
            _plain(
                "runs-table",
                [
                    "run",
                    "task",
                    "condition",
                    "trial",
                    *(("material",) if material else ()),
                    "state",
                    "source",
                    "automated outcome",
                    "scores",
                    "fatal hits",
                    "raw output",
                    "trace",
                ],
                (),
                numbers=("trial",),
            ),
            "runs-table",
            len(verdicts),
            run_row,
            everything_in="results/verdicts.jsonl",
        ),
        "audit": _html(
            _plain(
                "audit-log",
                ["at", "actor", "action", "detail"],
                tuple((a.at, a.actor, a.action, _compact(a.detail)) for a in inputs.audit),
            ),
            "audit-log",
        ),
    }
    judge_page = None
    nav: tuple[tuple[str, str], ...] = NAV
    if judges is not None:
        judge_page = {
            "report": judges,
            "tables": {k: _html(t, t.id) for k, t in judge_tables(judges).items()},
            "assisted": assisted(judges),
            "file": JUDGE_REPORT,
            "level": confidence_label(judges.confidence),
        }
        at = [anchor for anchor, _label in NAV].index("agreement") + 1
        nav = (*NAV[:at], ("judges", "AI judges"), *NAV[at:])
    ranking_page = None
    if ranking is not None:  # the bundle's votes ranked (abp_tui.export.ranking)
        ranking_page = {
            "sections": [
                {
                    **vars(r),
                    "systems": _html(r.systems, r.systems.id),
                    "pairwise": _html(r.pairwise, r.pairwise.id),
                }
                for r in ranking_sections(ranking)
            ],
            "refused": ranking.refused,
            "files": RANKING_FILES,
        }
        at = [anchor for anchor, _label in nav].index("comparisons") + 1
        nav = (*nav[:at], ("ranking", "Ranking"), *nav[at:])
    if results.business:  # seed 002's section, after the comparisons
        at = [anchor for anchor, _label in nav].index("comparisons") + 1
        nav = (*nav[:at], ("business", "Business protocol"), *nav[at:])
    preferences_first = leads_with_preferences(results)
    if preferences_first:
        nav = tuple(
            (anchor, "Preferences" if anchor == "comparisons" else label)
            for anchor, label in nav
            if anchor != "summary"
        )
    nav = (("answer", "Answer"), *nav) if results.headline else nav
    tasks_shown = min(len(inputs.tasks), REPORT_ROWS)
    template = _environment().get_template("report.html.j2")
    # A chart made a line at a time comes in as a comment naming it, unguessable, replaced by
    # the chart's lines as the page is written (:func:`_with_charts`).
    token = secrets.token_hex(16)
    streamed: dict[str, Callable[[], Iterable[str]]] = {}
    shown_charts: dict[str, Markup] = {}
    for name, chart in charts.items():
        if callable(chart):
            marker = f"<!--chart {name} {token}-->"
            streamed[marker] = chart
            shown_charts[name] = Markup(marker)
        else:
            shown_charts[name] = chart if isinstance(chart, Markup) else Markup(chart)
    pieces = template.generate(
        study=inputs.study,
        design=inputs.design,
        rubric=rubric,
        gate=gate,
        pending=gate.status == PENDING,
        judging_done=all(c.met for c in gate.checks if c.requirement in JUDGING_REQUIREMENTS),
        nav=nav,
        judges=judge_page,
        ranking=ranking_page,
        tables=page_tables,
        # The one place markup enters the page unescaped: the SVG charts are written by
        # abp_tui.export.svg, which escapes every label it takes from a record.
        charts=shown_charts,
        machine_readable=MACHINE_READABLE,
        notes=results.notes,
        headline=results.headline,
        preferences_first=preferences_first,
        # Seed 003 section 7: unmatched models lead the page and withhold every comparison.
        warnings=results.warnings,
        material=material_headline(inputs.study_design, (r.task for r in inputs.runs)),
        withheld=COMPARISONS_WITHHELD
        if not engines_comparable(model_match(inputs.study.protocol, inputs.conditions))
        else sci_withheld(results.notes),
        level=confidence_label(results.confidence),
        # Automated outcomes alone: nobody judged, so no judgment-based table is shown empty.
        automated=results.automated,
        agreement=agreement,
        coefficients=(
            ("Over all reviewers", VARIABLE_COEFFICIENTS),
            ("For each pair of reviewers", PAIR_COEFFICIENTS),
        ),
        findings_file=rec.FINDINGS,
        business=[(t.title, _html(t, t.id), t.notes) for t in results.business],
        limitations=limitations,
        conditions=inputs.conditions,
        # Each task's text read back in turn, and written as the page's markup.
        tasks=tasks_html(t.published for t in itertools.islice(inputs.tasks, tasks_shown)),
        tasks_cut=Markup("")
        if tasks_shown == len(inputs.tasks)
        else shown_in_part(
            tasks_shown, len(inputs.tasks), "tasks: every task's texts are in", rec.TASKS
        ),
    )
    return _with_charts(pieces, streamed) if streamed else pieces
