"""The AI judges' verdicts on the compare screen: shown on an item only once the reviewer has
submitted it, only on a design that sets ``show_ai_after_submit``, and blind (the responses by the
positions this reviewer saw, the judge's explanation masked as the responses are)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import sqlite_utils
from textual.pilot import Pilot

from abp_tui.models import Judgment, PreferenceChoice, StudyDesign
from abp_tui.services import judge_display
from abp_tui.services.designing import create_design
from abp_tui.services.importing import import_paths
from abp_tui.services.judge_display import ShownVerdict, item_verdicts_shown
from abp_tui.services.reviewing import ReviewSession
from abp_tui.store import connect
from abp_tui.store import judging as store
from abp_tui.tui.app import make_app
from abp_tui.tui.screens.compare import CompareScreen
from abp_tui.tui.widgets.ai_verdicts import AiVerdictsPanel
from tests.factories import Cli, afp_judgment, write_jsonl
from tests.tui_helpers import (
    compare_screen,
    drive,
    pair_study,
    plain,
    press,
    screen_text,
    settle,
    type_text,
    until,
)

SIZE = (160, 50)
PAIR_JUDGE, PAIR_MODEL = "pairwise-judge/v1", "judge-model-q"
SCORE_JUDGE, SCORE_MODEL = "rubric-scorer/v2", "scorer-model-r"
NOTE = "JUDGE-NOTE-41c"
"""In every explanation: nothing of a judge may be on screen before the reviewer submits."""
MODELS = {"A": "zeta-coder-2", "C": "acme-writer-7"}
"""The model of each condition's runs: identity terms the design masks."""


def _lines() -> list[dict[str, Any]]:
    """The TUI's pair study (A "Model only", C "Workflow"), its runs naming their models, and
    two AI judges: one prefers C's run (shown first), one scores A's run; both explanations
    name the models and C's label, and carry a terminal escape."""
    lines = pair_study()
    for line in lines:
        if line["type"] == "run":
            line["model"] = MODELS[line["condition_id"]]
    lines += [
        {"type": "judge", "id": PAIR_JUDGE, "model": PAIR_MODEL, "prompt": "pair-v2"},
        {"type": "judge", "id": SCORE_JUDGE, "model": SCORE_MODEL},
    ]
    for task in ("T1", "T2"):
        lines += [
            {
                "type": "judge_verdict",
                "judge": PAIR_JUDGE,
                "task_id": task,
                "runs": [f"{task}-A", f"{task}-C"],
                "shown_first": f"{task}-C",
                "verdict": f"{task}-C",
                "explanation": (
                    f"{NOTE} Assistant A (acme-writer-7, the Workflow answer) keeps to the memo;\n"
                    "Assistant B from zeta-coder-2 \x1b[31minvents an owner."
                ),
            },
            {
                "type": "judge_verdict",
                "judge": SCORE_JUDGE,
                "task_id": task,
                "run": f"{task}-A",
                "score": 4,
                "scale": [1, 10],
                "explanation": f"{NOTE} the zeta-coder-2 answer is vague.",
            },
        ]
    return lines


def _database(tmp_path: Path, *, show: bool) -> tuple[Path, int]:
    db_path = tmp_path / "judges.db"
    db = connect(db_path)
    try:
        import_paths(db, [write_jsonl(tmp_path / "study.jsonl", _lines())])
        pk = create_design(
            db,
            StudyDesign(
                study="pilot",
                name="pairs",
                seed=11,
                contrasts=[("C", "A")],
                reviewers=["ana"],
                show_ai_after_submit=show,
            ),
        ).pk
    finally:
        db.close()
    return db_path, pk


def _positions(screen: CompareScreen) -> tuple[str, str]:
    """(the position of C's response, of A's) on the item shown: each output ends "(T1, c)"."""
    assert screen.item is not None
    keys = [r.key for r in screen.item.responses if ", c)" in r.text]
    assert len(keys) == 1
    c = keys[0]
    return c, "2" if c == "1" else "1"


async def _judge_and_submit(pilot: Pilot[Any]) -> None:
    """Fill the AFP form of the pair shown (gate, both responses, preference) and submit it."""
    await press(pilot, *"yyyyy", "2", "2", "2", "2", "tab", "tab")
    await press(pilot, "2", "2", "2", "2", "tab", "tab", "1")
    await type_text(pilot, "Response 1 keeps to the memo")
    await press(pilot, "enter", "s")


def _judge_text_absent(text: str) -> None:
    for secret in (NOTE, PAIR_JUDGE, PAIR_MODEL, SCORE_JUDGE, SCORE_MODEL, "AI judges"):
        assert secret not in text, secret


def _recorded(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, bool]]:
    """Every read the panel asks for: (code, whether the store let it see something)."""
    asked: list[tuple[str, bool]] = []
    real = judge_display.read_item_verdicts

    def recorded(
        db_path: Path, design_pk: int, code: str, reviewer: str
    ) -> tuple[ShownVerdict, ...] | None:
        found = real(db_path, design_pk, code, reviewer)
        asked.append((code, found is not None))
        return found

    # The panel imports it from there as it reads (the first item is shown without it).
    monkeypatch.setattr(judge_display, "read_item_verdicts", recorded)
    return asked


def _check_panel(shown: str, c: str, a: str) -> None:
    assert "AI judges" in shown and "shown after your submission" in shown
    assert f"{PAIR_JUDGE} ({PAIR_MODEL})" in shown and f"{SCORE_JUDGE} ({SCORE_MODEL})" in shown
    # The pick and the order the judge saw, in this reviewer's placement of the item.
    assert f"prefers Response {c} (shown Response {c} first)" in shown
    assert f"Response {a}: score 4 on 1–10" in shown
    # The explanations, masked as the outputs are, and inert.
    assert NOTE in shown and "keeps to the memo" in shown
    assert "«masked»" in shown
    for identity in (*MODELS.values(), "Workflow", "Model only", "T1-A", "T1-C", "T2-A", "T2-C"):
        assert identity not in shown, identity
    assert "\x1b" not in shown and "␛[31m" in shown


async def test_verdicts_appear_after_submission_blind_and_masked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db_path, _pk = _database(tmp_path, show=True)
    asked = _recorded(monkeypatch)
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        screen = await compare_screen(pilot)
        assert screen.item is not None
        first = screen.item.code
        first_c, first_a = _positions(screen)
        panel = screen.query_one(AiVerdictsPanel)
        assert not panel.has_class("-shown") and panel.code is None
        _judge_text_absent(screen_text(pilot))
        assert asked == []  # never asked before the reviewer's submission

        await _judge_and_submit(pilot)
        await until(pilot, lambda: any(n.title == "AI judges" for n in app._notifications),
                    "the AI judges' notice")  # fmt: skip
        notice = next(n.message for n in app._notifications if n.title == "AI judges")
        assert f"AI judges on {first}:" in notice
        assert f"{PAIR_JUDGE} ({PAIR_MODEL}): prefers Response {first_c}" in notice
        assert f"{SCORE_JUDGE} ({SCORE_MODEL}): Response {first_a}: score 4" in notice
        # On to the second item, not submitted yet: no judge's verdict on it, no explanation.
        assert screen.item is not None and screen.item.code != first
        second = screen.item.code
        second_c, second_a = _positions(screen)
        assert not panel.has_class("-shown")
        assert NOTE not in screen_text(pilot)
        assert asked == [(first, True)]

        # Submitting the last item keeps it on screen: its verdicts appear at once.
        await _judge_and_submit(pilot)
        await until(pilot, lambda: panel.code == second, "the verdicts on the submitted item")
        await settle(pilot)
        assert screen.item is not None and screen.item.code == second
        assert panel.has_class("-shown")
        _check_panel(plain(panel.content), second_c, second_a)
        assert NOTE in screen_text(pilot)

        await press(pilot, "[")  # back to the first submitted item: its own verdicts
        await until(pilot, lambda: panel.code == first, "the verdicts on the first item")
        await settle(pilot)
        _check_panel(plain(panel.content), first_c, first_a)
    # Every read was for an item the reviewer had submitted, and the store answered.
    assert asked and all(found for _code, found in asked)
    assert {code for code, _found in asked} == {first, second}


async def test_a_design_without_show_ai_after_submit_never_shows_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db_path, _pk = _database(tmp_path, show=False)
    asked = _recorded(monkeypatch)
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        screen = await compare_screen(pilot)
        assert screen.item is not None
        first = screen.item.code
        panel = screen.query_one(AiVerdictsPanel)
        _judge_text_absent(screen_text(pilot))
        await _judge_and_submit(pilot)
        assert screen.item is not None and screen.item.code != first
        _judge_text_absent(screen_text(pilot))
        await _judge_and_submit(pilot)  # the last item: it stays on screen, submitted
        await settle(pilot)
        _judge_text_absent(screen_text(pilot))
        await press(pilot, "[")
        await settle(pilot)
        assert screen.item is not None and screen.item.code == first
        assert screen.drafts.status == "submitted"
        _judge_text_absent(screen_text(pilot))
        assert not panel.has_class("-shown") and panel.code is None
        assert not any(n.title == "AI judges" for n in app._notifications)
    # Asked only once submitted; the store refused every time.
    assert asked and not any(found for _code, found in asked)


def test_rows_follow_each_reviewers_placement(tmp_path: Path, db: sqlite_utils.Database) -> None:
    """Two reviewers who saw an item in opposite placements read the same verdict as opposite
    positions; the rows hold no run id, condition, or model of a response."""
    import_paths(db, [write_jsonl(tmp_path / "study.jsonl", _lines())])
    pk = create_design(
        db,
        StudyDesign(
            study="pilot",
            name="pairs",
            seed=3,
            contrasts=[("C", "A")],
            reviewers=["ana", "bo"],
            reviewers_per_item=2,
            show_ai_after_submit=True,
        ),
    ).pk
    seen: dict[str, str] = {}
    for reviewer in ("ana", "bo"):
        session = ReviewSession(db, pk, reviewer)
        for row in session.queue():
            assert item_verdicts_shown(db, pk, row.code, reviewer) is None  # not submitted
            item = session.read(row.code)
            c = next(r.key for r in item.responses if ", c)" in r.text)
            judgment = afp_judgment(2, 2, PreferenceChoice.TIE)
            session.save(row.code, Judgment(preference=PreferenceChoice.TIE), 2)
            assert item_verdicts_shown(db, pk, row.code, reviewer) is None  # a draft only
            session.save(row.code, judgment, 2, submit=True)
            rows = item_verdicts_shown(db, pk, row.code, reviewer)
            assert rows is not None and [r.judge for r in rows] == [PAIR_JUDGE, SCORE_JUDGE]
            pair, score = rows
            assert (pair.outcome, pair.shown_first) == (f"Response {c}", f"Response {c}")
            assert score.subject == f"Response {'2' if c == '1' else '1'}"
            assert "«masked»" in pair.explanation
            assert not any(m in repr(rows) for m in (*MODELS.values(), "Workflow", "T1-", "T2-"))
            seen[f"{reviewer}/{row.code}"] = c
    # The design counterbalances: the reviewers saw some item in opposite placements.
    codes = {key.split("/")[1] for key in seen}
    assert any(seen[f"ana/{code}"] != seen[f"bo/{code}"] for code in codes)


@pytest.mark.parametrize(("size", "seconds"), [((80, 24), 4), (SIZE, 10)])
async def test_a_judges_notice_goes_sooner_where_it_covers_the_next_responses(
    tmp_path: Path, size: tuple[int, int], seconds: float
) -> None:
    """At 80 columns the notice on the item just submitted lay over the whole of the next
    item's second response for ten seconds; the item's own panel keeps every verdict."""
    db_path, _pk = _database(tmp_path, show=True)
    app = make_app(db_path, reviewer="ana")
    async with drive(app, size) as pilot:
        screen = await compare_screen(pilot)
        screen._judge_notice("AI judges on P-1: judge: prefers Response 1", "AI judges")
        await until(pilot, lambda: any(n.title == "AI judges" for n in app._notifications))
        (notice,) = [n for n in app._notifications if n.title == "AI judges"]
        assert notice.timeout == seconds


def test_study_create_shows_the_ai_judges_after_submission_when_asked(
    tmp_path: Path, cli: Cli
) -> None:
    """docs/ai-judges.md's setting had no flag: only a design file could set it."""
    study = write_jsonl(tmp_path / "study.jsonl", _lines())
    assert cli("import", str(study)).code == 0
    common = ("--rubric", "none", "--reviewers", "ana", "--limitation", "Two tasks.")
    assert cli("study", "create", "--name", "hidden", *common).code == 0
    assert cli("study", "create", "--name", "shown", "--show-ai-after-submit", *common).code == 0
    db = connect(cli.db_path)
    try:
        shown = {d.name: d.document.get("show_ai_after_submit") for d in store.designs(db, "pilot")}
    finally:
        db.close()
    assert shown == {"hidden": None, "shown": True}
    refused = cli("study", "create", "FILE.toml", "--show-ai-after-submit")
    assert refused.code == 1 and "--show-ai-after-submit" in refused.err
