"""AI judges and their verdicts: kept apart from people's judgments, always.

Seed 002 lets an AI critique assist but says it "does not count as an independent human rating".
So a judge is its own noun: a :class:`Judge` of kind ``ai`` with the identity that decides what
its verdicts mean (model, prompt or template, version), and a :class:`JudgeVerdict` names the
order the judge was shown the two outputs. Nothing here is a Reviewer, a Rating or a Preference:
a judge verdict never enters reviewer-vs-reviewer agreement, a design's reviewers or a human
verdict, and the store keeps it in a table of its own (:mod:`abp_tui.store.judges`).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, FiniteFloat, model_validator

from abp_tui.models.base import Model

JudgeKind = Literal["ai"]
"""The only kind of judge whose verdicts are imported: people judge in the workstation."""
VerdictKind = Literal["preference", "score", "pass_fail"]
TIE = "tie"
"""A preference verdict that picks neither run."""
PASS_FAIL = ("pass", "fail", "partial")
"""A pass/fail verdict's values; ``partial`` (Inspect's partial credit) is neither."""


class Judge(Model):
    """An AI judge: one model run with one prompt, as its verdicts' source names it."""

    id: str = Field(min_length=1)
    """How every verdict names the judge, e.g. ``gpt-4/pair-v2`` or ``GPT-4-Vanilla``."""
    kind: JudgeKind = "ai"
    model: str = Field(min_length=1)
    """The judging model as the source names it."""
    prompt: str = ""
    """The prompt or template name (FastChat ``pair-v2``, LLMBar ``Vanilla``, a scorer name)."""
    version: str = ""
    """The judge's version, when the source states one."""
    source: str = ""
    """What produced the verdicts: ``fastchat``, ``llmbar``, ``inspect``, ``native``."""
    metadata: dict[str, Any] = Field(default_factory=dict)
    """Anything else the source says about the judge (a scorer's options...)."""


class JudgeVerdict(Model):
    """One verdict of one AI judge: on a pair of runs shown in one order, or on one run."""

    judge: str = Field(min_length=1)
    """The judge's id."""
    task_id: str = Field(min_length=1)
    runs: tuple[str] | tuple[str, str]
    """The run judged, or the pair in its own orientation (a, b): never the order shown."""
    shown_first: str | None = None
    """For a pair: the run the judge was shown in the first position (a: the original order)."""
    turn: int | None = Field(default=None, ge=1)
    """The conversation turn judged (MT-Bench), when the verdict is on one turn."""
    kind: VerdictKind
    verdict: str | None = None
    """preference: the winning run's id or ``tie``; pass_fail: pass, fail or partial."""
    score: FiniteFloat | None = None
    """score: the number the judge gave."""
    scale: tuple[FiniteFloat, FiniteFloat] | None = None
    """score: the lowest and highest score the judge could give, e.g. (1, 10)."""
    error: str | None = None
    """Why the judge gave no verdict (an unparsable answer, a refused call), as the source says."""
    explanation: str = ""
    """The judge's own text: untrusted, shown only as text, never parsed."""
    metadata: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _consistent(self) -> JudgeVerdict:
        pair = len(self.runs) == 2
        if pair and self.runs[0] == self.runs[-1]:
            raise ValueError("a pair verdict compares two different runs")
        if (self.kind == "preference") != pair:
            raise ValueError("a preference verdict is on a pair of runs; other verdicts on one run")
        if pair and self.shown_first not in self.runs:
            raise ValueError("shown_first must name one of the pair's runs")
        if not pair and self.shown_first is not None:
            raise ValueError("shown_first is for pair verdicts only")
        if self.error is not None:
            if self.verdict is not None or self.score is not None:
                raise ValueError("a verdict with an error carries no verdict or score")
            return self
        if self.kind == "preference" and self.verdict not in (*self.runs, TIE):
            raise ValueError("a preference verdict names one of the pair's runs or 'tie'")
        if self.kind == "pass_fail" and self.verdict not in PASS_FAIL:
            raise ValueError("a pass/fail verdict is pass, fail or partial")
        if self.kind == "score" and (self.score is None or self.verdict is not None):
            raise ValueError("a score verdict carries a score and no verdict")
        if self.scale is not None and self.scale[0] >= self.scale[1]:
            raise ValueError("a scale is (lowest, highest) with lowest < highest")
        return self

    @property
    def swapped(self) -> bool:
        """Whether the pair was shown in the reverse of its own orientation (b first)."""
        return len(self.runs) == 2 and self.shown_first == self.runs[-1]

    @property
    def order(self) -> str:
        """``original`` or ``swapped`` for a pair, ``single`` for one run."""
        if len(self.runs) == 1:
            return "single"
        return "swapped" if self.swapped else "original"


__all__ = ["PASS_FAIL", "TIE", "Judge", "JudgeKind", "JudgeVerdict", "VerdictKind"]
