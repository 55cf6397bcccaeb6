"""The protocol's vocabulary as pydantic models, named after the seed documents' own words."""

from abp_tui.models.base import MISSING, NOT_EXPOSED, Exposable, Model
from abp_tui.models.design import DisagreementRules, StudyDesign
from abp_tui.models.judgments import (
    OVERRIDE_STATES,
    VALIDITY_CHECKS,
    Adjudication,
    AuditEvent,
    Finding,
    Judgment,
    Preference,
    PreferenceChoice,
    Rating,
    ResponseJudgment,
    Reviewer,
)
from abp_tui.models.records import (
    AdjudicationRevision,
    DesignRecords,
    FindingRevision,
    Item,
    JudgmentRevision,
    OutcomeSource,
    RunFacts,
    RunOutcome,
    Verdict,
    VerdictSource,
)
from abp_tui.models.rubric import AcceptanceRule, Dimension, ResultState, Rubric
from abp_tui.models.runs import ReferenceVerdict, Run, Tokens, TraceEvent, TraceEventBatch
from abp_tui.models.study import Condition, Study, Task

__all__ = [
    "MISSING",
    "NOT_EXPOSED",
    "OVERRIDE_STATES",
    "VALIDITY_CHECKS",
    "AcceptanceRule",
    "Adjudication",
    "AdjudicationRevision",
    "AuditEvent",
    "Condition",
    "DesignRecords",
    "Dimension",
    "DisagreementRules",
    "Exposable",
    "Finding",
    "FindingRevision",
    "Item",
    "Judgment",
    "JudgmentRevision",
    "Model",
    "OutcomeSource",
    "Preference",
    "PreferenceChoice",
    "Rating",
    "ReferenceVerdict",
    "ResponseJudgment",
    "ResultState",
    "Reviewer",
    "Rubric",
    "Run",
    "RunFacts",
    "RunOutcome",
    "Study",
    "StudyDesign",
    "Task",
    "Tokens",
    "TraceEvent",
    "TraceEventBatch",
    "Verdict",
    "VerdictSource",
]
