"""``abp-tui bench allocation``: its pieces on small runs (no timing asserts)."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from abp_tui.bench.allocation import (
    SETTINGS,
    Setting,
    goals,
    one_study,
    pandalm_values,
    simulate,
    synthetic_judge,
)
from abp_tui.errors import AbpError
from tests.factories import Cli


def test_people_values_are_the_annotators_majority(reference: Path) -> None:
    path = reference / "pandalm" / "testset-v1.json"
    values, split = pandalm_values(path)
    # Independently: the most common of the three labels, when it is a majority.
    expected = []
    left_out = 0
    for item in json.loads(path.read_text()):
        labels = [item[k] for k in item if k.startswith("annotator")]
        label, count = Counter(labels).most_common(1)[0]
        if 2 * count <= len(labels):
            left_out += 1
            continue
        expected.append({0: 0.5, 1: 1.0, 2: 0.0}[label])
    assert split == left_out
    assert values.tolist() == expected
    assert len(values) + split == 999


def test_synthetic_judge_errs_at_its_rate_and_is_less_sure_where_it_errs() -> None:
    people = np.random.default_rng(1).choice([0.0, 0.5, 1.0], size=200_000)
    judge, uncertainty, erred = synthetic_judge(
        people, Setting("e", 0.25), np.random.default_rng(2)
    )
    assert erred.mean() == pytest.approx(0.25, abs=0.005)
    assert np.array_equal(erred, judge != people)
    assert uncertainty[erred].mean() == pytest.approx(1.5, abs=0.01)
    assert uncertainty[~erred].mean() == pytest.approx(0.5, abs=0.01)
    # The uninformative judge's values are independent of people's.
    judge, uncertainty, erred = synthetic_judge(
        people, Setting("u", None), np.random.default_rng(3)
    )
    assert abs(np.corrcoef(judge, people)[0, 1]) < 0.01
    assert abs(np.corrcoef(uncertainty, erred)[0, 1]) < 0.01


def test_the_people_only_interval_is_the_classical_mean_interval() -> None:
    people = np.random.default_rng(4).choice([0.0, 0.5, 1.0], size=300)
    found = one_study(people, SETTINGS[0], budget=60, seed=7)
    # The same uniform sample, recomputed by hand: mean -/+ z sd / sqrt(n), divisor n.
    rng = np.random.default_rng(7)
    synthetic_judge(people, SETTINGS[0], rng)
    sample = people[rng.permutation(300)[:60]]
    width = 2 * 1.959963984540054 * sample.std() / math.sqrt(60)
    truth = people.mean()
    half = width / 2
    inside, found_width = found["people_only"]
    assert inside == bool(sample.mean() - half <= truth <= sample.mean() + half)
    assert found_width == pytest.approx(width)
    assert set(found) == {"uniform", "active", "sequence", "people_only"}


def test_a_small_simulation_reports_every_method() -> None:
    people = np.random.default_rng(5).choice([0.0, 0.5, 1.0], size=200)
    figures = simulate(people, SETTINGS[1], studies=20, budget=50, seed=11)
    for method in ("uniform", "active", "sequence", "people_only"):
        row = figures["methods"][method]
        assert 0 <= row["coverage"] <= 1
        assert row["mean_width"] > 0
    # A judge right 75% of the time narrows the uniform interval below people's alone.
    assert (
        figures["methods"]["uniform"]["mean_width"]
        < figures["methods"]["people_only"]["mean_width"]
    )


def _setting(coverage: float, widths: dict[str, float], informative: bool = True) -> dict[str, Any]:
    return {
        "informative": informative,
        "methods": {m: {"coverage": coverage, "mean_width": w} for m, w in widths.items()},
    }


def test_goals_name_the_settings_that_fail_them() -> None:
    good = {"uniform": 0.1, "active": 0.08, "sequence": 0.2, "people_only": 0.13}
    bad = {"uniform": 0.1, "active": 0.12, "sequence": 0.2, "people_only": 0.11}
    checks = goals(
        {
            "a": _setting(0.95, good),
            "b": _setting(0.93, bad),
            "c": _setting(0.95, bad, informative=False),
        }
    )
    assert checks["coverage_at_least_94_percent"]["met"] is False
    assert len(checks["coverage_at_least_94_percent"]["failing"]) == 4
    assert checks["active_narrower_than_uniform_when_informative"]["failing"] == ["b"]
    assert checks["active_and_uniform_narrower_than_people_only_when_informative"]["failing"] == [
        "b"
    ]


def test_bench_allocation_runs_on_pandalm(cli: Cli, reference: Path) -> None:
    path = reference / "pandalm" / "testset-v1.json"
    result = cli("bench", "allocation", "--pandalm", path, "--studies", "2", "--budget", "60")
    assert result.code == 0, result.err
    document = json.loads(result.out)
    assert document["data"]["items"] == 999
    assert document["studies_per_setting"] == 2
    assert set(document["settings"]) == {s.name for s in SETTINGS}


def test_an_absent_test_set_is_one_line(cli: Cli, tmp_path: Path) -> None:
    result = cli("bench", "allocation", "--pandalm", tmp_path / "missing.json")
    assert result.code == 1
    assert "missing.json: PandaLM's test set is absent" in result.err
    assert len(result.err.strip().splitlines()) == 1
    (tmp_path / "x.json").write_text("{}")
    with pytest.raises(AbpError, match="expected PandaLM's test set"):
        pandalm_values(tmp_path / "x.json")


def test_a_budget_under_the_floor_is_refused_in_one_line(cli: Cli, reference: Path) -> None:
    path = reference / "pandalm" / "testset-v1.json"
    result = cli("bench", "allocation", "--pandalm", path, "--budget", "40")
    assert result.code == 1
    assert "--budget must be from 50 to 999 items" in result.err
    assert len(result.err.strip().splitlines()) == 1
