"""Generic pairwise judgments: two responses to one prompt, labelled by annotators.

Two item shapes are read, from a JSON list or from JSONL (one item per line):

- PandaLM style: ``{idx, instruction, input, response1, response2, cmp_key, annotator1..N}``,
  where ``cmp_key`` names the two models (``"bloom-7b_llama-7b"``) and each annotator label is
  0 (tie), 1 (response1 better) or 2 (response2 better).
- LLMBar style: ``{input, output_1, output_2, label}`` with ``label`` 1 or 2 (the better output).

Each item becomes one Task, two Runs (``<item>/1`` and ``<item>/2``, in file order) and one
Preference per label, by an external Reviewer named ``<study>:<label field>`` (the reviewers
table is shared by every study, so the study prefix keeps one dataset's ``annotator1`` from being
merged with another's). The model names go into Run fields and run metadata only, never into the
Task, which reviewers see. This module parses; it never touches the database.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, StrictBool, StrictFloat, StrictInt, StrictStr

from abp_tui.errors import InputError
from abp_tui.formats.base import (
    Invalid,
    ParseContext,
    Record,
    SimpleFormat,
    first_jsonl_record,
    iter_jsonl,
    loads_json,
    read_json,
    validate,
)
from abp_tui.formats.json_stream import first_item, iter_json_list, starts_list
from abp_tui.models import (
    Condition,
    Preference,
    PreferenceChoice,
    Reviewer,
    Run,
    Study,
    Task,
)

ANNOTATOR = re.compile(r"^annotator(\d+)$")
JSONL_SUFFIXES = (".jsonl", ".ndjson")
FALLBACK_CONDITIONS = ("response1", "response2")
"""Condition ids used when an item does not name its two models unambiguously."""

NOT_EXPOSED_FIELDS = (
    "provider",
    "model_version",
    "engine",
    "engine_version",
    "reasoning",
    "tokens",
    "tool_calls",
    "wall_clock_ms",
    "cost_usd",
    "started_at",
)
"""Run fields neither item shape carries at all (seed 002: "not exposed", not missing)."""

PANDALM_CHOICES = {
    0: PreferenceChoice.TIE,
    1: PreferenceChoice.RESPONSE_1,
    2: PreferenceChoice.RESPONSE_2,
}
LLMBAR_CHOICES = {1: PreferenceChoice.RESPONSE_1, 2: PreferenceChoice.RESPONSE_2}
LABEL_FIELD = "label"
"""LLMBar's one label field (its label set is ``<study>:label``)."""


def label_choices(field: str) -> tuple[PreferenceChoice, ...] | None:
    """The choices an imported label field can hold, as this format reads it: a PandaLM
    ``annotatorN`` field a tie or either response, LLMBar's ``label`` either output, never
    "insufficient evidence" (None: a field this format does not write)."""
    if ANNOTATOR.match(field):
        return tuple(PANDALM_CHOICES.values())
    if field == LABEL_FIELD:
        return tuple(LLMBAR_CHOICES.values())
    return None


Response = StrictStr | StrictBool | StrictInt | StrictFloat
"""A response as the file holds it. Real files carry bare JSON scalars (PandaLM item 157's
response1 is ``true``): they are kept, as their JSON text, and flagged in run metadata."""


class PandaLMItem(BaseModel):
    """One PandaLM-style comparison; ``annotatorN`` labels arrive as extra fields."""

    model_config = ConfigDict(extra="allow")

    idx: int | str | None = None
    """The item's identifier; its position in the file when absent."""
    instruction: str = ""
    input: str = ""
    """Extra input for the instruction (often empty)."""
    response1: Response
    response2: Response
    cmp_key: str | None = None
    """The two models as ``<model of response1>_<model of response2>``."""


class LLMBarItem(BaseModel):
    """One LLMBar-style comparison with a single gold label."""

    model_config = ConfigDict(extra="allow")

    idx: int | str | None = None
    input: str
    output_1: Response
    output_2: Response
    label: Any
    """1 or 2: the better output (checked separately for a precise message)."""


@dataclass(slots=True)
class _Raw:
    """One item as read from the file, before validation."""

    position: int
    """0-based position among the file's items."""
    line: int | None
    """Line number for JSONL; None for a JSON list."""
    prefix: str
    """JSON path of the item (``$[3]`` in a list, ``$`` on a JSONL line)."""
    data: Any


# -- detection ----------------------------------------------------------------------------------
def _is_pandalm(item: Any) -> bool:
    if not isinstance(item, dict) or "response1" not in item or "response2" not in item:
        return False
    return "cmp_key" in item or any(ANNOTATOR.match(k) for k in item)


def _is_llmbar(item: Any) -> bool:
    return isinstance(item, dict) and {"output_1", "output_2", "label"} <= item.keys()


def _looks_pairwise(item: Any) -> bool:
    return (_is_pandalm(item) or _is_llmbar(item)) and not _is_judge_result(item)


def _is_judge_result(item: Any) -> bool:
    """An LLMBar evaluator's ``result.json`` item: the pair with an AI judge's pick in each
    presentation order (``results[0]["swap = False"].winner``)."""
    results = item.get("results") if isinstance(item, dict) else None
    return (
        isinstance(results, list)
        and bool(results)
        and isinstance(results[0], dict)
        and any(str(k).startswith("swap") for k in results[0])
    )


def ai_judge_note(path: Path, _head: bytes) -> str | None:
    """Why an LLMBar evaluator result is recognised but not imported (the llmbar-eval format
    reads the evaluator results it knows; this one has another shape), or None."""
    if path.suffix.lower() != ".json":
        return None
    if _is_judge_result(first_item(path)):
        return (
            "LLMBar evaluator result in a shape the llmbar-eval format does not read (expected "
            "each item's results with the winner for swap = False and swap = True)"
        )
    return None


def _first_line(path: Path, head: bytes) -> Any:
    """The first JSONL record, reading past the sniff head when the first line is long."""
    if b"\n" in head or len(head) < 4096:
        return first_jsonl_record(head)
    try:
        with path.open("rb") as handle:
            line = handle.readline(1 << 22)
    except OSError:
        return None
    return first_jsonl_record(line)


def _sniff(path: Path, head: bytes) -> bool:
    suffix = path.suffix.lower()
    if suffix == ".json":
        return _looks_pairwise(first_item(path))
    if suffix in JSONL_SUFFIXES:
        return _looks_pairwise(_first_line(path, head))
    return False


# -- reading ------------------------------------------------------------------------------------
Items = Callable[[ParseContext], Iterator[_Raw | InputError]]
"""Iterates over a file's items (callable more than once); a bad JSONL line is an InputError."""


def _reader(path: Path, ctx: ParseContext) -> Items:
    """How to iterate over the file's items: JSONL line by line, a JSON list item by item
    (:func:`abp_tui.formats.json_stream.iter_json_list`): neither holds more than an item."""
    if path.suffix.lower() in JSONL_SUFFIXES:

        def lines(run_ctx: ParseContext) -> Iterator[_Raw | InputError]:
            position = 0
            for lineno, raw in iter_jsonl(path, run_ctx):
                try:
                    data = loads_json(raw, run_ctx.display, lineno)
                except InputError as exc:
                    yield exc
                    continue
                yield _Raw(position, lineno, "$", data)
                position += 1

        return lines
    if not starts_list(path):
        read_json(path, ctx.display)  # a syntax error is reported as such
        raise InputError(
            ctx.display,
            "expected a JSON list of pairwise items (PandaLM or LLMBar style)",
            path="$",
        )

    def elements(run_ctx: ParseContext) -> Iterator[_Raw | InputError]:
        for position, item in iter_json_list(path, run_ctx.display, run_ctx.progress):
            yield _Raw(position, None, f"$[{position}]", item)

    return elements


def _style(items: Items, ctx: ParseContext) -> tuple[str, list[str]]:
    """The file's item style and every cmp_key in it (a first, cheap pass)."""
    style = ""
    keys: list[str] = []
    seen: set[str] = set()
    quiet = ParseContext(display=ctx.display)
    try:
        for raw in items(quiet):
            if isinstance(raw, InputError) or not isinstance(raw.data, dict):
                continue
            if not style:
                if "response1" in raw.data or "response2" in raw.data:
                    style = "pandalm"
                elif "output_1" in raw.data or "output_2" in raw.data:
                    style = "llmbar"
            key = raw.data.get("cmp_key")
            if isinstance(key, str) and key not in seen:
                seen.add(key)
                keys.append(key)
    except InputError as exc:
        if exc.whole_file:  # a JSON list that does not parse: nothing of it is read
            raise
        # a truncated JSONL tail: the main pass reports it where it happens
    if not style:
        raise InputError(
            ctx.display,
            "no pairwise item found: expected items with response1/response2 (PandaLM style) "
            "or output_1/output_2/label (LLMBar style)",
        )
    return style, keys


def resolve_cmp_keys(keys: list[str]) -> dict[str, tuple[str, str]]:
    """Split each ``cmp_key`` into its two model names, where that can be done unambiguously.

    A key with exactly one underscore splits there. Model names may contain underscores
    themselves, so a key with several is split where the halves are names already known from
    other keys (the split with the most known halves, if it is the only one); this repeats until
    nothing changes. Keys that stay ambiguous are left out: their runs fall back to the
    conditions ``response1`` / ``response2``, with the key kept in run metadata.
    """
    resolved: dict[str, tuple[str, str]] = {}
    for key in keys:
        parts = key.split("_")
        if len(parts) == 2 and all(parts):
            resolved[key] = (parts[0], parts[1])
    changed = True
    while changed:
        changed = False
        known = {name for pair in resolved.values() for name in pair}
        for key in keys:
            if key in resolved:
                continue
            best: list[tuple[str, str]] = []
            best_score = 0
            for at in (m.start() for m in re.finditer("_", key)):
                left, right = key[:at], key[at + 1 :]
                if not left or not right:
                    continue
                score = (left in known) + (right in known)
                if score > best_score:
                    best, best_score = [(left, right)], score
                elif score == best_score and score:
                    best.append((left, right))
            if len(best) == 1:
                resolved[key] = best[0]
                changed = True
    return resolved


@functools.lru_cache(maxsize=256)
def _annotators(keys: tuple[str, ...]) -> tuple[str, ...]:
    """The ``annotatorN`` fields among an item's extra keys, by N (most items share their keys)."""
    numbered = sorted((int(m.group(1)), k) for k in keys if (m := ANNOTATOR.match(k)))
    return tuple(k for _n, k in numbered)


@functools.cache
def _run_template(not_exposed: tuple[str, ...]) -> Run:
    """A validated run whose copies are the runs of items: what differs between them is set on
    the copy (:func:`_item_records`), values made here from an item already validated."""
    return Run(id="-", task_id="-", condition_id="-", not_exposed=not_exposed)


def _choice(
    value: Any,
    allowed: dict[int, PreferenceChoice],
    expected: str,
    ctx: ParseContext,
    raw: _Raw,
    field: str,
) -> PreferenceChoice:
    """The label as a PreferenceChoice; an integer outside ``allowed`` (or a non-integer) is bad."""
    if isinstance(value, int) and not isinstance(value, bool) and value in allowed:
        return allowed[value]
    shown = json.dumps(value, ensure_ascii=False)
    raise InputError(
        ctx.display,
        f"expected {expected} (got {shown[:60]}{'...' if len(shown) > 60 else ''})",
        raw.line,
        f"{raw.prefix}.{field}",
    )


def _prompt(instruction: str, extra: str) -> str:
    return "\n\n".join(part for part in (instruction, extra) if part)


def _parse(path: Path, ctx: ParseContext) -> Iterator[Record | Invalid]:
    items = _reader(path, ctx)
    style, keys = _style(items, ctx)
    pairs = resolve_cmp_keys(keys)
    study_id = ctx.study(study_name(path, style))
    if style == "pandalm":
        description = (
            "Pairwise comparisons (PandaLM style): an instruction, two model responses, "
            "labels by independent annotators (0 tie, 1 response1 better, 2 response2 better)."
        )
    else:
        description = (
            "Pairwise comparisons (LLMBar style): an input, two outputs and one gold label "
            "(1 or 2, the better output)."
        )
    yield Study(id=study_id, name=study_id, protocol="pairwise", description=description)

    conditions: set[str] = set()
    reviewers: set[str] = set()
    tasks: set[str] = set()
    for raw in items(ctx):
        if isinstance(raw, InputError):
            yield Invalid(raw)
            continue
        if not isinstance(raw.data, dict):
            yield Invalid(
                InputError(ctx.display, "expected a JSON object (one item)", raw.line, raw.prefix)
            )
            continue
        try:
            records = _item_records(raw, style, pairs, study_id, ctx)
        except InputError as exc:
            yield Invalid(exc)
            continue
        task, runs, labels = records
        if task.id in tasks:
            yield Invalid(
                InputError(
                    ctx.display,
                    f"duplicate item {task.id!r}: expected each item's idx to be unique",
                    raw.line,
                    f"{raw.prefix}.idx",
                )
            )
            continue
        tasks.add(task.id)
        for run in runs:
            if run.condition_id not in conditions:
                conditions.add(run.condition_id)
                yield _condition(run.condition_id, style)
        yield task
        yield from runs
        for reviewer_name, choice in labels:
            if reviewer_name not in reviewers:
                reviewers.add(reviewer_name)
                yield Reviewer(name=reviewer_name, external=True)
            yield Preference(
                reviewer=reviewer_name,
                item_id=task.id,
                task_id=task.id,
                run_1=runs[0].id,
                run_2=runs[1].id,
                choice=choice,
            )


POSITION_NOTE = "position; the data set does not name the models"
"""What a fallback condition's label says: it is a position in the data, not a model."""


def _condition(cond_id: str, style: str = "pandalm") -> Condition:
    """The condition of a response: the model the item names, else its position (``response1``:
    PandaLM's ``response1``, LLMBar's ``output_1``), labelled as a position."""
    if cond_id in FALLBACK_CONDITIONS:
        word = "output" if style == "llmbar" else "response"
        return Condition(
            id=cond_id,
            label=f"{word} {cond_id[-1]} ({POSITION_NOTE})",
            metadata={"note": "the item does not name this response's model unambiguously"},
        )
    return Condition(id=cond_id, label=cond_id, metadata={"model": cond_id})


def llmbar_study_name(folder: Path) -> str:
    """LLMBar's own name for the data set in ``folder``: its path under the repository's
    ``LLMBar`` folder (``Dataset/LLMBar/Natural`` is ``llmbar-natural``,
    ``Dataset/LLMBar/Adversarial/Manual`` ``llmbar-adversarial-manual``), else the folder's name,
    led by ``llmbar-`` unless it starts so (``llmbar-manual``)."""
    parts = [part.lower().replace(" ", "-") for part in folder.absolute().parts]
    if "llmbar" in parts:
        at = len(parts) - 1 - parts[::-1].index("llmbar")
        return "-".join(["llmbar", *parts[at + 1 :]])
    name = parts[-1] if parts and parts[-1] != "/" else ""
    return name if name.startswith("llmbar") else "-".join(p for p in ("llmbar", name) if p)


def study_name(path: Path, style: str) -> str:
    """The study a pairwise file names by default: the data set's own name (PandaLM's
    ``testset-v1.json`` is ``pandalm-testset-v1``; LLMBar's ``dataset.json`` is named by its
    folders, :func:`llmbar_study_name`); any other file, its stem."""
    if style == "pandalm":
        return path.stem if path.stem.lower().startswith("pandalm") else f"pandalm-{path.stem}"
    if path.stem == "dataset":
        return llmbar_study_name(path.parent)
    return path.stem


def _item_records(
    raw: _Raw,
    style: str,
    pairs: dict[str, tuple[str, str]],
    study_id: str,
    ctx: ParseContext,
) -> tuple[Task, list[Run], list[tuple[str, PreferenceChoice]]]:
    """The Task, the two Runs and the (reviewer, choice) labels of one item; InputError if bad."""
    labels: list[tuple[str, PreferenceChoice]] = []
    if style == "pandalm":
        item = validate(PandaLMItem, raw.data, ctx.display, raw.line, raw.prefix)
        extra = dict(item.model_extra or {})
        for field in _annotators(tuple(extra)):
            value = extra.pop(field)
            if value is None:
                continue  # this annotator did not label the item
            choice = _choice(
                value,
                PANDALM_CHOICES,
                "0 (tie), 1 (response1 better) or 2 (response2 better)",
                ctx,
                raw,
                field,
            )
            labels.append((f"{study_id}:{field}", choice))
        prompt = _prompt(item.instruction, item.input)
        task_meta: dict[str, Any] = {"instruction": item.instruction, "input": item.input}
        outputs = (item.response1, item.response2)
        models: tuple[str | None, str | None] = (None, None)
        run_meta: dict[str, Any] = {}
        if item.cmp_key is not None:
            run_meta["cmp_key"] = item.cmp_key
            if item.cmp_key in pairs:
                models = pairs[item.cmp_key]
            else:
                run_meta["cmp_key_unresolved"] = True
        not_exposed: tuple[str, ...] = NOT_EXPOSED_FIELDS
        idx = item.idx
    else:
        item_b = validate(LLMBarItem, raw.data, ctx.display, raw.line, raw.prefix)
        extra = dict(item_b.model_extra or {})
        choice = _choice(
            item_b.label,
            LLMBAR_CHOICES,
            "1 (output_1 better) or 2 (output_2 better)",
            ctx,
            raw,
            "label",
        )
        labels.append((f"{study_id}:label", choice))
        prompt = item_b.input
        task_meta = {}
        outputs = (item_b.output_1, item_b.output_2)
        models = (None, None)
        run_meta = {}
        not_exposed = (*NOT_EXPOSED_FIELDS, "model")
        idx = item_b.idx
    task_meta.update(extra)
    task_id = str(idx) if idx is not None else str(raw.position)
    if not task_id:
        raise InputError(
            ctx.display,
            "expected a non-empty idx (or none: the item's position is its id)",
            raw.line,
            f"{raw.prefix}.idx",
        )
    task = Task(id=task_id, prompt=prompt, metadata=task_meta)
    template = _run_template(not_exposed)
    runs: list[Run] = []
    for n, (value, model) in enumerate(zip(outputs, models, strict=True), start=1):
        condition = model or FALLBACK_CONDITIONS[n - 1]
        meta = {**run_meta, "position": n}
        if isinstance(value, str):
            output = value
        else:
            output = json.dumps(value)
            meta["output_json_type"] = "boolean" if isinstance(value, bool) else "number"
        trial = 2 if n == 2 and runs and runs[0].condition_id == condition else 1
        # Validating each run again cost more than the rest of the item: the values are made
        # here, of the kinds the Run model takes (ids and conditions non-empty, the output a
        # string), so a copy of a validated run gets them (tests/test_pairwise.py checks that a
        # Run validated from these values is equal).
        runs.append(
            template.model_copy(
                update={
                    "id": f"{task_id}/{n}",
                    "task_id": task_id,
                    "condition_id": condition,
                    "trial": trial,
                    "output": output,
                    "model": model,
                    "source_line": raw.line,
                    "metadata": meta,
                }
            )
        )
    return task, runs, labels


# The LLMBar evaluator reader (abp_tui.formats.llmbar_eval) makes the same records of the same
# pairs, so that a dataset and its evaluators' results imported into one study add each pair once.
RawItem = _Raw
item_records = _item_records
condition = _condition

FORMAT = SimpleFormat(
    name="pairwise",
    summary="Pairwise judgments: PandaLM (response1/response2, annotatorN) or LLMBar "
    "(output_1/output_2, label); JSON list or JSONL",
    sniff_fn=_sniff,
    parse_fn=_parse,
)

__all__ = ["FORMAT", "resolve_cmp_keys"]
