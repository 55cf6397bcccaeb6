"""LLMBar evaluator results: an AI judge's pick on every pair, in both presentation orders.

LLMBar's ``evaluators/<Evaluator>/result.json`` is a JSON list of the dataset's items
(``input``, ``output_1``, ``output_2``, the human ``label``) each with ``results``, whose last
element holds ``"swap = False"`` and ``"swap = True"``: the judge's ``winner`` ("1" or "2",
always in the dataset's own numbering) when shown output_1 first and when shown output_2 first,
and its ``completion`` (earlier elements are auxiliary generations; LLMBar's statistics read the
last). Each item becomes the same Task, two Runs and label Preference as
:mod:`abp_tui.formats.pairwise` makes of the dataset file (so importing ``dataset.json`` and the
evaluators into one study adds each pair once), plus one
:class:`~abp_tui.models.judges.JudgeVerdict` per order by the AI judge named after the evaluator
folder (``GPT-4-Vanilla``: model ``GPT-4``, prompting ``Vanilla``).

The study defaults to the data set's name, from its folders (``llmbar-natural``,
``llmbar-adversarial-manual``: :func:`abp_tui.formats.pairwise.llmbar_study_name`), as the
dataset file's own, so that the dataset and its evaluators go into one study; ``--study`` names
one. An item that holds no pick in one of
the two orders (empty ``results``, or ``"swap = True"`` missing) is refused by its JSON path:
LLMBar writes both, so a missing one is a run cut short, never a verdict (``--skip-invalid``
skips the item and lists it). This module parses; it never writes.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from abp_tui.errors import InputError
from abp_tui.formats import pairwise
from abp_tui.formats.base import Invalid, ParseContext, Record, SimpleFormat, read_json
from abp_tui.formats.json_stream import iter_json_list, leading_items, starts_list
from abp_tui.models import Preference, Reviewer, Study
from abp_tui.models.judges import Judge, JudgeVerdict

ORDERS = (("swap = False", False), ("swap = True", True))
"""The result keys of the two presentation orders, and whether output_2 was shown first."""
WINNERS = ("1", "2")


def _is_result(item: Any) -> bool:
    if not isinstance(item, dict) or not {"output_1", "output_2", "results"} <= item.keys():
        return False
    results = item["results"]
    return (
        isinstance(results, list)
        and bool(results)
        and isinstance(results[-1], dict)
        and any(key in results[-1] for key, _swap in ORDERS)
    )


def _shaped(item: Any) -> bool:
    """An LLMBar item with a results list, whatever the list holds."""
    return (
        isinstance(item, dict)
        and {"output_1", "output_2", "results"} <= item.keys()
        and isinstance(item["results"], list)
    )


SNIFFED = 50
"""How many leading items the sniffer reads: one judge's result among them is enough (an item
whose judge call failed may hold an empty ``results``; a broken item is refused by the parser,
by its path, rather than letting the file pass for a pairwise dataset)."""


def _sniff(path: Path, head: bytes) -> bool:
    if path.suffix.lower() != ".json":
        return False
    # A dataset holds no results: a judge's pick among the leading items, or results on every
    # one of them (empty when the judge's calls failed), make the file an evaluator's result,
    # whatever the first item or a broken one holds; the parser refuses what is not a pick.
    # The items are read one at a time (:func:`json_stream.leading_items`), none kept.
    read = 0
    shaped = True
    for item in leading_items(path, SNIFFED):
        read += 1
        if _is_result(item):
            return True
        shaped = shaped and _shaped(item)
    return read > 0 and shaped


def _not_judged(item: Any) -> str | None:
    """Why a well-shaped item holds no pick of the judge in either order (None: it holds one)."""
    if not _shaped(item) or _is_result(item):
        return None
    results = item["results"]
    keys = " and ".join(f'"{key}"' for key, _swap in ORDERS)
    if not results:
        return f"expected the judge's results, got an empty list (no pick under {keys})"
    return f"expected the judge's last result to hold its pick under {keys} (got neither)"


def study_default(path: Path) -> str:
    """The data set's study (:func:`pairwise.llmbar_study_name` of its folder) when the file is
    ``<root>/evaluators/<name>/result.json``; else that of the evaluator folder's parent."""
    folder = path.absolute().parent
    root = folder.parent.parent if folder.parent.name == "evaluators" else folder.parent
    return pairwise.llmbar_study_name(root)


def judge_of(path: Path, ctx: ParseContext) -> Judge:
    """The judge the evaluator folder names (``--option judge=NAME`` overrides the name)."""
    name = ctx.options.get("judge") or path.absolute().parent.name or "llmbar-evaluator"
    model, _, prompt = name.rpartition("-")
    if not model:
        model, prompt = name, ""
    return Judge(
        id=name,
        model=ctx.options.get("judge-model", model),
        prompt=prompt,
        source="llmbar",
        metadata={"evaluator": name, "file": path.name},
    )


def _winner(value: Any, item: int, key: str, ctx: ParseContext) -> str | None:
    """The pick as "1"/"2", or None for a judge answer that names neither."""
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if value in WINNERS:
        return str(value)
    if value is None or isinstance(value, str):
        return None
    raise InputError(
        ctx.display,
        f'expected the winner "1" or "2" (got {json.dumps(value)[:40]})',
        path=f'$[{item}].results[-1]["{key}"].winner',
    )


def _verdicts(
    raw: dict[str, Any],
    position: int,
    task: str,
    runs: tuple[str, str],
    judge: str,
    ctx: ParseContext,
) -> list[JudgeVerdict]:
    # The last result is the judge's final pick in each order (earlier ones are auxiliary
    # generations), as LLMBar's own statistics read it.
    result = raw["results"][-1]
    out = []
    for key, swapped in ORDERS:
        order = result.get(key)
        if order is None:
            # LLMBar writes both orders; one missing is a cut-short run, not a verdict.
            shown = "output_2" if swapped else "output_1"
            raise InputError(
                ctx.display,
                f'expected the judge\'s pick in both presentation orders, "swap = False" and '
                f'"swap = True" ("{key}": {shown} shown first, is missing)',
                path=f"$[{position}].results[-1]",
            )
        if not isinstance(order, dict):
            raise InputError(
                ctx.display,
                "expected an object with winner and completion",
                path=f'$[{position}].results[-1]["{key}"]',
            )
        winner = _winner(order.get("winner"), position, key, ctx)
        completion = order.get("completion")
        explanation = (
            str(completion[0])
            if isinstance(completion, list) and completion and isinstance(completion[0], str)
            else json.dumps(completion, ensure_ascii=False)
            if completion is not None
            else ""
        )
        out.append(
            JudgeVerdict(
                judge=judge,
                task_id=task,
                runs=runs,
                shown_first=runs[1] if swapped else runs[0],
                kind="preference",
                verdict=runs[int(winner) - 1] if winner else None,
                error=None if winner else f"no winner ({json.dumps(order.get('winner'))})",
                explanation=explanation,
                metadata={"order": key, "completion": completion},
            )
        )
    return out


def _parse(path: Path, ctx: ParseContext) -> Iterator[Record | Invalid]:
    if not starts_list(path):
        read_json(path, ctx.display)  # a syntax error is reported as such
        raise InputError(ctx.display, "expected a JSON list of LLMBar evaluator results", path="$")
    study_id = ctx.study(study_default(path))
    yield Study(
        id=study_id,
        name=study_id,
        protocol="pairwise",
        description="Pairwise comparisons (LLMBar style): an input, two outputs and one gold "
        "label (1 or 2, the better output).",
    )
    judge = judge_of(path, ctx)
    yield judge
    labeller = f"{study_id}:label"
    conditions: set[str] = set()
    reviewer_seen = False
    for position, data in iter_json_list(path, ctx.display, ctx.progress):
        prefix = f"$[{position}]"
        missing = _not_judged(data)
        if missing is not None:
            yield Invalid(InputError(ctx.display, missing, path=f"{prefix}.results"))
            continue
        if not _is_result(data):
            yield Invalid(
                InputError(
                    ctx.display,
                    "expected an item with input, output_1, output_2, label and results",
                    path=prefix,
                )
            )
            continue
        pair = {k: v for k, v in data.items() if k != "results"}
        try:
            task, runs, labels = pairwise.item_records(
                pairwise.RawItem(position, None, prefix, pair), "llmbar", {}, study_id, ctx
            )
            verdicts = _verdicts(data, position, task.id, (runs[0].id, runs[1].id), judge.id, ctx)
        except InputError as exc:
            yield Invalid(exc)
            continue
        for run in runs:
            if run.condition_id not in conditions:
                conditions.add(run.condition_id)
                yield pairwise.condition(run.condition_id, "llmbar")
        yield task
        yield from runs
        for _name, choice in labels:
            if not reviewer_seen:
                reviewer_seen = True
                yield Reviewer(name=labeller, external=True)
            yield Preference(
                reviewer=labeller,
                item_id=task.id,
                task_id=task.id,
                run_1=runs[0].id,
                run_2=runs[1].id,
                choice=choice,
            )
        yield from verdicts


FORMAT = SimpleFormat(
    name="llmbar-eval",
    summary="LLMBar evaluator results (evaluators/<judge>/result.json): the pairs, the human "
    "label and an AI judge's pick in both presentation orders",
    sniff_fn=_sniff,
    parse_fn=_parse,
)

__all__ = ["FORMAT", "judge_of", "study_default"]
