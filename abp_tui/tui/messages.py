"""Every message a worker posts back to a screen: a fact in the past tense, with its payload.

Blocking work (reading the store, diffs, statistics) runs in worker threads
(:mod:`abp_tui.tui.workers`); what it found comes back as one of these messages, handled on the
event loop by the screen that started it. A worker that could not do its work posts
:class:`WorkerFailed` instead: the screen may say so in its own status line, and the message
bubbles on to the app, whose one handler shows every failure the same way.

Messages a reusable widget posts about itself (``JudgmentForm.Changed``, ``TextPane.Scrolled``)
are nested in that widget's class instead.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    # Payload types only: importing the services here would load the statistics (SciPy) before
    # the first screen is drawn. ShownAgreement and ShownResults are what the coordinator's
    # screens prepare off the event loop (defined beside their screens).
    from rich.console import RenderableType

    from abp_tui.models import Judgment
    from abp_tui.services.coordinator import AdjudicationItem, DisagreementQueue
    from abp_tui.services.designing import CreatedDesign, DesignDefaults
    from abp_tui.services.desk import AutomatedOutcome, QueuePage, StoredDraft
    from abp_tui.services.reviewing import SaveResult
    from abp_tui.services.studies import StudyCounts, StudyDetail
    from abp_tui.tui.navigation import ShownItem
    from abp_tui.tui.screens.agreement import ShownAgreement
    from abp_tui.tui.screens.results import ShownResults
    from abp_tui.tui.widgets.textlayout import DiffMarks
    from abp_tui.tui.widgets.transcriptlayout import ShownTranscript


# -- any worker -----------------------------------------------------------------------------------
class WorkerFailed(Message):
    """A worker could not do its work (the database could not be read or written, or a bug)."""

    def __init__(
        self, group: str, description: str, reason: str, *, internal: bool, retryable: bool = False
    ) -> None:
        super().__init__()
        self.group = group
        """The worker's group: which kind of work failed (screens react to their own)."""
        self.description = description
        """What the work was, as the user would say it ("Storing the draft")."""
        self.reason = reason
        self.internal = internal
        """True for an unexpected exception (a bug), False for a refused read or write."""
        self.retryable = retryable
        """The database or the disk said no (busy, read-only, full): trying again may work."""


# -- the home screen ------------------------------------------------------------------------------
class StudiesLoaded(Message):
    """The list of studies was read from the database."""

    def __init__(self, studies: list[StudyCounts]) -> None:
        super().__init__()
        self.studies = studies


class StudyDetailLoaded(Message):
    """The conditions, tasks and design progress of one study were read."""

    def __init__(self, detail: StudyDetail) -> None:
        super().__init__()
        self.detail = detail


class DesignCreated(Message):
    """A study design was created (or versioned) from a file or from the new-design form."""

    def __init__(self, created: CreatedDesign) -> None:
        super().__init__()
        self.created = created


class DesignDefaultsLoaded(Message):
    """What a new design of a study starts from was read (the new-design form opens on it)."""

    def __init__(self, defaults: DesignDefaults) -> None:
        super().__init__()
        self.defaults = defaults


# -- judging: the compare and queue screens -------------------------------------------------------
class ItemOpened(Message):
    """An item is ready to show; ``request`` is the opening that asked for it."""

    def __init__(self, shown: ShownItem, request: int) -> None:
        super().__init__()
        self.shown = shown
        self.request = request
        """Only the latest request is shown (see ``Navigator.is_latest``)."""


class ItemReadAhead(Message):
    """The item after ``after`` was read ahead, ready for the next-item key."""

    def __init__(self, after: str, shown: ShownItem) -> None:
        super().__init__()
        self.after = after
        self.shown = shown


class ItemEntered(Message):
    """A read-ahead item became the reviewer's current one; ``revision`` is its newest."""

    def __init__(self, code: str, revision: int) -> None:
        super().__init__()
        self.code = code
        self.revision = revision


class QueueFoundEmpty(Message):
    """The reviewer has no items in the study design."""


class QueueEndReached(Message):
    """There is no item in the direction asked for; ``text`` says so."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


class DiffComputed(Message):
    """The word diff of item ``code``'s two responses."""

    def __init__(self, code: str, marks: DiffMarks) -> None:
        super().__init__()
        self.code = code
        self.marks = marks


class TranscriptsRead(Message):
    """The transcripts of item ``code``'s responses, laid out, in the order they are shown."""

    def __init__(self, code: str, shown: tuple[ShownTranscript, ...]) -> None:
        super().__init__()
        self.code = code
        self.shown = shown


class DraftsStored(Message):
    """Staged drafts reached the database (each with the change counter it was staged with)."""

    def __init__(self, stored: list[StoredDraft]) -> None:
        super().__init__()
        self.stored = stored


class JudgmentSubmitted(Message):
    def __init__(self, code: str, result: SaveResult, judgment: Judgment) -> None:
        super().__init__()
        self.code = code
        self.result = result
        self.judgment = judgment


class AutomatedOutcomeRead(Message):
    """The automated judge's outcome of an item the reviewer has submitted (``outcomes`` None:
    not theirs to see yet; empty: it scored none of the item's responses)."""

    def __init__(
        self, code: str, outcomes: tuple[AutomatedOutcome, ...] | None, *, submitted_now: bool
    ) -> None:
        super().__init__()
        self.code = code
        self.outcomes = outcomes
        self.submitted_now = submitted_now
        """Read because the reviewer just submitted it (not because the item was opened)."""


class SubmissionRefused(Message):
    """A submission was not stored: ``problems`` says what is missing (or what failed)."""

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
    """A finding id not taken yet in the study, for a new finding about item ``code``."""

    def __init__(self, code: str, finding_id: str) -> None:
        super().__init__()
        self.code = code
        self.finding_id = finding_id


class FindingRecorded(Message):
    def __init__(self, finding_id: str, revision: int) -> None:
        super().__init__()
        self.finding_id = finding_id
        self.revision = revision


class QueueLoaded(Message):
    """A page of the reviewer's queue, with each row's status and task text (what ``/``
    filters by) and the counts of the whole queue."""

    def __init__(self, page: QueuePage) -> None:
        super().__init__()
        self.page = page


# -- the coordinator's screens --------------------------------------------------------------------
class DisagreementsLoaded(Message):
    def __init__(self, queue: DisagreementQueue) -> None:
        super().__init__()
        self.queue = queue


class DisagreementOpened(Message):
    """A disputed item to adjudicate, with its responses' texts in display form."""

    def __init__(self, item: AdjudicationItem, texts: tuple[str, ...]) -> None:
        super().__init__()
        self.item = item
        self.texts = texts


class DisagreementWithheld(Message):
    """The adjudicator may not adjudicate this item (the core's refusal): ``judge_first`` when
    they still have to judge it (or an item sharing a response with it)."""

    def __init__(self, code: str, reason: str, *, judge_first: bool = True) -> None:
        super().__init__()
        self.code = code
        self.reason = reason
        self.judge_first = judge_first


class ItemAdjudicated(Message):
    def __init__(self, code: str, revision: int) -> None:
        super().__init__()
        self.code = code
        self.revision = revision


class AdjudicationRefused(Message):
    def __init__(self, code: str, problems: list[str]) -> None:
        super().__init__()
        self.code = code
        self.problems = problems


class AgreementComputed(Message):
    def __init__(self, shown: ShownAgreement) -> None:
        super().__init__()
        self.shown = shown


class ReliabilityComputed(Message):
    """The agreement screen's reliability section: the report, or why there is none."""

    def __init__(self, section: RenderableType) -> None:
        super().__init__()
        self.section = section


class JudgesComputed(Message):
    """The judge report of a study, as the lines the Judges screen shows."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__()
        self.lines = lines


class ResultsComputed(Message):
    def __init__(self, shown: ShownResults) -> None:
        super().__init__()
        self.shown = shown


class StudyUnblinded(Message):
    def __init__(self, who: str, when: str) -> None:
        super().__init__()
        self.who = who
        self.when = when
