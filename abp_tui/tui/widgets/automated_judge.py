"""The automated judge's outcome of an item, shown on the compare screen after submission.

What :meth:`abp_tui.services.desk.Desk.automated` found (by the positions the reviewer saw:
Response 1, Response 2), as plain text: every string is untrusted (the scorer's reasons quote
the answers it scored) and goes through ``safe_line``, never through markup. The panel stays
hidden until it has something to show; the screen never fills it before the reviewer has
submitted their own judgment of the item.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widgets import Static

from abp_tui.services.desk import AutomatedOutcome
from abp_tui.text.safe import safe_line

OUTCOME_STYLES = {"pass": "green", "fail": "red", "unscored": "dim"}


def _label(outcome: AutomatedOutcome, single: bool) -> str:
    return "Response" if single else f"Response {outcome.position}"


def summary(code: str, outcomes: Sequence[AutomatedOutcome]) -> str:
    """One line per response for a notification: outcome, and the dimensions that failed."""
    single = len(outcomes) == 1
    lines = [f"Automated judge on {safe_line(code)}:"]
    for o in outcomes:
        failed = [safe_line(d.dimension) for d in o.dimensions if d.outcome == "fail"]
        unscored = sum(1 for d in o.dimensions if d.outcome == "unscored")
        line = f"{_label(o, single)} {safe_line(o.outcome)}"
        if failed:
            line += f" (failed: {', '.join(failed)})"
        if unscored:
            line += f"; {unscored} unscored"
        lines.append(line)
    return "\n".join(lines)


def render(outcomes: Sequence[AutomatedOutcome]) -> Text:
    """Each response's outcome and every dimension with its outcome and reason."""
    single = len(outcomes) == 1
    text = Text()
    text.append("Automated judge", style="bold")
    text.append(" (shown after your submission)\n", style="dim")
    for o in outcomes:
        text.append(f"\n{_label(o, single)}: ", style="bold")
        text.append(safe_line(o.outcome), style="bold")
        text.append(f"  ({safe_line(o.scorer)})\n", style="dim")
        for d in o.dimensions:
            text.append(f"  {safe_line(d.outcome):<9}", style=OUTCOME_STYLES.get(d.outcome, ""))
            text.append(safe_line(d.dimension))
            if d.reason:
                text.append(f": {safe_line(d.reason)}", style="dim")
            text.append("\n")
    return text


class AutomatedJudgePanel(Static):
    """The automated judge's outcome of the item shown, once it may be shown."""

    DEFAULT_CSS = """
    AutomatedJudgePanel {
        display: none;
        margin: 1 1;
        padding: 0 1;
        height: auto;
        border: round $secondary 60%;
    }
    AutomatedJudgePanel.-shown {
        display: block;
    }
    """

    def __init__(self) -> None:
        super().__init__("", id="automated")
        self.code: str | None = None
        """The item whose outcome is shown (None: nothing shown)."""
        self.outcomes: tuple[AutomatedOutcome, ...] = ()

    def show(self, code: str, outcomes: Sequence[AutomatedOutcome]) -> None:
        self.code, self.outcomes = code, tuple(outcomes)
        self.update(render(outcomes) if outcomes else "")
        self.set_class(bool(outcomes), "-shown")

    def clear(self) -> None:
        self.code, self.outcomes = None, ()
        self.update("")
        self.remove_class("-shown")
