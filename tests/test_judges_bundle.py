"""The AI judges in a bundle's report.html: each judge against people, its position consistency
and bias, and the judge-assisted estimates marked as such, from ``results/ai_judges.json``;
every name written as text, and the page re-derived by ``verify``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import sqlite_utils

from abp_tui.export.bundle import verify
from abp_tui.models import Judgment, PreferenceChoice, StudyDesign
from abp_tui.services.designing import create_design
from abp_tui.services.importing import import_paths
from abp_tui.services.publishing import export_bundle
from abp_tui.services.results_report import unblind
from abp_tui.services.reviewing import ReviewSession
from abp_tui.store import connect
from tests.factories import Cli, write_jsonl

JUDGE = "<b>judge</b>/v1"
TASKS = [f"t{i}" for i in range(1, 9)]


def _study(tmp_path: Path, db: sqlite_utils.Database, with_judge: bool = True) -> int:
    lines: list[dict[str, object]] = [{"type": "study", "id": "hb"}]
    if with_judge:
        lines.append({"type": "judge", "id": JUDGE, "model": "judge-model"})
    for t in TASKS:
        lines.append({"type": "task", "id": t, "prompt": f"Answer {t}."})
        for c in ("A", "B"):
            lines.append(
                {"type": "run", "id": f"{t}-{c}", "task_id": t, "condition_id": c, "output": c}
            )
        if with_judge:
            runs = [f"{t}-A", f"{t}-B"]
            for first in runs:
                lines.append(
                    {
                        "type": "judge_verdict",
                        "judge": JUDGE,
                        "task_id": t,
                        "runs": runs,
                        "shown_first": first,
                        "verdict": runs[0] if t != "t2" else first,
                    }
                )
    import_paths(db, [write_jsonl(tmp_path / "hb.jsonl", lines)])
    design = StudyDesign(
        study="hb", name="d", seed=3, rubric="none", contrasts=[("A", "B")], reviewers=["alice"]
    )
    pk = create_design(db, design).pk
    session = ReviewSession(db, pk, "alice")
    for row in session.queue()[:5]:  # people judge five pairs; the judge all eight
        item = session.read(row.code)
        first_is_a = item.responses[0].text == "A"
        choice = PreferenceChoice.RESPONSE_1 if first_is_a else PreferenceChoice.RESPONSE_2
        session.save(row.code, Judgment(preference=choice, justification="A."), 3, submit=True)
    unblind(db, "hb", "coordinator")
    return pk


def test_report_html_shows_the_judges_and_marks_judge_assisted_figures(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk = _study(tmp_path, db)
    out = export_bundle(db, pk, tmp_path / "bundle").folder
    published = json.loads((out / "results" / "ai_judges.json").read_text())
    assert published["judge_assisted"] == [f"{JUDGE}: win rate of A against B"]
    page = (out / "report.html").read_text()
    section = page[page.index('<section id="judges">') : page.index('<section id="excluded">')]
    assert '<a href="#judges">AI judges</a>' in page
    # The judge's id is a record's text: escaped, never markup.
    assert JUDGE not in page and "&lt;b&gt;judge&lt;/b&gt;/v1" in section
    assert 'id="judges-against-people"' in section and 'id="judges-position"' in section
    report = published["report"]
    judge = report["judges"][0]
    original = judge["orders"][0]
    assert (original["order"], original["n"], original["agreement"]["x"]) == ("original", 5, 5)
    assert report["reference"] in section
    # The estimates are marked judge-assisted, beside people alone, with their assumption.
    assert 'id="judges-assisted"' in section
    assert "win rate of A against B (judge-assisted)" in section
    assert "Judge-assisted:" in section and "random sample" in section
    assert "the alt-test needs 3 or more" in section
    # Five units judged by people: the page cautions as `abp-tui judges` does.
    caution = "win rate of A against B: only 5 units judged by people: the interval is a large"
    assert caution in " ".join(section.split())
    assert verify(out).status


def test_a_bundle_without_judges_has_no_judges_section(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk = _study(tmp_path, db, with_judge=False)
    out = export_bundle(db, pk, tmp_path / "bundle").folder
    page = (out / "report.html").read_text()
    assert 'id="judges"' not in page and "#judges" not in page
    assert not (out / "results" / "ai_judges.json").exists()


def test_the_command_draws_as_the_bundle_does(tmp_path: Path, cli: Cli) -> None:
    """`abp-tui judges` without --seed draws its bootstrap with the design's seed, as the
    bundle's ``results/ai_judges.json`` does: the same figures either way."""
    db = connect(cli.db_path)
    try:
        out = export_bundle(db, _study(tmp_path, db), tmp_path / "bundle").folder
    finally:
        db.close()
    published = json.loads((out / "results" / "ai_judges.json").read_text())["report"]
    shown = cli("judges", "--study", "hb", "--json")
    assert shown.code == 0, shown.err
    report = json.loads(shown.out)
    assert report["seed"] == published["seed"] == 3
    assert _published(report["judges"]) == published["judges"]
    other = json.loads(cli("judges", "--study", "hb", "--json", "--seed", "0").out)
    assert other["seed"] == 0 and _published(other["judges"]) != published["judges"]


def _published(value: Any) -> Any:
    """``value`` with each float to six significant digits, as a bundle's JSON writes it."""
    if isinstance(value, float):
        return float(f"{value:.6g}")
    if isinstance(value, dict):
        return {k: _published(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_published(v) for v in value]
    return value
