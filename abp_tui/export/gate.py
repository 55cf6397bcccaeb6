"""Seed 000's publication gate and rerun rules, checked on a bundle's own records.

A bundle publishes results only when everything the gate lists is there: full fixture texts,
the actual condition instructions, the rubric and fatal criteria, raw outputs, component scores,
the excluded runs, summary tables and limitations; when the rerun rules are met (for an AFP
study or rubric: at least one usable run per fixture and condition, three for the high-risk
fixtures; otherwise one usable run of each task under each condition it ran under); for an
AFP study, when every condition ran on one model version; and when
every item is judged and every disagreement adjudicated. Otherwise the bundle says "protocol
published / results pending" and lists what is missing. The check is pure: ``verify`` repeats it.

A design that marks development material (seed 002, :mod:`abp_tui.analysis.material`): what a
bundle publishes (texts, instructions, outputs, scores) is checked over every task, but the
requirements of a result (reruns, judgments, adjudications) count benchmark material only; what
development material lacks is listed apart and holds back no benchmark result.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Final, Literal

from abp_tui.analysis.automated import is_automated
from abp_tui.analysis.matched_models import model_match
from abp_tui.analysis.material import (
    MATERIAL_REQUIREMENT,
    is_development,
    material_detail,
    split_apart,
    splits_tasks,
    with_apart,
)
from abp_tui.analysis.model_versions import REQUIREMENT as SAME_VERSION
from abp_tui.analysis.model_versions import recorded_versions
from abp_tui.analysis.reruns import missing_from_plan
from abp_tui.export.bundle_analysis import Analysis, excluded_runs
from abp_tui.models import Model, ResultState
from abp_tui.models.builtin_rubrics import AFP_V01

RESULTS: Final = "results published"
PENDING: Final = "protocol published / results pending"

HIGH_RISK_TYPES: Final = frozenset(
    {"authorization boundary", "high-impact decision", "prompt injection"}
)
"""Risk types of seed 001's table that make a fixture high-risk (P05-P07 in AFP v0.1)."""
AFP_HIGH_RISK_IDS: Final = frozenset({"P05", "P06", "P07"})
HIGH_RISK_REPEATS: Final = 3
AFP_FIXTURES: Final = 8
NOT_A_REPEAT: Final = frozenset({ResultState.INFRA_ERROR, ResultState.PROVIDER_BLOCK})
"""States seed 000 says to fix or document and rerun: such a run is not a usable repeat."""
NO_INSTRUCTIONS_PROTOCOLS: Final = frozenset({"abp", "arena", "inspect", "mt-bench", "pairwise"})
"""Protocols whose conditions are engines or models, not instruction texts (a pairwise
comparison's conditions, PandaLM's, LLMBar's or MT-Bench's, are the models compared)."""
JUDGING_REQUIREMENTS: Final = frozenset({"every item judged", "every disagreement adjudicated"})
"""The requirements of the gate the reviewers and adjudicators meet (the rest, the bundle's
records and the design's declarations)."""
_LISTED: Final = 12
"""How many offenders a check names before it says "and N more"."""


class Check(Model):
    requirement: str
    met: bool
    detail: str


class GateStatus(Model):
    status: Literal["results published", "protocol published / results pending"]
    missing: list[str]
    """One line per unmet requirement."""
    checks: list[Check]


def _names(values: list[str]) -> str:
    shown = ", ".join(values[:_LISTED])
    return shown + (f" and {len(values) - _LISTED} more" if len(values) > _LISTED else "")


def _apart(check: Check, development: list[str], what: str) -> Check:
    """The check with development material's gaps listed apart (seed 002)."""
    return check.model_copy(update={"detail": with_apart(check.detail, development, what)})


def is_high_risk(task_id: str, risk_type: str, protocol: str) -> bool:
    if risk_type.strip().lower() in HIGH_RISK_TYPES:
        return True
    return protocol == "afp" and task_id in AFP_HIGH_RISK_IDS


def follows_afp(protocol: str, rubric_id: str) -> bool:
    """Seed 000's rerun rules (every fixture under every condition, three repeats of the
    high-risk ones) are AFP's: they bind an AFP study or a design judged on the AFP rubric, not
    a pairwise set whose tasks each ran under two of its models."""
    return protocol == "afp" or rubric_id == AFP_V01.id or rubric_id.startswith("afp-pack-")


def _model_only(label: str, condition_id: str) -> bool:
    text = f"{condition_id} {label}".lower().replace("-", " ")
    return "model only" in text


def evaluate(analysis: Analysis) -> GateStatus:
    inputs = analysis.inputs
    protocol = inputs.study.protocol
    checks: list[Check] = []

    def check(requirement: str, offenders: list[str], ok: str, bad: str) -> None:
        met = not offenders
        checks.append(
            Check(
                requirement=requirement,
                met=met,
                detail=ok if met else f"{bad}: {_names(offenders)}",
            )
        )

    # 1. Full text of every fixture.
    no_text = sorted(t.id for t in inputs.tasks if t.placeholder or t.prompt_blank)
    check(
        "full text of every fixture",
        no_text,
        f"{len(inputs.tasks)} fixtures with their full text",
        "fixtures without their text",
    )
    if protocol == "afp" and inputs.study_design.tasks == "all" and len(inputs.tasks) < 8:
        checks[-1] = Check(
            requirement="full text of every fixture",
            met=False,
            detail=f"AFP v0.1 has {AFP_FIXTURES} fixtures; this study has {len(inputs.tasks)}",
        )

    # 2. The actual condition instructions.
    if protocol in NO_INSTRUCTIONS_PROTOCOLS:
        checks.append(
            Check(
                requirement="actual condition instructions",
                met=True,
                detail=f"not applicable: the conditions of a {protocol} study are engines or "
                "models, not instruction texts",
            )
        )
    else:
        no_instructions = sorted(
            c.id
            for c in inputs.conditions
            if not c.instructions.strip() and not _model_only(c.label, c.id)
        )
        check(
            "actual condition instructions",
            no_instructions,
            f"{len(inputs.conditions)} conditions with their instructions (a model-only "
            "condition has none by definition)",
            "conditions without their instructions (a design file's [instructions] table "
            "gives them)",
        )

    # 3. Rubric and fatal criteria.
    rubric = inputs.rubric
    scored = [d for d in rubric.dimensions if d.scored]
    # A study with no design: its verdicts are automated outcomes, nothing a person scores.
    automated = is_automated(inputs.design.name, rubric.id)
    not_judged = (
        "not applicable: no study design; every verdict is an automated verification outcome, "
        "which no person scored"
    )
    if automated:
        checks.append(Check(requirement="rubric and fatal criteria", met=True, detail=not_judged))
    elif rubric.preference_only:
        # Seed 002's blind A/B comparison alone: reviewers score nothing, so there is no rubric
        # to publish beyond the preference and its justification.
        checks.append(
            Check(
                requirement="rubric and fatal criteria",
                met=True,
                detail=f"not applicable: a preference-only design ({rubric.id}) records which "
                "response is better, with a justification, and scores nothing",
            )
        )
    else:
        rubric_gaps = [d.id for d in scored if not all(d.anchors.get(s) for s in d.scale)]
        if not scored:
            rubric_gaps.append("no scored dimension")
        if not rubric.fatal_criteria and not any(t.fatal_criteria for t in inputs.tasks):
            rubric_gaps.append(
                "no fatal criteria (neither the rubric nor any fixture declares any)"
            )
        check(
            "rubric and fatal criteria",
            rubric_gaps,
            f"rubric {rubric.id} {rubric.version}: {len(scored)} scored dimensions with "
            f"anchors, {len(rubric.fatal_criteria)} general fatal criteria",
            "rubric incomplete",
        )

    # 4. Raw outputs; 5. component scores; the rerun rules' usable runs: one pass over the
    # runs' verdicts, each read as its facts (no model of it made).
    human_sources = {"adjudicated", "unanimous", "single review", "unresolved"}
    no_output: list[str] = []
    no_scores: list[str] = []
    usable: dict[tuple[str, str], int] = defaultdict(int)
    dropped: dict[tuple[str, str], int] = defaultdict(int)
    states: dict[str, ResultState | None] = {}
    outputs = 0
    for v, r in zip(analysis.verdicts.facts(), inputs.runs, strict=True):
        counted = v.state is None or v.state.in_quality_denominator
        if r.has_output:
            outputs += 1
        elif counted:
            no_output.append(v.run)
        if not automated and v.state is not None and counted:
            if v.source not in human_sources:
                no_scores.append(f"{v.run} ({v.source})")
            elif any(d.id not in v.scores for d in scored) and not v.fatal_hits:
                no_scores.append(v.run)
        if v.state in NOT_A_REPEAT:
            dropped[(v.task, v.condition)] += 1
        else:
            usable[(v.task, v.condition)] += 1
        states[v.run] = v.state
    check(
        "raw outputs",
        no_output,
        f"{outputs} raw outputs",
        "runs without their raw output",
    )

    check(
        "component scores",
        no_scores,
        not_judged if automated else "every scored run has its component scores from a person",
        "scored runs without component scores",
    )

    # 6. Excluded runs, with their states and reasons.
    excluded = excluded_runs(analysis)
    checks.append(
        Check(
            requirement="excluded runs with their states and reasons",
            met=True,
            detail=f"{len(excluded)} excluded runs listed with their states and reasons",
        )
    )

    # 7. Summary tables and limitations.
    checks.append(Check(requirement="summary tables", met=True, detail="summary tables included"))
    check(
        "limitations",
        []
        if inputs.study.limitations
        else ["the study declares no limitations (a design file's limitations = [...] does)"],
        f"{len(inputs.study.limitations)} limitations declared by the study",
        "limitations missing",
    )

    # Rerun rules.
    afp = follows_afp(protocol, rubric.id)
    short: list[str] = []
    dev_short: list[str] = []  # seed 002: development material is listed apart
    for t in inputs.tasks:
        need = HIGH_RISK_REPEATS if afp and is_high_risk(t.id, t.risk_type, protocol) else 1
        for c in inputs.conditions:
            cell = (t.id, c.id)
            # Read without adding: a task runs under a few of the conditions, and a large
            # study's cells of every task and condition would be held until the export ends.
            got, rerun = usable.get(cell, 0), dropped.get(cell, 0)
            if not afp and not got and not rerun:
                continue
            if got < need:
                note = f" ({rerun} INFRA_ERROR/PROVIDER_BLOCK to rerun)" if rerun else ""
                (dev_short if is_development(inputs.study_design, t.id) else short).append(
                    f"{t.id} under {c.id}: {got} of {need} usable runs{note}"
                )
    check(
        "rerun rules",
        short,
        f"every fixture has a usable run under every condition, high-risk fixtures "
        f"{HIGH_RISK_REPEATS}"
        if afp
        else "every task has a usable run under each condition it was run under (the AFP "
        "repeat rules apply to AFP studies)",
        "too few repeats",
    )
    checks[-1] = _apart(checks[-1], dev_short, "too few repeats")
    # A rerun imported after the design was planned is in no item: nobody can judge it until
    # the design is planned again (listed only when there is one).
    if not is_automated(inputs.design.name, rubric.id):
        planned = {run for i in inputs.items for run in i.runs}
        late = missing_from_plan(inputs.study_design, inputs.runs, planned)
        if late:
            check(
                "reruns planned",
                late,
                "",
                "runs imported after the design was planned, in no item (give the design file "
                "to `abp-tui study create` again)",
            )

    # Seed 000 section 3: every condition of an AFP study on one model version.
    versions = recorded_versions(protocol, inputs.runs, states)
    if versions is not None:
        checks.append(Check(requirement=SAME_VERSION, met=versions.same, detail=versions.detail))

    # Seed 003 section 7: engines on different models are published, but never compared.
    match = model_match(protocol, inputs.conditions)
    if match is not None:
        checks.append(
            Check(
                requirement="engines on the same model (seed 003 section 7)",
                met=True,
                detail="the engines ran on the same model: engine-vs-engine comparisons shown"
                if match.matched
                else f"{match.warning} Published with per-engine figures only; no "
                "engine-vs-engine comparison",
            )
        )

    # Every item judged, every disagreement adjudicated.
    needed = max(1, inputs.study_design.reviewers_per_item)
    # Seed 002: the figures are over benchmark material; development material's gaps are
    # listed apart and do not hold back a benchmark result.
    # A human budget: people judge the items drawn for them, the AI judges the rest.
    design = inputs.study_design
    task_of = {i.code: i.task for i in inputs.items}
    drawn = {d.item for d in inputs.allocation if d.drawn}
    people_items = [i for i in inputs.items if not inputs.allocation or i.code in drawn]
    bench_items = [i for i in people_items if not is_development(design, i.task)]
    lacking = [
        (i.task, i.code) for i in people_items if len(analysis.latest.get(i.code, ())) < needed
    ]
    unjudged, dev_unjudged = (sorted(codes) for codes in split_apart(design, lacking))
    budget = " (the items drawn under the human budget)" if inputs.allocation else ""
    check(
        "every item judged",
        unjudged,
        f"{len(bench_items)} items{budget} judged by {needed} reviewer(s) each",
        f"{len(unjudged)} of {len(bench_items)} items lack a submitted judgment "
        f"({needed} needed per item)",
    )
    checks[-1] = _apart(checks[-1], dev_unjudged, "items lacking a judgment")
    disagreements = [(task_of.get(d.code, ""), d) for d in analysis.disagreements]
    bench_disagreements = [d for t, d in disagreements if not is_development(design, t)]
    open_ones = [
        (task_of.get(d.code, ""), d.code) for d in analysis.disagreements if not d.adjudicated
    ]
    unresolved, dev_unresolved = (sorted(codes) for codes in split_apart(design, open_ones))
    check(
        "every disagreement adjudicated",
        unresolved,
        f"{len(bench_disagreements)} disagreement{'' if len(bench_disagreements) == 1 else 's'}, "
        "all adjudicated",
        f"{len(unresolved)} disagreement{'' if len(unresolved) == 1 else 's'} not adjudicated",
    )
    checks[-1] = _apart(checks[-1], dev_unresolved, "not adjudicated")
    if splits_tasks(design):
        checks.append(
            Check(
                requirement=MATERIAL_REQUIREMENT,
                met=True,
                detail=material_detail(
                    design, (r.task for r in inputs.runs), (i.task for i in inputs.items)
                ),
            )
        )
    missing = [f"{c.requirement}: {c.detail}" for c in checks if not c.met]
    return GateStatus(status=PENDING if missing else RESULTS, missing=missing, checks=checks)
