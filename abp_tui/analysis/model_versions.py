"""Whether an AFP study's conditions ran on the same model version (seed 000 section 3).

"Every fixture uses the same user task, the same model version, and the same visible evidence":
the pilot asks whether AFP's instructions change a model's failures, so a condition run on
another model, another returned version or another reasoning mode answers a different question.
The runner rows record, per execution, the provider, the requested model, the model version the
provider returned and the reasoning effort (seed 000 section 10); this module compares them
across the conditions of each fixture, over the runs the comparison counts (unjudged, MODEL_PASS
and MODEL_FAIL; an INFRA_ERROR or PROVIDER_BLOCK run produced nothing to compare).

A field a run does not record is not compared (and the runs recording no model are counted);
two runs of one fixture that record different values of a field break the rule. The SDK version
is the harness's, not the model's, and is not compared. The publication gate fails on a break,
naming the fields, fixtures, conditions and versions seen, and results lead with the same
sentence. Pure: run records in, a :class:`ModelVersions` out.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Protocol

from abp_tui.models import Model, ResultState
from abp_tui.text.natural import natural_key

VERSION_PROTOCOLS: Final = frozenset({"afp"})
"""Protocols whose conditions are instructions given to one model (engines and models compared
with one another are other protocols' business: seed 003's matchedModels)."""
REQUIREMENT: Final = "every condition on the same model version (seed 000 section 3)"
FIELDS: Final = (
    ("provider", "provider"),
    ("requested", "requested model"),
    ("returned", "returned model version"),
    ("reasoning", "reasoning effort"),
)
"""The run fields compared, with the words the gate and results name them by."""
_LISTED: Final = 12


@dataclass(frozen=True, slots=True)
class RunModel:
    """The model a run says it ran on."""

    run: str
    task: str
    condition: str
    provider: str | None
    requested: str | None
    returned: str | None
    reasoning: str | None

    @property
    def recorded(self) -> bool:
        return any(getattr(self, name) is not None for name, _ in FIELDS)

    @property
    def label(self) -> str:
        """``provider/requested -> returned, reasoning R``, of what is recorded."""
        text = "/".join(v for v in (self.provider, self.requested) if v is not None)
        if self.returned is not None and self.returned != self.requested:
            text = f"{text} -> {self.returned}" if text else self.returned
        if self.reasoning is not None:
            text = f"{text}, reasoning {self.reasoning}" if text else f"reasoning {self.reasoning}"
        return text or "not recorded"


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def run_model(run: str, task: str, condition: str, record: Mapping[str, Any]) -> RunModel:
    """A run's model from its stored record: an AFP runner row keeps ``requested_model`` and
    ``returned_model`` in the metadata (the record's ``model`` is the returned one, else the
    requested one); another record names its ``model`` and ``model_version``."""
    meta = record.get("metadata")
    meta = meta if isinstance(meta, Mapping) else {}
    if "requested_model" in meta or "returned_model" in meta:
        requested, returned = _text(meta.get("requested_model")), _text(meta.get("returned_model"))
    else:
        requested, returned = _text(record.get("model")), _text(record.get("model_version"))
    return RunModel(
        run=run,
        task=task,
        condition=condition,
        provider=_text(record.get("provider")),
        requested=requested,
        returned=returned,
        reasoning=_text(record.get("reasoning")),
    )


class ModelVersions(Model):
    """What the runs of an AFP study say about the model each condition ran on."""

    same: bool
    """False: two runs of one fixture, under the conditions compared, name different models."""
    differing: list[str]
    """The fields that differ (provider, requested model, returned model version, reasoning
    effort)."""
    tasks: list[str]
    """The fixtures whose runs differ."""
    seen: dict[str, dict[str, int]]
    """Condition -> the values of the differing fields (``a / b``) -> runs, over the fixtures
    whose runs differ."""
    unrecorded: int
    """Runs compared that record no model at all."""
    detail: str
    """One line for the gate: what was compared and what differs."""
    warning: str | None
    """The sentence results lead with when ``same`` is False."""


def _names(values: list[str]) -> str:
    shown = ", ".join(values[:_LISTED])
    return shown + (f" and {len(values) - _LISTED} more" if len(values) > _LISTED else "")


def _seen_text(seen: Mapping[str, Mapping[str, int]]) -> str:
    return "; ".join(
        f"{c}: "
        + ", ".join(f"{label} ({n} run{'' if n == 1 else 's'})" for label, n in labels.items())
        for c, labels in seen.items()
    )


def counts(state: ResultState | None) -> bool:
    """Whether a run with this outcome is one the condition comparison is made on."""
    return state is None or state.in_quality_denominator


def model_versions(
    protocol: str,
    runs: Iterable[RunModel],
    states: Mapping[str, ResultState | None],
) -> ModelVersions | None:
    """The study's model versions by condition, or None for a protocol this rule is not about.

    ``states``: run id -> the outcome that counts for it (a run not named counts, unjudged).
    """
    if protocol not in VERSION_PROTOCOLS:
        return None
    compared = [r for r in runs if counts(states.get(r.run))]
    by_task: dict[str, list[RunModel]] = defaultdict(list)
    for r in compared:
        by_task[r.task].append(r)
    differing: set[str] = set()
    tasks: list[str] = []
    for task in sorted(by_task, key=natural_key):
        found = {
            name
            for name, _ in FIELDS
            if len({v for r in by_task[task] if (v := getattr(r, name)) is not None}) > 1
        }
        if found:
            differing |= found
            tasks.append(task)
    names = [name for name, _ in FIELDS if name in differing]
    fields = [words for name, words in FIELDS if name in differing]
    # What each condition ran the differing fixtures on, in the fields that differ.
    labels: dict[str, Counter[str]] = defaultdict(Counter)
    for task in tasks:
        for r in by_task[task]:
            values = (getattr(r, name) for name in names)
            labels[r.condition][
                " / ".join(v if v is not None else "not recorded" for v in values)
            ] += 1
    seen = {
        c: dict(sorted(labels[c].items(), key=lambda kv: (-kv[1], kv[0])))
        for c in sorted(labels, key=natural_key)
    }
    unrecorded = sum(1 for r in compared if not r.recorded)
    missing = f"; {unrecorded} runs record no model (not compared)" if unrecorded else ""
    if tasks:
        verb = "differs" if len(fields) == 1 else "differ"
        detail = (
            f"{' / '.join(fields)} {verb} between conditions on {_names(tasks)} "
            f"({_seen_text(seen)}){missing}"
        )
        warning: str | None = (
            f"Warning: the conditions did not all run on the same model version (seed 000 "
            f"section 3): {detail}. A difference between these conditions may be the model's, "
            "not the instructions'."
        )
    elif len(compared) == unrecorded:
        detail = "no run records its model: nothing to compare"
        warning = None
    else:
        distinct = sorted({r.label for r in compared if r.recorded})
        detail = (
            f"every fixture ran on one model version under every condition "
            f"({_names(distinct)}){missing}"
        )
        warning = None
    return ModelVersions(
        same=not tasks,
        differing=fields,
        tasks=tasks,
        seen=seen,
        unrecorded=unrecorded,
        detail=detail,
        warning=warning,
    )


class RecordedRun(Protocol):
    """A run with its stored record (a bundle's published run)."""

    @property
    def id(self) -> str: ...
    @property
    def task(self) -> str: ...
    @property
    def condition(self) -> str: ...
    @property
    def record(self) -> Mapping[str, Any]: ...


def recorded_versions(
    protocol: str, runs: Iterable[RecordedRun], states: Mapping[str, ResultState | None]
) -> ModelVersions | None:
    """:func:`model_versions` over the runs named in ``states`` (the runs in scope)."""
    if protocol not in VERSION_PROTOCOLS:
        return None
    return model_versions(
        protocol,
        (run_model(r.id, r.task, r.condition, r.record) for r in runs if r.id in states),
        states,
    )


def version_warnings(found: ModelVersions | None) -> list[str]:
    """What results lead with (nothing when the versions match or the rule does not apply)."""
    return [found.warning] if found is not None and found.warning else []


__all__ = [
    "REQUIREMENT",
    "VERSION_PROTOCOLS",
    "ModelVersions",
    "RunModel",
    "model_versions",
    "recorded_versions",
    "run_model",
    "version_warnings",
]
