"""Seed 003 section 4.3: engines are graded on "1. Resolution. 2. Efficiency, in strict order:
smaller normalized git diff wins, then fewer tokens, then less wall clock, then lower cost"; and
principle 6, "Resolution alone is a tie. Diff size, tokens, wall clock, and cost break it."

Each pair's head-to-head (wins, losses, ties under that order, over the task-and-trial pairs both
engines resolved) is reported beside the resolution McNemar test, by ``abp-tui results`` and the
bundle's report. The expected counts are worked out by hand from the records written here, or
read straight from the demo's trace files.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conformance.seed_003.abp_runs import DEMO, copy_run, imported, traces
from tests.factories import Cli

MODEL = "synthetic/fixture-model"


def _trial(
    task: str,
    adapter: str,
    outcome: str,
    diff: int | None,
    tokens: int,
    wall: float,
    cost: float,
) -> dict[str, Any]:
    activity: dict[str, Any] = {"toolCalls": 2}
    if diff is not None:
        activity["diffBytes"] = diff
    return {
        "id": f"{task}__{adapter}",
        "taskId": task,
        "trial": 1,
        "agent": {"adapter": adapter, "model": MODEL},
        "outcome": outcome,
        "timing": {"wallClockSeconds": wall},
        "tokens": {"input": tokens, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": tokens},
        "cost": {"computedUsd": cost},
        "activity": activity,
    }


# (task, a's trial, b's trial): (outcome, diff bytes, tokens, wall clock s, cost $)
PLAN: list[tuple[str, tuple[Any, ...], tuple[Any, ...]]] = [
    # the diff decides, whatever the tokens: a wins
    ("t1-diff", ("passed", 100, 9000, 50, 0.09), ("passed", 200, 1000, 10, 0.01)),
    # equal diffs: fewer tokens wins: b
    ("t2-tokens", ("passed", 150, 5000, 10, 0.01), ("passed", 150, 4000, 50, 0.09)),
    # equal diffs and tokens: less wall clock wins: a
    ("t3-wall", ("passed", 150, 4000, 30, 0.09), ("passed", 150, 4000, 40, 0.01)),
    # all equal but cost: lower cost wins: b
    ("t4-cost", ("passed", 150, 4000, 30, 0.05), ("passed", 150, 4000, 30, 0.02)),
    # equal on every step: a tie
    ("t5-tie", ("passed", 150, 4000, 30, 0.02), ("passed", 150, 4000, 30, 0.02)),
    # b's diff not measured: the first step cannot be decided, so the pair is undecided
    ("t6-undecided", ("passed", 150, 1000, 30, 0.02), ("passed", None, 9000, 30, 0.02)),
    # resolution decides, not efficiency: only in the McNemar test (a resolved, b did not)
    ("t7-unresolved", ("passed", 900, 9000, 90, 0.09), ("failed", 10, 100, 5, 0.01)),
    # an engine error: in neither (excluded, never a loss)
    ("t8-engine-error", ("passed", 900, 9000, 90, 0.09), ("agent-error", None, 0, 1, 0.0)),
    # neither diff measured: that step is passed over and tokens decide: a
    ("t9-no-diffs", ("passed", None, 1000, 30, 0.02), ("passed", None, 2000, 30, 0.02)),
]


def _arena(tmp_path: Path) -> Path:
    results = []
    for task, a, b in PLAN:
        results.append(_trial(task, "engine-a", *a))
        results.append(_trial(task, "engine-b", *b))
    doc = {
        "manifest": {
            "runId": "strict-order",
            "seed": 7,
            "trials": 1,
            "agents": [
                {"adapter": "engine-a", "model": MODEL},
                {"adapter": "engine-b", "model": MODEL},
            ],
            "taskIds": [task for task, _a, _b in PLAN],
            "matchedModels": True,
        },
        "results": results,
    }
    folder = tmp_path / "strict-order"
    folder.mkdir()
    (folder / "results.json").write_text(json.dumps(doc), encoding="utf-8")
    return folder / "results.json"


def test_efficiency_strict_order_diff_then_tokens_then_wall_clock_then_cost(
    tmp_path: Path, cli: Cli
) -> None:
    assert cli("import", _arena(tmp_path)).code == 0
    assert cli("unblind", "--study", "strict-order", "--yes").code == 0
    report = json.loads(cli("results", "--study", "strict-order", "--json").out)
    (comparison,) = report["comparisons"]
    assert (comparison["a"], comparison["b"]) == ("engine-a", "engine-b")
    assert comparison["head_to_head"] == {
        "resolved_pairs": 7,  # t1-t6 and t9; t7 was resolved by a only, t8 is an engine error
        "wins_a": 3,  # t1 (diff), t3 (wall clock), t9 (tokens)
        "wins_b": 2,  # t2 (tokens), t4 (cost)
        "ties": 1,  # t5
        "undecided": 1,  # t6
        "decided_by": {"normalised diff": 1, "tokens": 2, "wall clock": 1, "cost": 1},
        "undecided_by": {"normalised diff": 1},
    }
    # Beside it, the resolution McNemar test on the same pairing: t7 is its one discordant pair,
    # and the engine error of t8 is in no pair.
    paired = comparison["paired"]
    assert (paired["pairs"], paired["a_pass_b_fail"], paired["a_fail_b_pass"]) == (8, 1, 0)
    assert paired["excluded_b"] == 1


def test_efficiency_head_to_head_is_shown_beside_the_resolution_mcnemar_test(
    tmp_path: Path, cli: Cli
) -> None:
    assert cli("import", _arena(tmp_path)).code == 0
    assert cli("unblind", "--study", "strict-order", "--yes").code == 0
    text = cli("results", "--study", "strict-order").out
    lines = text.splitlines()
    at = lines.index("Head-to-head efficiency (seed 003 strict order, pairs both resolved)")
    header, row = lines[at + 1], lines[at + 2]
    assert "a wins / b wins / ties / undecided" in header and "Exact McNemar (resolution)" in header
    assert row.startswith("engine-a vs engine-b")
    assert "3 / 2 / 1 / 1" in row
    assert "normalised diff 1/7; tokens 2/7; wall clock 1/7; cost 1/7" in row
    assert "normalised diff missing 1/7" in row
    assert "1 / 0 (of 8)" in row and "p = 1" in row


def test_efficiency_strict_order_on_the_demo_matches_its_traces(tmp_path: Path, cli: Cli) -> None:
    """The demo's head-to-head, recomputed here from the trace files' run.end events."""
    folder = copy_run(DEMO, tmp_path / "abp-demo")
    ends: dict[tuple[str, int, str], dict[str, Any]] = {}
    for events in traces(folder):
        start, end = events[0], events[-1]
        engine = start["engine"].rsplit("/", 1)[0]
        ends[(start["task"], start["trial"], engine)] = end
    wins = {"demo-engine-alpha": 0, "demo-engine-beta": 0}
    ties = pairs = 0
    for (task, trial, engine), end in ends.items():
        if engine != "demo-engine-alpha":
            continue
        other = ends[(task, trial, "demo-engine-beta")]
        if end["outcome"] != "resolved" or other["outcome"] != "resolved":
            continue
        pairs += 1

        def key(e: dict[str, Any]) -> tuple[float, ...]:
            return (e["diffBytesNormalized"], sum(e["tokens"].values()), e["wallClockMs"])

        if key(end) == key(other):
            ties += 1
        else:
            wins["demo-engine-alpha" if key(end) < key(other) else "demo-engine-beta"] += 1
    study = imported(cli, folder)
    (comparison,) = json.loads(cli("results", "--study", study, "--json").out)["comparisons"]
    found = comparison["head_to_head"]
    assert found["resolved_pairs"] == pairs > 0
    assert (found["wins_a"], found["wins_b"], found["ties"]) == (
        wins["demo-engine-alpha"],
        wins["demo-engine-beta"],
        ties,
    )
    assert found["undecided"] == 0


def test_efficiency_head_to_head_is_in_the_report(tmp_path: Path, cli: Cli) -> None:
    study = imported(cli, copy_run(DEMO, tmp_path / "abp-demo"))
    bundle = tmp_path / "bundle"
    assert cli("export", "bundle", "--study", study, "--out", bundle).code == 0
    page = (bundle / "report.html").read_text(encoding="utf-8")
    table = page[page.index('id="head-to-head"') :]
    table = table[: table.index("</table>")]
    assert "a wins / b wins / ties / undecided" in table and "Exact McNemar (resolution)" in table
    summary = json.loads((bundle / "results" / "summary.json").read_text(encoding="utf-8"))
    assert summary["comparisons"][0]["head_to_head"]["resolved_pairs"] > 0
    assert cli("verify", bundle).code == 0
