"""The compare screen: one blind item at a time, judged from the keyboard.

Left: the task (collapsible; ``ctrl+t`` reads it in full in the responses' place) and the
responses side by side, scrolled together, with their word diff (``ResponsePair``). Right: the
judgment form (the validity gate, each response's rubric scoring, the pair's preference) and what
a submission still lacks. The screen wires these together; the parts live elsewhere:

- moving between items and reading the next one ahead: :mod:`abp_tui.tui.navigation`;
- the workers that open, read ahead and diff items: :mod:`abp_tui.tui.reading`;
- where a draft is saved, and a submission (staged on the desk, stored by a worker), with what
  the item bar says about it, a refused save retried, and the question before leaving one:
  :mod:`abp_tui.tui.drafts`;
- holding back text typed outside a text field: :mod:`abp_tui.tui.typing_shield`;
- the diff's helper process and the garbage-collector freeze: :mod:`abp_tui.tui.responsive`;
- what the workers report: :mod:`abp_tui.tui.messages`;
- the automated judge's outcome, read once the reviewer has submitted the item (on submission
  and when a submitted item is opened, never while reading ahead):
  :mod:`abp_tui.tui.widgets.automated_judge`;
- the AI judges' verdicts on an item, read on the same occasions and shown only when the
  design sets ``show_ai_after_submit``, by the positions this reviewer saw and masked:
  :mod:`abp_tui.tui.widgets.ai_verdicts`;
- the responses' transcripts (read when a Trace tab is shown), searching the outputs or the
  transcripts shown, and folding a transcript's long blocks: :mod:`abp_tui.tui.reading_aids`.

The screen never runs SQL and never shows which run, condition, engine, model or provider a
response comes from: it only has what the review session's blind item carries.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Header, Input, Static

from abp_tui.models import Judgment
from abp_tui.services.desk import Desk
from abp_tui.services.reviewing import BlindItem
from abp_tui.text.safe import safe_line
from abp_tui.tui.commands import CompareCommands
from abp_tui.tui.drafts import SAVE_GROUP, Drafts
from abp_tui.tui.messages import (
    AutomatedOutcomeRead,
    DiffComputed,
    DraftsStored,
    ItemEntered,
    ItemOpened,
    ItemReadAhead,
    JudgmentSubmitted,
    QueueEndReached,
    QueueFoundEmpty,
    SubmissionRefused,
    TranscriptsRead,
    WorkerFailed,
)
from abp_tui.tui.navigation import Move, Navigator, ShownItem
from abp_tui.tui.opening import FirstItem, breakpoint_classes
from abp_tui.tui.reading import ENTER_GROUP, OPEN_GROUP, ItemReader
from abp_tui.tui.reading_aids import HELP_HINTS, READING_BINDINGS, ReadingAids
from abp_tui.tui.responsive import LongLived
from abp_tui.tui.screen_keys import previous_field_key, screen_binding, task_key, trace_key
from abp_tui.tui.screens.unsaved import report_lost
from abp_tui.tui.typing_shield import NARROW_WIDTH, HoldsBackTyping, TakesTurns, TypingShield
from abp_tui.tui.widgets import ai_verdicts
from abp_tui.tui.widgets.ai_verdicts import AiVerdictsPanel
from abp_tui.tui.widgets.automated_judge import AutomatedJudgePanel, summary
from abp_tui.tui.widgets.choices import ChoiceRow
from abp_tui.tui.widgets.item_bar import ItemBar
from abp_tui.tui.widgets.judgment_form import JudgmentForm
from abp_tui.tui.widgets.keybar import APP_SCREEN_KEYS, KeyBar
from abp_tui.tui.widgets.response_pair import ResponsePair
from abp_tui.tui.widgets.search_bar import SearchBar
from abp_tui.tui.widgets.task_panel import TaskPanel
from abp_tui.tui.workers import EXPECTED_ERRORS

if TYPE_CHECKING:  # the dialogs are imported when first opened
    from abp_tui.tui.screens.revise import Revision

COORDINATOR_KEYS = APP_SCREEN_KEYS
"""App keys left out of the compare screen's key bar (it has room for the judging keys only)."""


_binding = partial(screen_binding, "compare")
"""A compare-screen key; its id (for remapping) is ``compare.`` + ``name`` or the action."""


class CompareScreen(HoldsBackTyping, TakesTurns, Screen[None]):
    """Judge the items of one study design, one blind item at a time."""

    FORM_PANEL = "#scoring"

    CSS_PATH = "../styles/compare.tcss"
    COMMANDS: ClassVar = {CompareCommands}
    # Below NARROW_WIDTH columns the scoring form and the responses take turns on the whole
    # width (o switches); on a short terminal the task and the header make room for the text.
    # (Textual declares both as instance variables, so they cannot be marked ClassVar here.)
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (NARROW_WIDTH, "-roomy")]  # noqa: RUF012
    VERTICAL_BREAKPOINTS = [(0, "-short"), (30, "-tall")]  # noqa: RUF012
    BINDINGS: ClassVar[list[BindingType]] = [
        _binding(
            "o",
            "toggle_form",
            "Form",
            "Narrow terminal: show the scoring form, or the responses again (one at a time).",
        ),
        _binding(
            "tab",
            "app.focus_next",
            "Next field",
            "Move to the next row or field (resolved at once, like the scoring keys).",
            key_display="tab",
            priority=True,
            name="next_field",
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
        trace_key("compare"),
        *READING_BINDINGS,
        task_key("compare"),
        _binding("f", "finding", "Finding", "Record a fault of this item's task or its test."),
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
            "shift+down,pagedown",
            "scroll_responses(1)",
            "Scroll down",
            "Scroll the responses down a page (they move together), the transcripts when "
            "the Trace tabs are open, or the task read in full (ctrl+t).",
            show=False,
            priority=True,
            name="scroll_down",
        ),
        _binding(
            "shift+up,pageup",
            "scroll_responses(-1)",
            "Scroll up",
            "Scroll the responses (or transcripts, or the task read in full) up a page.",
            show=False,
            priority=True,
            name="scroll_up",
        ),
        _binding("h", "home", "Home", "Back to the list of studies (asks first if a save failed)."),
        previous_field_key("compare"),
        _binding(
            "escape",
            "leave_field",
            "Leave field",
            "Leave a text field so single keys act again.",
            show=False,
        ),
    ]

    HELP_HINTS: ClassVar[tuple[str, ...]] = HELP_HINTS
    """Lines the help screen shows below the keys."""

    READ_AHEAD: ClassVar[bool] = True
    """Read the next item while the reviewer is on this one, so the next-item key shows it at
    once (``abp-tui bench ui`` also measures without it)."""

    def __init__(
        self, desk: Desk, code: str | None = None, *, first: FirstItem | None = None
    ) -> None:
        super().__init__()
        self.desk = desk
        self.start_code = code
        self.item: BlindItem | None = None
        self.navigator = Navigator(read_ahead=self.READ_AHEAD)
        self.reader = ItemReader(self, desk)
        self.drafts = Drafts(self, desk)
        self.shield = TypingShield(self, self)
        self.shield.wait_for_form()  # keys typed before the first item's form is there wait
        self.long_lived = LongLived()
        # The parts the screen talks to, made here so that it never has to look them up.
        self.bar = ItemBar()
        self.task_panel = TaskPanel(collapsed=False)
        self.pair = ResponsePair(full_transcripts=True)
        self.search_bar = SearchBar("search the responses shown", id="search-bar")
        self.aids = ReadingAids(self, desk, self.pair, self.search_bar)
        self.form = JudgmentForm(id="form")
        self.automated_panel = AutomatedJudgePanel()
        self.ai_panel = AiVerdictsPanel(desk)
        self.first = first
        """At start-up: the first item, read before the screen was pushed (or being read)."""
        self._missing_shown = ""
        self._resumed = False

    # -- layout -----------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        # The classes its first layout would give it, given before its widgets are styled: that
        # layout restyles none of them.
        breakpoints = (self.HORIZONTAL_BREAKPOINTS, self.VERTICAL_BREAKPOINTS)
        self.add_class(*breakpoint_classes(self.app.size, *breakpoints))
        if self.first is not None and self.first.shown is not None:
            self._set_item_classes(self.first.shown)
        yield Header()
        yield self.bar
        with Horizontal(id="workspace"):
            with Vertical(id="reading"):
                yield self.task_panel
                yield self.pair
                yield self.search_bar
            with VerticalScroll(id="scoring"):
                yield self.form
                yield Static("", id="missing")
                yield self.automated_panel
                yield self.ai_panel
        # The coordinator's screens stay on their keys and in the palette, not in this bar.
        yield KeyBar(
            hide=COORDINATOR_KEYS, first=("toggle_form", "submit", "next_item", "task_in_full")
        )

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        if not self._resumed:
            # Pushed: every widget was styled as it was mounted, with the classes it has now
            # (compose gives them before its widgets are styled): styling them again changes
            # nothing, for a sixth of the first paint. Shown again, it is restyled as usual.
            self._resumed = True
            event.refresh_styles = False
        super()._on_screen_resume(event)

    def on_mount(self) -> None:
        self.query_one("#scoring", VerticalScroll).can_focus = False
        first = self.first
        if first is None:
            self.reader.open(self.start_code, self.navigator.new_request())
        elif first.read_done:
            self.first_item_read(first)
        else:
            first.waiting = self  # pushed before its first item was read: shown once read

    def first_item_read(self, first: FirstItem) -> None:
        """The first item, read before this screen was pushed or since (on the app's thread)."""
        self.first = None
        if first.shown is None:  # nothing to judge, or it could not be read: read it here
            self.reader.open(self.start_code, self.navigator.new_request())
            return
        self.reader.title = first.title
        self._first_texts(ItemOpened(first.shown, self.navigator.new_request()))

    def on_resize(self) -> None:  # the header comes and goes with the height: the names move
        self.call_after_refresh(self.bar.on_resize)

    def on_unmount(self) -> None:
        self.long_lived.thaw()
        self.reader.close()
        # Typing staged while waiting for its pause is stored now, before the connection closes.
        try:
            self.desk.close()
        except EXPECTED_ERRORS as exc:
            # Leaving asked first; the app closed another way, or the store refused once more.
            report_lost(self.app, f"a draft was not saved: {exc}")

    @property
    def is_pair(self) -> bool:
        return self.item is not None and len(self.item.responses) > 1

    # -- typing outside a text field (abp_tui.tui.typing_shield) ----------------------------
    def restore_judgment(self, before: Judgment) -> None:
        """Put back what the form held before a letter that was the start of typing."""
        if self.item is None:
            return
        self.form.load(before, self.item.responses, self.item.task.fatal_criteria)
        if self.drafts.change(before, urgent=True):
            self._update_bar()
            self._update_missing()

    # -- opening items (read by abp_tui.tui.reading) ---------------------------------------
    def _read_ahead(self) -> None:
        """Prepare the next item while the reviewer reads this one (after this paint)."""
        if self.item is not None and self.navigator.wants_reading_ahead():
            self.reader.read_ahead(self.item.code, self.pair.widths(), self.pair.diff_on)

    @on(ItemReadAhead)
    def item_read_ahead(self, message: ItemReadAhead) -> None:
        # Kept while its item is current: showing any item clears it.
        self.navigator.offer(message.after, message.shown)

    @on(ItemEntered)
    def item_entered(self, message: ItemEntered) -> None:
        item = self.item
        # Drafts stored here are reported before this message: a newer revision is another's.
        if item is None or item.code != message.code or message.revision <= self.drafts.revision:
            return
        # Judged elsewhere since it was read ahead (another window, a merged pack): read again.
        pair = self.pair
        self.reader.open(message.code, self.navigator.new_request(), pair.widths(), pair.diff_on)

    @on(ItemOpened)
    async def item_opened(self, message: ItemOpened) -> None:
        if not self.navigator.is_latest(message.request):
            # Another key asked for another item since. Opening this one moved the reviewer's
            # place to it: put it back on the item shown (its clock keeps running).
            if self.item is not None and message.shown.item.code != self.item.code:
                self.reader.enter(self.item.code, restart_clock=False)
            return
        if self.form.rubric is None:
            self._first_texts(message)
            return
        await self._show_item(message)

    def _first_texts(self, message: ItemOpened) -> None:
        # The first item: its texts are drawn before the form is built (the form's many
        # widgets are most of a paint's layout); keys typed meanwhile wait for the form.
        self._show_texts(message.shown)
        self.call_after_refresh(self._show_item, message, texts_shown=True)
        # The diff process starts once the texts are drawn (a pair's diff starts it too).
        self.call_after_refresh(self.reader.warm_up)

    def _set_item_classes(self, shown: ShownItem) -> None:
        item = shown.item
        self.set_class(len(item.responses) < 2, "-single")
        self.set_class(item.rubric.preference_only, "-preference-only")

    def _show_texts(self, shown: ShownItem) -> None:
        self._set_item_classes(shown)
        self.task_panel.show(shown.item.task)
        self.pair.show(shown.item.responses, shown.texts, shown.wrapped, shown.marks)

    async def _show_item(self, message: ItemOpened, *, texts_shown: bool = False) -> None:
        self.bar.arrived()
        item = message.shown.item
        self.navigator.arrived(item.code)
        if message.shown.read_ahead:
            self.reader.enter(item.code)
        form = self.form
        if await form.build(item.rubric, item.timing_rule):
            self.shield.keys_changed()  # the rows bring their keys
            self.call_after_refresh(self.long_lived.freeze)
        self.item = item
        self.drafts.load(item)
        self.automated_panel.clear()
        self.ai_panel.clear()
        if item.status == "submitted":
            self.reader.automated(item.code, submitted_now=False)
            self.ai_panel.read(item.code, submitted_now=False)
        pair = self.pair
        if not texts_shown:
            self._show_texts(message.shown)
        self.aids.item_shown(item.code)
        form.load(item.judgment, item.responses, item.task.fatal_criteria)
        self.task_panel.read_in_full(False, refocus=False)  # a new item: its responses first
        first = form.first_row()
        target = form.first_missing() or first
        target.focus(scroll_visible=False)
        self.show_form(False)  # a new item is read first (on a narrow terminal)
        scoring = self.query_one("#scoring", VerticalScroll)
        if target is first:
            scoring.scroll_home(animate=False)
        else:
            scoring.call_after_refresh(target.scroll_visible, animate=False)
        if pair.is_pair and pair.diff_on and pair.marks is None:
            # Started once the texts are drawn: it does not slow this item's first paint.
            self.call_after_refresh(self._diff_current, item.code)
        else:
            pair.show_marks()
            self.call_after_refresh(self._read_ahead)
        self._update_bar()
        self._update_missing()
        self.shield.form_ready()  # after the focus is on its row (both go through the app)

    @on(QueueEndReached)
    def queue_end_reached(self, message: QueueEndReached) -> None:
        self.bar.arrived()
        self._update_bar()
        self.notify(message.text, markup=False)

    @on(QueueFoundEmpty)
    def queue_found_empty(self) -> None:
        self.bar.say(Text("You have no items in this study design.", style="bold"))
        self.shield.form_ready()  # there will be no form: the keys that waited act now

    @on(WorkerFailed)
    def worker_failed(self, message: WorkerFailed) -> None:
        # The app shows the failure itself; here it is kept in the item bar.
        if message.group in (OPEN_GROUP, ENTER_GROUP):
            if self.item is None:
                self.shield.form_ready()  # no form to wait for
            self.bar.say(
                Text.assemble(("Cannot open the item: ", "bold red"), safe_line(message.reason))
            )
        elif message.group == SAVE_GROUP:
            if not self.drafts.failed(message.reason, retryable=message.retryable):
                message.stop()  # a retry failed again: the item bar says so, not another notice
            self._update_bar()

    # -- the word diff (computed by abp_tui.tui.reading) ------------------------------------
    def _diff_current(self, code: str) -> None:
        pair = self.pair
        if self.item is not None and self.item.code == code and pair.marks is None:
            self.reader.diff(code, pair.texts[0], pair.texts[1])

    @on(DiffComputed)
    def diff_computed(self, message: DiffComputed) -> None:
        if self.item is None or message.code != self.item.code:
            return
        self.pair.set_marks(message.marks)
        self._update_bar()
        self.call_after_refresh(self._read_ahead)

    # -- changes, drafts and submitting (stored by abp_tui.tui.drafts) -----------------------
    @on(JudgmentForm.Changed)
    def judgment_changed(self, event: JudgmentForm.Changed) -> None:
        # A key's decision: a letter's stays tentative for a moment (the typing guard).
        self.shield.judgment_changed(event.urgent)
        if self.drafts.change(event.judgment, urgent=event.urgent):
            self._update_bar()
            self._update_missing()

    @on(Input.Blurred)
    def field_left(self) -> None:
        self.drafts.field_left()

    @on(DraftsStored)
    def drafts_stored(self, message: DraftsStored) -> None:
        after = self.drafts.stored_now(message.stored)
        self._update_bar()
        if after is not None:
            after()  # a leave that waited for the save

    def action_save(self) -> None:
        if self.item is not None and not self.drafts.save_now():
            self.notify(
                "This item is submitted: a change is a revised submission (press s).",
                markup=False,
            )

    def action_submit(self) -> None:
        drafts = self.drafts
        if self.item is None or drafts.submitting:
            return
        if drafts.status == "submitted":
            if drafts.judgment == drafts.stored:
                self.notify(
                    "Already submitted. Change a decision first; a revised submission asks "
                    "for a reason.",
                    markup=False,
                )
                return
            from abp_tui.tui.screens.revise import ReviseScreen

            self.app.push_screen(
                ReviseScreen(self.item.code, allow_discard=False), self._revision_chosen
            )
            return
        self._submit("")

    def _revision_chosen(self, revision: Revision | None) -> None:
        if revision is not None and revision.resubmit:
            self._submit(revision.reason)

    def _submit(self, reason: str, after: Callable[[], None] | None = None) -> None:
        if self.item is not None:
            self.drafts.submit(reason, after)
            self._update_bar()

    @on(SubmissionRefused)
    def submission_refused(self, message: SubmissionRefused) -> None:
        current = self.drafts.submission_refused(message)
        shown = message.problems[:6]
        text = "\n".join(f"• {safe_line(p)}" for p in shown)
        more = len(message.problems) - len(shown)
        if current and more:
            text += f"\n… and {more} more (listed at the end of the scoring panel)"
        code, verb = safe_line(message.code), {"submitted": "revise"}.get(message.before, "submit")
        title = f"Cannot {verb} {code}" if current else f"{code} was not submitted"
        self.notify(text, title=title, severity="error", timeout=10, markup=False)
        if not current:
            return  # the reviewer moved on meanwhile: the decisions were kept as a draft
        self._update_bar()
        self._update_missing()
        target = self.form.first_missing()
        if target is not None:
            target.focus()
        else:
            self.query_one("#missing").scroll_visible()

    @on(JudgmentSubmitted)
    def judgment_submitted(self, message: JudgmentSubmitted) -> None:
        if not self.drafts.submitted(message):
            return
        self.reader.automated(message.code, submitted_now=True)
        self.ai_panel.read(message.code, submitted_now=True)
        self._update_bar()
        self._update_missing()
        self.notify(
            f"{safe_line(message.code)} {'re' if self.drafts.resubmitted else ''}submitted.",
            title="Submitted",
            markup=False,
        )
        after = self.drafts.take_after()
        if after is not None:
            after()
        else:
            self._go(Move(unfinished=True))

    # -- the automated judge, once submitted (read by abp_tui.tui.reading) -----------------
    @on(AutomatedOutcomeRead)
    def automated_read(self, message: AutomatedOutcomeRead) -> None:
        if not message.outcomes:  # not revealed yet, or nothing was scored
            return
        item = self.item
        if item is not None and item.code == message.code and self.drafts.status == "submitted":
            self.automated_panel.show(message.code, message.outcomes)
        if message.submitted_now:
            self._judge_notice(summary(message.code, message.outcomes), "Automated judge")

    def _judge_notice(self, text: str, title: str) -> None:
        """A judge's notice on the item just submitted: it lies over the next item's responses,
        which fill a narrow terminal, so there it goes sooner (the item's panel keeps it all)."""
        wide = self.size.width >= NARROW_WIDTH
        self.notify(text, title=title, markup=False, timeout=10 if wide else 4)

    # -- the AI judges, once submitted (read by abp_tui.tui.widgets.ai_verdicts) -------------
    @on(AiVerdictsPanel.Read)
    def ai_verdicts_read(self, message: AiVerdictsPanel.Read) -> None:
        if not message.rows:  # not theirs to see (not submitted, or the design hides them)
            return
        item = self.item
        if item is not None and item.code == message.code and self.drafts.status == "submitted":
            self.ai_panel.show(message.code, message.rows)
        if message.submitted_now:
            self._judge_notice(ai_verdicts.summary(message.code, message.rows), "AI judges")

    # -- leaving an item (where to: abp_tui.tui.navigation) ---------------------------------
    def leave_then(self, then: Callable[[], None]) -> None:
        """Run ``then`` unless a draft is not saved or a submitted judgment has changes; then
        ask what to do first."""
        if self.drafts.ask_before_leaving(lambda: self.leave_then(then)):
            return
        if self.item is None or not self.drafts.unsubmitted_changes:
            then()
            return

        def chosen(revision: Revision | None) -> None:
            if revision is None:
                return
            if revision.resubmit:
                self._submit(revision.reason, after=then)
            else:
                self.drafts.discard()
                then()

        from abp_tui.tui.screens.revise import ReviseScreen

        self.app.push_screen(ReviseScreen(self.item.code, allow_discard=True), chosen)

    def _go(self, move: Move) -> None:
        if self.item is None:
            return
        current = self.item.code

        def go() -> None:
            navigator = self.navigator
            ahead = navigator.ahead_for(move)
            if ahead is not None:
                # Read while the reviewer was on this item: shown at once, entered by a worker.
                self.post_message(ItemOpened(ahead, navigator.new_request()))
                return
            self.bar.opening()
            pair = self.pair
            self.reader.open(
                None, navigator.new_request(), pair.widths(), pair.diff_on, after=current, move=move
            )

        self.leave_then(go)

    def action_next_item(self) -> None:
        self._go(Move(step=1))

    def action_previous_item(self) -> None:
        self._go(Move(step=-1))

    def action_next_unfinished(self) -> None:
        self._go(Move(step=1, unfinished=True))

    def go_to(self, code: str) -> None:
        if self.item is None or code != self.item.code:
            self._go(Move(code=code))

    def action_queue(self) -> None:
        code = self.item.code if self.item is not None else None

        def chosen(target: str | None) -> None:
            if target is not None:
                self.go_to(target)

        from abp_tui.tui.screens.queue import QueueScreen  # with the queue's first opening

        self.app.push_screen(QueueScreen(self.desk, code), chosen)

    def action_home(self) -> None:
        def home() -> None:
            self.dismiss(None)

        self.leave_then(home)

    # -- reading aids -----------------------------------------------------------------------
    def action_toggle_diff(self) -> None:
        pair = self.pair
        if not pair.is_pair:
            self.notify("A single response has nothing to compare.", markup=False)
            return
        pair.toggle_diff()
        if pair.diff_on and pair.marks is None and self.item is not None:
            self.reader.diff(self.item.code, pair.texts[0], pair.texts[1])
        self._update_bar()

    def action_next_change(self) -> None:
        self.task_panel.read_in_full(False)  # the change is shown in the responses
        notice = self.pair.next_change()
        if notice is not None:
            self.notify(notice, markup=False)
        self._update_bar()

    def action_toggle_trace(self) -> None:
        self.task_panel.read_in_full(False)  # the traces are shown in the responses' place
        self.pair.toggle_trace()

    def action_toggle_task(self) -> None:
        self.task_panel.toggle()

    def action_task_in_full(self) -> None:
        """The whole task in the responses' place, with the focus, or the responses again."""
        panel = self.task_panel
        if self.item is None:
            return
        if not panel.full:
            self.show_form(False)  # a narrow terminal shows the texts' column
        panel.read_in_full(not panel.full)

    # -- transcripts, search and folds (abp_tui.tui.reading_aids) ---------------------------
    @on(ResponsePair.TranscriptsWanted)
    def transcripts_wanted(self) -> None:
        if self.item is not None:
            self.aids.read(self.item.code)

    @on(TranscriptsRead)
    def transcripts_read(self, message: TranscriptsRead) -> None:
        if self.item is not None and message.code == self.item.code:
            self.pair.show_transcripts(message.shown)

    @on(SearchBar.Submitted)
    def search_submitted(self, message: SearchBar.Submitted) -> None:
        self.aids.search(message.query)

    @on(SearchBar.Closed)
    def search_closed(self) -> None:
        self.aids.search("")

    @on(ResponsePair.SearchChanged)
    def search_changed(self) -> None:
        self.aids.show_status()

    def action_search(self) -> None:
        self.aids.open_search()

    def action_next_hit(self, step: int) -> None:
        self.aids.next_hit(step)

    def action_jump_hit(self, step: int) -> None:
        self.aids.next_hit(step)

    @property
    def searching(self) -> bool:
        """Whether a search is on: ``n`` / ``N`` then jump between its hits (even on a gate row)."""
        return self.aids.searching

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # n / N belong to the search only while one is on; otherwise n is the gate's key.
        if action == "jump_hit":
            return self.searching
        if action == "toggle_form":
            return self.narrow
        return True

    # -- a narrow terminal: the responses and the form take turns ------------------------------
    def action_fold(self) -> None:
        self.aids.fold(every=False)

    def action_fold_all(self) -> None:
        self.aids.fold(every=True)

    def action_scroll_responses(self, direction: int) -> None:
        if self.narrow and self.form_shown:  # the form is what is on screen
            scoring = self.query_one("#scoring", VerticalScroll)
            scoring.scroll_page_down() if direction > 0 else scoring.scroll_page_up()
            return
        if self.task_panel.full:  # the task is in the responses' place
            self.task_panel.scroll_page(direction)
            return
        self.pair.scroll_page(direction)

    def action_section(self, step: int) -> None:
        if self.item is not None:
            self.form.focus_section(step)

    def action_leave_field(self) -> None:
        # The task read in full gives the responses back (a narrow terminal's form: texts first).
        texts_shown = not (self.narrow and self.form_shown)
        if not isinstance(self.focused, Input) and self.task_panel.full and texts_shown:
            self.task_panel.read_in_full(False)
            return
        if not isinstance(self.focused, Input) and self.narrow:
            self.show_form(False)  # back to the responses
            return
        if isinstance(self.focused, Input):
            chain = list(self.focus_chain)
            before = chain[: chain.index(self.focused)]
            row = next((w for w in reversed(before) if isinstance(w, ChoiceRow)), None)
            self.set_focus(row)

    # -- findings (recorded by the finding dialog) ----------------------------------------------
    def action_finding(self) -> None:
        if self.item is not None:
            from abp_tui.tui.screens.finding import FindingScreen

            self.app.push_screen(FindingScreen(self.desk, self.item.code, pair=self.is_pair))

    # -- status (what the judgment's state reads as: abp_tui.tui.drafts) --------------------
    def _update_missing(self) -> None:
        box = self.query_one("#missing", Static)
        missing = self.form.missing()
        box.set_class(self.drafts.refused and bool(missing), "-refused")
        text = self.drafts.missing_text(missing)
        # Unchanged text is not set again: an update measures the whole screen.
        if text.plain != self._missing_shown:
            self._missing_shown = text.plain
            box.update(text)

    def _update_bar(self) -> None:
        if self.item is not None:
            drafts = self.drafts
            self.bar.show_item(
                self.item,
                title=self.reader.title,
                status=drafts.status_text(),
                missing=None if drafts.status == "submitted" else len(self.form.missing()),
                diff=self.pair.diff_summary(),
            )
