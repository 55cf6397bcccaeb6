"""Command palette providers: the compare screen's study actions and "judge a study design".

Each command calls the same action its key runs, so the palette, the keys and the footer never
disagree. Names are shown as ``rich.text.Text`` (a study name is data, never markup).
"""

from __future__ import annotations

import asyncio
from functools import partial
from typing import TYPE_CHECKING, Protocol

from rich.text import Text
from textual.command import DiscoveryHit, Hit, Hits, Provider

from abp_tui.services.desk import JudgeableDesign, judgeable_designs
from abp_tui.text.safe import safe_line

if TYPE_CHECKING:
    from pathlib import Path

COMPARE_COMMANDS: tuple[tuple[str, str, str], ...] = (
    ("Open my queue", "List your items with their status; filter and jump.", "queue"),
    ("Next unfinished item", "Open the next item you have not submitted.", "next_unfinished"),
    ("Next item", "Open the next item of your queue.", "next_item"),
    ("Previous item", "Open the previous item of your queue.", "previous_item"),
    ("Submit this judgment", "Submit; missing answers are listed if any.", "submit"),
    ("Toggle word diff", "Show or hide the word-level differences.", "toggle_diff"),
    ("Next difference", "Scroll both responses to the next difference.", "next_change"),
    ("Toggle traces", "Switch the responses between output and trace.", "toggle_trace"),
    ("Read the task in full", "The whole task in the responses' place (ctrl+t).", "task_in_full"),
    ("Toggle task panel", "Show or hide the task, evidence and criteria.", "toggle_task"),
    (
        "Record a finding",
        "Record a fault of this item's task or its test.",
        "finding",
    ),
    ("Home: list of studies", "Back to the list of studies.", "home"),
)


class CompareCommands(Provider):
    """The compare screen's actions, by name."""

    async def discover(self) -> Hits:
        for name, help_text, action in COMPARE_COMMANDS:
            yield DiscoveryHit(Text(name), partial(self.screen.run_action, action), name, help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, help_text, action in COMPARE_COMMANDS:
            score = matcher.match(name)
            if score > 0:
                yield Hit(
                    score, Text(name), partial(self.screen.run_action, action), name, help_text
                )


class JudgingApp(Protocol):
    db_path: Path
    reviewer: str

    def open_judging(self, design_pk: int | None) -> None: ...


class JudgeCommands(Provider):
    """One "Judge STUDY / DESIGN" command for each study design this reviewer may judge."""

    async def startup(self) -> None:
        app: JudgingApp = self.app  # type: ignore[assignment]
        try:
            self.designs: list[JudgeableDesign] = await asyncio.to_thread(
                judgeable_designs, app.db_path, app.reviewer
            )
        except Exception:
            self.designs = []

    def _commands(self) -> list[tuple[str, str, int]]:
        return [
            (
                f"Judge {safe_line(d.label)}",
                f"{d.submitted} of {d.total} submitted"
                + ("" if d.assigned else " (open to any reviewer)"),
                d.pk,
            )
            for d in self.designs
        ]

    async def discover(self) -> Hits:
        app: JudgingApp = self.app  # type: ignore[assignment]
        for name, help_text, pk in self._commands():
            yield DiscoveryHit(Text(name), partial(app.open_judging, pk), name, help_text)

    async def search(self, query: str) -> Hits:
        app: JudgingApp = self.app  # type: ignore[assignment]
        matcher = self.matcher(query)
        for name, help_text, pk in self._commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, Text(name), partial(app.open_judging, pk), name, help_text)


REVIEW_COMMANDS: tuple[tuple[str, str, str], ...] = (
    (
        "Disagreements and adjudication",
        "Items whose reviewers disagree; adjudicate them (key a).",
        "review('disagreements')",
    ),
    (
        "Agreement between reviewers",
        "Kappa, alpha, AC1/AC2 with denominators and heat maps (key k).",
        "review('agreement')",
    ),
    (
        "Results by condition",
        "Pass rates with intervals and comparisons, after an audited unblinding (key v).",
        "review('results')",
    ),
)


class ReviewCommands(Provider):
    """The coordinator's screens, by name (the app's a, k and v keys)."""

    async def discover(self) -> Hits:
        for name, help_text, action in REVIEW_COMMANDS:
            yield DiscoveryHit(Text(name), partial(self.app.run_action, action), name, help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, help_text, action in REVIEW_COMMANDS:
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, Text(name), partial(self.app.run_action, action), name, help_text)
