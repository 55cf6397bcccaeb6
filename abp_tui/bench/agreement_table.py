"""``bench agreement --table``: ``abp-tui agreement --table`` on a generated CSV file beside what a
user of the ``krippendorff`` package would write to get alpha alone from the same file.

The judgments are those of ``bench agreement`` (items x reviewers x variables, deterministic),
written item by item as the long table the command reads (item, reviewer, variable, value; a
blank value for a missing judgment) with a TOML header declaring each variable. The contenders,
interleaved so that drift in the machine's speed touches them alike:

1. ours: :func:`abp_tui.services.table_agreement.table_agreement`, the function the command
   calls (reading and checking the file, every agreement figure with the bootstrap), and the
   report written as JSON, as ``--json`` prints it; the command minus the interpreter's start;
2. the baseline: the csv module reading the file, rows grouped by variable and pivoted into the
   reviewer x item matrix the package takes (labels coded by their place on the scale, a blank as
   NaN) with dicts, then ``krippendorff.alpha`` once per variable;
3. the same with NumPy doing the reading and the pivoting (``np.loadtxt``, ``np.unique``).

Reading the file alone (:func:`abp_tui.formats.agreement_table.read_table`) is timed too, as
the share of ours that reading takes. So are the whole command and the baseline (1.) as fresh
processes, start-up and imports included: ``python -m abp_tui agreement --table ... --json``
beside a script of the baseline's own code.
"""

from __future__ import annotations

import csv
import inspect
import json
import math
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from importlib.metadata import version as _dist_version
from pathlib import Path
from typing import Any

import krippendorff
import numpy as np

from abp_tui.bench.agreement import bench_data
from abp_tui.formats.agreement_table import read_table
from abp_tui.services.table_agreement import table_agreement
from abp_tui.stats.agreement import (
    BENCH_GOAL_RATIO,
    DEFAULT_PAIR_RESAMPLES,
    DEFAULT_RESAMPLES,
    Category,
    Level,
    Observation,
)
from abp_tui.text.csvsafe import Cell, write_csv


def _write_table(
    folder: Path,
    records: dict[str, list[Observation]],
    levels: dict[str, Level],
    scales: dict[str, tuple[Category, ...]],
) -> tuple[Path, Path, int]:
    """The CSV file (item by item, each reviewer's variables together) and its TOML header."""
    table, header = folder / "judgments.csv", folder / "variables.toml"
    by_key: dict[tuple[str, str], list[tuple[str, Cell]]] = {
        (item, reviewer): [] for item, reviewer, _ in next(iter(records.values()))
    }
    for name, rows in records.items():
        for item, reviewer, value in rows:
            by_key[(item, reviewer)].append((name, value))
    count = sum(len(cells) for cells in by_key.values())
    with table.open("w", encoding="utf-8", newline="") as handle:
        # The one CSV writer (text cells neutralised for spreadsheets, numbers as they are).
        write_csv(
            handle,
            ("item", "reviewer", "variable", "value"),
            (
                (item, reviewer, name, value)
                for (item, reviewer), cells in by_key.items()
                for name, value in cells
            ),
        )
    lines = []
    for name, level in levels.items():
        scale = ", ".join(json.dumps(c) for c in scales[name])
        lines += [f"[variables.{name}]", f'level = "{level}"', f"scale = [{scale}]", ""]
    header.write_text("\n".join(lines), encoding="utf-8")
    return table, header, count


def _domain(scale: list[Any]) -> dict[str, float]:
    """Cell text -> the number the package is given: the value, or a label's place."""
    return {str(c): float(k if isinstance(c, str) else c) for k, c in enumerate(scale)}


def _alpha_with_csv(table: Path, header: Path) -> dict[str, float]:
    """What a user of the package writes with the csv module (the baseline)."""
    with header.open("rb") as handle:
        specs = tomllib.load(handle)["variables"]
    by_variable: dict[str, list[tuple[str, str, str]]] = {}
    with table.open(encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle)
        head = next(reader)
        at = [head.index(c) for c in ("item", "reviewer", "variable", "value")]
        i, r, v, x = at
        for row in reader:
            by_variable.setdefault(row[v], []).append((row[i], row[r], row[x]))
    alphas: dict[str, float] = {}
    for name, rows in by_variable.items():
        items: dict[str, int] = {}
        reviewers: dict[str, int] = {}
        for item, reviewer, _ in rows:
            items.setdefault(item, len(items))
            reviewers.setdefault(reviewer, len(reviewers))
        code = _domain(specs[name]["scale"])
        matrix = np.full((len(reviewers), len(items)), np.nan)
        for item, reviewer, value in rows:
            if value:
                matrix[reviewers[reviewer], items[item]] = code[value]
        alphas[name] = float(
            krippendorff.alpha(
                reliability_data=matrix,
                value_domain=sorted(code.values()),
                level_of_measurement=specs[name]["level"],
            )
        )
    return alphas


def _alpha_with_numpy(table: Path, header: Path) -> dict[str, float]:
    """The same with NumPy reading and pivoting the file."""
    with header.open("rb") as handle:
        specs = tomllib.load(handle)["variables"]
    data = np.loadtxt(table, delimiter=",", dtype=str, skiprows=1, encoding="utf-8", ndmin=2)
    items, item_codes = np.unique(data[:, 0], return_inverse=True)
    reviewers, reviewer_codes = np.unique(data[:, 1], return_inverse=True)
    alphas: dict[str, float] = {}
    for name, spec in specs.items():
        rows = data[:, 2] == name
        values = data[rows, 3]
        coded = np.full(values.size, np.nan)
        code = _domain(spec["scale"])
        for text, number in code.items():
            coded[values == text] = number
        matrix = np.full((reviewers.size, items.size), np.nan)
        matrix[reviewer_codes[rows], item_codes[rows]] = coded
        alphas[name] = float(
            krippendorff.alpha(
                reliability_data=matrix,
                value_domain=sorted(code.values()),
                level_of_measurement=spec["level"],
            )
        )
    return alphas


_SCRIPT_HEAD = """\
from __future__ import annotations
import csv, sys, tomllib
from pathlib import Path
from typing import Any
import krippendorff
import numpy as np
"""


def _baseline_script() -> str:
    """The csv baseline as a script of its own: the same code, without importing ours."""
    code = inspect.getsource(_domain) + "\n\n" + inspect.getsource(_alpha_with_csv)
    return _SCRIPT_HEAD + code + "\n_alpha_with_csv(Path(sys.argv[1]), Path(sys.argv[2]))\n"


def _process_seconds(argv: list[str], folder: str) -> float:
    start = time.perf_counter()
    subprocess.run(argv, cwd=folder, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def _figures(samples: list[float]) -> dict[str, Any]:
    return {"median_seconds": statistics.median(samples), "samples_seconds": samples}


def _ratio(ours: float, baseline: float) -> float | None:
    return ours / baseline if baseline > 0 else None


def bench_agreement_table(
    items: int = 10_000,
    reviewers: int = 3,
    variables: int = 5,
    seed: int = 0,
    repeat: int = 3,
    resamples: int = DEFAULT_RESAMPLES,
    pair_resamples: int = DEFAULT_PAIR_RESAMPLES,
) -> dict[str, Any]:
    """Time the command's work on a generated CSV beside krippendorff.alpha from the same file.

    The default, 10,000 items x 3 reviewers x 5 variables, is 150,000 rows. Our alpha values are
    checked against the package's on the same file. Returns a JSON-able dict.
    """
    if min(items, reviewers, variables, repeat) < 1:
        raise ValueError("items, reviewers, variables and repeat must be at least 1")
    records, levels, scales, _ = bench_data(items, reviewers, variables, seed)
    ours: list[float] = []
    reading: list[float] = []
    with_csv: list[float] = []
    with_numpy: list[float] = []
    ours_process: list[float] = []
    baseline_process: list[float] = []
    with tempfile.TemporaryDirectory(prefix="abp-bench-table-") as folder:
        table, header, rows = _write_table(Path(folder), records, levels, scales)
        size = table.stat().st_size
        script = Path(folder) / "baseline.py"
        script.write_text(_baseline_script(), encoding="utf-8")
        command = [sys.executable, "-m", "abp_tui", "agreement", "--table", str(table)]
        command += ["--header", str(header), "--json", "--seed", str(seed)]
        command += ["--resamples", str(resamples), "--pair-resamples", str(pair_resamples)]
        document = ""
        package: dict[str, float] = {}
        package_numpy: dict[str, float] = {}
        for _ in range(repeat):
            start = time.perf_counter()
            package = _alpha_with_csv(table, header)
            with_csv.append(time.perf_counter() - start)
            start = time.perf_counter()
            report = table_agreement(
                table,
                header=header,
                seed=seed,
                resamples=resamples,
                pair_resamples=pair_resamples,
            )
            document = json.dumps(report.model_dump(mode="json"), indent=2, ensure_ascii=False)
            ours.append(time.perf_counter() - start)
            start = time.perf_counter()
            package_numpy = _alpha_with_numpy(table, header)
            with_numpy.append(time.perf_counter() - start)
            start = time.perf_counter()
            read_table(table, header=header)
            reading.append(time.perf_counter() - start)
            baseline_process.append(
                _process_seconds([sys.executable, str(script), str(table), str(header)], folder)
            )
            ours_process.append(_process_seconds(command, folder))
    ours_alpha = {
        v["variable"]: v["krippendorff_alpha"]["value"] for v in json.loads(document)["variables"]
    }
    differences = [
        abs((ours_alpha[name] if ours_alpha[name] is not None else math.nan) - package[name])
        for name in package
    ]
    differences += [abs(package_numpy[name] - package[name]) for name in package]
    largest = max(differences)
    ours_median = statistics.median(ours)
    csv_median, numpy_median = statistics.median(with_csv), statistics.median(with_numpy)
    ratio = _ratio(ours_median, csv_median)
    ratio_numpy = _ratio(ours_median, numpy_median)
    process_median = statistics.median(ours_process)
    return {
        "benchmark": "agreement-table",
        "input": {
            "rows": rows,
            "bytes": size,
            "items": items,
            "reviewers": reviewers,
            "variables": variables,
            "levels": dict(levels),
            "order": "item by item, each reviewer's variables together; 5% of values blank",
        },
        "resamples": resamples,
        "pair_resamples": pair_resamples,
        "repeat": repeat,
        "seed": seed,
        "ours": {
            "what": "table_agreement (the function `abp-tui agreement --table FILE --header "
            "TOML` calls): reading and checking the file, every agreement figure with "
            f"{resamples} bootstrap resamples, then the report as JSON",
            **_figures(ours),
        },
        "ours_reading": {
            "what": "read_table alone: the file read, checked and coded, per variable",
            **_figures(reading),
        },
        "baseline": {
            "what": f"csv module reading the file, a dict pivot into the reviewer x item matrix, "
            f"krippendorff {_dist_version('krippendorff')} alpha alone, once per variable",
            **_figures(with_csv),
        },
        "baseline_numpy": {
            "what": "np.loadtxt reading the file, np.unique and fancy indexing pivoting it, "
            "krippendorff alpha alone, once per variable",
            **_figures(with_numpy),
        },
        "ours_process": {
            "what": "`python -m abp_tui agreement --table FILE --header TOML --json` as a fresh "
            "process: start-up, imports, the same work, the JSON printed",
            **_figures(ours_process),
        },
        "baseline_process": {
            "what": "the csv baseline's own code as a script run by a fresh process",
            **_figures(baseline_process),
        },
        "ratio": ratio,
        "ratio_to_numpy": ratio_numpy,
        "ratio_process": _ratio(process_median, statistics.median(baseline_process)),
        "reading_share_of_ours": statistics.median(reading) / ours_median,
        "goal_ratio": BENCH_GOAL_RATIO,
        "goal_met": ratio is not None and ratio <= BENCH_GOAL_RATIO,
        "goal_met_against_numpy": ratio_numpy is not None and ratio_numpy <= BENCH_GOAL_RATIO,
        "alpha_max_abs_difference_from_package": largest if math.isfinite(largest) else None,
        "python": platform.python_version(),
        "numpy": np.__version__,
    }
