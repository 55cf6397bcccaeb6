"""Inspect AI scores that a model gave: a model-graded scorer is an AI judge.

Inspect's ``model_graded_qa`` and ``model_graded_fact`` scorers (and custom scorers built the
same way) ask a grader model whether a sample's answer is right; the score keeps the grader's
conversation in ``metadata.grading``. Such a score is an AI judge's verdict on the sample's run,
stored as one (never as the run's automated verification, which a deterministic scorer such as
``match`` gives). The judge is the scorer with its grader model: the scorer's ``model`` option,
else the model named on the grader's reply, else the evaluated model (Inspect grades with the
evaluated model when no grader is named). Values: ``C`` pass, ``I`` fail, ``P`` partial; a number
is a score. :mod:`abp_tui.formats.inspect_log` calls this for every sample; it only parses.
"""

from __future__ import annotations

from typing import Any

from abp_tui.models.judges import Judge, JudgeVerdict

MODEL_GRADED = frozenset({"model_graded_qa", "model_graded_fact"})
"""Inspect's built-in model-graded scorers (named with or without the ``inspect_ai/`` prefix)."""
VALUES = {"C": "pass", "I": "fail", "P": "partial"}


def _bare(name: str) -> str:
    return name.split("/", 1)[1] if name.startswith("inspect_ai/") else name


def _grader_model(options: dict[str, Any], score: dict[str, Any], evaluated: str) -> str:
    model = options.get("model")
    if isinstance(model, list) and model and isinstance(model[0], str):
        return model[0]
    if isinstance(model, str) and model:
        return model
    grading = (score.get("metadata") or {}).get("grading")
    if isinstance(grading, list):
        for message in grading:
            if isinstance(message, dict) and message.get("role") == "assistant":
                named = message.get("model")
                if isinstance(named, str) and named:
                    return named
    return evaluated


def is_model_graded(scorer: str, score: dict[str, Any]) -> bool:
    """Whether a sample's score came from a grader model."""
    grading = (score.get("metadata") or {}).get("grading")
    return _bare(scorer) in MODEL_GRADED or isinstance(grading, list)


def records(
    scorers: dict[str, dict[str, Any]],
    scores: dict[str, dict[str, Any]],
    evaluated_model: str,
    inspect_version: str | None,
    run_id: str,
    task_id: str,
    judges: set[str],
) -> list[Judge | JudgeVerdict]:
    """The judges (first time seen; ``judges`` is updated) and verdicts of one sample's
    model-graded scores. ``scorers``: each scorer's declaration in the log's ``eval.scorers``
    (its options), by name; ``scores``: the sample's scores, by scorer name."""
    out: list[Judge | JudgeVerdict] = []
    for name, score in scores.items():
        if not is_model_graded(name, score):
            continue
        declared = scorers.get(name, {})
        options = declared.get("options") if isinstance(declared.get("options"), dict) else {}
        grader = _grader_model(options or {}, score, evaluated_model)
        judge_id = f"{_bare(name)}/{grader}"
        if judge_id not in judges:
            judges.add(judge_id)
            kept = {k: v for k, v in (options or {}).items() if k != "model"}
            out.append(
                Judge(
                    id=judge_id,
                    model=grader,
                    prompt=_bare(name),
                    version=f"inspect_ai {inspect_version}" if inspect_version else "",
                    source="inspect",
                    metadata={"scorer": name, "options": kept},
                )
            )
        value = score.get("value")
        explanation = score.get("explanation")
        common: dict[str, Any] = {
            "judge": judge_id,
            "task_id": task_id,
            "runs": (run_id,),
            "explanation": explanation if isinstance(explanation, str) else "",
            "metadata": {"scorer": name, "value": value, "answer": score.get("answer")},
        }
        if isinstance(value, str) and value in VALUES:
            out.append(JudgeVerdict(kind="pass_fail", verdict=VALUES[value], **common))
        elif isinstance(value, int | float) and not isinstance(value, bool):
            out.append(JudgeVerdict(kind="score", score=float(value), **common))
        else:
            out.append(
                JudgeVerdict(
                    kind="pass_fail", error=f"no grade the workstation reads ({value!r})", **common
                )
            )
    return out


__all__ = ["MODEL_GRADED", "is_model_graded", "records"]
