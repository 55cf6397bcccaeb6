"""FastChat / MT-Bench AI judge verdicts: ``model_judgment/*_pair.jsonl`` and ``*_single.jsonl``.

FastChat's ``llm_judge`` writes one line per judged question and turn:

- pair files: ``question_id``, ``model_1``, ``model_2``, ``judge`` = [model, prompt name],
  ``turn``, and the verdict in both presentation orders: ``g1_winner`` with model_1's answer
  shown as Assistant A, ``g2_winner`` with the two swapped (both already in model terms:
  ``model_1``, ``model_2``, ``tie`` or ``error``), with the judge's texts ``g1_judgment`` and
  ``g2_judgment``;
- single files: ``question_id``, ``model``, ``judge``, ``turn``, ``score`` (1-10; -1 when the
  judge's answer held no score) and ``judgment``.

Each line becomes verdicts of the AI judge ``<model>/<prompt>`` (FastChat judges turn 2 with a
``-multi-turn`` prompt of its own: a different judge) on the runs that
:mod:`abp_tui.formats.mtbench` makes of ``model_answer/``: run ``<model>/<question_id>`` of the
task ``<question_id>``, in the study named after the folder holding ``model_judgment/`` (or
``--study``). A folder import stores the answers before these verdicts, in one transaction; a
verdict on a run the study does not hold is refused by name. The judge's prompts (which repeat
the whole question and answers) are not kept, only their SHA-256; its judgment texts are.

A line that cannot be a verdict is refused with its line and field: a pair of a model with
itself, an empty judge model or prompt name, a turn the question does not have (the questions'
turns are read from ``question.jsonl`` beside ``model_judgment/`` when it is there, else
MT-Bench's two turns are the limit). This module parses; it never writes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, ValidationError

from abp_tui.errors import InputError
from abp_tui.formats.base import (
    Invalid,
    ParseContext,
    Record,
    SimpleFormat,
    describe_validation,
    first_jsonl_record,
    iter_jsonl,
    loads_json,
    validate,
)
from abp_tui.formats.mtbench import JUDGMENTS_DIR, PROTOCOL, QUESTIONS_FILE, study_default
from abp_tui.models import Study
from abp_tui.models.judges import TIE, Judge, JudgeVerdict

SCORE_SCALE = (1.0, 10.0)
"""FastChat's single-answer grading scale."""
NO_SCORE = -1
"""The score FastChat writes when the judge's answer held none."""
MT_BENCH_TURNS = 2
"""The turns of an MT-Bench question, when no ``question.jsonl`` says how many a question has."""


class PairJudgment(BaseModel):
    model_config = ConfigDict(extra="allow")

    question_id: StrictInt | StrictStr
    model_1: StrictStr = Field(min_length=1)
    model_2: StrictStr = Field(min_length=1)
    g1_winner: Literal["model_1", "model_2", "tie", "error"]
    g2_winner: Literal["model_1", "model_2", "tie", "error"]
    judge: tuple[StrictStr, StrictStr]
    """[judging model, prompt name]: both checked not empty by :func:`_check_judge`."""
    turn: StrictInt = Field(default=1, ge=1)
    g1_judgment: str = ""
    g2_judgment: str = ""
    g1_user_prompt: str = ""
    g2_user_prompt: str = ""
    tstamp: float | None = None


class SingleJudgment(BaseModel):
    model_config = ConfigDict(extra="allow")

    question_id: StrictInt | StrictStr
    model: StrictStr = Field(min_length=1)
    judge: tuple[StrictStr, StrictStr]
    turn: StrictInt = Field(default=1, ge=1)
    score: int | float
    judgment: str = ""
    user_prompt: str = ""
    tstamp: float | None = None


def run_id(model: str, question_id: str) -> str:
    """The run :mod:`abp_tui.formats.mtbench` makes of a model's answer (its first choice)."""
    return f"{model}/{question_id}"


def _kind(record: Any) -> str | None:
    if not isinstance(record, dict) or "question_id" not in record or "judge" not in record:
        return None
    if {"g1_winner", "g2_winner", "model_1", "model_2"} <= record.keys():
        return "pair"
    if {"score", "model"} <= record.keys():
        return "single"
    return None


def _sniff(path: Path, head: bytes) -> bool:
    if path.suffix.lower() != ".jsonl":
        return False
    record = first_jsonl_record(head)
    if record is None and b"\n" not in head and len(head) >= 4096:
        try:
            with path.open("rb") as handle:
                record = first_jsonl_record(handle.readline(1 << 24))
        except OSError:
            return False
    return _kind(record) is not None


def _question_turns(path: Path) -> dict[str, int]:
    """Question id -> its number of turns, from the ``question.jsonl`` of the run folder holding
    ``model_judgment/`` (empty when there is none). Lines that are not questions are left to the
    questions' own import, which refuses them."""
    folder = path.absolute().parent
    if folder.name == JUDGMENTS_DIR:
        folder = folder.parent
    questions = folder / QUESTIONS_FILE
    found: dict[str, int] = {}
    try:
        with questions.open("rb") as handle:
            for raw in handle:
                try:
                    data = json.loads(raw)
                except (ValueError, RecursionError):
                    continue
                turns = data.get("turns") if isinstance(data, dict) else None
                qid = data.get("question_id") if isinstance(data, dict) else None
                if isinstance(turns, list) and turns and isinstance(qid, int | str):
                    found[str(qid)] = len(turns)
    except OSError:
        return {}
    return found


def _sha(text: str) -> str | None:
    return hashlib.sha256(text.encode("utf-8")).hexdigest() if text else None


def _judge(model: str, prompt: str) -> Judge:
    return Judge(id=f"{model}/{prompt}", model=model, prompt=prompt, source="fastchat")


def _pair_verdicts(row: PairJudgment, lineno: int) -> list[JudgeVerdict]:
    qid = str(row.question_id)
    runs = (run_id(row.model_1, qid), run_id(row.model_2, qid))
    picks = {"model_1": runs[0], "model_2": runs[1], "tie": TIE}
    judge = f"{row.judge[0]}/{row.judge[1]}"
    out = []
    orders = (
        (runs[0], row.g1_winner, row.g1_judgment, row.g1_user_prompt, "g1"),
        (runs[1], row.g2_winner, row.g2_judgment, row.g2_user_prompt, "g2"),
    )
    for first, winner, text, prompt, game in orders:
        out.append(
            JudgeVerdict(
                judge=judge,
                task_id=qid,
                runs=runs,
                shown_first=first,
                turn=row.turn,
                kind="preference",
                verdict=picks.get(winner),
                error="the judge's answer named no winner (error)" if winner == "error" else None,
                explanation=text,
                metadata={
                    "source_line": lineno,
                    "game": game,
                    "user_prompt_sha256": _sha(prompt),
                    "tstamp": row.tstamp,
                },
            )
        )
    return out


def _single_verdict(row: SingleJudgment, lineno: int) -> JudgeVerdict:
    qid = str(row.question_id)
    missing = row.score == NO_SCORE
    return JudgeVerdict(
        judge=f"{row.judge[0]}/{row.judge[1]}",
        task_id=qid,
        runs=(run_id(row.model, qid),),
        turn=row.turn,
        kind="score",
        score=None if missing else float(row.score),
        scale=SCORE_SCALE,
        error="the judge's answer held no score (-1)" if missing else None,
        explanation=row.judgment,
        metadata={
            "source_line": lineno,
            "user_prompt_sha256": _sha(row.user_prompt),
            "tstamp": row.tstamp,
        },
    )


def _check_score(row: SingleJudgment, ctx: ParseContext, lineno: int) -> None:
    low, high = SCORE_SCALE
    if row.score != NO_SCORE and not low <= row.score <= high:
        raise InputError(
            ctx.display,
            f"expected a score from 1 to 10, or -1 for none (got {row.score})",
            lineno,
            "$.score",
        )


def _check_judge(judge: tuple[str, str], ctx: ParseContext, lineno: int) -> None:
    for index, what in enumerate(("the judging model", "the prompt name")):
        if not judge[index].strip():
            raise InputError(
                ctx.display,
                f"expected judge = [judging model, prompt name] with {what} not empty "
                f"(got {json.dumps(list(judge))[:60]})",
                lineno,
                f"$.judge[{index}]",
            )


def _check_pair(row: PairJudgment, ctx: ParseContext, lineno: int) -> None:
    if row.model_1 == row.model_2:
        raise InputError(
            ctx.display,
            f"expected two different models in model_1 and model_2, got "
            f"{json.dumps(row.model_1)[:60]} twice (a pair compares two models' answers)",
            lineno,
            "$.model_2",
        )


def _check_turn(
    turn: int, question_id: str, turns: dict[str, int], ctx: ParseContext, lineno: int
) -> None:
    count = turns.get(question_id)
    if count is None:
        if turn > MT_BENCH_TURNS:
            raise InputError(
                ctx.display,
                f"expected turn 1 or {MT_BENCH_TURNS} (an MT-Bench question has "
                f"{MT_BENCH_TURNS} turns), got {turn}",
                lineno,
                "$.turn",
            )
        return
    if turn > count:
        expected = "turn 1" if count == 1 else f"a turn from 1 to {count}"
        raise InputError(
            ctx.display,
            f"expected {expected} (question {question_id} has {count} "
            f"turn{'s' if count != 1 else ''} in {QUESTIONS_FILE}), got {turn}",
            lineno,
            "$.turn",
        )


def _parse(path: Path, ctx: ParseContext) -> Iterator[Record | Invalid]:
    yield Study(id=ctx.study(study_default(path)), protocol=PROTOCOL)
    judges: set[str] = set()
    turns = _question_turns(path)
    for lineno, raw in iter_jsonl(path, ctx):
        try:
            data = loads_json(raw, ctx.display, lineno)
            kind = _kind(data)
            if kind is None:
                raise InputError(
                    ctx.display,
                    "expected a FastChat judgment: question_id, judge and either model_1, "
                    "model_2, g1_winner, g2_winner (pair) or model and score (single)",
                    lineno,
                    "$",
                )
            if kind == "pair":
                pair = validate(PairJudgment, data, ctx.display, lineno)
                _check_judge(pair.judge, ctx, lineno)
                _check_pair(pair, ctx, lineno)
                _check_turn(pair.turn, str(pair.question_id), turns, ctx, lineno)
                row: PairJudgment | SingleJudgment = pair
            else:
                single = validate(SingleJudgment, data, ctx.display, lineno)
                _check_judge(single.judge, ctx, lineno)
                _check_turn(single.turn, str(single.question_id), turns, ctx, lineno)
                _check_score(single, ctx, lineno)
                row = single
            try:
                judge = _judge(*row.judge)
                if isinstance(row, PairJudgment):
                    verdicts = _pair_verdicts(row, lineno)
                else:
                    verdicts = [_single_verdict(row, lineno)]
            except ValidationError as exc:
                # The checks above name the field; this keeps anything they miss a one-line
                # error of the line rather than an internal one.
                raise describe_validation(exc, ctx.display, lineno) from None
        except InputError as exc:
            yield Invalid(exc)
            continue
        if judge.id not in judges:
            judges.add(judge.id)
            yield judge
        yield from verdicts


FORMAT = SimpleFormat(
    name="fastchat-judgment",
    summary="FastChat / MT-Bench AI judge verdicts (model_judgment/*_pair.jsonl: both "
    "presentation orders; *_single.jsonl: 1-10 scores), on the MT-Bench answers' runs",
    sniff_fn=_sniff,
    parse_fn=_parse,
)

__all__ = ["FORMAT", "run_id"]
