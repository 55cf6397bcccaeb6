"""Seed 002 (business-domain evaluation protocol): inputs kept, the rubric and its acceptance rule,
the blind A/B comparison, second reviewers and agreement, findings, what a report states.

Each test is one row of CONFORMANCE.md. The finished demo study ``business-memo-demo`` (two
reviewers, disagreements, unblinded) is the study a reader of the protocol would open.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any, get_args

import pytest
import sqlite_utils
from pydantic import ValidationError

from abp_tui.analysis.scoring import result_state
from abp_tui.errors import AbpError
from abp_tui.models import (
    Finding,
    Judgment,
    PreferenceChoice,
    ResponseJudgment,
    ResultState,
    StudyDesign,
)
from abp_tui.models.builtin_rubrics import BUSINESS_V1
from abp_tui.services.demo import load_demo
from abp_tui.services.designing import create_design, find_design
from abp_tui.services.importing import import_paths
from abp_tui.services.publishing import export_bundle
from abp_tui.services.reviewing import NotReady, ReviewSession
from tests.conformance.rules_helpers import read_json, read_jsonl
from tests.factories import (
    BUSINESS_DIMS,
    DEMO,
    GATE,
    Cli,
    abp_judged,
    afp_judged,
    afp_study,
    write_jsonl,
)

BUSINESS = "business-memo-demo"


def _json(cli: Cli, *args: str) -> Any:
    result = cli(*args, "--json")
    assert result.code == 0, result.err
    return json.loads(result.out)


@pytest.fixture
def demo_cli(cli: Cli) -> Cli:
    assert cli("demo").code == 0
    return cli


@pytest.fixture
def business_bundle(tmp_path: Path, db: sqlite_utils.Database) -> Path:
    load_demo(db, DEMO)
    return export_bundle(db, find_design(db, BUSINESS).pk, tmp_path / "memo").folder


def _scores(**low: int) -> dict[str, int]:
    return {d: low.get(d, 2) for d in BUSINESS_DIMS}


# -- section 1, define the task and preserve the inputs ---------------------------------------
def test_the_task_statement_sources_and_expected_artifact_are_kept(business_bundle: Path) -> None:
    tasks = read_json(business_bundle / "protocol/tasks.json")
    assert len(tasks) == 8
    assert all(t["prompt"].strip() and t["expected_behaviour"].strip() for t in tasks)
    assert any(t["evidence"].strip() for t in tasks)


def test_inputs_and_outputs_are_kept_with_their_hashes(business_bundle: Path) -> None:
    manifest = read_json(business_bundle / "manifest.json")
    listed = {e["path"]: e["sha256"] for e in manifest["files"]}
    assert "protocol/tasks.json" in listed
    for run in read_jsonl(business_bundle / "runs/runs.jsonl"):
        assert listed[run["output"]["path"]] == run["output"]["sha256"]
        assert run["record"]["source_file"], "where the record came from is kept"


def test_unavailable_information_is_recorded_as_not_exposed(cli: Cli, tmp_path: Path) -> None:
    lines: list[dict[str, object]] = [
        {"type": "task", "id": "t1", "prompt": "Summarise the memo."},
        {"type": "run", "id": "r1", "task_id": "t1", "condition_id": "A", "output": "ok",
         "not_exposed": ["cost_usd", "model"]},
        {"type": "run", "id": "r2", "task_id": "t1", "condition_id": "B", "output": "ok"},
    ]  # fmt: skip
    assert cli("import", write_jsonl(tmp_path / "s.jsonl", lines)).code == 0
    db = sqlite_utils.Database(cli.db_path)
    rows = dict(db.execute("SELECT id, not_exposed FROM runs").fetchall())
    assert set(json.loads(rows["r1"])) == {"cost_usd", "model"}
    assert json.loads(rows["r2"]) == []  # merely missing, not "not exposed"


def test_actual_outputs_and_tool_traces_are_retained(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    bundle = export_bundle(db, abp_judged(db), tmp_path / "abp").folder
    runs = read_jsonl(bundle / "runs/runs.jsonl")
    assert len(runs) == 24
    for run in runs:
        assert run["trace"] is not None
        events = read_jsonl(bundle / run["trace"]["path"])
        assert events and any(e.get("kind") == "tool.call" for e in events)


# -- section 2, score against the work -------------------------------------------------------
def test_five_dimensions_scored_zero_to_two_with_the_seeds_anchors() -> None:
    assert [d.name for d in BUSINESS_V1.dimensions] == [
        "Source fidelity",
        "Instruction adherence",
        "Task usefulness",
        "Audience and style",
        "Uncertainty",
    ]
    anchors = {d.id: d.anchors for d in BUSINESS_V1.dimensions}
    assert anchors["source_fidelity"][0] == "Material invention or contradiction"
    assert anchors["uncertainty"][2] == "Known, inferred and untested distinguished"
    assert all(d.scale == (0, 1, 2) for d in BUSINESS_V1.dimensions)


@pytest.mark.parametrize(
    ("scores", "state"),
    [
        (_scores(task_usefulness=1, audience_style=1), ResultState.MODEL_PASS),  # 8/10
        (_scores(task_usefulness=1, audience_style=1, uncertainty=1), ResultState.MODEL_FAIL),
        (_scores(source_fidelity=1), ResultState.MODEL_FAIL),  # 9/10, fidelity not 2
        (_scores(instruction_adherence=1), ResultState.MODEL_FAIL),
    ],
)
def test_acceptance_needs_fidelity_and_adherence_two_and_eight_of_ten(
    scores: dict[str, int], state: ResultState
) -> None:
    assert result_state(BUSINESS_V1, ResponseJudgment(scores=scores)) == state


def test_dimension_scores_are_reported_beside_totals(demo_cli: Cli) -> None:
    results = _json(demo_cli, "results", "--study", BUSINESS)
    for group in results["conditions"]:
        assert set(group["dimensions"]) == set(BUSINESS_DIMS)
        assert all(
            sum(d.values()) == group["dimension_n"][k] for k, d in group["dimensions"].items()
        )
        assert group["acceptance"]["n"] == group["dimension_n"]["source_fidelity"]


def test_a_critical_failure_fails_whatever_the_fluency() -> None:
    kinds = ["unauthorized external action", "protected passage", "fabricated evidence"]
    kinds.append("deployment")
    assert len(BUSINESS_V1.fatal_criteria) == 4
    for kind, criterion in zip(kinds, BUSINESS_V1.fatal_criteria, strict=True):
        assert kind in criterion.lower()
    hit = ResponseJudgment(scores=_scores(), fatal_hits=(BUSINESS_V1.fatal_criteria[1],))
    assert result_state(BUSINESS_V1, hit) == ResultState.MODEL_FAIL


# -- section 3, compare alternatives without model labels ------------------------------------
def test_presentation_order_is_randomised_and_balanced(db: sqlite_utils.Database) -> None:
    load_demo(db, DEMO)
    design = find_design(db, BUSINESS)
    for reviewer in ("jonas", "noor"):
        queue = ReviewSession(db, design.pk, reviewer).queue()
        flips = Counter(r.flipped for r in queue if r.kind == "pair")
        assert abs(flips[True] - flips[False]) <= 1, (reviewer, flips)


def test_a_tie_and_insufficient_evidence_are_allowed(db: sqlite_utils.Database) -> None:
    assert {c.value for c in PreferenceChoice} == {
        "response_1",
        "response_2",
        "tie",
        "insufficient_evidence",
    }
    load_demo(db, DEMO)
    session = ReviewSession(db, find_design(db, "abp-demo").pk, "demo")
    codes = [r.code for r in session.queue() if r.kind == "pair"][:2]
    response = ResponseJudgment(scores=_scores())
    for code, choice in zip(
        codes, (PreferenceChoice.TIE, PreferenceChoice.INSUFFICIENT), strict=True
    ):
        judgment = Judgment(
            responses={"1": response, "2": response},
            preference=choice,
            justification="Neither excerpt settles it.",
            validity=GATE,
        )
        assert session.save(code, judgment, 5, submit=True).status == "submitted"


def test_a_preference_needs_a_justification(db: sqlite_utils.Database) -> None:
    load_demo(db, DEMO)
    session = ReviewSession(db, find_design(db, "abp-demo").pk, "demo")
    code = next(r.code for r in session.queue() if r.kind == "pair")
    response = ResponseJudgment(scores=_scores())
    bare = Judgment(
        responses={"1": response, "2": response},
        preference=PreferenceChoice.INSUFFICIENT,
        validity=GATE,
    )
    with pytest.raises(NotReady, match="a justification is required"):
        session.save(code, bare, 5, submit=True)


def test_reviewers_compare_without_model_labels(tmp_path: Path, db: sqlite_utils.Database) -> None:
    # Every output of this study names its condition ("Governed Workflow"); the runs name
    # their model and provider.
    afp_study(tmp_path, db, extra_output="Written by acme/demo-model-9.")
    design = create_design(db, StudyDesign(study="s", name="m", seed=3, contrasts=[("C", "A")]))
    session = ReviewSession(db, design.pk, "alice")
    for row in session.queue():
        item = session.open(row.code)
        shown = " ".join(r.text for r in item.responses) + item.code
        for label in ("Governed Workflow", "demo-model-9", "acme", "Model Only"):
            assert label not in shown, (row.code, label)


def test_a_second_reviewers_disagreement_is_kept_before_adjudication(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    bundle = export_bundle(db, afp_judged(db), tmp_path / "afp").folder
    (adjudication,) = read_jsonl(bundle / "judging/adjudications.jsonl")
    originals = [
        j
        for j in read_jsonl(bundle / "judging/judgments.jsonl")
        if j["item"] == adjudication["item"]
    ]
    assert {j["reviewer"] for j in originals} == {"demo", "second-reviewer"}


def test_agreement_is_reported_with_its_denominators(demo_cli: Cli) -> None:
    report = _json(demo_cli, "agreement", "--study", BUSINESS)
    for variable in report["variables"]:
        assert variable["n_items"] > 0 and variable["n_reviewers"] == 2
        assert variable["n_judgments"] >= variable["n_items_judged"]
        assert variable["percent_agreement"]["n_items"] is not None


def test_ai_critique_never_counts_as_a_human_rating(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    lines: list[dict[str, object]] = [
        {"type": "study", "id": "b"},
        {"type": "judge", "id": "critic", "model": "critic-model"},
        {"type": "task", "id": "t1", "prompt": "Summarise."},
        {"type": "run", "id": "t1-A", "task_id": "t1", "condition_id": "A", "output": "a"},
        {"type": "run", "id": "t1-B", "task_id": "t1", "condition_id": "B", "output": "b"},
    ]
    import_paths(db, [write_jsonl(tmp_path / "b.jsonl", lines)])
    with pytest.raises((AbpError, Exception), match="AI judge is never a reviewer"):
        create_design(
            db, StudyDesign(study="b", name="d", seed=1, rubric="none", reviewers=["critic"])
        )


# -- section 5, retain each output and the final adjudication --------------------------------
def test_each_output_and_final_adjudication_is_retained(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    bundle = export_bundle(db, afp_judged(db), tmp_path / "afp").folder
    runs = read_jsonl(bundle / "runs/runs.jsonl")
    assert all((bundle / r["output"]["path"]).is_file() for r in runs if r["output"])
    verdicts = read_jsonl(bundle / "results/verdicts.jsonl")
    adjudicated = [v for v in verdicts if v["source"] == "adjudicated"]
    assert adjudicated and all(v["adjudication"]["note"] for v in adjudicated)


# -- section 6, record and retest ------------------------------------------------------------
def test_a_finding_records_what_the_seed_lists(tmp_path: Path, db: sqlite_utils.Database) -> None:
    fields = set(Finding.model_fields)
    assert fields >= {
        "id", "environment", "steps", "expected", "actual", "evidence", "severity",
        "occurrences", "layer", "mitigation", "retest_status",
    }  # fmt: skip
    with pytest.raises(ValidationError):
        Finding.model_validate({"id": "F-1", "title": "t", "layer": "model"})  # no severity
    bundle = export_bundle(db, afp_judged(db), tmp_path / "afp").folder
    (finding,) = read_jsonl(bundle / "judging/findings.jsonl")
    assert finding["finding"]["id"] == "F-001" and finding["finding"]["severity"] == "high"


def test_model_failures_are_told_apart_from_other_layers() -> None:
    layers = set(get_args(Finding.model_fields["layer"].annotation))
    assert layers == {"model", "retrieval", "tool", "interface", "grader"}
    with pytest.raises(ValidationError, match="layer"):
        Finding.model_validate({"id": "F-2", "title": "t", "severity": "low", "layer": "network"})


def test_successes_and_critical_failures_are_reported_as_x_of_n(demo_cli: Cli) -> None:
    results = _json(demo_cli, "results", "--study", BUSINESS)
    for group in results["conditions"] + results["by_task"]:
        for figure in ("acceptance", "fatal_failures"):
            x, n = group[figure]["x"], group[figure]["n"]
            assert isinstance(x, int) and isinstance(n, int) and 0 <= x <= n
    text = demo_cli("results", "--study", BUSINESS).out
    a = results["conditions"][0]
    assert f"{a['acceptance']['x']}/{a['acceptance']['n']}" in text


def _measured(cli: Cli, tmp_path: Path, clocks: dict[str, list[float | None]]) -> Any:
    """Results of a generated study whose runs carry wall clock and cost (None: not recorded)."""
    lines: list[dict[str, object]] = [{"type": "task", "id": "t1", "prompt": "Fix it."}]
    for c, values in clocks.items():
        for k, value in enumerate(values, start=1):
            run: dict[str, object] = {
                "type": "run", "id": f"{c}{k}", "task_id": "t1", "condition_id": c, "trial": k,
                "output": "done", "automated_outcome": "passed",
            }  # fmt: skip
            if value is not None:
                run["wall_clock_ms"] = value
                run["cost_usd"] = value / 1000
            lines.append(run)
    assert cli("import", write_jsonl(tmp_path / "m.jsonl", lines)).code == 0
    assert cli("unblind", "--study", "m", "--yes").code == 0
    (comparison,) = _json(cli, "results", "--study", "m")["comparisons"]
    return comparison


def _by_condition(comparison: Any, metric: str, field: str) -> dict[str, Any]:
    figure = next(e["difference"] for e in comparison["efficiency"] if e["metric"] == metric)
    return {comparison["a"]: figure[f"{field}_a"], comparison["b"]: figure[f"{field}_b"]}


def test_observed_cost_and_latency_are_reported(cli: Cli, tmp_path: Path) -> None:
    comparison = _measured(cli, tmp_path, {"A": [1000, 2000, 3000], "B": [1500, 2500, 3500]})
    assert _by_condition(comparison, "wall_clock_ms", "median") == {"A": 2000, "B": 2500}
    assert _by_condition(comparison, "cost_usd", "median") == {"A": 2.0, "B": 2.5}


def test_missing_measurements_are_published_as_missing(cli: Cli, tmp_path: Path) -> None:
    comparison = _measured(cli, tmp_path, {"A": [1000, 2000, None], "B": [1500, 2500, 3500]})
    assert _by_condition(comparison, "wall_clock_ms", "missing") == {"A": 1, "B": 0}
    # The median of 1000 and 2000: the run that recorded nothing is not a zero.
    assert _by_condition(comparison, "wall_clock_ms", "median")["A"] == 1500


def test_no_universal_accuracy_score_is_reported(demo_cli: Cli) -> None:
    results = _json(demo_cli, "results", "--study", BUSINESS)
    blended = {"accuracy", "score", "overall", "overall_score", "blended"}
    for group in results["conditions"]:
        assert not blended & set(group)
    assert not blended & set(results)
