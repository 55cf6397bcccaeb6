"""Where a draft is saved, and a submission: the compare screen's judgment on its way to the
database.

The compare screen hands each change of the judgment to :meth:`Drafts.change`. The change is
*staged* on the reviewer's desk at once (in memory: the event loop never waits for the disk),
then *stored* by a worker as a new draft revision (``Desk.store_staged``, which calls
``ReviewSession.save``):

- at once for a choice (a score, a tick, a gate answer, a preference);
- ``DEBOUNCE_SECONDS`` after the last key while typing a rationale or a justification;
- when a text field is left, and on ctrl+s;
- for anything still staged, before the desk reads anything else (opening another item stores
  first) and when the screen closes (the desk stores it before its connection closes).

When several drafts of an item are staged before a worker runs, only the newest is stored, so
the latest decision always wins. The worker reports
:class:`~abp_tui.tui.messages.DraftsStored` (what reached the database) or a
:class:`~abp_tui.tui.messages.WorkerFailed`; the item bar says "saved" only after the first.

A save the database refused (busy with another process, read-only, full) stays staged and is
tried again after a growing delay (:mod:`abp_tui.tui.retrying`): the item bar says "NOT SAVED",
then "retrying…", then "saved". While it is not stored, :attr:`Drafts.unsaved` is true and the
screen asks before anything takes the reviewer away (:mod:`abp_tui.tui.screens.unsaved`):
:meth:`Drafts.save_then` stores first and leaves only once it is stored,
:meth:`Drafts.discard_unsaved` drops it.

:meth:`Drafts.submit` submits from a worker too. A submitted judgment is never overwritten by a
draft: changing it is a revised submission with a reason. A refused submission keeps the
decisions as a draft, also when the reviewer has moved on to another item meanwhile.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual.screen import Screen
from textual.timer import Timer

from abp_tui.errors import ALREADY_SUBMITTED
from abp_tui.models import Judgment
from abp_tui.services.desk import Desk, StoredDraft
from abp_tui.services.reviewing import BlindItem, NotReady
from abp_tui.text.safe import safe_line
from abp_tui.tui.messages import (
    DraftsStored,
    ItemEntered,
    JudgmentSubmitted,
    SubmissionRefused,
)
from abp_tui.tui.retrying import Retry
from abp_tui.tui.screens.unsaved import Leaving, UnsavedScreen
from abp_tui.tui.workers import EXPECTED_ERRORS, run_in_background

DEBOUNCE_SECONDS = 0.8
"""Typing is stored this long after the last key (leaving the field or Enter stores at once)."""
SAVE_GROUP = "compare-save"
"""The worker group of every write the compare screen makes (drafts, submissions)."""


class Drafts:
    """The judgment of the item shown, what the store has of it, and the workers that store it."""

    def __init__(self, screen: Screen[Any], desk: Desk) -> None:
        self.screen = screen
        self.desk = desk
        self.code: str | None = None
        self.judgment = Judgment.model_construct()  # empty: built without validating
        """The judgment as the form shows it."""
        self.stored = Judgment.model_construct()
        """The judgment as the store has it (what a submitted judgment is compared with)."""
        self.status = "todo"
        """todo, draft, submitting or submitted."""
        self.revision = 0
        self.version = 0
        """Counts the changes made on this item (each staged draft carries its count)."""
        self.stored_version = 0
        self.save_error: str | None = None
        """Why the last save failed, until one succeeds (staged drafts are then unsaved)."""
        self.retrying = True
        """The last failed save may succeed if tried again (the database was busy)."""
        self.retry = Retry(screen, self.store)
        self.submitting = False
        self.refused = False
        """A submission of this item was refused (the screen then lists what is missing)."""
        self._before_submit = "todo"
        self.resubmitted = False
        """The last submission stored changed one submitted before (a revised submission)."""
        self._after_submit: Callable[[], None] | None = None
        self._after_save: Callable[[], None] | None = None
        self._debounce: Timer | None = None

    def load(self, item: BlindItem) -> None:
        """Start over on ``item``, as the store has it."""
        self.code = item.code
        self.judgment = self.stored = item.judgment
        self.status = item.status
        self.revision = item.revision
        self.version = self.stored_version = 0
        # A draft of another item the database refused is still staged (and retried): the
        # failure is kept, so leaving this item asks too.
        self.save_error = self.retry.reason
        self.submitting = False
        self.refused = False

    @property
    def unsubmitted_changes(self) -> bool:
        """A submitted judgment was changed and not resubmitted (leaving asks first)."""
        return self.status == "submitted" and self.judgment != self.stored and not self.submitting

    # -- drafts ---------------------------------------------------------------------------------
    def change(self, judgment: Judgment, *, urgent: bool) -> bool:
        """The reviewer changed the judgment; False when nothing changed."""
        if self.code is None or judgment == self.judgment:
            return False
        self.judgment = judgment
        if self.status not in ("submitted", "submitting"):
            self.version += 1
            self.desk.stage(self.code, self.version, judgment)
            self.stop_waiting()
            if urgent:
                self.store()
            else:
                self._debounce = self.screen.set_timer(DEBOUNCE_SECONDS, self.store)
        return True

    def discard(self) -> None:
        """Forget the changes to a submitted judgment."""
        self.judgment = self.stored

    def keep(self, code: str, version: int, judgment: Judgment) -> None:
        """Stage and store at once (ctrl+s, or decisions a refused submission would lose)."""
        self.desk.stage(code, version, judgment)
        self.store()

    def save_now(self) -> bool:
        """Store the draft now (ctrl+s); False for a submitted judgment (it is never a draft)."""
        if self.code is None or self.status in ("submitted", "submitting"):
            return False
        self.keep(self.code, self.version, self.judgment)
        return True

    def field_left(self) -> None:
        """A text field lost the focus: what was typed in it is stored without waiting."""
        if self.code is not None and self.desk.has_staged(self.code):
            self.store()

    def stop_waiting(self) -> None:
        """Forget the pause of typing being waited for."""
        if self._debounce is not None:
            self._debounce.stop()
            self._debounce = None

    def store(self) -> None:
        """Store every staged draft now, in a worker."""
        self.stop_waiting()
        self.retry.started()
        run_in_background(
            self.screen, self._store, group=SAVE_GROUP, description="Storing the draft"
        )

    def _store(self) -> None:
        stored = self.desk.store_staged()
        # After a failure, even "nothing left to store" is news: what failed is stored now.
        if stored or self.save_error is not None:
            self.screen.post_message(DraftsStored(stored))

    @property
    def unsaved(self) -> bool:
        """A save failed and nothing has been stored since: leaving would lose the draft."""
        return self.save_error is not None

    def save_then(self, after: Callable[[], None]) -> None:
        """Store now and run ``after`` once everything staged is stored (not if it fails)."""
        self._after_save = after
        self.store()

    def ask_before_leaving(self, then: Callable[[], None]) -> bool:
        """False when nothing unsaved is at stake. Otherwise ask the reviewer (True): ``then``
        runs once the drafts are stored or discarded, and not at all if they keep editing."""
        if not self.unsaved:
            return False

        def chosen(choice: Leaving | None) -> None:
            if choice is Leaving.SAVE:
                self.save_then(then)
            elif choice is Leaving.DISCARD:
                self.discard_unsaved()
                then()

        again = (
            "It is being tried again; you can try at once and leave when it is stored, keep "
            "editing, or leave and discard it."
            if self.retrying
            else "Trying again cannot store it as it is: keep editing, or leave and discard it."
        )
        self.screen.app.push_screen(
            UnsavedScreen(
                "Your draft is not saved",
                "The database refused the last save, so leaving now would lose what you decided "
                f"since. {again}",
                self.save_error,
                "Retry now" if self.retrying else None,
            ),
            chosen,
        )
        return True

    def discard_unsaved(self) -> None:
        """Drop the drafts the database has not taken (the reviewer chose to leave them)."""
        self.stop_waiting()
        self.desk.discard_staged()
        self.retry.stop()
        self.save_error = None
        self.stored_version = self.version
        self._after_save = None

    def stored_now(self, drafts: list[StoredDraft]) -> Callable[[], None] | None:
        """Drafts reached the database (those of other items are of no concern here); returns
        what was waiting for the save (:meth:`save_then`), to run now."""
        # A store that succeeded stored everything staged: nothing is waiting to be retried.
        self.retry.succeeded()
        self.save_error = None
        after, self._after_save = self._after_save, None
        for draft in drafts:
            if draft.code != self.code:
                continue
            self.stored_version = max(self.stored_version, draft.version)
            self.revision = max(self.revision, draft.result.revision)
            if self.status == "todo":
                self.status = "draft"
        return after

    def failed(self, reason: str, *, retryable: bool) -> bool:
        """A save failed (the drafts stay staged). True when the reviewer should be told of the
        failure: the first of a run, or one a leave was waiting for (then the leave is off);
        False too when a draft submitted elsewhere is set aside (:meth:`set_aside` says so)."""
        self.save_error = reason
        self.retrying = retryable
        waiting, self._after_save = self._after_save is not None, None
        if retryable:
            return self.retry.failed(reason) or waiting
        self.retry.stop()  # the store refused the draft itself: trying again cannot help
        code = submitted_elsewhere(reason)
        if code is not None and self.desk.discard_staged_of(code):
            # Submitted meanwhile in another window of this reviewer: that item's draft can
            # never be stored as one. It is set aside (its own notice says so, not a failure's),
            # the item read again if shown, and the other items' drafts stored.
            self.save_error = None
            self.retrying = True
            self.set_aside(code)
            self.store()
            return False
        return True

    def set_aside(self, code: str) -> None:
        """Item ``code`` was submitted in another window while this one changed it: say so,
        and show it as the store has it now (its submission; a change is then a revision)."""
        self.screen.notify(
            f"{code} was submitted in another window meanwhile: it is shown as submitted; "
            "the change made here was not stored (change it again and press s, with a reason, "
            "to revise it).",
            title="Submitted elsewhere",
            severity="warning",
            markup=False,
        )
        if code == self.code:
            self.stored_version = self.version
            # Read again, as for an item judged elsewhere since it was read ahead.
            self.screen.post_message(ItemEntered(code, self.revision + 1))

    # -- submitting -------------------------------------------------------------------------------
    def submit(self, reason: str = "", after: Callable[[], None] | None = None) -> None:
        """Submit the judgment shown (``reason``: why a submitted one changes); ``after`` runs
        once it is stored (see :meth:`take_after`)."""
        if self.code is None:
            return
        self._after_submit = after
        self.submitting = True
        self._before_submit = before = self.status
        self.status = "submitting"
        self.stop_waiting()  # the submission stores the judgment itself
        code, judgment, version = self.code, self.judgment, self.version

        def submit() -> None:
            try:
                result = self.desk.submit(code, judgment, reason)
            except NotReady as exc:
                problems = list(exc.problems)
            except EXPECTED_ERRORS as exc:
                problems = [str(exc)]
            except Exception as exc:
                # A bug: the decisions go back to being a draft, as for any refusal, so nothing
                # is stuck "submitting" or lost; the app's one error path then reports it.
                refusal = [f"internal error: {type(exc).__name__}: {exc}"]
                self.screen.post_message(
                    SubmissionRefused(code, refusal, judgment, version, before)
                )
                raise
            else:
                self.screen.post_message(JudgmentSubmitted(code, result, judgment))
                return
            self.screen.post_message(SubmissionRefused(code, problems, judgment, version, before))

        run_in_background(
            self.screen, submit, group=SAVE_GROUP, description="Submitting the judgment"
        )

    def submission_refused(self, message: SubmissionRefused) -> bool:
        """A submission was refused; True when it is about the item shown."""
        self.submitting = False
        if message.code != self.code:
            # The reviewer moved on before the refusal came back: that item's decisions are
            # kept as a draft (unless it was already submitted).
            if message.before != "submitted":
                self.keep(message.code, message.version, message.judgment)
            return False
        self.status = self._before_submit
        if self.status != "submitted" and any(
            submitted_elsewhere(p) == message.code for p in message.problems
        ):
            # Submitted meanwhile, in another window of this reviewer: never kept as a draft,
            # which the store would refuse for good; read again as it is now.
            self.desk.discard_staged_of(message.code)
            self.set_aside(message.code)
            self.refused = True
            return True
        if self.status != "submitted" and self.judgment != self.stored:
            # The draft was not stored with the refused submission: store it now.
            self.version += 1
            self.keep(message.code, self.version, self.judgment)
        self.refused = True
        return True

    def submitted(self, message: JudgmentSubmitted) -> bool:
        """A submission was stored; True when it is about the item shown."""
        self.submitting = False
        if message.code != self.code:
            return False
        self.resubmitted = self._before_submit == "submitted"
        self.status = "submitted"
        self.revision = message.result.revision
        self.stored = message.judgment
        self.refused = False
        return True

    def take_after(self) -> Callable[[], None] | None:
        """What was to happen once the submission was stored (None: move on as usual)."""
        after, self._after_submit = self._after_submit, None
        return after

    # -- what the screen says about it -------------------------------------------------------------
    def status_text(self) -> Text:
        """Where the judgment is, for the item bar ("saved" only once the database has it)."""
        if self.status == "submitted":
            status = Text("submitted", style="bold green")
            if self.judgment != self.stored:
                status.append("  · changed: s resubmits with a reason", style="bold yellow")
            return status
        if self.status == "submitting":
            return Text("submitting…", style="bold")
        if self.save_error is not None:
            status = Text("NOT SAVED: " + safe_line(self.save_error)[:80], style="bold red")
            retry = self.retry
            status.append(
                " · " + (retry.status() if retry.pending else "ctrl+s tries again"),
                style="bold yellow",
            )
            return status
        if self.version > self.stored_version:
            return Text("● saving draft…", style="yellow")
        if self.status == "draft":
            return Text("✓ draft saved", style="green")
        return Text("not started")

    def missing_text(self, missing: list[str]) -> Text:
        """The end of the scoring panel: what a submission still lacks, once one was refused.

        Before that it holds a fixed hint (the item bar counts what is missing): the list
        changes with nearly every key, and re-measuring the screen for it each time would slow
        fast scoring down.
        """
        if self.status == "submitted" and self.judgment == self.stored:
            return Text(
                "Submitted. Changing it is a revised submission and asks for a reason.",
                style="bold",
            )
        if not missing:
            return Text("Complete: press s to submit (Enter first, in a text field).", style="bold")
        if self.refused:
            text = Text(f"Still needed before submitting ({len(missing)}):\n", style="bold")
            text.append("\n".join(f"• {safe_line(p)}" for p in missing), style="")
            return text
        return Text("Press s to submit. Anything still missing is listed here then.", style="dim")


def submitted_elsewhere(reason: str) -> str | None:
    """The item a refusal says was submitted before the change it refused ("P-X was already
    submitted: ..."), else None."""
    head, said, _rest = reason.partition(f" {ALREADY_SUBMITTED}:")
    return head if said and head and " " not in head else None
