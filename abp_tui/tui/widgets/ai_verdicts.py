"""The AI judges' verdicts on an item, shown on the compare screen after the reviewer's submission.

The panel reads them itself, in a worker (:func:`abp_tui.services.judge_display.read_item_verdicts`,
on a connection of its own), only when the screen asks, and the screen asks only for the item
shown once the reviewer has submitted it (on submission, and when a submitted item is opened;
never while reading ahead). The store answers nothing before that, or ever on a design that does
not set ``show_ai_after_submit``; the panel then stays hidden.

What it shows is blind: the responses by the positions this reviewer saw (Response 1, Response
2), the order a judge was shown them in the same positions, the judge by its own id and model,
and its explanation and error masked as the responses are. Every string is untrusted (a judge
quotes the answers it judged) and becomes plain ``Text`` through :mod:`abp_tui.text.safe`,
never markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.text import Text
from textual.message import Message
from textual.widgets import Static

from abp_tui.services.desk import Desk
from abp_tui.text.safe import safe_line, safe_text
from abp_tui.tui.workers import background

if TYPE_CHECKING:
    # The judges' verdicts (and their models) are read once an item is submitted: the first
    # item is shown without them.
    from abp_tui.services.judge_display import ShownVerdict

GROUP = "compare-ai-verdicts"
NOTICE_LINES = 6
"""Verdicts listed in the notice on submission (the panel has them all)."""
PICK_STYLES = {"pass": "green", "fail": "red", "no verdict": "dim"}


def _judge(row: ShownVerdict) -> str:
    judge = safe_line(row.judge)
    if row.model and row.model != row.judge:
        judge += f" ({safe_line(row.model)})"
    return judge


def _pick(row: ShownVerdict) -> str:
    """The verdict in one phrase: what it picked or gave, and on what."""
    if row.kind == "preference":
        if row.outcome == "no verdict":
            return "no verdict"
        picked = "tie" if row.outcome == "tie" else f"prefers {row.outcome}"
        if row.shown_first is not None:
            picked += f" (shown {row.shown_first} first)"
        return picked
    what = "score" if row.kind == "score" else "verdict"
    return f"{row.subject}: {what} {row.outcome}"


def summary(code: str, rows: Sequence[ShownVerdict]) -> str:
    """One line per verdict (the first few) for a notification."""
    lines = [f"AI judges on {safe_line(code)}:"]
    for row in rows[:NOTICE_LINES]:
        turn = f", turn {row.turn}" if row.turn is not None else ""
        lines.append(f"{_judge(row)}{turn}: {safe_line(_pick(row))}")
    more = len(rows) - NOTICE_LINES
    if more > 0:
        lines.append(f"… and {more} more (shown with the item)")
    return "\n".join(lines)


def render(rows: Sequence[ShownVerdict]) -> Text:
    """Each verdict: the judge, the turn, the pick in positions, the masked explanation."""
    text = Text()
    text.append("AI judges", style="bold")
    text.append(" (shown after your submission; not a human rating)\n", style="dim")
    for row in rows:
        text.append("\n")
        text.append(_judge(row), style="bold")
        if row.turn is not None:
            text.append(f"  turn {row.turn}", style="dim")
        text.append("\n  ")
        text.append(safe_line(_pick(row)), style=PICK_STYLES.get(row.outcome, "bold"))
        text.append("\n")
        if row.error:
            text.append(f"  {safe_line(row.error)}\n", style="dim")
        if row.explanation.strip():
            body = safe_text(row.explanation.strip())
            text.append("".join(f"  {line}\n" for line in body.splitlines()))
    return text


class AiVerdictsPanel(Static):
    """The AI judges' verdicts on the item shown, once the reviewer may see them."""

    DEFAULT_CSS = """
    AiVerdictsPanel {
        display: none;
        margin: 1 1;
        padding: 0 1;
        height: auto;
        border: round $secondary 60%;
    }
    AiVerdictsPanel.-shown {
        display: block;
    }
    """

    class Read(Message):
        """The verdicts on an item the reviewer has submitted (``rows`` None: not theirs to
        see; empty: no judge judged its responses)."""

        def __init__(
            self, code: str, rows: tuple[ShownVerdict, ...] | None, *, submitted_now: bool
        ) -> None:
            super().__init__()
            self.code = code
            self.rows = rows
            self.submitted_now = submitted_now
            """Read because the reviewer just submitted it (not because the item was opened)."""

    def __init__(self, desk: Desk) -> None:
        super().__init__("", id="ai-verdicts")
        self.desk = desk
        """Whose verdicts to read (its database, design and reviewer; not its connection)."""
        self.code: str | None = None
        """The item whose verdicts are shown (None: nothing shown)."""
        self.rows: tuple[ShownVerdict, ...] = ()

    @background(group=GROUP, description="Reading the AI judges' verdicts")
    def read(self, code: str, *, submitted_now: bool) -> None:
        """Read the verdicts on ``code``, which the reviewer has submitted; posts ``Read``."""
        from abp_tui.services.judge_display import read_item_verdicts

        desk = self.desk
        rows = read_item_verdicts(desk.db_path, desk.design_pk, code, desk.reviewer)
        self.post_message(self.Read(code, rows, submitted_now=submitted_now))

    def show(self, code: str, rows: Sequence[ShownVerdict]) -> None:
        self.code, self.rows = code, tuple(rows)
        self.update(render(rows) if rows else "")
        self.set_class(bool(rows), "-shown")

    def clear(self) -> None:
        self.code, self.rows = None, ()
        self.update("")
        self.remove_class("-shown")
