"""Which study designs (and design-less scopes) a person can open: the choice lists of every
screen and command that asks "which design?".

Kept apart from :mod:`abp_tui.services.coordinator` so that the workstation's first screens
can list designs without loading the statistics that the coordinator's figures need.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from abp_tui.analysis.automated import AUTOMATED_DESIGN
from abp_tui.store import connect
from abp_tui.store import judging as sql
from abp_tui.store.judging import BlindingError
from abp_tui.store.queries import list_studies, studies_with_automated_outcomes, study_protocol

if TYPE_CHECKING:
    import sqlite_utils

# BlindingError: what opening a design the person may not open raises.
__all__ = ["PACK_PROTOCOL", "BlindingError", "DesignChoice", "design_choices", "design_seed"]

PACK_PROTOCOL = "pack"
"""The protocol of a study opened from a reviewer pack: a reviewer station, never unblinded."""


@dataclass(frozen=True)
class DesignChoice:
    """The latest version of a study design (or, with ``pk`` None, a study's imported labels,
    or its automated outcomes when ``name`` is the automated scope's)."""

    pk: int | None
    study_id: str
    name: str
    version_no: int
    protocol: str

    @property
    def label(self) -> str:
        if self.is_automated:
            return f"{self.study_id} / automated outcomes (no study design)"
        if self.pk is None:
            return f"{self.study_id} / imported human labels"
        return f"{self.study_id} / {self.name} v{self.version_no}"

    @property
    def is_automated(self) -> bool:
        """True for a study's automated outcomes alone (no design: results only)."""
        return self.pk is None and self.name == AUTOMATED_DESIGN

    @property
    def is_station(self) -> bool:
        """True on a reviewer station (a study opened from a reviewer pack)."""
        return self.protocol == PACK_PROTOCOL


def _choice(db: sqlite_utils.Database, row: sql.DesignRow) -> DesignChoice:
    protocol = study_protocol(db, row.study_id) or ""
    return DesignChoice(row.pk, row.study_id, row.name, row.version_no, protocol)


def design_choices(
    db_path: Path, *, imported_labels: bool = False, automated: bool = False
) -> list[DesignChoice]:
    """The latest version of every study design, by study and name.

    With ``imported_labels``, studies without a design that carry imported human labels (the
    PandaLM reference set) are listed too, as a choice without a design; with ``automated``,
    studies without a design whose runs carry automated outcomes (their results).
    """
    db = connect(db_path)
    try:
        latest: dict[tuple[str, str], sql.DesignRow] = {}
        for row in sql.designs(db):
            latest[(row.study_id, row.name)] = row
        found = [_choice(db, row) for row in latest.values()]
        if imported_labels:
            with_design = {c.study_id for c in found}
            found += [
                DesignChoice(None, s.id, "", 0, s.protocol)
                for s in list_studies(db)
                if s.id not in with_design and s.preferences > 0
            ]
        if automated:
            with_design = {c.study_id for c in found if c.pk is not None}
            scored = studies_with_automated_outcomes(db)
            found += [
                DesignChoice(None, s.id, AUTOMATED_DESIGN, 1, s.protocol)
                for s in list_studies(db)
                if s.id not in with_design and s.id in scored and s.protocol != PACK_PROTOCOL
            ]
    finally:
        db.close()
    return sorted(found, key=lambda c: (c.study_id, c.pk is None, c.name))


def _design(db: sqlite_utils.Database, design_pk: int) -> DesignChoice:
    return _choice(db, sql.design(db, design_pk))


def design_seed(db: sqlite_utils.Database, study: str, name: str | None = None) -> int:
    """The seed of the design a command means (the one named, else the study's latest), with
    which the publication bundle draws every bootstrap; 0 when the study has none. A figure's
    command draws with it unless ``--seed`` says otherwise: one study, one set of intervals."""
    from abp_tui.services.designing import find_design_if_any  # not at the workstation's start

    row = find_design_if_any(db, study, name)
    return 0 if row is None else row.seed
