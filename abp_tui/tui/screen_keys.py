"""How the judging screens (compare, adjudication) declare their keys, once for both.

Every key has an id ``<screen>.<name>`` (what the help screen and a keymap name it by), and the
keys the two screens share (the task panel, the trace tabs, the previous field) are declared
here with one wording, so that a reviewer reads the same tooltip wherever the key does the same
thing.
"""

from __future__ import annotations

from textual.binding import Binding


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
    """``t``: the task, evidence and criteria shown or hidden."""
    return screen_binding(
        screen, "t", "toggle_task", "Task", "Show or hide the task, evidence and criteria."
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
