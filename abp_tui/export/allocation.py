"""The draws of a design with a human budget in a publication bundle.

Source: ``judging/allocation.jsonl``, one line per item in plan order: its blind code, the AI
judges' uncertainty on it when the plan was stored, the probability it had of going to people
and whether the draw sent it (:class:`abp_tui.models.AllocationDraw`). ``verify`` re-derives
the probabilities from the uncertainties and the design's ``human_budget`` and
``allocation_floor`` (bound by the design hash), and the draw from the seed the revealed plan
secret gives (:func:`abp_tui.analysis.allocation.allocation_seed`), refusing the bundle with
the first item whose probability or draw differs; the judge-assisted figures in
``results/ai_judges.json`` are then re-derived from these probabilities like every derived
file. A bundle of a design without a human budget has no such file.
"""

from __future__ import annotations

from collections.abc import Sequence

from abp_tui.analysis.allocation import allocation_seed, check_draws
from abp_tui.export import records as rec
from abp_tui.export.bundle_analysis import Inputs
from abp_tui.export.canonical import jsonl_bytes
from abp_tui.export.errors import BundleMismatch
from abp_tui.models import AllocationDraw


def allocation_source(draws: Sequence[AllocationDraw]) -> dict[str, bytes]:
    """The source file of a design's draws (none: no file)."""
    if not draws:
        return {}
    return {rec.ALLOCATION: jsonl_bytes(d.model_dump(mode="json") for d in draws)}


def check_allocation(inputs: Inputs) -> None:
    """The bundle's draws re-derive from their uncertainties, the design's budget and floor and
    the plan secret (raises BundleMismatch naming the first item that differs)."""
    design = inputs.study_design
    if design.human_budget is None:
        if inputs.allocation:
            raise BundleMismatch(
                rec.ALLOCATION, "the design sets no human_budget: no draw to publish"
            )
        return
    if not inputs.allocation:
        raise BundleMismatch(
            rec.ALLOCATION,
            f"missing: the design sets human_budget = {design.human_budget!r}, so a bundle "
            "publishes each item's probability and draw",
        )
    codes = [i.code for i in sorted(inputs.items, key=lambda i: (i.index, i.code))]
    seed = allocation_seed(inputs.design.plan_secret, inputs.design.seed)
    problems = check_draws(design, list(dict.fromkeys(codes)), inputs.allocation, seed)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise BundleMismatch(rec.ALLOCATION, f"{problems[0]}{more}")


__all__ = ["allocation_source", "check_allocation"]
