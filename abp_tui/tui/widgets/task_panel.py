"""The task a blind item is about, in a collapsible panel: its title, prompt, base instruction,
evidence, the grader's expected behaviour, fatal criteria and risk type.

Shared by the compare and adjudication screens. Beside the responses the panel keeps to a few
lines (on a short terminal, three) and stays out of the focus chain; the task key (ctrl+t) gives
it the responses' place and the focus, so that the whole task is read from the keyboard at any
size (arrows, PgUp and PgDn scroll it), and gives the responses back. Every text comes from a
task file: the body is ``rich.text.Text`` of safe strings, and the panel's title (which Textual
parses as markup) is escaped so it shows literally.
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.containers import VerticalScroll
from textual.markup import escape as escape_markup
from textual.widget import Widget
from textual.widgets import Collapsible, Static

from abp_tui.services.reviewing import BlindTask
from abp_tui.text.lines import one_line
from abp_tui.text.safe import safe_line, safe_text

TITLE_CHARACTERS = 110
"""The panel's title shows this much of the task's title (or prompt)."""
TASK_KEY = "ctrl+t"
"""The judging screens' task key. Never a letter: every letter the form uses is some design's
decision (``t`` is a tie on the preference row), and a control key is never typing either."""
IN_FULL_HINT = "↑ ↓ PgUp PgDn scroll · ctrl+t or Esc: the responses"
"""What the task in full says under itself (the keys that scroll it and give it back)."""


def task_text(task: BlindTask) -> Text:
    """The task's texts, section by section (sections without text are left out)."""
    body = Text()

    def section(label: str, value: str) -> None:
        if value.strip():
            if body:
                body.append("\n\n")
            if label:
                body.append(f"{label}\n", style="bold")
            body.append(safe_text(value.strip()))

    # The panel's own title shows a short one-line title whole: the body starts with the prompt.
    title = task.title.strip()
    if len(title) > TITLE_CHARACTERS or "\n" in title or not task.prompt.strip():
        section("Title", task.title)
    alone = not (
        task.base_instruction.strip()
        or task.evidence.strip()
        or task.expected_behaviour.strip()
        or task.fatal_criteria
        or task.risk_type
    )
    # A prompt alone (a preference study's task) needs no label: its lines go to the text.
    section("" if alone and not body else "Prompt", task.prompt)
    section("Base instruction", task.base_instruction)
    section("Evidence", task.evidence)
    section("Expected behaviour (for the grader)", task.expected_behaviour)
    if task.fatal_criteria:
        body.append("\n\n")
        body.append("Fatal criteria\n", style="bold")
        body.append("\n".join(f"• {safe_line(c)}" for c in task.fatal_criteria))
    if task.risk_type:
        body.append("\n\n")
        body.append("Risk type: ", style="bold")
        body.append(safe_line(task.risk_type))
    if not body:
        body = Text("This task has no prompt, evidence or criteria recorded.", style="dim")
    return body


class TaskPanel(Collapsible):
    """The task, collapsible, scrolled inside when it is long; read in full with ``ctrl+t``."""

    def __init__(self, *, collapsed: bool, id: str = "task") -> None:
        super().__init__(
            VerticalScroll(Static("", id="task-body"), id="task-scroll"),
            title="Task",
            collapsed=collapsed,
            id=id,
        )
        self._shown: tuple[object, ...] = ()
        self.full = False
        """The task is read in full: in the responses' place, with the focus."""
        self._collapsed_before = collapsed
        self._focused_before: Widget | None = None

    def on_mount(self) -> None:
        # Beside the responses, scrolled with the mouse (or read in full): never a stop of the
        # focus chain, which is the form's.
        scroll = self.query_one("#task-scroll", VerticalScroll)
        scroll.can_focus = False
        scroll.border_subtitle = IN_FULL_HINT  # shown with the border the task in full has

    def show(self, task: BlindTask) -> None:
        body = task_text(task)
        shown = (body.plain, tuple(body.spans), str(body.style))
        # The same task (the next item of the same task) is left alone: an update would measure
        # the whole screen again for nothing.
        if shown != self._shown:
            self._shown = shown
            self.query_one("#task-body", Static).update(body)
        self.query_one("#task-scroll", VerticalScroll).scroll_home(animate=False)
        # One line made from the title or the prompt: their line breaks (real or escaped)
        # become spaces, never a literal "\n".
        title = "Task: " + escape_markup(one_line(task.title or task.prompt, TITLE_CHARACTERS))
        if self.title != title:
            self.title = title

    def toggle(self) -> None:
        self.collapsed = not self.collapsed

    def read_in_full(self, full: bool, *, refocus: bool = True) -> None:
        """The task in the responses' place (the screen's class ``-task-full`` hides them) with
        the focus, scrolled from the keyboard; or back beside them, the focus back where it was
        (unless ``refocus`` is False: the screen places it, on a new item)."""
        if full == self.full:
            return
        screen = self.screen
        scroll = self.query_one("#task-scroll", VerticalScroll)
        self.full = full
        screen.set_class(full, "-task-full")
        if full:
            self._collapsed_before = self.collapsed
            self._focused_before = screen.focused
            self.collapsed = False
            scroll.can_focus = True
            screen.set_focus(scroll, scroll_visible=False)
        else:
            self.collapsed = self._collapsed_before
            before, self._focused_before = self._focused_before, None
            if refocus and before is not None and before.is_attached:
                screen.set_focus(before, scroll_visible=False)
            elif screen.focused is scroll:
                screen.set_focus(None)
            scroll.can_focus = False
        screen.refresh_bindings()

    def scroll_page(self, direction: int) -> None:
        """A page of the task down (``direction`` 1) or up (-1)."""
        scroll = self.query_one("#task-scroll", VerticalScroll)
        scroll.scroll_page_down() if direction > 0 else scroll.scroll_page_up()

    @on(Collapsible.Collapsed)
    def _folded(self) -> None:
        # Folded while read in full (a click on its title, the palette): the responses again,
        # the task left folded.
        if self.full:
            self._collapsed_before = True
            self.read_in_full(False)
