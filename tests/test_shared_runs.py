"""Items that share a run (a baseline compared with several conditions): no reviewer gets two
of them when the reviewers are enough; otherwise the design warns and the bundle says so."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path

import pytest
import sqlite_utils
from hypothesis import given, settings
from hypothesis import strategies as st
from textual.widgets import Input, Static

from abp_tui.analysis.blinding import PlanRun, assign, item_runs, plan_items
from abp_tui.analysis.shared_runs import SHARED_RUNS_KEY, expected_group, exposed_reviewers
from abp_tui.export import records as rec
from abp_tui.export import verify
from abp_tui.export.bundle import read_bundle
from abp_tui.models import Judgment, PreferenceChoice, StudyDesign
from abp_tui.models.design import StudyDesign as Design
from abp_tui.services.designing import choices_warning, create_design
from abp_tui.services.importing import import_paths
from abp_tui.services.publishing import export_bundle, export_protocol_bundle
from abp_tui.services.results_report import unblind
from abp_tui.services.reviewing import ReviewSession
from abp_tui.store import connect
from abp_tui.store import judging as sql
from abp_tui.tui.app import make_app
from abp_tui.tui.screens.newdesign import NewDesignScreen
from tests.factories import Cli, write_jsonl
from tests.tui_helpers import drive, press, settle, until

SECRET = "shared runs test secret"
CONDITIONS = "ABCDE"


def _runs(tasks: int, conditions: str = CONDITIONS, trials: int = 1) -> list[PlanRun]:
    out: list[PlanRun] = []
    for t in range(tasks):
        for c in conditions:
            for trial in range(1, trials + 1):
                out.append(PlanRun(len(out) + 1, f"run-{t}-{c}-{trial}", f"T{t:02}", c, trial))
    return out


def _baseline(others: int, **kw: object) -> Design:
    """A design comparing ``others`` conditions with baseline A."""
    contrasts = [(c, "A") for c in CONDITIONS[1 : others + 1]]
    return Design.model_validate({"study": "s", "name": "d", "contrasts": contrasts, **kw})


def _exposed(design: Design, runs: list[PlanRun], apart_runs: bool) -> list[str]:
    items = plan_items(design, runs, SECRET, apart_runs)
    assignments = assign(design, items, SECRET, apart_runs)
    return exposed_reviewers(
        ((i.key, item_runs(i)) for i in items), ((a.reviewer, a.item_key) for a in assignments)
    )


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(min_value=0, max_value=2**32),
    others=st.integers(min_value=2, max_value=4),
    per_item=st.integers(min_value=1, max_value=2),
    spare=st.integers(min_value=0, max_value=3),
    tasks=st.integers(min_value=1, max_value=9),
    trials=st.integers(min_value=1, max_value=2),
)
def test_enough_reviewers_never_see_a_shared_run_twice(
    seed: int, others: int, per_item: int, spare: int, tasks: int, trials: int
) -> None:
    reviewers = [f"r{n}" for n in range(others * per_item + spare)]
    design = _baseline(others, seed=seed, reviewers=reviewers, reviewers_per_item=per_item)
    runs = _runs(tasks, trials=trials)
    assert _exposed(design, runs, apart_runs=True) == []
    # Workload stays balanced and each item keeps its k distinct reviewers.
    items = plan_items(design, runs, SECRET, True)
    assignments = assign(design, items, SECRET, True)
    load = Counter(a.reviewer for a in assignments)
    assert sum(load.values()) == per_item * len(items)
    assert max(load.values()) - min(load.get(r, 0) for r in reviewers) <= 1
    per_key: dict[str, set[str]] = defaultdict(set)
    for a in assignments:
        per_key[a.item_key].add(a.reviewer)
    assert all(len(v) == per_item for v in per_key.values())


def test_the_plan_before_the_rule_showed_the_baseline_three_times() -> None:
    # The reproduction: B:A, C:A, D:A judged by three reviewers; planned as before, reviewers
    # get several items showing A's same output.
    design = _baseline(3, seed=11, reviewers=["x", "y", "z"])
    assert _exposed(design, _runs(30), apart_runs=False) != []
    assert _exposed(design, _runs(30), apart_runs=True) == []


def test_placement_stays_counterbalanced_with_shared_runs_apart() -> None:
    design = _baseline(2, seed=5, reviewers=["a", "b", "c", "d"], reviewers_per_item=2)
    items = plan_items(design, _runs(12, trials=2), SECRET, True)
    by_key = {i.key: i for i in items}
    assignments = assign(design, items, SECRET, True)
    per_item: dict[str, list[bool]] = defaultdict(list)
    for a in assignments:
        per_item[a.item_key].append(a.flipped)
    # The two reviewers of a pair see it in opposite orders.
    assert all(sorted(v) == [False, True] for v in per_item.values())
    # Each reviewer sees each condition of a contrast first on half their items of it.
    first: Counter[tuple[str, tuple[str, str] | None, str]] = Counter()
    for a in assignments:
        item = by_key[a.item_key]
        shown = item.run_b if a.flipped else item.run_a
        assert shown is not None
        first[(a.reviewer, item.contrast, shown.condition_id)] += 1
    for reviewer in "abcd":
        for contrast in (("B", "A"), ("C", "A")):
            one, other = (first[(reviewer, contrast, c)] for c in contrast)
            assert one + other > 0 and abs(one - other) <= 1


def test_designs_without_shared_runs_plan_as_before() -> None:
    # Disjoint contrasts share nothing: laying shared runs apart changes nothing (the demo's
    # designs keep their plans and hashes).
    design = Design.model_validate(
        {"study": "s", "name": "d", "seed": 3, "contrasts": [("C", "A"), ("D", "B")]}
        | {"reviewers": ["a", "b"], "reviewers_per_item": 2}
    )
    runs = _runs(8)
    old = plan_items(design, runs, SECRET, False)
    assert plan_items(design, runs, SECRET, True) == old
    assert assign(design, old, SECRET, True) == assign(design, old, SECRET, False)


# -- the design, stored ------------------------------------------------------------------------
def _study_file(tmp_path: Path, tasks: int = 4) -> Path:
    """Study ``s``: conditions A to D, one run of each on each task."""
    lines: list[dict[str, object]] = [{"type": "study", "id": "s"}]
    lines += [{"type": "condition", "id": c, "label": f"Condition {c}"} for c in "ABCD"]
    for t in range(tasks):
        task = f"T{t:02}"
        lines.append({"type": "task", "id": task, "prompt": f"Task {task}"})
        lines += [
            {
                "type": "run",
                "id": f"{task}-{c}",
                "task_id": task,
                "condition_id": c,
                "output": f"Answer {task} {c}.",
            }
            for c in "ABCD"
        ]
    return write_jsonl(tmp_path / "s.jsonl", lines)


def _study(tmp_path: Path, db: sqlite_utils.Database) -> None:
    import_paths(db, [_study_file(tmp_path)])


def _reviewers(db: sqlite_utils.Database, pk: int) -> list[str]:
    listed: list[str] = sql.design(db, pk).document["reviewers"]
    return listed


def _stored_exposure(db: sqlite_utils.Database, pk: int) -> list[str]:
    items = sql.items(db, pk)
    return exposed_reviewers(
        ((i.code, i.runs) for i in items),
        ((r, q.code) for r in _reviewers(db, pk) for q in ReviewSession(db, pk, r).queue()),
    )


def test_a_design_with_enough_reviewers_gives_each_one_item_per_shared_run(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    _study(tmp_path, db)
    design = StudyDesign.model_validate(
        {
            "study": "s",
            "name": "baseline",
            "seed": 4,
            "contrasts": [("B", "A"), ("C", "A"), ("D", "A")],
            "reviewers": ["x", "y", "z"],
            "limitations": ["Three reviewers."],
        }
    )
    created = create_design(db, design)
    assert created.warnings == ()
    row = sql.design(db, created.pk)
    assert row.document[SHARED_RUNS_KEY] is True
    assert _stored_exposure(db, created.pk) == []
    # Planning it again finds it unchanged.
    assert create_design(db, design).status == "unchanged"


def test_too_few_reviewers_is_warned_at_design_time(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    _study(tmp_path, db)
    base = {"study": "s", "seed": 4, "contrasts": [("B", "A"), ("C", "A"), ("D", "A")]}
    base["limitations"] = ["Shared runs."]
    two = create_design(
        db, StudyDesign.model_validate({**base, "name": "two", "reviewers": ["x", "y"]})
    )
    (warning,) = two.warnings
    assert "up to 3 items of one task show the same output" in warning
    assert "2 of 2 reviewers judge more than one of them" in warning
    assert "list at least 3 reviewers" in warning
    assert SHARED_RUNS_KEY not in sql.design(db, two.pk).document
    opened = create_design(db, StudyDesign.model_validate({**base, "name": "open"}))
    assert any("every reviewer of an open design judges every item" in w for w in opened.warnings)


def test_the_cli_prints_the_warning(tmp_path: Path, cli: Cli) -> None:
    assert cli("import", _study_file(tmp_path)).code == 0
    db = cli.db_path
    result = cli("study", "create", "--db", db, "--study", "s", "--pairs", "B:A, C:A, D:A")
    assert result.code == 0
    assert "warning: items share runs (up to 3 items of one task" in result.out
    result = cli(
        "study",
        "create",
        "--db",
        db,
        "--study",
        "s",
        "--name",
        "three",
        "--pairs",
        "B:A, C:A, D:A",
        "--reviewers",
        "x, y, z",
        "--reviewers-per-item",
        "1",
        "--limitation",
        "One reviewer an item.",
    )
    assert result.code == 0 and "warning" not in result.out


def test_a_design_stored_before_the_rule_keeps_its_plan(
    tmp_path: Path, db: sqlite_utils.Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    _study(tmp_path, db)
    design = StudyDesign.model_validate(
        {
            "study": "s",
            "name": "baseline",
            "seed": 4,
            "contrasts": [("B", "A"), ("C", "A"), ("D", "A")],
            "reviewers": ["x", "y", "z"],
        }
    )
    # As the plan was made before the rule: shared runs never laid apart.
    with monkeypatch.context() as m:
        m.setattr("abp_tui.analysis.blinding.keeps_apart", lambda *_: False)
        m.setattr("abp_tui.services.designing.keeps_apart", lambda *_: False)
        before = create_design(db, design)
    queues = {r: ReviewSession(db, before.pk, r).queue() for r in "xyz"}
    assert _stored_exposure(db, before.pk) != []  # the reproduction: the baseline repeats
    again = create_design(db, design)
    assert (again.status, again.sha256) == ("unchanged", before.sha256)
    assert {r: ReviewSession(db, before.pk, r).queue() for r in "xyz"} == queues
    # A change replans it with the rule.
    changed = create_design(db, design.model_copy(update={"reviewers": ["x", "y", "z", "w"]}))
    assert changed.status == "replaced"
    assert sql.design(db, changed.pk).document[SHARED_RUNS_KEY] is True


def _judge_everything(db: sqlite_utils.Database, pk: int) -> None:
    for reviewer in _reviewers(db, pk):
        session = ReviewSession(db, pk, reviewer)
        for row in session.queue():
            judgment = Judgment(preference=PreferenceChoice.RESPONSE_1, justification="Read.")
            session.save(row.code, judgment, 5, submit=True)


def test_the_bundle_verifies_a_plan_laid_apart_and_states_exposure(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    _study(tmp_path, db)
    base = {"study": "s", "seed": 4, "contrasts": [("B", "A"), ("C", "A"), ("D", "A")]}
    apart = create_design(
        db, StudyDesign.model_validate({**base, "name": "apart", "reviewers": ["x", "y", "z"]})
    ).pk
    few = create_design(
        db, StudyDesign.model_validate({**base, "name": "few", "reviewers": ["x", "y"]})
    ).pk
    # The protocol published before judging carries the layout in the design's document.
    protocol = export_protocol_bundle(db, apart, tmp_path / "protocol").zip_path
    verify(protocol)
    announced = json.loads(read_bundle(protocol)[rec.DESIGN])["document"]
    assert announced[SHARED_RUNS_KEY] is True
    _judge_everything(db, apart)
    _judge_everything(db, few)
    unblind(db, "s", "lead")
    limitations = {}
    for pk, name in ((apart, "apart"), (few, "few")):
        path = export_bundle(db, pk, tmp_path / name).zip_path
        verify(path)  # the placement a judgment records is the one the plan secret gives
        files = read_bundle(path)
        design = json.loads(files[rec.DESIGN])
        assert (design["document"].get(SHARED_RUNS_KEY) is True) == (name == "apart")
        stated = json.loads(files["results/limitations.json"])
        limitations[name] = [x["text"] for x in stated if "showing the same run" in x["text"]]
    assert limitations["apart"] == []
    assert limitations["few"] == [
        "2 of 2 reviewers judged more than one item showing the same run (e.g. a baseline "
        "compared with several conditions): the repeated text told them which output was the "
        "shared one, so for those items they were not blind to it."
    ]


# -- before planning: the new-design form's preview ------------------------------------------------
def test_the_choices_tell_how_many_items_share_a_run() -> None:
    assert expected_group([("B", "A"), ("C", "A"), ("D", "A")]) == 3
    assert expected_group([("C", "A"), ("D", "B")]) == 1
    assert expected_group([("A", "B"), ("A", "C"), ("B", "C")]) == 3  # all pairs of three
    assert expected_group([("C", "A")], single_items=True) == 3  # the pair and both singles
    assert expected_group([], single_items=True) == 1
    baseline = "B:A, C:A, D:A"
    assert choices_warning(baseline, list("ABCD"), "x, y, z", 1) is None
    few = choices_warning(baseline, list("ABCD"), "x, y, z", 2)
    assert few is not None and "3 reviewers are too few" in few and "at least 6" in few
    alone = choices_warning(baseline, list("ABCD"), "x", 1)
    assert alone is not None and "and 1 reviewer is too few:" in alone
    assert "open design" in (choices_warning(baseline, list("ABCD"), "", 1) or "")
    assert choices_warning("C:A, D:B", list("ABCD"), "", 1) is None
    assert choices_warning("all", list("ABC"), "x, y", 1) is not None
    assert choices_warning("B:Z", list("ABCD"), "", 1) is None  # refused at creation instead


async def test_the_form_previews_the_warning_while_it_is_filled_in(tmp_path: Path) -> None:
    db_path = tmp_path / "h.db"
    db = connect(db_path)
    import_paths(db, [_study_file(tmp_path)])
    db.close()
    app = make_app(db_path, reviewer="ann")
    async with drive(app, (120, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "n")
        await until(pilot, lambda: isinstance(app.screen, NewDesignScreen), "the form")
        await settle(pilot)
        form = app.screen
        shared = form.query_one("#design-shared", Static)
        # All pairs of A to D, judged by ann alone: six items of a task share runs.
        assert "up to 6 items of one task show the same output" in str(shared.render())
        form.query_one("#design-pairs", Input).value = "B:A, C:A, D:A"
        form.query_one("#design-reviewers", Input).value = "x, y"
        await settle(pilot)
        assert "2 reviewers are too few" in str(shared.render())
        form.query_one("#design-reviewers", Input).value = "x, y, z"
        await settle(pilot)
        assert str(shared.render()) == ""


def test_a_design_that_declares_no_limitation_is_warned_before_anyone_judges(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    """Followed as the tour shows it, a design without a limitation cannot publish its results,
    and once judged only a new version can take one: the warning comes at creation."""
    _study(tmp_path, db)
    base = {"study": "s", "seed": 4, "contrasts": [("B", "A")], "reviewers": ["x", "y", "z"]}
    bare = create_design(db, StudyDesign.model_validate({**base, "name": "bare"}))
    (warning,) = bare.warnings
    assert warning.startswith("no limitation declared: its publication bundle publishes")
    assert "--limitation TEXT" in warning and "before anyone judges" in warning
    said = {**base, "name": "said", "limitations": ["One pair."]}
    assert create_design(db, StudyDesign.model_validate(said)).warnings == ()
