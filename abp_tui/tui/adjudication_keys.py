"""The adjudication screen's keys, declared once: its own, then the reading keys.

Each has an id ``adjudicate.<name>`` (what the help screen and a keymap name it by). The reading
keys (search, hits, folds) are the compare screen's, declared in
:mod:`abp_tui.tui.reading_aids` and placed here by :mod:`abp_tui.tui.adjudication_reading`.
"""

from __future__ import annotations

from functools import partial

from textual.binding import BindingType

from abp_tui.tui.adjudication_reading import READING_KEYS
from abp_tui.tui.screen_keys import previous_field_key, screen_binding, task_key, trace_key

_binding = partial(screen_binding, "adjudicate")
"""An adjudication-screen key; its id is ``adjudicate.`` + ``name`` or the action."""

ADJUDICATION_KEYS: list[BindingType] = [
    _binding(
        "s",
        "record",
        "Record",
        "Record the final judgment with its note (the reviewers' judgments are kept).",
    ),
    _binding(
        "v",
        "toggle_names",
        "Names",
        "Show or hide the reviewers' names (recorded with the adjudication if shown).",
    ),
    _binding(
        "p",
        "prefill",
        "Prefill",
        "Fill the final judgment from Reviewer 1's (again: the next reviewer's), then edit.",
    ),
    _binding(
        "e",
        "note",
        "Note",
        "Go to the note field: why this is the final judgment (required, but for a first "
        "preference alone, whose justification stands in), or why you revise it.",
    ),
    _binding(
        "right_square_bracket",
        "step(1)",
        "Next",
        "Open the next disagreement of the list.",
        key_display="]",
        name="next",
    ),
    _binding(
        "left_square_bracket",
        "step(-1)",
        "Prev",
        "Open the previous disagreement of the list.",
        key_display="[",
        name="previous",
    ),
    _binding(
        "w",
        "toggle_judgments",
        "Judgments",
        "Read the reviewers' judgments in full: they take the responses' place and the focus "
        "(up, down, page up and page down scroll them); w or Escape gives the responses back.",
    ),
    _binding(
        "o",
        "toggle_form",
        "Form",
        "Narrow terminal: show the final judgment, or the item again (one at a time).",
    ),
    task_key("adjudicate"),
    trace_key("adjudicate"),
    _binding(
        "l",
        "back",
        "List",
        "Back to the disagreement list (asks first if the form has unrecorded changes).",
    ),
    _binding(
        "tab",
        "app.focus_next",
        "Next field",
        "Move to the next row or field.",
        show=False,
        name="next_field",
        priority=True,
    ),
    previous_field_key("adjudicate"),
    _binding(
        "escape",
        "leave_field",
        "Leave field",
        "Leave a text field so single keys act again; elsewhere, back to the list.",
        show=False,
    ),
    *READING_KEYS,
]
