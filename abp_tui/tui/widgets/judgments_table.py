"""Each reviewer's judgment of a disputed item side by side, and its past adjudication, as Rich
renderables (pure functions, for the adjudication screen).

Rows are in the adjudication screen's positions; a row whose answers differ is marked ``≠``.
Reviewers are "Reviewer 1", "Reviewer 2" in the order they submitted; their names appear only
when the adjudicator asks. Rationales, reasons and notes are typed by reviewers: they are shown
as ``rich.text.Text`` of safe strings, never as markup.

A reviewer's words name the responses as that reviewer saw them, and the screen may show the
pair the other way round (the first reviewer always saw it so). So each column says which way
its reviewer saw the pair, a swapped reviewer's preference is also given in their own terms
("their Response 1"), and their justification is headed by the mapping: a pick and the words
beside it never contradict each other.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.table import Table
from rich.text import Text

from abp_tui.analysis.placement import other_position
from abp_tui.analysis.scoring import result_state, total
from abp_tui.models import (
    Judgment,
    JudgmentRevision,
    PreferenceChoice,
    ResponseJudgment,
    Rubric,
)
from abp_tui.services.coordinator import AdjudicationItem
from abp_tui.text.safe import safe_line, safe_text

PREFERENCE_TEXT = {
    PreferenceChoice.RESPONSE_1: "Response 1 is better",
    PreferenceChoice.RESPONSE_2: "Response 2 is better",
    PreferenceChoice.TIE: "Tie",
    PreferenceChoice.INSUFFICIENT: "Insufficient evidence",
}


SWAPPED = "saw Response 1 and 2 swapped"
AS_HERE = "saw Response 1 and 2 as here"
THEIR_TERMS = "their words: their Response 1 is Response 2 here, their 2 is 1 here"
THEIR_TERMS_SHORT = "their 1 is 2 here"
"""The mapping heading a swapped reviewer's words in their column, whose heading says they saw
the pair swapped: short, so that the words themselves fit the panel at 80 columns."""


def reviewer_heading(
    label: str,
    reviewer: JudgmentRevision,
    show_names: bool,
    swapped: bool | None = None,
    submitted: int = 1,
) -> Text:
    """A reviewer's column heading: "Reviewer 1", their name only when asked, which way they saw
    the pair (``swapped`` None: a single response), and "submitted 2 times" when they revised
    their judgment after first submitting it (their drafts are not counted: a revision number
    counts them, and reads as several submissions)."""
    text = Text(label, style="bold")
    if show_names:
        text.append(f"\n{safe_line(reviewer.reviewer)}", style="italic")
    if swapped is not None:
        text.append(f"\n{SWAPPED if swapped else AS_HERE}", style="bold" if swapped else "dim")
    if submitted > 1:
        text.append(f"\nsubmitted {submitted} times", style="dim")
    return text


def _preference(judgment: Judgment, swapped: bool) -> Text:
    """A reviewer's preference as this screen shows the runs, and in their own terms when they
    saw the pair the other way round."""
    if judgment.preference is None:
        return Text("—", style="dim")
    text = Text(PREFERENCE_TEXT[judgment.preference], style="bold")
    theirs = other_position(judgment.preference)
    if swapped and theirs is not None:
        text.append(f"\n(their Response {theirs}, as they saw it)")
    return text


def _words(text: str, swapped: bool) -> Text:
    """A reviewer's free text, headed by the mapping when they saw the pair swapped."""
    shown = Text()
    if swapped and text.strip():
        shown.append(f"({THEIR_TERMS_SHORT}) ", style="bold")
    shown.append(safe_text(text.strip()), style="italic")
    return shown


def _gate(rubric: Rubric, judgment: Judgment) -> Text:
    asked = [check.id for check in rubric.validity_gate]
    answers = {k: ok for k, ok in judgment.validity.items() if k in asked}
    if not answers:
        return Text("not answered", style="dim")
    failed = [key for key, ok in answers.items() if not ok]
    missing = [key for key in asked if key not in answers]
    if failed:
        return Text("fails: " + ", ".join(safe_line(k) for k in failed), style="bold red")
    if missing:
        return Text(f"{len(missing)} not answered", style="dim")
    return Text(f"all {len(asked)} hold")


def _score(response: ResponseJudgment, dim_id: str) -> Text:
    score = response.scores.get(dim_id)
    if score is None:
        return Text("—", style="dim")
    text = Text(str(score), style="bold")
    rationale = response.rationales.get(dim_id, "").strip()
    if rationale:
        text.append("  ")
        text.append(safe_text(rationale), style="italic")
    return text


def _result(rubric: Rubric, response: ResponseJudgment) -> Text:
    state = result_state(rubric, response)
    if state is None:
        return Text("not decided", style="dim")
    text = Text(state.value, style="bold")
    if response.state_override is not None:
        text.append(" (override)", style="dim")
        if response.override_reason.strip():
            text.append("\n")
            text.append(safe_text(response.override_reason.strip()), style="italic")
    return text


def _fatal(response: ResponseJudgment) -> Text:
    if not response.fatal_hits:
        return Text("none", style="dim")
    return Text("\n".join(f"☒ {safe_line(h)}" for h in response.fatal_hits), style="red")


def judgments_table(item: AdjudicationItem, show_names: bool) -> Table:
    """Each reviewer's judgment in a column, rows in this screen's positions; a row whose
    answers differ is marked ``≠``."""
    table = Table(
        expand=True, show_lines=False, box=None, padding=(0, 1), header_style="bold", pad_edge=False
    )
    table.add_column("", no_wrap=True, width=24)
    swapped = list(item.seen_swapped) or [False] * len(item.reviewers)
    submitted = list(item.submitted) or [1] * len(item.reviewers)
    for label, reviewer, flip, times in zip(
        item.labels, item.reviewers, swapped, submitted, strict=True
    ):
        seen = flip if item.is_pair else None
        table.add_column(reviewer_heading(label, reviewer, show_names, seen, times), ratio=1)

    def row(label: str, cells: list[Text], values: Sequence[object], style: str = "") -> None:
        differs = len({repr(v) for v in values}) > 1
        head = Text(("≠ " if differs else "  ") + label, style="bold yellow" if differs else style)
        table.add_row(head, *cells)

    judgments = [r.judgment for r in item.reviewers]
    if item.rubric.validity_gate:
        row(
            "Validity gate",
            [_gate(item.rubric, j) for j in judgments],
            [sorted(j.validity.items()) for j in judgments],
        )
    dims = [d for d in item.rubric.dimensions if d.scored]
    # A preference-only design judges no response on its own: the pair's preference is all.
    positions = (
        [] if item.rubric.preference_only else [str(i + 1) for i in range(len(item.responses))]
    )
    for position in positions:
        table.add_row(
            Text(f"Response {position}" if item.is_pair else "Response", style="bold underline")
        )
        responses = [j.responses.get(position, ResponseJudgment()) for j in judgments]
        for dim in dims:
            row(
                safe_line(dim.name),
                [_score(r, dim.id) for r in responses],
                [r.scores.get(dim.id) for r in responses],
            )
        totals = [total(item.rubric, r) for r in responses]
        row(
            "Total",
            [
                Text(f"{t}/{item.rubric.max_total}") if t is not None else Text("—", style="dim")
                for t in totals
            ],
            totals,
        )
        row("Fatal hits", [_fatal(r) for r in responses], [sorted(r.fatal_hits) for r in responses])
        row(
            "Result",
            [_result(item.rubric, r) for r in responses],
            [result_state(item.rubric, r) for r in responses],
        )
    if item.is_pair:
        table.add_row(Text("The pair", style="bold underline"))
        row(
            "Preference",
            [_preference(j, flip) for j, flip in zip(judgments, swapped, strict=True)],
            [j.preference for j in judgments],
        )
        table.add_row(
            Text("  Justification"),
            *(_words(j.justification, flip) for j, flip in zip(judgments, swapped, strict=True)),
        )
    return table


def past_text(item: AdjudicationItem, show_names: bool) -> Text:
    past = item.latest
    if past is None:
        return Text(
            "Not adjudicated yet. The form starts empty; p fills it from a reviewer's judgment.",
            style="dim",
        )
    who = f" by {safe_line(past.adjudicator)}" if show_names else ""
    text = Text.assemble(
        (f"Adjudicated{who} (revision {past.revision}, {safe_line(past.created_at)}). ", "bold"),
        "The form shows that final judgment; recording again adds revision "
        f"{past.revision + 1}.\nIts note: ",
    )
    if item.latest_swapped and past.note.strip():
        text.append(f"({THEIR_TERMS.replace('their', 'its')}) ", style="bold")
    text.append(safe_text(past.note), style="italic")
    return text
