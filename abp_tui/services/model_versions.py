"""Seed 000 section 3 on a study in the database: did its conditions run on one model version?

The same rule the publication gate applies to a bundle's records
(:mod:`abp_tui.analysis.model_versions`), read from the database for results.
"""

from __future__ import annotations

from collections.abc import Iterable

import sqlite_utils

from abp_tui.analysis.model_versions import VERSION_PROTOCOLS, ModelVersions, model_versions
from abp_tui.models import RunOutcome
from abp_tui.store.run_models import run_models


def study_model_versions(
    db: sqlite_utils.Database, study_id: str, protocol: str, outcomes: Iterable[RunOutcome]
) -> ModelVersions | None:
    """The study's model versions by condition over the runs of ``outcomes`` (None: the rule is
    not about this protocol)."""
    if protocol not in VERSION_PROTOCOLS:
        return None
    states = {o.run_id: o.state for o in outcomes}
    runs = [r for r in run_models(db, study_id) if r.run in states]
    return model_versions(protocol, runs, states)
