"""A design's items as the store reads them: with the database keys a review session writes
with (:class:`StoredItem`), or as the rules take them (:func:`plan_item`)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from abp_tui.models import Item
from abp_tui.models.base import held_once, same, trusted


class StoredItem(Item):
    """An item with the database keys a review session writes with (runs, task, the item)."""

    pk: int
    """The item's key."""
    design_pk: int
    key: str
    """The plan's item key (what the blind code was derived from)."""
    task_pk: int
    """The key of the exact task version the item was planned on."""
    run_pks: tuple[int, ...]
    """The keys of the exact run versions judged, in the order of ``runs``."""
    masking: dict[str, int]
    """How many identity terms were masked in each run's output, by side ("a", "b"), counted
    when the design was created: the coordinator's view (the blind screen shows only a count)."""

    @property
    def run_a_pk(self) -> int:
        return self.run_pks[0]

    @property
    def run_b_pk(self) -> int | None:
        return self.run_pks[1] if len(self.run_pks) > 1 else None

    def run_id(self, run_pk: int) -> str:
        """The id of one of the item's runs, by its key."""
        return self.runs[self.run_pks.index(run_pk)]


ITEM_SELECT = """
SELECT i.pk, i.design_pk, i.key, i.code, i.kind, i.task_pk, t.id, i.trial, i.base_flip,
  i.masking, i.run_a_pk, ra.id, ca.id, i.run_b_pk, rb.id, cb.id{more}
FROM items i JOIN tasks t ON t.pk = i.task_pk
JOIN runs ra ON ra.pk = i.run_a_pk JOIN conditions ca ON ca.pk = ra.condition_pk
LEFT JOIN runs rb ON rb.pk = i.run_b_pk LEFT JOIN conditions cb ON cb.pk = rb.condition_pk
"""


def item_row(r: Sequence[Any], index: int) -> StoredItem:
    single = r[13] is None
    # Stored validated: read back as the fields hold them, without validating again.
    return trusted(
        StoredItem,
        code=r[3],
        index=index,
        kind=held_once(r[4]),
        task=r[6],
        trial=int(r[7]),
        runs=(r[11],) if single else (r[11], r[14]),
        conditions=(held_once(r[12]),) if single else (held_once(r[12]), held_once(r[15])),
        base_flip=bool(r[8]),
        pk=r[0],
        design_pk=r[1],
        key=r[2],
        task_pk=r[5],
        run_pks=(r[10],) if single else (r[10], r[13]),
        masking=held_once(json.loads(r[9]), ("masking", r[9])),
    )


def plan_item(r: Sequence[Any], index: int, name: Callable[[str], str] = same) -> Item:
    """An item as the rules take it, without the store's keys (a large plan holds fewer);
    its code, task and run ids through ``name`` (:func:`abp_tui.models.base.sharing`)."""
    single = r[13] is None
    return trusted(
        Item,
        code=name(r[3]),
        index=index,
        kind=held_once(r[4]),
        task=name(r[6]),
        trial=int(r[7]),
        runs=(name(r[11]),) if single else (name(r[11]), name(r[14])),
        # A few conditions, so a few pairs of them: each held once for every item.
        conditions=held_once((r[12],) if single else (r[12], r[15])),
        base_flip=bool(r[8]),
    )


def item_line(r: Sequence[Any], index: int) -> dict[str, Any]:
    """The item :func:`plan_item` makes of a row, as its record's JSON dump
    (``model_dump(mode="json")``) gives it, without a model of it (the same values)."""
    single = r[13] is None
    return {
        "code": r[3],
        "index": index,
        "kind": r[4],
        "task": r[6],
        "trial": int(r[7]),
        "runs": [r[11]] if single else [r[11], r[14]],
        "conditions": [r[12]] if single else [r[12], r[15]],
        "base_flip": bool(r[8]),
    }


__all__ = ["ITEM_SELECT", "StoredItem", "item_line", "item_row", "plan_item"]
