"""Seed 000, "Rerun rules", with seed 002's development material: every reclassification of an
INFRA_ERROR / PROVIDER_BLOCK run is listed in results and in the bundle, that of a run on a
development task too, each saying which material its task is; the development run still enters
no benchmark figure.

On the bundled AFP demo: P06 under C (repeat 3) timed out (INFRA_ERROR) and P07 under A (repeat 2)
was blocked by the provider (PROVIDER_BLOCK). A design that shows record failures marks P06 as
development material; its reviewer reclassifies both runs with a reason.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import sqlite_utils

from abp_tui.analysis.blinding import DEMO_PLAN_SECRET
from abp_tui.analysis.rule_tables import RECLASSIFIED_DEVELOPMENT_NOTE
from abp_tui.export.bundle import verify
from abp_tui.models import PreferenceChoice
from abp_tui.services.demo import load_demo
from abp_tui.services.designing import create_design, load_design_file
from abp_tui.services.results_report import compute_results, unblind
from abp_tui.services.reviewing import ReviewSession
from tests.factories import DEMO, FIXTURES, Cli, afp_judgment

STUDY = "afp-pilot-demo"
INFRA = "afp-demo-run-20260112-P06-C-r3"
BLOCKED = "afp-demo-run-20260112-P07-A-r2"
DESIGN_FILE = FIXTURES / "designs" / "afp-pilot-demo.toml"
REASONS = {
    INFRA: "The log shows a full answer arrived; the timeout was the harness's.",
    BLOCKED: "The block was a quota misconfiguration on our side; the answer is complete.",
}


def _reclassify_both(db: sqlite_utils.Database) -> int:
    """The demo design showing record failures, P06 development material, every item judged by
    one reviewer, both record failures reclassified with a reason; then unblinded."""
    design = load_design_file(DESIGN_FILE).model_copy(
        update={
            "name": "dev-shows",
            "show_record_failures": True,
            "development_tasks": ["P06"],
        }
    )
    pk = create_design(db, design, plan_secret=DEMO_PLAN_SECRET).pk
    session = ReviewSession(db, pk, "demo")
    done = set()
    for row in session.queue():
        item = session.read(row.code)
        judgment = afp_judgment(2, 2, PreferenceChoice.TIE)
        for response in item.responses:
            if response.record_state is None:
                continue
            # The blind item names no run: its record's state says which of the two it is.
            run = INFRA if response.record_state == "INFRA_ERROR" else BLOCKED
            judgment.responses[response.key] = judgment.responses[response.key].model_copy(
                update={"reclassified": True, "override_reason": REASONS[run]}
            )
            done.add(run)
        session.save(row.code, judgment, 5, submit=True)
    assert done == {INFRA, BLOCKED}
    unblind(db, STUDY, "coordinator")
    return pk


def test_a_reclassification_on_development_material_is_listed_with_its_material(
    db: sqlite_utils.Database,
) -> None:
    load_demo(db, DEMO)
    pk = _reclassify_both(db)
    report = compute_results(db, pk)
    listed = {r.run: r for r in report.reclassifications}
    assert set(listed) == {INFRA, BLOCKED}
    assert (listed[INFRA].material, listed[BLOCKED].material) == ("development", "benchmark")
    assert listed[INFRA].reasons == (REASONS[INFRA],)
    # Listed, yet still no benchmark result: P06's runs are in no figure by condition.
    assert all(o.task_id != "P06" for o in report.outcomes)
    c = next(g for g in report.conditions if g.condition == "C")
    assert c.states["INFRA_ERROR"] == 0


def test_the_bundle_lists_every_reclassification_with_its_material(
    tmp_path: Path, cli: Cli
) -> None:
    assert cli("demo").code == 0
    db = sqlite_utils.Database(cli.db_path)
    _reclassify_both(db)
    db.close()
    shown = cli("results", "--study", STUDY, "--design", "dev-shows", "--json")
    assert shown.code == 0, shown.err
    found = {r["run"]: r["material"] for r in json.loads(shown.out)["reclassifications"]}
    assert found == {INFRA: "development", BLOCKED: "benchmark"}
    out = tmp_path / "bundle"
    exported = cli("export", "bundle", "--study", STUDY, "--design", "dev-shows", "--out", out)
    assert exported.code == 0, exported.err
    rows = list(csv.DictReader(io.StringIO((out / "results/reclassified_runs.csv").read_text())))
    assert {(r["run"], r["material"], r["reasons"]) for r in rows} == {
        (INFRA, "development", REASONS[INFRA]),
        (BLOCKED, "benchmark", REASONS[BLOCKED]),
    }
    summary = json.loads((out / "results/summary.json").read_text("utf-8"))
    assert {r["run"]: r["material"] for r in summary["reclassifications"]} == found
    page = (out / "report.html").read_text("utf-8")
    table = page[page.index('id="reclassified-runs"') :]
    assert INFRA in table[: table.index("</table>")]
    assert RECLASSIFIED_DEVELOPMENT_NOTE in page
    # The development run is still in no benchmark figure of the bundle's results.
    c = next(g for g in summary["conditions"] if g["condition"] == "C")
    assert c["states"]["INFRA_ERROR"] == 0
    assert verify(out).derived > 0  # the listed rows re-derived from the bundle's own records
