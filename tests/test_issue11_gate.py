"""The publication gate's rerun rules belong to AFP: a pairwise set whose prompts each ran under
two of its models passes once judged, while an AFP-rubric study still needs every fixture under
every condition."""

from __future__ import annotations

import json
from pathlib import Path

import sqlite_utils

from abp_tui.export import verify
from abp_tui.models import Judgment, PreferenceChoice, StudyDesign
from abp_tui.services.designing import create_design
from abp_tui.services.importing import import_paths
from abp_tui.services.publishing import export_bundle
from abp_tui.services.results_report import unblind
from abp_tui.services.reviewing import ReviewSession
from abp_tui.services.studies import create_design_file
from tests.factories import write_jsonl


def _models(item: dict[str, object]) -> set[str]:
    return set(str(item["cmp_key"]).split("_"))


def test_pandalm_pairs_of_several_models_pass_the_gate_once_judged(
    tmp_path: Path, db: sqlite_utils.Database, reference: Path
) -> None:
    source = json.loads((reference / "pandalm" / "testset-v1.json").read_text("utf-8"))
    # Three model pairs: no prompt ran under every model, as in the whole test set.
    keys: dict[str, list[dict[str, object]]] = {}
    for item in source:
        keys.setdefault(str(item["cmp_key"]), []).append(item)
    chosen = sorted(keys)[:3]
    subset = [i for k in chosen for i in keys[k][:3]]
    models = sorted({m for i in subset for m in _models(i)})
    assert len(models) >= 3 and len(subset) == 9
    path = tmp_path / "pandalm.json"
    path.write_text(json.dumps(subset), "utf-8")
    import_paths(db, [path], study="panda")
    instructions = "\n".join(f'"{m}" = "The answer PandaLM collected from {m}."' for m in models)
    design = tmp_path / "panda.toml"
    design.write_text(
        'study = "panda"\nname = "again"\nseed = 3\nreviewers = ["ann"]\n'
        'limitations = ["Nine prompts: a demonstration."]\n'
        f"[instructions]\n{instructions}\n",
        "utf-8",
    )
    db_path = Path(db.conn.execute("PRAGMA database_list").fetchone()[2])
    created = create_design_file(db_path, design)
    assert created.rubric == "preference-only"
    session = ReviewSession(db, created.pk, "ann")
    for row in session.queue():
        judgment = Judgment(preference=PreferenceChoice.RESPONSE_1, justification="Clearer.")
        session.save(row.code, judgment, 2.0, submit=True)
    unblind(db, "panda", "coordinator")
    bundle = export_bundle(db, created.pk, tmp_path / "bundle", actor="coordinator")
    status = json.loads((bundle.folder / "status.json").read_text("utf-8"))
    rerun = next(c for c in status["checks"] if c["requirement"] == "rerun rules")
    assert rerun["met"], rerun["detail"]
    assert "AFP repeat rules apply to AFP studies" in rerun["detail"]
    assert bundle.missing == [] and bundle.status == "results published"
    assert verify(bundle.zip_path).status == "results published"


def test_an_afp_rubric_study_still_needs_every_fixture_under_every_condition(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    lines: list[dict[str, object]] = [
        {"type": "study", "id": "s", "rubric_id": "afp-v0.1", "limitations": ["Small."]},
        {"type": "condition", "id": "A", "label": "Model Only"},
        {"type": "condition", "id": "C", "label": "Governed", "instructions": "Cite evidence."},
        {"type": "task", "id": "P01", "prompt": "One.", "fatal_criteria": ["Fatal"]},
        {"type": "task", "id": "P02", "prompt": "Two.", "fatal_criteria": ["Fatal"]},
        {"type": "run", "id": "1A", "task_id": "P01", "condition_id": "A", "output": "x"},
        {"type": "run", "id": "1C", "task_id": "P01", "condition_id": "C", "output": "y"},
        # P02 never ran under C: the AFP rule asks for it.
        {"type": "run", "id": "2A", "task_id": "P02", "condition_id": "A", "output": "z"},
    ]
    import_paths(db, [write_jsonl(tmp_path / "s.jsonl", lines)])
    pk = create_design(db, StudyDesign(study="s", name="d", seed=1, reviewers=["ann"])).pk
    unblind(db, "s", "coordinator")
    bundle = export_bundle(db, pk, tmp_path / "bundle", actor="coordinator")
    assert any("P02 under C: 0 of 1 usable runs" in m for m in bundle.missing)
