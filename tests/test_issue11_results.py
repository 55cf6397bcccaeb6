"""The results of a preference-only design lead with the preference tally: no rubric dimensions,
and no pass-rate or result-state tables unless some run has a verdict to count there."""

from __future__ import annotations

import io
from pathlib import Path

import sqlite_utils
from rich.console import Console

from abp_tui.analysis.tables import results_tables
from abp_tui.cli.text import results_text
from abp_tui.models import Judgment, PreferenceChoice
from abp_tui.services.designing import DesignChoices, create_from_choices
from abp_tui.services.importing import import_paths
from abp_tui.services.results_report import compute_results, unblind
from abp_tui.services.reviewing import ReviewSession
from abp_tui.tui.charts import results_body
from tests.factories import flipped, write_jsonl


def _study(tmp_path: Path, db: sqlite_utils.Database, outcome: str | None = None) -> int:
    """Three prompts under A and B, a preference-only design; ann prefers A twice, one tie."""
    lines: list[dict[str, object]] = [
        {"type": "study", "id": "pref"},
        {"type": "condition", "id": "A"},
        {"type": "condition", "id": "B"},
    ]
    for n in range(3):
        lines.append({"type": "task", "id": f"T{n}", "prompt": f"Shorten sentence {n}."})
        for cond in ("A", "B"):
            run: dict[str, object] = {
                "type": "run",
                "id": f"T{n}-{cond}",
                "task_id": f"T{n}",
                "condition_id": cond,
                "output": f"Sentence {n} by {cond}.",
            }
            if outcome is not None:
                run["automated_outcome"] = outcome
            lines.append(run)
    import_paths(db, [write_jsonl(tmp_path / "pref.jsonl", lines)])
    created = create_from_choices(db, DesignChoices(reviewers="ann", rubric="none"))
    assert created.rubric == "preference-only"
    session = ReviewSession(db, created.pk, "ann")
    for i, row in enumerate(sorted(session.queue(), key=lambda r: r.code)):
        if i == 2:
            choice = PreferenceChoice.TIE
        else:
            # The response shown first is run a (condition A's) unless the item is flipped.
            flip = flipped(session, row.code)
            choice = PreferenceChoice.RESPONSE_2 if flip else PreferenceChoice.RESPONSE_1
        session.save(row.code, Judgment(preference=choice, justification="Why."), 2.0, submit=True)
    unblind(db, "pref", "coordinator")
    return created.pk


def _screen(renderable: object) -> str:
    out = io.StringIO()
    Console(file=out, width=200, color_system=None).print(renderable)
    return out.getvalue()


def test_preference_only_results_lead_with_the_preference_tally(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    report = compute_results(db, _study(tmp_path, db))
    assert report.preference_only
    tables = results_tables(report, preference_only=True)
    assert [t.id for t in tables.in_order] == ["comparisons", "position-bias"]
    shown = [c.key for c in tables.comparisons.shown]
    assert "preferences" in shown and "both_pass" not in shown and "mcnemar" not in shown
    # The CSV fields stay whatever is shown.
    assert "both_pass" in [c.key for c in tables.comparisons.columns]
    for text in (results_text(report), _screen(results_body(report))):
        assert "Preferences by pair of conditions" in text
        assert "2 / 0 / 1 / 0" in text  # A preferred twice, one tie
        assert "Rubric dimensions" not in text
        assert "all six result states" not in text
        assert "Pass rate" not in text


def test_preference_only_results_keep_the_state_tables_when_runs_have_verdicts(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    report = compute_results(db, _study(tmp_path, db, outcome="passed"))
    keys = [t.id for t in results_tables(report, preference_only=True).in_order]
    # The tally first; the automated outcomes' pass rates after it; never rubric dimensions.
    assert keys[:2] == ["comparisons", "position-bias"]
    assert "conditions" in keys and "dimensions" not in keys
    text = results_text(report)
    assert text.index("Paired comparisons") < text.index("By condition: all six result states")
    assert "6/6" not in text and "3/3 = 1.000" in text
