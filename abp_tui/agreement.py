"""Agreement of a study's reviewers: from stored judgments to the agreement statistics.

Variables: each rubric dimension (ordinal on its declared scale), the total (interval, 0 to the
rubric's maximum), the result state (nominal, the six states), each fatal criterion as a flag
(nominal 0/1) and the preference (nominal). Dimension, total, state and fatal flags are judged per
run within an item (unit: item code and the run's side in the item); the preference per item,
recorded as the side preferred in the item's own orientation, never as the position shown (each
reviewer saw their own placement). Human labels imported with a study (PandaLM's three
annotators) go through the same code as preferences of their named external reviewers.
"""

from __future__ import annotations

from collections import defaultdict

import sqlite_utils

from abp_tui.adjudication import item_judgments
from abp_tui.errors import AbpError
from abp_tui.models import PreferenceChoice, ResultState, Rubric
from abp_tui.scoring import result_state, total
from abp_tui.stats.agreement import AgreementReport, Category, Judgment, compute_all
from abp_tui.store import judging as sql

Records = dict[str, list[Judgment]]


def design_records(
    db: sqlite_utils.Database, design_pk: int
) -> tuple[Records, dict[str, str], dict[str, tuple[Category, ...]]]:
    """(records per variable, level per variable, declared scale per variable) of a design."""
    design = sql.design(db, design_pk)
    rubric = Rubric.model_validate(design.rubric)
    items = {i.pk: i for i in sql.items(db, design_pk)}
    records: Records = defaultdict(list)
    levels: dict[str, str] = {}
    scales: dict[str, tuple[Category, ...]] = {}
    for dim in rubric.dimensions:
        if dim.scored:
            levels[f"dimension:{dim.id}"] = "ordinal"
            scales[f"dimension:{dim.id}"] = tuple(dim.scale)
    levels["total"] = "interval"
    scales["total"] = tuple(range(rubric.max_total + 1))
    levels["result_state"] = "nominal"
    scales["result_state"] = tuple(s.value for s in ResultState)
    tasks: dict[int, tuple[str, ...]] = {}
    for item_pk, judgments in item_judgments(db, design_pk).items():
        item = items[item_pk]
        if item.task_pk not in tasks:
            tasks[item.task_pk] = tuple(sql.task_row(db, item.task_pk)["fatal_criteria"])
        criteria = tasks[item.task_pk] + rubric.fatal_criteria
        side = {str(item.run_a_pk): "a", str(item.run_b_pk): "b"}
        for j in judgments:
            for run_key, response in j.judgment.responses.items():
                unit = f"{item.code}:{side.get(run_key, run_key)}"
                for dim in rubric.dimensions:
                    if dim.scored and dim.id in response.scores:
                        records[f"dimension:{dim.id}"].append(
                            (unit, j.reviewer, response.scores[dim.id])
                        )
                summed = total(rubric, response)
                if summed is not None and response.state_override is None:
                    records["total"].append((unit, j.reviewer, summed))
                state = result_state(rubric, response)
                if state is not None:
                    records["result_state"].append((unit, j.reviewer, state.value))
                for criterion in criteria:
                    name = f"fatal:{criterion}"
                    levels[name], scales[name] = "nominal", (0, 1)
                    records[name].append((unit, j.reviewer, int(criterion in response.fatal_hits)))
            if item.run_b_pk is not None and j.judgment.preference is not None:
                levels["preference"] = "nominal"
                scales["preference"] = ("a", "b", "tie", "insufficient_evidence")
                preferred = j.preferred()
                value = side.get(preferred or "", preferred)
                records["preference"].append((item.code, j.reviewer, value))
    ordered = {name: records.get(name, []) for name in levels}
    return ordered, levels, scales


def imported_records(db: sqlite_utils.Database, study_id: str) -> Records:
    """Imported human preference labels of a study (external reviewers), per item."""
    rows = db.execute(
        "SELECT item_id, reviewer, choice FROM preferences WHERE study_id = ? AND "
        "source = 'imported' ORDER BY pk",
        [study_id],
    ).fetchall()
    labels = {
        PreferenceChoice.RESPONSE_1.value: "1",
        PreferenceChoice.RESPONSE_2.value: "2",
        PreferenceChoice.TIE.value: "tie",
        PreferenceChoice.INSUFFICIENT.value: "insufficient_evidence",
    }
    latest: dict[tuple[str, str], str] = {}
    for item, reviewer, choice in rows:
        latest[(item, reviewer)] = labels[choice]
    return {"preference": [(i, r, v) for (i, r), v in latest.items()]}


def study_agreement(
    db: sqlite_utils.Database,
    study_id: str,
    design_pk: int | None,
    *,
    seed: int = 0,
    resamples: int = 1000,
) -> AgreementReport:
    """Agreement of a design's judgments, or of a study's imported labels when it has none."""
    if design_pk is not None:
        records, levels, scales = design_records(db, design_pk)
        return compute_all(records, levels, dict(scales), seed, resamples=resamples)
    imported = imported_records(db, study_id)
    if not imported["preference"]:
        raise AbpError(
            f"study {study_id!r} has no study design and no imported judgments: "
            "nothing to measure agreement on"
        )
    return compute_all(
        imported,
        {"preference": "nominal"},
        {"preference": ("1", "2", "tie", "insufficient_evidence")},
        seed,
        resamples=resamples,
    )
