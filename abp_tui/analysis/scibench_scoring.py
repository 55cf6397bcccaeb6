"""The scientific benchmark's deterministic scorer (seed 004): a submission against each oracle.

Each case of the specification carries its oracle (``expected``: the decision, contract status,
classification, knowledge ids, finding codes, qualification codes, the numerical witness) and
the dimensions it scores. A structured submission is scored case by case and dimension by
dimension, every outcome ``pass``, ``fail`` or ``unscored`` with the reason:

- ``schema_validity``: the submission has exactly the fields of the submission shape, its
  schema version and benchmark id are the specification's, its condition is one of the
  lattice, it answers every case once, and each answer's fields have their declared types and
  vocabularies (a malformed answer is still scored on the other dimensions);
- ``model_semantic_correctness``: action, contract status and classification are the oracle's;
- ``physical_correctness``: every expected qualification code is stated;
- ``numerical_validity``: every witness field equals the oracle's (numbers within 1e-9,
  booleans exactly); unscored for a case without a witness;
- ``scientific_inference_correctness``: the same knowledge ids and finding codes as the oracle;
- ``reproducibility``: the provenance matches the pinned provenance when one is given;
  otherwise every provenance field must be present (a pair id, two SHA-256 digests). Missing
  provenance fails this dimension and nothing else;
- ``invalid_assumption_detection`` and ``abstention``: for a case of that kind, the decision
  is the oracle's (reject; abstain);
- a dimension the specification declares unscored (``code_correctness``), one a case does not
  score, or one this scorer has no oracle for stays ``unscored``: never a zero.

A case passes when none of its scored dimensions fails; a submission passes when it is
schema-valid and every case passes. These are the rules of the benchmark's own reference
checker, so that the conformance fixtures observe one pass and two failures as the seed says.
Pure: documents come in as parsed JSON, scores go out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Final, Literal

from abp_tui.models import Model

SCORER: Final = "sci-bench-oracle/1"
"""The scorer's name and version, stored with every automated outcome it produced."""

ACTIONS: Final = ("accept", "reject", "abstain")
STATUSES: Final = ("passed", "failed", "inapplicable", "indeterminate")
PROVENANCE_FIELDS: Final = (
    "federated_pair_id",
    "book_llm_corpus_sha256",
    "bmopftools_executable_corpus_sha256",
)
SUBMISSION_FIELDS: Final = frozenset(
    {"schema_version", "benchmark_id", "run_id", "condition_id", "system", "provenance", "cases"}
)
CASE_FIELDS: Final = frozenset(
    {
        "case_id",
        "action",
        "contract_status",
        "classification",
        "knowledge_ids",
        "finding_codes",
        "qualification_codes",
    }
)
CODE_LISTS: Final = ("knowledge_ids", "finding_codes", "qualification_codes")
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_PSK_ID = re.compile(r"^PSK-[0-9]{6}$")
_TOLERANCE: Final = 1e-9
KIND_DECISION: Final = {
    "invalid_assumption_detection": ("invalid_assumption_detection", "reject"),
    "abstention": ("abstention", "abstain"),
}
"""A case kind -> the dimension it adds and the decision that passes it when the oracle does
not state one."""

Outcome = Literal["pass", "fail", "unscored"]


class DimensionScore(Model):
    dimension: str
    outcome: Outcome
    reason: str
    """Why: what was compared, or why the dimension is not scored."""


class CaseScore(Model):
    case_id: str
    task_kind: str
    passed: bool
    """No scored dimension failed."""
    dimensions: tuple[DimensionScore, ...]
    """Every dimension of the specification, in its order."""

    def outcome(self, dimension: str) -> Outcome:
        return next(d.outcome for d in self.dimensions if d.dimension == dimension)


class SubmissionScore(Model):
    run_id: str | None
    condition_id: str | None
    passed: bool
    validation_errors: tuple[str, ...]
    """Why the submission is not schema-valid, one line each with its JSON path."""
    provenance_rule: Literal["pinned", "present"]
    """How reproducibility was decided: against pinned provenance, or that it is all present."""
    cases: tuple[CaseScore, ...]

    def case(self, case_id: str) -> CaseScore:
        return next(c for c in self.cases if c.case_id == case_id)

    @property
    def failed_dimensions(self) -> list[str]:
        """Each dimension that failed in some case, in the specification's order."""
        seen: dict[str, None] = {}
        for case in self.cases:
            for d in case.dimensions:
                if d.outcome == "fail":
                    seen.setdefault(d.dimension)
        return list(seen)


# -- schema validity -------------------------------------------------------------------------


def _string_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _nonempty(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def validate_submission(submission: Any, spec: Mapping[str, Any]) -> list[str]:
    """Every way the submission departs from the submission shape, as ``$.path: expected``."""
    if not isinstance(submission, Mapping):
        return ["$: expected a JSON object"]
    errors: list[str] = []
    for name in sorted(SUBMISSION_FIELDS - submission.keys()):
        errors.append(f"$: required field {name!r} is missing")
    for name in sorted(submission.keys() - SUBMISSION_FIELDS):
        errors.append(f"$: unexpected field {name!r}")
    version = spec.get("schema_version")
    if "schema_version" in submission and submission["schema_version"] != version:
        errors.append(f"$.schema_version: expected {version!r}")
    if "benchmark_id" in submission and submission["benchmark_id"] != spec.get("benchmark_id"):
        errors.append(f"$.benchmark_id: expected {spec.get('benchmark_id')!r}")
    if "run_id" in submission and not _nonempty(submission["run_id"]):
        errors.append("$.run_id: expected a non-empty string")
    order = spec.get("condition_order") or [
        c.get("condition_id") for c in spec.get("conditions", []) if isinstance(c, Mapping)
    ]
    if "condition_id" in submission and submission["condition_id"] not in order:
        errors.append("$.condition_id: expected a condition of the specification's lattice")
    system = submission.get("system")
    if "system" in submission:
        if not isinstance(system, Mapping):
            errors.append("$.system: expected an object")
        else:
            for name in ("provider", "model_id", "model_revision"):
                if not _nonempty(system.get(name)):
                    errors.append(f"$.system.{name}: expected a non-empty string")
    provenance = submission.get("provenance")
    if "provenance" in submission:
        if not isinstance(provenance, Mapping):
            errors.append("$.provenance: expected an object")
        elif set(provenance) != set(PROVENANCE_FIELDS):
            errors.append(
                f"$.provenance: expected exactly the fields {', '.join(PROVENANCE_FIELDS)}"
            )
    cases = submission.get("cases")
    if "cases" in submission and not isinstance(cases, list):
        errors.append("$.cases: expected an array")
    elif isinstance(cases, list):
        errors += _validate_cases(cases, spec)
    return errors


def _validate_cases(cases: list[Any], spec: Mapping[str, Any]) -> list[str]:
    errors: list[str] = []
    expected = [c["case_id"] for c in spec.get("cases", []) if isinstance(c, Mapping)]
    ids = [c.get("case_id") for c in cases if isinstance(c, Mapping)]
    duplicated = sorted({str(i) for i in ids if ids.count(i) > 1})
    if duplicated:
        errors.append(f"$.cases: expected each case once (repeated: {', '.join(duplicated)})")
    missing = [c for c in expected if c not in ids]
    extra = sorted(str(i) for i in ids if i not in expected)
    if missing:
        errors.append(f"$.cases: expected an answer to every case (missing: {', '.join(missing)})")
    if extra:
        errors.append(f"$.cases: unknown case {', '.join(extra)}")
    for i, case in enumerate(cases):
        at = f"$.cases[{i}]"
        if not isinstance(case, Mapping):
            errors.append(f"{at}: expected an object")
            continue
        for name in sorted(CASE_FIELDS - case.keys()):
            errors.append(f"{at}: required field {name!r} is missing")
        for name in sorted(case.keys() - CASE_FIELDS - {"witness"}):
            errors.append(f"{at}: unexpected field {name!r}")
        if "action" in case and case["action"] not in ACTIONS:
            errors.append(f"{at}.action: expected one of {', '.join(ACTIONS)}")
        if "contract_status" in case and case["contract_status"] not in STATUSES:
            errors.append(f"{at}.contract_status: expected one of {', '.join(STATUSES)}")
        for name in CODE_LISTS:
            if name in case and not _string_list(case[name]):
                errors.append(f"{at}.{name}: expected an array of strings")
        knowledge = case.get("knowledge_ids")
        if (
            isinstance(knowledge, list)
            and _string_list(knowledge)
            and not all(_PSK_ID.fullmatch(k) for k in knowledge)
        ):
            errors.append(f"{at}.knowledge_ids: expected PSK-NNNNNN identities")
        if "witness" in case and not isinstance(case["witness"], Mapping):
            errors.append(f"{at}.witness: expected an object")
    return errors


# -- dimensions ------------------------------------------------------------------------------


def _equal(actual: Any, expected: Any) -> bool:
    if isinstance(expected, bool):
        return actual is expected
    if isinstance(expected, int | float):
        return (
            isinstance(actual, int | float)
            and not isinstance(actual, bool)
            and abs(float(actual) - float(expected)) <= _TOLERANCE
        )
    return bool(actual == expected)


def _codes(answer: Mapping[str, Any], name: str) -> set[str]:
    value = answer.get(name)
    return {v for v in value if isinstance(v, str)} if isinstance(value, list) else set()


def _provenance(
    submission: Mapping[str, Any], pinned: Mapping[str, Any] | None
) -> tuple[bool, str]:
    given = submission.get("provenance")
    if not isinstance(given, Mapping):
        return False, "no provenance"
    if pinned is not None:
        differs = [f for f in PROVENANCE_FIELDS if given.get(f) != pinned.get(f)]
        if differs:
            return False, f"provenance differs from the pinned provenance: {', '.join(differs)}"
        return True, "provenance matches the pinned provenance"
    missing = []
    for name in PROVENANCE_FIELDS:
        value = given.get(name)
        digest = name.endswith("sha256")
        if not isinstance(value, str) or not (
            _SHA256.fullmatch(value) if digest else value.strip()
        ):
            missing.append(name)
    if missing:
        return False, f"provenance missing or malformed: {', '.join(missing)}"
    return True, "provenance present (no pinned provenance to compare with)"


def _kind_check(task: Mapping[str, Any], dimension: str) -> str | None:
    """The decision that passes ``dimension`` for this case, or None when it does not apply."""
    kind = str(task.get("task_kind", ""))
    adds = KIND_DECISION.get(kind)
    if adds is None or adds[0] != dimension:
        return None
    expected = task.get("expected", {})
    decision = expected.get("action") if isinstance(expected, Mapping) else None
    return decision if isinstance(decision, str) else adds[1]


def _dimension(
    dimension: str,
    task: Mapping[str, Any],
    answer: Mapping[str, Any] | None,
    valid: bool,
    reproducible: tuple[bool, str],
) -> tuple[bool | None, str]:
    """(passed, why) of one scored dimension; (None, why) when there is no oracle for it."""
    expected: Mapping[str, Any] = task.get("expected") or {}
    if answer is None:
        return False, "no answer to this case"
    if dimension == "schema_validity":
        return valid, "the submission matches its schema" if valid else "schema errors (listed)"
    if dimension == "model_semantic_correctness":
        fields = ("action", "contract_status", "classification")
        wrong = [f for f in fields if answer.get(f) != expected.get(f)]
        if wrong:
            return False, f"differs from the oracle: {', '.join(wrong)}"
        return True, "action, contract status and classification are the oracle's"
    if dimension == "physical_correctness":
        stated = _codes(answer, "qualification_codes")
        lacking = [c for c in expected.get("qualification_codes", []) if c not in stated]
        if lacking:
            return False, f"qualification codes missing: {', '.join(lacking)}"
        return True, "every expected qualification code is stated"
    if dimension == "numerical_validity":
        witness = expected.get("witness")
        if not isinstance(witness, Mapping):
            return None, "the case has no numerical witness"
        given = answer.get("witness")
        if not isinstance(given, Mapping):
            return False, "no witness given"
        wrong = [k for k, v in witness.items() if not _equal(given.get(k), v)]
        if wrong:
            return False, f"witness differs: {', '.join(wrong)}"
        return True, "the witness equals the oracle's"
    if dimension == "scientific_inference_correctness":
        names = ("knowledge_ids", "finding_codes")
        wrong = [n for n in names if _codes(answer, n) != set(expected.get(n, []))]
        if wrong:
            return False, f"differs from the oracle: {', '.join(wrong)}"
        return True, "knowledge ids and finding codes are the oracle's"
    if dimension == "reproducibility":
        return reproducible
    decision = _kind_check(task, dimension)
    if dimension in ("invalid_assumption_detection", "abstention"):
        if decision is None:
            return None, f"not a case of {dimension}"
        action = answer.get("action")
        return action == decision, f"decision {action!r}, expected {decision!r}"
    return None, "no automated oracle for this dimension"


def score_submission(
    submission: Any, spec: Mapping[str, Any], pinned: Mapping[str, Any] | None = None
) -> SubmissionScore:
    """Score one structured submission against the specification's oracles."""
    errors = validate_submission(submission, spec)
    body: Mapping[str, Any] = submission if isinstance(submission, Mapping) else {}
    answers: dict[str, Mapping[str, Any]] = {}
    raw_cases = body.get("cases")
    for case in raw_cases if isinstance(raw_cases, list) else []:
        if isinstance(case, Mapping) and isinstance(case.get("case_id"), str):
            answers.setdefault(case["case_id"], case)
    reproducible = _provenance(body, pinned)
    declared: Sequence[str] = spec.get("scoring_dimensions", [])
    unscored: Mapping[str, str] = spec.get("unscored_dimensions", {})
    scores: list[CaseScore] = []
    for task in spec.get("cases", []):
        scored = set(task.get("dimensions_scored", []))
        dims: list[DimensionScore] = []
        for dimension in declared:
            passed: bool | None
            if dimension in unscored:
                passed, why = None, f"unscored: {unscored[dimension]}"
            elif dimension not in scored:
                passed, why = None, "this case does not score it"
            else:
                answer = answers.get(task["case_id"])
                passed, why = _dimension(dimension, task, answer, not errors, reproducible)
            outcome: Outcome = "unscored" if passed is None else "pass" if passed else "fail"
            dims.append(DimensionScore(dimension=dimension, outcome=outcome, reason=why))
        scores.append(
            CaseScore(
                case_id=task["case_id"],
                task_kind=str(task.get("task_kind", "")),
                passed=all(d.outcome != "fail" for d in dims),
                dimensions=tuple(dims),
            )
        )
    run_id, condition = body.get("run_id"), body.get("condition_id")
    return SubmissionScore(
        run_id=run_id if isinstance(run_id, str) else None,
        condition_id=condition if isinstance(condition, str) else None,
        passed=not errors and all(c.passed for c in scores),
        validation_errors=tuple(errors),
        provenance_rule="pinned" if pinned is not None else "present",
        cases=tuple(scores),
    )


# -- the conformance report ------------------------------------------------------------------


class DimensionCount(Model):
    dimension: str
    scored: int
    passed: int
    failed: int
    unscored: int


class FixtureResult(Model):
    fixture: str
    """The submission's file name (how the specification's conformance list names it)."""
    expected_pass: bool | None
    """What the specification says the fixture must observe; None when it does not list it."""
    score: SubmissionScore

    @property
    def conforms(self) -> bool | None:
        return None if self.expected_pass is None else self.expected_pass == self.score.passed


class ConformanceSummary(Model):
    fixtures: int
    expected_passing: int
    observed_passing: int
    mismatches: tuple[str, ...]
    """Fixtures whose observed outcome is not the one the specification expects."""
    dimension_counts: tuple[DimensionCount, ...]


def expected_outcomes(spec: Mapping[str, Any]) -> dict[str, bool]:
    """File name -> the outcome the specification's conformance list expects of it."""
    out: dict[str, bool] = {}
    for fixture in spec.get("conformance_fixtures", []):
        if isinstance(fixture, Mapping) and isinstance(fixture.get("expected_pass"), bool):
            name = str(fixture.get("path", "")).rsplit("/", 1)[-1]
            out[name] = fixture["expected_pass"]
    return out


def summarize(spec: Mapping[str, Any], results: Sequence[FixtureResult]) -> ConformanceSummary:
    counts: list[DimensionCount] = []
    for dimension in spec.get("scoring_dimensions", []):
        outcomes = [c.outcome(dimension) for r in results for c in r.score.cases]
        counts.append(
            DimensionCount(
                dimension=dimension,
                scored=sum(o != "unscored" for o in outcomes),
                passed=outcomes.count("pass"),
                failed=outcomes.count("fail"),
                unscored=outcomes.count("unscored"),
            )
        )
    return ConformanceSummary(
        fixtures=len(results),
        expected_passing=sum(1 for r in results if r.expected_pass is True),
        observed_passing=sum(1 for r in results if r.score.passed),
        mismatches=tuple(r.fixture for r in results if r.conforms is False),
        dimension_counts=tuple(counts),
    )


__all__ = [
    "SCORER",
    "CaseScore",
    "ConformanceSummary",
    "DimensionCount",
    "DimensionScore",
    "FixtureResult",
    "SubmissionScore",
    "expected_outcomes",
    "score_submission",
    "summarize",
    "validate_submission",
]
