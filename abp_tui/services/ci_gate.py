"""The CI regression gate's use cases: snapshot a run as the baseline, gate a run against one.

A run to gate is an Arena ``results.json`` (or the Arena run folder holding it), an ABP run
folder (an ``abp-run/v1`` configuration and one ``abp-trace/v1`` file per task x engine x
trial), or a study already in the database. Files are read with the project's own readers
(:mod:`abp_tui.formats`) straight into run facts, without writing anything to the database, and
every file read becomes a receipt with its SHA-256. The figures and the decision are
:mod:`abp_tui.analysis.regression_gate`'s; the baseline file is :mod:`abp_tui.export.baseline`'s.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlite_utils

from abp_tui.analysis.matched_models import model_match
from abp_tui.analysis.regression_gate import (
    Baseline,
    GateConfig,
    GateReport,
    Receipt,
    RunFigures,
    RunSource,
    build_baseline,
    engine_figures,
    evaluate_gate,
)
from abp_tui.errors import AbpError, InputError
from abp_tui.export.baseline import read_baseline, write_baseline
from abp_tui.formats import detect
from abp_tui.formats.abp import AbpRun
from abp_tui.formats.arena import RunManifest
from abp_tui.formats.base import (
    Format,
    Invalid,
    ParseContext,
    check_input_file,
    peek_json,
    read_json,
    validate,
)
from abp_tui.models import Condition, Run, RunFacts
from abp_tui.store import bulk
from abp_tui.store.db import utc_now
from abp_tui.store.queries import diff_bytes, run_facts, study_protocol
from abp_tui.store.receipts import study_exists, study_imports
from abp_tui.text.hints import no_such_study

OpenDb = Callable[[], sqlite_utils.Database]
"""Opens the database only when RESULTS names a study rather than a file."""


def _sha256(path: Path, display: str) -> tuple[str, int]:
    hasher = hashlib.sha256()
    size = 0
    check_input_file(path, display)
    try:
        with path.open("rb") as handle:
            while chunk := handle.read(1 << 20):
                hasher.update(chunk)
                size += len(chunk)
    except OSError as exc:
        raise InputError(display, f"cannot read file: {exc.strerror}") from None
    return hasher.hexdigest(), size


def receipt(path: Path, role: str, display: str | None = None) -> Receipt:
    shown = display or str(path)
    sha, size = _sha256(path, shown)
    return Receipt.model_validate({"role": role, "path": shown, "sha256": sha, "bytes": size})


def facts_of_run(run: Run) -> RunFacts:
    """A parsed run's facts as the store would report them (total: else input + output)."""
    tokens = run.tokens
    total = None
    if tokens is not None:
        total = tokens.total
        if total is None and tokens.input is not None and tokens.output is not None:
            total = tokens.input + tokens.output
    return RunFacts(
        id=run.id,
        task=run.task_id,
        condition=run.condition_id,
        trial=run.trial,
        origin_status=run.origin_status,
        automated_outcome=run.automated_outcome,
        excluded_reason=run.excluded_reason,
        total_tokens=total,
        wall_clock_ms=run.wall_clock_ms,
        cost_usd=run.cost_usd,
        diff_bytes=diff_bytes(run.metadata),
    )


@dataclass
class _Parsed:
    facts: list[RunFacts]
    models: dict[str, str | None]
    conditions: list[Condition]
    """The engines as the run configuration declares them (their matchedModels stamp)."""


def _runs(files: Iterable[tuple[Path, str, Format]]) -> _Parsed:
    """Every run of the files, by their own readers; an invalid record refuses the whole run."""
    facts: list[RunFacts] = []
    models: dict[str, str | None] = {}
    conditions: list[Condition] = []
    for path, display, fmt in files:
        for record in fmt.parse(path, ParseContext(display=display)):
            if isinstance(record, Invalid):
                raise record.error
            if isinstance(record, Condition):
                conditions.append(record)
            if isinstance(record, Run):
                facts.append(facts_of_run(record))
                if record.model and models.get(record.condition_id) is None:
                    models[record.condition_id] = record.model
    return _Parsed(facts, models, conditions)


def _trials(facts: Iterable[RunFacts]) -> int | None:
    """Trials per task when the source does not say: the most runs of one engine on one task."""
    counts = Counter((f.condition, f.task) for f in facts)
    return max(counts.values()) if counts else None


def _figures(
    source: RunSource,
    parsed: _Parsed,
    listed: list[str],
    trials: int | None,
    receipts: list[Receipt],
    protocol: str = "",
) -> RunFigures:
    tasks = listed or sorted({f.task for f in parsed.facts})
    return RunFigures(
        source=source,
        task_ids=tuple(sorted(dict.fromkeys(tasks))),
        trials=trials if trials is not None else _trials(parsed.facts),
        engines=tuple(engine_figures(parsed.facts, parsed.models)),
        receipts=tuple(receipts),
        model_match=model_match(protocol, parsed.conditions),
    )


def _arena(path: Path, display: str, fmt: Format) -> RunFigures:
    document: Any = peek_json(path)
    if document is None:
        document = read_json(path, display)
    manifest = validate(RunManifest, document.get("manifest"), display, prefix="$.manifest")
    parsed = _runs([(path, display, fmt)])
    harness = None
    if manifest.harness is not None and manifest.harness.name:
        harness = " ".join(filter(None, [manifest.harness.name, manifest.harness.version]))
    source = RunSource(kind="arena-results", id=manifest.runId, harness=harness)
    return _figures(
        source,
        parsed,
        list(manifest.taskIds),
        manifest.trials,
        [receipt(path, "results", display)],
        "arena",
    )


def _folder_files(folder: Path) -> list[tuple[Path, str, Format]]:
    found: list[tuple[Path, str, Format]] = []
    for child in sorted(p for p in folder.rglob("*") if p.is_file()):
        if any(part.startswith(".") for part in child.relative_to(folder).parts):
            continue
        fmt = detect(child)
        if fmt is not None:
            found.append((child, str(child), fmt))
    return found


def _abp_folder(folder: Path, files: list[tuple[Path, str, Format]]) -> RunFigures:
    configs = [f for f in files if f[2].name == "abp-run"]
    traces = [f for f in files if f[2].name == "abp-trace"]
    if len(configs) > 1:
        names = ", ".join(d for _p, d, _f in configs)
        raise InputError(str(folder), f"expected one abp-run/v1 configuration, found {names}")
    listed: list[str] = []
    trials = None
    run_id = folder.absolute().name
    receipts: list[Receipt] = []
    if configs:
        path, display, _fmt = configs[0]
        config = validate(AbpRun, read_json(path, display), display)
        listed, trials = list(config.tasks), config.trials
        extra = config.model_extra or {}
        if isinstance(extra.get("runId"), str) and extra["runId"]:
            run_id = extra["runId"]
        receipts.append(receipt(path, "results", display))
    receipts += [receipt(p, "results", d) for p, d, _f in traces]
    # The configuration's own reader yields its engines with their matchedModels stamp.
    parsed = _runs([*configs, *traces])
    return _figures(
        RunSource(kind="abp-run-folder", id=run_id), parsed, listed, trials, receipts, "abp"
    )


def _study(db: sqlite_utils.Database, study: str) -> RunFigures:
    facts = run_facts(db, study)
    receipts = [
        Receipt(role="import", path=f.file_name, sha256=f.sha256, bytes=f.size)
        for f in study_imports(db, study)
    ]
    parsed = _Parsed(facts, {}, bulk.conditions(db, study))
    return _figures(
        RunSource(kind="study", id=study),
        parsed,
        [],
        None,
        receipts,
        study_protocol(db, study) or "",
    )


def load_run(target: str, open_db: OpenDb) -> RunFigures:
    """RESULTS as the gate reads it: a results.json, a run folder, or a study id."""
    path = Path(target)
    if path.is_file():
        fmt = detect(path)
        if fmt is None or fmt.name != "arena":
            raise InputError(
                target,
                "expected an Arena results.json, an ABP run folder or a study id "
                f"(this file is {'in no known format' if fmt is None else fmt.name})",
            )
        return _arena(path, target, fmt)
    if path.is_dir():
        files = _folder_files(path)
        arena = [f for f in files if f[2].name == "arena"]
        if len(arena) == 1 and not any(f[2].name == "abp-trace" for f in files):
            return _arena(*arena[0])
        if any(f[2].name == "abp-trace" for f in files):
            return _abp_folder(path, files)
        raise InputError(
            target,
            "expected an Arena run folder (one results.json) or an ABP run folder "
            "(abp-trace/v1 files); found neither",
        )
    db = open_db()
    if not study_exists(db, target):
        raise AbpError(f"{target}: no such file or folder, and {no_such_study(target, db)}")
    return _study(db, target)


def save_baseline(target: str, out: Path, open_db: OpenDb, engine: str | None = None) -> Baseline:
    """Snapshot RESULTS into the baseline file ``out`` (replaced whole, never half-written)."""
    baseline = build_baseline(load_run(target, open_db), utc_now(), engine)
    write_baseline(baseline, out)
    return baseline


def load_gate_config(path: Path | None) -> GateConfig:
    """The thresholds of a gate.json (Arena's names; an unknown key is refused), or defaults."""
    if path is None:
        return GateConfig()
    data = read_json(path, str(path))
    if not isinstance(data, dict):
        raise InputError(str(path), "expected a JSON object of gate thresholds", path="$")
    return validate(GateConfig, data, str(path))


def run_gate(
    target: str,
    baseline_path: Path,
    config: GateConfig,
    open_db: OpenDb,
    engine: str | None = None,
) -> GateReport:
    """Gate RESULTS against the baseline file; the report says pass or fail and why."""
    baseline = read_baseline(baseline_path)
    run = load_run(target, open_db)
    return evaluate_gate(
        baseline, run, config, engine, receipt(baseline_path, "baseline", str(baseline_path))
    )
