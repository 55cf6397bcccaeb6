"""Score sci-bench submissions and run records (seed 004), and store the automated outcomes.

The files are a specification (``sci-spec``: the cases and their oracles), structured
submissions (``sci-submission``) and pilot run records (``sci-run``), found among the paths given
(folders: every file of these formats in them). Each submission is scored dimension by dimension
(:mod:`abp_tui.analysis.scibench_scoring`); a run record gets its submission's scores when the
submission it references by SHA-256 is among the files, and an excluded record stays visible,
unscored, with its reason. When the specification lists its conformance fixtures, the report
says whether each observed what it expects.

With a study, each scored case is stored against the study's run of the same id
(``<run_id>/<case_id>``) after checking that the stored answer is the one scored; the compare
screen shows it after the reviewer's own submission and results count it as the automated
judge. Nothing is written for a run the study does not hold, or holds with another answer.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

import sqlite_utils

from abp_tui.analysis.scibench_scoring import (
    SCORER,
    CaseScore,
    ConformanceSummary,
    FixtureResult,
    expected_outcomes,
    score_submission,
    summarize,
)
from abp_tui.errors import AbpError, InputError
from abp_tui.formats import detect
from abp_tui.formats.base import check_input_file, read_json, validate
from abp_tui.formats.scibench import SciPilotRun, SciSpec
from abp_tui.models import Model
from abp_tui.store.automated import (
    AutomatedScore,
    ScoreRow,
    current_run_pks,
    item_scores,
    store_scores,
)
from abp_tui.store.judging import item_by_code
from abp_tui.store.receipts import study_exists
from abp_tui.text.hints import no_such_study

KINDS = {"sci-spec": "spec", "sci-submission": "submission", "sci-run": "run"}


class FileReceipt(Model):
    path: str
    sha256: str


class RunRecordScore(Model):
    """A pilot run record and what its submission scored."""

    file: str
    run_id: str
    condition_id: str
    repetition_index: int
    status: Literal["scored", "excluded", "submission not given", "hash mismatch"]
    detail: str
    submission: str | None
    """The submission file scored for it (when found by its SHA-256)."""
    passed: bool | None
    cases: tuple[CaseScore, ...] = ()


class StoredOutcome(Model):
    run_id: str
    status: Literal["stored", "already stored", "not in the study", "answer differs"]


class SciBenchReport(Model):
    spec: FileReceipt
    benchmark_id: str
    scorer: str
    provenance_rule: Literal["pinned", "present"]
    fixtures: tuple[FixtureResult, ...]
    run_records: tuple[RunRecordScore, ...]
    summary: ConformanceSummary
    receipts: tuple[FileReceipt, ...]
    study: str | None = None
    stored: tuple[StoredOutcome, ...] = ()

    @property
    def conforms(self) -> bool:
        """Every conformance fixture the specification lists observed what it expects."""
        return not self.summary.mismatches


def _sha(path: Path, display: str) -> str:
    check_input_file(path, display)
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as exc:
        raise InputError(display, f"cannot read file: {exc.strerror}") from None


def _collect(paths: Iterable[Path]) -> dict[str, list[tuple[Path, str]]]:
    found: dict[str, list[tuple[Path, str]]] = {"spec": [], "submission": [], "run": []}
    for path in paths:
        if path.is_dir():
            for child in sorted(p for p in path.rglob("*") if p.is_file()):
                if any(part.startswith(".") for part in child.relative_to(path).parts):
                    continue
                fmt = detect(child)
                if fmt is not None and fmt.name in KINDS:
                    found[KINDS[fmt.name]].append((child, str(child)))
        elif path.is_file():
            fmt = detect(path)
            if fmt is None or fmt.name not in KINDS:
                raise InputError(
                    str(path),
                    "expected a sci-bench specification, submission or run record "
                    f"(this file is {'in no known format' if fmt is None else fmt.name})",
                )
            found[KINDS[fmt.name]].append((path, str(path)))
        else:
            raise InputError(str(path), "no such file or folder")
    return found


def _pinned(path: Path | None) -> dict[str, Any] | None:
    """The pinned provenance: an object with the three provenance fields."""
    if path is None:
        return None
    data = read_json(path, str(path))
    needed = ("federated_pair_id", "book_llm_corpus_sha256", "bmopftools_executable_corpus_sha256")
    if not isinstance(data, dict):
        raise InputError(str(path), "expected a JSON object of pinned provenance", path="$")
    for name in needed:
        if not isinstance(data.get(name), str) or not data[name]:
            raise InputError(str(path), "expected a non-empty string", path=f"$.{name}")
    return {name: data[name] for name in needed}


def _run_record(
    path: Path, display: str, by_sha: dict[str, tuple[str, FixtureResult]]
) -> RunRecordScore:
    record = validate(SciPilotRun, read_json(path, display), display)
    common = {
        "file": display,
        "run_id": record.run_id,
        "condition_id": record.condition_id,
        "repetition_index": record.repetition_index,
    }
    if not record.exclusion.included:
        code = record.exclusion.reason_code or "EXCLUDED"
        return RunRecordScore(
            **common,
            status="excluded",
            detail=f"{code}, before any response; the record stays visible, unscored",
            submission=None,
            passed=None,
        )
    ref = record.submission
    if ref is None or not ref.sha256:
        return RunRecordScore(
            **common,
            status="submission not given",
            detail="the record references no submission hash",
            submission=None,
            passed=None,
        )
    found = by_sha.get(ref.sha256)
    if found is None:
        named = [d for d, _r in by_sha.values() if Path(d).name == Path(ref.path or "").name]
        if named:
            return RunRecordScore(
                **common,
                status="hash mismatch",
                detail=f"{named[0]} does not have the SHA-256 the record states ({ref.sha256})",
                submission=None,
                passed=None,
            )
        return RunRecordScore(
            **common,
            status="submission not given",
            detail=f"no file given has the SHA-256 of its submission {ref.path or ''}".rstrip(),
            submission=None,
            passed=None,
        )
    display_sub, result = found
    return RunRecordScore(
        **common,
        status="scored",
        detail=f"its submission {ref.path or display_sub} (SHA-256 verified)",
        submission=display_sub,
        passed=result.score.passed,
        cases=result.score.cases,
    )


def score_files(paths: Iterable[Path], provenance: Path | None = None) -> SciBenchReport:
    """Score every submission and run record among ``paths`` against their specification."""
    found = _collect(paths)
    if len(found["spec"]) != 1:
        names = ", ".join(d for _p, d in found["spec"])
        raise AbpError(
            "score sci-bench: expected one sci-bench specification among the paths "
            + (f"(found {len(found['spec'])}: {names})" if names else "(found none)")
        )
    spec_path, spec_display = found["spec"][0]
    spec_doc = read_json(spec_path, spec_display)
    spec = validate(SciSpec, spec_doc, spec_display)
    pinned = _pinned(provenance)
    expected = expected_outcomes(spec_doc)
    fixtures: list[FixtureResult] = []
    by_sha: dict[str, tuple[str, FixtureResult]] = {}
    receipts = [FileReceipt(path=spec_display, sha256=_sha(spec_path, spec_display))]
    for path, display in found["submission"]:
        result = FixtureResult(
            fixture=path.name,
            expected_pass=expected.get(path.name),
            score=score_submission(read_json(path, display), spec_doc, pinned),
        )
        fixtures.append(result)
        sha = _sha(path, display)
        by_sha[sha] = (display, result)
        receipts.append(FileReceipt(path=display, sha256=sha))
    records = []
    for path, display in found["run"]:
        records.append(_run_record(path, display, by_sha))
        receipts.append(FileReceipt(path=display, sha256=_sha(path, display)))
    if provenance is not None:
        receipts.append(FileReceipt(path=str(provenance), sha256=_sha(provenance, str(provenance))))
    return SciBenchReport(
        spec=receipts[0],
        benchmark_id=spec.benchmark_id,
        scorer=SCORER,
        provenance_rule="pinned" if pinned is not None else "present",
        fixtures=tuple(fixtures),
        run_records=tuple(records),
        summary=summarize(spec_doc, fixtures),
        receipts=tuple(receipts),
    )


def _row(run_id: str, case: CaseScore, extra: dict[str, Any]) -> ScoreRow:
    return ScoreRow(
        run_id=run_id,
        outcome="passed" if case.passed else "failed",
        dimensions=[d.model_dump(mode="json") for d in case.dimensions],
        document={"case": case.model_dump(mode="json"), **extra},
    )


def _answer_of(metadata_json: str) -> Any:
    return json.loads(metadata_json).get("case")


def store_report(
    db: sqlite_utils.Database, study: str, report: SciBenchReport, paths: Iterable[Path]
) -> SciBenchReport:
    """Store the report's case outcomes against the study's runs of the same ids."""
    if not study_exists(db, study):
        hint = (
            " (import names the spec's study after its benchmark_id: "
            f"--study {report.benchmark_id})"
            if study_exists(db, report.benchmark_id)
            else ""
        )
        raise AbpError(f"score sci-bench: {no_such_study(study, db)}{hint}")
    runs = current_run_pks(db, study)
    answers: dict[tuple[str, str], Any] = {}
    found = _collect(paths)
    for path, display in found["submission"]:
        document = read_json(path, display)
        cases = document.get("cases") if isinstance(document, dict) else None
        for case in cases if isinstance(cases, list) else []:
            if isinstance(case, dict) and isinstance(case.get("case_id"), str):
                answers.setdefault((display, case["case_id"]), case)
    by_display = {r.path: r.sha256 for r in report.receipts}
    outcomes: list[StoredOutcome] = []
    spec_sha = report.spec.sha256

    def put(
        run_id: str, case: CaseScore, answer: Any, sub_display: str, extra: dict[str, Any]
    ) -> None:
        held = runs.get(run_id)
        if held is None:
            outcomes.append(StoredOutcome(run_id=run_id, status="not in the study"))
            return
        pk, metadata = held
        stored_answer = _answer_of(metadata)
        if answer is not None and stored_answer is not None and stored_answer != answer:
            outcomes.append(StoredOutcome(run_id=run_id, status="answer differs"))
            return
        added = store_scores(
            db, study, SCORER, spec_sha, by_display[sub_display], [(pk, _row(run_id, case, extra))]
        )
        outcomes.append(
            StoredOutcome(run_id=run_id, status="stored" if added else "already stored")
        )

    for fixture, (_path, display) in zip(report.fixtures, found["submission"], strict=True):
        extra = {
            "submission": display,
            "validation_errors": list(fixture.score.validation_errors),
            "provenance_rule": report.provenance_rule,
        }
        for case in fixture.score.cases:
            if fixture.score.run_id is None:
                continue
            answer = answers.get((display, case.case_id))
            put(f"{fixture.score.run_id}/{case.case_id}", case, answer, display, extra)
    for record in report.run_records:
        if record.status != "scored" or record.submission is None:
            continue
        extra = {"submission": record.submission, "run_record": record.file,
                 "provenance_rule": report.provenance_rule}  # fmt: skip
        for case in record.cases:
            put(f"{record.run_id}/{case.case_id}", case, None, record.submission, extra)
    return report.model_copy(update={"study": study, "stored": tuple(outcomes)})


def revealed_scores(
    db: sqlite_utils.Database, design_pk: int, code: str, reviewer: str
) -> dict[str, AutomatedScore]:
    """The automated outcomes of an item's runs for a reviewer who has submitted their own
    judgment of it, keyed by run id (BlindingError before that: it would anchor them)."""
    return item_scores(db, item_by_code(db, design_pk, code, placed=False).pk, reviewer)
