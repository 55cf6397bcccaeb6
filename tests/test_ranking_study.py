"""Rankings of stored studies: PandaLM's annotators against evalica, the command end to end
(labels, an AI judge, a design's verdicts), Kendall's tau between sources, blinding, refusals,
the published schema and the benchmark's missing-dependency message.

PandaLM's test set (WeOpenML/PandaLM, data/testset-v1.json): 999 pairs of five 7B models, each
labelled by three annotators (1: response 1 better, 2: response 2, 0: a tie)."""

from __future__ import annotations

import builtins
import json
import math
from pathlib import Path
from typing import Any

import evalica
import numpy as np
import pytest
import sqlite_utils
from jsonschema import Draft202012Validator
from scipy.stats import kendalltau

from abp_tui.analysis.ranking.fit import A_WON, B_WON, TIE
from abp_tui.analysis.ranking.models import RANKING_SCHEMA_FILE, ranking_json_schema
from abp_tui.errors import AbpError
from abp_tui.export.validation import load_schema
from abp_tui.models import Judgment, PreferenceChoice, StudyDesign
from abp_tui.services.designing import create_design
from abp_tui.services.importing import import_paths
from abp_tui.services.ranking import read_source
from abp_tui.services.results_report import unblind
from abp_tui.services.reviewing import ReviewSession
from abp_tui.stats.ranking import ELO_PER_LOGIT
from tests.factories import Cli, flipped, write_jsonl

MODELS = ("bloom-7b", "cerebras-gpt-6.7B", "llama-7b", "opt-7b", "pythia-6.9b")


def _testset(reference: Path) -> Path:
    return reference / "pandalm" / "testset-v1.json"


def _label_counts(testset: Path) -> dict[tuple[str, str], list[int]]:
    """(model 1, model 2) -> [response 1 won, response 2 won, ties] over every annotator."""
    out: dict[tuple[str, str], list[int]] = {}
    for item in json.loads(testset.read_text("utf-8")):
        pair = tuple(item["cmp_key"].split("_", 1))
        counts = out.setdefault((pair[0], pair[1]), [0, 0, 0])
        for k in (1, 2, 3):
            counts[{1: 0, 2: 1, 0: 2}[item[f"annotator{k}"]]] += 1
    return out


def test_pandalm_annotators_ranked_as_evalica_ranks_them(
    reference: Path, db: sqlite_utils.Database
) -> None:
    testset = _testset(reference)
    import_paths(db, [testset])
    found = read_source(db, "pandalm-testset-v1", "labels")
    votes = found.votes
    assert votes.systems == MODELS
    assert (len(votes), len(votes.tasks)) == (2997, 999)
    # Every annotator's vote, read from the file itself, is in the votes.
    expected = _label_counts(testset)
    for (m1, m2), counts in expected.items():
        mask = (np.array(votes.systems)[votes.a] == m1) & (np.array(votes.systems)[votes.b] == m2)
        got = [int((mask & (votes.outcome == o)).sum()) for o in (A_WON, B_WON, TIE)]
        assert got == counts, (m1, m2)
    winner = {A_WON: evalica.Winner.X, B_WON: evalica.Winner.Y, TIE: evalica.Winner.Draw}
    theirs = evalica.bradley_terry(
        [votes.systems[i] for i in votes.a.tolist()],
        [votes.systems[i] for i in votes.b.tolist()],
        [winner[o] for o in votes.outcome.tolist()],
        tolerance=1e-12,
        limit=100_000,
    )
    logits = np.log(theirs.scores.reindex(list(MODELS)).to_numpy(dtype=float))
    elo = 1000 + ELO_PER_LOGIT * (logits - logits.mean())
    unblind(db, "pandalm-testset-v1", "coordinator")
    from abp_tui.services.ranking import ranking_report

    report = ranking_report(db, source="labels", resamples=200, seed=1)
    scores = {s.condition: s.score for s in report.systems}
    for model, score in zip(MODELS, elo.tolist(), strict=True):
        assert scores[model] == pytest.approx(score, abs=1e-6)
    assert report.systems[0].condition == "llama-7b"
    assert report.excluded == []


def test_the_command_ranks_an_imported_pandalm_study(reference: Path, cli: Cli) -> None:
    assert cli("import", _testset(reference)).code == 0
    blind = cli("ranking")
    assert blind.code == 1 and "still blind" in blind.err and blind.err.count("\n") == 1
    assert cli("unblind", "--yes").code == 0
    out = cli("ranking", "--json", "--resamples", "300", "--seed", "4")
    assert out.code == 0, out.err
    document = json.loads(out.out)
    Draft202012Validator(load_schema(RANKING_SCHEMA_FILE)).validate(document)
    assert document["schema"] == "abp-tui-ranking/v1"
    assert document["source"] == "labels" and document["comparisons"] == 2997
    assert document["tasks"] == 999 and document["resampled"].startswith("tasks")
    assert "half a win" in document["ties"]
    systems = document["systems"]
    assert {s["condition"] for s in systems} == set(MODELS)
    assert [s["rank"] for s in systems] == sorted(s["rank"] for s in systems)
    for s in systems:
        low, high = s["interval"]
        assert low < s["score"] < high
        assert s["rank_interval"][0] <= s["rank"] <= s["rank_interval"][1]
    assert sum(s["wins"] + s["losses"] + s["ties"] for s in systems) == 2 * 2997
    assert len(document["pairwise"]) == 10
    bias = document["length_bias"]
    assert bias["decisive_votes"] > 0 and bias["test"]["p_value"] is not None
    assert all(s["length_controlled_score"] is not None for s in systems)
    # Plain text: the same figures, and the conventions named.
    text = cli("ranking", "--resamples", "300", "--seed", "4")
    assert text.code == 0
    assert "Ties: a tie counts as half a win" in text.out
    assert "llama-7b" in text.out and "Length bias" in text.out
    for s in systems:
        assert f"{s['score']:.1f}" in text.out
    anchored = json.loads(
        cli("ranking", "--json", "--resamples", "0", "--anchor", "opt-7b=1200").out
    )
    opt = next(s for s in anchored["systems"] if s["condition"] == "opt-7b")
    assert opt["score"] == 1200.0 and opt["interval"] is None


def _judge_lines(testset: Path, flip_every: int) -> tuple[list[dict[str, Any]], int]:
    """A judge that follows annotator 1 and, on every ``flip_every``-th item, picks whichever
    output is shown first (a pick that changes with the order); returns the lines and how many
    picks changed with the order."""
    lines: list[dict[str, Any]] = [
        {"type": "judge", "id": "j1", "kind": "ai", "model": "synthetic", "prompt": "pair"}
    ]
    changed = 0
    for k, item in enumerate(json.loads(testset.read_text("utf-8"))):
        task = str(item["idx"])
        runs = [f"{task}/1", f"{task}/2"]
        label = item["annotator1"]
        pick = "tie" if label == 0 else runs[label - 1]
        for shown in runs:
            verdict = shown if k % flip_every == 0 else pick
            lines.append(
                {
                    "type": "judge_verdict",
                    "judge": "j1",
                    "kind": "ai",
                    "task_id": task,
                    "runs": runs,
                    "shown_first": shown,
                    "verdict": verdict,
                }
            )
        changed += k % flip_every == 0
    return lines, changed


def test_an_ai_judge_is_ranked_with_order_changes_as_ties_and_tau_against_labels(
    reference: Path, tmp_path: Path, cli: Cli
) -> None:
    testset = _testset(reference)
    assert cli("import", testset, "--study", "panda").code == 0
    lines, changed = _judge_lines(testset, flip_every=4)
    assert cli("import", write_jsonl(tmp_path / "judge.jsonl", lines), "--study", "panda").code == 0
    assert cli("unblind", "--study", "panda", "--yes").code == 0
    out = cli("ranking", "--source", "judge:j1", "--json", "--resamples", "100")
    assert out.code == 0, out.err
    document = json.loads(out.out)
    assert document["source"] == "judge:j1"
    assert "FastChat" in document["ties"]
    assert document["comparisons"] == 999  # one vote per pair: both orders combined
    labelled_ties = sum(
        1
        for k, i in enumerate(json.loads(testset.read_text("utf-8")))
        if i["annotator1"] == 0 and k % 4 != 0
    )
    ties = sum(s["ties"] for s in document["systems"]) // 2
    assert ties == changed + labelled_ties
    # The study holds two sources: Kendall's tau between their rankings.
    labels = json.loads(
        cli("ranking", "--study", "panda", "--source", "labels", "--json", "--resamples", "0").out
    )
    (agreement,) = document["sources"]
    assert (agreement["a"], agreement["b"]) == ("judge:j1", "labels")
    judge_scores = {s["condition"]: s["score"] for s in document["systems"]}
    label_scores = {s["condition"]: s["score"] for s in labels["systems"]}
    expected = kendalltau([judge_scores[m] for m in MODELS], [label_scores[m] for m in MODELS])
    assert agreement["tau"] == pytest.approx(expected.statistic)
    assert agreement["p_value"] == pytest.approx(expected.pvalue)
    assert agreement["systems"] == 5
    unknown = cli("ranking", "--study", "panda", "--source", "judge:nobody")
    assert unknown.code == 1 and "found: judge:j1" in unknown.err


def _prefer(session: ReviewSession, code: str, side: str) -> Judgment:
    if side == "tie":
        return Judgment(preference=PreferenceChoice.TIE, justification="Even.")
    first = (side == "a") != flipped(session, code)
    choice = PreferenceChoice.RESPONSE_1 if first else PreferenceChoice.RESPONSE_2
    return Judgment(preference=choice, justification="Read both.")


def test_a_designs_final_verdicts_are_refused_while_blind_then_ranked(
    reference: Path, db: sqlite_utils.Database
) -> None:
    from abp_tui.services.ranking import ranking_report

    import_paths(db, [_testset(reference)])
    pk = create_design(
        db,
        StudyDesign(
            study="pandalm-testset-v1",
            name="three",
            seed=3,
            tasks=[str(i) for i in range(60)],
            reviewers=["ann"],
        ),
    ).pk
    ann = ReviewSession(db, pk, "ann")
    sides = {}
    for n, row in enumerate(ann.queue()):
        sides[row.code] = ("a", "b", "tie", "a")[n % 4]
        ann.save(row.code, _prefer(ann, row.code, sides[row.code]), 3.0, submit=True)
    with pytest.raises(AbpError, match="still blind"):
        ranking_report(db, source="verdicts")
    unblind(db, "pandalm-testset-v1", "coordinator")
    report = ranking_report(db, source="verdicts", resamples=100, prior=0.5)
    assert report.design == "three v1" and report.source == "verdicts"
    assert report.comparisons == len(sides)
    assert sum(s.ties for s in report.systems) == 2 * list(sides.values()).count("tie")
    # Without a design, there are no final verdicts to rank.
    import_paths(db, [_testset(reference)], study="other")
    unblind(db, "other", "coordinator")
    with pytest.raises(AbpError, match="has no study design"):
        ranking_report(db, "other", source="verdicts")


def test_refusals_are_one_line_with_exit_1(reference: Path, tmp_path: Path, cli: Cli) -> None:
    # Two pairs of systems never compared across: refused, naming the groups.
    rows = []
    for idx, key in enumerate(["m1_m2", "m1_m2", "m3_m4", "m3_m4"]):
        rows.append(
            {
                "idx": idx,
                "instruction": f"Task {idx}.",
                "input": "",
                "response1": f"first {idx}",
                "response2": f"second answer {idx}",
                "cmp_key": key,
                "annotator1": 1 + idx % 2,
            }
        )
    path = tmp_path / "split.json"
    path.write_text(json.dumps(rows), "utf-8")
    assert cli("import", path).code == 0
    assert cli("unblind", "--yes").code == 0
    split = cli("ranking")
    assert split.code == 1 and split.err.count("\n") == 1
    assert "2 groups" in split.err and "{m1, m2}; {m3, m4}" in split.err
    for bad, expected in (
        (["--anchor", "m1"], "expected CONDITION=SCORE"),
        (["--confidence", "1.5"], "strictly between 0 and 1"),
        (["--prior", "-1"], "--prior"),
        (["--source", "people"], "expected verdicts, labels or judge:ID"),
    ):
        result = cli("ranking", *bad)
        assert result.code == 1 and expected in result.err and "Traceback" not in result.err


def test_a_condition_name_cannot_reach_the_terminal_as_an_escape(tmp_path: Path, cli: Cli) -> None:
    rows = [
        {
            "idx": i,
            "instruction": "Task.",
            "input": "",
            "response1": "one",
            "response2": "two words",
            "cmp_key": "good_\x1b[31mred",
            "annotator1": 1 + i % 3 % 2,
        }
        for i in range(6)
    ]
    path = tmp_path / "esc.json"
    path.write_text(json.dumps(rows), "utf-8")
    assert cli("import", path).code == 0
    assert cli("unblind", "--yes").code == 0
    out = cli("ranking", "--resamples", "100")
    assert out.code == 0, out.err
    assert "\x1b" not in out.out and "good" in out.out


def test_the_published_schema_is_the_models() -> None:
    assert load_schema(RANKING_SCHEMA_FILE) == json.loads(json.dumps(ranking_json_schema()))


def test_bench_ranking_says_when_evalica_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    from abp_tui.bench.ranking import bench_ranking

    real = builtins.__import__

    def without_evalica(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "evalica":
            raise ImportError("No module named 'evalica'")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", without_evalica)
    with pytest.raises(AbpError, match="evalica package, which is not installed"):
        bench_ranking(votes=10, tasks=5, systems=2, repeat=1)


def test_bench_ranking_reports_both_ratios_on_a_small_run() -> None:
    from abp_tui.bench.ranking import bench_ranking

    document = bench_ranking(votes=2000, tasks=500, systems=5, repeat=1, evalica_resamples=2)
    assert document["votes"] == 2000 and document["tasks"] == 500
    point, intervals = document["point_fit"], document["intervals"]
    assert point["largest_score_difference_elo"] < 0.01  # the same fit as evalica's
    assert point["ours_seconds"] > 0 and point["baseline_seconds"] > 0
    assert intervals["speedup"] is not None and intervals["baseline_seconds"] > 0
    assert math.isfinite(document["command_seconds"])


def test_a_disputed_item_is_held_back_until_adjudicated_then_counts_once(
    reference: Path, db: sqlite_utils.Database
) -> None:
    from abp_tui.services.adjudicating import adjudicate
    from abp_tui.services.ranking import ranking_report

    import_paths(db, [_testset(reference)])
    pk = create_design(
        db,
        StudyDesign(
            study="pandalm-testset-v1",
            name="two",
            seed=5,
            tasks=[str(i) for i in range(30)],
            reviewers=["ann", "bo"],
            reviewers_per_item=2,
        ),
    ).pk
    ann, bo = ReviewSession(db, pk, "ann"), ReviewSession(db, pk, "bo")
    codes = [row.code for row in ann.queue()]
    for n, code in enumerate(codes):
        ann.save(code, _prefer(ann, code, "a"), 3.0, submit=True)
        bo.save(code, _prefer(bo, code, "b" if n == 0 else "a"), 3.0, submit=True)
    unblind(db, "pandalm-testset-v1", "coordinator")
    before = ranking_report(db, source="verdicts", resamples=0, prior=1.0)
    # One vote per item, its final verdict (unanimous here), as the results' tally counts it.
    assert before.comparisons == len(codes) - 1
    held = {e.reason: e.votes for e in before.excluded}
    assert held == {"items whose reviewers disagree, not yet adjudicated": 1}
    item = db.execute(
        "SELECT run_a_pk, run_b_pk FROM items WHERE code = ? AND design_pk = ?", [codes[0], pk]
    ).fetchone()
    adjudicate(
        db,
        pk,
        codes[0],
        "carol",
        Judgment(preference=PreferenceChoice.RESPONSE_1, justification="b reads better."),
        {"1": item[1], "2": item[0]},
        "b answers the question; a does not.",
    )
    after = ranking_report(db, source="verdicts", resamples=0, prior=1.0)
    assert after.comparisons == before.comparisons + 1 and after.excluded == []
