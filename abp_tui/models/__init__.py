"""The protocol's vocabulary as pydantic models, named after the seed documents' own words."""

from abp_tui.models.base import MISSING, NOT_EXPOSED, Exposable, Model
from abp_tui.models.judgments import (
    Adjudication,
    AuditEvent,
    Preference,
    PreferenceChoice,
    Rating,
    Reviewer,
)
from abp_tui.models.rubric import AcceptanceRule, Dimension, ResultState, Rubric
from abp_tui.models.runs import ReferenceVerdict, Run, Tokens, TraceEvent
from abp_tui.models.study import Condition, Study, Task

__all__ = [
    "MISSING",
    "NOT_EXPOSED",
    "AcceptanceRule",
    "Adjudication",
    "AuditEvent",
    "Condition",
    "Dimension",
    "Exposable",
    "Model",
    "Preference",
    "PreferenceChoice",
    "Rating",
    "ReferenceVerdict",
    "ResultState",
    "Reviewer",
    "Rubric",
    "Run",
    "Study",
    "Task",
    "Tokens",
    "TraceEvent",
]
