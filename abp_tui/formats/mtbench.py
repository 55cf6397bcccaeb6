"""MT-Bench as FastChat's ``llm_judge`` leaves it: questions, model answers, reference answers.

A run folder holds ``question.jsonl``, ``model_answer/<model>.jsonl``, optionally
``reference_answer/<model>.jsonl`` and ``model_judgment/*.jsonl``:

- ``question.jsonl`` (``mt-bench-question``) -> the :class:`Study` and one :class:`Task` per
  question (``question_id``): both user turns in the prompt, labelled ``Turn 1:`` and ``Turn 2:``,
  and the expected behaviour from the question's own ``reference`` and from the reference answers
  in ``reference_answer/`` beside it, which are read with the questions (and hashed with them, so
  a changed reference answer is a changed import).
- ``model_answer/<model>.jsonl`` (``mt-bench-answer``) -> one :class:`Run` per answer and choice:
  the condition is the answering model (``model_id``), the trial the choice's index + 1, the run
  id ``<model>/<question_id>`` (``/choice<n>`` after the first choice). The output is the
  conversation's assistant side, each turn under its ``Turn N:`` heading; the turns are also kept
  as a list in the run's metadata.
- ``model_judgment/`` holds an AI judge's verdicts (GPT-4 pairwise and single scores): read by
  :mod:`abp_tui.formats.fastchat_judgment` as AI judge verdicts, never as human judgments, in the
  same import as the runs they judge. :func:`ai_judge_note` names a judgment file whose lines
  that format does not read, so the import can say why it is skipped.

The study is named after the folder holding ``question.jsonl`` (for answers, the folder holding
``model_answer/``) unless ``--study`` names one. This module parses; it never writes.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr

from abp_tui.errors import InputError
from abp_tui.formats.base import (
    Invalid,
    ParseContext,
    Record,
    SimpleFormat,
    first_jsonl_record,
    iter_jsonl,
    loads_json,
    validate,
)
from abp_tui.models import Condition, Run, Study, Task

PROTOCOL = "mt-bench"
QUESTIONS_FILE = "question.jsonl"
ANSWERS_DIR = "model_answer"
REFERENCES_DIR = "reference_answer"
JUDGMENTS_DIR = "model_judgment"
AI_JUDGE_NOTE = (
    "AI judge verdicts in a shape the fastchat-judgment format does not read (expected "
    "g1_winner, g2_winner, model_1 and model_2, or model and score, on each line)"
)

ANSWER_NOT_EXPOSED = (
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
"""Run fields an MT-Bench answer file does not carry at all."""


class Question(BaseModel):
    model_config = ConfigDict(extra="allow")

    question_id: StrictInt | StrictStr
    category: StrictStr = ""
    turns: list[StrictStr] = Field(min_length=1)
    reference: list[StrictStr] | None = None
    """The question author's reference answer per turn (math, reasoning, coding...)."""


class Choice(BaseModel):
    model_config = ConfigDict(extra="allow")

    index: StrictInt = 0
    turns: list[StrictStr] = Field(min_length=1)


class Answer(BaseModel):
    model_config = ConfigDict(extra="allow")

    question_id: StrictInt | StrictStr
    answer_id: StrictStr | None = None
    model_id: StrictStr = Field(min_length=1)
    choices: list[Choice] = Field(min_length=1)
    tstamp: float | None = None


# -- detection ----------------------------------------------------------------------------------
def _first(path: Path, head: bytes) -> Any:
    record = first_jsonl_record(head)
    if record is None and b"\n" not in head and len(head) >= 4096:
        try:
            with path.open("rb") as handle:
                record = first_jsonl_record(handle.readline(1 << 22))
        except OSError:
            return None
    return record


def _is_question(record: Any) -> bool:
    return isinstance(record, dict) and {"question_id", "turns"} <= record.keys()


def _is_answer(record: Any) -> bool:
    return isinstance(record, dict) and {"question_id", "model_id", "choices"} <= record.keys()


def _is_judgment(record: Any) -> bool:
    return isinstance(record, dict) and "question_id" in record and "judge" in record


def _sniff_questions(path: Path, head: bytes) -> bool:
    return path.suffix.lower() == ".jsonl" and _is_question(_first(path, head))


def _sniff_answers(path: Path, head: bytes) -> bool:
    if path.suffix.lower() != ".jsonl" or path.parent.name == REFERENCES_DIR:
        return False
    return _is_answer(_first(path, head))


def ai_judge_note(path: Path, head: bytes) -> str | None:
    """Why an MT-Bench file is recognised but not imported (reference answers, read with the
    questions; judgments no judge format reads), or None."""
    if path.suffix.lower() != ".jsonl":
        return None
    record = _first(path, head)
    if _is_judgment(record):
        return f"MT-Bench {JUDGMENTS_DIR}: {AI_JUDGE_NOTE}"
    if path.parent.name == REFERENCES_DIR and _is_answer(record):
        return (
            f"MT-Bench reference answers: read with {QUESTIONS_FILE} "
            "(import the MT-Bench folder, or its question.jsonl)"
        )
    return None


def reference_files(path: Path) -> list[Path]:
    """The reference answer files read with a ``question.jsonl`` (hashed with it too)."""
    folder = path.parent / REFERENCES_DIR
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.glob("*.jsonl") if p.is_file())


def study_default(path: Path) -> str:
    """The folder holding question.jsonl (an answer file's folder is inside it)."""
    folder = path.absolute().parent
    if folder.name in (ANSWERS_DIR, REFERENCES_DIR, JUDGMENTS_DIR):
        folder = folder.parent
    return folder.name or PROTOCOL


# -- parsing ------------------------------------------------------------------------------------
def _lines(
    path: Path, ctx: ParseContext, what: str
) -> Iterator[tuple[int, dict[str, Any]] | Invalid]:
    for lineno, raw in iter_jsonl(path, ctx):
        try:
            data = loads_json(raw, ctx.display, lineno)
        except InputError as exc:
            yield Invalid(exc)
            continue
        if not isinstance(data, dict):
            yield Invalid(InputError(ctx.display, f"expected a JSON object ({what})", lineno, "$"))
            continue
        yield lineno, data


def _references(path: Path, ctx: ParseContext) -> dict[str, list[tuple[str, list[str]]]]:
    """Question id -> (reference file name, turns) for every reference answer beside it."""
    found: dict[str, list[tuple[str, list[str]]]] = {}
    for ref_path in reference_files(path):
        ref_ctx = ParseContext(display=str(ref_path))
        for item in _lines(ref_path, ref_ctx, "one reference answer"):
            if isinstance(item, Invalid):
                raise item.error  # the reference answers are part of the tasks: all or nothing
            lineno, data = item
            answer = validate(Answer, data, ref_ctx.display, lineno)
            name = f"{REFERENCES_DIR}/{ref_path.name}"
            found.setdefault(str(answer.question_id), []).append((name, answer.choices[0].turns))
    return found


def _turns(label: str, turns: list[str]) -> str:
    return "\n\n".join(f"{label} {n}:\n{text}" for n, text in enumerate(turns, start=1))


def _expected(question: Question, references: list[tuple[str, list[str]]]) -> str:
    parts = []
    if question.reference:
        parts.append("Reference answer (question.jsonl):\n\n" + _turns("Turn", question.reference))
    for name, turns in references:
        parts.append(f"Reference answer ({name}):\n\n" + _turns("Turn", turns))
    return "\n\n".join(parts)


def _parse_questions(path: Path, ctx: ParseContext) -> Iterator[Record | Invalid]:
    references = _references(path, ctx)
    yield Study(
        id=ctx.study(study_default(path)),
        name="MT-Bench",
        protocol=PROTOCOL,
        description="MT-Bench: two-turn questions; each model's answers to both turns are one "
        "run of that model's condition. The AI judge's verdicts (model_judgment/) are AI judge "
        "verdicts, kept apart from people's judgments.",
    )
    seen: dict[str, int] = {}
    for item in _lines(path, ctx, "one question"):
        if isinstance(item, Invalid):
            yield item
            continue
        lineno, data = item
        try:
            question = validate(Question, data, ctx.display, lineno)
            task_id = str(question.question_id)
            if task_id in seen:
                raise InputError(
                    ctx.display,
                    f"duplicate question_id {task_id} (first on line {seen[task_id]}); "
                    "expected each question once",
                    lineno,
                    "$.question_id",
                )
        except InputError as exc:
            yield Invalid(exc)
            continue
        seen[task_id] = lineno
        refs = references.get(task_id, [])
        metadata: dict[str, Any] = {
            "category": question.category,
            "turns": question.turns,
            **(question.model_extra or {}),
        }
        if question.reference is not None:
            metadata["reference"] = question.reference
        if refs:
            metadata["reference_answers"] = {name: turns for name, turns in refs}
        yield Task(
            id=task_id,
            title=f"{question.category} {task_id}".strip(),
            prompt=_turns("Turn", question.turns),
            expected_behaviour=_expected(question, refs),
            metadata=metadata,
        )


def _parse_answers(path: Path, ctx: ParseContext) -> Iterator[Record | Invalid]:
    yield Study(id=ctx.study(study_default(path)), protocol=PROTOCOL)
    seen: dict[str, int] = {}
    models: set[str] = set()
    for item in _lines(path, ctx, "one answer"):
        if isinstance(item, Invalid):
            yield item
            continue
        lineno, data = item
        try:
            answer = validate(Answer, data, ctx.display, lineno)
        except InputError as exc:
            yield Invalid(exc)
            continue
        question_id = str(answer.question_id)
        if answer.model_id not in models:
            models.add(answer.model_id)
            yield Condition(
                id=answer.model_id, label=answer.model_id, metadata={"model": answer.model_id}
            )
        for n, choice in enumerate(answer.choices):
            run_id = f"{answer.model_id}/{question_id}" + (f"/choice{n + 1}" if n else "")
            if run_id in seen:
                yield Invalid(
                    InputError(
                        ctx.display,
                        f"a second answer of {answer.model_id} to question {question_id} "
                        f"(first on line {seen[run_id]}); expected one answer per question",
                        lineno,
                        "$.question_id",
                    )
                )
                continue
            seen[run_id] = lineno
            yield Run(
                id=run_id,
                task_id=question_id,
                condition_id=answer.model_id,
                trial=n + 1,
                output=_turns("Turn", choice.turns),
                model=answer.model_id,
                source_file=path.name,
                source_line=lineno,
                not_exposed=ANSWER_NOT_EXPOSED,
                metadata={
                    "answer_id": answer.answer_id,
                    "tstamp": answer.tstamp,
                    "choice_index": choice.index,
                    "turns": choice.turns,
                    **(answer.model_extra or {}),
                },
            )


QUESTIONS = SimpleFormat(
    "mt-bench-question",
    "MT-Bench questions (question.jsonl; reference_answer/ beside it is read with it)",
    _sniff_questions,
    _parse_questions,
    reference_files,
)
ANSWERS = SimpleFormat(
    "mt-bench-answer",
    "MT-Bench model answers (model_answer/<model>.jsonl)",
    _sniff_answers,
    _parse_answers,
)

__all__ = ["AI_JUDGE_NOTE", "ANSWERS", "QUESTIONS", "ai_judge_note", "study_default"]
