"""The adjudication screen: a disputed item, every reviewer's judgment, and the final judgment.

Left: the task and the two responses, blind and swapped (the reverse of the placement the first
reviewer saw), above each reviewer's judgment side by side in this screen's positions, where the
rows that differ are marked (:mod:`abp_tui.tui.widgets.judgments_table`). Reviewers are
"Reviewer 1", "Reviewer 2" in the order they submitted; a key shows their names, and whether
names were shown is recorded with the adjudication. Right: the final judgment (the judgment
form the compare screen uses) and a mandatory note. Recording (``s``, never Enter in the note:
Enter in a text field is text) appends an adjudication; the reviewers' judgments are never
changed. The Trace tabs (``r``) show the compare screen's full transcripts, masked and swapped
like the outputs, searchable with ``/``, ``n``, ``N`` (:mod:`abp_tui.tui.adjudication_reading`).

An adjudicator who is a reviewer of the item and has not submitted is refused (the core's
BlindingError) and sees nothing of the others' judgments; so is one who reviewed it, or whom a
design naming its adjudicators does not name (NotAnAdjudicator), with the reason in one line.
The screen never runs SQL; the coordinator functions it calls run in worker threads.

The final judgment and the note exist only on this screen until they are recorded. A recording
the database refused (busy, read-only, full) is tried again after a growing delay
(:mod:`abp_tui.tui.retrying`), with what the form holds then; leaving with anything unrecorded
(another item, the list, quitting) asks first (:mod:`abp_tui.tui.screens.unsaved`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Header, Input, Static
from textual.worker import get_current_worker

from abp_tui.errors import AbpError
from abp_tui.models import Judgment
from abp_tui.services.adjudicating import NotAnAdjudicator
from abp_tui.services.adjudication_transcripts import AdjudicationTranscripts
from abp_tui.services.coordinator import (
    AdjudicationItem,
    BlindingError,
    DesignChoice,
    open_adjudication,
    record_adjudication,
)
from abp_tui.text.safe import safe_line
from abp_tui.tui.adjudication_keys import ADJUDICATION_KEYS
from abp_tui.tui.adjudication_reading import FOLD_KEY, HELP_HINT, AdjudicationReading
from abp_tui.tui.messages import (
    AdjudicationRefused,
    DisagreementOpened,
    DisagreementWithheld,
    ItemAdjudicated,
    WorkerFailed,
)
from abp_tui.tui.navigation import CodeList
from abp_tui.tui.reading_aids import ReadingAids
from abp_tui.tui.retrying import Retry
from abp_tui.tui.screens.base import DesignScreen
from abp_tui.tui.screens.unsaved import Leaving, UnsavedScreen
from abp_tui.tui.typing_shield import NARROW_WIDTH, HoldsBackTyping, TakesTurns, TypingShield
from abp_tui.tui.widgets.choices import ChoiceRow, FieldEcho
from abp_tui.tui.widgets.item_bar import fitted
from abp_tui.tui.widgets.judgment_form import JudgmentForm
from abp_tui.tui.widgets.judgments_table import SWAPPED, THEIR_TERMS, judgments_table, past_text
from abp_tui.tui.widgets.keybar import APP_SCREEN_KEYS, KeyBar
from abp_tui.tui.widgets.response_pair import ResponsePair
from abp_tui.tui.widgets.search_bar import SearchBar
from abp_tui.tui.widgets.task_panel import TaskPanel
from abp_tui.tui.widgets.textlayout import display_text
from abp_tui.tui.workers import EXPECTED_ERRORS, RETRYABLE_ERRORS, background

NOTE_REQUIRED = "A note is required: say why this is the final judgment."
NOTE_PROMPT = "Why this is the final judgment (required)"
NOTE_FROM_JUSTIFICATION = "Optional (blank: the justification is the note)"
NOTE_REVISION = "Why you revise the final judgment (required)"
JUDGMENTS_IN_FULL = "w: in full"
JUDGMENTS_BACK = "↑ ↓ PgUp PgDn scroll · w or Esc: the responses"
OPEN_GROUP = "adjudicate-open"
RECORD_GROUP = "adjudicate-record"


class AdjudicationScreen(HoldsBackTyping, TakesTurns, AdjudicationReading, DesignScreen):
    """Adjudicate the disputed items of a design, one at a time."""

    FORM_PANEL = "#final"

    CSS_PATH = "../styles/adjudicate.tcss"
    # As on the compare screen: below NARROW_WIDTH columns the item (responses and reviewers'
    # judgments) and the final judgment take turns on the whole width (o switches); a short
    # terminal drops the header and keeps the reasons to a line.
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (NARROW_WIDTH, "-roomy")]  # noqa: RUF012
    VERTICAL_BREAKPOINTS = [(0, "-short"), (30, "-tall")]  # noqa: RUF012
    BINDINGS: ClassVar[list[BindingType]] = ADJUDICATION_KEYS
    HELP_HINTS: ClassVar[tuple[str, ...]] = (HELP_HINT,)

    def __init__(
        self,
        db_path: Path,
        design: DesignChoice,
        adjudicator: str,
        code: str,
        codes: list[str] | None = None,
    ) -> None:
        super().__init__(db_path, design)
        self.adjudicator = adjudicator
        self.codes = CodeList(codes or [code], code)
        """The disagreements listed when this screen was opened (] and [ move through them)."""
        self.item: AdjudicationItem | None = None
        self.loaded = Judgment()
        """The final judgment the form started from (unrecorded changes are asked about)."""
        self.show_names = False
        self.names_seen = False
        """Whether names were shown at any moment on this item (recorded with the adjudication)."""
        self.recording = False
        self.recorded: dict[str, int] = {}
        self.prefill_next = 0
        self.refused_reason: str | None = None
        self.retry = Retry(self, self._record_again)
        """A recording the database refused, tried again until it is stored."""
        self._after_record: Callable[[], None] | None = None
        # The compare screen's reading aids, over this screen's own (swapped) transcripts.
        self.transcripts = AdjudicationTranscripts(db_path, design.pk or 0, adjudicator)
        self.pair = ResponsePair(follow=False, full_transcripts=True)
        self.search_bar = SearchBar("search the responses shown", id="search-bar")
        self.aids = ReadingAids(self, self.transcripts, self.pair, self.search_bar, FOLD_KEY)
        self.shield = TypingShield(self, self)
        """Text typed outside the note holds back instead of deciding or leaving."""

    # -- layout -----------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(Text("Opening the item…"), id="item-bar")
        yield Static("", id="reasons")
        yield Static("", id="refused")
        with Horizontal(id="workspace"):
            with Vertical(id="reading"):
                yield TaskPanel(collapsed=True)
                yield self.pair
                yield self.search_bar
                with VerticalScroll(id="judgments"):
                    yield Static("", id="judgments-table")
            with Vertical(id="final-column"):
                yield Static(
                    Text.assemble(
                        ("Final judgment", "bold"),
                        f" by {safe_line(self.adjudicator)} (the originals are kept)",
                    ),
                    id="final-title",
                )
                yield Static("", id="past")
                with VerticalScroll(id="final"):
                    yield JudgmentForm(id="form")
                    yield Static(
                        Text("Note (required)", style="bold"),
                        classes="section-title",
                        id="note-title",
                    )
                    yield Input(placeholder=NOTE_PROMPT, id="note")
                    yield FieldEcho(id="note-echo")  # a long note shown whole
                    yield Static("", id="note-error")
                    yield Static("", id="missing")
        # The app's screens stay on their keys (and in the help), not in this bar.
        yield KeyBar(hide=APP_SCREEN_KEYS, first=("record", "step(1)", "task_in_full"))

    def on_mount(self) -> None:
        self.query_one("#final", VerticalScroll).can_focus = False
        judgments = self.query_one("#judgments")
        judgments.border_title = "Each reviewer's judgment (≠ marks a difference)"
        judgments.border_subtitle = JUDGMENTS_IN_FULL
        self.open_item(self.code)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Without an item (refused, or still opening) only moving on and leaving make sense.
        if action in (
            "record",
            "toggle_names",
            "prefill",
            "note",
            "task_in_full",
            "toggle_trace",
            "toggle_judgments",
        ):
            return self.item is not None
        if action in ("search", "next_hit", "fold", "fold_all"):
            return self.item is not None
        if action == "toggle_form":
            return self.item is not None and self.narrow
        # n / N belong to the search only while one is on; otherwise n is the gate's key.
        if action == "jump_hit":
            return self.item is not None and self.searching
        return True

    @property
    def code(self) -> str:
        """The item shown (or refused)."""
        return self.codes.current

    @property
    def form(self) -> JudgmentForm:
        return self.query_one(JudgmentForm)

    @property
    def final(self) -> Judgment:
        """The final judgment as the form holds it."""
        return self.form.judgment

    @property
    def justification_is_note(self) -> bool:
        """A first adjudication of a preference-only item: its justification already says
        why this is the final judgment, so it is the note unless one is written (a revision
        still needs a note of its own, saying why it changed)."""
        item = self.item
        return item is not None and item.latest is None and self.form.preference_only

    def note_text(self) -> str:
        """The note an ``s`` now would record ("" while none is written or stands in)."""
        written = self.query_one("#note", Input).value.strip()
        if written or not self.justification_is_note:
            return written
        return self.final.justification.strip()

    # -- opening (worker) -------------------------------------------------------------------
    @background(group=OPEN_GROUP, description="Opening an item", exclusive=True)
    def open_item(self, code: str) -> None:
        worker = get_current_worker()
        pk = self.design.pk
        if pk is None:
            raise AbpError("this study has no study design: nothing to adjudicate")
        try:
            item = open_adjudication(self.db_path, pk, code, self.adjudicator)
        except (BlindingError, NotAnAdjudicator) as exc:
            if not worker.is_cancelled:
                blind = isinstance(exc, BlindingError)
                self.post_message(DisagreementWithheld(code, str(exc), judge_first=blind))
            return
        texts = tuple(display_text(r.text) for r in item.responses)
        if not worker.is_cancelled:
            self.post_message(DisagreementOpened(item, texts))

    @on(DisagreementWithheld)
    def withheld(self, message: DisagreementWithheld) -> None:
        self.item = None
        self.codes.current = message.code
        self.refused_reason = message.reason
        self.set_class(True, "-refused")
        self.query_one("#refused", Static).update(
            Text.assemble(
                ("Refused: ", "bold"),
                safe_line(message.reason),
                "\n\n",
                "Judge your items first (j opens your queue), or ask another person to "
                "adjudicate it."
                if message.judge_first
                else "Ask another person to adjudicate it.",
                " ] and [ move to other disagreements; l goes back to the list.",
            )
        )
        self._update_bar()
        self.refresh_bindings()
        self.notify(safe_line(message.reason), title="Refused", severity="error", markup=False)

    @on(WorkerFailed)
    def failed(self, message: WorkerFailed) -> None:
        # The app shows the failure itself; here it is kept in the item bar.
        if message.group == OPEN_GROUP:
            self.query_one("#item-bar", Static).update(
                Text.assemble(("Cannot open the item: ", "bold red"), safe_line(message.reason))
            )
        elif message.group == RECORD_GROUP:
            self.recording = False
            waiting, self._after_record = self._after_record is not None, None
            first = message.retryable and self.retry.failed(message.reason)
            if message.retryable and not first and not waiting:
                message.stop()  # a retry failed again: the item bar says so
            self._update_bar()

    @on(DisagreementOpened)
    async def opened(self, message: DisagreementOpened) -> None:
        item = message.item
        if await self.form.build(item.rubric):
            self.shield.keys_changed()  # the rows bring their keys
        self.refused_reason = None
        self.set_class(False, "-refused")
        self.item = item
        self.codes.current = item.code
        self.show_names = False
        self.names_seen = False
        self.prefill_next = 0
        self.set_class(not item.is_pair, "-single")
        self.refresh_bindings()
        self.query_one(TaskPanel).show(item.task)
        self.query_one(ResponsePair).show(item.responses, message.texts)
        self.transcripts.opened(item.code, item.placement)
        self.aids.item_shown(item.code)
        reasons = Text("Why they disagree: ", style="bold")
        reasons.append("; ".join(safe_line(r) for r in item.reasons) or "no rule is broken now")
        self.query_one("#reasons", Static).update(reasons)
        start = item.latest.judgment if item.latest is not None else Judgment()
        self._load_form(start)
        self.loaded = start
        note = self.query_one("#note", Input)
        note.value = ""
        stands_in = self.justification_is_note
        revising = item.latest is not None  # a revision says why it changes the last one
        note.placeholder = (
            NOTE_REVISION if revising else NOTE_FROM_JUSTIFICATION if stands_in else NOTE_PROMPT
        )
        needed = " (required to revise)" if revising else " (required)"
        self.query_one("#note-title", Static).update(
            Text.assemble(("Note", "bold"), (" (optional)" if stands_in else needed, ""))
        )
        self.query_one("#note-error", Static).update("")
        self._show_names()
        self.set_class(False, "-judgments-full")
        self.query_one(TaskPanel).read_in_full(False, refocus=False)
        self.show_form(False)  # a new item is read first (on a narrow terminal)
        form = self.query_one("#final", VerticalScroll)
        # On the form's first row, adjudicated or not: never in a text field, where the keys
        # read to look (o, s) would be typed into a note, the form hidden at 80 columns. A
        # revision's note is one e away; the bar says so.
        self.set_focus(self.form.first_row(), scroll_visible=False)
        form.scroll_home(animate=False)

    def _load_form(self, judgment: Judgment) -> None:
        if self.item is not None:
            self.form.load(judgment, self.item.responses, self.item.task.fatal_criteria)
            self._update_missing()

    # -- names ------------------------------------------------------------------------------
    def _show_names(self) -> None:
        item = self.item
        if item is None:
            return
        self.query_one("#judgments-table", Static).update(judgments_table(item, self.show_names))
        self.query_one("#past", Static).update(past_text(item, self.show_names))
        self._update_bar()

    def action_toggle_names(self) -> None:
        if self.item is None:
            return
        self.show_names = not self.show_names
        self.names_seen = self.names_seen or self.show_names
        self._show_names()
        if self.show_names:
            self.notify(
                "Reviewer names are shown; the adjudication will record that they were seen.",
                markup=False,
            )

    # -- the form ---------------------------------------------------------------------------
    @on(JudgmentForm.Changed)
    def judgment_changed(self, event: JudgmentForm.Changed) -> None:
        # A key's decision: a letter's stays tentative for a moment (the typing shield).
        self.shield.judgment_changed(event.urgent)
        self._update_missing()
        self._update_bar()

    @on(events.DescendantFocus)
    @on(events.DescendantBlur)
    def focus_moved(self) -> None:
        if self.item is not None:
            self._update_bar()

    @on(Input.Changed, "#note")
    def note_typed(self) -> None:
        self.query_one(FieldEcho).follow(self.query_one("#note", Input))
        if self.query_one("#note", Input).value.strip():
            self.query_one("#note-error", Static).update("")
        if self.item is not None:  # the hint says whose words the note will be
            self._update_missing()
        self._update_bar()

    def action_prefill(self) -> None:
        item = self.item
        if item is None or not item.reviewers:
            return
        index = self.prefill_next % len(item.reviewers)
        self.prefill_next += 1
        judgment = item.reviewers[index].judgment
        label, following = item.labels[index], item.labels[self.prefill_next % len(item.labels)]
        # Their justification names the responses as they saw them: recorded in this screen's
        # placement as it stands it would say the opposite, so it keeps its frame in front.
        swapped = index < len(item.seen_swapped) and item.seen_swapped[index]
        if swapped and judgment.justification.strip():
            framed = f"[{label}, who {SWAPPED} ({THEIR_TERMS}):] {judgment.justification}"
            judgment = judgment.model_copy(update={"justification": framed})
        self._load_form(judgment)
        self._update_bar()
        self.notify(
            f"The form now holds {label}'s judgment: change what you disagree with, "
            f"write the note, then s records it. p again fills it from {following}'s.",
            markup=False,
        )

    def action_note(self) -> None:
        if self.item is not None:
            self.set_focus(self.query_one("#note", Input))

    def _update_missing(self) -> None:
        box = self.query_one("#missing", Static)
        missing = self.form.missing()
        if missing:
            text = Text(f"Still needed before recording ({len(missing)}):\n", style="bold")
            text.append("\n".join(f"• {safe_line(p)}" for p in missing))
            box.update(text)
        elif self.query_one("#note", Input).value.strip():
            box.update(
                Text(
                    "The final judgment is complete: Escape, then s, records it with your note.",
                    "bold",
                )
            )
        elif self.justification_is_note:
            box.update(
                Text(
                    "The final judgment is complete: s records it, its justification as the "
                    "note (or write a note of its own first).",
                    "bold",
                )
            )
        else:
            box.update(
                Text("The final judgment is complete: write the note, then Escape and s.", "bold")
            )

    @property
    def dirty(self) -> bool:
        note = self.query_one("#note", Input).value.strip()
        return self.item is not None and (self.final != self.loaded or bool(note))

    # -- recording --------------------------------------------------------------------------
    @on(Input.Submitted, "#note")
    def note_entered(self, event: Input.Submitted) -> None:
        # Enter in the note is part of writing it, never a decision: a note finished with
        # Enter (or an Enter meant for a line break) must not record the verdict. Recording
        # has its own key, s, once Escape has left the field.
        event.stop()

    def action_record(self) -> None:
        self._record_now()

    def _record_now(self) -> bool:
        """Record what the form holds, in a worker; False when it cannot be recorded yet."""
        item = self.item
        if item is None or self.recording:
            return False
        note_box = self.query_one("#note", Input)
        note = self.note_text()
        missing = self.form.missing()
        self.query_one("#missing", Static).set_class(bool(missing), "-refused")
        if missing:
            self.notify(
                "\n".join(f"• {safe_line(p)}" for p in missing[:6]),
                title="The final judgment is incomplete",
                severity="error",
                markup=False,
            )
            return False
        if not note:
            self.query_one("#note-error", Static).update(Text(NOTE_REQUIRED))
            self.set_focus(note_box)
            note_box.scroll_visible(animate=False)
            self.notify(NOTE_REQUIRED, title="Not recorded", severity="error", markup=False)
            return False
        self.recording = True
        self.retry.started()
        self._update_bar()
        self.record(
            item.code, self.final, dict(item.placement), note, self.names_seen or self.show_names
        )
        return True

    def _record_again(self) -> None:
        if not self._record_now() and not self.recording:
            self.retry.stop()  # the form cannot be recorded as it is now: the reviewer decides
            self._after_record = None
            self._update_bar()

    @background(group=RECORD_GROUP, description="Recording the adjudication")
    def record(
        self, code: str, final: Judgment, placement: dict[str, int], note: str, names: bool
    ) -> None:
        pk = self.design.pk
        try:
            if pk is None:
                raise AbpError("this study has no study design")
            revision = record_adjudication(
                self.db_path, pk, code, self.adjudicator, final, placement, note, names
            )
        except RETRYABLE_ERRORS:
            raise  # the database said no for now: WorkerFailed, and the screen tries again
        except EXPECTED_ERRORS as exc:
            self.post_message(AdjudicationRefused(code, [str(exc)]))
            return
        self.post_message(ItemAdjudicated(code, revision))

    @on(AdjudicationRefused)
    def adjudication_refused(self, message: AdjudicationRefused) -> None:
        self.recording = False
        self.retry.stop()
        self._after_record = None
        self._update_bar()
        self.notify(
            "\n".join(safe_line(p) for p in message.problems),
            title=f"{safe_line(message.code)} not recorded",
            severity="error",
            markup=False,
            timeout=10,
        )

    @on(ItemAdjudicated)
    def item_adjudicated(self, message: ItemAdjudicated) -> None:
        self.recording = False
        self.retry.succeeded()
        self.recorded[message.code] = message.revision
        self.notify(
            f"{safe_line(message.code)}: adjudication recorded (revision {message.revision}).",
            title="Adjudicated",
            markup=False,
        )
        after, self._after_record = self._after_record, None
        if after is not None:
            after()  # a leave that waited for the recording
            return
        if message.code != self.code or self.app.screen is not self:
            # Another item's, or a retry that succeeded while a dialog is open over this
            # screen: the dialog's answer decides where to go (nothing is unrecorded now).
            return
        following = self.codes.step(1, skip=self.recorded)
        if following is None:
            self.dismiss(None)
        else:
            self.open_item(following)

    # -- moving (through abp_tui.tui.navigation.CodeList) -----------------------------------
    @property
    def unsaved(self) -> bool:
        """The form holds a final judgment or a note that is not recorded."""
        return self.retry.pending or (self.dirty and self.code not in self.recorded)

    def leave_then(self, then: Callable[[], None]) -> None:
        """Run ``then`` unless something is unrecorded; then ask first."""
        if not self.unsaved:
            then()
            return
        retry = self.retry
        ready = not self.form.missing() and bool(self.note_text())
        label = "Retry now" if retry.pending else "Record now" if ready else None

        def chosen(choice: Leaving | None) -> None:
            if choice is Leaving.SAVE and not self.unsaved:
                then()  # a retry recorded it while the dialog was open: nothing left to record
                return
            if choice is Leaving.SAVE:
                self._after_record = then
                if not self._record_now() and not self.recording:
                    self._after_record = None
            elif choice is Leaving.DISCARD:
                retry.stop()
                self._after_record = None
                self.loaded = self.final  # nothing left to ask about: the reviewer let it go
                self.query_one("#note", Input).value = ""
                then()

        self.app.push_screen(
            UnsavedScreen(
                "The final judgment is not recorded",
                "The final judgment and its note are kept only here until they are recorded "
                "(s). Record them now and leave once they are stored, keep editing, or leave "
                "and discard them.",
                retry.reason,
                label,
            ),
            chosen,
        )

    def action_step(self, step: int) -> None:
        code = self.codes.step(step)
        if code is None:
            self.notify(
                "This is the last disagreement of the list."
                if step > 0
                else "This is the first disagreement of the list.",
                markup=False,
            )
            return

        def go() -> None:
            self.query_one("#item-bar", Static).update(Text("Opening…", style="dim"))
            self.open_item(code)

        self.leave_then(go)

    def action_back(self) -> None:
        def back() -> None:
            self.dismiss(None)

        self.leave_then(back)

    def action_leave_field(self) -> None:
        if isinstance(self.focused, Input):
            # Back to the form's last choice (the preference, by the note), as on the compare
            # screen: with nothing focused, a choice key did nothing and said nothing.
            rows = list(self.form.query(ChoiceRow)) if self.item is not None else []
            self.set_focus(rows[-1] if rows else None, scroll_visible=False)
            return
        if self.has_class("-judgments-full"):
            self.action_toggle_judgments()  # the responses again
            return
        task = self.query_one(TaskPanel)
        if task.full:
            task.read_in_full(False)  # the responses again
            return
        if self.narrow and self.form_shown:
            self.show_form(False)  # back to the item
            return
        self.action_back()

    def action_toggle_judgments(self) -> None:
        """The reviewers' judgments in the responses' place, focused to be scrolled (their
        justifications do not fit beside the responses on a small terminal), or back."""
        panel = self.query_one("#judgments", VerticalScroll)
        full = not self.has_class("-judgments-full")
        if full:
            self.query_one(TaskPanel).read_in_full(False, refocus=False)
            self.show_form(False)
        self.set_class(full, "-judgments-full")
        panel.border_subtitle = JUDGMENTS_BACK if full else JUDGMENTS_IN_FULL
        if full:
            self.set_focus(panel, scroll_visible=False)
        else:
            self.set_focus(self.form.first_row(), scroll_visible=False)
        self.refresh_bindings()

    # -- a narrow terminal: the item and the final judgment take turns ----------------------
    def restore_judgment(self, before: Judgment) -> None:
        """Put back what the form held before a letter that was the start of typing."""
        self._load_form(before)
        self._update_bar()

    def action_toggle_task(self) -> None:
        self.query_one(TaskPanel).toggle()

    def action_task_in_full(self) -> None:
        """The whole task in the place of the responses (and of the reviewers' judgments),
        with the focus; or the responses again."""
        panel = self.query_one(TaskPanel)
        if not panel.full:
            if self.has_class("-judgments-full"):
                self.action_toggle_judgments()
            self.show_form(False)
        panel.read_in_full(not panel.full)

    def action_toggle_trace(self) -> None:
        self.query_one(TaskPanel).read_in_full(False)  # the traces are the responses' place
        self.query_one(ResponsePair).toggle_trace()

    # -- status -----------------------------------------------------------------------------
    def _update_bar(self) -> None:
        bar = self.query_one("#item-bar", Static)
        parts: list[Text] = [Text(safe_line(self.code), style="bold")]
        position = self.codes.position()
        if position is not None:
            parts.append(Text(f"disagreement {position[0]} of {position[1]}"))
        item = self.item
        if self.refused_reason is not None:
            parts.append(Text("refused", style="bold red"))
        elif item is not None:
            parts.append(Text(f"{len(item.reviewers)} reviewers"))
            if self.retry.pending:
                parts.append(
                    Text(
                        f"NOT RECORDED: {safe_line(self.retry.reason or '')[:80]} · "
                        + self.retry.status(),
                        style="bold red",
                    )
                )
            elif self.recording:
                parts.append(Text("recording…", style="bold"))
            elif self.code in self.recorded:
                parts.append(
                    Text(f"✓ recorded (revision {self.recorded[self.code]})", style="bold green")
                )
            elif item.latest is not None:
                parts.append(Text(f"adjudicated (revision {item.latest.revision})", style="green"))
            else:
                parts.append(Text("open", style="bold yellow"))
            parts.append(
                Text("names shown (v)", style="bold yellow")
                if self.show_names
                else Text("names hidden (v)", style="dim")
            )
            if item.unblinded is not None:  # the bundle's limitations will say so
                parts.append(
                    Text("study unblinded: the bundle will list this", style="bold yellow")
                )
            missing = len(self.form.missing())
            note = self.note_text()
            if missing:
                parts.append(Text(f"{missing} to do", style="dim"))
            elif not note:
                # In the note already, e is a letter of it: the bar says so rather than "(e)".
                # An adjudicated item is done: only a revision of it needs a note.
                writing = self.focused is self.query_one("#note", Input)
                what = "to revise, say why" if item.latest is not None else "note needed"
                parts.append(
                    Text(f"{what}: type it here", style="bold")
                    if writing
                    else Text(f"{what} (e)", style="dim")
                )
            else:
                parts.append(Text("ready to record (s)", style="bold"))
        # The design's name gives way on a narrow terminal's two lines (item_bar.fitted).
        title = (Text(safe_line(self.design.label) + " │", style="dim"), 1)
        height = 2 if self.has_class("-narrow") else 1
        bar.update(fitted([title, *((p, 0) for p in parts)], bar.size.width, height, " · "))
