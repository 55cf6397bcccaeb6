"""``bench scale``: each step a child process whose own peak memory is measured, the slope
between sizes and the goals judged on them (no speed is asserted)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from abp_tui.bench import scale
from abp_tui.errors import AbpError
from tests.factories import Cli


def _allocating(mb: int) -> list[str]:
    return [
        sys.executable,
        "-c",
        f"data = bytearray({mb} << 20)\ndata[::4096] = b'x' * len(data[::4096])",
    ]


def test_a_child_peak_is_its_own(tmp_path: Path) -> None:
    """The peak reported is the child's: one that touches 200 MB more peaks 200 MB higher,
    and a small one is small, however large the process running the benchmark (this test's,
    above 100 MB once the suite has run a while: ballast makes sure) has grown."""
    ballast = bytearray(150 << 20)
    ballast[:: 1 << 12] = b"x" * len(ballast[:: 1 << 12])
    small = scale._child(_allocating(5), tmp_path, "small")
    large = scale._child(_allocating(205), tmp_path, "large")
    del ballast
    assert small["exit"] == large["exit"] == 0
    assert small["peak_mb"] < 100, small
    assert 180 <= large["peak_mb"] - small["peak_mb"] <= 230, (small, large)


def test_a_failing_step_names_itself_and_its_error(tmp_path: Path) -> None:
    argv = [sys.executable, "-c", "import sys; sys.exit('no such study')"]
    with pytest.raises(AbpError, match=r"bench scale: results exited 1: no such study"):
        scale._child(argv, tmp_path, "results")


def _size(items: int, peaks: dict[str, float], seconds: float = 1.0) -> dict[str, Any]:
    return {
        "items": items,
        "steps": {
            name: {
                "ours": {"seconds": seconds * 2, "peak_mb": peak},
                "baseline": {"seconds": seconds, "peak_mb": 20.0},
            }
            for name, peak in peaks.items()
        },
    }


def test_slopes_and_goals() -> None:
    sizes = [
        _size(2_000, {"import": 100.0, "results": 200.0, "export": 300.0}),
        _size(20_000, {"import": 100.0, "results": 290.0, "export": 300.0}, seconds=10.0),
    ]
    slopes = scale._slopes(sizes, ("import", "results", "export"))
    assert slopes["import"]["ours"]["peak_mb_per_1000_items"] == 0.0
    assert slopes["results"]["ours"]["peak_mb_per_1000_items"] == 5.0  # 90 MB over 18,000
    assert slopes["results"]["baseline"]["peak_mb_per_1000_items"] == 0.0
    goals = scale._goals(sizes, slopes)
    assert goals["import"]["slope"]["met"] is True
    assert "peak_at_100000_items" not in goals["import"]
    results = goals["results"]
    assert results["slope"]["met"] is False
    # 290 MB at 20,000 items, 5 MB more per 1,000: 690 MB at 100,000, over the 600 MB goal.
    assert results["peak_at_100000_items"]["peak_mb"] == 690.0
    assert results["peak_at_100000_items"]["how"] == "projected from 20000 items"
    assert results["peak_at_100000_items"]["met"] is False
    export = goals["export"]
    assert export["peak_at_100000_items"] == {
        "peak_mb": 300.0,
        "how": "projected from 20000 items",
        "goal": "under 1024 MB",
        "met": True,
    }
    assert export["time_over_baseline"]["ratio_at_items"] == {"2000": 2.0, "20000": 2.0}
    assert export["time_over_baseline"]["met"] is True


def test_a_step_that_fails_is_reported_and_meets_no_goal(tmp_path: Path) -> None:
    argv = [sys.executable, "-c", "import sys; sys.exit('too large: refused')"]
    figures = scale._child(argv, tmp_path, "verify", None)
    assert figures["exit"] == 1
    assert figures["error"] == "too large: refused"
    sizes = [_size(2_000, {"verify": 50.0}), _size(20_000, {"verify": 50.0})]
    sizes[1]["steps"]["verify"]["ours"]["exit"] = 1
    goals = scale._goals(sizes, scale._slopes(sizes, ("verify",)))["verify"]
    assert goals["failed_at_items"] == [20_000]
    assert goals["slope"]["met"] is False
    assert goals["peak_at_100000_items"]["met"] is False
    assert goals["time_over_baseline"]["met"] is False


def test_the_slope_is_past_the_constant() -> None:
    """Memory that grows up to a constant and no further has no slope: it is taken between
    the two largest sizes."""
    sizes = [
        _size(2_000, {"import": 70.0}),
        _size(20_000, {"import": 170.0}),
        _size(100_000, {"import": 170.0}),
    ]
    slopes = scale._slopes(sizes, ("import",))
    assert slopes["import"]["ours"]["peak_mb_per_1000_items"] == 0.0


def test_a_size_of_100000_is_measured_not_projected() -> None:
    sizes = [_size(20_000, {"agreement": 100.0}), _size(100_000, {"agreement": 700.0})]
    goals = scale._goals(sizes, scale._slopes(sizes, ("agreement",)))
    assert goals["agreement"]["peak_at_100000_items"]["how"] == "measured"
    assert goals["agreement"]["peak_at_100000_items"]["met"] is False
    # Measured among larger sizes (the 20,000, 100,000 and 400,000): its own figure.
    sizes.append(_size(400_000, {"agreement": 900.0}))
    goals = scale._goals(sizes, scale._slopes(sizes, ("agreement",)))
    assert goals["agreement"]["peak_at_100000_items"] == {
        "peak_mb": 700.0,
        "how": "measured",
        "goal": "under 600 MB",
        "met": False,
    }


def test_the_time_goal_is_judged_at_every_size() -> None:
    """A baseline that grows faster than the step at the largest size (zipping a folder of
    800,000 files took 190 s, 6.5 times the 200,000-file one's 29) meets no goal alone."""
    sizes = [_size(20_000, {"export": 300.0}), _size(400_000, {"export": 300.0})]
    sizes[0]["steps"]["export"]["ours"]["seconds"] = 6.0  # six times its baseline
    goals = scale._goals(sizes, scale._slopes(sizes, ("export",)))["export"]
    assert goals["time_over_baseline"]["ratio_at_items"] == {"20000": 6.0, "400000": 2.0}
    assert goals["time_over_baseline"]["met"] is False


def test_the_import_step_at_two_sizes(tmp_path: Path) -> None:
    doc = scale.bench_scale(sizes=(40, 10), steps=("import",))
    assert doc["benchmark"] == "scale"
    assert doc["input"]["items"] == [10, 40]
    for measured in doc["sizes"]:
        step = measured["steps"]["import"]
        assert step["ours"]["exit"] == 0
        assert step["ours"]["peak_mb"] > 0 and step["baseline"]["peak_mb"] > 0
        assert step["baseline"]["what"] == "json.load of the same file"
    assert set(doc["slopes"]) == {"import"}
    assert set(doc["goals"]["import"]) == {"slope"}


def test_the_command_line_takes_sizes_separated_by_commas(
    cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: dict[str, Any] = {}

    def fake(sizes: tuple[int, ...] = scale.DEFAULT_SIZES) -> dict[str, Any]:
        seen["sizes"] = sizes
        return {"benchmark": "scale"}

    monkeypatch.setattr(scale, "bench_scale", fake)
    result = cli("bench", "scale", "--items", "2000,20_000")
    assert result.code == 0, result.err
    assert json.loads(result.out) == {"benchmark": "scale"}
    assert seen["sizes"] == (2000, 20000)
    assert cli("bench", "scale").code == 0
    assert seen["sizes"] == scale.DEFAULT_SIZES
    refused = cli("bench", "agreement", "--items", "10,20")
    assert refused.code == 1
    assert "--items takes one number" in refused.err
    with pytest.raises(SystemExit) as usage:
        cli("bench", "scale", "--items", "2000,x")
    assert usage.value.code == 2


def test_the_summary_gives_each_steps_ratio_peaks_and_slope() -> None:
    """Each step's time over its baseline's at every size, its peaks and its slope, at a glance
    (a failed step has no ratio)."""
    sizes = [
        _size(2_000, {"export": 300.0, "verify": 100.0}),
        _size(20_000, {"export": 390.0, "verify": 100.0}, seconds=10.0),
    ]
    sizes[1]["steps"]["verify"]["ours"]["exit"] = 1
    summary = scale._summary(sizes, scale._slopes(sizes, ("export", "verify")))
    assert list(summary) == ["export", "verify"]
    assert summary["export"] == {
        "ratio_at_items": {"2000": 2.0, "20000": 2.0},
        "peak_mb_at_items": {"2000": 300.0, "20000": 390.0},
        "baseline_peak_mb_at_items": {"2000": 20.0, "20000": 20.0},
        "peak_mb_per_1000_items": 5.0,
    }
    assert summary["verify"]["ratio_at_items"] == {"2000": 2.0, "20000": None}
    assert summary["verify"]["peak_mb_per_1000_items"] == 0.0
