"""Whether a study's engines ran on the same model (seed 003 section 7, ``matchedModels``).

ABP holds the model fixed and varies the engine: "Runs that vary the model are stamped as such
and cannot back engine-vs-engine claims" (principle 1), and "a conforming report must lead with
the warning and must not present engine-vs-engine conclusions from them" (section 7). The stamp
is the run configuration's ``matchedModels`` (``abp-run/v1``, Arena's manifest), which the
importers keep on every condition's metadata; this module reads it back from the conditions, so
the database's results, a bundle's ``verify`` and the CI gate decide alike from the same records.

A configuration that says ``matchedModels: true`` while its engines name different models is
read as unmatched too: the stamp cannot make a comparison across models an engine comparison.
Also here: whether the study's token totals could be checked (section 9, "an envelope that
lies about tokens"): an Arena envelope's never can (no per-call events), an ABP run's only when
its trace has model.call events, so a trace with run.end totals and none is named as unverified.
Pure: conditions (and the ids of runs marked unverified) in, a :class:`ModelMatch` out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from abp_tui.models import Condition, Model

ENGINE_PROTOCOLS: Final = frozenset({"abp", "arena"})
"""Protocols whose conditions are engines under test with a pinned model."""

MATCHED_MODELS_WARNING: Final = (
    "Warning: matchedModels is false: the engines did not all run on the same model, "
    "so engine-vs-engine conclusions must not be drawn from this study."
)
"""Seed 003 section 7: every output about unmatched models leads with this warning."""

DIFFERENT_MODELS_WARNING: Final = (
    "Warning: the engines did not all run on the same model ({models}), so engine-vs-engine "
    "conclusions must not be drawn from this study."
)

COMPARISONS_WITHHELD: Final = (
    "No engine-vs-engine comparison is presented (no paired McNemar test, preference tally, "
    "efficiency difference or head-to-head): the engines did not run on the same model, so "
    "only each engine's own figures are shown."
)


UNVERIFIED_TOKENS: Final = (
    "Token totals of {protocol} runs are the envelope's own and unverified: the format has no "
    "per-call events to check them against (an ABP trace's run.end totals must equal its "
    "model.call events, and a trace that disagrees is refused)."
)
UNVERIFIED_PROTOCOLS: Final = frozenset({"arena"})
"""Protocols whose token totals come with no per-call events (Arena's results.json)."""
UNVERIFIED_MARK: Final = "tokens_unverified"
"""The run metadata key an importer sets when a run's token totals had nothing to be checked
against (an ABP trace whose run.end has totals and no model.call event)."""
UNVERIFIED_RUNS: Final = (
    "Token totals of {count} {protocol} run(s) are their trace's own run.end totals and "
    "unverified: the trace has no model.call events to check them against ({runs})."
)
SHOWN_RUNS: Final = 10
"""Runs a note names before it says how many more there are."""


def tokens_unverified(metadata: Mapping[str, Any]) -> bool:
    """Whether a run's metadata says its token totals could not be checked."""
    return bool(metadata.get(UNVERIFIED_MARK))


def _tokens_note(protocol: str, unverified_runs: Iterable[str]) -> str | None:
    if protocol in UNVERIFIED_PROTOCOLS:
        return UNVERIFIED_TOKENS.format(protocol=protocol.capitalize())
    runs = sorted(set(unverified_runs))
    if not runs:
        return None
    named = ", ".join(runs[:SHOWN_RUNS])
    if len(runs) > SHOWN_RUNS:
        named += f" and {len(runs) - SHOWN_RUNS} more"
    return UNVERIFIED_RUNS.format(count=len(runs), protocol=protocol.upper(), runs=named)


class ModelMatch(Model):
    """What a study's records say about the model its engines ran on, and whether its token
    totals could be checked."""

    matched: bool
    """False: the engines may not be compared with one another."""
    stated: bool | None
    """The run configuration's ``matchedModels`` (None when it does not say)."""
    models: dict[str, str | None]
    """Condition (engine) -> the model it ran on, as its configuration names it."""
    warning: str | None
    """The sentence every output leads with when ``matched`` is False."""
    tokens_note: str | None = None
    """Why the study's token totals are unverified (None: checked against per-call events,
    or not measured)."""


def _stated(metadata: Mapping[str, Any]) -> bool | None:
    value = metadata.get("matchedModels")
    return value if isinstance(value, bool) else None


def model_match(
    protocol: str, conditions: Iterable[Condition], unverified_runs: Iterable[str] = ()
) -> ModelMatch | None:
    """The study's model match, or None for a protocol whose conditions are not engines.
    ``unverified_runs``: ids of the runs whose metadata says their token totals could not be
    checked (:func:`tokens_unverified`); the note names them."""
    if protocol not in ENGINE_PROTOCOLS:
        return None
    listed = sorted(conditions, key=lambda c: c.id)
    stated_values = {s for c in listed if (s := _stated(c.metadata)) is not None}
    stated = False if False in stated_values else (True if stated_values else None)
    models: dict[str, str | None] = {}
    for c in listed:
        model = c.metadata.get("model")
        models[c.id] = model if isinstance(model, str) and model else None
    distinct = sorted({m for m in models.values() if m is not None})
    if stated is False:
        warning: str | None = MATCHED_MODELS_WARNING
    elif len(distinct) > 1:
        shown = "; ".join(f"{c}: {m}" for c, m in models.items() if m is not None)
        warning = DIFFERENT_MODELS_WARNING.format(models=shown)
    else:
        warning = None
    return ModelMatch(
        matched=warning is None,
        stated=stated,
        models=models,
        warning=warning,
        tokens_note=_tokens_note(protocol, unverified_runs),
    )


def engines_comparable(match: ModelMatch | None) -> bool:
    """Whether engine-vs-engine figures may be presented (always, outside engine protocols)."""
    return match is None or match.matched


def leading_warnings(match: ModelMatch | None) -> list[str]:
    """The warnings an output about the study starts with (none when the models match)."""
    return [match.warning] if match is not None and match.warning else []


__all__ = [
    "COMPARISONS_WITHHELD",
    "ENGINE_PROTOCOLS",
    "MATCHED_MODELS_WARNING",
    "UNVERIFIED_MARK",
    "UNVERIFIED_RUNS",
    "UNVERIFIED_TOKENS",
    "ModelMatch",
    "engines_comparable",
    "leading_warnings",
    "model_match",
    "tokens_unverified",
]
