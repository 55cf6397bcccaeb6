"""``bench ranking``: Bradley-Terry scores with 1,000 task resamples, beside ``evalica``.

The data: ``--votes`` votes (1,000,000) over ``--systems`` systems (50) and ``--tasks`` tasks
(200,000), each task one pair of systems judged by votes / tasks annotators (5), with a task
effect that makes one task's votes agree more than votes of different tasks would, ties, and a
pull towards the longer output. They are written into a fresh study database as imported labels
(not timed as a contender: its time is printed as ``build_seconds``), and read back with
:func:`abp_tui.services.ranking.read_source`, as ``abp-tui ranking --source labels`` reads them.

Then, interleaved, medians over ``--repeat``:

1. the point fit from the votes in memory: ours, :func:`abp_tui.analysis.ranking.fit.point_scores`
   (per-pair counts and Newton's method), beside ``evalica.bradley_terry`` on the same votes as
   evalica takes them (two lists of names and a list of winners), one fit each;
2. the intervals: ours, :func:`abp_tui.stats.ranking.task_bootstrap` (1,000 resamples of the
   tasks over per-task counts, refitted with a warm start), beside ``evalica.bootstrap`` (which
   resamples single votes and refits on every vote each round) timed on a few resamples and
   scaled to 1,000 (its time shared among its first full fit and its resamples, each a fit on as
   many votes: subtracting a fit timed apart could leave nothing on a loaded machine);
3. the whole of ``rank`` (point fit, bootstrap, pairwise table, length bias and the
   length-controlled fit) from the votes in memory;
4. the whole command from the database as a fresh process: ``python -m abp_tui ranking
   --source labels --resamples 1000 --json``.

evalica is a development dependency: without it the benchmark says so and stops.
"""

from __future__ import annotations

import hashlib
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from importlib.metadata import version as dist_version
from pathlib import Path
from typing import Any, Final

import numpy as np

from abp_tui.analysis.ranking.fit import (
    A_WON,
    B_WON,
    TIE,
    Votes,
    point_scores,
    rank,
    task_segments,
)
from abp_tui.errors import AbpError
from abp_tui.services.ranking import read_source
from abp_tui.services.results_report import unblind
from abp_tui.stats.ranking import ELO_PER_LOGIT, task_bootstrap
from abp_tui.store import connect

STUDY: Final = "bench-ranking"
NOW: Final = "2026-01-01T00:00:00Z"
RESAMPLES: Final = 1000
POINT_GOAL: Final = 1.0
"""Our point fit takes at most this many times evalica's one fit."""
INTERVAL_GOAL: Final = 100.0
"""evalica's 1,000-resample bootstrap takes at least this many times ours."""


def _evalica() -> Any:
    try:
        import evalica
    except ImportError as error:  # a development dependency, not the program's
        raise AbpError(
            "bench ranking compares with the evalica package, which is not installed: "
            "pip install 'evalica==0.4.2' (or make install, which installs the dev extras)"
        ) from error
    return evalica


def generate(
    votes: int, systems: int, tasks: int, seed: int = 17
) -> tuple[np.ndarray[Any, Any], ...]:
    """(pair of each task (tasks, 2), lengths of its two outputs (tasks, 2), each vote's task,
    each vote's choice: 0 response 1, 1 response 2, 2 tie)."""
    rng = np.random.default_rng(seed)
    strength = rng.normal(0.0, 0.6, systems)
    first = rng.integers(0, systems, tasks)
    second = (first + rng.integers(1, systems, tasks)) % systems
    lengths = rng.integers(20, 160, (tasks, 2))
    effect = rng.normal(0.0, 1.0, tasks)  # the task's own tilt: its votes agree
    share = (lengths[:, 0] - lengths[:, 1]) / (lengths[:, 0] + lengths[:, 1])
    per_task = votes // tasks
    task = np.repeat(np.arange(tasks), per_task)
    logit = strength[first] - strength[second] + effect + 0.8 * share
    p = 1.0 / (1.0 + np.exp(-logit[task]))
    u = rng.random(task.size)
    choice = np.where(u < 0.12, 2, np.where(rng.random(task.size) < p, 0, 1))
    return np.stack([first, second], axis=1), lengths, task, choice


def _write(path: Path, pairs: Any, lengths: Any, task: Any, choice: Any, systems: int) -> None:
    db = connect(path)
    n_tasks = len(pairs)
    per_task = len(task) // n_tasks
    try:
        with db.atomic():
            c = db.conn
            c.execute(
                "INSERT INTO studies (id, name, protocol, description, limitations, synthetic, "
                "created_at) VALUES (?, ?, 'native', '', '[]', 1, ?)",
                [STUDY, STUDY, NOW],
            )
            c.executemany(
                "INSERT INTO tasks (pk, study_id, id, version_no, current, sha256, title, prompt, "
                "base_instruction, evidence, expected_behaviour, fatal_criteria, risk_type, "
                "version, synthetic, metadata, created_at) "
                "VALUES (?, ?, ?, 1, 1, '', '', '', '', '', '', '[]', '', '', 1, '{}', ?)",
                ((t + 1, STUDY, f"T{t}", NOW) for t in range(n_tasks)),
            )
            c.executemany(
                "INSERT INTO conditions (pk, study_id, id, version_no, current, sha256, label, "
                "instructions, version, metadata, created_at) "
                "VALUES (?, ?, ?, 1, 1, '', '', '', '', '{}', ?)",
                ((s + 1, STUDY, f"system-{s:02d}", NOW) for s in range(systems)),
            )
            texts = [
                f"{t}.{side}:" + "x" * int(lengths[t, side])
                for t in range(n_tasks)
                for side in (0, 1)
            ]
            shas = [hashlib.sha256(text.encode()).hexdigest() for text in texts]
            c.executemany(
                "INSERT INTO blobs (sha256, text) VALUES (?, ?)", zip(shas, texts, strict=True)
            )
            c.executemany(
                "INSERT INTO runs (pk, study_id, id, version_no, current, sha256, task_pk, "
                "condition_pk, trial, output_sha256, source_file, synthetic, not_exposed, "
                "document, created_at) VALUES (?, ?, ?, 1, 1, '', ?, ?, 1, ?, 'bench', 1, '[]', "
                "'{}', ?)",
                (
                    (
                        2 * t + side + 1,
                        STUDY,
                        f"T{t}/{side + 1}",
                        t + 1,
                        int(pairs[t, side]) + 1,
                        shas[2 * t + side],
                        NOW,
                    )
                    for t in range(n_tasks)
                    for side in (0, 1)
                ),
            )
            reviewers = [f"{STUDY}:annotator{k + 1}" for k in range(per_task)]
            c.executemany(
                "INSERT INTO reviewers (name, external) VALUES (?, 1)", ((r,) for r in reviewers)
            )
            choices = ("response_1", "response_2", "tie")
            c.executemany(
                "INSERT INTO preferences (study_id, reviewer, item_id, task_pk, run_1_pk, "
                "run_2_pk, choice, justification, source, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, '', 'imported', ?)",
                (
                    (
                        STUDY,
                        reviewers[v % per_task],
                        str(t),
                        t + 1,
                        2 * t + 1,
                        2 * t + 2,
                        choices[k],
                        NOW,
                    )
                    for v, (t, k) in enumerate(zip(task.tolist(), choice.tolist(), strict=True))
                ),
            )
        unblind(db, STUDY, "bench")
    finally:
        db.close()


def _median(samples: list[float]) -> float:
    return statistics.median(samples)


def _evalica_input(votes: Votes, evalica: Any) -> tuple[list[str], list[str], list[Any]]:
    names = votes.systems
    winner = {A_WON: evalica.Winner.X, B_WON: evalica.Winner.Y, TIE: evalica.Winner.Draw}
    xs = [names[i] for i in votes.a.tolist()]
    ys = [names[i] for i in votes.b.tolist()]
    return xs, ys, [winner[o] for o in votes.outcome.tolist()]


def bench_ranking(
    votes: int = 1_000_000,
    systems: int = 50,
    tasks: int = 200_000,
    repeat: int = 3,
    evalica_resamples: int = 3,
) -> dict[str, Any]:
    """The figures of the module docstring as one JSON document."""
    evalica = _evalica()
    if votes < tasks or tasks < 1 or systems < 2:
        raise AbpError("bench ranking: expected votes >= tasks >= 1 and at least 2 systems")
    with tempfile.TemporaryDirectory(prefix="abp-bench-ranking-") as folder:
        path = Path(folder) / "ranking.db"
        start = time.perf_counter()
        pairs, lengths, task, choice = generate(votes, systems, tasks)
        _write(path, pairs, lengths, task, choice, systems)
        build = time.perf_counter() - start

        db = connect(path)
        try:
            reads = []
            for _ in range(repeat):
                start = time.perf_counter()
                found = read_source(db, STUDY, "labels")
                reads.append(time.perf_counter() - start)
        finally:
            db.close()
        data = found.votes
        xs, ys, winners = _evalica_input(data, evalica)

        ours_fit, theirs_fit, ours_boot, ours_rank = [], [], [], []
        for _ in range(repeat):
            start = time.perf_counter()
            theta = point_scores(data)
            ours_fit.append(time.perf_counter() - start)
            start = time.perf_counter()
            result = evalica.bradley_terry(xs, ys, winners)
            theirs_fit.append(time.perf_counter() - start)
            start = time.perf_counter()
            task_bootstrap(task_segments(data), RESAMPLES, 0, theta)
            ours_boot.append(time.perf_counter() - start)
            start = time.perf_counter()
            report = rank(data, study=STUDY, source="labels", resamples=RESAMPLES, seed=0)
            ours_rank.append(time.perf_counter() - start)

        start = time.perf_counter()
        evalica.bootstrap(
            evalica.bradley_terry,
            xs,
            ys,
            winners,
            n_resamples=evalica_resamples,
            bootstrap_method="percentile",
            random_state=0,
        )
        theirs_boot_raw = time.perf_counter() - start
        # A resample refits on as many votes as the first fit: the time is shared among them
        # (a fit timed apart and subtracted left nothing, or less, on a loaded machine).
        per_resample = theirs_boot_raw / (evalica_resamples + 1)
        theirs_boot = per_resample * RESAMPLES

        command = [
            sys.executable,
            "-m",
            "abp_tui",
            "--db",
            str(path),
            "ranking",
            "--source",
            "labels",
            "--resamples",
            str(RESAMPLES),
            "--json",
        ]
        whole = []
        for _ in range(repeat):
            start = time.perf_counter()
            subprocess.run(command, check=True, capture_output=True)
            whole.append(time.perf_counter() - start)

    theirs_scores = np.log(result.scores.reindex(list(data.systems)).to_numpy(dtype=float))
    agreement = float(
        np.abs((theta - theta.mean()) - (theirs_scores - theirs_scores.mean())).max()
        * ELO_PER_LOGIT
    )
    point, boot = _median(ours_fit), _median(ours_boot)
    return {
        "benchmark": "ranking",
        "votes": len(data),
        "systems": len(data.systems),
        "tasks": len(data.tasks),
        "resamples": RESAMPLES,
        "repeat": repeat,
        "build_seconds": build,
        "read_seconds": _median(reads),
        "read": "services.ranking.read_source(labels): one query, NumPy columns to votes",
        "point_fit": {
            "ours": "analysis.ranking.fit.point_scores: per-pair counts, Newton's method",
            "ours_seconds": point,
            "ours_samples": ours_fit,
            "baseline": "evalica.bradley_terry on the same votes in memory (names and winners)",
            "baseline_seconds": _median(theirs_fit),
            "baseline_samples": theirs_fit,
            "ratio": point / _median(theirs_fit),
            "goal": f"ratio <= {POINT_GOAL:g}",
            "met": point / _median(theirs_fit) <= POINT_GOAL,
            "largest_score_difference_elo": agreement,
        },
        "intervals": {
            "ours": f"stats.ranking.task_bootstrap: {RESAMPLES} resamples of the tasks over "
            "per-task counts, warm-started Newton fits",
            "ours_seconds": boot,
            "ours_samples": ours_boot,
            "baseline": f"evalica.bootstrap(bradley_terry, percentile) timed on "
            f"{evalica_resamples} resamples of single votes, its time over its first fit and "
            f"its resamples, scaled "
            f"to {RESAMPLES}",
            "baseline_raw_seconds": theirs_boot_raw,
            "baseline_seconds": theirs_boot,
            "speedup": theirs_boot / boot if boot > 0 else None,
            "goal": f"speedup >= {INTERVAL_GOAL:g}",
            "met": boot > 0 and theirs_boot / boot >= INTERVAL_GOAL,
        },
        "rank_seconds": _median(ours_rank),
        "rank": "analysis.ranking.fit.rank: point fit, bootstrap, pairwise table, length bias and "
        "the length-controlled fit, from the votes in memory",
        "command_seconds": _median(whole),
        "command": "python -m abp_tui ranking --source labels --resamples 1000 --json, from the "
        "database, a fresh process",
        "top": [s.condition for s in report.systems[:3]],
        "environment": {
            "python": platform.python_version(),
            "numpy": dist_version("numpy"),
            "scipy": dist_version("scipy"),
            "evalica": dist_version("evalica"),
            "machine": platform.machine(),
        },
    }
