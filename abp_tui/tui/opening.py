"""Opening the workstation on the reviewer's first item in as few paints as possible.

At start-up the thread that finds the reviewer's design reads their first item too, before the
compare screen is pushed: the screen then shows its texts before it is first laid out, and the
first paint is the item (laying out and drawing an empty compare screen, to do it all again a
moment later, was a large part of the start-up's work). Should the reading take longer than
:data:`WAIT_SECONDS` (a slow disk), the screen is pushed without it, so that keys typed from then
on reach it (they wait for its form), and the item is shown when it has been read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

from textual.app import App

from abp_tui.services.desk import Desk
from abp_tui.tui.navigation import ShownItem, prepare
from abp_tui.tui.workers import EXPECTED_ERRORS

if TYPE_CHECKING:
    from abp_tui.tui.screens.compare import CompareScreen

WAIT_SECONDS: Final = 0.3
"""The longest the compare screen waits for its first item before it is pushed without it."""


class FirstItem:
    """The first item of a compare screen, read in the thread that opens the screen.

    :meth:`read` runs in that thread; the rest on the app's thread: :meth:`start` (the time
    limit), then :meth:`arrived` once read. ``push`` pushes the screen, given this object.
    """

    def __init__(self, desk: Desk, push: Callable[[FirstItem], None]) -> None:
        self.desk = desk
        self._push = push
        self.shown: ShownItem | None = None
        """The item ready to show; None: not read (yet), nothing to judge, or reading failed
        (the screen then reads it itself and says what is wrong)."""
        self.title = ""
        self.read_done = False
        self.pushed = False
        self.waiting: CompareScreen | None = None
        """The screen pushed before the item was read, waiting for it."""

    def start(self, app: App[Any]) -> None:
        app.set_timer(WAIT_SECONDS, self.push, name="first-item")

    def read(self) -> None:
        try:
            self.title = self.desk.title
            item = self.desk.open()  # where the reviewer left off
        except EXPECTED_ERRORS:
            return  # the screen reads it again, and says what is wrong
        if item is not None:
            self.shown = prepare(item, (), None)  # wrapped and diffed once on screen

    def arrived(self) -> None:
        self.read_done = True
        if not self.pushed:
            self.push()
        elif self.waiting is not None and self.waiting.is_attached:
            self.waiting.first_item_read(self)

    def push(self) -> None:
        if not self.pushed:
            self.pushed = True
            self._push(self)


def breakpoint_classes(
    size: tuple[int, int],
    horizontal: list[tuple[int, str]] | None,
    vertical: list[tuple[int, str]] | None,
) -> set[str]:
    """The classes a screen's breakpoints give it at ``size`` (as Textual gives them when it is
    resized): given before its first layout, that layout restyles none of its widgets."""
    classes: set[str] = set()
    for extent, breakpoints in zip(size, (horizontal or [], vertical or []), strict=True):
        for at, name in sorted(breakpoints, reverse=True):
            if extent >= at:
                classes.add(name)
                break
    return classes
