"""Rankings in the publication bundle: the votes it carries (``ranking/votes.jsonl``, no
reviewer's name), ``results/ranking.csv`` and ``results/ranking.json`` derived from them, the
report's section, and ``verify`` re-deriving every score, interval and rank, failing on a
tampered vote."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import evalica
import numpy as np
import pytest
import sqlite_utils

from abp_tui.analysis.ranking.fit import Votes, rank
from abp_tui.export.bundle import verify, write_folder
from abp_tui.export.derive import derive
from abp_tui.export.errors import BundleMismatch
from abp_tui.export.ranking import CSV_COLUMNS, RANKING_CSV, RANKING_JSON, RESAMPLES, SOURCES, VOTES
from abp_tui.models import Judgment, PreferenceChoice, StudyDesign
from abp_tui.services.designing import create_design
from abp_tui.services.importing import import_paths
from abp_tui.services.publishing import build_bundle
from abp_tui.services.ranking import read_source
from abp_tui.services.ranking_bundle import OUT_OF_SCOPE
from abp_tui.services.results_report import unblind
from abp_tui.services.reviewing import ReviewSession
from abp_tui.stats.ranking import ELO_PER_LOGIT
from abp_tui.text.canonical import sha256_bytes
from tests.factories import flipped, write_jsonl
from tests.ranking_data import judge_lines, pairwise_items, write_pairwise


def _small_bundle(
    db: sqlite_utils.Database,
    tmp_path: Path,
    systems: tuple[str, str, str] = ("alpha", "beta", "gamma"),
) -> tuple[dict[str, bytes], int]:
    """A design over a small labelled study with an AI judge, unblinded: (its bundle, seed)."""
    import_paths(db, [write_pairwise(tmp_path / "small.json", systems)], study="small")
    judged = write_jsonl(tmp_path / "judge.jsonl", judge_lines(pairwise_items(systems)))
    import_paths(db, [judged], study="small")
    created = create_design(db, StudyDesign(study="small", name="d", seed=5, rubric="none"))
    unblind(db, "small", "coordinator")
    return build_bundle(db, created.pk), 5


def _rows(data: bytes) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(data.decode("utf-8"))))


def test_a_bundle_publishes_each_sources_ranking_from_its_votes(
    db: sqlite_utils.Database, tmp_path: Path
) -> None:
    files, seed = _small_bundle(db, tmp_path)
    manifest = json.loads(files["manifest.json"])
    assert {RANKING_CSV, RANKING_JSON} <= set(manifest["derived"])
    listed = {f["path"] for f in manifest["files"]}
    assert {VOTES, SOURCES, RANKING_CSV, RANKING_JSON} <= listed
    votes = [json.loads(line) for line in files[VOTES].decode().splitlines()]
    # What a ranking needs, and nothing that names a reviewer.
    assert {frozenset(v) for v in votes} == {
        frozenset({"source", "task", "a", "b", "outcome", "length_a", "length_b"})
    }
    assert sum(v["source"] == "labels" for v in votes) == 36  # 12 pairs, 3 annotators
    assert sum(v["source"] == "judge:j1" for v in votes) == 12  # one per pair, orders combined
    rows = _rows(files[RANKING_CSV])
    assert tuple(rows[0]) == CSV_COLUMNS
    assert sorted((r["source"], r["condition"]) for r in rows) == sorted(
        (s, c) for s in ("labels", "judge:j1") for c in ("alpha", "beta", "gamma")
    )
    assert {(r["seed"], r["resamples"], r["confidence"]) for r in rows} == {
        (str(seed), str(RESAMPLES), "0.95")
    }
    assert all(r["resampled"].startswith("tasks: each resample draws the 12 tasks") for r in rows)
    document = json.loads(files[RANKING_JSON])
    labels = next(r for r in document["rankings"] if r["source"] == "labels")
    assert len(labels["pairwise"]) == 3 and labels["length_bias"]["decisive_votes"] > 0
    judge = next(r for r in document["rankings"] if r["source"] == "judge:j1")
    assert "FastChat" in judge["ties"]
    assert [a["b"] for a in labels["sources"]] == ["judge:j1"]  # Kendall's tau between them
    report = files["report.html"].decode()
    assert 'id="ranking"' in report and "From judge:j1" in report and 'href="#ranking"' in report
    # The judge's 12 votes are too few for a ranking: the document says so beside its numbers,
    # the report's section says so instead of them, and the labels' tau with it is left out.
    assert judge["too_few_votes"].startswith("too few votes: every system needs at least 10")
    assert {r["too_few_votes"] for r in rows if r["source"] == "judge:j1"} == {
        judge["too_few_votes"]
    }
    assert {r["too_few_votes"] for r in rows if r["source"] == "labels"} == {""}
    assert labels["too_few_votes"] is None
    judge_section = report.split("From judge:j1")[1].split("</section>")[0]
    assert "Not ranked: too few votes" in judge_section and "<table" not in judge_section
    assert "<table" in report.split("From labels")[1].split("<h3>")[0]
    (tau,) = labels["sources"]
    assert tau["tau"] is None and tau["reason"].startswith("judge:j1: too few votes")


def test_the_bundles_scores_are_evalicas_on_the_annotators_votes(
    reference: Path, db: sqlite_utils.Database
) -> None:
    """PandaLM's test set, a design over its first 60 tasks: the bundle keeps the labels on
    those tasks only (the others counted as left out), and its scores are evalica's
    Bradley-Terry (tie_weight 0.5) on the annotators' votes read from the file itself."""
    testset = reference / "pandalm" / "testset-v1.json"
    import_paths(db, [testset])
    tasks = [str(i) for i in range(60)]
    design = StudyDesign(study="pandalm-testset-v1", name="d", seed=2, tasks=tasks)
    pk = create_design(db, design).pk
    unblind(db, "pandalm-testset-v1", "coordinator")
    files = build_bundle(db, pk)
    first, second, winner = [], [], []
    outcome = {1: evalica.Winner.X, 2: evalica.Winner.Y, 0: evalica.Winner.Draw}
    for item in json.loads(testset.read_text("utf-8")):
        if str(item["idx"]) in tasks:
            a, b = item["cmp_key"].split("_")
            for n in (1, 2, 3):
                first.append(a)
                second.append(b)
                winner.append(outcome[int(item[f"annotator{n}"])])
    theirs = evalica.bradley_terry(first, second, winner, tolerance=1e-12, limit=100_000)
    document = json.loads(files[RANKING_JSON])
    (labels,) = [r for r in document["rankings"] if r["source"] == "labels"]
    assert labels["comparisons"] == len(winner) == 180
    assert {"reason": OUT_OF_SCOPE, "votes": 2997 - 180} in labels["excluded"]
    systems = [s["condition"] for s in labels["systems"]]
    logits = np.log(theirs.scores.reindex(systems).to_numpy(dtype=float))
    elo = 1000 + ELO_PER_LOGIT * (logits - logits.mean())
    scores = [s["score"] for s in labels["systems"]]
    # The JSON keeps six significant digits.
    assert scores == pytest.approx(elo.tolist(), rel=1e-5)
    # The intervals are the core's bootstrap over the same votes, seeded by the design's seed.
    found = read_source(db, "pandalm-testset-v1", "labels")
    keep = np.isin(np.array(found.votes.tasks)[found.votes.task], tasks)
    rows = [
        (
            found.votes.tasks[t],
            found.votes.systems[a],
            found.votes.systems[b],
            o,
            float(x),
            float(y),
        )
        for t, a, b, o, x, y, k in zip(
            found.votes.task.tolist(),
            found.votes.a.tolist(),
            found.votes.b.tolist(),
            found.votes.outcome.tolist(),
            found.votes.length_a,
            found.votes.length_b,
            keep,
            strict=True,
        )
        if k
    ]
    again = rank(Votes.from_rows(rows), study="pandalm-testset-v1", source="labels", seed=2)
    for ours, theirs_row in zip(labels["systems"], again.systems, strict=True):
        assert ours["condition"] == theirs_row.condition
        assert ours["interval"] == pytest.approx(list(theirs_row.interval or ()), rel=1e-5)
        assert ours["rank_interval"] == list(theirs_row.rank_interval or ())


def _tampered(files: dict[str, bytes], data: bytes, *, fix_manifest: bool) -> dict[str, bytes]:
    out = {**files, VOTES: data}
    if fix_manifest:
        manifest = json.loads(files["manifest.json"])
        for entry in manifest["files"]:
            if entry["path"] == VOTES:
                entry["sha256"], entry["bytes"] = sha256_bytes(data), len(data)
        out["manifest.json"] = (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode()
    return out


def _flip_one(data: bytes) -> bytes:
    lines = data.decode().splitlines()
    for k, line in enumerate(lines):
        vote = json.loads(line)
        if vote["source"] == "labels" and vote["outcome"] == "a":
            vote["outcome"] = "b"
            lines[k] = json.dumps(vote, sort_keys=True, separators=(",", ":"))
            break
    return ("\n".join(lines) + "\n").encode()


def test_verify_re_derives_the_rankings_and_fails_on_a_tampered_vote(
    db: sqlite_utils.Database, tmp_path: Path
) -> None:
    files, _seed = _small_bundle(db, tmp_path)
    write_folder(tmp_path / "ok", files)
    assert verify(tmp_path / "ok").derived >= 2
    flipped = _flip_one(files[VOTES])
    # The vote changed under the manifest: its hash names the file.
    write_folder(tmp_path / "hashed", _tampered(files, flipped, fix_manifest=False))
    with pytest.raises(BundleMismatch) as caught:
        verify(tmp_path / "hashed")
    assert caught.value.path == VOTES
    # The manifest rewritten to match: the rankings re-derived from the votes differ.
    forged = _tampered(files, flipped, fix_manifest=True)
    again = derive(forged, confidence=0.95)
    assert again[RANKING_CSV] != files[RANKING_CSV]
    assert again[RANKING_JSON] != files[RANKING_JSON]
    write_folder(tmp_path / "forged", forged)
    with pytest.raises(BundleMismatch) as caught:
        verify(tmp_path / "forged")
    # The first derived file that differs, in order: the report shows the ranking too.
    assert caught.value.path in ("report.html", RANKING_CSV, RANKING_JSON)


def test_a_vote_that_is_not_one_is_refused_naming_the_file_and_line(
    db: sqlite_utils.Database, tmp_path: Path
) -> None:
    files, _seed = _small_bundle(db, tmp_path)
    lines = files[VOTES].decode().splitlines()
    broken = json.loads(lines[2])
    broken["outcome"] = "maybe"
    lines[2] = json.dumps(broken)
    write_folder(
        tmp_path / "bad",
        _tampered(files, ("\n".join(lines) + "\n").encode(), fix_manifest=True),
    )
    with pytest.raises(BundleMismatch) as caught:
        verify(tmp_path / "bad")
    assert caught.value.path == VOTES
    assert "line 3" in str(caught.value) and "\n" not in str(caught.value)


def test_a_system_named_like_a_formula_is_text_in_ranking_csv(
    db: sqlite_utils.Database, tmp_path: Path
) -> None:
    files, _seed = _small_bundle(db, tmp_path, ("=HYPERLINK(1)", "beta", "-gamma"))
    text = files[RANKING_CSV].decode()
    assert "'=HYPERLINK(1)" in text and "'-gamma" in text
    # The votes keep the names as they are (JSON, not a spreadsheet's cells).
    assert {json.loads(v)["a"] for v in files[VOTES].decode().splitlines()} >= {"=HYPERLINK(1)"}
    write_folder(tmp_path / "b", files)
    assert verify(tmp_path / "b").derived >= 2


def test_the_verdicts_votes_must_be_the_bundles_own_final_preferences(
    db: sqlite_utils.Database, tmp_path: Path
) -> None:
    """A design's final human preferences are published as the ``verdicts`` votes; verify
    checks them against the bundle's own judgments, so a vote changed there (manifest and all)
    is refused naming the votes file, not only as a ranking that differs."""
    import_paths(db, [write_pairwise(tmp_path / "small.json")], study="small")
    design = StudyDesign(study="small", name="d", seed=4, rubric="none", reviewers=["ann"])
    pk = create_design(db, design).pk
    ann = ReviewSession(db, pk, "ann")
    for n, row in enumerate(ann.queue()):
        # Response 1 is the item's first run unless ann sees them swapped.
        first = (n % 3 != 1) != flipped(ann, row.code)
        choice = PreferenceChoice.RESPONSE_1 if first else PreferenceChoice.RESPONSE_2
        ann.save(row.code, Judgment(preference=choice, justification="Read both."), 3, submit=True)
    unblind(db, "small", "coordinator")
    files = build_bundle(db, pk)
    votes = [json.loads(line) for line in files[VOTES].decode().splitlines()]
    assert sum(v["source"] == "verdicts" for v in votes) == 12
    document = json.loads(files[RANKING_JSON])
    assert [r["source"] for r in document["rankings"]] == ["verdicts", "labels"]
    assert document["rankings"][0]["design"] == "d v1"
    write_folder(tmp_path / "ok", files)
    assert verify(tmp_path / "ok").derived >= 2
    lines = files[VOTES].decode().splitlines()
    k = next(i for i, v in enumerate(votes) if v["source"] == "verdicts")
    changed = {**votes[k], "outcome": "tie"}
    lines[k] = json.dumps(changed, sort_keys=True, separators=(",", ":"))
    forged = _tampered(files, ("\n".join(lines) + "\n").encode(), fix_manifest=True)
    write_folder(tmp_path / "forged", forged)
    with pytest.raises(BundleMismatch) as caught:
        verify(tmp_path / "forged")
    assert caught.value.path == VOTES and "not a final preference" in str(caught.value)
    assert f"on task {votes[k]['task']!r}" in str(caught.value)
    assert "(1 such votes)" in str(caught.value)
    # A final preference given twice is one vote too many: the votes are counted, not only
    # looked up.
    lines = files[VOTES].decode().splitlines()
    twice = [*lines[: k + 1], lines[k], *lines[k + 1 :]]
    forged = _tampered(files, ("\n".join(twice) + "\n").encode(), fix_manifest=True)
    write_folder(tmp_path / "twice", forged)
    with pytest.raises(BundleMismatch) as caught:
        verify(tmp_path / "twice")
    assert caught.value.path == VOTES and "(1 such votes)" in str(caught.value)


def test_the_command_draws_the_resamples_the_bundle_draws(
    db: sqlite_utils.Database, tmp_path: Path
) -> None:
    """Without --seed the ranking of a design is seeded as its bundle is (by the design's
    seed): the command and report.html give the same intervals (it used seed 0)."""
    from abp_tui.services.ranking import ranking_report

    files, seed = _small_bundle(db, tmp_path)
    published = next(
        r for r in json.loads(files[RANKING_JSON])["rankings"] if r["source"] == "labels"
    )
    report = ranking_report(db, "small", source="labels", resamples=RESAMPLES)
    assert report.seed == seed == published["seed"]
    shown = report.model_dump(mode="json", by_alias=True)
    for ours, theirs in zip(shown["systems"], published["systems"], strict=True):
        assert ours["interval"] == pytest.approx(theirs["interval"], abs=0.01)  # rounded there
    assert ranking_report(db, "small", source="labels", seed=0, resamples=100).seed == 0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_votes_read_a_line_at_a_time_are_the_votes_of_their_rows(seed: int) -> None:
    """The bundle's votes are read into typed columns, never a record of each vote: what they
    give is what :meth:`Votes.from_rows` makes of the same votes (systems in sorted order,
    tasks in the order first read, unknown lengths NaN)."""
    from abp_tui.export.ranking import _VoteColumns

    rng = np.random.default_rng(seed)
    names = ["zeta", "alpha", "Mu", "beta", "=x"]
    rows = []
    columns = _VoteColumns()
    for _ in range(200):
        a, b = rng.choice(len(names), size=2, replace=False).tolist()
        task = f"t{int(rng.integers(0, 40))}"
        outcome = int(rng.integers(0, 3))
        lengths = [None if rng.random() < 0.2 else float(rng.integers(0, 900)) for _ in "ab"]
        rows.append((task, names[a], names[b], outcome, lengths[0], lengths[1]))
        columns.add(*rows[-1])
    made, want = columns.votes(), Votes.from_rows(rows)
    assert made.systems == want.systems and made.tasks == want.tasks
    for field in ("task", "a", "b", "outcome", "length_a", "length_b"):
        got, expected = getattr(made, field), getattr(want, field)
        assert got.dtype == expected.dtype, field
        np.testing.assert_array_equal(got, expected, err_msg=field)
