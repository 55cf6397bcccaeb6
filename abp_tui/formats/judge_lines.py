"""The native JSONL lines of AI judges: ``judge`` and ``judge_verdict``.

A ``judge`` line names an AI judge (``id``, ``kind`` = ``ai``, ``model``, ``prompt``,
``version``); a ``judge_verdict`` line is one verdict of it: on a pair of runs (``runs`` = [a, b]
in the pair's own orientation, ``shown_first`` the run the judge saw first, ``verdict`` the
winning run or ``tie``), or on one run (``run``, with a ``score`` on its ``scale`` or a
``verdict`` of pass, fail or partial), with ``explanation``, an ``error`` when the judge gave no
verdict, and the ``turn`` judged if any. A verdict line may define its judge itself with
``model`` (and ``prompt``, ``version``) when no ``judge`` line came before. ``kind`` is the
judge's kind and must be ``ai``: people's judgments are made in the workstation or merged from
ratings files, never imported as judge verdicts. A ``score`` outside the line's own ``scale`` is
refused with the line and field. :mod:`abp_tui.formats.native` reads these lines beside the
others; this module turns them into models.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, FiniteFloat, ValidationError

from abp_tui.errors import InputError
from abp_tui.formats.base import describe_validation
from abp_tui.models.base import Model
from abp_tui.models.judges import Judge, JudgeKind, JudgeVerdict, VerdictKind

TYPES = ("judge", "judge_verdict")


class NativeJudge(Judge):
    type: Literal["judge"]
    source: str = "native"


class NativeJudgeVerdict(Model):
    """One ``judge_verdict`` line (see the module notes)."""

    type: Literal["judge_verdict"]
    judge: str = Field(min_length=1)
    """The judge's id."""
    kind: JudgeKind = "ai"
    """The judge's kind: only ``ai``."""
    model: str | None = None
    """Defines the judge here when no ``judge`` line did."""
    prompt: str = ""
    version: str = ""
    task_id: str = Field(min_length=1)
    run: str | None = None
    """The run judged, for a verdict on one run."""
    runs: tuple[str, str] | None = None
    """The pair judged, in its own orientation (a, b), for a preference."""
    shown_first: str | None = None
    """The run of the pair the judge saw first."""
    turn: int | None = Field(default=None, ge=1)
    verdict: str | None = None
    score: FiniteFloat | None = None
    scale: tuple[FiniteFloat, FiniteFloat] | None = None
    error: str | None = None
    explanation: str = ""
    metadata: dict[str, Any] = Field(default_factory=dict)


def _verdict_kind(line: NativeJudgeVerdict) -> VerdictKind:
    if line.runs is not None:
        return "preference"
    return "score" if line.score is not None or line.scale is not None else "pass_fail"


def _check_scale(line: NativeJudgeVerdict, display: str, lineno: int) -> None:
    """The declared scale is (lowest, highest), and the score lies on it."""
    if line.scale is None:
        return
    low, high = line.scale
    if low >= high:
        raise InputError(
            display,
            f"expected scale = [lowest, highest] with lowest < highest (got [{low:g}, {high:g}])",
            lineno,
            "$.scale",
        )
    if line.score is not None and not low <= line.score <= high:
        raise InputError(
            display,
            f"expected a score on the verdict's scale, from {low:g} to {high:g} "
            f"(got {line.score:g})",
            lineno,
            "$.score",
        )


def records(
    line: NativeJudge | NativeJudgeVerdict, judges: set[str], display: str, lineno: int
) -> list[Judge | JudgeVerdict]:
    """The models of one line; ``judges`` (the ids defined so far) is updated. Raises
    InputError naming the line and field for a verdict that does not hold together."""
    if isinstance(line, NativeJudge):
        judges.add(line.id)
        return [Judge.model_validate(line.model_dump(exclude={"type"}))]
    out: list[Judge | JudgeVerdict] = []
    if line.judge not in judges and line.model is not None:
        judges.add(line.judge)
        out.append(
            Judge(
                id=line.judge,
                model=line.model,
                prompt=line.prompt,
                version=line.version,
                source="native",
            )
        )
    if (line.run is None) == (line.runs is None):
        raise InputError(
            display, "expected either run (one run judged) or runs (a pair), not both", lineno, "$"
        )
    _check_scale(line, display, lineno)
    runs: tuple[str] | tuple[str, str] = line.runs if line.runs is not None else (str(line.run),)
    try:
        verdict = JudgeVerdict(
            judge=line.judge,
            task_id=line.task_id,
            runs=runs,
            shown_first=line.shown_first,
            turn=line.turn,
            kind=_verdict_kind(line),
            verdict=line.verdict,
            score=line.score,
            scale=line.scale,
            error=line.error,
            explanation=line.explanation,
            metadata={**line.metadata, "source_line": lineno},
        )
    except ValidationError as exc:
        raise describe_validation(exc, display, lineno) from None
    out.append(verdict)
    return out


__all__ = ["TYPES", "NativeJudge", "NativeJudgeVerdict", "records"]
