"""From a reviewer's rubric scores to a result state, and what a judgment still lacks.

A fatal hit is MODEL_FAIL whatever the total; otherwise the rubric's acceptance rule decides
MODEL_PASS or MODEL_FAIL. A reviewer may instead mark INVALID_TEST or GRADER_DISPUTE, or confirm
PROVIDER_BLOCK or INFRA_ERROR from the record, each with a reason. The questions asked before
scoring are the rubric's validity gate (none when it has none). A preference-only rubric asks
nothing about a response and gives none a result state: its judgments are a preference and
its justification.
"""

from __future__ import annotations

from abp_tui.models import OVERRIDE_STATES, Judgment, ResponseJudgment, ResultState, Rubric


def worded(text: str) -> bool:
    """Whether a reason holds a word (a letter or a digit): a key pressed where a reason was
    being written ("]", "?") is not one."""
    return any(c.isalnum() for c in text)


def total(rubric: Rubric, response: ResponseJudgment) -> int | None:
    """Sum over scored dimensions, or None while any is unscored (or the rubric scores none)."""
    dims = [d for d in rubric.dimensions if d.scored]
    if not dims or any(d.id not in response.scores for d in dims):
        return None
    return sum(response.scores[d.id] for d in dims)


def result_state(rubric: Rubric, response: ResponseJudgment) -> ResultState | None:
    """The state the response's judgment implies, or None while it is incomplete (always None
    for a preference-only rubric)."""
    if rubric.preference_only:
        return None
    if response.state_override is not None:
        return response.state_override
    if response.fatal_hits:
        return ResultState.MODEL_FAIL
    summed = total(rubric, response)
    if summed is None:
        return None
    rule = rubric.acceptance
    scored = [d for d in rubric.dimensions if d.scored]
    passed = True
    if rule.min_total is not None and summed < rule.min_total:
        passed = False
    if any(response.scores.get(d) != 2 for d in rule.required_twos):
        passed = False
    if rule.min_each is not None and any(response.scores[d.id] < rule.min_each for d in scored):
        passed = False
    if rule.all_scored_pass and any(response.scores[d.id] < max(d.scale) for d in scored):
        passed = False
    return ResultState.MODEL_PASS if passed else ResultState.MODEL_FAIL


def problems(rubric: Rubric, judgment: Judgment, run_ids: list[str], pair: bool) -> list[str]:
    """What must still be done before the judgment can be submitted (empty: ready)."""
    out: list[str] = []
    asked = {check.id for check in rubric.validity_gate}
    failed_gate = [key for key, ok in judgment.validity.items() if not ok and key in asked]
    for check in rubric.validity_gate:
        if check.id not in judgment.validity:
            out.append(f"validity gate: check '{check.id}' is not answered")
    for position, run_id in enumerate(run_ids, start=1):
        label = f"Response {position}" if pair else "Response"
        response = judgment.responses.get(run_id, ResponseJudgment())
        if rubric.preference_only:
            if response != ResponseJudgment():
                out.append(
                    f"{label}: this design records a preference only, not a judgment of "
                    "each response"
                )
            continue
        if response.reclassified and not worded(response.override_reason):
            out.append(f"{label}: a reason is required to reclassify the record's state")
        if response.state_override is not None:
            if response.state_override not in OVERRIDE_STATES:
                out.append(f"{label}: {response.state_override} cannot be set by hand")
            if not worded(response.override_reason):
                out.append(f"{label}: a reason is required for {response.state_override}")
            continue
        if failed_gate:
            out.append(
                f"{label}: the validity gate failed ({', '.join(failed_gate)}); mark "
                "INVALID_TEST or GRADER_DISPUTE with a reason"
            )
            continue
        for dim in rubric.dimensions:
            if not dim.scored:
                continue
            score = response.scores.get(dim.id)
            if score is None:
                out.append(f"{label}: {dim.name} is not scored")
            elif score not in dim.scale:
                out.append(f"{label}: {dim.name} must be one of {dim.scale}")
            elif score < max(dim.scale) and not worded(response.rationales.get(dim.id, "")):
                out.append(f"{label}: {dim.name} scored {score} needs a rationale")
    if pair:
        if judgment.preference is None:
            out.append("preference: choose Response 1, Response 2, tie or insufficient evidence")
        if not judgment.justification.strip():  # said at once, not after the choice
            out.append("preference: a justification is required")
        elif not worded(judgment.justification):  # a key pressed in the field ("]"), not a reason
            out.append("preference: the justification has no words: say why in words")
    return out
