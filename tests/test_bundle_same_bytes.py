"""The bundle's derived files keep their bytes while they are written faster (issue 31).

Export and ``verify`` spent most of their time on the bundle's tables written cell by cell: each
CSV field went through three functions and two type checks, each report cell through a template
loop, a finalize call and two escapes, and every summary figure was copied to be rounded. They
are now written a batch of rows at a time, the report's rows escaped in Python, and the figures
rounded as they are written; a ranking vote that is plainly one is no longer validated again by
its model. Then: a CSV line is checked by two searches for a character rather than one pattern
tried at every place, a row's cells are handed to the writer without a list of values made
first, a plain text (of a task, of a chart's label) is written without the steps that leave it
as it is, a report's float without its spans, the protocol's tasks a few hundred at a time, and
the indented JSON writer keeps the keys it has written. Each faster path is checked here
against the one it replaces, on values a hostile record or an odd figure gives (formula starts,
line breaks of every kind, markup, quotes, commas, control and bidi characters, NaN,
infinities, huge and tiny floats, -0.0, tuples, booleans, figures), and a whole bundle's CSV
files and report against the slow writers.

The records a bundle collects (runs, items, judgments, tasks) are likewise written from their
rows without a model each, a raw output deflated in one call and hashed once, and the votes
sorted by their own lines: each checked against the model's dump or the writer it replaces.
"""

from __future__ import annotations

import hashlib
import json
import math
import tempfile
from collections.abc import Iterable
from html import escape
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jinja2 import DictLoader, Environment, StrictUndefined
from markupsafe import Markup
from pydantic import ValidationError

from abp_tui.analysis.table_model import (
    Counts,
    Estimate,
    Number,
    PValue,
    Tally,
    _part,
    cell_text,
    csv_values,
    spans,
)
from abp_tui.analysis.tables import Column, Kind, Table, csv_rows
from abp_tui.export import derive, report, svg
from abp_tui.export.bundle import ZIP_LEVEL
from abp_tui.export.bundle_writing import FolderFiles, put_file
from abp_tui.export.canonical import (
    _indented,
    cell,
    csv_bytes,
    csv_field,
    csv_header,
    csv_lines,
    json_bytes,
    json_chunks,
    rounded,
)
from abp_tui.export.ranking import VoteLine, _plain_fields, _plain_vote
from abp_tui.export.records import PublishedTask
from abp_tui.export.report import HtmlTable, LazyRows, _shown, task_html
from abp_tui.export.tables import table_csv, table_csv_chunks
from abp_tui.export.zip_writing import Deflating, deflated
from abp_tui.models import PreferenceChoice, ResultState
from abp_tui.services.publishing import build_bundle
from abp_tui.services.ranking_bundle import sort_key
from abp_tui.stats.inference import Proportion
from abp_tui.store import bulk, connect
from abp_tui.store.judging import judgment_revision
from abp_tui.store.judgment_lines import judgment_line
from abp_tui.store.queries import facts_json, facts_of, task_from_row, task_line
from abp_tui.text.canonical import canonical_json
from abp_tui.text.csvsafe import LINE_BREAKS, Figure
from abp_tui.text.safe import safe_line, safe_text
from tests.factories import abp_judged

TEXTS: tuple[str, ...] = (
    "",
    "plain",
    '=HYPERLINK("http://x")',
    "+1",
    "-0.25",
    "@SUM(A1)",
    "\tTab",
    "\rCR",
    "\x00nul",
    'a "quoted", with comma',
    "<b>bold</b> & 'single' \"double\"",
    "\x1b[31mred\x1b[0m \u202eevil\u202c",
    *(f"line{br}=next{br}-more" for br in LINE_BREAKS),
    "emoji \U0001f600 tag \U000e0041",
)
NUMBERS: tuple[Any, ...] = (
    0,
    -3,
    10**20,
    True,
    False,
    None,
    0.0,
    -0.0,
    1.0,
    -0.25,
    1 / 3,
    123456789.123,
    1e16,
    -1e16,
    9.999995e15,
    1e-12,
    2.5e-7,
    math.nan,
    math.inf,
    -math.inf,
)
VALUES: tuple[Any, ...] = (
    *TEXTS,
    *NUMBERS,
    Figure("-0.25"),
    Figure("=1"),
    ("a", "-b", 1, 2.5, None, math.nan),
    ["=x", "y\nz"],
    (),
    ("",),
)


def _slow_field(value: Any) -> str:
    """One field as ``csv_bytes`` wrote it before: the row of that one value, its line end
    and any quoting of a lone empty cell aside."""
    line = csv_bytes(["h"], [[value]]).decode("utf-8").split("\n", 1)[1]
    return "" if line == '""\n' else line[:-1]


@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_a_field_is_written_as_the_cell_by_cell_writer_wrote_it(value: Any) -> None:
    assert csv_field(value) == _slow_field(value)


def test_rows_and_header_are_the_bytes_csv_bytes_gives() -> None:
    header = ["id", "=formula", "a,b", "line\nbreak"]
    rows = [list(VALUES[i : i + 4]) for i in range(0, len(VALUES) - 3)]
    rows += [[""], [None], [], ["x"]]  # a row of one empty cell is quoted; an empty row is not
    expected = csv_bytes(header, rows)
    assert (csv_header(header) + csv_lines(rows)).encode("utf-8") == expected
    assert csv_lines([[""]]) == '""\n'
    assert csv_lines([[]]) == "\n"


def test_every_two_values_in_a_row_are_written_as_csv_bytes_writes_them() -> None:
    """A line is written as its fields joined when none of them needs quoting or a quote put
    before it; every two values side by side (a text, a count, a figure, a list) give the line
    the cell-by-cell writer gives."""
    rows = [["plain", a, b, 7, None] for a in VALUES for b in VALUES]
    rows += [[a, b] for a in VALUES for b in VALUES] + [[a] for a in VALUES]
    expected = csv_bytes(["a"], rows).decode("utf-8").split("\n", 1)[1]
    assert csv_lines(rows) == expected


def test_a_rows_fields_are_each_cells_parts_read_one_at_a_time() -> None:
    """A column of several fields reads them from its cell in one call for the cell's type
    (:func:`abp_tui.analysis.table_model.csv_values`): the fields each part gives, whatever
    type each row's cell is, a proportion's reason its undefined reason."""
    columns = (
        Column("p", csv=(("x", "x"), ("n", "n"), ("point", "point"), ("why", "reason"))),
        Column("c", csv=(("first", "0"), ("second", "1"))),
        Column("v", csv=(("median", "value"), ("n", "n"), ("missing", "missing"))),
        Column("one", csv=(("only", "value"),)),
        Column("none", csv=()),
        Column("e", csv=(("e", "point"), ("e_why", "reason"))),
        Column("t", kind=Kind.TALLY, csv=(("t_x", "x"), ("t_n", "n"))),
    )
    cells: list[tuple[Any, ...]] = [
        (
            Proportion(x=1, n=2, point=0.5, low=0.1, high=0.9),
            Counts((1, 2)),
            Number(0.5, n=3, missing=1),
            Number(2.0),
            "hidden",
            Estimate(0.2, 0.1, 0.3),
            Tally(1, 4),
        ),
        (
            Proportion(x=0, n=0, undefined_reason="no runs"),
            Counts((3, 4)),
            Number(None, n=0, missing=2),
            "text",
            None,
            Proportion(x=1, n=1, point=1.0, low=0.2, high=1.0),
            Tally(0, 0),
        ),
        (
            Proportion(x=2, n=3, point=0.6667, low=0.2, high=0.9),
            Counts((5, 6)),
            Number(1.5),
            7,
            (),
            Estimate(None, reason="no estimate"),
            Tally(2, 2),
        ),
        (
            Proportion(x=3, n=3, point=1.0, low=0.4, high=1.0),
            Counts((7, 8)),
            Number(None, reason="r"),
            None,
            1.5,
            Proportion(x=0, n=0, undefined_reason="none"),
            Tally(3, 9),
        ),
    ]
    values = csv_values(columns)
    for row in cells * 2:  # each type's reader made once, then reused
        expected = [_part(row[i], part) for i, c in enumerate(columns) for _name, part in c.fields]
        assert values(row) == expected
    with pytest.raises(AttributeError):  # a cell without the part fails as _part fails
        values((*cells[0][:5], PValue(0.5), cells[0][6]))


@pytest.mark.parametrize(
    "value",
    [
        Tally(3, 7),
        Tally(0, 0),
        Proportion(x=1, n=3, point=1 / 3, low=0.061, high=0.792),
        Proportion(x=0, n=0, undefined_reason="no observations <here>"),
        Proportion(x=0, n=0),
        Proportion(x=2, n=2, point=1.0, low=None, high=None, undefined_reason="r"),
    ],
    ids=repr,
)
def test_a_tally_or_a_proportion_has_the_text_of_its_spans(value: Any) -> None:
    column = Column("c", kind=Kind.PROPORTION)
    assert cell_text(column, value) == "".join(text for text, _role in spans(column, value))


def _table(rows: int) -> Table:
    columns = (
        Column("text"),
        Column("count", kind=Kind.COUNT),
        Column("number", kind=Kind.NUMBER),
        Column("hidden", shown=False),
        Column("many"),
    )
    cells = [
        (
            VALUES[i % len(VALUES)],
            i,
            NUMBERS[i % len(NUMBERS)] if isinstance(NUMBERS[i % len(NUMBERS)], float) else None,
            TEXTS[(i * 7) % len(TEXTS)],
            tuple(TEXTS[: i % 4]),
        )
        for i in range(rows)
    ]
    return Table("t", "T", columns, tuple(cells), ("a note", "<b>second</b>"))


@pytest.mark.parametrize("rows", [0, 1, 5, 4999])
def test_a_table_is_written_in_batches_with_the_same_bytes(rows: int) -> None:
    table = _table(rows)
    expected = csv_bytes(*csv_rows(table))
    assert table_csv(table) == expected
    chunks = list(table_csv_chunks(table, batch=7))
    assert b"".join(chunks) == expected
    assert len(chunks) == 1 + math.ceil(rows / 7)


def _mixed_table(rows: int) -> Table:
    """A table of one-field columns (texts, counts, figures, :class:`Number` cells, hostile
    values of every kind) between columns of several fields, each row's cells of other types."""
    columns = (
        Column("a"),
        Column("b", kind=Kind.NUMBER),
        Column("p", csv=(("x", "x"), ("n", "n"), ("point", "point"), ("why", "reason"))),
        Column("c"),
        Column("d", kind=Kind.NUMBER),
        Column("hidden", csv=()),
        Column("v", csv=(("median", "value"), ("n", "n"), ("missing", "missing"))),
        Column("e", kind=Kind.NUMBER, csv=(("e", "value"),)),
        Column("counts", csv=(("first", "0"), ("second", "1"))),
    )
    proportions = (
        Proportion(x=1, n=3, point=1 / 3, low=0.061, high=0.792),
        Proportion(x=0, n=0, undefined_reason='=no, "runs"\n-here'),
        Proportion(x=2, n=2, point=1.0, low=None, high=None, undefined_reason="+r"),
    )
    numbers = (Number(-0.25), Number(None, n=2, missing=1), Number(math.nan), Number(1e16))
    cells = [
        (
            VALUES[i % len(VALUES)],
            numbers[i % 4] if i % 3 else NUMBERS[i % len(NUMBERS)],
            proportions[i % 3] if i % 4 != 3 else Proportion(x=i, n=i + 1),
            VALUES[(i * 7) % len(VALUES)],
            numbers[(i + 1) % 4],
            TEXTS[i % len(TEXTS)],
            numbers[(i + 2) % 4],
            numbers[i % 4] if i % 2 else VALUES[(i * 3) % len(VALUES)],
            Counts((i, -i)),
        )
        for i in range(rows)
    ]
    return Table("m", "M", columns, tuple(cells))


@pytest.mark.parametrize("rows", [0, 1, 7, 300])
def test_a_table_of_several_fields_is_written_with_the_cells_values_read_when_written(
    rows: int,
) -> None:
    """A one-field column's cell goes to the writer as it is, a :class:`Number` read for its
    value only when it is written, runs of such columns taken as slices of the row: the bytes
    of the writer that read every row's values first."""
    table = _mixed_table(rows)
    assert b"".join(table_csv_chunks(table, batch=5)) == _slow(table)
    whole = _table(rows)  # every column one field
    changed = Table(
        "w", "W", whole.columns, tuple((*r[:2], Number(-1.5), *r[3:]) for r in whole.rows)
    )
    assert table_csv(changed) == _slow(changed)


def test_a_row_of_another_width_is_refused_as_before() -> None:
    for table in (_table(3), _mixed_table(3)):
        short = Table("s", "S", table.columns, LazyRows(1, lambda _i: ("x",)))
        with pytest.raises(ValueError, match="a row of 1 cells, not"):
            table_csv(short)


_ROWS_LINE = "{% for rows in t.html_rows %}{{ rows }}{% endfor %}\n"
_CELLS_LINES = (
    "{% for row in t.rows %}\n"
    '<tr>{% for numeric, text in t.cells(row) %}{% if numeric %}<td class="num">{% else %}'
    "<td>{% endif %}{{ text }}</td>{% endfor %}</tr>\n"
    "{% endfor %}\n"
)
_OLD_MACRO = (
    "{% macro table(t) -%}\n<tbody>\n" + _CELLS_LINES + "</tbody>\n{%- endmacro %}{{ table(t) }}"
)
_NEW_MACRO = """{% macro table(t) -%}
<tbody>
{% for rows in t.html_rows %}{{ rows }}{% endfor %}
</tbody>
{%- endmacro %}{{ table(t) }}"""


def _rendered(source: str, table: HtmlTable | None = None, **values: Any) -> str:
    env = Environment(
        autoescape=True,
        finalize=_shown,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    return env.from_string(source).render(t=table, **values)


@pytest.mark.parametrize("rows", [0, 1, 300, 700])
def test_the_reports_rows_are_the_markup_the_template_wrote_cell_by_cell(rows: int) -> None:
    texts = [*TEXTS, *(str(v) for v in NUMBERS)]
    table = HtmlTable(
        "t",
        ("a", "b", "c"),
        (False, True, False),
        LazyRows(rows, lambda i: (texts[i % len(texts)], str(i), texts[(i * 5) % len(texts)])),
    )
    old = _rendered(_OLD_MACRO, table)
    assert _rendered(_NEW_MACRO, table) == old
    assert "<script" not in old and "\x1b" not in old  # escaped and made visible, as before
    assert old.count("<tr>") == rows


def test_the_template_writes_rows_through_html_rows() -> None:
    """The page's table (the template its macro and its long tables include) is the one
    checked above (a change to one is a change to the other)."""
    templates = Path(report.__file__).parent / "templates"
    source = (templates / "table.html.j2").read_text("utf-8")
    assert "{% for rows in t.html_rows %}{{ rows }}{% endfor %}" in source
    page = (templates / "report.html.j2").read_text("utf-8")
    assert page.count('{% include "table.html.j2" %}') == 7  # the macro and six long tables


_TASKS_LINE = "{% for task in tasks %}{{ task }}{% endfor %}\n"
_TASKS_LOOP = """{% for t in tasks %}
<h4 id="task-{{ t.id }}">{{ t.id }} {{ t.title }}</h4><dl class="task">
{% for label, text in [("Risk type", t.risk_type), ("Version", t.version), ("Prompt", t.prompt), \
("Base instruction", t.base_instruction), ("Evidence", t.evidence), \
("Expected behaviour (grader only)", t.expected_behaviour)] if text %}
<dt>{{ label }}</dt><dd>{{ pre(text) }}</dd>
{% endfor %}
{% if t.fatal_criteria %}
<dt>Fatal criteria</dt><dd>{{ items(t.fatal_criteria) }}</dd>
{% endif %}
{% if t.placeholder %}
<dt>Note</dt><dd>No task record was imported for this id.</dd>
{% endif %}
</dl>
{% endfor %}
"""
"""The page's loop over the protocol's tasks, text by text, before each task was written at
once (:func:`abp_tui.export.report.task_html`)."""


def test_a_task_is_the_markup_the_template_wrote_text_by_text() -> None:
    page = (Path(report.__file__).parent / "templates" / "report.html.j2").read_text("utf-8")
    assert page.count(_TASKS_LINE) == 1
    macros = page[page.index("{% macro items") : page.index("{% macro link")]
    texts = [t for t in TEXTS if t] + ["", " "]
    tasks = [
        PublishedTask(
            id=texts[i % len(texts)] or "t",
            title=texts[(i + 1) % len(texts)],
            prompt=texts[(i + 2) % len(texts)],
            base_instruction=texts[(i + 3) % len(texts)] if i % 2 else "",
            evidence=texts[(i + 4) % len(texts)] if i % 3 else "",
            expected_behaviour=texts[(i + 5) % len(texts)],
            risk_type=texts[(i + 6) % len(texts)] if i % 4 else "",
            version=texts[(i + 7) % len(texts)] if i % 5 else "",
            fatal_criteria=tuple(texts[i % len(texts) : i % len(texts) + i % 3]),
            placeholder=i % 7 == 0,
        )
        for i in range(3 * len(texts))
    ]
    old = _rendered(macros + _TASKS_LOOP, tasks=tasks)
    assert "".join(task_html(t) for t in tasks) == old
    assert "<script" not in old and "\x1b" not in old and old.count("<h4") == len(tasks)


def test_the_tasks_are_written_in_pieces_of_many_with_the_same_markup() -> None:
    tasks = [
        PublishedTask(id=f"t{i}", title=TEXTS[i % len(TEXTS)], prompt=TEXTS[(i * 3) % len(TEXTS)])
        for i in range(600)
    ]
    pieces = list(report.tasks_html(tasks))
    assert "".join(pieces) == "".join(task_html(t) for t in tasks)
    assert len(pieces) == 3 and all(isinstance(p, Markup) for p in pieces)
    assert list(report.tasks_html([])) == []


def _slow_escaped(value: Any) -> str:
    return escape(safe_text(value if type(value) is str else cell(value)), quote=True)


def test_a_plain_text_is_escaped_as_it_is() -> None:
    """A text with no character that making it visible or escaping it changes is written as it
    is; every character up to U+3000, and the ones past it a record may hold, is checked
    against making the text visible and escaping it."""
    characters = [chr(c) for c in range(0x3000)]
    characters += ["\u202e", "\ufeff", "\ufff9", "\U000e0041", "\U0001f600", "\udc80"]
    for c in characters:
        for text in (c, f"a{c}b", c * 3):
            assert report._escaped(text) == _slow_escaped(text), repr(text)
    for value in (*TEXTS, *NUMBERS, ("<a>", "b"), Figure("-1")):
        assert report._escaped(value) == _slow_escaped(value), repr(value)


def test_a_plain_label_of_a_chart_is_written_as_it_is() -> None:
    """A chart's label with no character that writing it on one line, visible and escaped
    changes is written as it is; every character up to U+3000 and the ones past it a record
    may hold are checked against the steps it skips."""
    characters = [chr(c) for c in range(0x3000)]
    characters += ["\u202e", "\ufeff", "\ufff9", "\U000e0041", "\U0001f600", "\udc80"]
    for text in (*TEXTS, *characters, *(f"a{c}b" for c in characters)):
        assert svg._text(text) == escape(safe_line(text), quote=True), repr(text)


def test_a_reports_cells_are_the_texts_of_cell_text() -> None:
    """A report's row is each shown cell's :func:`cell_text`, a float written with its
    column's digits, whatever the cell."""
    columns = (
        Column("text"),
        Column("n", kind=Kind.NUMBER),
        Column("d", kind=Kind.NUMBER, digits=2),
        Column("hidden", shown=False),
        Column("signed", kind=Kind.INTERVAL, digits=3, signed=True),
        Column("p", kind=Kind.PROPORTION),
    )
    floats = [v for v in NUMBERS if isinstance(v, float)] + [1e-07, 1e16, 123.456, -2.5]
    texts = [
        v
        for v in VALUES
        if type(v) is not list and not (type(v) is tuple and set(map(type, v)) - {str})
    ]
    values = [*texts, *floats, Number(0.5, n=2, missing=1), Tally(1, 2)]
    rows = tuple(
        (
            values[i % len(values)],
            floats[i % len(floats)],
            values[(i * 7) % len(values)],
            "x",
            Estimate(floats[i % len(floats)], -1.0, 2.0) if i % 2 else floats[i % len(floats)],
            Proportion(x=1, n=3, point=1 / 3, low=0.1, high=0.7) if i % 3 else values[i % 9],
        )
        for i in range(len(values) * 2)
    )
    table = Table("c", "C", columns, rows)
    html = report._html(table, "c")
    expected = [tuple(cell_text(c, v) for c, v in table.cells(row)) for row in rows]
    assert list(html.rows) == expected
    assert [html.rows[i] for i in range(len(rows))] == expected


DOCUMENTS: tuple[Any, ...] = (
    {"a": 1 / 3, "b": [math.nan, math.inf, -0.0, 1e300, 2.5e-300], "c": {"d": (1.23456789, "x")}},
    {"nested": [{"x": [0.1 + 0.2, None, True, "=s"]}, []], "empty": {}, "key": {1.5: 0.7777777}},
    [1.0000001, 2, "3", [4.44444444]],
)


@pytest.mark.parametrize("document", DOCUMENTS, ids=range(len(DOCUMENTS)))
def test_figures_are_rounded_as_written_to_the_bytes_of_the_rounded_copy(document: Any) -> None:
    if not isinstance(document, dict):
        document = {"list": document}
    for derived in (True, False):
        whole = json_bytes(document, derived=derived)
        streamed = b"".join(json_chunks(document, {}, derived=derived))
        assert streamed == whole
        listed: dict[str, Iterable[Any]] = {
            k: v for k, v in document.items() if isinstance(v, list)
        }
        rest = {k: v for k, v in document.items() if k not in listed}
        assert b"".join(json_chunks(rest, listed, derived=derived)) == whole
    assert json.loads(json_bytes(document, derived=True)) == json.loads(
        json.dumps(rounded(document))
    )


def _hostile_document(i: int) -> dict[str, Any]:
    """A group as a summary writes it, its figures, texts and keys those of a hostile record."""
    floats = [v for v in NUMBERS if isinstance(v, float)] + [1e-07, 1e16, -1e-300, 0.1 + 0.2]
    return {
        "x" * (60 + i % 10): floats[i % len(floats)],  # a key longer than the ones kept
        TEXTS[i % len(TEXTS)]: {TEXTS[(i + 1) % len(TEXTS)]: floats[(i * 3) % len(floats)]},
        f"key {i} \u00e9\u202e<script>": [True, False, None, i, -i, TEXTS[i % len(TEXTS)]],
        "pass_rate": {
            "confidence": 0.95,
            "point": floats[(i * 5) % len(floats)],
            "continuity": bool(i % 2),
            "low": None,
            "n": 10**20 + i,
        },
        "nested": [{"a": (floats[i % len(floats)], "\x00")}, [], {}, [[1.5]]],
    }


def test_a_document_is_written_as_json_dumps_writes_its_rounded_copy() -> None:
    """The indenting writer gives the bytes of ``json.dumps`` of the rounded copy (or of the
    document as it is, not derived) whatever the keys (more than the writer keeps), texts and
    figures: NaN, infinities, -0.0, 1e-07, 1e16, huge counts, flags and nulls."""
    documents = [_hostile_document(i) for i in range(5000)]
    for i, document in enumerate(documents):
        for derived in (True, False):
            expected = json.dumps(
                rounded(document) if derived else document,
                sort_keys=True,
                ensure_ascii=False,
                indent=1,
            )
            assert json_bytes(document, derived=derived) == (expected + "\n").encode(), i
            assert _indented(document, 0, derived) == expected


def test_rounded_leaves_plain_values_and_rounds_the_rest() -> None:
    assert rounded("=x") == "=x" and rounded(7) == 7 and rounded(None) is None
    assert rounded(True) is True
    assert rounded(1 / 3) == 0.333333
    assert rounded(math.nan) is None
    assert rounded({"a": (1 / 3, [2 / 3])}) == {"a": [0.333333, [0.666667]]}


def _slow(table: Table) -> bytes:
    return csv_bytes(*csv_rows(table))


def test_a_bundles_csv_files_and_report_are_those_of_the_cell_by_cell_writers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A judged study's whole bundle, written by the faster paths and by the ones they
    replace (the CSV writer cell by cell, the page's template looping over every cell), byte
    for byte."""
    templates = Path(report.__file__).parent / "templates"
    table = (templates / "table.html.j2").read_text("utf-8")
    assert _ROWS_LINE in table
    old_env = Environment(
        loader=DictLoader(
            {
                "report.html.j2": (templates / "report.html.j2")
                .read_text("utf-8")
                .replace(_TASKS_LINE, _TASKS_LOOP),
                "table.html.j2": table.replace(_ROWS_LINE, _CELLS_LINES),
                "report.css": (templates / "report.css").read_text("utf-8"),
            }
        ),
        autoescape=True,
        finalize=_shown,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    db = connect(tmp_path / "b.db")
    try:
        pk = abp_judged(db)
        fast = build_bundle(db, pk)
        monkeypatch.setattr(derive, "table_csv_chunks", lambda t: iter([_slow(t)]))
        monkeypatch.setattr(derive, "table_csv", _slow)
        monkeypatch.setattr(report, "_environment", lambda: old_env)
        monkeypatch.setattr(report, "tasks_html", lambda tasks: tasks)
        slow = build_bundle(db, pk)
    finally:
        db.close()
    assert set(fast) == set(slow)
    differ = sorted(p for p in fast if fast[p] != slow[p])
    assert differ == [], differ
    assert fast["report.html"].count(b"<tr>") > 20
    assert any(p.endswith(".csv") and fast[p].count(b"\n") > 3 for p in fast)


VOTES: tuple[dict[str, Any], ...] = tuple(
    {"a": "x", "b": "y", "outcome": "b", "source": "s", "task": "t", **change}
    for change in (
        {"length_a": 100, "length_b": None},
        {"length_a": 1.5, "length_b": 0},
        {"length_a": 0.0, "length_b": 10**18},
        {"length_a": True, "length_b": 0},
        {"length_a": -1, "length_b": 0},
        {"length_a": "1", "length_b": 0},
        {"length_a": 1, "length_b": 0, "outcome": "c"},
        {"length_a": 1, "length_b": 0, "outcome": ["a"]},
        {"length_a": 1, "length_b": 0, "a": 1},
        {"length_a": 1},
        {"length_a": 1, "length_b": 2, "extra": 3},
    )
)


@pytest.mark.parametrize("data", VOTES, ids=range(len(VOTES)))
def test_a_plain_vote_is_the_vote_its_model_validates(data: dict[str, Any]) -> None:
    """A vote line taken without validating it again is exactly the one the model gives; any
    other goes through the model (which names what is wrong, or converts what it may)."""
    plain = _plain_vote(data)
    try:
        validated: VoteLine | None = VoteLine.model_validate(data)
    except ValidationError:
        validated = None
    if plain is None:
        return
    assert validated is not None
    assert plain == validated
    assert [type(v) for v in plain.__dict__.values()] == [
        type(v) for v in validated.__dict__.values()
    ]
    assert plain.model_fields_set == validated.model_fields_set


@pytest.mark.parametrize("data", VOTES, ids=range(len(VOTES)))
def test_a_plain_votes_fields_are_its_models(data: dict[str, Any]) -> None:
    """The votes' reader takes a plain line's fields without a model: they are the model's,
    of the same types, in its order."""
    fields = _plain_fields(data)
    plain = _plain_vote(data)
    assert (fields is None) == (plain is None)
    if plain is not None:
        assert fields == tuple(plain.__dict__.values())
        assert [type(v) for v in fields or ()] == [type(v) for v in plain.__dict__.values()]


def test_the_plain_votes_are_the_common_ones() -> None:
    assert [_plain_vote(v) is not None for v in VOTES[:4]] == [True, True, True, False]
    assert all(_plain_vote(v) is None for v in VOTES[4:])


# -- the records a bundle collects, made from their rows -------------------------------------------
_FLOATS: tuple[Any, ...] = (None, 0.0, -0.0, 1.0, 1 / 3, 1e308, 5e-324, math.inf, -math.nan, 7)


def _fact_rows() -> list[tuple[tuple[Any, ...], dict[str, object]]]:
    states = (None, *(s.value for s in ResultState))
    metadata: tuple[dict[str, object], ...] = (
        {},
        {"diffBytesNormalized": 12},
        {"diff_bytes": 1.5, "diffBytesNormalized": True},
        {"activity": {"diffBytes": math.inf}},
        {"activity": "x", "diff_bytes": "3"},
    )
    rows: list[tuple[tuple[Any, ...], dict[str, object]]] = []
    for k, text in enumerate(TEXTS):
        rows.append(
            (
                (
                    text or "r",
                    text or "t",
                    text,
                    k % 3,
                    states[k % len(states)],
                    text if k % 2 else None,
                    None if k % 2 else text,
                    (None, 0, 10**20, 3.0)[k % 4],
                    _FLOATS[k % len(_FLOATS)],
                    _FLOATS[(k + 3) % len(_FLOATS)],
                ),
                metadata[k % len(metadata)],
            )
        )
    return rows


def test_a_runs_facts_are_their_models_json_dump() -> None:
    """A run's line in a bundle takes its facts from the row without a model: the bytes of the
    model's JSON dump, on hostile texts, every result state and odd numbers."""
    for row, metadata in _fact_rows():
        slow = facts_of(row, metadata).model_dump(mode="json")
        assert canonical_json(facts_json(row, metadata)) == canonical_json(slow), row


_ROW = ("P-ABC123", "ann", 2, "submitted", None, '{"1": 7, "2": 8}', "", 12.5, "2026-01-01Z")
_IDS = {7: "run/1", 8: "run/2"}


def _response(**change: Any) -> dict[str, Any]:
    return {
        "scores": {"x": 2, "y": 0},
        "rationales": {"y": '=HYPERLINK("http://x")'},
        "fatal_hits": ["\x1b[31mred", "line\u2028break"],
        "state_override": None,
        "override_reason": "",
        **change,
    }


def _payload(**change: Any) -> dict[str, Any]:
    return {
        "responses": {"7": _response(), "8": _response(state_override="GRADER_DISPUTE")},
        "preference": "response_1",
        "justification": "<b>bold</b> \u202eevil",
        "validity": {"consistent": True, "visible": False},
        **change,
    }


PLAIN_JUDGMENTS: tuple[dict[str, Any], ...] = (
    _payload(),
    _payload(responses={}, preference=None, validity={}),
    *(_payload(preference=c.value, justification=t) for c in PreferenceChoice for t in TEXTS),
    *(_payload(responses={"8": _response(state_override=s.value)}) for s in ResultState),
    _payload(responses={"7": _response(scores={"x": 10**20}, rationales={}, fatal_hits=[])}),
)
OTHER_JUDGMENTS: tuple[Any, ...] = (
    {k: v for k, v in _payload().items() if k != "validity"},
    _payload(extra=1),
    _payload(preference="RESPONSE_1"),
    _payload(justification=None),
    _payload(validity={"consistent": 1}),
    _payload(responses={"7": _response(scores={"x": "2"})}),
    _payload(responses={"7": _response(scores={"x": True})}),
    _payload(responses={"7": _response(scores={"x": 2.0})}),
    _payload(responses={"7": _response(fatal_hits=[1])}),
    _payload(responses={"7": _response(fatal_hits="a")}),
    _payload(responses={"7": _response(state_override="passed")}),
    _payload(responses={"7": _response(reclassified=False)}),
    _payload(responses={"7": _response(reclassified=True)}),
    _payload(responses={"7": _response(correction_minutes=5)}),
    _payload(responses={"7": _response(correction_minutes=5.0)}),
    _payload(responses={"7": {k: v for k, v in _response().items() if k != "rationales"}}),
    [],
)


def _judgment_row(payload: Any) -> tuple[Any, ...]:
    return (*_ROW[:4], json.dumps(payload), *_ROW[5:])


@pytest.mark.parametrize("payload", PLAIN_JUDGMENTS + OTHER_JUDGMENTS)
def test_a_judgment_line_is_its_records_json_dump_or_none(payload: Any) -> None:
    """A judgment revision is written from its row without a model only when its payload is
    plainly a judgment's dump, and then as the bytes of its record's dump; any other payload
    (one the model converts, completes or refuses) is left to the model (None)."""
    row = _judgment_row(payload)
    fast = judgment_line(row, _IDS)
    if payload in PLAIN_JUDGMENTS:
        assert fast is not None
    else:
        assert fast is None
    if fast is not None:
        slow = judgment_revision(row, _IDS).model_dump(mode="json")
        assert canonical_json(fast) == canonical_json(slow)
        assert fast["judgment"]["responses"].keys() <= set(_IDS.values())


def test_a_judgment_row_of_other_values_is_left_to_its_model() -> None:
    assert judgment_line(_judgment_row(_payload()), _IDS) is not None
    for at, value in ((0, 5), (1, None), (3, b"submitted"), (6, None), (8, 1.0)):
        row = list(_judgment_row(_payload()))
        row[at] = value
        assert judgment_line(row, _IDS) is None


def test_a_judged_designs_lines_are_its_records_dumps(db: Any) -> None:
    """Every item, judgment revision and run a bundle collects of a judged design, made from
    its row, is its record's JSON dump (drafts, revisions and rubric scores among them)."""
    pk = abp_judged(db)
    study = db.execute("SELECT study_id FROM designs WHERE pk = ?", [pk]).fetchone()[0]
    judgments = [r.model_dump(mode="json") for r in bulk.each_judgment_revision(db, pk)]
    assert len(judgments) >= 5 and any(j["judgment"]["responses"] for j in judgments)
    assert [canonical_json(j) for j in bulk.each_judgment_line(db, pk)] == [
        canonical_json(j) for j in judgments
    ]
    items = [i.model_dump(mode="json") for i in bulk.each_item(db, pk)]
    assert len(items) > 3 and list(bulk.each_item_line(db, pk)) == items
    tasks = [{**t.model_dump(mode="json"), "placeholder": p} for t, p in bulk.each_task(db, study)]
    assert len(tasks) > 3 and list(bulk.each_task_line(db, study)) == tasks
    runs = list(bulk.each_current_run(db, study))
    lines = list(bulk.each_run_line(db, study))
    assert len(runs) > 3 and len(lines) == len(runs)
    for run, line in zip(runs, lines, strict=True):
        assert canonical_json(line.facts) == canonical_json(run.facts.model_dump(mode="json"))
        assert (line.record, line.output, line.trace_pk) == (run.record, run.output, run.trace_pk)


@pytest.mark.parametrize("size", [0, 1, 100, 70_000, 300_001])
def test_a_file_deflated_at_once_is_the_bytes_deflated_chunk_by_chunk(size: int) -> None:
    """A whole file deflated in one call into the spool has the bytes, CRC and sizes of the
    same file deflated a chunk at a time (what the zip is made of)."""
    data = (b"line of text \xe2\x80\xa8 " * (size // 10 + 1))[:size]
    with tempfile.TemporaryFile() as whole, tempfile.TemporaryFile() as chunked:
        whole.write(b"before")
        chunked.write(b"before")
        once = deflated(whole, data, ZIP_LEVEL, 2)
        deflating = Deflating(chunked, ZIP_LEVEL, 2)
        for at in range(0, size, 4096):
            deflating.write(data[at : at + 4096])
        by_chunk = deflating.close()
        whole.seek(0)
        chunked.seek(0)
        assert once == by_chunk
        assert whole.read() == chunked.read()


def test_a_file_put_is_hashed_once_as_written(tmp_path: Path) -> None:
    files = FolderFiles(tmp_path / "b")
    try:
        sha = put_file(files, "runs/outputs/a.txt", b"out\n")
        assert sha == hashlib.sha256(b"out\n").hexdigest()
        assert (tmp_path / "b" / "runs/outputs/a.txt").read_bytes() == b"out\n"
        with pytest.raises(ValueError, match="written twice"):
            put_file(files, "runs/outputs/a.txt", b"again")
        in_memory: dict[str, bytes] = {}
        assert put_file(in_memory, "x", b"out\n") == sha and in_memory == {"x": b"out\n"}
    finally:
        files.close()


_NAMES = st.text(alphabet=st.sampled_from(list('ab1 "\\\x7f\x00\n\t\u00e9\u202e\U0001f600~')))
_LENGTHS = st.one_of(st.none(), st.integers(0, 10**6), st.floats(0, 1e20, allow_nan=False))
_VOTE_ROWS = st.fixed_dictionaries(
    {
        "source": st.sampled_from(("verdicts", "labels", "judge:x\u00e9")),
        "task": _NAMES,
        "a": _NAMES,
        "b": _NAMES,
        "outcome": st.sampled_from(("a", "b", "tie")),
        "length_a": _LENGTHS,
        "length_b": _LENGTHS,
    }
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_VOTE_ROWS, max_size=12))
def test_votes_sort_by_their_lines_as_by_their_spaced_json(rows: list[dict[str, Any]]) -> None:
    """The bundle's votes are sorted by a key made from each vote's line (most often the line
    itself) in the order they were sorted by their ``json.dumps``: the same lines in the same
    order, every key ASCII (SQLite compares them as Python does)."""
    keyed = [(sort_key(r, canonical_json(r)), canonical_json(r)) for r in rows]
    assert all(k.isascii() for k, _line in keyed)
    ours = [line for _k, line in sorted(keyed)]
    before = [canonical_json(r) for r in sorted(rows, key=lambda r: json.dumps(r, sort_keys=True))]
    assert ours == before


def _task_row(k: int, text: str, **change: Any) -> list[Any]:
    row: list[Any] = [
        text or "T1",
        text,
        f"{text} prompt",
        "",
        text,
        "expected",
        json.dumps([text, "=1"][: k % 3]),
        text,
        "v1",
        k % 2,
        json.dumps({"n": k, "x": [text, None, 1.5, -0.0], "y": {"z": text}}),
    ]
    for at, value in change.items():
        row[int(at[1:])] = value
    return row


def test_a_task_is_written_as_its_published_records_dump() -> None:
    """A task of the bundle's protocol made from its row without a model is the JSON dump of
    the PublishedTask the export made before (a placeholder or not); a row that is not
    plainly a task's is left to the model."""
    for k, text in enumerate(TEXTS):
        row = _task_row(k, text)
        line = task_line(row)
        assert line is not None
        for placeholder in (False, True):
            slow = PublishedTask(**task_from_row(row).model_dump(), placeholder=placeholder)
            assert json_bytes([{**line, "placeholder": placeholder}]) == json_bytes(
                [slow.model_dump(mode="json")]
            )
    for change in ({"c0": ""}, {"c1": 5}, {"c6": '"a"'}, {"c6": "[1]"}, {"c10": "[]"}):
        assert task_line(_task_row(1, "t", **change)) is None, change
