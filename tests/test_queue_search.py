"""The queue's search by words finds what ``str.lower`` finds in what the reviewer may see of a
row (blind code, kind, their own status, the task text), in any script, while a queue of ASCII
text is searched by SQLite alone; and ``abp-tui study list`` prints a design from its columns,
without parsing its document or reading its items.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from abp_tui.models import Judgment, PreferenceChoice
from abp_tui.services.designing import DesignChoices, create_from_choices
from abp_tui.services.importing import import_paths
from abp_tui.services.reviewing import ReviewSession
from abp_tui.store import connect, judging, queue_pages
from abp_tui.store.judging import QueueRow
from abp_tui.store.transcripts import task_texts
from tests.factories import Cli

TEXTS = [
    ("İstanbul in two days", ""),
    ("Convert 300 \u212a to Celsius", "on the absolute scale"),
    ("Spell STRASSE the German way", "Straße, or \u1e9e in capitals"),
    ("ΣΟΦΙΑ and ΟΔΟΣ: what do they mean?", ""),
    ("Order a café au lait", "CAFE NAÏVE"),
    ("Translate 你好世界", "to English"),
    ("Summarise the \U0001f600 thread", ""),
    ("i\u0307 is a dotted i", ""),
    ("Draft a polite reply", "to a todo list"),
    ("Grow it by 50% in snake_case", "a back\\slash"),
]
"""Task texts in several scripts (dotted capital I, the Kelvin sign, the capital sharp s,
final sigma, combining marks, CJK, an emoji) beside ASCII ones."""
ASCII = [
    (f"Write a HELLO World program number {n}", "in Python" if n % 2 else "") for n in range(27)
]
NON_ASCII = sum(not (title + given).isascii() for title, given in TEXTS)
QUERIES = [
    "İstanbul",
    "istanbul",
    "STANBUL",
    "i\u0307",
    "\u212a",
    "k",
    "kelvin",
    "STRASSE",
    "straße",
    "\u1e9e",
    "ΣΟΦΙΑ",
    "σοφια",
    "ΟΔΟΣ",
    "οδοσ",
    "café",
    "CAFE",
    "naïve",
    "你好",
    "\U0001f600",
    "hello world",
    "HELLO program 1",
    "todo",
    "draft",
    "submitted",
    "pair",
    "p-",
    "alpaca",
    "llama-7b",
    "7b",
    "zebracorn",
    "",
]
"""What a reviewer types (the queue screen searches ``text.lower().split()``): words of the
task texts in every case, statuses, kinds, and terms only a condition (alpaca-7b, llama-7b)
or an output (zebracorn) holds, which a blind search must never find."""


def _study(tmp_path: Path) -> Path:
    rows = [
        {
            "idx": n,
            "motivation_app": "Notion",
            "cmp_key": "alpaca-7b_llama-7b" if n % 2 else "llama-7b_alpaca-7b",
            "instruction": instruction,
            "input": given,
            "response1": f"zebracorn answer {n}",
            "response2": f"another answer {n}",
            "annotator1": n % 3,
            "annotator2": (n + 1) % 3,
            "annotator3": 0,
        }
        for n, (instruction, given) in enumerate(TEXTS + ASCII)
    ]
    source = tmp_path / "pairs.json"
    source.write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
    db_path = tmp_path / "study.db"
    db = connect(db_path)
    try:
        import_paths(db, [source], fmt="pairwise")
        create_from_choices(db, DesignChoices(reviewers="ann,bo", seed=7))
    finally:
        db.close()
    return db_path


def _session(tmp_path: Path) -> ReviewSession:
    db = connect(_study(tmp_path))
    session = ReviewSession(db, int(db.execute("SELECT pk FROM designs").fetchone()[0]), "ann")
    judged = Judgment(preference=PreferenceChoice.RESPONSE_1, justification="Clearer.")
    for n, row in enumerate(session.queue()):
        if n % 3 == 0:
            session.save(row.code, judged, 1.0, submit=n % 6 == 0)
    return session


def _haystacks(session: ReviewSession) -> dict[str, str]:
    """Each row's text as the search read it before: code, kind, status and task text joined
    by spaces, lowered by ``str.lower``."""
    tasks = task_texts(session.db, session.design_pk)
    return {
        r.code: " ".join((r.code, r.kind, r.status, tasks[r.code])).lower() for r in session.queue()
    }


FILTERS: dict[str, Callable[[QueueRow], bool]] = {
    "all": lambda r: True,
    "unfinished": lambda r: r.status != "submitted",
    "todo": lambda r: r.status == "todo",
    "draft": lambda r: r.status == "draft",
    "submitted": lambda r: r.status == "submitted",
}


def test_a_search_finds_what_str_lower_finds_in_every_script(tmp_path: Path) -> None:
    session = _session(tmp_path)
    rows = session.queue()
    hay = _haystacks(session)
    size = 4
    # Words holding white space (no screen makes them) are read across the parts of a row.
    spaced = [["hello world"], ["pair todo"], ["ς: what"], ["au lait\n\ncafe"]]
    # Nor words in capitals (found in no lowered text), nor LIKE's wildcards and escape.
    verbatim = [["HELLO"], ["Σοφια"], ["%"], ["0%"], ["_"], ["e_c"], ["\\"], ["k\\s"], ["%_"]]
    for words in [q.lower().split() for q in QUERIES] + spaced + verbatim:
        for status, keep in FILTERS.items():
            expected = [r.code for r in rows if keep(r) and all(w in hay[r.code] for w in words)]
            assert session.queue_matching(status, words) == len(expected), (words, status)
            for start in range(0, len(expected) + size, size):
                # Walked in the queue's order, or (the count known) sorted out of the matches.
                for matching in (None, len(expected)):
                    page = session.queue_page(status, words, start, size, matching)
                    assert [r.code for r in page.rows] == expected[start : start + size]
                    assert set(page.tasks) == {r.code for r in page.rows}
            kept = set(expected)
            for n, row in enumerate(rows):
                before = sum(r.code in kept for r in rows[:n])
                counted = session.queue_matching_before(row.code, status, words)
                assert counted == (len(expected), before)
    # The cases str.lower and SQLite's ASCII lower() read differently, found as before.
    found = {q: session.queue_matching("all", q.lower().split()) for q in QUERIES}
    assert found["İstanbul"] == 1 and found["istanbul"] == 0
    assert found["i\u0307"] == 2  # İ lowers to i and a combining dot
    assert found["\u212a"] == found["k"] > found["kelvin"] == 0  # the Kelvin sign lowers to k
    assert found["\u1e9e"] == found["straße"] == 1
    assert found["ΟΔΟΣ"] == 1 and found["οδοσ"] == 0
    todo = sum(r.status == "todo" for r in rows)
    assert [session.queue_matching("all", w) for w in spaced] == [len(ASCII), todo, 1, 1]
    assert [session.queue_matching("all", w) for w in verbatim] == [0, 0, 1, 1, 1, 1, 1, 1, 0]
    assert found["CAFE"] == found["naïve"] == found["你好"] == found["\U0001f600"] == 1
    # Blind: neither a condition's name nor an output's word is searched.
    assert found["alpaca"] == found["llama-7b"] == found["7b"] == found["zebracorn"] == 0


def test_only_rows_of_non_ascii_text_leave_sqlite_to_be_lowered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = _session(tmp_path)
    lowered: list[str] = []

    def counted(text: str | None) -> str:
        lowered.append(text or "")
        return (text or "").lower()

    monkeypatch.setattr(queue_pages, "_lower", counted)
    hay = _haystacks(session)
    everything = len(hay)
    assert session.queue_matching("all", ["pair"]) == everything
    assert session.queue_matching("all", ["absent"]) == 0
    # Lowering every row in Python made a search of a long queue take seconds: each non-ASCII
    # task text is lowered once, the rest is read by SQLite.
    assert len(lowered) == NON_ASCII < everything
    assert all(not text.isascii() for text in lowered)
    lowered.clear()
    page = session.queue_page("all", ["hello"], 0, 5)
    assert len(page.rows) == 5 and len(lowered) <= NON_ASCII
    assert all(not text.isascii() for text in lowered)


def test_study_list_prints_each_design_from_its_columns(
    tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    db_path = _study(tmp_path)
    db = connect(db_path)
    try:
        create_from_choices(db, DesignChoices(reviewers="bo", seed=9))
        session = ReviewSession(
            db, int(db.execute("SELECT MIN(pk) FROM designs").fetchone()[0]), "bo"
        )
        first = session.queue()[0].code
        session.save(
            first,
            Judgment(preference=PreferenceChoice.TIE, justification="Alike."),
            1.0,
            submit=True,
        )
        designs = judging.designs(db)
        expected: list[dict[str, Any]] = [
            {
                "study": d.study_id,
                "name": d.name,
                "version": d.version_no,
                "sha256": d.sha256,
                "seed": d.seed,
                "frozen_at": d.frozen_at,
                "items": len(judging.items(db, d.pk)),
                "progress": [p.__dict__ for p in judging.progress(db, d.pk)],
            }
            for d in designs
        ]
    finally:
        db.close()
    assert len(expected) == 2 and expected[0]["frozen_at"] and not expected[1]["frozen_at"]

    def unread(*args: object) -> None:
        raise AssertionError("study list parsed a design's document or read its items")

    monkeypatch.setattr(judging, "_design", unread)
    monkeypatch.setattr(judging, "items", unread)
    listed = cli("study", "list", "--db", db_path, "--json")
    assert listed.code == 0, listed.err
    assert json.loads(listed.out)["designs"] == expected
    text = cli("study", "list", "--db", db_path, "--study", expected[0]["study"])
    assert text.code == 0, text.err
    lines = []
    for d in expected:
        frozen = f"frozen {d['frozen_at']}" if d["frozen_at"] else "not yet judged"
        lines.append(
            f"{d['study']} / {d['name']} v{d['version']}: {d['items']} items, "
            f"seed {d['seed']}, {frozen}, sha256 {d['sha256'][:12]}"
        )
        lines.extend(
            f"    {p['reviewer']}: {p['submitted']}/{p['assigned']} submitted, "
            f"{p['drafts']} in draft"
            for p in d["progress"]
        )
    assert text.out.rstrip("\n").splitlines() == lines
