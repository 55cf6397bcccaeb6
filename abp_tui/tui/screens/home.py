"""The home screen: the studies in the database and, for the highlighted one, its conditions and
tasks with their run counts and each study design's progress per reviewer.

Everything shown here comes from the use cases of ``abp_tui.services.studies``, called in
worker threads that post the result back as a message; this screen never runs SQL. Every string
that came from a study or a run record is displayed as ``rich.text.Text`` made from
``abp_tui.text.safe`` output, never parsed as markup.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import DataTable, Header, Static
from textual.worker import get_current_worker

from abp_tui.services.roles import may, signed_in
from abp_tui.text.hints import command
from abp_tui.text.safe import safe_line
from abp_tui.tui.messages import (
    DesignCreated,
    DesignDefaultsLoaded,
    StudiesLoaded,
    StudyDetailLoaded,
    WorkerFailed,
)
from abp_tui.tui.widgets.clamped import Clamped
from abp_tui.tui.widgets.fitted_columns import Give, cut, fit_columns
from abp_tui.tui.widgets.keybar import KeyBar
from abp_tui.tui.workers import background

ID_WIDTH = 32
NAME_WIDTH = 36
LISTED_NAME_WIDTH = 80
"""A study's name in the list of studies: cut to :data:`NAME_WIDTH` unless there is room."""

if TYPE_CHECKING:
    from abp_tui.services.designing import DesignChoices
    from abp_tui.services.roles import Capability
    from abp_tui.services.studies import ReviewerProgress, StudyCounts, StudyDetail

COLUMNS: dict[str, list[tuple[str, str]]] = {
    "studies": [
        ("ID", "id"),
        ("Data", "synthetic"),
        ("Protocol", "protocol"),
        ("Tasks", "tasks"),
        ("Conditions", "conditions"),
        ("Runs", "runs"),
        ("Excluded", "excluded"),
        ("Trace events", "trace_events"),
        ("Name", "name"),
    ],
    "conditions": [("ID", "id"), ("Runs", "runs"), ("Excluded", "excluded"), ("Label", "label")],
    "tasks": [("ID", "id"), ("Runs", "runs"), ("Excluded", "excluded"), ("Risk type", "risk")],
}
"""Each table's columns as (header, key), in display order."""
GIVES: dict[str, list[Give]] = {
    "studies": [
        Give("name", NAME_WIDTH),  # a long name whole only where there is room to spare
        Give("trace_events"),
        Give("name", 24),
        Give("excluded"),
        Give("name", 16),
        Give("conditions"),
        Give("protocol", 8),
        Give("id", 16),
        Give("name", 8),
    ],
    "conditions": [Give("label", 16), Give("excluded"), Give("label", 10), Give("id", 14)],
    "tasks": [Give("risk", 12), Give("excluded"), Give("risk", 8), Give("id", 14)],
}
"""What each table gives up first when the terminal is too narrow for all of its columns."""

LABEL_WIDTH = 30
DESCRIPTION_WIDTH = 220
STUDY_INFO_LINES = 2
"""The highlighted study's line (its id, name, protocol and description) takes at most this
many lines: a description that goes on is cut with an ellipsis."""
SYNTHETIC_STYLE = "bold black on yellow"


def plain(value: str, limit: int | None = None, style: str = "") -> Text:
    """Untrusted text as one safe line, cut to ``limit`` cells with an ellipsis."""
    text = Text(safe_line(value), style=style, no_wrap=True, end="")
    if limit is not None and text.cell_len > limit:
        text.truncate(limit - 1)
        text.append("…")
    return text


def number(value: int) -> Text:
    return Text(f"{value:,}", justify="right", no_wrap=True)


def progress_text(
    progress: list[tuple[str, list[ReviewerProgress]]],
    preferences: int = 0,
    *,
    adjudicators: dict[str, tuple[str, ...]] | None = None,
    viewer: str = "",
) -> Text:
    """One line per study design: each reviewer's submitted/assigned items and drafts, the
    adjudicators it names, and, to the one who may adjudicate it, the key to its disagreements
    (``a`` is otherwise one of the footer's hidden keys at 80 columns).

    A study without a design may still hold imported preferences (a pairwise data set imported
    as is): the results screen ranks them, which a newcomer would not guess from "no design".
    """
    if not progress:
        text = Text("No study design yet: press n to create one", style="dim")
        if preferences:
            text.append(".  ", style="dim")
            text.append("v", style="bold")
            text.append(
                f" (results) shows the ranking of its {preferences:,} imported "
                f"preference{'s' if preferences != 1 else ''}, after the study is unblinded "
                "(u on that screen).",
                style="dim",
            )
        return text
    lines = Text()
    for i, (label, reviewers) in enumerate(progress):
        if i:
            lines.append("\n")
        lines.append("Design ", style="dim")
        lines.append(safe_line(label), style="bold")
        if not reviewers:
            lines.append("  ·  open: nobody has joined yet", style="dim")
        for p in reviewers:
            lines.append("  ·  ", style="dim")
            lines.append(safe_line(p.reviewer))
            lines.append(f" {p.submitted}/{p.assigned} submitted")
            if p.drafts:
                lines.append(f", {p.drafts} in draft", style="dim")
        named = (adjudicators or {}).get(label, ())
        if named:
            lines.append("  ·  adjudicator" + ("s " if len(named) > 1 else " "), style="dim")
            lines.append(", ".join(safe_line(name) for name in named))
        judging = any(p.reviewer == viewer for p in reviewers)
        if viewer in named or (viewer and not named and reviewers and not judging):
            lines.append("  ·  you adjudicate: ", style="dim")
            lines.append("a", style="bold")
            lines.append(" lists its disagreements", style="dim")
    return lines


class HomeScreen(Screen[None]):
    """Lists the studies; shows the conditions and tasks of the highlighted study."""

    CSS_PATH = "../styles/home.tcss"
    AUTO_FOCUS = "#studies"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "r",
            "reload",
            "Reload",
            id="home.reload",
            tooltip="Read the studies again from the database (after an import in another window).",
        ),
        Binding(
            "n",
            "new_design",
            "New design",
            id="home.new_design",
            tooltip="Create a study design for the highlighted study: a form with defaults "
            "(or a TOML or JSON file), as `abp-tui study create` does.",
        ),
        Binding(
            "g",
            "judges",
            "AI judges",
            id="home.judges",
            tooltip="How far the highlighted study's AI judges agree with people: agreement, "
            "kappa, position bias, the alt-test (as `abp-tui judges`).",
        ),
        Binding(
            "right_square_bracket",
            "tasks_page(1)",
            "Next tasks",
            key_display="]",
            show=False,
            id="home.tasks_next",
            tooltip="A study with many tasks lists them a page at a time: the next page.",
        ),
        Binding(
            "left_square_bracket",
            "tasks_page(-1)",
            "Previous tasks",
            key_display="[",
            show=False,
            id="home.tasks_previous",
            tooltip="A study with many tasks lists them a page at a time: the previous page.",
        ),
        Binding(
            "i",
            "import_files",
            "Import",
            id="home.import",
            tooltip="Import run records (a file or a folder) into this database, as "
            "`abp-tui import` does.",
        ),
    ]

    def __init__(self, db_path: Path, *, later: bool = False) -> None:
        """``later``: the studies are read only once :meth:`when_shown` is called and the screen
        is shown (at start-up it lies beneath the first item, which is drawn first); until it
        is first shown its widgets are not even built, so that styling them costs the first
        item nothing."""
        super().__init__()
        self.db_path = db_path
        self.station = False
        """Every study is a reviewer's pack: nothing to import or design here."""
        self._to_read = later
        """The studies are still to be read when the screen is shown."""
        self._may_read = not later
        self._covered = False
        """Another screen was shown over this one: its counts are read again when it is shown
        (a judgment submitted meanwhile changes a reviewer's progress)."""
        self._followed: str | None = None
        """The study to highlight when the studies are next shown (the one just judged)."""
        self._stale: set[str] = set()
        """Studies whose detail is shown as last read until it is read again (no blank tables)."""
        self._built = False
        """Its widgets are there (composed, or mounted when it was first shown)."""
        self.studies: dict[str, StudyCounts] = {}
        self.details: dict[str, StudyDetail] = {}
        self.shown_study: str | None = None
        self._rows: dict[str, list[tuple[str, list[Text]]]] = {}
        """Each table's rows as last filled (filled again when its room changes)."""
        self._room: dict[str, int] = {}

    # -- layout -----------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        if self._may_read:  # else built when first shown (beneath the first item until then)
            self._built = True
            yield from self._parts()

    def _parts(self) -> list[Widget]:
        tables = {
            name: DataTable[Text](id=name, cursor_type="row", zebra_stripes=True)
            for name in COLUMNS
        }
        return [
            Header(),
            Static(id="banner", markup=False),
            Static(id="studies-title", classes="section-title", markup=False),
            tables["studies"],
            Static(id="empty", markup=False),
            Static(id="load-error", markup=False),
            Clamped(STUDY_INFO_LINES, id="study-info"),
            Static(id="progress", markup=False),
            Horizontal(
                Vertical(
                    Static(Text("Conditions"), classes="section-title", markup=False),
                    tables["conditions"],
                    id="conditions-pane",
                ),
                Vertical(
                    Static(Text("Tasks"), id="tasks-title", classes="section-title", markup=False),
                    tables["tasks"],
                    id="tasks-pane",
                ),
                id="detail",
            ),
            Static(self.import_hint_text(), id="import-hint", markup=False),
            KeyBar(),
        ]

    def on_mount(self) -> None:
        if self._built:
            self._ready()
        self.call_later(self._read_if_due)  # once mounted

    def _ready(self) -> None:
        for name in COLUMNS:
            self.fill(name, [])
        self.query_one("#studies-title", Static).update(
            Text.assemble("Studies in ", plain(str(self.db_path), style="bold"))
        )
        if not self._to_read:
            self.load_studies()

    async def _build(self) -> None:
        """Mount the widgets, first shown: the studies are read once they are there."""
        if not self._built:
            self._built = True
            await self.mount_all(self._parts())
            self._ready()
        self._read_if_due()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Its own keys wait for its widgets (the app's keys never do). A reviewer station
        # imports nothing and designs nothing: those keys are not offered there.
        if self.station and action in ("new_design", "import_files"):
            return False
        return self._built or action not in self._own_actions

    _own_actions = frozenset(
        str(b.action).partition("(")[0] for b in BINDINGS if isinstance(b, Binding)
    )

    def when_shown(self) -> None:
        """Read the studies now if the screen is shown, else when it is first shown."""
        self._may_read = True
        self._read_if_due()

    def _read_if_due(self) -> None:
        # On top, not only resumed: the resume of its push can come after the screen over it.
        if self._to_read and self._may_read and self.app.screen is self:
            if not self._built:
                if self.is_mounted:  # else its mount reads again
                    self.call_later(self._build)
                return
            self._to_read = False
            self.load_studies()

    def table(self, name: str) -> DataTable[Text]:
        return self.query_one(f"#{name}", DataTable)

    def fill(self, name: str, rows: list[tuple[str, list[Text]]]) -> None:
        """Replace the rows of a table (each a key and its cells).

        Column widths are computed here from the cells, so they never change after the header
        has been drawn (a header drawn before an automatic re-measure can stay stale); on a
        narrow terminal the table's less important columns give way (:data:`GIVES`).
        """
        self._rows[name] = rows
        table = self.table(name)
        room = table.scrollable_content_region.width
        self._room[name] = room
        fitted = fit_columns(COLUMNS[name], [cells for _, cells in rows], room, GIVES[name])
        table.clear(columns=True)
        for index, width in fitted.columns:
            label, key = COLUMNS[name][index]
            table.add_column(cut(Text(label), width), key=key, width=width)
        for key, cells in rows:
            table.add_row(*fitted.cells(cells), key=key)

    def on_resize(self) -> None:
        self.call_after_refresh(self._refit)

    def follow(self, study_id: str) -> None:
        """Highlight ``study_id`` when this screen is next shown (a screen over it judges it)."""
        self._followed = study_id

    def on_screen_suspend(self) -> None:
        self._covered = True

    def on_screen_resume(self) -> None:
        covered, self._covered = self._covered, False
        if self._to_read:
            self._read_if_due()
        elif covered:
            self.read_again()
        self.call_after_refresh(self._refit)

    def read_again(self) -> None:
        """Read the studies and the shown study's detail again, keeping what is shown until the
        new counts arrive (the same summary queries as the first read: as quick for a hundred
        thousand items as for ten)."""
        self._stale = set(self.details)
        self.load_studies()

    def _refit(self) -> None:
        """Fill again the tables whose room changed, on the same row."""
        for name, rows in self._rows.items():
            table = self.table(name)
            if table.scrollable_content_region.width != self._room.get(name):
                row = table.cursor_row
                self.fill(name, rows)
                if rows:
                    table.move_cursor(row=min(row, len(rows) - 1))

    def import_hint_text(self, station: bool = False, populated: bool = False) -> Text:
        """What to do with the database: import runs (more runs, once it holds a study: no
        demo); on a reviewer station (every study opened from a pack), judge, then write the
        signed ratings to send back."""
        if station:
            return Text.assemble(
                ("Reviewer station: ", "bold"),
                "judge your queue (Enter on the study); when it is done, ",
                (safe_line(command("pack ratings --out FILE", self.db_path)), "bold"),
                " writes your signed ratings file, to send back",
            )
        if signed_in() is not None:  # a team's session: its key runs no other command
            if not may("import"):
                return Text("" if populated else "No study yet: the coordinator imports runs.")
            lead = "More run records: " if populated else "Import: "
            return Text.assemble((lead, "bold"), "press i")
        if populated:
            return Text.assemble(
                ("More run records: ", "bold"),
                "press i, or run ",
                (safe_line(command("import PATH", self.db_path)), "bold"),
            )
        return Text.assemble(
            ("Import: ", "bold"),
            "press i, or run ",
            (safe_line(command("import PATH", self.db_path)), "bold"),
            "  ·  demo data: ",
            (safe_line(command("demo", self.db_path)), "bold"),
            "  ·  then press r to reload",
        )

    # -- loading (worker threads) -----------------------------------------------------------------
    @background(group="home-studies", description="Reading the studies", exclusive=True)
    def load_studies(self) -> None:
        from abp_tui.services import studies as services

        studies = services.read_studies(self.db_path)
        if not get_current_worker().is_cancelled:
            self.post_message(StudiesLoaded(studies))

    @background(group="home-detail", description="Reading a study", exclusive=True)
    def load_detail(self, study_id: str, task_start: int = 0) -> None:
        from abp_tui.services import studies as services

        detail = services.read_study_detail(self.db_path, study_id, task_start)
        if not get_current_worker().is_cancelled:
            self.post_message(StudyDetailLoaded(detail))

    # -- messages ---------------------------------------------------------------------------------
    @on(StudiesLoaded)
    def show_studies(self, message: StudiesLoaded) -> None:
        self.query_one("#load-error", Static).update("")
        self.set_class(False, "-failed")
        table = self.table("studies")
        previous, self.shown_study = self.shown_study, None
        from abp_tui.services.design_choices import PACK_PROTOCOL

        self.studies = {s.id: s for s in message.studies}
        station = bool(self.studies) and all(
            s.protocol == PACK_PROTOCOL for s in self.studies.values()
        )
        if station != self.station:
            self.station = station
            self.refresh_bindings()
        hint = self.import_hint_text(station, populated=bool(self.studies))
        self.query_one("#import-hint", Static).update(hint)
        self.fill(
            "studies",
            [
                (
                    s.id,
                    [
                        plain(s.id, ID_WIDTH),
                        Text("SYNTHETIC", style=SYNTHETIC_STYLE) if s.synthetic else Text(""),
                        plain(s.protocol, 16),
                        number(s.tasks),
                        number(s.conditions),
                        number(s.runs),
                        number(s.excluded_runs),
                        number(s.trace_events),
                        plain(s.name, LISTED_NAME_WIDTH),
                    ],
                )
                for s in message.studies
            ],
        )
        self.set_class(not message.studies, "-empty")
        self.query_one("#empty", Static).update(self.empty_text())
        if not message.studies:
            self.show_study(None)
            return
        row = 0
        followed, self._followed = self._followed, None
        if followed in self.studies:
            row = table.get_row_index(followed)
        elif previous in self.studies:
            row = table.get_row_index(previous)
        table.move_cursor(row=row)
        if self.focused is None:
            # The table was hidden while the database was empty, which took the focus away.
            table.focus()
        self.show_study(message.studies[row].id)

    @on(StudyDetailLoaded)
    def show_loaded_detail(self, message: StudyDetailLoaded) -> None:
        self.details[message.detail.study_id] = message.detail
        if message.detail.study_id == self.shown_study:
            self.fill_detail(message.detail)

    @on(WorkerFailed)
    def show_failure(self, message: WorkerFailed) -> None:
        # The app shows the failure itself; a database that cannot be read is said here too.
        if message.group in ("home-studies", "home-detail"):
            self.set_class(True, "-failed")
            self.query_one("#load-error", Static).update(
                Text.assemble(("Cannot read the database: ", "bold"), safe_line(message.reason))
            )

    @on(DataTable.RowHighlighted, "#studies")
    def study_highlighted(self, event: DataTable.RowHighlighted) -> None:
        key = event.row_key.value
        if key is not None and key in self.studies:
            self.show_study(key)

    @on(DataTable.RowSelected, "#studies")
    def study_selected(self, event: DataTable.RowSelected) -> None:
        key = event.row_key.value
        study = self.studies.get(key) if key is not None else None
        if study is not None:
            from abp_tui.tui.app import AbpApp

            if isinstance(self.app, AbpApp):
                self.app.open_judging(None, include_open=True, study=study.id)

    # -- showing ----------------------------------------------------------------------------------
    def show_study(self, study_id: str | None) -> None:
        if study_id is not None and study_id == self.shown_study:
            return
        self.shown_study = study_id
        study = self.studies.get(study_id) if study_id is not None else None
        self.update_banner()
        info = self.query_one("#study-info", Clamped)
        self.query_one("#progress", Static).update("")
        self.query_one("#tasks-title", Static).update(self.tasks_title(None))
        if study is None:
            info.show(Text())
            self.fill("conditions", [])
            self.fill("tasks", [])
            return
        parts: list[Text | str | tuple[str, str]] = [
            plain(study.id, ID_WIDTH, style="bold"),
            "  ",
            plain(study.name, NAME_WIDTH),
            ("  ·  protocol ", "dim"),
            plain(study.protocol, 16),
        ]
        if study.description:
            parts += [("  ·  ", "dim"), plain(study.description, DESCRIPTION_WIDTH, style="dim")]
        info.show(Text.assemble(*parts))
        if study_id in self.details:
            shown = self.details[study_id]
            self.fill_detail(shown)
            if study_id in self._stale:
                self._stale.discard(study_id)
                self.load_detail(study.id, shown.task_start)
        else:
            self.fill("conditions", [])
            self.fill("tasks", [])
            self.load_detail(study.id)

    def tasks_title(self, detail: StudyDetail | None) -> Text:
        """The tasks pane's title, with the page shown when the tasks do not fit on one."""
        title = Text("Tasks")
        if detail is not None and detail.task_total > len(detail.tasks):
            first = detail.task_start + 1 if detail.tasks else 0
            last = detail.task_start + len(detail.tasks)
            title.append(f"  {first:,}-{last:,} of {detail.task_total:,}")
            title.append("  ] [ pages", style="dim")  # fits the pane at 80 columns
        return title

    def action_tasks_page(self, step: int) -> None:
        detail = self.details.get(self.shown_study) if self.shown_study is not None else None
        if detail is None:
            return
        from abp_tui.services import studies as services

        start = detail.task_start + step * services.TASK_PAGE
        if start < 0 or start >= detail.task_total or start == detail.task_start:
            return
        self.load_detail(detail.study_id, start)

    def fill_detail(self, detail: StudyDetail) -> None:
        self.query_one("#tasks-title", Static).update(self.tasks_title(detail))
        study = self.studies.get(detail.study_id)
        preferences = study.preferences if study is not None else 0
        viewer = str(getattr(self.app, "reviewer", "") or "")
        self.query_one("#progress", Static).update(
            progress_text(
                detail.progress, preferences, adjudicators=detail.adjudicators, viewer=viewer
            )
        )
        self.fill(
            "conditions",
            [
                (
                    c.summary.condition.id,
                    [
                        plain(c.summary.condition.id, ID_WIDTH),
                        number(c.summary.runs),
                        number(c.excluded),
                        plain(c.summary.condition.label, LABEL_WIDTH),
                    ],
                )
                for c in detail.conditions
            ],
        )
        self.fill(
            "tasks",
            [
                (
                    t.summary.task.id,
                    [
                        plain(t.summary.task.id, ID_WIDTH),
                        number(t.summary.runs),
                        number(t.excluded),
                        plain(t.summary.task.risk_type, LABEL_WIDTH)
                        if t.summary.task.risk_type
                        else Text("—", style="dim"),
                    ],
                )
                for t in detail.tasks
            ],
        )

    def update_banner(self) -> None:
        banner = self.query_one("#banner", Static)
        synthetic = [s for s in self.studies.values() if s.synthetic]
        shown = self.studies.get(self.shown_study) if self.shown_study is not None else None
        if shown is not None and shown.synthetic:
            banner.update(
                Text.assemble(
                    ("SYNTHETIC DEMO DATA", "bold"),
                    ": study ",
                    plain(shown.id, ID_WIDTH, style="bold"),
                    " was not produced by real models. Use it to try the workstation; "
                    "do not cite its results.",
                )
            )
        elif synthetic:
            banner.update(
                Text.assemble(
                    ("Synthetic demo data present", "bold"),
                    f": {len(synthetic)} of {len(self.studies)} studies are marked SYNTHETIC "
                    "(not produced by real models).",
                )
            )
        self.set_class(bool(synthetic), "-synthetic")
        self.set_class(shown is not None and shown.synthetic, "-synthetic-shown")

    def empty_text(self) -> Text:
        return Text.assemble(
            ("No studies in this database yet.\n\n", "bold"),
            "Import run records (i):  ",
            (safe_line(command("import PATH", self.db_path)), "bold"),
            "\nOr load the demo data:   ",
            (safe_line(command("demo", self.db_path)), "bold"),
            "\n\nThen press r here to reload (q quits).",
        )

    # -- actions ----------------------------------------------------------------------------------
    def action_reload(self) -> None:
        self._to_read = False  # read now, as asked
        self.details.clear()
        self._stale.clear()
        self.load_studies()

    def _refused(self, capability: Capability, title: str) -> bool:
        """Said at once, before any form, when the team member signed in may not do it."""
        from abp_tui.services.roles import refusal

        refused = refusal(capability)
        if refused is not None:
            self.notify(str(refused), title=title, severity="warning", markup=False)
        return refused is not None

    def action_new_design(self) -> None:
        if self._refused("design", "New design"):
            return
        if self.shown_study is None:
            self.notify(
                "There is no study to design yet: import run records first (press i).",
                title="New design",
                severity="warning",
                markup=False,
            )
            return
        self.load_design_defaults(self.shown_study)

    @background(group="home-design", description="Reading the study for a new design")
    def load_design_defaults(self, study_id: str) -> None:
        from abp_tui.services import studies as services
        from abp_tui.tui.app import AbpApp

        reviewer = self.app.reviewer if isinstance(self.app, AbpApp) else ""
        self.post_message(
            DesignDefaultsLoaded(services.read_design_defaults(self.db_path, study_id, reviewer))
        )

    @on(DesignDefaultsLoaded)
    def open_design_form(self, message: DesignDefaultsLoaded) -> None:
        from abp_tui.tui.screens.newdesign import NewDesign, NewDesignScreen

        def chosen(request: NewDesign | None) -> None:
            if request is not None and request.path:
                self.create_design(request.path)
            elif request is not None and request.choices is not None:
                self.create_chosen_design(request.choices)

        self.app.push_screen(NewDesignScreen(message.defaults), chosen)

    @background(group="home-design", description="Creating a study design")
    def create_design(self, path: str) -> None:
        from abp_tui.services import studies as services

        self.post_message(DesignCreated(services.create_design_file(self.db_path, Path(path))))

    @background(group="home-design", description="Creating a study design")
    def create_chosen_design(self, choices: DesignChoices) -> None:
        from abp_tui.services import studies as services

        self.post_message(DesignCreated(services.create_design_from_choices(self.db_path, choices)))

    @on(DesignCreated)
    def design_created(self, message: DesignCreated) -> None:
        done = message.created
        self.notify(
            safe_line(
                f"{done.status}: design {done.name} v{done.version_no} of {done.study}, "
                f"{done.items} items ({done.pair_items} pairs, {done.single_items} single), "
                f"rubric {done.rubric}, seed {done.seed}"
                + "".join(f". Warning: {w}" for w in done.warnings)
                + (f". The plan {done.held_back_note}" if done.held_back_note else "")
            ),
            title="Design",
            markup=False,
            severity="warning" if done.warnings else "information",
        )
        self.action_reload()

    def action_judges(self) -> None:
        from abp_tui.tui.screens.coordinator_notice import ask_before_viewing
        from abp_tui.tui.screens.judges import JudgesScreen

        study = self.shown_study

        def push() -> None:
            self.app.push_screen(JudgesScreen(self.db_path, study))

        # The report measures the judges against people: a first look makes its viewer the
        # study's coordinator, so the workstation asks first.
        viewer = getattr(self.app, "reviewer", None)
        ask_before_viewing(self.app, self.db_path, viewer, "judges", study, None, push)

    def action_import_files(self) -> None:
        from abp_tui.tui.screens.import_files import ImportScreen

        if self._refused("import", "Import"):
            return

        def imported(summary: str | None) -> None:
            if summary is not None:
                self.notify(summary, title="Import", markup=False, timeout=12)
                self.action_reload()

        self.app.push_screen(ImportScreen(self.db_path), imported)
