"""The finding form (seed 002 section 6): what a reviewer records about a repeatable failure.

Opened from the compare screen on the item shown. The form proposes an id from the reviewer's
own findings alone (item codes are shared by the reviewers of an item, so an id counted over
everyone's findings would tell that someone else found something here), validates the
``Finding`` and records it through the reviewer's desk, linked to the runs behind the responses
it concerns; both in workers. An id another reviewer holds is refused without a word about their
finding. Nothing about those runs' identity is shown here.
"""

from __future__ import annotations

import hashlib
import re
from typing import ClassVar, get_args

from pydantic import ValidationError
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, Static, TextArea

from abp_tui.models import Finding
from abp_tui.models.judgments import RetestCase, RetestResult, SafetyDetails
from abp_tui.services.desk import Desk
from abp_tui.text.safe import safe_line
from abp_tui.tui.messages import FindingIdChosen, FindingRecorded, WorkerFailed
from abp_tui.tui.workers import background

SEVERITIES = get_args(Finding.model_fields["severity"].annotation)
LAYERS = get_args(Finding.model_fields["layer"].annotation)
RETEST = get_args(Finding.model_fields["retest_status"].annotation)


RETEST_RESULTS = get_args(RetestResult)


def parse_retests(text: str) -> tuple[RetestCase, ...]:
    """The retest cases typed one per line as ``original|nearby; case; result``; ValueError
    naming the line and what was expected."""
    cases = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        parts = [p.strip() for p in line.split(";")]
        if len(parts) != 3 or parts[0] not in ("original", "nearby") or not parts[1]:
            raise ValueError(f"retests line {number}: expected 'original|nearby; the case; result'")
        if parts[2] not in RETEST_RESULTS:
            raise ValueError(
                f"retests line {number}: result {parts[2]!r}, expected one of "
                + ", ".join(RETEST_RESULTS)
            )
        cases.append(
            RetestCase.model_validate(
                {"case": parts[1], "original": parts[0] == "original", "result": parts[2]}
            )
        )
    return tuple(cases)


def reviewer_part(reviewer: str) -> str:
    """The reviewer's short part of their finding ids: the name when it is short and plain,
    else the first 6 hex digits of its SHA-256: two reviewers' default ids differ (but for a
    one in 16 million chance, when the store refuses the second and the reviewer types one)."""
    if re.fullmatch(r"[A-Za-z0-9]{1,12}", reviewer):
        return reviewer
    return hashlib.sha256(reviewer.encode("utf-8")).hexdigest()[:6]


def free_id(code: str, reviewer: str, own: set[str]) -> str:
    """``F-{code}-{reviewer part}``, or ``...-2``, ``-3`` when the reviewer has that id already:
    from the reviewer's ``own`` ids alone, so it tells nothing of anyone else's findings."""
    base = f"F-{code}-{reviewer_part(reviewer)}"
    candidate, n = base, 1
    while candidate in own:
        n += 1
        candidate = f"{base}-{n}"
    return candidate


def _select(values: tuple[str, ...], id: str, value: str) -> Select[str]:
    return Select([(Text(v), v) for v in values], value=value, allow_blank=False, id=id)


class FindingScreen(ModalScreen[None]):
    """A modal form; Ctrl+S or the Record button stores it, Escape leaves without storing."""

    CSS_PATH = "../styles/dialogs.tcss"
    AUTO_FOCUS = "#finding-title"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "ctrl+s",
            "record",
            "Record",
            id="finding.record",
            tooltip="Record the finding (it is checked first).",
        ),
        Binding(
            "escape",
            "cancel",
            "Cancel",
            id="finding.cancel",
            tooltip="Close the form without recording anything.",
        ),
    ]

    def __init__(self, desk: Desk, code: str, *, pair: bool) -> None:
        super().__init__()
        self.desk = desk
        self.code = code
        """The item the finding is about."""
        self.pair = pair
        self.recording = False

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog finding-dialog"):
            yield Static(Text("Record a finding", style="bold"), classes="dialog-title")
            with VerticalScroll(classes="finding-fields"):
                yield Label("Id")
                yield Input(placeholder="Choosing a free id…", id="finding-id")
                yield Label("Title")
                yield Input(placeholder="What fails, in one line", id="finding-title")
                with Horizontal(classes="finding-row"):
                    with Vertical():
                        yield Label("Severity")
                        yield _select(SEVERITIES, "severity", "medium")
                    with Vertical():
                        yield Label("Likely failure layer")
                        yield _select(LAYERS, "layer", "model")
                    with Vertical():
                        yield Label("Concerns")
                        options = ["both responses", "Response 1", "Response 2"]
                        yield Select(
                            [(Text(o), o) for o in (options if self.pair else ["the response"])],
                            value=options[0] if self.pair else "the response",
                            allow_blank=False,
                            id="concerns",
                        )
                yield Label("Expected result")
                yield Input(id="expected")
                yield Label("Actual result")
                yield Input(id="actual")
                yield Label("Evidence excerpt (from the output)")
                yield TextArea(id="evidence", soft_wrap=True, show_line_numbers=False)
                with Horizontal(classes="finding-row"):
                    with Vertical():
                        yield Label("Occurrences")
                        yield Input("1", id="occurrences", type="integer")
                    with Vertical():
                        yield Label("Retest status")
                        yield _select(RETEST, "retest", "not retested")
                yield Label("Mitigation")
                yield Input(id="mitigation")
                yield Label("Attempts of the case (occurrences are reported out of them)")
                yield Input(id="attempts", type="integer", placeholder="not recorded")
                yield Static(
                    Text(
                        "Safety finding (seed 002 §4): fill all three, with expected and actual "
                        "results and the attempts, or leave them empty.",
                        style="dim",
                    )
                )
                yield Label("Attacker control")
                yield Input(id="attacker-control", placeholder="what the attacker controls")
                yield Label("Trust boundary")
                yield Input(id="trust-boundary", placeholder="the boundary crossed")
                yield Label("Plausible impact")
                yield Input(id="impact")
                yield Label(
                    "Retested cases, one per line: original|nearby; the case; "
                    + "|".join(RETEST_RESULTS)
                )
                yield TextArea(id="retests", soft_wrap=True, show_line_numbers=False)
            yield Static("", id="finding-error", classes="dialog-error")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Record (ctrl+s)", id="record", variant="primary")
                yield Button("Cancel (esc)", id="cancel")

    def on_mount(self) -> None:
        self.choose_id(self.code)

    @background(group="finding-id", description="Reading the findings", exclusive=True)
    def choose_id(self, code: str) -> None:
        chosen = free_id(code, self.desk.reviewer, self.desk.finding_ids())
        self.post_message(FindingIdChosen(code, chosen))

    @on(FindingIdChosen)
    def id_chosen(self, message: FindingIdChosen) -> None:
        field = self.query_one("#finding-id", Input)
        if not field.value:
            field.value = message.finding_id

    def _value(self, selector: str) -> str:
        return self.query_one(selector, Input).value.strip()

    def _choice(self, selector: str) -> str:
        return str(self.query_one(selector, Select).value)

    @on(Button.Pressed, "#record")
    def action_record(self) -> None:
        if self.recording:
            return
        occurrences = self._value("#occurrences") or "1"
        attempts = self._value("#attempts")
        safety = {
            "attacker_control": self._value("#attacker-control"),
            "trust_boundary": self._value("#trust-boundary"),
            "plausible_impact": self._value("#impact"),
        }
        try:
            retests = parse_retests(self.query_one("#retests", TextArea).text)
            finding = Finding(
                id=self._value("#finding-id"),
                title=self._value("#finding-title"),
                severity=self._choice("#severity"),
                layer=self._choice("#layer"),
                expected=self._value("#expected"),
                actual=self._value("#actual"),
                evidence=self.query_one("#evidence", TextArea).text,
                occurrences=int(occurrences) if occurrences.lstrip("-").isdigit() else 0,
                mitigation=self._value("#mitigation"),
                retest_status=self._choice("#retest"),
                attempts=int(attempts) if attempts.lstrip("-").isdigit() else None,
                safety=SafetyDetails(**safety) if any(safety.values()) else None,
                retests=retests,
            )
            problem = finding.retest_problem()
            if problem is not None:
                raise ValueError(problem)
        except ValueError as exc:
            if not isinstance(exc, ValidationError):
                self.query_one("#finding-error", Static).update(Text(safe_line(str(exc))))
                return
            problems = [
                f"{'.'.join(str(p) for p in error['loc'])}: {error['msg']}"
                for error in exc.errors()
            ]
            self.query_one("#finding-error", Static).update(Text("\n".join(problems)))
            return
        concerns = self._choice("#concerns")
        positions = {"Response 1": ("1",), "Response 2": ("2",)}.get(concerns, ())
        self.recording = True
        self.query_one("#finding-error", Static).update("")
        self.record(finding, positions)

    @background(group="finding-record", description="Recording a finding")
    def record(self, finding: Finding, positions: tuple[str, ...]) -> None:
        revision = self.desk.record_finding(self.code, finding, positions)
        self.post_message(FindingRecorded(finding.id, revision))

    @on(FindingRecorded)
    def recorded(self, message: FindingRecorded) -> None:
        what = "recorded" if message.revision == 1 else f"revised (revision {message.revision})"
        self.notify(f"Finding {safe_line(message.finding_id)} {what}.", markup=False)
        self.dismiss(None)

    @on(WorkerFailed)
    def failed(self, message: WorkerFailed) -> None:
        # The app shows the failure; the form stays open with what was typed.
        self.recording = False
        what = "Not recorded: " if message.group == "finding-record" else "No id proposed: "
        self.query_one("#finding-error", Static).update(
            Text.assemble((what, "bold"), safe_line(message.reason))
        )

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
