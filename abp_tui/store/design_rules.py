"""A stored design as its design file states it, read without what the store added to it.

A design's stored document holds the plan's commitment to every task of the design (a hash a
task: about 100 bytes a task as text, 370 parsed); the rules a figure applies (its disagreement
rules, its development tasks, its scope) are the design file's, which names none of them.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from abp_tui.analysis.commitment import COMMITMENT_KEY
from abp_tui.analysis.records import design_document
from abp_tui.errors import AbpError
from abp_tui.models import StudyDesign

if TYPE_CHECKING:  # the workstation shows its first item before sqlite-utils is imported
    import sqlite_utils


def stated_design(db: sqlite_utils.Database, pk: int) -> StudyDesign:
    """A stored design as its design file states it (:func:`abp_tui.analysis.records.
    design_document`), its plan's commitment left out by SQL: the commitment names every task
    of the design, and no rule that reads the design file needs it."""
    row = db.execute(
        f"SELECT json_remove(document, '$.{COMMITMENT_KEY}') FROM designs WHERE pk = ?", [pk]
    ).fetchone()
    if row is None:
        raise AbpError(f"no study design with key {pk}")
    return StudyDesign.model_validate(design_document(json.loads(row[0])))


__all__ = ["stated_design"]
