"""The new-design form: a study design chosen field by field, or read from a TOML or JSON file.

The same as ``abp-tui study create --study S --rubric ... --pairs ... --tasks ... --adjudicators
... --limitation ...`` (or ``abp-tui study create FILE``): the form starts from the study's
defaults (every condition, all pairs, every task, the current reviewer, anyone may adjudicate,
no limitation, a fresh seed, the study's rubric or preference only), collects the choices and
dismisses with them; the home screen calls the core in a worker and reports what happened. A
TOML file stays the way to version a design with everything it can say.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, SelectionList, Static, TextArea

from abp_tui.services.designing import ALL, DesignChoices, DesignDefaults, choices_warning
from abp_tui.text.safe import safe_line


@dataclass(frozen=True)
class NewDesign:
    """What the form asks for: a design file's path, or the choices of a design."""

    path: str | None = None
    choices: DesignChoices | None = None


class NewDesignScreen(ModalScreen[NewDesign | None]):
    """Choose a new design's fields (or give a file); dismiss with them (None: cancelled)."""

    CSS_PATH = "../styles/newdesign.tcss"
    VERTICAL_BREAKPOINTS = [(0, "-short"), (30, "-tall")]  # noqa: RUF012
    AUTO_FOCUS = "#design-name"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "escape",
            "cancel",
            "Back",
            id="new-design.cancel",
            tooltip="Close the form without creating anything.",
        ),
        Binding(
            "ctrl+s",
            "create",
            "Create",
            id="new-design.create",
            tooltip="Create the design with the choices shown (Enter in a field does too).",
        ),
    ]

    def __init__(self, defaults: DesignDefaults) -> None:
        super().__init__()
        self.defaults = defaults

    def compose(self) -> ComposeResult:
        d = self.defaults
        with Vertical(classes="dialog new-design"):
            yield Static(
                Text.assemble(("New study design for ", "bold"), (safe_line(d.study), "bold")),
                classes="dialog-title",
            )
            if d.unblinded is not None:  # in view before the design is made, not only after
                who, when = (safe_line(x) for x in d.unblinded)
                yield Static(
                    Text(
                        f"Unblinded by {who} at {when}: whoever judges this design may know the "
                        "study's results by condition, and its bundle will say so.",
                        style="bold",
                    ),
                    id="design-unblinded",
                    classes="dialog-text",
                )
            # The explanation and the warning scroll with the fields: on a small terminal the
            # fields keep the room (the title and the buttons stay in view).
            with VerticalScroll(classes="design-fields"):
                yield Static(
                    Text(
                        "The same as `abp-tui study create --study STUDY` with these choices as "
                        "its options. Pairs join runs of the same task and trial; the seed makes "
                        "the plan reproducible. Enter or ctrl+s creates; Escape goes back."
                    ),
                    classes="dialog-text",
                )
                with Horizontal(classes="design-row"):
                    with Vertical():
                        yield Label("Name (an existing one makes a new version)")
                        yield Input(d.name, id="design-name")
                    with Vertical():
                        yield Label("Seed (fresh; keep it to reproduce the plan)")
                        yield Input(str(d.seed), type="integer", id="design-seed")
                yield Label("Rubric")
                yield Select(
                    [(Text(safe_line(r.label)), r.id) for r in d.rubrics],
                    value=d.rubrics[0].id,
                    allow_blank=False,
                    id="design-rubric",
                )
                yield Label("Conditions (space toggles one)")
                yield SelectionList[str](
                    *(
                        (
                            Text(safe_line(f"{cid}  {label}" if label not in ("", cid) else cid)),
                            cid,
                            True,
                        )
                        for cid, label in d.conditions
                    ),
                    id="design-conditions",
                )
                yield Label("Pairs: all, none, or condition pairs like C:A, D:B")
                yield Input(ALL, id="design-pairs")
                yield Label("Tasks: all, or task ids by commas like T1, T2")
                yield Input(ALL, id="design-tasks")
                with Horizontal(classes="design-row"):
                    with Vertical():
                        yield Label("Reviewers, by commas (none: whoever opens it)")
                        yield Input(d.reviewers, id="design-reviewers")
                    with Vertical():
                        yield Label("Reviewers per item")
                        yield Input(
                            "", placeholder="all listed", type="integer", id="design-per-item"
                        )
                yield Static("", id="design-shared")
                yield Label("Adjudicators, by commas (none: anyone who reviewed none of the item)")
                yield Input("", id="design-adjudicators")
                yield Label(
                    "Limitations: what the results cannot say, one per line (publishing the "
                    "results asks for one)"
                )
                yield TextArea("", id="design-limitations", soft_wrap=True)
                yield Label("Or a design file (TOML or JSON; it holds its own choices)")
                yield Input(placeholder="fixtures/designs/afp-pilot-demo.toml", id="design-path")
            yield Static("", id="design-error", classes="dialog-error")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Create", id="create", variant="primary")
                yield Button("Back", id="cancel")

    def _value(self, field: str) -> str:
        return self.query_one(f"#design-{field}", Input).value.strip()

    def limitations(self) -> tuple[str, ...]:
        """The limitations typed, one a line (blank lines are none)."""
        text = self.query_one("#design-limitations", TextArea).text
        return tuple(line.strip() for line in text.splitlines() if line.strip())

    def on_mount(self) -> None:
        self.preview()
        # The focused name is in view from the top on any terminal the form fits: the fields
        # open at their start, their explanation shown (focusing scrolled it away).
        fields = self.query_one(".design-fields", VerticalScroll)
        self.call_after_refresh(fields.scroll_home, animate=False)

    @on(Input.Changed)
    @on(SelectionList.SelectedChanged)
    def preview(self) -> None:
        """Warn while the choices make items share runs that too few reviewers would repeat."""
        try:
            per_item = int(self._value("per-item"))
        except ValueError:
            per_item = 1
        picked = [str(c) for c in self.query_one(SelectionList).selected]
        found = choices_warning(self._value("pairs"), picked, self._value("reviewers"), per_item)
        self.query_one("#design-shared", Static).update(
            Text(f"Warning: {safe_line(found)}", style="bold") if found else Text("")
        )

    def _refuse(self, message: str) -> None:
        self.query_one("#design-error", Static).update(Text(message))

    @on(Input.Submitted)
    @on(Button.Pressed, "#create")
    def action_create(self) -> None:
        path = self._value("path")
        if path:
            self.dismiss(NewDesign(path=path))
            return
        try:
            seed = int(self._value("seed"))
        except ValueError:
            self._refuse("The seed is a whole number.")
            return
        per_item: int | None = None  # empty: every listed reviewer judges every item
        if self._value("per-item"):
            try:
                per_item = int(self._value("per-item"))
            except ValueError:
                per_item = 0
        if per_item is not None and per_item < 1:
            self._refuse("Reviewers per item is a whole number, at least 1.")
            return
        picked = self.query_one(SelectionList).selected
        if len(picked) < 1:
            self._refuse("Choose at least one condition.")
            return
        everything = len(picked) == len(self.defaults.conditions)
        rubric = self.query_one(Select).value
        self.dismiss(
            NewDesign(
                choices=DesignChoices(
                    study=self.defaults.study,
                    name=self._value("name") or None,
                    rubric=rubric if isinstance(rubric, str) else None,
                    conditions=ALL if everything else ",".join(picked),
                    pairs=self._value("pairs") or ALL,
                    reviewers=self._value("reviewers"),
                    reviewers_per_item=per_item,
                    seed=seed,
                    tasks=self._value("tasks") or ALL,
                    adjudicators=self._value("adjudicators"),
                    limitations=self.limitations(),
                )
            )
        )

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
