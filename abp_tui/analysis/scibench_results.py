"""Results on a rubric where abstaining is a scored answer (seed 004, the scientific benchmark).

"Aggregation retains condition-level and dimension-level counts with no imputation or top-line
accuracy number": per condition, how many runs there are, how many are excluded (each listed
with its reason), how many abstained and how many are not scored yet; per condition and
dimension, pass / fail / not scored out of the eligible runs. No pass rate, no acceptance, no
fatal column. "Only a declared pre-response provider, harness, resource, or capture failure may
be excluded, and the excluded record remains visible."

The human gate before execution: until the pilot design is pre-registered, no condition effect
is presented (the contrasts are withheld, with the reason), and a synthetic dry run is a harness
check, never agent results. The status is the one the study's records declare when imported
(the specification's ``status``, kept in the study's description as ``Status: ...``).

Pure: the same function over the database's records and a bundle's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from abp_tui.models import ResultState, Rubric, RunFacts, RunOutcome
from abp_tui.models.base import Model

HARNESS_ONLY: Final = "synthetic_dry_run_harness_only_not_agent_results"
"""Seed 004's generated status of its synthetic run records."""
PREREGISTERED: Final = frozenset({"preregistered", "pre_registered", "pre-registered"})
HUMAN_SOURCES: Final = frozenset({"adjudicated", "unanimous", "single review"})
_STATUS_LINE = re.compile(r"^Status:\s*(\S.*?)\s*$", re.MULTILINE)


class SciRunTraits(Model):
    """What results need of a run's stored record beyond its facts."""

    synthetic: bool = False
    """No model produced it (a conformance fixture or a synthetic dry run)."""
    abstained: bool = False
    """Its structured answer abstains (``action: abstain``)."""


def run_traits(record: Mapping[str, Any]) -> SciRunTraits:
    """A run's traits from its stored record (the database's document, a bundle's ``record``)."""
    metadata = record.get("metadata")
    metadata = metadata if isinstance(metadata, Mapping) else {}
    case = metadata.get("case")
    action = case.get("action") if isinstance(case, Mapping) else None
    kind = metadata.get("record_kind")
    synthetic = bool(record.get("synthetic")) or (
        isinstance(kind, str) and kind.startswith("synthetic")
    )
    return SciRunTraits(synthetic=synthetic, abstained=action == "abstain")


PROTOCOL: Final = "sci-bench"


def applies(rubric: Rubric, protocol: str) -> bool:
    """Whether these results replace the pass-rate tables: a rubric that scores abstention, or
    a sci-bench study's automated outcomes."""
    if rubric.preference_only and not rubric.id.startswith("automated"):
        return False
    return rubric.allows_abstention or protocol == PROTOCOL


def declared_status(description: str) -> str:
    """The status the study's records declare (``Status: ...`` of its description), or ""."""
    found = _STATUS_LINE.findall(description)
    return found[-1] if found else ""


def is_preregistered(status: str) -> bool:
    return status.strip().lower() in PREREGISTERED


class SciConditionCounts(Model):
    condition: str
    runs: int
    """Every run of the condition, excluded ones included."""
    excluded: int
    """Declared pre-response failures: listed with their reasons, in no other count."""
    eligible: int
    abstained: int
    """Eligible runs whose structured answer abstains (scored, never excluded)."""
    not_scored: int
    """Eligible runs with no outcome yet (unjudged or unresolved): never imputed."""


class SciDimensionCounts(Model):
    condition: str
    dimension: str
    passed: int
    failed: int
    not_scored: int
    """Eligible runs whose dimension has no outcome (not scored for the case, unscored by the
    rubric, or not judged yet)."""
    n: int
    """Eligible runs of the condition."""


class SciExcluded(Model):
    run: str
    task: str
    condition: str
    trial: int
    state: str
    reason: str


class SciBenchResults(Model):
    """The seed 004 view of a design's (or a study's automated) results."""

    status: str
    """The pilot's declared status ("" when its records declare none)."""
    preregistered: bool
    harness_check: bool
    """Every run is synthetic: a harness check, never agent results."""
    synthetic_runs: int
    withheld: str
    """Why condition effects are not presented ("" when they are)."""
    conditions: list[SciConditionCounts]
    dimensions: list[SciDimensionCounts]
    excluded: list[SciExcluded]

    @property
    def notes(self) -> list[str]:
        out = []
        if self.harness_check:
            out.append(
                f"Synthetic dry run ({HARNESS_ONLY}): a harness check that the records can be "
                "validated and aggregated, not agent results; it supports no model comparison."
            )
        elif self.synthetic_runs:
            out.append(
                f"{self.synthetic_runs} runs are synthetic fixtures (harness checks), not agent "
                "results."
            )
        if self.withheld:
            out.append(self.withheld)
        out.append(
            "Counts per condition and dimension, no imputation and no top-line accuracy: a "
            "refusal, an abstention, an invalid structured response or tool misuse is scored; "
            "only a declared pre-response provider, harness, resource or capture failure is "
            "excluded, and it is listed with its reason."
        )
        return out


def _excluded(run: RunFacts, outcome: RunOutcome) -> bool:
    state = outcome.state
    return run.excluded_reason is not None or (
        state is not None and state in (ResultState.PROVIDER_BLOCK, ResultState.INFRA_ERROR)
    )


def _dimension_outcome(
    rubric: Rubric, outcome: RunOutcome, judged: Sequence[Mapping[str, Any]] | None, dim: str
) -> str | None:
    """pass, fail or None (not scored) for one run's dimension."""
    if outcome.source in HUMAN_SOURCES:
        score = outcome.scores.get(dim)
        if score is None:
            return None
        scale = next((d.scale for d in rubric.dimensions if d.id == dim), (0, 2))
        return "pass" if score >= max(scale) else "fail"
    if outcome.source == "automated" and judged:
        for d in judged:
            if d.get("dimension") == dim:
                value = d.get("outcome")
                return value if value in ("pass", "fail") else None
    return None


def scibench_results(
    rubric: Rubric,
    runs: Sequence[RunFacts],
    run_outcomes: Sequence[RunOutcome],
    judge_dimensions: Mapping[str, Sequence[Mapping[str, Any]]],
    traits: Mapping[str, SciRunTraits],
    status: str,
) -> SciBenchResults:
    """Condition and dimension counts, the excluded runs with their reasons, and whether
    condition effects may be presented."""
    by_condition: dict[str, list[tuple[RunFacts, RunOutcome]]] = {}
    for run, o in zip(runs, run_outcomes, strict=True):
        by_condition.setdefault(run.condition, []).append((run, o))
    conditions, dimensions, excluded = [], [], []
    dims = [d.id for d in rubric.dimensions if d.scored or d.pass_fail] or list(
        dict.fromkeys(str(d.get("dimension")) for ds in judge_dimensions.values() for d in ds)
    )
    for condition in sorted(by_condition):
        rows = by_condition[condition]
        eligible = [(r, o) for r, o in rows if not _excluded(r, o)]
        for r, o in rows:
            if _excluded(r, o):
                excluded.append(
                    SciExcluded(
                        run=r.id,
                        task=r.task,
                        condition=r.condition,
                        trial=r.trial,
                        state=(o.state or r.origin_status or ResultState.INFRA_ERROR).value,
                        reason=r.excluded_reason or "",
                    )
                )
        conditions.append(
            SciConditionCounts(
                condition=condition,
                runs=len(rows),
                excluded=len(rows) - len(eligible),
                eligible=len(eligible),
                abstained=sum(
                    1 for r, _o in eligible if traits.get(r.id, SciRunTraits()).abstained
                ),
                not_scored=sum(1 for _r, o in eligible if o.state is None),
            )
        )
        for dim in dims:
            found = [
                _dimension_outcome(rubric, o, judge_dimensions.get(r.id), dim) for r, o in eligible
            ]
            dimensions.append(
                SciDimensionCounts(
                    condition=condition,
                    dimension=dim,
                    passed=found.count("pass"),
                    failed=found.count("fail"),
                    not_scored=found.count(None),
                    n=len(eligible),
                )
            )
    synthetic = sum(1 for r in runs if traits.get(r.id, SciRunTraits()).synthetic)
    preregistered = is_preregistered(status)
    harness = bool(runs) and synthetic == len(runs)
    withheld = ""
    if not preregistered:
        shown = status or "none declared"
        withheld = (
            f"{WITHHELD_PREFIX} the pilot design is not pre-registered (status: "
            f"{shown}); seed 004's human gate must pass before any condition effect is "
            "presented."
        )
    elif harness:
        withheld = f"{WITHHELD_PREFIX} every run is a synthetic harness check."
    return SciBenchResults(
        status=status,
        preregistered=preregistered,
        harness_check=harness,
        synthetic_runs=synthetic,
        withheld=withheld,
        conditions=conditions,
        dimensions=dimensions,
        excluded=excluded,
    )


WITHHELD_PREFIX: Final = "Condition effects withheld:"


def sci_withheld(notes: Iterable[str]) -> str:
    """The note saying why condition effects are withheld, among a results' notes ("")."""
    return next((n for n in notes if n.startswith(WITHHELD_PREFIX)), "")


def all_traits(records: Iterable[tuple[str, Mapping[str, Any]]]) -> dict[str, SciRunTraits]:
    """Run id -> traits, from (run id, stored record) pairs."""
    return {run: run_traits(record) for run, record in records}
