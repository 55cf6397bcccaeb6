"""The task a blind item is about, in a collapsible panel: its title, prompt, base instruction,
evidence, the grader's expected behaviour, fatal criteria and risk type.

Shared by the compare and adjudication screens. Every text comes from a task file: the body is
``rich.text.Text`` of safe strings, and the panel's title (which Textual parses as markup) is
escaped so it shows literally.
"""

from __future__ import annotations

from rich.text import Text
from textual.containers import VerticalScroll
from textual.markup import escape as escape_markup
from textual.widgets import Collapsible, Static

from abp_tui.services.reviewing import BlindTask
from abp_tui.text.lines import one_line
from abp_tui.text.safe import safe_line, safe_text

TITLE_CHARACTERS = 110
"""The panel's title shows this much of the task's title (or prompt)."""


def task_text(task: BlindTask) -> Text:
    """The task's texts, section by section (sections without text are left out)."""
    body = Text()

    def section(label: str, value: str) -> None:
        if value.strip():
            if body:
                body.append("\n\n")
            body.append(f"{label}\n", style="bold")
            body.append(safe_text(value.strip()))

    # The panel's own title shows a short one-line title whole: the body starts with the prompt.
    title = task.title.strip()
    if len(title) > TITLE_CHARACTERS or "\n" in title or not task.prompt.strip():
        section("Title", task.title)
    section("Prompt", task.prompt)
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
    """The task, collapsible (``t`` on the screens), scrolled inside when it is long."""

    def __init__(self, *, collapsed: bool, id: str = "task") -> None:
        super().__init__(
            VerticalScroll(Static("", id="task-body"), id="task-scroll"),
            title="Task",
            collapsed=collapsed,
            id=id,
        )
        self._shown: tuple[object, ...] = ()

    def on_mount(self) -> None:
        # Scrolled with the mouse or by the screen; never a stop of the focus chain.
        self.query_one("#task-scroll", VerticalScroll).can_focus = False

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
