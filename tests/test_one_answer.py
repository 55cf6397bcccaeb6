"""One question, one answer on every face: the results' headline, ``abp-tui ranking``, the
results screen's ranking and the bundle's report give the same ranking verdict by the same rule,
rank the same votes (the design's scope, what the bundle carries), and draw agreement's bootstrap
with the same seed (the design's).

The study is the newcomer's: PandaLM's test set (WeOpenML/PandaLM, data/testset-v1.json: 999 pairs
of five 7B models, three annotators each) with a preference-only design of six of its tasks,
judged by ann and bo, their disagreements adjudicated by cy. The headline once gave an order
(fitted with one pseudo-tie per pair) while ``abp-tui ranking`` said the votes were too few and
pointed to ``--prior K``, which gave "Not ranked" again; ``ranking --source labels`` ranked all
2997 imported votes while the report ranked the 18 of the design's tasks; ``agreement`` drew
with seed 0 while the report drew with the design's.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

import pytest

from abp_tui.analysis.ranking.fit import A_WON, B_WON, TIE, Votes, rank
from abp_tui.analysis.results.headline import ranking_text
from abp_tui.models import Judgment, PreferenceChoice
from abp_tui.services.adjudicating import adjudicate, disagreements
from abp_tui.services.coordinator import DesignChoice, read_agreement
from abp_tui.services.designing import find_design_if_any
from abp_tui.services.ranking import ranking_report
from abp_tui.services.reviewing import ReviewSession
from abp_tui.store import connect
from abp_tui.tui.app import make_app
from abp_tui.tui.screens.results import ResultsScreen
from abp_tui.tui.widgets.ranking_chart import RankingPanel
from tests.factories import Cli
from tests.tui_helpers import drive, plain, press, screen_text, settle, until

SEED = 53236957
R1, R2, TIED = PreferenceChoice.RESPONSE_1, PreferenceChoice.RESPONSE_2, PreferenceChoice.TIE
PICKS = {"ann": [R1, R2, R1, TIED, R1, R2], "bo": [R1, R2, R2, TIED, R1, R1]}
TOO_FEW = "too few votes: every system needs at least 10 decisive votes"
LABELS_SCOPE = (
    "labels: kept to the tasks and conditions of design pairs, as its publication bundle "
    "carries them: 18 of the study's 2997 votes (abp-tui ranking --whole-study ranks them all)"
)


def _judged(reference: Path, cli: Cli) -> None:
    """The newcomer's study: six PandaLM tasks judged, adjudicated and unblinded."""
    assert cli("import", reference / "pandalm" / "testset-v1.json").code == 0
    created = cli(
        "study",
        "create",
        "--rubric",
        "none",
        "--tasks",
        "0,1,2,3,4,5",
        "--reviewers",
        "ann,bo",
        "--adjudicators",
        "cy",
        "--seed",
        str(SEED),
    )
    assert created.code == 0, created.err
    db = connect(cli.db_path)
    try:
        (pk,) = [r[0] for r in db.execute("SELECT pk FROM designs").fetchall()]
        for who, picks in PICKS.items():
            session = ReviewSession(db, pk, who)
            for row, pick in zip(sorted(session.queue(), key=lambda r: r.code), picks, strict=True):
                judgment = Judgment(preference=pick, justification="Because.")
                session.save(row.code, judgment, 5, submit=True)
        for d in disagreements(db, pk):
            placement = db.execute(
                "SELECT j.placement FROM judgments j JOIN items i ON i.pk = j.item_pk "
                "WHERE i.code = ? AND j.reviewer = 'ann'",
                [d.code],
            ).fetchone()[0]
            runs = {k: int(v) for k, v in json.loads(placement).items()}
            final = Judgment(preference=R1, justification="Cy.")
            adjudicate(db, pk, d.code, "cy", final, runs, "cy decides")
    finally:
        db.close()
    assert cli("unblind", "--yes").code == 0


def test_every_face_gives_one_ranking_verdict_one_scope_and_one_seed(
    reference: Path, cli: Cli, tmp_path: Path
) -> None:
    _judged(reference, cli)
    # The ranking of the design's verdicts: too few votes, whatever the prior. Without one
    # there is no finite fit either: refused, the votes' shortfall first, and no prior
    # suggested (it was, and the prior gave "Not ranked" again).
    refused = cli("ranking")
    assert refused.code == 1 and refused.err.startswith(f"abp-tui: not ranked: {TOO_FEW}")
    assert "--prior" not in refused.err
    with_prior = cli("ranking", "--json", "--prior", "1")
    assert with_prior.code == 0
    verdict = json.loads(with_prior.out)["too_few_votes"]
    assert verdict.startswith(TOO_FEW) and f"not ranked: {verdict}; besides" in refused.err
    # The results' answer says the same, by the same rule, and gives no order.
    results = cli("results")
    assert results.code == 0
    (line,) = [x for x in results.out.splitlines() if "Bradley-Terry" in x]
    assert line.startswith("Not ranked (Bradley-Terry over the items' final preferences")
    assert verdict in line and " > " not in line
    # The labels: the design's 18 votes on 6 tasks, on the command as in the bundle, each
    # saying so; with no finite fit either, the refusal suggests no prior.
    labels = cli("ranking", "--source", "labels")
    assert labels.code == 1 and labels.err.count("\n") == 1
    assert TOO_FEW in labels.err and "bloom-7b has 6" in labels.err
    assert LABELS_SCOPE in labels.err and "--prior" not in labels.err
    scoped = json.loads(cli("ranking", "--source", "labels", "--prior", "1", "--json").out)
    assert (scoped["comparisons"], scoped["tasks"]) == (18, 6)
    assert scoped["notes"][0] == LABELS_SCOPE
    assert scoped["too_few_votes"].startswith(TOO_FEW)
    assert {"reason": "on a task or condition outside design pairs", "votes": 2979} in scoped[
        "excluded"
    ]
    # Every imported label, asked for: the study's 2997 votes, and the note says so.
    whole = cli("ranking", "--source", "labels", "--whole-study", "--resamples", "0", "--json")
    assert whole.code == 0, whole.err
    everything = json.loads(whole.out)
    assert (everything["comparisons"], everything["tasks"]) == (2997, 999)
    assert everything["notes"][0].startswith("labels: every vote the study holds (2997)")
    assert not everything["too_few_votes"] and len(everything["systems"]) == 5
    # The bundle: the same verdicts, from the same votes; its report says which scope.
    out = tmp_path / "bundle"
    assert cli("export", "bundle", "--out", out).code == 0
    bundle = json.loads((out / "results" / "ranking.json").read_text("utf-8"))
    reasons = {r["source"]: r["reason"] for r in bundle["refused"]}
    assert refused.err.removeprefix("abp-tui: ").startswith(reasons["verdicts"])
    assert labels.err.removeprefix("abp-tui: ").startswith(reasons["labels"])
    report = (out / "report.html").read_text("utf-8")
    assert html.escape(line) in report
    assert "Every source is kept to the design's tasks and conditions" in report
    # Each refusal once, as the command gives it (not "No ranking: not ranked: ...").
    assert "No ranking: not ranked" not in report
    for reason in reasons.values():
        assert f"No ranking: {html.escape(reason.removeprefix('not ranked: '))}</p>" in report
    # Agreement: the design's seed by default, the bundle's figures.
    agreement = json.loads(cli("agreement", "--json").out)
    assert agreement["seed"] == SEED
    published = json.loads((out / "results" / "agreement.json").read_text("utf-8"))
    assert published["seed"] == SEED
    mine = agreement["variables"][0]["percent_agreement"]["interval"]
    theirs = published["variables"][0]["percent_agreement"]["interval"]
    # The bundle rounds its figures to 6 decimals.
    assert (mine["low"], mine["high"]) == pytest.approx((theirs["low"], theirs["high"]), abs=1e-6)
    text = cli("agreement").out
    heading = " ".join(text.split("\n\n")[0].split())  # wrapped to 80 columns
    assert f"(seed {SEED}, 1000 bootstrap resamples" in heading
    assert cli("agreement", "--json", "--seed", "0").code == 0
    assert json.loads(cli("agreement", "--json", "--seed", "0").out)["seed"] == 0
    # The agreement screen reads the same figures.
    db = connect(cli.db_path)
    try:
        row = find_design_if_any(db, None, None)
        assert row is not None
        choice = DesignChoice(row.pk, row.study_id, row.name, row.version_no, "pairwise")
        # The results screen's ranking panel is ranking_report's: the same scope.
        panel = ranking_report(db, source="labels", prior=1.0, resamples=0)
        assert panel.comparisons == 18 and panel.notes[0] == LABELS_SCOPE
    finally:
        db.close()
    assert read_agreement(cli.db_path, choice, "root").seed == SEED


def _votes(pairs: list[tuple[str, str, int, int, int]]) -> Votes:
    """(a, b, a wins, b wins, ties) -> one task per vote."""
    rows: list[tuple[str, str, str, int, float | None, float | None]] = []
    for a, b, wins, losses, ties in pairs:
        for outcome, count in ((A_WON, wins), (B_WON, losses), (TIE, ties)):
            rows += [(f"t{len(rows) + k}", a, b, outcome, 100.0, 100.0) for k in range(count)]
    return Votes.from_rows(rows)


def test_the_headline_gives_the_ranking_commands_order_and_its_refusals() -> None:
    # Enough votes: the headline's order is the ranking's.
    votes = _votes([("a", "b", 9, 5, 1), ("b", "c", 8, 6, 0), ("a", "c", 4, 10, 2)])
    report = rank(votes, study="s", source="verdicts", resamples=0)
    assert report.too_few_votes is None
    order = " > ".join(s.condition for s in report.systems)
    assert ranking_text(votes) == (
        "Ranking of 3 systems (Bradley-Terry over the items' final preferences, as abp-tui "
        f"ranking ranks them): {order}."
    )
    # Enough votes but no finite fit: not ranked, and the prior the headline names ranks them.
    unbounded = _votes([("a", "b", 12, 0, 0), ("a", "c", 10, 0, 0), ("b", "c", 8, 8, 2)])
    said = ranking_text(unbounded) or ""
    assert said.startswith("Not ranked (") and "a won or tied every one" in said
    assert "fit with --prior K" in said
    fitted = rank(unbounded, study="s", source="verdicts", prior=1.0, resamples=0)
    assert fitted.too_few_votes is None and fitted.systems[0].condition == "a"
    # Too few votes: not ranked, naming the rule, whatever a prior would fit.
    few = _votes([("a", "b", 3, 1, 0), ("b", "c", 2, 2, 0), ("a", "c", 1, 2, 0)])
    assert (ranking_text(few) or "").startswith(
        "Not ranked (Bradley-Terry over the items' final preferences, as abp-tui ranking "
        f"ranks them): {TOO_FEW}"
    )


async def test_the_results_screen_says_what_the_commands_say(reference: Path, cli: Cli) -> None:
    _judged(reference, cli)
    headline = next(x for x in cli("results").out.splitlines() if "Bradley-Terry" in x)
    refused = cli("ranking").err.removeprefix("abp-tui: ").strip()
    app = make_app(cli.db_path, reviewer="coordinator")
    async with drive(app, (150, 50)) as pilot:
        await settle(pilot)
        await press(pilot, "v")
        if not isinstance(pilot.app.screen, ResultsScreen):
            await press(pilot, "c")  # someone who could still join an open design: view
        screen = pilot.app.screen
        assert isinstance(screen, ResultsScreen)
        await until(pilot, lambda: screen.shown is not None, "the results")
        panel = screen.query_one(RankingPanel)
        await until(pilot, lambda: panel.view is not None, "the ranking")
        await settle(pilot)
        shown = {}
        for _ in range(2):
            assert panel.view is not None
            shown[panel.view.source] = plain(panel.content, width=2000)
            await press(pilot, "s")
            await until(pilot, lambda: panel.view is not None, "the next source")
        answer = screen_text(pilot)
    # The answer is the command's, word for word; the ranking's verdict is the command's.
    assert " ".join(headline.split()) in " ".join(answer.split())
    assert refused in " ".join(shown["verdicts"].split())
    assert "--prior" not in shown["verdicts"]
    # The labels: the design's, saying so, as the command and the report.
    assert LABELS_SCOPE in " ".join(shown["labels"].split())
