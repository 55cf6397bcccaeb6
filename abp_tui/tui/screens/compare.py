"""The compare screen: one blind item at a time, judged from the keyboard.

Left: the task (collapsible) and the responses side by side, scrolled together, with a word diff
that is computed in a worker and toggled by a key. Right: the scoring panel (validity gate, each
response's rubric judgment, the pair's preference). Every decision is staged on the desk and
stored as a draft by a worker; the item bar says "saved" only once the database has it.

The screen never runs SQL and never shows which run, condition, engine, model or provider a
response comes from: it only has what the review session's blind item carries.
"""

from __future__ import annotations

import contextlib
import gc
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import events, on, work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.markup import escape as escape_markup
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Collapsible, Header, Input, Static
from textual.worker import get_current_worker

from abp_tui.analysis.scoring import problems
from abp_tui.errors import AbpError
from abp_tui.models import Finding, Judgment, ResponseJudgment, Rubric
from abp_tui.services.desk import Desk, StoredDraft, judgeable_designs
from abp_tui.services.reviewing import BlindItem, NotReady, SaveResult
from abp_tui.text.safe import safe_line, safe_text
from abp_tui.tui.commands import CompareCommands
from abp_tui.tui.screens.finding import FindingScreen, NewFinding
from abp_tui.tui.screens.queue import QueueScreen
from abp_tui.tui.screens.revise import ReviseScreen, Revision
from abp_tui.tui.widgets.keybar import KeyBar
from abp_tui.tui.widgets.response import ResponseView
from abp_tui.tui.widgets.scoring import (
    ChoiceRow,
    GatePanel,
    PreferencePanel,
    ResponseScoring,
)
from abp_tui.tui.widgets.textlayout import (
    Alignment,
    DiffMarks,
    DiffRunner,
    Range,
    display_text,
    wrap_offsets,
)
from abp_tui.tui.widgets.textpane import TextPane

DEBOUNCE_SECONDS = 0.8
"""Typing is stored this long after the last key (leaving the field or Enter stores at once)."""
OPENING_NOTICE_SECONDS = 0.15
"""An item that takes longer than this to arrive is announced in the item bar."""
INLINE_DIFF_CHARACTERS = 500_000
"""A pair this long or shorter (both texts) is diffed before it is shown (a few tenths of a second
at most): the texts and their highlighting arrive in one paint, and the screen's layout never
competes with the diff. A longer pair shows its texts first and its diff when it is ready."""
_STORE_ERRORS = (AbpError, sqlite3.Error, OSError)
TYPING_SECONDS = 0.6
"""After a key typed as text outside a text field, keys this close together are held back."""
FOLLOW_SECONDS = 0.25
"""A key that leaves the item this soon after a key that was not a score is taken as typing."""
LEAVING_KEYS = frozenset(
    {
        "compare.submit",
        "compare.next_unfinished",
        "compare.queue",
        "compare.home",
        "compare.finding",
        "app.quit",
        "app.help",
        "app.judge",
        "app.disagreements",
        "app.agreement",
        "app.results",
    }
)
"""Keys that submit, or leave the item or the screen: never taken from a burst of typing."""
COORDINATOR_KEYS = frozenset({"app.judge", "app.disagreements", "app.agreement", "app.results"})
"""App keys left out of the compare screen's key bar (it has room for the judging keys only)."""


@dataclass(frozen=True)
class ShownItem:
    """A blind item and its responses' texts in display form (prepared in a worker)."""

    item: BlindItem
    texts: tuple[str, ...]
    wrapped: tuple[tuple[int, list[Range]] | None, ...] = ()
    """Each text wrapped to its pane's width when the item was asked for (None: not wrapped)."""
    marks: DiffMarks | None = None
    """The pair's word diff, when it was computed with the item."""
    read_ahead: bool = False
    """Read before the reviewer asked for it: the item is entered once it is shown."""


def prepare(
    item: BlindItem,
    widths: tuple[int, ...],
    differ: DiffRunner | None,
    *,
    read_ahead: bool = False,
) -> ShownItem:
    """An item ready to show (in a worker): display texts, wrapped to ``widths``, and the
    word diff of a pair when ``differ`` is given."""
    texts = tuple(display_text(r.text) for r in item.responses)
    # Wrapped here, off the event loop, to the panes' current widths (the panes use it when
    # their width is still the same).
    wrapped = tuple(
        (width, wrap_offsets(text, width)) if width > 0 else None
        for text, width in zip(texts, widths, strict=False)
    )
    marks = differ.diff(texts[0], texts[1]) if differ is not None and len(texts) == 2 else None
    return ShownItem(item, texts, wrapped, marks, read_ahead)


def _now() -> float:
    return time.monotonic()


def _duration(seconds: float) -> str:
    minutes, secs = divmod(round(seconds), 60)
    return f"{minutes}m {secs:02d}s" if minutes else f"{secs}s"


def _binding(
    key: str,
    action: str,
    description: str,
    tooltip: str,
    *,
    show: bool = True,
    name: str | None = None,
    key_display: str | None = None,
) -> Binding:
    """A compare-screen key; its id (for remapping) is ``compare.`` + ``name`` or the action."""
    return Binding(
        key,
        action,
        description,
        show=show,
        key_display=key_display,
        id=f"compare.{name or action}",
        tooltip=tooltip,
    )


class CompareScreen(Screen[None]):
    """Judge the items of one study design, one blind item at a time."""

    CSS_PATH = "../styles/compare.tcss"
    COMMANDS: ClassVar = {CompareCommands}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "tab",
            "app.focus_next",
            "Next field",
            key_display="tab",
            priority=True,
            id="compare.next_field",
            tooltip="Move to the next row or field (resolved at once, like the scoring keys).",
        ),
        _binding("s", "submit", "Submit", "Submit this judgment (problems are listed if any)."),
        _binding(
            "ctrl+s",
            "save",
            "Save draft",
            "Store the draft now (every change is stored anyway; typing after a pause).",
            show=False,
        ),
        _binding(
            "right_square_bracket",
            "next_item",
            "Next",
            "Open the next item of your queue.",
            key_display="]",
        ),
        _binding(
            "left_square_bracket",
            "previous_item",
            "Prev",
            "Open the previous item of your queue.",
            key_display="[",
        ),
        _binding(
            "u",
            "next_unfinished",
            "Unfinished",
            "Open the next item you have not submitted yet.",
        ),
        _binding("l", "queue", "Queue", "List your items with their status; filter and jump."),
        _binding("d", "toggle_diff", "Diff", "Show or hide the word-level differences."),
        _binding(
            "c",
            "next_change",
            "Change",
            "Scroll both responses to the next difference.",
        ),
        _binding("r", "toggle_trace", "Trace", "Switch both responses between output and trace."),
        _binding("t", "toggle_task", "Task", "Show or hide the task, evidence and criteria."),
        _binding("f", "finding", "Finding", "Record a finding about this item (seed 002 §6)."),
        _binding(
            "right_curly_bracket",
            "section(1)",
            "Next section",
            "Jump to the next part of the scoring panel (gate, responses, preference).",
            show=False,
            name="next_section",
            key_display="}",
        ),
        _binding(
            "left_curly_bracket",
            "section(-1)",
            "Previous section",
            "Jump to the previous part of the scoring panel.",
            show=False,
            name="previous_section",
            key_display="{",
        ),
        _binding(
            "shift+down",
            "scroll_responses(1)",
            "Scroll down",
            "Scroll the responses down a page (they move together).",
            show=False,
            name="scroll_down",
        ),
        _binding(
            "shift+up",
            "scroll_responses(-1)",
            "Scroll up",
            "Scroll the responses up a page.",
            show=False,
            name="scroll_up",
        ),
        _binding("h", "home", "Home", "Back to the list of studies (your work is saved)."),
        Binding(
            "shift+tab",
            "app.focus_previous",
            "Previous field",
            show=False,
            priority=True,
            id="compare.previous_field",
            tooltip="Move to the previous row or field.",
        ),
        _binding(
            "escape",
            "leave_field",
            "Leave field",
            "Leave a text field so single keys act again.",
            show=False,
        ),
    ]

    # -- messages (facts the workers report) --------------------------------------------------
    class ItemOpened(Message):
        def __init__(self, shown: ShownItem, request: int) -> None:
            super().__init__()
            self.shown = shown
            self.request = request
            """Which opening asked for it: only the latest one is shown."""

    class ItemReadAhead(Message):
        """The item after ``after`` was read ahead, ready for the next-item key."""

        def __init__(self, after: str, shown: ShownItem) -> None:
            super().__init__()
            self.after = after
            self.shown = shown

    class ItemEntered(Message):
        """A read-ahead item became the current one; ``revision`` is its newest in the store."""

        def __init__(self, code: str, revision: int) -> None:
            super().__init__()
            self.code = code
            self.revision = revision

    class QueueEmpty(Message):
        pass

    class NoMoreItems(Message):
        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    class LoadFailed(Message):
        def __init__(self, reason: str) -> None:
            super().__init__()
            self.reason = reason

    class DiffComputed(Message):
        def __init__(self, code: str, marks: DiffMarks) -> None:
            super().__init__()
            self.code = code
            self.marks = marks

    class DraftsStored(Message):
        def __init__(self, stored: list[StoredDraft]) -> None:
            super().__init__()
            self.stored = stored

    class SaveFailed(Message):
        def __init__(self, reason: str) -> None:
            super().__init__()
            self.reason = reason

    class JudgmentSubmitted(Message):
        def __init__(self, code: str, result: SaveResult, judgment: Judgment) -> None:
            super().__init__()
            self.code = code
            self.result = result
            self.judgment = judgment

    class SubmissionRefused(Message):
        def __init__(
            self, code: str, problems: list[str], judgment: Judgment, version: int, before: str
        ) -> None:
            super().__init__()
            self.code = code
            self.problems = problems
            self.judgment = judgment
            self.version = version
            """The screen's change counter when the submission was asked for."""
            self.before = before
            """The item's status before the submission (todo, draft or submitted)."""

    class FindingIdChosen(Message):
        def __init__(self, code: str, finding_id: str) -> None:
            super().__init__()
            self.code = code
            self.finding_id = finding_id

    class FindingRecorded(Message):
        def __init__(self, finding_id: str, revision: int) -> None:
            super().__init__()
            self.finding_id = finding_id
            self.revision = revision

    READ_AHEAD: ClassVar[bool] = True
    """Read the next item while the reviewer is on this one, so the next-item key shows it at
    once (``abp-tui bench ui`` also measures without it)."""

    def __init__(self, desk: Desk, code: str | None = None) -> None:
        super().__init__()
        self.desk = desk
        self.start_code = code
        self.title_text = ""
        self.item: BlindItem | None = None
        self.texts: tuple[str, ...] = ()
        self.judgment = Judgment()
        self.stored = Judgment()
        self.status = "todo"
        self.revision = 0
        self.version = 0
        self.stored_version = 0
        self.save_error: str | None = None
        self.submitting = False
        self.diff_on = True
        self.marks: DiffMarks | None = None
        self.hunk_index: int | None = None
        self._jump_view: tuple[float, float] | None = None
        self._debounce: Timer | None = None
        self._opening: Timer | None = None
        self._typing_until = 0.0
        self._keys: frozenset[str] | None = None
        self._request = 0
        self._last_key: tuple[float, bool] = (0.0, False)
        """When the last printable key came, and whether it was a score (a focused row's key)."""
        self._ahead: ShownItem | None = None
        """The item after the current one, read ahead for the next-item key."""
        self._after_submit: Callable[[], None] | None = None
        self._refused = False
        self._before_submit = "todo"
        self._scoring_built = False
        self._frozen = False
        self.differ = DiffRunner()
        self._missing_shown = ""
        self._task_shown: tuple[object, ...] = ()

    # -- layout -----------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(Text("Opening your next item…"), id="item-bar")
        with Horizontal(id="workspace"):
            with Vertical(id="reading"):
                with (
                    Collapsible(title="Task", collapsed=False, id="task"),
                    VerticalScroll(id="task-scroll"),
                ):
                    yield Static("", id="task-body")
                with Horizontal(id="responses"):
                    yield ResponseView("1", id="response-1")
                    yield ResponseView("2", id="response-2")
            with VerticalScroll(id="scoring"):
                yield GatePanel(id="gate")
                yield Static("", id="missing")
        # The coordinator's screens stay on their keys and in the palette, not in this bar.
        yield KeyBar(hide=COORDINATOR_KEYS)

    def on_mount(self) -> None:
        self.query_one("#scoring", VerticalScroll).can_focus = False
        self.query_one("#task-scroll", VerticalScroll).can_focus = False
        self.warm_up_differ()
        self.open_item(self.start_code, request=self._new_request())

    def on_unmount(self) -> None:
        if self._frozen:
            # This screen's widgets go back to the collector (see _freeze_long_lived).
            gc.unfreeze()
        # Typing staged while waiting for its pause is stored now, before the connection closes.
        self.differ.close()
        with contextlib.suppress(*_STORE_ERRORS):
            self.desk.close()

    def _views(self) -> list[ResponseView]:
        views = [self.query_one("#response-1", ResponseView)]
        if self.item is not None and len(self.item.responses) > 1:
            views.append(self.query_one("#response-2", ResponseView))
        return views

    def _panes(self) -> list[TextPane]:
        return [view.pane for view in self._views()]

    def _widths(self) -> tuple[int, ...]:
        """The widths both response panes wrap to (also when the item has one response)."""
        return tuple(self.query_one(f"#response-{n}", ResponseView).pane.wrap_width() for n in "12")

    def _differ_for(self, item: BlindItem, diff: bool) -> DiffRunner | None:
        """The differ to prepare ``item`` with: a pair short enough is diffed before it shows."""
        short = sum(len(r.text) for r in item.responses) <= INLINE_DIFF_CHARACTERS
        return self.differ if diff and short else None

    @property
    def is_pair(self) -> bool:
        return self.item is not None and len(self.item.responses) > 1

    # -- typing outside a text field --------------------------------------------------------
    def holds_back(self, event: events.Key) -> bool:
        """Whether a key is typing meant for a text field, to be ignored (the app asks first).

        Keys act at once on this screen, so text typed while no field has the focus would
        score, submit or leave the item letter by letter. A printable key that nothing here
        binds starts a burst of typing: it and every key that follows it closely are held back,
        with a notice. A key that submits or leaves the item is also held back when it follows
        another non-score key very closely (the "h" of "the"). Scores typed in a burst ("2221")
        still act.
        """
        now = _now()
        if isinstance(self.focused, Input):
            self._typing_until = 0.0  # typing where it belongs
            return False
        if not event.is_printable:
            return False
        active = self.active_bindings.get(event.key)
        if active is None and event.key in self._screen_keys():
            return False  # a key of another row (a stray "Y" after the gate): ignored as ever
        binding_id = active.binding.id if active is not None else None
        # The focused row's keys are priority bindings: those are scores.
        score = active is not None and active.binding.priority
        last_time, last_was_score = self._last_key
        self._last_key = (now, score)
        typing = (
            now < self._typing_until
            or active is None
            or (
                binding_id in LEAVING_KEYS
                and now - last_time < FOLLOW_SECONDS
                and not last_was_score
            )
        )
        if not typing:
            return False
        if now >= self._typing_until:
            self.notify(
                "No text field has the focus, so keys act at once here: the typing was "
                "ignored. Tab moves to the next field; Esc leaves a field.",
                title="Typing ignored",
                severity="warning",
                markup=False,
            )
        self._typing_until = now + TYPING_SECONDS
        return True

    def _screen_keys(self) -> frozenset[str]:
        """Every key bound anywhere on this screen or by the app, whatever has the focus."""
        if self._keys is None:
            keys: set[str] = set(self.app._bindings.key_to_bindings)
            for node in self.walk_children(with_self=True):
                keys.update(node._bindings.key_to_bindings)
            self._keys = frozenset(keys)
        return self._keys

    # -- opening items (worker) -------------------------------------------------------------
    @work(thread=True, exclusive=True, group="compare-open", description="Opening an item")
    def open_item(
        self,
        code: str | None,
        current: str | None = None,
        step: int = 0,
        unfinished: bool = False,
        widths: tuple[int, ...] = (),
        request: int = 0,
    ) -> None:
        worker = get_current_worker()
        try:
            if not self.title_text:
                self.title_text = self.desk.title
            if current is not None and code is None:
                code = self.desk.next_code(current, step or 1, unfinished)
                if code is None and unfinished:
                    rows = self.desk.queue().rows
                    code = next(
                        (r.code for r in rows if r.status != "submitted" and r.code != current),
                        None,
                    )
                if code is None:
                    text = (
                        "Every item of your queue is submitted."
                        if unfinished
                        else ("This is your last item." if step > 0 else "This is your first item.")
                    )
                    if not worker.is_cancelled:
                        self.post_message(self.NoMoreItems(text))
                    return
            item = self.desk.open(code)
        except _STORE_ERRORS as exc:
            if not worker.is_cancelled:
                self.post_message(self.LoadFailed(str(exc)))
            return
        if item is None:
            self.post_message(self.QueueEmpty())
            return
        shown = prepare(item, widths, self._differ_for(item, self.diff_on))
        if not worker.is_cancelled:
            self.post_message(self.ItemOpened(shown, request))

    # -- reading ahead (worker) -------------------------------------------------------------
    def _read_ahead(self) -> None:
        """Prepare the next item while the reviewer reads this one (after this paint)."""
        if self.READ_AHEAD and self.item is not None and self._ahead is None:
            self.read_ahead(self.item.code, self._widths(), self.diff_on)

    @work(thread=True, exclusive=True, group="compare-ahead", description="Reading ahead")
    def read_ahead(self, after: str, widths: tuple[int, ...], diff: bool) -> None:
        worker = get_current_worker()
        try:
            item = self.desk.peek_after(after)
        except _STORE_ERRORS:
            return  # opening the item for real reports the problem
        if item is None or worker.is_cancelled:
            return
        shown = prepare(item, widths, self._differ_for(item, diff), read_ahead=True)
        if not worker.is_cancelled:
            self.post_message(self.ItemReadAhead(after, shown))

    @on(ItemReadAhead)
    def item_read_ahead(self, message: ItemReadAhead) -> None:
        # Kept while its item is current: showing any item clears it.
        if self.item is not None and message.after == self.item.code:
            self._ahead = message.shown

    @work(thread=True, exclusive=True, group="compare-enter", description="Opening an item")
    def enter_item(self, code: str, restart_clock: bool = True) -> None:
        try:
            revision, stored = self.desk.enter(code, restart_clock)
        except _STORE_ERRORS as exc:
            self.post_message(self.LoadFailed(str(exc)))
            return
        if stored:
            self.post_message(self.DraftsStored(stored))
        self.post_message(self.ItemEntered(code, revision))

    @on(ItemEntered)
    def item_entered(self, message: ItemEntered) -> None:
        item = self.item
        # Drafts stored from this screen are reported (DraftsStored) before this message, so a
        # newer revision than the screen knows was written by someone else.
        if item is None or item.code != message.code or message.revision <= self.revision:
            return
        # Judged elsewhere since it was read ahead (another window, a merged pack): read again.
        self.open_item(message.code, widths=self._widths(), request=self._new_request())

    def _new_request(self) -> int:
        """A number for a new opening; an item opened for an older one is not shown."""
        self._request += 1
        return self._request

    @on(ItemOpened)
    async def item_opened(self, message: ItemOpened) -> None:
        if message.request != self._request:
            # Another key asked for another item since. Opening this one moved the reviewer's
            # place to it: put it back on the item shown (its clock keeps running).
            if self.item is not None and message.shown.item.code != self.item.code:
                self.enter_item(self.item.code, restart_clock=False)
            return
        self._stop_opening()
        self._ahead = None
        item = message.shown.item
        if message.shown.read_ahead:
            self.enter_item(item.code)
        if not self._scoring_built:
            await self._build_scoring(item.rubric)
        self.item = item
        self.texts = message.shown.texts
        self.judgment = self.stored = item.judgment
        self.status = item.status
        self.revision = item.revision
        self.version = self.stored_version = 0
        self.save_error = None
        self.submitting = False
        self._refused = False
        self.marks = message.shown.marks
        self.hunk_index = None
        self.set_class(not self.is_pair, "-single")
        self._show_task(item)
        titles = ["Response 1", "Response 2"] if self.is_pair else ["Response"]
        wrapped = message.shown.wrapped
        for i, (view, response, text, title) in enumerate(
            zip(self._views(), item.responses, self.texts, titles, strict=False)
        ):
            view.show(title, response, text, wrapped[i] if i < len(wrapped) else None)
        self._load_scoring(item, titles)
        target = self._first_missing() or self.query_one("#gate").query_one(ChoiceRow)
        target.focus(scroll_visible=False)
        scoring = self.query_one("#scoring", VerticalScroll)
        if target is self.query_one("#gate").query(ChoiceRow).first():
            scoring.scroll_home(animate=False)
        else:
            scoring.call_after_refresh(target.scroll_visible, animate=False)
        if self.is_pair and self.diff_on and self.marks is None:
            # Started once the texts are drawn: the helper process then has the processor to
            # itself instead of slowing this item's first paint.
            self.call_after_refresh(self._diff_current, item.code)
        else:
            self._show_marks()
            self.call_after_refresh(self._read_ahead)
        self._update_bar()
        self._update_missing()

    async def _build_scoring(self, rubric: Rubric) -> None:
        scoring = self.query_one("#scoring", VerticalScroll)
        missing = self.query_one("#missing")
        await scoring.mount_all(
            [
                ResponseScoring("1", rubric, id="score-1"),
                ResponseScoring("2", rubric, id="score-2"),
                PreferencePanel(id="preference"),
            ],
            before=missing,
        )
        self._scoring_built = True
        self._keys = None  # the rows bring their keys
        self.call_after_refresh(self._freeze_long_lived)

    def _freeze_long_lived(self) -> None:
        """Move the objects alive now (modules, styles, this screen's widgets) out of the
        collector's generations, once the first item is shown.

        They live as long as the screen; without this every full collection walks them all
        (tens of milliseconds with the screen frozen). Unfrozen when the screen closes.
        """
        gc.freeze()
        self._frozen = True

    def _show_task(self, item: BlindItem) -> None:
        task = item.task
        body = Text()

        def section(label: str, value: str, style: str = "") -> None:
            if value.strip():
                if body:
                    body.append("\n\n")
                body.append(f"{label}\n", style="bold")
                body.append(safe_text(value.strip()), style=style)

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
        shown = (body.plain, tuple(body.spans), str(body.style))
        if shown != self._task_shown:
            self._task_shown = shown
            self.query_one("#task-body", Static).update(body)
        self.query_one("#task-scroll", VerticalScroll).scroll_home(animate=False)
        # A collapsible's title is markup: the task text is escaped so it shows literally.
        title = "Task: " + escape_markup(safe_line(task.title or task.prompt)[:110])
        collapsible = self.query_one("#task", Collapsible)
        if collapsible.title != title:
            collapsible.title = title

    def _load_scoring(self, item: BlindItem, titles: list[str]) -> None:
        judgment = item.judgment
        self.query_one(GatePanel).load(judgment.validity)
        for i, (title, response) in enumerate(zip(titles, item.responses, strict=False)):
            position = str(i + 1)
            section = self.query_one(f"#score-{position}", ResponseScoring)
            section.load(
                judgment.responses.get(position, ResponseJudgment()),
                item.task.fatal_criteria,
                response.record_state,
                title,
            )
        self.query_one(PreferencePanel).load(judgment.preference, judgment.justification)

    # -- the word diff (worker) -------------------------------------------------------------
    @work(thread=True, group="compare-warm-up", description="Starting the diff process")
    def warm_up_differ(self) -> None:
        self.differ.warm_up()

    def _diff_current(self, code: str) -> None:
        if self.item is not None and self.item.code == code and self.marks is None:
            self.compute_diff(code, self.texts[0], self.texts[1])

    @work(thread=True, exclusive=True, group="compare-diff", description="Computing the word diff")
    def compute_diff(self, code: str, left: str, right: str) -> None:
        marks = self.differ.diff(left, right)
        if not get_current_worker().is_cancelled:
            self.post_message(self.DiffComputed(code, marks))

    @on(DiffComputed)
    def diff_computed(self, message: DiffComputed) -> None:
        if self.item is None or message.code != self.item.code:
            return
        self.marks = message.marks
        self._show_marks()
        self._update_bar()
        self.call_after_refresh(self._read_ahead)

    def _show_marks(self) -> None:
        if not self.is_pair:
            return
        left, right = self._panes()
        if self.diff_on and self.marks is not None:
            hunk = None
            if self.hunk_index is not None and self.hunk_index < len(self.marks.hunks):
                hunk = self.marks.hunks[self.hunk_index]
            left.set_changed(self.marks.left, hunk.left if hunk else None)
            right.set_changed(self.marks.right, hunk.right if hunk else None)
        else:
            left.set_changed([])
            right.set_changed([])

    def _alignment(self) -> Alignment:
        if self.marks is not None:
            return self.marks.alignment
        return Alignment.plain(len(self.texts[0]), len(self.texts[1]))

    @on(TextPane.Scrolled)
    def pane_scrolled(self, event: TextPane.Scrolled) -> None:
        """Scrolling one response brings the other to the passage that lines up with it."""
        if not self.is_pair:
            return
        left, right = self._panes()
        if event.pane is left:
            right.scroll_to_offset(self._alignment().map(event.offset, True), context=0)
        elif event.pane is right:
            left.scroll_to_offset(self._alignment().map(event.offset, False), context=0)

    # -- changes and drafts -----------------------------------------------------------------
    @on(GatePanel.Changed)
    def gate_changed(self, event: GatePanel.Changed) -> None:
        self._change(True, validity=event.validity)

    @on(ResponseScoring.Changed)
    def response_changed(self, event: ResponseScoring.Changed) -> None:
        responses = dict(self.judgment.responses)
        responses[event.position] = event.state
        self._change(event.urgent, responses=responses)

    @on(PreferencePanel.Changed)
    def preference_changed(self, event: PreferencePanel.Changed) -> None:
        self._change(event.urgent, preference=event.preference, justification=event.justification)

    def _change(self, urgent: bool, **update: object) -> None:
        if self.item is None:
            return
        judgment = self.judgment.model_copy(update=update)
        if judgment == self.judgment:
            return
        self.judgment = judgment
        if self.status in ("submitted", "submitting"):
            # A submitted judgment changes only by a revised submission (with a reason).
            self._update_bar()
            self._update_missing()
            return
        self.version += 1
        self.desk.stage(self.item.code, self.version, judgment)
        if self._debounce is not None:
            self._debounce.stop()
            self._debounce = None
        if urgent:
            self.store_drafts()
        else:
            self._debounce = self.set_timer(DEBOUNCE_SECONDS, self.store_drafts)
        self._update_bar()
        self._update_missing()

    @on(Input.Blurred)
    def field_left(self) -> None:
        if self.item is not None and self.desk.has_staged(self.item.code):
            self.store_drafts()

    @work(thread=True, group="compare-save", description="Storing the draft")
    def store_drafts(self) -> None:
        try:
            stored = self.desk.store_staged()
        except _STORE_ERRORS as exc:
            self.post_message(self.SaveFailed(str(exc)))
            return
        if stored:
            self.post_message(self.DraftsStored(stored))

    @on(DraftsStored)
    def drafts_stored(self, message: DraftsStored) -> None:
        for draft in message.stored:
            if self.item is None or draft.code != self.item.code:
                continue
            self.stored_version = max(self.stored_version, draft.version)
            self.revision = max(self.revision, draft.result.revision)
            if self.status == "todo":
                self.status = "draft"
            self.save_error = None
        self._update_bar()

    @on(SaveFailed)
    def save_failed(self, message: SaveFailed) -> None:
        self.save_error = message.reason
        self._update_bar()
        self.notify(safe_line(message.reason), title="Not saved", severity="error", markup=False)

    def action_save(self) -> None:
        if self.item is None:
            return
        if self.status in ("submitted", "submitting"):
            self.notify(
                "This item is submitted: a change is a revised submission (press s).",
                markup=False,
            )
            return
        self.desk.stage(self.item.code, self.version, self.judgment)
        self.store_drafts()

    # -- submitting -------------------------------------------------------------------------
    def action_submit(self) -> None:
        if self.item is None or self.submitting:
            return
        if self.status == "submitted":
            if self.judgment == self.stored:
                self.notify(
                    "Already submitted. Change a decision first; a revised submission asks "
                    "for a reason.",
                    markup=False,
                )
                return
            self.app.push_screen(
                ReviseScreen(self.item.code, allow_discard=False), self._revision_chosen
            )
            return
        self._submit("")

    def _revision_chosen(self, revision: Revision | None) -> None:
        if revision is not None and revision.resubmit:
            self._submit(revision.reason)

    def _submit(self, reason: str, after: Callable[[], None] | None = None) -> None:
        if self.item is None:
            return
        self._after_submit = after
        self.submitting = True
        self._before_submit = self.status
        self.status = "submitting"
        if self._debounce is not None:
            self._debounce.stop()
            self._debounce = None
        self._update_bar()
        self.submit_judgment(
            self.item.code, self.judgment, reason, self.version, self._before_submit
        )

    @work(thread=True, group="compare-save", description="Submitting the judgment")
    def submit_judgment(
        self, code: str, judgment: Judgment, reason: str, version: int, before: str
    ) -> None:
        try:
            result = self.desk.submit(code, judgment, reason)
        except NotReady as exc:
            problems = list(exc.problems)
        except _STORE_ERRORS as exc:
            problems = [str(exc)]
        else:
            self.post_message(self.JudgmentSubmitted(code, result, judgment))
            return
        self.post_message(self.SubmissionRefused(code, problems, judgment, version, before))

    @on(SubmissionRefused)
    def submission_refused(self, message: SubmissionRefused) -> None:
        self.submitting = False
        if self.item is None or message.code != self.item.code:
            # The reviewer moved on before the refusal came back: that item's decisions are
            # kept as a draft (unless it was already submitted), and the refusal is said.
            if message.before != "submitted":
                self.desk.stage(message.code, message.version, message.judgment)
                self.store_drafts()
            self.notify(
                "\n".join(f"• {safe_line(p)}" for p in message.problems[:6]),
                title=f"{safe_line(message.code)} was not submitted",
                severity="error",
                timeout=10,
                markup=False,
            )
            return
        self.status = self._before_submit
        if self.status != "submitted" and self.judgment != self.stored:
            # The draft was not stored with the refused submission: store it now.
            self.version += 1
            self.desk.stage(self.item.code, self.version, self.judgment)
            self.store_drafts()
        self._refused = True
        self._update_bar()
        self._update_missing()
        shown = message.problems[:6]
        more = len(message.problems) - len(shown)
        text = "\n".join(f"• {safe_line(p)}" for p in shown)
        if more:
            text += f"\n… and {more} more (listed at the end of the scoring panel)"
        self.notify(
            text,
            title=f"Cannot submit {safe_line(message.code)} yet",
            severity="error",
            timeout=10,
            markup=False,
        )
        target = self._first_missing()
        if target is not None:
            target.focus()
        else:
            self.query_one("#missing").scroll_visible()

    @on(JudgmentSubmitted)
    def judgment_submitted(self, message: JudgmentSubmitted) -> None:
        self.submitting = False
        if self.item is None or message.code != self.item.code:
            return
        self.status = "submitted"
        self.revision = message.result.revision
        self.stored = message.judgment
        self._refused = False
        self._update_bar()
        self._update_missing()
        self.notify(
            f"{safe_line(message.code)} submitted (revision {message.result.revision}).",
            title="Submitted",
            markup=False,
        )
        after, self._after_submit = self._after_submit, None
        if after is not None:
            after()
        else:
            self._go(unfinished=True, step=1)

    # -- leaving an item --------------------------------------------------------------------
    def leave_then(self, then: Callable[[], None]) -> None:
        """Run ``then`` unless a submitted judgment has changes; then ask what to do first."""
        if (
            self.item is None
            or self.status != "submitted"
            or self.judgment == self.stored
            or self.submitting
        ):
            then()
            return

        def chosen(revision: Revision | None) -> None:
            if revision is None:
                return
            if revision.resubmit:
                self._submit(revision.reason, after=then)
            else:
                self.judgment = self.stored
                then()

        self.app.push_screen(ReviseScreen(self.item.code, allow_discard=True), chosen)

    def _go(self, step: int = 1, unfinished: bool = False, code: str | None = None) -> None:
        if self.item is None:
            return
        current = self.item.code

        def go() -> None:
            ahead = self._ahead
            if (
                ahead is not None
                and code in (None, ahead.item.code)
                and step == 1
                and (not unfinished or ahead.item.status != "submitted")
            ):
                # Read while the reviewer was on this item: shown at once, entered by a worker.
                self.post_message(self.ItemOpened(ahead, self._new_request()))
                return
            self._announce_opening()
            self.open_item(
                code,
                current=current,
                step=step,
                unfinished=unfinished,
                widths=self._widths(),
                request=self._new_request(),
            )

        self.leave_then(go)

    def _announce_opening(self) -> None:
        """Say "Opening…" in the item bar if the item takes long to arrive.

        A quick item replaces the old one in the same frame; announcing at once would cost a
        frame of its own and delay the new item to the next one.
        """

        def announce() -> None:
            # One line of fixed size: repainted without measuring the screen again.
            self.query_one("#item-bar", Static).update(Text("Opening…", style="dim"), layout=False)

        self._stop_opening()
        self._opening = self.set_timer(OPENING_NOTICE_SECONDS, announce)

    def _stop_opening(self) -> None:
        if self._opening is not None:
            self._opening.stop()
            self._opening = None

    def action_next_item(self) -> None:
        self._go(step=1)

    def action_previous_item(self) -> None:
        self._go(step=-1)

    def action_next_unfinished(self) -> None:
        self._go(step=1, unfinished=True)

    def go_to(self, code: str) -> None:
        if self.item is None or code != self.item.code:
            self._go(code=code)

    @on(NoMoreItems)
    def no_more_items(self, message: NoMoreItems) -> None:
        self._stop_opening()
        self._update_bar()
        self.notify(message.text, markup=False)

    @on(QueueEmpty)
    def queue_empty(self) -> None:
        self._stop_opening()
        self.query_one("#item-bar", Static).update(
            Text("You have no items in this study design.", style="bold")
        )

    @on(LoadFailed)
    def load_failed(self, message: LoadFailed) -> None:
        self._stop_opening()
        self.query_one("#item-bar", Static).update(
            Text.assemble(("Cannot open the item: ", "bold red"), safe_line(message.reason))
        )
        self.notify(safe_line(message.reason), title="Database", severity="error", markup=False)

    def action_queue(self) -> None:
        code = self.item.code if self.item is not None else None

        def chosen(target: str | None) -> None:
            if target is not None:
                self.go_to(target)

        self.app.push_screen(QueueScreen(self.desk, code), chosen)

    def action_home(self) -> None:
        def home() -> None:
            self.dismiss(None)

        self.leave_then(home)

    # -- reading aids -----------------------------------------------------------------------
    def action_toggle_diff(self) -> None:
        if not self.is_pair:
            self.notify("A single response has nothing to compare.", markup=False)
            return
        self.diff_on = not self.diff_on
        if self.diff_on and self.marks is None and self.item is not None:
            self.compute_diff(self.item.code, self.texts[0], self.texts[1])
        self._show_marks()
        self._update_bar()

    def action_next_change(self) -> None:
        if not self.is_pair:
            self.notify("A single response has nothing to compare.", markup=False)
            return
        if not self.diff_on:
            self.notify("The word diff is off: press d to show it.", markup=False)
            return
        if self.marks is None:
            self.notify("The word diff is still being computed.", markup=False)
            return
        hunks = self.marks.hunks
        if not hunks:
            self.notify("The two responses are identical.", markup=False)
            return
        left, right = self._panes()
        view = (left.scroll_y, right.scroll_y)
        if self.hunk_index is not None and view == self._jump_view:
            index = self.hunk_index + 1
        else:
            top = round(left.scroll_y)
            index = next(
                (i for i, h in enumerate(hunks) if left.line_of(h.left[0]) > top + 2), len(hunks)
            )
        if index >= len(hunks):
            index = 0
            if len(hunks) > 1:
                self.notify("Back to the first difference.", markup=False)
        self.hunk_index = index
        hunk = hunks[index]
        left.scroll_to_offset(hunk.left[0])
        right.scroll_to_offset(hunk.right[0])
        self._jump_view = (left.scroll_y, right.scroll_y)
        self._show_marks()
        self._update_bar()

    def action_toggle_trace(self) -> None:
        views = self._views()
        show = not views[0].showing_trace
        for view in views:
            view.show_trace(show)

    def action_toggle_task(self) -> None:
        task = self.query_one("#task", Collapsible)
        task.collapsed = not task.collapsed

    def action_scroll_responses(self, direction: int) -> None:
        pane = self._panes()[0]
        if direction > 0:
            pane.scroll_page_down(animate=False)
        else:
            pane.scroll_page_up(animate=False)

    def _sections(self) -> list[Widget]:
        """The parts of the scoring panel in order: gate, each response, preference."""
        found: list[Widget] = [self.query_one(GatePanel)]
        for position in ("1", "2") if self.is_pair else ("1",):
            found.append(self.query_one(f"#score-{position}", ResponseScoring))
        if self.is_pair:
            found.append(self.query_one(PreferencePanel))
        return found

    def action_section(self, step: int) -> None:
        if self.item is None:
            return
        sections = self._sections()
        focused = self.focused
        current = next(
            (
                i
                for i, section in enumerate(sections)
                if focused is not None and section in focused.ancestors_with_self
            ),
            -1 if step > 0 else 0,
        )
        target = sections[(current + step) % len(sections)]
        row = target.query(ChoiceRow).first()
        self.set_focus(row)
        target.scroll_visible(top=True, animate=False)

    def action_leave_field(self) -> None:
        if isinstance(self.focused, Input):
            row = next(
                (
                    w
                    for w in reversed(list(self.focus_chain))
                    if isinstance(w, ChoiceRow)
                    and self.focus_chain.index(w) < self.focus_chain.index(self.focused)
                ),
                None,
            )
            self.set_focus(row)

    # -- findings ---------------------------------------------------------------------------
    def action_finding(self) -> None:
        if self.item is not None:
            self.choose_finding_id(self.item.code)

    @work(thread=True, exclusive=True, group="compare-finding", description="Reading findings")
    def choose_finding_id(self, code: str) -> None:
        try:
            taken = self.desk.finding_ids()
        except _STORE_ERRORS as exc:
            self.post_message(self.LoadFailed(str(exc)))
            return
        base = f"F-{code}"
        candidate, n = base, 1
        while candidate in taken:
            n += 1
            candidate = f"{base}-{n}"
        self.post_message(self.FindingIdChosen(code, candidate))

    @on(FindingIdChosen)
    def finding_id_chosen(self, message: FindingIdChosen) -> None:
        if self.item is None or message.code != self.item.code:
            return
        code = message.code

        def chosen(new: NewFinding | None) -> None:
            if new is not None:
                self.record_finding(code, new.finding, new.positions)

        self.app.push_screen(FindingScreen(message.finding_id, pair=self.is_pair), chosen)

    @work(thread=True, group="compare-save", description="Recording a finding")
    def record_finding(self, code: str, finding: Finding, positions: tuple[str, ...]) -> None:
        try:
            revision = self.desk.record_finding(code, finding, positions)
        except _STORE_ERRORS as exc:
            self.post_message(self.SaveFailed(str(exc)))
            return
        self.post_message(self.FindingRecorded(finding.id, revision))

    @on(FindingRecorded)
    def finding_recorded(self, message: FindingRecorded) -> None:
        what = "recorded" if message.revision == 1 else f"revised (revision {message.revision})"
        self.notify(f"Finding {safe_line(message.finding_id)} {what}.", markup=False)

    # -- status -----------------------------------------------------------------------------
    def _missing(self) -> list[str]:
        if self.item is None:
            return []
        positions = [str(i + 1) for i in range(len(self.item.responses))]
        return problems(self.item.rubric, self.judgment, positions, self.is_pair)

    def _first_missing(self) -> Widget | None:
        if self.item is None:
            return None
        candidates: list[Widget | None] = [self.query_one(GatePanel).first_missing()]
        for position in ("1", "2") if self.is_pair else ("1",):
            candidates.append(self.query_one(f"#score-{position}", ResponseScoring).first_missing())
        if self.is_pair:
            candidates.append(self.query_one(PreferencePanel).first_missing())
        return next((c for c in candidates if c is not None), None)

    def _update_missing(self) -> None:
        """The end of the scoring panel: what a submission still lacks, once one was refused.

        Before that it holds a fixed hint (the item bar counts what is missing): the list
        changes with nearly every key, and re-measuring the screen for it each time would slow
        fast scoring down.
        """
        box = self.query_one("#missing", Static)
        missing = self._missing()
        box.set_class(self._refused and bool(missing), "-refused")
        if self.status == "submitted" and self.judgment == self.stored:
            text = Text(
                f"Submitted (revision {self.revision}). Changing it is a revised submission "
                "and asks for a reason.",
                style="bold",
            )
        elif not missing:
            text = Text("Complete: press s to submit.", style="bold")
        elif self._refused:
            text = Text(f"Still needed before submitting ({len(missing)}):\n", style="bold")
            text.append("\n".join(f"• {safe_line(p)}" for p in missing), style="")
        else:
            text = Text(
                "Press s to submit. Anything still missing is listed here then.", style="dim"
            )
        if text.plain != self._missing_shown:
            self._missing_shown = text.plain
            box.update(text)

    def _update_bar(self) -> None:
        item = self.item
        bar = self.query_one("#item-bar", Static)
        if item is None:
            return
        parts: list[Text] = [
            Text(safe_line(item.code), style="bold"),
            Text(f"item {item.index + 1} of {item.total}"),
            Text("pair" if self.is_pair else "single response"),
        ]
        if self.status == "submitted":
            status = Text(f"submitted (revision {self.revision})", style="bold green")
            if self.judgment != self.stored:
                status.append("  · changed: s resubmits with a reason", style="bold yellow")
        elif self.status == "submitting":
            status = Text("submitting…", style="bold")
        elif self.save_error is not None:
            status = Text("NOT SAVED: " + safe_line(self.save_error)[:80], style="bold red")
        elif self.version > self.stored_version:
            status = Text("● saving draft…", style="yellow")
        elif self.status == "draft":
            status = Text(f"✓ draft saved (revision {self.revision})", style="green")
        else:
            status = Text("not started")
        parts.append(status)
        missing = len(self._missing())
        if self.status != "submitted":
            parts.append(
                Text(f"{missing} to do before submitting", style="dim")
                if missing
                else Text("ready to submit (s)", style="bold")
            )
        if item.seconds_spent >= 1:
            parts.append(Text(f"time so far {_duration(item.seconds_spent)}", style="dim"))
        if self.is_pair:
            if not self.diff_on:
                parts.append(Text("diff off (d)", style="dim"))
            elif self.marks is None:
                parts.append(Text("diff: computing…", style="dim"))
            else:
                n = len(self.marks.hunks)
                diff = Text(f"diff: {n} change{'s' if n != 1 else ''}")
                if self.hunk_index is not None and n:
                    diff.append(f" (at {self.hunk_index + 1})")
                parts.append(diff)
        line = Text("  ·  ").join(parts)
        if self.title_text:
            line = Text.assemble(Text(safe_line(self.title_text), style="dim"), "  │  ", line)
        bar.update(line, layout=False)


def open_judging(
    app: App[None],
    db_path: object,
    reviewer: str,
    design_pk: int | None,
    *,
    include_open: bool = False,
    study: str | None = None,
) -> None:
    """Open the compare screen on ``design_pk`` (None: the reviewer's best design, if any).

    Unasked (``include_open`` False, at start-up) only designs that name the reviewer or that
    they already joined are opened; ``study`` limits the choice to one study's designs.

    The designs are read in a worker thread; with none to judge nothing happens (``design_pk``
    None) or the reviewer is told (a design was asked for).
    """
    from pathlib import Path

    path = Path(str(db_path))
    if design_pk is None and isinstance(app.screen, CompareScreen | QueueScreen):
        return

    def find() -> None:
        try:
            designs = judgeable_designs(path, reviewer)
        except _STORE_ERRORS as exc:
            if design_pk is not None:
                app.call_from_thread(
                    app.notify, safe_line(str(exc)), severity="error", markup=False
                )
            return
        if design_pk is not None:
            chosen = [d for d in designs if d.pk == design_pk]
        else:
            # Opening an open design enrols its reviewer, which must be their own choice (an
            # adjudicator who was enrolled could no longer adjudicate items they have not judged).
            chosen = [
                d
                for d in designs
                if (include_open or d.assigned or d.joined)
                and (study is None or d.study_id == study)
            ]
        if not chosen:
            if design_pk is not None or include_open:
                app.call_from_thread(
                    app.notify,
                    f"{safe_line(reviewer)} cannot judge that study design.",
                    severity="warning",
                    markup=False,
                )
            return
        app.call_from_thread(_push, app, Desk(path, chosen[0].pk, reviewer))

    app.run_worker(find, thread=True, exclusive=True, group="open-judging")


def _push(app: App[None], desk: Desk) -> None:
    while isinstance(app.screen, CompareScreen | QueueScreen):
        app.pop_screen()
    app.push_screen(CompareScreen(desk))
