"""How the judging screens (compare, adjudication) declare their keys, once for both.

Every key has an id ``<screen>.<name>`` (what the help screen and a keymap name it by), and the
keys the two screens share (the task panel, the trace tabs, the previous field) are declared
here with one wording, so that a reviewer reads the same tooltip wherever the key does the same
thing.
"""

from __future__ import annotations

from textual.binding import Binding

from abp_tui.tui.widgets.task_panel import TASK_KEY


def screen_binding(
    screen: str,
    key: str,
    action: str,
    description: str,
    tooltip: str,
    *,
    show: bool = True,
    name: str | None = None,
    key_display: str | None = None,
    priority: bool = False,
) -> Binding:
    """A key of ``screen``; its id (for remapping) is ``<screen>.`` + ``name`` or the action."""
    return Binding(
        key,
        action,
        description,
        show=show,
        key_display=key_display,
        priority=priority,
        id=f"{screen}.{name or action}",
        tooltip=tooltip,
    )


def task_key(screen: str) -> Binding:
    """``ctrl+t``: the whole task read in the responses' place, or the responses again.

    A control key, as no letter can be: ``t`` is a tie on the preference row, and every other
    free letter is some screen's or some design's. It also acts from a text field (to read
    the task again while writing a justification)."""
    return screen_binding(
        screen,
        TASK_KEY,
        "task_in_full",
        "Task",
        "Read the whole task (prompt, evidence, criteria) in the responses' place: arrows, "
        "PgUp and PgDn scroll it; ctrl+t or Esc gives the responses back.",
        name="task",
    )


def trace_key(screen: str) -> Binding:
    """``r``: both responses switched between their output and their trace."""
    return screen_binding(
        screen, "r", "toggle_trace", "Trace", "Switch both responses between output and trace."
    )


def previous_field_key(screen: str) -> Binding:
    """Shift+Tab, resolved before any widget's own keys (as Tab is)."""
    return screen_binding(
        screen,
        "shift+tab",
        "app.focus_previous",
        "Previous field",
        "Move to the previous row or field.",
        show=False,
        name="previous_field",
        priority=True,
    )
