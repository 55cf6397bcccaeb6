"""The Judges screen: how far each AI judge of a study agrees with people, and with itself.

The report is :func:`abp_tui.services.judges.judge_report`'s, computed in a worker thread (the
same function as ``abp-tui judges``), and shown as the same lines the command prints
(:func:`abp_tui.analysis.judges.view.view_lines`), as plain text: judge ids and run ids come from
records and are never markup. A coordinator's screen: it shows AI verdicts' figures, never a
reviewer's blind item; a reviewer who opens it with items still to judge is refused, and the
screen says why (:func:`abp_tui.services.coordinator_identity.refuse_pending`).

The user picks the human reference as ``abp-tui judges --reference`` does (``f`` steps through
the default, a design's final verdicts and the labels imported with the study) and, when the
study has several designs, which one (``d``, the designs dialog the coordinator's screens use).
The report's first line names the reference in use. Below the report, the human judgments each
figure needs for a half-width of 0.05 with the judge and without it, as ``abp-tui plan`` prints
them (:func:`abp_tui.analysis.human_budget.plan_lines`). A choice the service refuses (final
verdicts of a study without a design) shows its one-line reason above the report computed
before, which stays on screen.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Header, Static
from textual.worker import get_current_worker

from abp_tui.analysis.human_budget import DEFAULT_HALF_WIDTH, human_budget, plan_lines
from abp_tui.analysis.judges.view import view_lines
from abp_tui.services.coordinator import DesignChoice, design_choices
from abp_tui.services.judges import ReferenceChoice, read_judge_report
from abp_tui.text.hints import command, quoted
from abp_tui.text.safe import safe_line
from abp_tui.tui.messages import JudgesComputed, WorkerFailed
from abp_tui.tui.screens.designs import DesignPickerScreen
from abp_tui.tui.widgets.keybar import KeyBar
from abp_tui.tui.workers import background

CHOICES: tuple[ReferenceChoice | None, ...] = (None, "final", "labels")
"""The references ``f`` steps through, in order (None: the service's default)."""
CHOICE_NAMES: dict[ReferenceChoice | None, str] = {
    None: "default (a design's final verdicts once people judged some of it, else the labels)",
    "final": "the final human verdicts of a design",
    "labels": "the labels imported with the study",
}
SHORT_NAMES: dict[ReferenceChoice | None, str] = {
    None: "default",
    "final": "final human verdicts",
    "labels": "imported labels",
}
"""The same, as the line under the summary says them (the default's meaning is in ``?``)."""
PURPOSE = "AI judges against people"
"""The designs dialog's title: what the chosen design is for."""


class JudgesScreen(Screen[None]):
    """Every AI judge of one study, measured against the human reference the user picks."""

    CSS_PATH = "../styles/judges.tcss"
    AUTO_FOCUS = "#judges-report"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "f",
            "reference",
            "Reference",
            id="judges.reference",
            tooltip=(
                "Measure the judges against the next human reference: the default (a design's "
                "final verdicts once people judged some of it, else the imported labels), the "
                "final human verdicts of a design, or the labels imported with the study."
            ),
        ),
        Binding(
            "d",
            "design",
            "Design",
            id="judges.design",
            tooltip=(
                "Choose the study design whose final human verdicts are the reference, when the "
                "study has several."
            ),
        ),
        Binding(
            "r",
            "reload",
            "Recompute",
            id="judges.reload",
            tooltip="Read the verdicts and the human reference again and recompute the report.",
        ),
        Binding(
            "escape",
            "back",
            "Back",
            key_display="esc",
            id="judges.back",
            tooltip="Back to the previous screen.",
        ),
    ]

    class ReportRead(JudgesComputed):
        """The report's lines, with the choice they were computed for and the study's
        designs (the latest version of each, for ``d``)."""

        def __init__(
            self,
            lines: list[str],
            reference: ReferenceChoice | None,
            design: str | None,
            designs: tuple[DesignChoice, ...],
            planning: list[str] | None = None,
            plan_command: str = "",
        ) -> None:
            super().__init__(lines)
            self.reference = reference
            self.design = design
            self.designs = designs
            self.planning = planning or []
            self.plan_command = plan_command
            """The ``abp-tui plan`` command that prints the planning (pasted as is, it runs)."""

    def __init__(
        self,
        db_path: Path,
        study: str | None,
        *,
        reference: ReferenceChoice | None = None,
        design: str | None = None,
    ) -> None:
        super().__init__()
        self.db_path = db_path
        self.study = study
        self.reference: ReferenceChoice | None = reference
        """The reference asked for (None: the default); the report shown may be an earlier
        choice's when this one was refused."""
        self.design: str | None = design
        """The design asked for, by name (None: the study's latest)."""
        self.designs: tuple[DesignChoice, ...] = ()
        """The study's designs, as read with the last report."""
        self.lines: list[str] = []
        """The report as shown (the tests read it)."""
        self.planning: list[str] = []
        """The plan shown below the report: :func:`abp_tui.analysis.human_budget.plan_lines`
        at the default half-width."""
        self.refusal: str | None = None
        """Why the last choice has no report (None: the report shown is the one asked for)."""

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(Text("Computing the judge report…"), id="judges-summary")
        yield Static("", id="judges-choice")
        with VerticalScroll(id="judges-report"):
            yield Static("", id="judges-body")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#judges-report").border_title = PURPOSE
        self.recompute()

    def recompute(self) -> None:
        self.show_choice(computing=True)
        self.compute(self.reference, self.design)

    @background(group="judges", description="Computing the judge report", exclusive=True)
    def compute(self, reference: ReferenceChoice | None, design: str | None) -> None:
        viewer = getattr(self.app, "reviewer", None)
        report = read_judge_report(
            self.db_path, self.study, viewer, reference=reference, design=design
        )
        lines = view_lines(report)
        # The same plan as `abp-tui plan` (the rates withheld while the study is blind).
        plan = human_budget(report, DEFAULT_HALF_WIDTH, report.estimates_withheld)
        every = design_choices(self.db_path)
        designs = tuple(c for c in every if c.study_id == report.study and c.pk is not None)
        plan_command = command(f"plan --study {quoted(report.study)}", self.db_path)
        if not get_current_worker().is_cancelled:
            self.post_message(
                self.ReportRead(lines, reference, design, designs, plan_lines(plan), plan_command)
            )

    @on(WorkerFailed)
    def failed(self, message: WorkerFailed) -> None:
        if not message.internal:
            message.stop()  # a refusal is said below, once; a bug still reaches the app's notice
        self.refusal = message.reason
        summary = self.query_one("#judges-summary", Static)
        if not self.lines:
            summary.update(
                Text.assemble(
                    ("No judge report: ", "bold red"),
                    safe_line(message.reason),
                    "\nNothing is shown below.",
                )
            )
        else:
            summary.update(
                Text.assemble(
                    (f"No report against {CHOICE_NAMES[self.reference]}: ", "bold red"),
                    safe_line(message.reason),
                    "\nStill shown below, as before: ",
                    (self.lines[0], "bold"),
                )
            )
        self.show_choice()

    @on(ReportRead)
    def computed(self, message: ReportRead) -> None:
        self.lines = message.lines
        self.designs = message.designs
        self.refusal = None
        head, body = message.lines[:2], message.lines[2:]  # what it is, whose view it is
        self.query_one("#judges-summary", Static).update(Text("\n".join(head), style="bold"))
        self.planning = message.planning
        planning = [
            "",
            f"Planning (as `{safe_line(message.plan_command)}`; "
            "other half-widths: add `--width W`)",
            *message.planning,
        ]
        self.query_one("#judges-body", Static).update(
            Text("\n".join(body + (planning if message.planning else [])))
        )
        self.show_choice()

    def show_choice(self, *, computing: bool = False) -> None:
        """The line under the summary: the reference and design asked for, and the keys that
        change them."""
        design = safe_line(self.design) if self.design else "the study's latest"
        if len(self.designs) > 1:
            design += f" (d: one of {len(self.designs)})"
        line = Text.assemble(
            ("Reference asked for: ", "bold"),
            SHORT_NAMES[self.reference],
            (" (f: next)", "dim"),
            ("  ·  Design: ", "bold"),
            design,
        )
        if computing:
            line.append("  ·  computing…", style="italic")
        elif self.refusal is not None:
            line.append("  ·  refused", style="bold red")
        self.query_one("#judges-choice", Static).update(line)

    def action_reference(self) -> None:
        at = CHOICES.index(self.reference)
        self.reference = CHOICES[(at + 1) % len(CHOICES)]
        self.recompute()

    def action_design(self) -> None:
        if len(self.designs) < 2:
            study = safe_line(self.study or "this study")
            if self.designs:
                only = safe_line(self.designs[0].label)
                text = f"The study has one design ({only}): there is no other to choose."
            else:
                text = (
                    f"{study} has no study design: the final human verdicts need one "
                    f"({command('study create --study STUDY', self.db_path)})."
                )
            self.notify(text, title="Design", severity="information", markup=False)
            return

        def picked(choice: DesignChoice | None) -> None:
            if choice is not None:
                self.design = choice.name
                self.recompute()

        self.app.push_screen(DesignPickerScreen(PURPOSE, list(self.designs)), picked)

    def action_reload(self) -> None:
        self.recompute()

    def action_back(self) -> None:
        self.app.pop_screen()
