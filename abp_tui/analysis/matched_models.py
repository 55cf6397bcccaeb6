"""Whether a study's engines ran on the same model (seed 003 section 7, ``matchedModels``).

ABP holds the model fixed and varies the engine: "Runs that vary the model are stamped as such
and cannot back engine-vs-engine claims" (principle 1), and "a conforming report must lead with
the warning and must not present engine-vs-engine conclusions from them" (section 7). The stamp
is the run configuration's ``matchedModels`` (``abp-run/v1``, Arena's manifest), which the
importers keep on every condition's metadata; this module reads it back from the conditions, so
the database's results, a bundle's ``verify`` and the CI gate decide alike from the same records.

A configuration that says ``matchedModels: true`` while its engines name different models is
read as unmatched too: the stamp cannot make a comparison across models an engine comparison.
Pure: conditions in, a :class:`ModelMatch` out.
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


def model_match(protocol: str, conditions: Iterable[Condition]) -> ModelMatch | None:
    """The study's model match, or None for a protocol whose conditions are not engines."""
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
    tokens_note = (
        UNVERIFIED_TOKENS.format(protocol=protocol.capitalize())
        if protocol in UNVERIFIED_PROTOCOLS
        else None
    )
    return ModelMatch(
        matched=warning is None,
        stated=stated,
        models=models,
        warning=warning,
        tokens_note=tokens_note,
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
    "UNVERIFIED_TOKENS",
    "ModelMatch",
    "engines_comparable",
    "leading_warnings",
    "model_match",
]
