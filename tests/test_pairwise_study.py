"""The pairwise study end to end, on the reference MT-Bench answers: a preference-only design
(no rubric), two reviewers on every pair, four pairs agreed and two disputed, both adjudicated.

Every face counts the same thing, each item's final preference (with its source), and says so;
nothing judged reads as "unjudged"; the results lead with the answer to the design's question.

Alice and Bob judge six pairs of phi-3 and phi-3-dpo answers. They agree that phi-3-dpo is
better on two pairs, that phi-3 is on one, and call one a tie; they disagree on two pairs, which
carol adjudicates for phi-3-dpo. Final preferences: phi-3-dpo 4, phi-3 1, tie 1 (4 unanimous,
2 adjudicated); the reviewers' own twelve judgments say phi-3-dpo 6, phi-3 4, tie 2.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils
from textual.widgets import Static

from abp_tui.analysis.verdicts import decide
from abp_tui.export import verify
from abp_tui.export.bundle_analysis import verdict_line_schema
from abp_tui.export.validation import VERDICTS_SCHEMA_FILE, load_schema, schema_errors
from abp_tui.models import DesignRecords, Judgment, PreferenceChoice
from abp_tui.services.adjudicating import adjudicate
from abp_tui.services.coordinator import disagreement_queue
from abp_tui.services.designing import DesignChoices, create_from_choices
from abp_tui.services.importing import import_paths
from abp_tui.services.ranking import ranking_report
from abp_tui.services.results_report import compute_results, unblind
from abp_tui.services.reviewing import ReviewSession
from abp_tui.store import connect, judging
from abp_tui.tui.app import make_app
from abp_tui.tui.screens.disagreements import verdict_sources
from abp_tui.tui.screens.results import ResultsScreen
from tests.factories import Cli, flipped, write_jsonl
from tests.tui_helpers import drive, plain, press, screen_text, settle, until

DPO, BASE = "phi-3-dpo", "phi-3"
TASKS = "81,82,83,84,85,86"
# Per item (in sorted code order): alice's pick, bob's pick, the adjudicator's (disputes only).
PLAN: tuple[tuple[str, str, str | None], ...] = (
    (DPO, DPO, None),
    (DPO, DPO, None),
    (BASE, BASE, None),
    ("tie", "tie", None),
    (DPO, BASE, DPO),
    (BASE, DPO, DPO),
)


@dataclass(frozen=True)
class Scenario:
    pk: int
    codes: list[str]
    """Sorted item codes, in PLAN's order."""
    disputed: list[str]


def _choice(
    db: sqlite_utils.Database, pk: int, code: str, want: str, reversed_: bool
) -> PreferenceChoice:
    """The position at which the condition ``want`` is shown (``reversed_``: run b first)."""
    if want == "tie":
        return PreferenceChoice.TIE
    item = judging.item_by_code(db, pk, code)
    side = item.conditions.index(want)  # 0: run a, 1: run b
    first = 1 if reversed_ else 0
    return PreferenceChoice.RESPONSE_1 if side == first else PreferenceChoice.RESPONSE_2


def judged_study(
    db: sqlite_utils.Database, reference: Path, limitations: tuple[str, ...] = ()
) -> Scenario:
    """The scenario of this module's docstring, unblinded (the design declaring
    ``limitations``)."""
    import_paths(db, [reference / "mt-bench"])
    created = create_from_choices(
        db,
        DesignChoices(
            rubric="none",
            reviewers="alice,bob",
            reviewers_per_item=2,
            tasks=TASKS,
            seed=7,
            limitations=limitations,
        ),
    )
    pk = created.pk
    sessions = {name: ReviewSession(db, pk, name) for name in ("alice", "bob")}
    codes = sorted(r.code for r in sessions["alice"].queue())
    assert len(codes) == len(PLAN)
    for code, (alice, bob, _final) in zip(codes, PLAN, strict=True):
        for name, want in (("alice", alice), ("bob", bob)):
            session = sessions[name]
            choice = _choice(db, pk, code, want, flipped(session, code))
            session.save(
                code, Judgment(preference=choice, justification="Read both."), 5, submit=True
            )
    disputed = []
    for code, (_alice, _bob, final) in zip(codes, PLAN, strict=True):
        if final is None:
            continue
        disputed.append(code)
        item = judging.item_by_code(db, pk, code)
        assert item.run_b_pk is not None
        adjudicate(
            db,
            pk,
            code,
            "carol",
            Judgment(preference=_choice(db, pk, code, final, False), justification="Tighter."),
            {"1": item.run_a_pk, "2": item.run_b_pk},
            "Read both again.",
        )
    unblind(db, "mt-bench", "coordinator")
    return Scenario(pk, codes, disputed)


@pytest.fixture
def scenario(db: sqlite_utils.Database, reference: Path) -> Scenario:
    return judged_study(db, reference)


def _wilson(x: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The Wilson score interval, written out here from its formula (Wilson 1927)."""
    p = x / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def _records(db: sqlite_utils.Database, pk: int) -> DesignRecords:
    return judging.records_of_design(db, pk, with_runs=False)


# -- A: final verdicts at the level the design measures ----------------------------------------
def test_each_pair_has_one_final_preference_with_its_source_and_reviews(
    db: sqlite_utils.Database, scenario: Scenario
) -> None:
    records = _records(db, scenario.pk)
    decisions = decide(records)
    found = {p.item: p for p in decisions.preferences}
    assert list(found) == [i.code for i in records.items]  # one per judged pair, plan order
    assert sorted(found) == scenario.codes
    for code, (alice, bob, final) in zip(scenario.codes, PLAN, strict=True):
        p = found[code]
        assert p.source == ("adjudicated" if final else "unanimous")
        expected = final or alice
        assert (p.preferred_condition or p.preferred) == expected
        assert p.adjudicator == ("carol" if final else None)
        # The reviewers' picks in run terms, each with where the picked run was shown to them.
        assert [r.reviewer for r in p.reviews] == ["alice", "bob"]
        for review, want in zip(p.reviews, (alice, bob), strict=True):
            if want == "tie":
                assert (review.pick, review.shown_as) == ("tie", None)
                continue
            run = p.runs[p.conditions.index(want)]
            assert review.pick == run
            assert review.shown_as is not None and review.placement[review.shown_as] == run
    # Each run of a pair judged by preference alone has a verdict: judged, with no state.
    assert len(decisions.verdicts) == 12
    assert all(v.preference_only and v.result_state is None for v in decisions.verdicts)
    assert {v.source for v in decisions.verdicts} == {"unanimous", "adjudicated"}
    assert all(v.judgments == 2 for v in decisions.verdicts)


# -- B: preferences everywhere ------------------------------------------------------------------
def test_export_verdicts_carries_each_pairs_final_preference(
    tmp_path: Path, reference: Path, cli: Cli
) -> None:
    db = connect(cli.db_path)
    found = judged_study(db, reference)
    db.close()
    out = tmp_path / "verdicts.jsonl"
    done = cli("export", "verdicts", "--out", out)
    assert done.code == 0, done.err
    assert (
        "12 run verdicts of study mt-bench, design pairs v1, with the final preferences of 6 "
        "judged pairs"
    ) in done.out
    lines = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert len(lines) == 12
    assert not any(v["source"] == "unjudged" or v["judgments"] == 0 for v in lines)
    by_item: dict[str, dict[str, Any]] = {}
    for v in lines:
        (p,) = v["preferences"]  # each run is in one pair; both runs carry its preference
        assert v["run"] in p["runs"]
        by_item.setdefault(p["item"], p)
        assert by_item[p["item"]] == p
    sources = Counter(p["source"] for p in by_item.values())
    assert sources == {"unanimous": 4, "adjudicated": 2}
    disputed = by_item[found.disputed[0]]
    assert disputed["preferred_condition"] == DPO and disputed["adjudicator"] == "carol"
    assert sorted(r["reviewer"] for r in disputed["reviews"]) == ["alice", "bob"]
    assert {r["shown_as"] for r in disputed["reviews"]} <= {"1", "2"}
    # A name that says another format is refused before anything is written (it wrote JSON
    # lines under a .csv name).
    named = tmp_path / "verdicts.csv"
    refused = cli("export", "verdicts", "--out", named)
    assert refused.code == 1 and not named.exists()
    assert "writes JSON lines" in refused.err and "verdicts.jsonl" in refused.err


def test_the_browsing_tables_hold_preference_only_judgments(
    tmp_path: Path, reference: Path, cli: Cli
) -> None:
    db = connect(cli.db_path)
    judged_study(db, reference)
    db.close()
    done = cli("schema", "--out", tmp_path / "schemas")
    assert done.code == 0, done.err
    db = connect(cli.db_path)
    # Each of the 12 judgments has a row per run of its pair, with the run it preferred.
    rows = list(db.query("SELECT * FROM latest_judgments"))
    assert len(rows) == 24
    assert {(r["reviewer"], r["item"]) for r in rows} == {
        (who, code) for who in ("alice", "bob") for code in {r["item"] for r in rows}
    }
    decisive = [r for r in rows if r["preference"] in ("response_1", "response_2")]
    assert len(decisive) == 20 and all(r["preferred_condition_id"] for r in decisive)
    verdicts = list(db.query("SELECT source, result_state FROM final_verdicts"))
    assert len(verdicts) == 12 and {v["source"] for v in verdicts} == {"unanimous", "adjudicated"}
    preferred = list(db.query("SELECT * FROM final_preferences ORDER BY item"))
    assert Counter(p["source"] for p in preferred) == {"unanimous": 4, "adjudicated": 2}
    assert Counter(p["preferred_condition_id"] for p in preferred) == {DPO: 4, BASE: 1, None: 1}
    assert all(p["judgments"] == 2 for p in preferred)
    metadata = json.loads((tmp_path / "schemas" / "metadata.json").read_text("utf-8"))
    (database,) = metadata["databases"].values()
    assert "final_preferences" in database["tables"]


def test_the_disagreements_screen_counts_pairs_in_items(
    db: sqlite_utils.Database, scenario: Scenario
) -> None:
    db_path = Path(db.conn.execute("PRAGMA database_list").fetchone()[2])
    queue = disagreement_queue(db_path, scenario.pk, "carol")
    shown = verdict_sources(queue).plain
    assert "Final preferences of judged pairs: 2 adjudicated, 4 unanimous" in shown
    assert "(of 6 items)" in shown and "of 0 runs" not in shown


# -- C: one answer ------------------------------------------------------------------------------
def test_results_and_ranking_count_each_items_final_verdict(
    db: sqlite_utils.Database, scenario: Scenario
) -> None:
    report = compute_results(db, scenario.pk)
    (comparison,) = report.comparisons
    prefs = comparison.preferences
    wins = {comparison.a: prefs.wins_a, comparison.b: prefs.wins_b}
    assert (wins[DPO], wins[BASE], prefs.ties, prefs.insufficient) == (4, 1, 1, 0)
    assert prefs.judgments == 12  # the reviewers' own: 6 / 4 / 2, for agreement only
    counting = "Counts each item's final verdict: 4 unanimous, 2 adjudicated, 0 unresolved."
    assert prefs.counting == counting and counting in report.headline
    ranked = ranking_report(db, "mt-bench", source="verdicts", resamples=0, prior=1.0)
    record = {s.condition: (s.wins, s.losses, s.ties) for s in ranked.systems}
    assert record == {DPO: (4, 1, 1), BASE: (1, 4, 1)}
    assert ranked.notes[0] == counting


# -- D: lead with what the design measured ------------------------------------------------------
def test_results_lead_with_the_preference_answer(reference: Path, cli: Cli) -> None:
    db = connect(cli.db_path)
    judged_study(db, reference)
    db.close()
    text = cli("results")
    assert text.code == 0, text.err
    lines = text.out.splitlines()
    low, high = _wilson(4, 5)
    assert (round(low * 100), round(high * 100)) == (38, 96)
    # Exact two-sided binomial test of 4 of 5: 2 * (5 + 1) / 2^5 = 0.375.
    assert lines[2:6] == [
        "Compared phi-3, phi-3-dpo: 6 of 6 planned pairs judged blind by 2 reviewers.",
        "phi-3-dpo ahead of phi-3 on 4 of 5 decisive items (80%, Wilson 95% CI 38% to "
        "96%); exact binomial test p = 0.375, no clear preference; 1 tie, 0 insufficient "
        "evidence; 6 items, 12 reviewer judgments.",
        "Counts each item's final verdict: 4 unanimous, 2 adjudicated, 0 unresolved.",
        "Nothing pending: every planned item is judged and every disagreement settled.",
    ]
    assert lines[7].startswith("Preferences by pair of conditions")
    for absent in ("By condition", "Pass rate", "Rubric dimensions", "Unjudged", "McNemar"):
        assert absent not in text.out
    document = json.loads(cli("results", "--json").out)
    assert document["headline"] == lines[2:6]
    share = document["comparisons"][0]["preferences"]["a_share"]
    assert (share["low"], share["high"]) == pytest.approx((1 - high, 1 - low))


def test_report_html_opens_with_the_answer_and_draws_no_empty_section(
    tmp_path: Path, reference: Path, cli: Cli
) -> None:
    db = connect(cli.db_path)
    judged_study(db, reference)
    db.close()
    done = cli("export", "bundle", "--out", tmp_path / "bundle")
    assert done.code == 0, done.err
    page = (tmp_path / "bundle" / "report.html").read_text("utf-8")
    body = page.split("</header>", 1)[1]
    first = body.index("<section")
    assert body[first:].startswith('<section id="answer"><h2>Answer</h2>')
    answer = body[first : body.index("</section>", first)]
    assert "phi-3-dpo ahead of phi-3 on 4 of 5 decisive items" in answer
    assert "4 unanimous, 2 adjudicated, 0 unresolved" in answer
    # The preference tally is the next section; nothing of a rubric is drawn.
    second = body.index("<section", first + 1)
    assert body[second:].startswith('<section id="comparisons"><h2>Preferences</h2>')
    for absent in ("Summary by condition", "Rubric dimensions", "pass-rate", ">unjudged<"):
        assert absent not in page
    assert verify(tmp_path / "bundle.zip").derived > 0


async def test_the_results_screen_opens_with_the_answer(tmp_path: Path, reference: Path) -> None:
    db_path = tmp_path / "screen.db"
    db = connect(db_path)
    try:
        judged_study(db, reference)
    finally:
        db.close()
    app = make_app(db_path, reviewer="carol")
    async with drive(app, (160, 50)) as pilot:
        await settle(pilot)
        await press(pilot, "v")
        await until(pilot, lambda: isinstance(app.screen, ResultsScreen), "the results screen")
        screen: Any = app.screen
        await until(pilot, lambda: screen.shown is not None, "the results")
        await settle(pilot)
        body = plain(screen.query_one("#results-body", Static).content).splitlines()
        assert body[:3] == [
            "Answer",
            "Compared phi-3, phi-3-dpo: 6 of 6 planned pairs judged blind by 2 reviewers.",
            "phi-3-dpo ahead of phi-3 on 4 of 5 decisive items (80%, Wilson 95% CI 38% "
            "to 96%); exact binomial test p = 0.375, no clear preference; 1 tie, 0 insufficient "
            "evidence; 6 items, 12 reviewer judgments.",
        ]
        shown = screen_text(pilot)
        assert "Pass rate by condition" not in shown and "Unjudged" not in shown


def test_verdicts_lines_match_the_shipped_schema(tmp_path: Path, reference: Path, cli: Cli) -> None:
    # The shipped schema is the model's: a field added to a line is added to the schema too.
    assert load_schema(VERDICTS_SCHEMA_FILE) == json.loads(json.dumps(verdict_line_schema()))
    db = connect(cli.db_path)
    judged_study(db, reference)
    db.close()
    out = tmp_path / "verdicts.jsonl"
    assert cli("export", "verdicts", "--out", out).code == 0
    lines = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    assert [schema_errors(v, VERDICTS_SCHEMA_FILE) for v in lines] == [[]] * 12
    # A line of a run in no judged pair (as every line before preferences were published)
    # stays valid: the field is optional.
    older = {k: v for k, v in lines[0].items() if k != "preferences"}
    assert schema_errors(older, VERDICTS_SCHEMA_FILE) == []
    broken = json.loads(json.dumps(lines[0]))
    broken["preferences"][0]["source"] = "majority"
    assert any("source" in e for e in schema_errors(broken, VERDICTS_SCHEMA_FILE))


def test_three_systems_lead_with_each_contrast_and_their_ranking(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    """One reviewer prefers A to B and to C, and B to C, on every one of three prompts."""
    lines: list[dict[str, object]] = [{"type": "study", "id": "three", "name": "Three prompts"}]
    lines += [{"type": "condition", "id": c, "label": f"System {c}"} for c in "ABC"]
    for n in range(3):
        lines.append({"type": "task", "id": f"T{n}", "prompt": f"Answer question {n}."})
        lines += [
            {
                "type": "run",
                "id": f"T{n}-{c}",
                "task_id": f"T{n}",
                "condition_id": c,
                "output": f"Answer {n} by {c}.",
            }
            for c in "ABC"
        ]
    import_paths(db, [write_jsonl(tmp_path / "three.jsonl", lines)])
    created = create_from_choices(db, DesignChoices(rubric="none", reviewers="ann", seed=3))
    session = ReviewSession(db, created.pk, "ann")
    for row in session.queue():
        item = judging.item_by_code(db, created.pk, row.code)
        best = min(item.conditions)  # A before B before C
        choice = _choice(db, created.pk, row.code, best, row.flipped)
        session.save(row.code, Judgment(preference=choice, justification="Better."), 2, submit=True)
    unblind(db, "three", "coordinator")
    headline = compute_results(db, created.pk).headline
    assert headline[0] == "Compared A, B, C: 9 of 9 planned pairs judged blind by 1 reviewer."
    # 3 of 3 each: an interval reaching 50% (Wilson 95% CI 44% to 100%), p = 0.25.
    contrasts = [h for h in headline if " ahead of " in h and "no clear preference" in h]
    assert len(contrasts) == 3 and all("on 3 of 3 decisive items" in h for h in contrasts)
    assert {h.split(" ahead of ")[0] + h.split(" ahead of ")[1][:2] for h in contrasts} == {
        "AB ",
        "AC ",
        "BC ",
    }
    counting = "Counts each item's final verdict: 0 unanimous, 0 adjudicated, 9 single review,"
    assert f"{counting} 0 unresolved." in headline
    # 6 decisive votes each are too few to rank (abp-tui ranking's rule): the headline says
    # so, naming the rule, where it once gave an order the ranking refused.
    (ranked,) = [h for h in headline if "Bradley-Terry" in h]
    assert ranked.startswith("Not ranked (Bradley-Terry over the items' final preferences")
    assert "too few votes: every system needs at least 10 decisive votes" in ranked
    assert "A has 6, B has 6, C has 6" in ranked


def _exported(cli: Cli, reference: Path, out: Path, limitations: tuple[str, ...] = ()) -> Any:
    """The scenario (its design declaring ``limitations``) exported to ``out``: its
    ``status.json``."""
    db = connect(cli.db_path)
    judged_study(db, reference, limitations)
    db.close()
    done = cli("export", "bundle", "--out", out)
    assert done.code == 0, done.err
    return json.loads((out / "status.json").read_text("utf-8"))


def test_a_judged_pairwise_bundle_waits_only_on_what_the_design_declares(
    tmp_path: Path, reference: Path, cli: Cli
) -> None:
    # Found walking the main path: every pair judged and every disagreement settled, the report
    # said "Results pending: the tables below are computed from the judgments made so far",
    # and the gate asked for the instructions of conditions that are the models compared.
    status = _exported(cli, reference, tmp_path / "bundle")
    checks = {c["requirement"]: c for c in status["checks"]}
    instructions = checks["actual condition instructions"]
    assert instructions["met"] and instructions["detail"].startswith("not applicable")
    assert checks["every item judged"]["met"] and checks["every disagreement adjudicated"]["met"]
    assert [c["requirement"] for c in status["checks"] if not c["met"]] == ["limitations"]
    page = (tmp_path / "bundle" / "report.html").read_text("utf-8")
    assert "every item is judged and every disagreement settled, but the publication gate" in page
    assert "computed from the judgments made so far" not in page
    assert verify(tmp_path / "bundle.zip").derived > 0


def test_a_judged_pairwise_design_declaring_its_limitations_publishes_its_results(
    tmp_path: Path, reference: Path, cli: Cli
) -> None:
    status = _exported(
        cli, reference, tmp_path / "bundle", ("Six MT-Bench questions, two reviewers.",)
    )
    assert (status["status"], status["missing"]) == ("results published", [])
    study = json.loads((tmp_path / "bundle" / "protocol" / "study.json").read_text("utf-8"))
    assert study["limitations"] == ["Six MT-Bench questions, two reviewers."]
    assert "Results pending" not in (tmp_path / "bundle" / "report.html").read_text("utf-8")
    assert verify(tmp_path / "bundle.zip").derived > 0


def test_study_create_declares_limitations_from_the_command_line(
    tmp_path: Path, reference: Path, cli: Cli
) -> None:
    assert cli("import", reference / "mt-bench").code == 0
    made = cli(
        "study",
        "create",
        "--rubric",
        "none",
        "--tasks",
        TASKS,
        "--reviewers",
        "alice,bob",
        "--limitation",
        "Six questions.",
        "--limitation",
        "Two reviewers.",
    )
    assert made.code == 0, made.err
    out = tmp_path / "protocol"
    assert cli("export", "bundle", "--protocol-only", "--out", out).code == 0, "protocol bundle"
    study = json.loads((out / "protocol" / "study.json").read_text("utf-8"))
    assert study["limitations"] == ["Six questions.", "Two reviewers."]
    both = cli("study", "create", "--limitation", "x", tmp_path / "design.toml")
    assert both.code == 1 and "--limitation" in both.err  # a file holds its own


def test_a_reviewer_still_judging_keeps_the_results_pending(
    tmp_path: Path, reference: Path, cli: Cli
) -> None:
    """Two reviewers planned on every item, one has judged them all: every item has a
    judgment, and the results still say half the planned judgments are to come (the command's
    fold and the bundle's headline alike), never "Nothing pending"."""
    db = connect(cli.db_path)
    import_paths(db, [reference / "mt-bench"])
    pk = create_from_choices(
        db,
        DesignChoices(rubric="none", reviewers="alice,bob", reviewers_per_item=2, tasks=TASKS),
    ).pk
    alice = ReviewSession(db, pk, "alice")
    for row in alice.queue():
        judgment = Judgment(preference=PreferenceChoice.TIE, justification="Alike.")
        alice.save(row.code, judgment, 5, submit=True)
    unblind(db, "mt-bench", "coordinator")
    db.close()
    pending = "Pending: 6 planned judgments not submitted."
    lines = cli("results").out.splitlines()
    assert lines[2] == "Compared phi-3, phi-3-dpo: 6 of 6 planned pairs judged blind by 1 reviewer."
    assert pending in lines and not [line for line in lines if line.startswith("Nothing")]
    done = cli("export", "bundle", "--out", tmp_path / "bundle")
    assert done.code == 0, done.err
    summary = json.loads((tmp_path / "bundle" / "results" / "summary.json").read_text("utf-8"))
    assert pending in summary["headline"]
