"""The judge report of a blind study has no judge-assisted estimates by condition.

A judge-assisted win rate of A against B (or a pass rate of C) is a result by condition, which
nobody sees before the study is unblinded; the judge-vs-people figures (agreement, kappa,
position bias) say how far a judge can be trusted and stay. The same rule holds for
``abp-tui judges`` (text and ``--json``) and the Judges screen (``g``), which call one service.
"""

from __future__ import annotations

import json
from pathlib import Path

from abp_tui.models import Judgment, PreferenceChoice, StudyDesign
from abp_tui.services.designing import create_design
from abp_tui.services.importing import import_paths
from abp_tui.services.results_report import unblind
from abp_tui.services.reviewing import ReviewSession
from abp_tui.store import connect
from abp_tui.tui.app import make_app
from abp_tui.tui.screens.judges import JudgesScreen
from tests.factories import Cli, write_jsonl
from tests.tui_helpers import drive, press, settle, static_text, until


def withheld(db_path: Path) -> str:
    """The line that withholds the estimates and the confusion matrices of the judge's three
    orders against people: its command runs on ``db_path``."""
    return (
        "Judge-assisted estimates by condition (1) and confusion matrices against people (3: "
        "they count picks by side) withheld until "
        f"`abp-tui unblind --study judged --yes --db {db_path}`: the study is blind."
    )


def _judged_study(db_path: Path, folder: Path) -> None:
    """Eight A/B pairs a preference judge judged in both orders; alice judged five."""
    db = connect(db_path)
    try:
        lines: list[dict[str, object]] = [
            {"type": "study", "id": "judged", "name": "Judged study"},
            {"type": "judge", "id": "pair-judge/v1", "model": "judge-model"},
        ]
        for t in (f"t{i}" for i in range(1, 9)):
            lines.append({"type": "task", "id": t, "prompt": f"Answer {t}."})
            runs = [f"{t}-A", f"{t}-B"]
            for run, c in zip(runs, "AB", strict=True):
                lines.append(
                    {"type": "run", "id": run, "task_id": t, "condition_id": c, "output": c}
                )
            for first in runs:
                lines.append(
                    {
                        "type": "judge_verdict",
                        "judge": "pair-judge/v1",
                        "task_id": t,
                        "runs": runs,
                        "shown_first": first,
                        "verdict": runs[0],
                    }
                )
        import_paths(db, [write_jsonl(folder / "judged.jsonl", lines)])
        design = StudyDesign(
            study="judged",
            name="d",
            seed=3,
            rubric="none",
            contrasts=[("A", "B")],
            reviewers=["alice"],
        )
        session = ReviewSession(db, create_design(db, design).pk, "alice")
        for row in session.queue()[:5]:
            first_is_a = session.read(row.code).responses[0].text == "A"
            choice = PreferenceChoice.RESPONSE_1 if first_is_a else PreferenceChoice.RESPONSE_2
            session.save(row.code, Judgment(preference=choice, justification="A."), 3, submit=True)
    finally:
        db.close()


def test_the_judges_command_withholds_estimates_by_condition_until_unblinded(
    tmp_path: Path, cli: Cli
) -> None:
    _judged_study(cli.db_path, tmp_path)
    text = cli("judges", "--study", "judged")
    assert text.code == 0, text.err
    assert withheld(cli.db_path) in text.out
    assert "judge-assisted" not in text.out and "win rate of A against B" not in text.out
    assert "position consistency" in text.out and "Cohen's kappa" in text.out
    doc = json.loads(cli("judges", "--study", "judged", "--json").out)
    assert doc["estimates_withheld"] == withheld(cli.db_path)
    (judge,) = doc["judges"]
    assert judge["estimates"] == []
    assert judge["orders"] and judge["position"]["consistency"]["n"] > 0
    assert "win rate" not in json.dumps(doc)
    # alice preferred A throughout: the counts would say so; kappa and agreement stay.
    assert all(o["kappa"]["confusion"] is None for o in judge["orders"])
    assert "confusion withheld while the study is blind" in text.out
    assert all(o["kappa"]["percent_agreement"]["value"] is not None for o in judge["orders"])

    assert cli("unblind", "--study", "judged", "--yes").code == 0
    shown = cli("judges", "--study", "judged")
    assert "withheld" not in shown.out
    assert "judge-assisted win rate of A against B" in shown.out
    doc = json.loads(cli("judges", "--study", "judged", "--json").out)
    assert doc["estimates_withheld"] is None
    (judge,) = doc["judges"]
    (estimate,) = judge["estimates"]
    assert estimate["figure"] == "win rate of A against B"
    assert all(o["kappa"]["confusion"]["counts"] for o in judge["orders"])
    assert "confusion (" in shown.out


async def _judges_screen(db_path: Path) -> tuple[list[str], str]:
    """The Judges screen's lines and body, opened with ``g`` from the home screen."""
    app = make_app(db_path, reviewer="coordinator")
    async with drive(app, (120, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "g")
        screen = app.screen
        assert isinstance(screen, JudgesScreen)
        await until(pilot, lambda: bool(screen.lines), "the judge report")
        await settle(pilot)
        return screen.lines, " ".join(static_text(pilot, "#judges-body").split())


async def test_the_judges_screen_withholds_them_too(tmp_path: Path) -> None:
    db_path = tmp_path / "judges.db"
    _judged_study(db_path, tmp_path)
    lines, body = await _judges_screen(db_path)
    assert lines[2] == withheld(db_path) and withheld(db_path) in body
    assert "judge-assisted" not in body and "position consistency" in body
    db = connect(db_path)
    try:
        unblind(db, "judged", "coordinator")
    finally:
        db.close()
    lines, body = await _judges_screen(db_path)
    assert "withheld" not in body
    assert "judge-assisted win rate of A against B" in body
