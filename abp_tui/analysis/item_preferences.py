"""The final preference of every judged pair, and which judgments a preference figure counts.

A preference belongs to a pair, not to a run: its final verdict is the item's. The rules are the
per-run verdicts' (:mod:`abp_tui.analysis.verdicts`), applied to the pair's preference:

- ``adjudicated``: the item's latest adjudication states a preference; it is the one that counts
  (the reviewers' own stay, for agreement only);
- ``unresolved``: the reviewers disagree under the design's rules and nobody adjudicated (or the
  picks name two different runs): no final preference, counted apart until adjudicated;
- ``single review``: one reviewer's preference (beside others' insufficient evidence, which
  states none);
- ``unanimous``: two or more reviewers stating a preference and no disagreement under the
  design's rules. When a tie or insufficient evidence stands beside a preferred run and the
  rules do not call that a disagreement, the preferred run is the final preference (a tie then
  agrees with any preference; insufficient evidence is no pick against one, nor for it).

Screen positions (Response 1 / 2) become runs, and runs positions, in one module,
:mod:`abp_tui.analysis.placement` (:func:`~abp_tui.analysis.placement.picked`,
:func:`~abp_tui.analysis.placement.shown_as`). Pure: no database, no files.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Final

from abp_tui.analysis.placement import shown_as
from abp_tui.analysis.records import preferred
from abp_tui.models import (
    AdjudicationRevision,
    Item,
    ItemPreference,
    JudgmentRevision,
    PreferenceChoice,
    PreferenceReview,
    VerdictSource,
)
from abp_tui.models.base import trusted

TIE: Final = PreferenceChoice.TIE.value
INSUFFICIENT: Final = PreferenceChoice.INSUFFICIENT.value
SOURCES: Final[tuple[VerdictSource, ...]] = (
    "unanimous",
    "adjudicated",
    "single review",
    "unresolved",
)
"""The sources of a final verdict, in the order a counting line names them."""


def _review(j: JudgmentRevision, pick: str) -> PreferenceReview:
    # Built as trusted (every field already of its type): one review per judgment of a large
    # study; the judgment's own placement is shared (both models are frozen).
    return trusted(
        PreferenceReview,
        reviewer=j.reviewer,
        revision=j.revision,
        pick=pick,
        shown_as=shown_as(j.placement, pick),
        placement=j.placement,
        justification=j.judgment.justification,
    )


def _agreed(picks: Sequence[str]) -> str | None:
    """The pick several reviewers' picks agree on when the rules call none of them a
    disagreement: the one run picked, else a tie, else insufficient evidence; None when two
    different runs were picked."""
    runs = {p for p in picks if p not in (TIE, INSUFFICIENT)}
    if len(runs) > 1:
        return None
    if runs:
        return runs.pop()
    return TIE if TIE in picks else INSUFFICIENT


def item_preference(
    item: Item,
    judgments: Sequence[JudgmentRevision],
    adjudication: AdjudicationRevision | None,
    disputed: bool,
) -> ItemPreference | None:
    """The final preference of one pair from its reviewers' latest submitted judgments, its
    latest adjudication and whether its disagreement is open (``disputed``: the reviewers
    disagree and nobody adjudicated); None when nobody stated a preference of it."""
    picked = [(j, p) for j in judgments if (p := preferred(j)) is not None]
    final = None if adjudication is None else preferred(adjudication)
    if not picked and final is None:
        return None
    source: VerdictSource
    if final is not None:
        source = "adjudicated"
    elif disputed:
        source = "unresolved"
    else:
        final = _agreed([p for _j, p in picked])
        # Insufficient evidence states no preference: a pick beside it rests on fewer reviewers.
        stated = [p for _j, p in picked if p != INSUFFICIENT or final == INSUFFICIENT]
        if final is None:
            source = "unresolved"
        else:
            source = "single review" if len(stated) == 1 else "unanimous"
    condition_of = dict(zip(item.runs, item.conditions, strict=False))
    return trusted(
        ItemPreference,
        item=item.code,
        task=item.task,
        runs=item.runs,
        conditions=item.conditions,
        source=source,
        preferred=final,
        preferred_condition=None if final is None else condition_of.get(final),
        reviews=tuple(_review(j, p) for j, p in sorted(picked, key=lambda jp: jp[0].reviewer)),
        adjudicator=adjudication.adjudicator
        if adjudication is not None and source == "adjudicated"
        else None,
        note=adjudication.note if adjudication is not None and source == "adjudicated" else None,
    )


def item_preferences(
    items: Iterable[Item],
    latest: Mapping[str, Sequence[JudgmentRevision]],
    adjudications: Mapping[str, AdjudicationRevision],
    open_codes: Collection[str],
) -> list[ItemPreference]:
    """The final preference of every pair somebody stated a preference of, in plan order."""
    out = []
    for item in items:
        if not item.is_pair:
            continue
        found = item_preference(
            item,
            latest.get(item.code, ()),
            adjudications.get(item.code),
            item.code in open_codes,
        )
        if found is not None:
            out.append(found)
    return out


def source_counts(found: Iterable[ItemPreference]) -> dict[str, int]:
    """How many items' final preferences come from each source (every source, zeros too)."""
    counted = Counter(p.source for p in found)
    return {s: counted.get(s, 0) for s in SOURCES}


def counting_line(sources: Mapping[str, int]) -> str:
    """The one line saying which judgments a preference figure counts."""
    parts = [f"{sources.get(s, 0)} {s}" for s in SOURCES if s != "single review"]
    single = sources.get("single review", 0)
    if single:
        parts.insert(2, f"{single} single review")
    return "Counts each item's final verdict: " + ", ".join(parts) + "."
