"""What the coordinator's screens about one study design share: its database and the design."""

from __future__ import annotations

from pathlib import Path

from textual.screen import Screen

from abp_tui.services.design_choices import DesignChoice


class DesignScreen(Screen[None]):
    """A screen about one study design (disagreements, adjudication, agreement, results).

    Their workers' failures arrive as ``abp_tui.tui.messages.WorkerFailed``. On a short
    terminal (``-short``) their styles give the header's line to the content: the summary
    names the study and the design.
    """

    VERTICAL_BREAKPOINTS = [(0, "-short"), (30, "-tall")]  # noqa: RUF012

    def __init__(self, db_path: Path, design: DesignChoice) -> None:
        super().__init__()
        self.db_path = db_path
        self.design = design

    @property
    def design_pk(self) -> int | None:
        return self.design.pk

    @property
    def study_id(self) -> str:
        return self.design.study_id
