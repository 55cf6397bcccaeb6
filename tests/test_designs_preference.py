"""Preference-only designs, end to end: created without a rubric, judged (a preference and its
justification, nothing else), agreement on the preference, adjudication, results, the
publication bundle and its gate; on a generated study and on PandaLM pairs."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
import sqlite_utils

from abp_tui.analysis.scoring import problems, result_state
from abp_tui.errors import AbpError
from abp_tui.export import records as published
from abp_tui.export import verify
from abp_tui.export.derive import _later
from abp_tui.models import Judgment, PreferenceChoice, ResponseJudgment
from abp_tui.models.builtin_rubrics import PREFERENCE_ONLY
from abp_tui.services.adjudicating import adjudicate, disagreements
from abp_tui.services.agreement_report import study_agreement
from abp_tui.services.designing import DesignChoices, create_design, create_from_choices
from abp_tui.services.importing import import_paths
from abp_tui.services.publishing import export_bundle
from abp_tui.services.results_report import compute_results, unblind
from abp_tui.services.reviewing import NotReady, ReviewSession
from abp_tui.services.studies import create_design_file
from abp_tui.store import judging
from tests.factories import flipped, write_jsonl

TASKS = 50


def _study(tmp_path: Path, db: sqlite_utils.Database, tasks: int = TASKS) -> None:
    """Study ``pref``: no rubric, conditions A and B without instructions, no limitations."""
    lines: list[dict[str, object]] = [
        {"type": "study", "id": "pref", "name": "Two prompts"},
        {"type": "condition", "id": "A", "label": "Short prompt"},
        {"type": "condition", "id": "B", "label": "Long prompt"},
    ]
    for n in range(tasks):
        task = f"T{n:02d}"
        lines.append({"type": "task", "id": task, "prompt": f"Rewrite sentence {n} concisely."})
        for cond in ("A", "B"):
            lines.append(
                {
                    "type": "run",
                    "id": f"{task}-{cond}",
                    "task_id": task,
                    "condition_id": cond,
                    "output": f"Sentence {n}, version {cond.lower()}.",
                }
            )
    import_paths(db, [write_jsonl(tmp_path / "pref.jsonl", lines)])


def _prefer(session: ReviewSession, code: str, side: str) -> Judgment:
    """A judgment preferring the item's run ``side`` ("a" or "b"), as this reviewer sees it."""
    first = "a" if not flipped(session, code) else "b"
    choice = PreferenceChoice.RESPONSE_1 if side == first else PreferenceChoice.RESPONSE_2
    return Judgment(preference=choice, justification=f"Side {side} is shorter.")


def test_a_design_with_no_rubric_is_preference_only_and_asks_only_the_preference(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    _study(tmp_path, db, tasks=2)
    created = create_from_choices(db, DesignChoices(reviewers="ann"))
    assert (created.study, created.rubric, created.pair_items) == ("pref", "preference-only", 2)
    session = ReviewSession(db, created.pk, "ann")
    code = session.resume_code()
    assert code is not None
    item = session.open(code)
    assert item.rubric.preference_only and not item.rubric.validity_gate
    with pytest.raises(NotReady) as refused:
        session.save(code, Judgment(preference=PreferenceChoice.TIE), 2.0, submit=True)
    # Nothing about the responses, no validity gate: the justification alone is missing.
    assert refused.value.problems == ["preference: a justification is required"]
    scored = Judgment(
        preference=PreferenceChoice.TIE,
        justification="Equal.",
        responses={"1": ResponseJudgment(scores={"x": 2})},
    )
    # Refused as a draft too: no revision of a preference-only design judges a response.
    for submit in (True, False):
        with pytest.raises(AbpError, match="Response 1: this design records a preference only"):
            session.save(code, scored, 1.0, submit=submit)
    done = session.save(code, Judgment(preference=PreferenceChoice.TIE, justification="Equal."), 1)
    assert done.status == "draft"
    assert session.save(code, session.read(code).judgment, 1.0, submit=True).status == "submitted"
    # No response has a result state under a preference-only rubric.
    assert result_state(PREFERENCE_ONLY, ResponseJudgment()) is None
    assert problems(PREFERENCE_ONLY, Judgment(), ["1", "2"], pair=True)[0].startswith("preference")


def test_a_preference_only_design_has_pairs_to_judge(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    _study(tmp_path, db, tasks=2)
    with pytest.raises(AbpError, match=r"single_items: a preference-only design judges pairs"):
        create_from_choices(db, DesignChoices(single_items=True))
    with pytest.raises(AbpError, match=r"contrasts: a preference-only design judges pairs"):
        create_from_choices(db, DesignChoices(pairs="none"))
    # With a rubric, single runs may be scored on their own.
    created = create_from_choices(db, DesignChoices(rubric="afp-v0.1", single_items=True))
    assert (created.pair_items, created.single_items) == (2, 4)


def _judge_kappa_table(db: sqlite_utils.Database, pk: int) -> list[str]:
    """Reviewers a and b judge the 50 pairs as Wikipedia's "Cohen's kappa" example (50 grant
    proposals read by two readers): both yes 20, a yes / b no 5, a no / b yes 10, both no 15,
    with "yes" the item's run a preferred and "no" its run b. Returns the codes they conflict
    on."""
    a, b = ReviewSession(db, pk, "a"), ReviewSession(db, pk, "b")
    codes = sorted(r.code for r in a.queue())
    assert len(codes) == TASKS
    sides = [("a", "a")] * 20 + [("a", "b")] * 5 + [("b", "a")] * 10 + [("b", "b")] * 15
    for code, (side_a, side_b) in zip(codes, sides, strict=True):
        a.save(code, _prefer(a, code, side_a), 5.0, submit=True)
        b.save(code, _prefer(b, code, side_b), 5.0, submit=True)
    return [code for code, (x, y) in zip(codes, sides, strict=True) if x != y]


def test_preference_only_chain_agreement_adjudication_results_and_bundle(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    _study(tmp_path, db)
    created = create_from_choices(
        db, DesignChoices(name="prefs", reviewers="a,b", reviewers_per_item=2, seed=4)
    )
    conflicting = _judge_kappa_table(db, created.pk)

    report = study_agreement(db, "pref", created.pk, resamples=0)
    # The preference is the only variable: no total, result state or fatal flag is recorded.
    assert [v.variable for v in report.variables] == ["preference"]
    (pair,) = report.variables[0].pairs
    # Wikipedia, "Cohen's kappa", simple example: p_o = 0.7, p_e = 0.5, kappa = 0.4.
    assert pair.percent_agreement.value == pytest.approx(0.7)
    assert pair.cohen_kappa.value == pytest.approx(0.4)

    found = disagreements(db, created.pk)
    assert sorted(d.code for d in found) == sorted(conflicting)
    assert all(d.reasons == ["preferences conflict"] for d in found)
    for code in conflicting:
        item = judging.item_by_code(db, created.pk, code)
        assert item.run_b_pk is not None
        final = Judgment(preference=PreferenceChoice.RESPONSE_1, justification="Run a is tighter.")
        adjudicate(
            db,
            created.pk,
            code,
            "carol",
            final,
            {"1": item.run_a_pk, "2": item.run_b_pk},
            "Read both again.",
        )
    assert all(d.adjudicated for d in disagreements(db, created.pk))

    unblind(db, "pref", "coordinator")
    results = compute_results(db, created.pk)
    (comparison,) = results.comparisons
    # The tally of the items' final preferences, one per pair: run a by both reviewers 20
    # times, by the adjudicator on the 15 conflicts; run b by both 15 times (the conditions are
    # the runs' sides: run a is A, B first). The reviewers' 100 judgments stand behind it.
    prefs = comparison.preferences
    wins = {comparison.a: prefs.wins_a, comparison.b: prefs.wins_b}
    assert sorted(wins.values()) == [15, 20 + 15]
    assert (prefs.ties, prefs.insufficient) == (0, 0)
    assert prefs.sources == {
        "unanimous": 35,
        "adjudicated": 15,
        "single review": 0,
        "unresolved": 0,
    }
    assert prefs.judgments == 100
    assert all(g.pass_rate.n == 0 for g in results.conditions)  # no result state to count

    bundle = export_bundle(db, created.pk, tmp_path / "bundle", actor="coordinator")
    assert verify(bundle.zip_path).derived > 0
    rubric_check = "rubric and fatal criteria"
    assert not any(m.startswith(rubric_check) for m in bundle.missing)
    # The study's records give no instructions or limitations: the gate says so.
    assert any(m.startswith("limitations") for m in bundle.missing)
    assert any(m.startswith("actual condition instructions") for m in bundle.missing)
    _no_pass_rates(bundle.folder)
    # Each pair's final preference carries its reasons: the adjudicator's note, each reviewer's
    # justification ("adjudication": null is the run's rubric judgment, which a pair has none of).
    lines = (bundle.folder / "results" / "verdicts.jsonl").read_text("utf-8").splitlines()
    finals = {p["item"]: p for x in lines for p in json.loads(x).get("preferences", [])}
    assert len(finals) == 50
    for code, final in finals.items():
        adjudicated = code in conflicting
        assert final["source"] == ("adjudicated" if adjudicated else "unanimous")
        assert final["note"] == ("Read both again." if adjudicated else None)
        assert {r["justification"] for r in final["reviews"]} <= {
            "Side a is shorter.",
            "Side b is shorter.",
        }

    # An adjudication revised after unblinding: its adjudicator could know the conditions, and
    # the bundle's limitations name its item (the ones adjudicated before are not named).
    late = sorted(conflicting)[0]
    item = judging.item_by_code(db, created.pk, late)
    assert item.run_b_pk is not None
    final = Judgment(preference=PreferenceChoice.RESPONSE_2, justification="Run b, on reading.")
    placement = {"1": item.run_a_pk, "2": item.run_b_pk}
    adjudicate(db, created.pk, late, "carol", final, placement, "Changed on rereading.")
    again = export_bundle(db, created.pk, tmp_path / "again", actor="coordinator")
    assert verify(again.zip_path).derived > 0
    stated = json.loads((again.folder / "results" / "limitations.json").read_bytes())
    (line,) = [x["text"] for x in stated if "unblinded" in x["text"]]
    assert line.startswith(f"1 of {len(conflicting)} adjudicated items were adjudicated")
    assert line.endswith(f"({late}).")
    before = json.loads((bundle.folder / "results" / "limitations.json").read_bytes())
    assert not any("unblinded" in x["text"] for x in before)


def _no_pass_rates(folder: Path) -> None:
    """A preference-only bundle whose runs have no state writes no pass rate: no table of
    conditions or tasks, no chart, and comparisons.csv's pass/fail fields empty."""
    assert not (folder / "plots").exists()
    assert not (folder / "results" / "conditions.csv").exists()
    assert not (folder / "results" / "tasks.csv").exists()
    manifest = json.loads((folder / "manifest.json").read_bytes())
    assert not any(p.startswith("plots/") for p in manifest["derived"])
    with (folder / "results" / "comparisons.csv").open(encoding="utf-8", newline="") as f:
        (row,) = list(csv.DictReader(f))
    for field in ("pairs", "both_pass", "unjudged_a", "unjudged_b", "mcnemar_p_exact"):
        assert row[field] == ""
    assert row["mcnemar_undefined"] == (
        "not applicable: no run has a pass or fail verdict (preferences only)"
    )
    assert int(row["pref_wins_a"]) + int(row["pref_wins_b"]) == 50
    report = (folder / "report.html").read_text(encoding="utf-8")
    assert "Pass rate" not in report and "results/conditions.csv" not in report


def _item_sides(item: dict[str, object]) -> str:
    return str(item["cmp_key"])


def test_pandalm_pairs_judged_on_a_design_file_pass_the_publication_gate(
    tmp_path: Path, db: sqlite_utils.Database, reference: Path
) -> None:
    source = json.loads((reference / "pandalm" / "testset-v1.json").read_text("utf-8"))
    # One pair of models, so that every prompt has a run under both conditions of the design.
    subset = [i for i in source if _item_sides(i) == "bloom-7b_llama-7b"][:8]
    assert len(subset) == 8
    path = tmp_path / "pandalm.json"
    path.write_text(json.dumps(subset), "utf-8")
    import_paths(db, [path], study="panda")
    design = tmp_path / "panda.toml"
    design.write_text(
        """
study = "panda"
name = "blind-again"
seed = 9
reviewers = ["ann"]
description = "PandaLM's test set judged again, blind, by one reviewer."
limitations = ["Eight prompts of one model pair: a demonstration, not a comparison."]

[instructions]
"bloom-7b" = "The model's answer to the instruction and input, as PandaLM collected it."
"llama-7b" = "The model's answer to the instruction and input, as PandaLM collected it."
""",
        "utf-8",
    )
    db_path = Path(db.conn.execute("PRAGMA database_list").fetchone()[2])
    created = create_design_file(db_path, design)
    assert (created.rubric, created.pair_items, created.assignments) == ("preference-only", 8, 8)
    session = ReviewSession(db, created.pk, "ann")
    for row in session.queue():
        session.save(
            row.code,
            Judgment(preference=PreferenceChoice.TIE, justification="Both keep the meaning."),
            3.0,
            submit=True,
        )
    unblind(db, "panda", "coordinator")
    bundle = export_bundle(db, created.pk, tmp_path / "bundle", actor="coordinator")
    assert bundle.missing == []
    assert bundle.status == "results published"
    study = json.loads((bundle.folder / published.STUDY).read_text("utf-8"))
    assert study["limitations"] == [
        "Eight prompts of one model pair: a demonstration, not a comparison."
    ]
    assert study["description"].endswith("judged again, blind, by one reviewer.")
    conditions = json.loads((bundle.folder / published.CONDITIONS).read_text("utf-8"))
    assert all(c["instructions"].startswith("The model's answer") for c in conditions)
    # Each pair's final preference is ann's: PandaLM's imported annotator labels are a ranking
    # source of their own, never a reviewer behind a final verdict.
    lines = (bundle.folder / "results" / "verdicts.jsonl").read_text("utf-8").splitlines()
    finals = {p["item"]: p for v in map(json.loads, lines) for p in v["preferences"]}
    assert len(finals) == 8
    assert {(p["source"], p["preferred"]) for p in finals.values()} == {("single review", "tie")}
    assert {r["reviewer"] for p in finals.values() for r in p["reviews"]} == {"ann"}
    summary = json.loads((bundle.folder / "results" / "summary.json").read_text("utf-8"))
    assert summary["headline"][0].endswith("8 of 8 planned pairs judged blind by 1 reviewer.")
    assert (
        "Counts each item's final verdict: 0 unanimous, 0 adjudicated, 8 single review, "
        "0 unresolved." in summary["headline"]
    )
    assert verify(bundle.zip_path).status == "results published"


def test_design_instructions_only_fill_what_the_records_lack(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    lines: list[dict[str, object]] = [
        {"type": "study", "id": "s"},
        {"type": "condition", "id": "A", "instructions": "Answer briefly."},
        {"type": "condition", "id": "B"},
        {"type": "run", "id": "r1", "task_id": "T", "condition_id": "A", "output": "x"},
        {"type": "run", "id": "r2", "task_id": "T", "condition_id": "B", "output": "y"},
    ]
    import_paths(db, [write_jsonl(tmp_path / "s.jsonl", lines)])
    path = tmp_path / "d.toml"
    path.write_text('study = "s"\nname = "d"\nseed = 1\n[instructions]\nA = "Other."\n', "utf-8")
    from abp_tui.services.designing import load_design_file

    with pytest.raises(AbpError, match=r"d\.toml: instructions\.A: condition 'A' has its"):
        create_design(db, load_design_file(path), str(path))
    path.write_text('study = "s"\nname = "d"\nseed = 1\n[instructions]\nC = "New."\n', "utf-8")
    with pytest.raises(AbpError, match=r"instructions\.C: study 's' has no condition 'C'"):
        create_design(db, load_design_file(path), str(path))
    path.write_text('study = "s"\nname = "d"\nseed = 1\n[instructions]\nB = "New."\n', "utf-8")
    assert create_design(db, load_design_file(path), str(path)).status == "created"


def test_a_preference_only_pack_is_judged_on_a_station_and_merged(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    from abp_tui.services.designing import find_study
    from abp_tui.services.stations import merge_ratings, open_pack, write_ratings, write_study_pack
    from abp_tui.store import connect

    _study(tmp_path, db, tasks=3)
    created = create_from_choices(db, DesignChoices(reviewers="ann"))
    pack = tmp_path / "ann.pack.json"
    write_study_pack(db, created.pk, "ann", pack)
    station = connect(tmp_path / "station.db")
    station_pk = open_pack(station, pack)
    session = ReviewSession(station, station_pk, "ann")
    assert session.rubric.preference_only and not session.rubric.validity_gate
    with pytest.raises(AbpError, match="this is a reviewer station"):
        create_from_choices(station, DesignChoices(study=session.design.study))
    # What a station refuses says why, never a command it would refuse next.
    station_study = session.design.study
    for refused in (
        lambda: unblind(station, station_study, "ann"),
        lambda: compute_results(station, station_pk),
    ):
        with pytest.raises(AbpError) as said:
            refused()
        assert str(said.value).startswith("this is a reviewer station: results are never shown")
        assert "unblind --study" not in str(said.value)
    with pytest.raises(AbpError, match=r"this is a reviewer station: its study '.*' is a pack's"):
        find_study(station)
    for row in session.queue():
        judgment = Judgment(preference=PreferenceChoice.INSUFFICIENT, justification="Too short.")
        session.save(row.code, judgment, 4.0, submit=True)
    ratings = tmp_path / "ann.ratings.json"
    write_ratings(station, ratings)
    station.close()
    assert merge_ratings(db, [ratings])[0]["added"] == 3
    unblind(db, "pref", "coordinator")
    (comparison,) = compute_results(db, created.pk).comparisons
    assert (comparison.preferences.insufficient, comparison.preferences.decisive) == (3, 0)


def test_an_adjudication_time_without_a_zone_is_read_as_utc() -> None:
    """A bundle's adjudication or audit time written without a zone (by hand, by another tool)
    is read as UTC beside one with a zone, never a TypeError out of ``verify``."""
    assert _later("2026-01-02T00:00:00", "2026-01-01T23:00:00.000001Z")
    assert not _later("2026-01-01T22:00:00+00:00", "2026-01-01T23:00:00")
    assert not _later("2026-01-01T23:00:00.5Z", "2026-01-01T23:00:00.600000+00:00")
    assert _later("not a time", "2026")  # not times: compared as the texts read


@pytest.mark.parametrize("typed", ["]", " ? ", "[/]", "…"])
def test_a_justification_of_a_key_pressed_and_no_words_is_refused(
    tmp_path: Path, db: sqlite_utils.Database, typed: str
) -> None:
    """A refused submission puts the cursor in the justification; the next key meant to move on
    (``]``) is typed there. It is no reason, and the submission is refused again."""
    _study(tmp_path, db, tasks=2)
    created = create_from_choices(db, DesignChoices(reviewers="ann"))
    session = ReviewSession(db, created.pk, "ann")
    code = session.resume_code()
    assert code is not None
    session.open(code)
    judged = Judgment(preference=PreferenceChoice.TIE, justification=typed)
    with pytest.raises(NotReady) as refused:
        session.save(code, judged, 2.0, submit=True)
    assert refused.value.problems == [
        "preference: the justification has no words: say why in words"
    ]
    worded = Judgment(preference=PreferenceChoice.TIE, justification="Both 2 lines.")
    assert session.save(code, worded, 2.0, submit=True).status == "submitted"
