"""One results document, computed once from one record set: the database's results and a
bundle's, of the same judged study, are the same document field by field.

Real pairs (MT-Bench's two models on a scored rubric, PandaLM's pairs on a preference-only
design) are judged by two reviewers, with agreements, a disagreement adjudicated and one left
open; the study is exported, and the document the bundle's own records give is compared with
the one ``abp-tui results`` computes from the database.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import sqlite_utils

from abp_tui.export.bundle_analysis import NOTES, analyse, document, parse, summarise
from abp_tui.export.bundle_reading import read_bundle
from abp_tui.export.canonical import rounded
from abp_tui.models import Judgment, PreferenceChoice, StudyDesign
from abp_tui.services.adjudicating import adjudicate, disagreements
from abp_tui.services.designing import create_design
from abp_tui.services.importing import import_paths
from abp_tui.services.publishing import export_bundle
from abp_tui.services.results_report import compute_results, unblind
from abp_tui.services.reviewing import ReviewSession
from tests.factories import afp_judgment, flipped

R1, R2, TIE = PreferenceChoice.RESPONSE_1, PreferenceChoice.RESPONSE_2, PreferenceChoice.TIE


def _judge(db: sqlite_utils.Database, pk: int, scored: bool) -> None:
    """bob and carol judge every item: they agree on most, prefer opposite runs on a few, and
    one of those is adjudicated (the rest stay open)."""
    sessions = {r: ReviewSession(db, pk, r) for r in ("bob", "carol")}
    codes = sorted(r.code for r in sessions["bob"].queue())
    for n, code in enumerate(codes):
        for reviewer, session in sessions.items():
            # The run each reviewer prefers, as the item orients it: a, b or a tie.
            side = "ab-"[n % 3]
            if reviewer == "carol" and n % 4 == 1:
                side = "b" if side == "a" else "a"  # a dispute
            if side == "-":
                pick = TIE
            else:
                first = "b" if flipped(session, code) else "a"
                pick = R1 if side == first else R2
            if scored:
                good, bad = (2, 1) if pick == R1 else (1, 2) if pick == R2 else (2, 2)
                judgment = afp_judgment(good, bad, pick)
            else:
                judgment = Judgment(preference=pick, justification=f"Prefers {side}.")
            session.save(code, judgment, 20.0 + n, submit=True)
    disputed = disagreements(db, pk)
    assert len(disputed) >= 2
    first = disputed[0].code
    row = db.execute(
        "SELECT j.placement FROM judgments j JOIN items i ON i.pk = j.item_pk "
        "WHERE i.code = ? AND j.reviewer = 'bob'",
        [first],
    ).fetchone()
    runs = {position: int(run) for position, run in json.loads(row[0]).items()}
    final = (
        afp_judgment(2, 2, TIE)
        if scored
        else Judgment(preference=TIE, justification="Both answer the question.")
    )
    adjudicate(db, pk, first, "lead", final, runs, "Both meet the request.")


def _both_documents(
    db: sqlite_utils.Database, pk: int, study: str, out: Path
) -> tuple[dict[str, Any], dict[str, Any], Path]:
    unblind(db, study, "lead")
    from_db = compute_results(db, pk)
    bundle = export_bundle(db, pk, out, actor="lead")
    analysis = analyse(parse(read_bundle(bundle.zip_path)))
    from_bundle = document(analysis, from_db.confidence)
    db_fields = from_db.model_dump(mode="json", exclude={"unblinded_by", "unblinded_at"})
    return db_fields, from_bundle.model_dump(mode="json"), bundle.folder


def _assert_same(db_fields: dict[str, Any], bundle_fields: dict[str, Any]) -> None:
    assert list(db_fields) == list(bundle_fields)
    for name, value in db_fields.items():
        assert bundle_fields[name] == value, name


def test_mt_bench_scored_the_database_and_the_bundle_give_one_document(
    reference: Path, tmp_path: Path, db: sqlite_utils.Database
) -> None:
    import_paths(db, [reference / "mt-bench"])
    design = StudyDesign(
        study="mt-bench",
        name="scored",
        seed=11,
        rubric="afp-v0.1",
        tasks=[str(n) for n in range(81, 93)],
        contrasts=[("phi-3", "phi-3-dpo")],
        reviewers=["bob", "carol"],
        reviewers_per_item=2,
    )
    pk = create_design(db, design).pk
    _judge(db, pk, scored=True)
    db_fields, bundle_fields, folder = _both_documents(db, pk, "mt-bench", tmp_path / "b")
    _assert_same(db_fields, bundle_fields)
    # What the comparison is over: judged runs, states, an open disagreement, per-task rows.
    assert len(db_fields["outcomes"]) == 24
    assert {o["source"] for o in db_fields["outcomes"]} >= {"unanimous", "unresolved"}
    assert len(db_fields["by_task"]) == 24
    (comparison,) = db_fields["comparisons"]
    assert comparison["preferences"]["sources"]["adjudicated"] == 1
    assert comparison["preferences"]["unresolved_items"]
    # The published summary is that document (its figures rounded as every derived file's),
    # less each run's outcome (verdicts.jsonl's lines), with the note on the agreement
    # published beside it.
    summary = json.loads((folder / "results" / "summary.json").read_text("utf-8"))
    for name, value in bundle_fields.items():
        if name in ("outcomes", "preference_only"):
            assert name not in summary
        elif name == "notes":
            assert summary["notes"] == [*value, *NOTES[-1:]]
        else:
            assert summary[name] == rounded(value), name


def _pandalm_subset(reference: Path, tmp_path: Path) -> Path:
    source = json.loads((reference / "pandalm" / "testset-v1.json").read_text("utf-8"))
    # Two pairs of models sharing one: three conditions, two contrasts with pairs to count.
    wanted = {"bloom-7b_llama-7b": 6, "llama-7b_opt-7b": 6}
    subset = []
    for item in source:
        if wanted.get(item["cmp_key"], 0) > 0:
            wanted[item["cmp_key"]] -= 1
            subset.append(item)
    assert len(subset) == 12
    path = tmp_path / "pandalm.json"
    path.write_text(json.dumps(subset), "utf-8")
    return path


def test_pandalm_preferences_the_database_and_the_bundle_give_one_document(
    reference: Path, tmp_path: Path, db: sqlite_utils.Database
) -> None:
    import_paths(db, [_pandalm_subset(reference, tmp_path)], study="panda")
    design = StudyDesign(
        study="panda",
        name="blind-again",
        seed=5,
        rubric="none",
        reviewers=["bob", "carol"],
        reviewers_per_item=2,
    )
    pk = create_design(db, design).pk
    _judge(db, pk, scored=False)
    db_fields, bundle_fields, _folder = _both_documents(db, pk, "panda", tmp_path / "b")
    _assert_same(db_fields, bundle_fields)
    assert db_fields["preference_only"] is True
    counted = [c for c in db_fields["comparisons"] if c["preferences"]["judgments"]]
    assert len(counted) == 2
    assert db_fields["headline"]
    # The bundle's summary is the same document (its agreement note added).
    analysis = analyse(parse(read_bundle(_folder.with_suffix(".zip"))))
    assert summarise(analysis).notes == [*db_fields["notes"], *NOTES[-1:]]
