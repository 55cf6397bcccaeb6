"""The judgment form: the validity gate, each response's rubric scoring and the pair's
preference, as one widget shared by the compare screen (a reviewer's judgment) and the
adjudication screen (the final judgment).

The form shows a whole ``Judgment`` (:meth:`JudgmentForm.load`, which posts nothing) and posts
the whole current judgment as one message, :class:`JudgmentForm.Changed`, whenever the reviewer
changes any part of it; the screen decides what a change means (a draft to store, a final
judgment to record). It knows what is still missing before the judgment is complete and which
field asks for it. The rubric's sections are built once the rubric is known (the first item):
its validity gate when it has one, each response's scoring unless it is preference-only, and
the pair's preference. The form stores nothing and starts no worker: saving is the screen's
business.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from textual import on
from textual.containers import Vertical
from textual.message import Message
from textual.widget import Widget

from abp_tui.analysis.scoring import problems
from abp_tui.models import Judgment, ResponseJudgment, Rubric
from abp_tui.services.reviewing import BlindResponse
from abp_tui.tui.widgets.choices import ChoiceRow
from abp_tui.tui.widgets.gate import GatePanel
from abp_tui.tui.widgets.preference import PreferencePanel
from abp_tui.tui.widgets.response_scoring import ResponseScoring


class JudgmentForm(Vertical):
    """One judgment of one item: gate, one scoring section per response, preference (pairs)."""

    DEFAULT_CSS = """
    JudgmentForm {
        height: auto;
        & > GatePanel, & > ResponseScoring, & > PreferencePanel { height: auto; }
        &.-single #score-2, &.-single #preference { display: none; }
    }
    """

    class Changed(Message):
        """The reviewer changed the judgment; ``urgent`` unless they are typing (a pause in the
        typing is worth waiting for before storing it)."""

        def __init__(self, form: JudgmentForm, judgment: Judgment, urgent: bool) -> None:
            super().__init__()
            self.form = form
            self.judgment = judgment
            self.urgent = urgent

        @property
        def control(self) -> JudgmentForm:
            return self.form

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rubric: Rubric | None = None
        self.judgment = Judgment.model_construct()
        """What the form shows now."""
        self.positions: tuple[str, ...] = ()
        """The responses judged: ("1", "2") for a pair, ("1",) for a single response."""

    @property
    def is_pair(self) -> bool:
        return len(self.positions) > 1

    @property
    def scores_responses(self) -> bool:
        return self.rubric is not None and not self.rubric.preference_only

    @property
    def preference_only(self) -> bool:
        """The form asks for a preference and its justification alone (no gate, no scores)."""
        rubric = self.rubric
        return rubric is not None and rubric.preference_only and not rubric.validity_gate

    async def build(self, rubric: Rubric, timing_rule: str | None = None) -> bool:
        """Mount the rubric's sections (once: every item of a design has the same rubric);
        ``timing_rule``: the design asks for correction minutes per response (seed 002).

        True when they were mounted now (the screen's widgets are then all there).
        """
        if self.rubric is not None:
            return False
        self.rubric = rubric
        sections: list[Widget] = []
        if rubric.validity_gate:
            sections.append(GatePanel(rubric.validity_gate, id="gate"))
        if not rubric.preference_only:
            sections += [
                ResponseScoring("1", rubric, id="score-1", timing_rule=timing_rule),
                ResponseScoring("2", rubric, id="score-2", timing_rule=timing_rule),
            ]
        sections.append(PreferencePanel(id="preference"))
        await self.mount_all(sections)
        return True

    def load(
        self,
        judgment: Judgment,
        responses: Sequence[BlindResponse],
        fatal_criteria: tuple[str, ...],
    ) -> None:
        """Show ``judgment`` of an item with these ``responses`` (no message is posted)."""
        self.judgment = judgment
        self.positions = tuple(str(i + 1) for i in range(len(responses)))
        self.set_class(not self.is_pair, "-single")
        for gate in self.query(GatePanel):
            gate.load(judgment.validity)
        if self.scores_responses:
            titles = ["Response 1", "Response 2"] if self.is_pair else ["Response"]
            for position, title, response in zip(self.positions, titles, responses, strict=False):
                self.query_one(f"#score-{position}", ResponseScoring).load(
                    judgment.responses.get(position, ResponseJudgment.model_construct()),
                    fatal_criteria,
                    response.record_state,
                    title,
                )
        self.query_one(PreferencePanel).load(judgment.preference, judgment.justification)

    # -- what is missing ----------------------------------------------------------------------
    def missing(self) -> list[str]:
        """What the judgment still lacks before it is complete, in the core's words."""
        if self.rubric is None or not self.positions:
            return []
        return problems(self.rubric, self.judgment, list(self.positions), self.is_pair)

    def sections(self) -> list[Widget]:
        """The parts of the form in order: the gate, each response, the preference (those the
        rubric and the item have)."""
        found: list[Widget] = list(self.query(GatePanel))
        if self.scores_responses:
            found += [self.query_one(f"#score-{p}", ResponseScoring) for p in self.positions]
        if self.is_pair:
            found.append(self.query_one(PreferencePanel))
        return found

    def first_missing(self) -> Widget | None:
        """The first field still needing an answer, in the order of the form."""
        for section in self.sections():
            if isinstance(section, GatePanel | ResponseScoring | PreferencePanel):
                target = section.first_missing()
                if target is not None:
                    return target
        return None

    def first_row(self) -> ChoiceRow:
        """The first row of the form (the gate's first check, when the rubric has a gate)."""
        return self.sections()[0].query(ChoiceRow).first()

    def focus_section(self, step: int) -> None:
        """Move the focus to the first row of the next (``step`` 1) or previous section."""
        sections = self.sections()
        focused = self.screen.focused
        current = next(
            (
                i
                for i, section in enumerate(sections)
                if focused is not None and section in focused.ancestors_with_self
            ),
            -1 if step > 0 else 0,
        )
        target = sections[(current + step) % len(sections)]
        self.screen.set_focus(target.query(ChoiceRow).first())
        target.scroll_visible(top=True, animate=False)

    # -- changes ------------------------------------------------------------------------------
    def _changed(self, urgent: bool, **update: Any) -> None:
        judgment = self.judgment.model_copy(update=update)
        if judgment != self.judgment:
            self.judgment = judgment
            self.post_message(self.Changed(self, judgment, urgent))

    @on(GatePanel.Changed)
    def gate_changed(self, event: GatePanel.Changed) -> None:
        event.stop()
        self._changed(True, validity=event.validity)

    @on(ResponseScoring.Changed)
    def response_changed(self, event: ResponseScoring.Changed) -> None:
        event.stop()
        responses = dict(self.judgment.responses)
        responses[event.position] = event.state
        self._changed(event.urgent, responses=responses)

    @on(PreferencePanel.Changed)
    def preference_changed(self, event: PreferencePanel.Changed) -> None:
        event.stop()
        self._changed(event.urgent, preference=event.preference, justification=event.justification)
