"""Study designs in the workstation: the home screen's new-design form (what `abp-tui study create`
does, with the same defaults), and judging and adjudicating a preference-only design."""

from __future__ import annotations

import json
from pathlib import Path

from textual.widgets import Input, Select, SelectionList, TextArea

from abp_tui.models import Judgment, PreferenceChoice, ResponseJudgment
from abp_tui.models.builtin_rubrics import AFP_V01
from abp_tui.services.importing import import_paths
from abp_tui.services.reviewing import ReviewSession
from abp_tui.store import connect, judging
from abp_tui.tui.app import make_app
from abp_tui.tui.screens.adjudicate import AdjudicationScreen
from abp_tui.tui.screens.home import HomeScreen
from abp_tui.tui.screens.newdesign import NewDesignScreen
from abp_tui.tui.widgets.gate import GatePanel
from abp_tui.tui.widgets.preference import PreferencePanel, PreferenceRow
from abp_tui.tui.widgets.response_scoring import ResponseScoring
from tests.factories import flipped, write_jsonl
from tests.tui_helpers import (
    compare_screen,
    drive,
    pair_design,
    pair_study,
    press,
    rows,
    screen_text,
    settle,
    study_database,
    type_text,
    until,
)

SIZE = (120, 40)


def _db(tmp_path: Path, rubric: str | None = "afp-v0.1") -> Path:
    study: dict[str, object] = {"type": "study", "id": "s"}
    if rubric is not None:
        study["rubric_id"] = rubric
    lines: list[dict[str, object]] = [study]
    for task in ("T1", "T2"):
        lines.append({"type": "task", "id": task, "prompt": f"Answer {task}."})
        for c in ("A", "B"):
            lines.append(
                {
                    "type": "run",
                    "id": f"{task}-{c}",
                    "task_id": task,
                    "condition_id": c,
                    "output": f"answer {c} to {task}",
                }
            )
    db_path = tmp_path / "h.db"
    db = connect(db_path)
    import_paths(db, [write_jsonl(tmp_path / "s.jsonl", lines)])
    db.close()
    return db_path


async def _open_form(pilot: object) -> NewDesignScreen:
    from textual.pilot import Pilot

    assert isinstance(pilot, Pilot)
    await settle(pilot)
    assert isinstance(pilot.app.screen, HomeScreen)
    await press(pilot, "n")
    await until(pilot, lambda: isinstance(pilot.app.screen, NewDesignScreen), "the form")
    await settle(pilot)
    form = pilot.app.screen
    assert isinstance(form, NewDesignScreen)
    return form


async def test_the_form_starts_from_the_defaults_and_creates_the_design(tmp_path: Path) -> None:
    db_path = _db(tmp_path)
    app = make_app(db_path, reviewer="ann")
    async with drive(app, SIZE) as pilot:
        form = await _open_form(pilot)
        # This study, every condition, all pairs, the current reviewer, a fresh seed shown, the
        # study's rubric first in the list (preference only next).
        assert form.query_one("#design-name", Input).value == "pairs"
        assert form.query_one(SelectionList).selected == ["A", "B"]
        assert form.query_one("#design-pairs", Input).value == "all"
        assert form.query_one("#design-reviewers", Input).value == "ann"
        seed = form.query_one("#design-seed", Input).value
        assert seed.isdigit()
        assert form.query_one(Select).value == "afp-v0.1"
        assert "New study design for s" in screen_text(pilot)
        assert app.focused is form.query_one("#design-name", Input)
        await press(pilot, "ctrl+s")
        await until(pilot, lambda: judging.designs(connect(db_path)), "the design")
    (design,) = judging.designs(connect(db_path))
    assert (design.study_id, design.name, design.seed) == ("s", "pairs", int(seed))
    assert design.rubric["id"] == "afp-v0.1"
    assert design.document["reviewers"] == ["ann"]
    assert design.document["contrasts"] == "all-pairs"


async def test_the_form_makes_a_preference_only_design_by_keys(tmp_path: Path) -> None:
    db_path = _db(tmp_path)
    app = make_app(db_path, reviewer="ann")
    async with drive(app, SIZE) as pilot:
        form = await _open_form(pilot)
        await type_text(pilot, "prefs")  # the name field has the focus, its text selected
        await press(pilot, "tab", "tab")  # past the seed
        assert app.focused is form.query_one(Select)
        # Open the list, one down (preference only comes after the study's rubric), choose.
        await press(pilot, "enter", "down", "enter")
        assert form.query_one(Select).value == "none"
        # Past the conditions, the pairs and the tasks: the reviewers, none.
        await press(pilot, "tab", "tab", "tab", "tab", "ctrl+a", "ctrl+k")
        assert form.query_one("#design-reviewers", Input).value == ""
        await press(pilot, "enter")
        await until(pilot, lambda: judging.designs(connect(db_path)), "the design")
    (design,) = judging.designs(connect(db_path))
    assert (design.name, design.rubric["id"], design.document["reviewers"]) == (
        "prefs",
        "preference-only",
        [],
    )


async def test_the_form_takes_tasks_adjudicators_and_limitations_as_study_create_does(
    tmp_path: Path,
) -> None:
    """A pairwise study judged by two and adjudicated by a third, with a limitation, made in
    the workstation: the design ``study create --tasks T2 --reviewers ann,bo --adjudicators cy
    --limitation ...`` makes, so that its results can be published."""
    db_path = _db(tmp_path, rubric=None)
    app = make_app(db_path, reviewer="lead")
    async with drive(app, SIZE) as pilot:
        form = await _open_form(pilot)
        assert form.query_one("#design-tasks", Input).value == "all"
        assert form.query_one("#design-adjudicators", Input).value == ""
        assert form.limitations() == ()
        form.query_one("#design-tasks", Input).value = "T2"
        form.query_one("#design-reviewers", Input).value = "ann, bo"
        form.query_one("#design-adjudicators", Input).value = "cy"
        form.query_one("#design-limitations", TextArea).focus()
        await settle(pilot)
        await type_text(pilot, "Two reviewers, one task.")
        await press(pilot, "enter")  # a new line in the limitations, not the form sent
        assert isinstance(app.screen, NewDesignScreen)
        await type_text(pilot, "Synthetic answers.")
        await press(pilot, "enter", "enter")  # a blank line is no limitation
        assert form.limitations() == ("Two reviewers, one task.", "Synthetic answers.")
        await press(pilot, "ctrl+s")
        await until(pilot, lambda: judging.designs(connect(db_path)), "the design")
    (design,) = judging.designs(connect(db_path))
    assert design.document["tasks"] == ["T2"]
    assert design.document["reviewers"] == ["ann", "bo"]
    assert design.document["adjudicators"] == ["cy"]
    assert design.document["limitations"] == ["Two reviewers, one task.", "Synthetic answers."]


async def test_the_form_refuses_a_bad_seed_in_place(tmp_path: Path) -> None:
    db_path = _db(tmp_path)
    app = make_app(db_path, reviewer="ann")
    async with drive(app, SIZE) as pilot:
        form = await _open_form(pilot)
        form.query_one("#design-seed", Input).value = "twelve"
        await press(pilot, "ctrl+s")
        assert isinstance(app.screen, NewDesignScreen)
        assert "The seed is a whole number." in screen_text(pilot)
        assert judging.designs(connect(db_path)) == []
        await press(pilot, "escape")
        assert isinstance(app.screen, HomeScreen)
    assert judging.designs(connect(db_path)) == []


async def test_new_design_from_a_file_and_a_bad_file(tmp_path: Path) -> None:
    db_path = _db(tmp_path)
    good = tmp_path / "d.toml"
    good.write_text('study = "s"\nname = "from-file"\nseed = 3\nreviewers = ["ann"]\n', "utf-8")
    bad = tmp_path / "bad.toml"
    bad.write_text('study = "s"\nname = "x"\nseed = "three"\n', "utf-8")
    app = make_app(db_path, reviewer="demo")
    async with drive(app, SIZE) as pilot:
        form = await _open_form(pilot)
        form.query_one("#design-path", Input).focus()
        await type_text(pilot, str(bad))
        await press(pilot, "enter")
        await until(pilot, lambda: app.failures, "the bad file to be refused")
        assert "Creating a study design" in app.failures[-1].description
        assert "bad.toml: seed:" in app.failures[-1].reason
        assert judging.designs(connect(db_path)) == []
        form = await _open_form(pilot)
        form.query_one("#design-path", Input).focus()
        await type_text(pilot, str(good))
        await press(pilot, "enter")
        await until(pilot, lambda: judging.designs(connect(db_path)), "the design")
    (design,) = judging.designs(connect(db_path))
    assert (design.study_id, design.name, design.version_no, design.seed) == (
        "s",
        "from-file",
        1,
        3,
    )


# -- a preference-only design on the compare and adjudication screens -----------------------------
def _preference_database(tmp_path: Path, reviewers: list[str]) -> Path:
    lines = pair_study()
    lines[0] = {k: v for k, v in lines[0].items() if k != "rubric_id"}  # no rubric
    design = pair_design(reviewers).model_copy(update={"rubric": "none"})
    if len(reviewers) > 1:
        design = design.model_copy(update={"reviewers_per_item": len(reviewers)})
    return study_database(tmp_path, lines, design)


async def test_a_preference_only_item_asks_the_preference_and_its_justification_alone(
    tmp_path: Path,
) -> None:
    db_path = _preference_database(tmp_path, ["ana"])
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        screen = await compare_screen(pilot)
        form = screen.form
        assert not form.query(GatePanel) and not form.query(ResponseScoring)
        assert form.query_one(PreferencePanel).display
        assert isinstance(app.focused, PreferenceRow)
        shown = screen_text(pilot)
        assert "Validity gate" not in shown and "Task correctness" not in shown
        await press(pilot, "2")
        assert isinstance(app.focused, Input) and app.focused.id == "justification"
        await type_text(pilot, "Names the owner.")
        await press(pilot, "enter", "s")
        await until(
            pilot,
            lambda: (
                rows(db_path, "SELECT status FROM judgments ORDER BY pk DESC LIMIT 1")
                == [("submitted",)]
            ),
            "the submission",
        )
    (stored,) = rows(db_path, "SELECT payload FROM judgments WHERE status = 'submitted'")
    judgment = json.loads(stored[0])
    assert judgment["preference"] == "response_2"
    assert (judgment["justification"], judgment["responses"], judgment["validity"]) == (
        "Names the owner.",
        {},
        {},
    )


async def test_a_preference_only_disagreement_is_adjudicated_on_the_preference(
    tmp_path: Path,
) -> None:
    db_path = _preference_database(tmp_path, ["ana", "bo"])
    db = connect(db_path)
    (row,) = judging.designs(db)
    ana, bo = ReviewSession(db, row.pk, "ana"), ReviewSession(db, row.pk, "bo")
    code = sorted(r.code for r in ana.queue())[0]
    same = flipped(ana, code) == flipped(bo, code)
    mine = PreferenceChoice.RESPONSE_1
    theirs = PreferenceChoice.RESPONSE_2 if same else PreferenceChoice.RESPONSE_1
    ana.save(code, Judgment(preference=mine, justification="Clearer."), 3, submit=True)
    bo.save(code, Judgment(preference=theirs, justification="Shorter."), 3, submit=True)
    db.close()
    app = make_app(db_path, reviewer="carol")
    async with drive(app, (160, 45)) as pilot:
        await settle(pilot)
        await press(pilot, "a")
        await until(pilot, lambda: app.screen.__class__.__name__ == "DisagreementsScreen")
        await settle(pilot)
        await press(pilot, "enter")
        await until(pilot, lambda: isinstance(app.screen, AdjudicationScreen), "adjudication")
        await settle(pilot)
        shown = screen_text(pilot)
        assert "preferences conflict" in shown
        assert "Validity gate" not in shown and "Total" not in shown
        assert "Clearer." in shown and "Shorter." in shown
        await press(pilot, "1")
        await type_text(pilot, "Response 1 keeps the owner.")
        await press(pilot, "enter", "e")
        await type_text(pilot, "Read both again")
        await press(pilot, "escape", "s")
        await until(pilot, lambda: rows(db_path, "SELECT COUNT(*) FROM adjudications") == [(1,)])
    (final,) = rows(db_path, "SELECT payload FROM adjudications")
    assert json.loads(final[0])["preference"] == "response_1"


# -- moving through a rubric ----------------------------------------------------------------------
async def test_after_all_checks_hold_tab_moves_to_the_next_decision(tmp_path: Path) -> None:
    db_path = study_database(tmp_path, pair_study(), pair_design())
    app = make_app(db_path, reviewer="ana")
    async with drive(app, SIZE) as pilot:
        screen = await compare_screen(pilot)
        await press(pilot, "Y")
        assert app.focused is not None and app.focused.id == "dim-1-task_correctness"
        # Tab skips the rationale nobody asked for: the next key scores the next dimension.
        await press(pilot, "tab")
        assert app.focused is not None and app.focused.id == "dim-1-evidence_discipline"
        await press(pilot, "2")
        row = screen.query_one("#dim-1-evidence_discipline")
        assert getattr(row, "value", None) == "2"
        assert screen.query_one("#rationale-1-evidence_discipline", Input).value == ""
        # A score below 2 asks for its rationale: there Tab stops, and typing is text.
        await press(pilot, "shift+tab", "shift+tab")
        assert app.focused is not None and app.focused.id == "dim-1-task_correctness"
        await press(pilot, "1")
        assert app.focused is not None and app.focused.id == "rationale-1-task_correctness"
        await type_text(pilot, "2 gaps")
        assert screen.query_one("#rationale-1-task_correctness", Input).value == "2 gaps"


def test_the_result_line_counts_fatal_hits_in_words() -> None:
    scoring = ResponseScoring("1", AFP_V01)
    one = ResponseJudgment(fatal_hits=("A",))
    two = ResponseJudgment(fatal_hits=("A", "B"))
    assert "(1 fatal hit)" in scoring.result_text(one).plain
    assert "(2 fatal hits)" in scoring.result_text(two).plain


async def test_at_80x24_the_form_gives_its_fields_the_room_and_its_labels_whole(
    tmp_path: Path,
) -> None:
    """At 80x24 the fields had about three lines between the explanation, a warning and the
    buttons (inputs drawn as bare borders) and their labels were cut ("Seed (fresh; keep it to
    repr"); now the explanation and the warning scroll with the fields and the labels wrap."""
    lines: list[dict[str, object]] = [{"type": "study", "id": "s"}]
    for c in "ABC":  # all pairs of three conditions: items share runs, one reviewer is warned
        lines.append({"type": "run", "id": f"T1-{c}", "task_id": "T1", "condition_id": c})
    db_path = tmp_path / "h.db"
    db = connect(db_path)
    import_paths(db, [write_jsonl(tmp_path / "s.jsonl", lines)])
    db.close()
    app = make_app(db_path, reviewer="ann")
    async with drive(app, (80, 24)) as pilot:
        form = await _open_form(pilot)
        assert "1 reviewer is too few" in screen_text(pilot)
        fields = form.query_one(".design-fields")
        assert fields.scrollable_content_region.height >= 14
        name = form.query_one("#design-name", Input)
        assert name.region.height == 3 and fields.region.contains_region(name.region)
        text = screen_text(pilot)
        assert "Seed (fresh; keep it to" in text and "reproduce" in text and "the plan)" in text
        await press(pilot, "tab", "tab", "tab", "tab")  # the pairs: scrolled into view
        assert app.focused is form.query_one("#design-pairs", Input)
        assert fields.region.contains_region(form.query_one("#design-pairs", Input).region)
