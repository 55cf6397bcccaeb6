"""Results from automated outcomes alone: the scope of a study nobody designed a judging for.

An Arena ``results.json`` or an ABP run folder carries each trial's automated verification
outcome (passed, failed, timeout; an engine error is INFRA_ERROR, excluded, never a loss), and the
sci-bench scorer stores its own per run. Such a study has results before anyone writes a study
design: every run in the study, every pair of conditions compared, the same statistics as a
design's, and every verdict's source ``automated``. This module declares that scope once (its
design document, its rubric, its hash), so the database's results, an export and a bundle's
``verify`` all build the same records from it. When people later judge the study, they do it in
a study design, whose final verdicts supersede the automated ones there.

Also here: the automated judge's per-dimension tallies (pass, fail, unscored) of the runs it
scored, which results show beside the outcomes that count. A dimension it did not score stays
unscored: never a zero. Pure: nothing here reads the database or files.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from abp_tui.analysis.verdicts import automated_state
from abp_tui.models import (
    AcceptanceRule,
    DesignRecords,
    Model,
    Rubric,
    RunFacts,
    RunOutcome,
    StudyDesign,
)
from abp_tui.text.canonical import canonical_json, sha256_text

AUTOMATED_DESIGN: Final = "automated"
"""The name of the scope of a study's automated outcomes (no stored design has it by default)."""
AUTOMATED_DESCRIPTION: Final = (
    "No study design: every run's verdict is its automated verification outcome (passed, "
    "failed, timeout; an engine error is excluded, never a loss); nobody judged these runs."
)
AUTOMATED_RUBRIC: Final = Rubric(
    id="automated",
    name="Automated verification outcomes",
    version="1",
    dimensions=(),
    acceptance=AcceptanceRule(
        text="None: each run's outcome is its automated verification, with no rubric scores."
    ),
)
"""What an automated scope publishes as its rubric: nothing scored by a person."""
DEFAULT_SEED: Final = 0
"""The bootstrap's seed when the run records name none (Arena and ABP runs do)."""
OUTCOMES: Final = ("pass", "fail", "unscored")
"""The automated judge's outcomes of one dimension, in the order tables show them."""


def is_automated(design_name: str, rubric_id: str) -> bool:
    """Whether a design (stored or published) is a study's automated scope."""
    return design_name == AUTOMATED_DESIGN and rubric_id == AUTOMATED_RUBRIC.id


def has_automated_outcomes(runs: Iterable[RunFacts]) -> bool:
    """Whether any run carries an automated outcome that stands for a result state."""
    return any(automated_state(r.automated_outcome) is not None for r in runs)


def shared_seed(metadata: Iterable[Mapping[str, Any]]) -> int:
    """The seed the run configuration pinned (Arena's manifest, abp-run/v1: every condition of
    the study carries it), else :data:`DEFAULT_SEED`; conditions naming different seeds name
    none."""
    seeds: set[int] = set()
    for m in metadata:
        seed = m.get("seed")
        if isinstance(seed, int) and not isinstance(seed, bool):
            seeds.add(seed)
    return seeds.pop() if len(seeds) == 1 else DEFAULT_SEED


def automated_design(study_id: str, seed: int) -> StudyDesign:
    """The design document of a study's automated scope: every task, condition and pair."""
    return StudyDesign(
        study=study_id,
        name=AUTOMATED_DESIGN,
        rubric=AUTOMATED_RUBRIC.id,
        seed=seed,
        contrasts="all-pairs",
        description=AUTOMATED_DESCRIPTION,
    )


def automated_records(study_id: str, seed: int, runs: Sequence[RunFacts]) -> DesignRecords:
    """The records of a study's automated scope: its runs, and no item, judgment or
    adjudication."""
    return DesignRecords(
        design=automated_design(study_id, seed),
        rubric=AUTOMATED_RUBRIC,
        seed=seed,
        items=(),
        judgments=(),
        adjudications=(),
        runs=tuple(runs),
    )


def automated_sha256(records: DesignRecords) -> str:
    """The scope's hash, as a stored design's covers what it judges: the design document, the
    rubric and the facts of every run in it (so another import changes it)."""
    return automated_hash(
        records.design.model_dump(mode="json"),
        records.rubric.model_dump(mode="json"),
        [r.model_dump(mode="json") for r in records.runs],
    )


def automated_hash(
    design: Mapping[str, Any], rubric: Mapping[str, Any], runs: Sequence[Mapping[str, Any]]
) -> str:
    """:func:`automated_sha256` of the documents (the runs' facts in results order), which
    ``verify`` recomputes from a bundle's design document, rubric and runs."""
    return sha256_text(canonical_json({"design": design, "rubric": rubric, "runs": runs}))


# -- the automated judge's dimensions ---------------------------------------------------------
class JudgeTally(Model):
    """One dimension of the automated judge over a group's runs it scored."""

    condition: str
    dimension: str
    passed: int
    failed: int
    unscored: int
    """Runs it scored on other dimensions but not on this one (no oracle, or the specification
    declares the dimension unscored): counted here, never as a failure or a zero."""


def judge_tallies(
    outcomes: Iterable[RunOutcome], dimensions: Mapping[str, Sequence[Mapping[str, Any]]]
) -> list[JudgeTally]:
    """Per condition and dimension, how many runs the automated judge passed, failed or left
    unscored. ``dimensions``: run id -> its ``{"dimension", "outcome", "reason"}`` list, in the
    scorer's order (dimensions keep the order they are first met in)."""
    order: dict[str, None] = {}
    counts: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    conditions: set[str] = set()
    for o in outcomes:
        for d in dimensions.get(o.run_id, ()):
            name, outcome = d.get("dimension"), d.get("outcome")
            if not isinstance(name, str) or outcome not in OUTCOMES:
                continue
            order.setdefault(name)
            conditions.add(o.condition_id)
            counts[(o.condition_id, name)][str(outcome)] += 1
    return [
        JudgeTally(
            condition=c,
            dimension=d,
            passed=counts[(c, d)]["pass"],
            failed=counts[(c, d)]["fail"],
            unscored=counts[(c, d)]["unscored"],
        )
        for c in sorted(conditions)
        for d in order
        if (c, d) in counts
    ]
