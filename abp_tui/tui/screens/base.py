"""What the coordinator's screens about one study design share: its database, the design, and
the message a worker posts when reading them failed."""

from __future__ import annotations

from pathlib import Path

from textual.message import Message
from textual.screen import Screen

from abp_tui.services.coordinator import DesignChoice


class DesignScreen(Screen[None]):
    """A screen about one study design (disagreements, adjudication, agreement, results)."""

    class LoadFailed(Message):
        """Reading the design's data failed; ``reason`` says why."""

        def __init__(self, reason: str) -> None:
            super().__init__()
            self.reason = reason

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
