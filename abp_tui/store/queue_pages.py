"""SQL for moving through a reviewer's queue without reading it whole.

A reviewer's queue of a design is their assignments in ``order_index`` order. Every function
here reads what one step needs, whatever the queue's length: the item after or before one (by
the ``assignments_reviewer`` index, from the item's own place), the first item (unfinished),
a page of rows (``LIMIT``/``OFFSET``, filtered by status and by words), and the counts of the
queue from ``queue_summaries``, which triggers keep in step with assignments and judgments
(migration ``0015_workstation_summaries``). Only a search by words counts its matches by
reading the queue's rows, in SQL: each task's text once per statement, lowered in Python only
when it is not ASCII (:func:`_word`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from abp_tui.store.judging import QueueRow

if TYPE_CHECKING:
    import sqlite_utils

_STATUS = (
    "COALESCE((SELECT j.status FROM judgments j WHERE j.item_pk = i.pk "
    "AND j.reviewer = a.reviewer ORDER BY j.revision DESC LIMIT 1), 'todo')"
)
"""The status of the reviewer's latest revision of the item (todo: none yet)."""
_REVISIONS = "(SELECT COUNT(*) FROM judgments j WHERE j.item_pk = i.pk AND j.reviewer = a.reviewer)"
# CROSS JOIN keeps the assignments the outer loop: the queue is walked in the
# (reviewer, order_index) index's order, so a LIMIT stops the walk after a few rows.
_QUEUE = (
    "FROM assignments a CROSS JOIN items i ON i.pk = a.item_pk "
    "WHERE a.reviewer = :reviewer AND i.design_pk = :design"
)
_FILTERS = {
    "all": "",
    "unfinished": f" AND {_STATUS} != 'submitted'",
    "todo": f" AND {_STATUS} = 'todo'",
    "draft": f" AND {_STATUS} = 'draft'",
    "submitted": f" AND {_STATUS} = 'submitted'",
}
"""The queue screen's status filters, as conditions on a row of :data:`_QUEUE`."""
_ITEMS = (
    "FROM items i CROSS JOIN assignments a ON a.item_pk = i.pk AND a.reviewer = :reviewer "
    "WHERE i.design_pk = :design"
)
"""The rows of :data:`_QUEUE` in the design's items' order: what a count reads, as it needs
no order (the design's items side by side, each assignment found by its key), where walking
the queue's order reads the items one by one wherever they lie."""


@dataclass(frozen=True)
class QueueCounts:
    """A reviewer's items of a design, by the status of their latest revision."""

    assigned: int
    submitted: int
    drafts: int

    @property
    def todo(self) -> int:
        return self.assigned - self.submitted - self.drafts

    def of(self, status_filter: str) -> int:
        """How many items a status filter shows."""
        return {
            "all": self.assigned,
            "unfinished": self.assigned - self.submitted,
            "todo": self.todo,
            "draft": self.drafts,
            "submitted": self.submitted,
        }[status_filter]


def counts(db: sqlite_utils.Database, design_pk: int, reviewer: str) -> QueueCounts:
    """The reviewer's counts of the design, from the summary kept on write (one row)."""
    row = db.execute(
        "SELECT assigned, submitted, drafts FROM queue_summaries "
        "WHERE design_pk = ? AND reviewer = ?",
        [design_pk, reviewer],
    ).fetchone()
    return QueueCounts(0, 0, 0) if row is None else QueueCounts(row[0], row[1], row[2])


def place(db: sqlite_utils.Database, design_pk: int, reviewer: str, code: str) -> int | None:
    """The ``order_index`` of item ``code`` in the reviewer's queue (None: not theirs)."""
    row = db.execute(
        "SELECT a.order_index FROM items i JOIN assignments a ON a.item_pk = i.pk "
        "AND a.reviewer = ? WHERE i.design_pk = ? AND i.code = ?",
        [reviewer, design_pk, code],
    ).fetchone()
    return None if row is None else int(row[0])


def neighbour(
    db: sqlite_utils.Database,
    design_pk: int,
    reviewer: str,
    order_index: int,
    step: int,
    unfinished: bool = False,
) -> str | None:
    """The code ``step`` items after (before, when negative) the one at ``order_index``;
    ``unfinished``: the nearest one in that direction not submitted. None past an end."""
    forward = step > 0
    sql = (
        f"SELECT i.code {_QUEUE} AND a.order_index {'>' if forward else '<'} :index"
        f"{_FILTERS['unfinished'] if unfinished else ''} "
        f"ORDER BY a.order_index {'' if forward else 'DESC'} LIMIT 1 OFFSET :skip"
    )
    params: dict[str, Any] = {
        "reviewer": reviewer,
        "design": design_pk,
        "index": order_index,
        "skip": 0 if unfinished else abs(step) - 1,
    }
    row = db.execute(sql, params).fetchone()
    return None if row is None else str(row[0])


def first(
    db: sqlite_utils.Database,
    design_pk: int,
    reviewer: str,
    *,
    unfinished: bool = False,
    other_than: str | None = None,
) -> str | None:
    """The code of the first item of the queue (``unfinished``: not submitted; never
    ``other_than``), None when there is none."""
    sql = f"SELECT i.code {_QUEUE}{_FILTERS['unfinished'] if unfinished else ''}"
    params: dict[str, Any] = {"reviewer": reviewer, "design": design_pk}
    if other_than is not None:
        sql += " AND i.code != :other"
        params["other"] = other_than
    row = db.execute(sql + " ORDER BY a.order_index LIMIT 1", params).fetchone()
    return None if row is None else str(row[0])


@dataclass(frozen=True)
class QueuePage:
    """Rows of a reviewer's queue, from ``start`` (0-based, among the rows the filters keep),
    with the task text of each (title, then prompt) by blind code."""

    start: int
    rows: list[QueueRow]
    tasks: dict[str, str]


def _lower(text: str | None) -> str:
    return (text or "").lower()


_HAYSTACK = (
    f"(i.code || ' ' || i.kind || ' ' || {_STATUS} || ' ' || "
    "(SELECT CASE WHEN t.title != '' AND t.prompt != '' THEN t.title || char(10) || "
    "t.prompt ELSE t.title || t.prompt END FROM tasks t WHERE t.pk = i.task_pk))"
)
"""What a search by words reads of a row: its blind code, kind, the reviewer's status and its
task text (title, then prompt), joined by white space. Never a condition, a model or an
output."""
_STATUSES = ("todo", "draft", "submitted")
"""Every value of :data:`_STATUS` (a judgment's status is checked to be draft or submitted)."""


def _has(column: str, n: int) -> str:
    """``column`` holds word ``n`` as ``str.lower`` reads it. A text of ASCII characters alone
    (as many bytes as characters: no other character, no NUL) is lowered by SQLite's ``lower``,
    which agrees with ``str.lower`` there, without leaving SQLite; any other text is lowered by
    ``str.lower`` itself (a function of this connection)."""
    return (
        f"(CASE WHEN length({column}) = length(CAST({column} AS BLOB)) "
        f"THEN instr(lower({column}), :w{n}) ELSE instr(abp_lower({column}), :w{n}) END > 0)"
    )


def _has_lower(column: str, n: int) -> str:
    """:func:`_has` for a word that lowering leaves as it is (what the queue screen searches),
    sooner: SQLite's ``LIKE`` (ASCII letters in either case) finds it where ``str.lower``
    would, as the text it matched lowers to the word; only a non-ASCII text it misses (a
    capital outside ASCII, such as the Kelvin sign, may lower into the word) is lowered by
    ``str.lower``."""
    return (
        f"({column} LIKE :p{n} ESCAPE '\\' OR (length({column}) != "
        f"length(CAST({column} AS BLOB)) AND instr(abp_lower({column}), :w{n}) > 0))"
    )


def _pattern(word: str) -> str | None:
    """The ``LIKE`` pattern of a word :func:`_has_lower` may search (None: not one)."""
    if word != word.lower() or len(word) > _LONGEST_LIKE:
        return None
    escaped = word.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


_LONGEST_LIKE = 10_000
"""Longer words are searched by :func:`_has` (SQLite refuses a ``LIKE`` pattern of 50,000)."""


def _word(word: str, n: int, lowered: bool) -> str:
    """Row condition: word ``n`` appears in the row's :data:`_HAYSTACK`, lowered.

    A word without white space cannot span two of its parts (white space joins them, and
    ``str.lower`` reads across none: its only rule of context, the final sigma, stops at white
    space), so each part is searched alone: the code and kind in the row, the status among its
    three values, and the task text once per task of the study, not once per row (an
    uncorrelated ``IN``, which SQLite reads once per statement, in the tasks' own order).
    ``lowered``: the word is one :func:`_has_lower` searches."""
    if " " in word or "\n" in word:  # only what white space separates could hold it
        return f"({_has(_HAYSTACK, n)})"
    has = _has_lower if lowered else _has
    parts = [has("i.code", n), has("i.kind", n)]
    statuses = [s for s in _STATUSES if word in s]
    if statuses:
        parts.append(f"{_STATUS} IN ({', '.join(repr(s) for s in statuses)})")
    parts.append(
        "i.task_pk IN (SELECT t.pk FROM tasks t WHERE t.study_id = "
        "(SELECT d.study_id FROM designs d WHERE d.pk = :design) "
        f"AND ({has('t.title', n)} OR {has('t.prompt', n)}))"
    )
    return f"({' OR '.join(parts)})"


def _filtered(
    db: sqlite_utils.Database, status_filter: str, words: list[str]
) -> tuple[str, dict[str, Any]]:
    """The WHERE additions (and parameters) of a status filter and a search by words: every
    word (lower case) must appear in the blind code, kind, status or task text (as
    ``str.lower`` reads them; see :func:`_word`)."""
    sql = _FILTERS[status_filter]
    params: dict[str, Any] = {}
    if words:
        db.conn.create_function("abp_lower", 1, _lower, deterministic=True)
        for n, word in enumerate(words):
            pattern = _pattern(word)
            sql += f" AND {_word(word, n, pattern is not None)}"
            params[f"w{n}"] = word
            params[f"p{n}"] = pattern
    return sql, params


def matching_count(
    db: sqlite_utils.Database,
    design_pk: int,
    reviewer: str,
    status_filter: str,
    words: list[str],
) -> int:
    """How many rows of the queue a status filter and a search keep (a search scans the
    queue; without one, the count comes from the summary)."""
    if not words:
        return counts(db, design_pk, reviewer).of(status_filter)
    sql, params = _filtered(db, status_filter, words)
    row = db.execute(
        f"SELECT COUNT(*) {_ITEMS}{sql}", {"reviewer": reviewer, "design": design_pk, **params}
    ).fetchone()
    return int(row[0])


def rows_before(
    db: sqlite_utils.Database,
    design_pk: int,
    reviewer: str,
    order_index: int,
    status_filter: str,
    words: list[str],
) -> int:
    """How many rows the filters keep before the item at ``order_index``."""
    sql, params = _filtered(db, status_filter, words)
    if not sql:  # the whole queue: an item's place is its order_index
        return order_index
    row = db.execute(
        f"SELECT COUNT(*) {_ITEMS} AND a.order_index < :index{sql}",
        {"reviewer": reviewer, "design": design_pk, "index": order_index, **params},
    ).fetchone()
    return int(row[0])


def matching_and_before(
    db: sqlite_utils.Database,
    design_pk: int,
    reviewer: str,
    order_index: int,
    status_filter: str,
    words: list[str],
) -> tuple[int, int]:
    """:func:`matching_count` and :func:`rows_before` together: a search counts both in one
    reading of the queue."""
    if not words:
        return (
            matching_count(db, design_pk, reviewer, status_filter, words),
            rows_before(db, design_pk, reviewer, order_index, status_filter, words),
        )
    sql, params = _filtered(db, status_filter, words)
    row = db.execute(
        f"SELECT COUNT(*), COALESCE(SUM(a.order_index < :index), 0) {_ITEMS}{sql}",
        {"reviewer": reviewer, "design": design_pk, "index": order_index, **params},
    ).fetchone()
    return int(row[0]), int(row[1])


_WALK_COST = 10
"""About how many times dearer a row of the queue is walked in its order (each item read
wherever it lies) than in the items' order (side by side)."""


def page(
    db: sqlite_utils.Database,
    design_pk: int,
    reviewer: str,
    status_filter: str,
    words: list[str],
    start: int,
    size: int,
    matching: int | None = None,
) -> QueuePage:
    """``size`` rows of the queue from row ``start`` among those the filters keep.

    ``matching``, how many rows the filters keep, when known, chooses the reading: the queue
    walked in its order stops once it has its rows, which is quick when they are many; when
    they are few (a rare word: the walk goes to the end), the rows the filters keep are found
    in the items' order and the page is sorted out of them."""
    sql, params = _filtered(db, status_filter, words)
    if matching is not None and matching < _WALK_COST * (start + size):
        keys = f"SELECT i.pk AS pk {_ITEMS}{sql} ORDER BY a.order_index LIMIT :size OFFSET :start"
        rows = (
            f"FROM ({keys}) k CROSS JOIN items i ON i.pk = k.pk "
            "JOIN assignments a ON a.item_pk = i.pk AND a.reviewer = :reviewer "
            "ORDER BY a.order_index"
        )
    else:
        rows = f"{_QUEUE}{sql} ORDER BY a.order_index LIMIT :size OFFSET :start"
    found = db.execute(
        f"SELECT i.pk, i.code, i.kind, a.order_index, a.flipped, {_STATUS}, {_REVISIONS}, "
        f"(SELECT t.title FROM tasks t WHERE t.pk = i.task_pk), "
        f"(SELECT t.prompt FROM tasks t WHERE t.pk = i.task_pk) {rows}",
        {"reviewer": reviewer, "design": design_pk, "size": size, "start": start, **params},
    ).fetchall()
    return QueuePage(
        start,
        [QueueRow(r[0], r[1], r[2], r[3], bool(r[4]), r[5], r[6]) for r in found],
        {r[1]: "\n".join(p for p in (r[7], r[8]) if p) for r in found},
    )


def code_of(db: sqlite_utils.Database, design_pk: int, reviewer: str, item_pk: int) -> str | None:
    """The code of item ``item_pk`` when it is in the reviewer's queue of the design."""
    row = db.execute(
        "SELECT i.code FROM items i JOIN assignments a ON a.item_pk = i.pk AND a.reviewer = ? "
        "WHERE i.pk = ? AND i.design_pk = ?",
        [reviewer, item_pk, design_pk],
    ).fetchone()
    return None if row is None else str(row[0])


def design_items(db: sqlite_utils.Database, design_pk: int) -> int:
    """How many items a design has (counted in its index)."""
    return int(
        db.execute("SELECT COUNT(*) FROM items WHERE design_pk = ?", [design_pk]).fetchone()[0]
    )


@dataclass(frozen=True)
class DesignHead:
    """What lists of designs show of one, without parsing its document (which names every
    task of the study: megabytes for a large one)."""

    pk: int
    study_id: str
    name: str
    version_no: int
    reviewers: list[str]
    adjudicators: list[str] = field(default_factory=list)
    """Who may adjudicate its disagreements; empty: anyone who did not judge the item."""


def design_heads(db: sqlite_utils.Database, study_id: str | None = None) -> list[DesignHead]:
    """Every design (of one study), by study, name and version, its reviewers and adjudicators
    read in SQL."""
    where = "" if study_id is None else "WHERE study_id = :study "
    rows = db.execute(
        "SELECT pk, study_id, name, version_no, "
        "COALESCE(json_extract(document, '$.reviewers'), '[]'), "
        "COALESCE(json_extract(document, '$.adjudicators'), '[]') FROM designs "
        f"{where}ORDER BY study_id, name, version_no",
        {"study": study_id},
    ).fetchall()
    return [
        DesignHead(
            r[0], r[1], r[2], r[3], list(json.loads(r[4]) or []), list(json.loads(r[5]) or [])
        )
        for r in rows
    ]


@dataclass(frozen=True)
class DesignListing:
    """What ``abp-tui study list`` prints of a design, read from its columns (its document,
    which names every task, is not parsed) with its items counted in the index."""

    pk: int
    study_id: str
    name: str
    version_no: int
    sha256: str
    seed: int
    frozen_at: str | None
    items: int


def design_listing(db: sqlite_utils.Database, study_id: str | None = None) -> list[DesignListing]:
    """Every design (of one study), by study, name and version."""
    where = "" if study_id is None else "WHERE d.study_id = :study "
    rows = db.execute(
        "SELECT d.pk, d.study_id, d.name, d.version_no, d.sha256, d.seed, d.frozen_at, "
        "(SELECT COUNT(*) FROM items i WHERE i.design_pk = d.pk) FROM designs d "
        f"{where}ORDER BY d.study_id, d.name, d.version_no",
        {"study": study_id},
    ).fetchall()
    return [DesignListing(*r) for r in rows]
