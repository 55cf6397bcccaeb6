"""``abp-tui ranking``: one source of a study's preferences read from the database and ranked.

The sources (never mixed): ``verdicts``, a design's final human preferences; ``labels``, the
preferences imported with the study; ``judge:ID``, one AI judge's verdicts. A ranking names the
systems, so like every result by condition it appears only after the study is unblinded,
whatever the source (:class:`abp_tui.services.results_report.StudyIsBlind`). When the study
holds several sources, the report gives Kendall's tau between their rankings (point fits).

When the study has a design (``--design``, else its latest), every source is kept to the
design's tasks and conditions, as its publication bundle carries them
(:mod:`abp_tui.services.ranking_bundle`), so the command, the results screen and the report rank
the same votes; the votes outside are counted as left out, and a source other than the design's
verdicts says so in its first note. Votes on a task the design marks as development material
(seed 002: never a benchmark result) are left out of every source and counted with
:data:`DEVELOPMENT`, as the bundle leaves them out: one rule, :func:`vote_fates`.

A design's verdicts are read one item at a time (:func:`abp_tui.store.figure_rows.item_records`):
each pair's final preference is decided by the rules :func:`abp_tui.analysis.verdicts.decide`
applies and folded into a vote (:class:`abp_tui.analysis.ranking.sources.VoteFold`, which
:func:`~abp_tui.analysis.ranking.sources.design_votes` folds a bundle's records through), so
only the votes of a large design are held.

The CLI and the workstation call :func:`ranking_report`; the statistics are
:func:`abp_tui.analysis.ranking.fit.rank`'s.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final, NamedTuple

import sqlite_utils

from abp_tui.analysis.item_preferences import SOURCES, counting_line, item_preference
from abp_tui.analysis.material import is_development
from abp_tui.analysis.ranking.fit import (
    DEFAULT_RESAMPLES,
    NoRanking,
    Votes,
    point_scores,
    rank,
    too_few_votes,
)
from abp_tui.analysis.ranking.models import (
    SWAP_TIES,
    TIES,
    Excluded,
    RankingReport,
    SourceAgreement,
)
from abp_tui.analysis.ranking.sources import Side, VoteFold, judge_votes, label_votes
from abp_tui.analysis.records import in_scope, latest_submitted
from abp_tui.analysis.verdicts import find_disagreements
from abp_tui.errors import AbpError
from abp_tui.models import DisagreementRules, Rubric, StudyDesign
from abp_tui.services.coordinator_identity import note_view, refuse_pending
from abp_tui.services.design_choices import design_seed
from abp_tui.services.designing import find_design_if_any, find_study
from abp_tui.services.results_report import StudyIsBlind
from abp_tui.stats.limits import MAX_SEED, prior_problem, resamples_problem
from abp_tui.store import judging
from abp_tui.store.design_rules import stated_design
from abp_tui.store.figure_rows import item_records
from abp_tui.store.judges import verdict_table
from abp_tui.store.queries import unblinded
from abp_tui.store.ranking import held_sources, label_columns, run_sides
from abp_tui.text.hints import command, quoted

VERDICTS: Final = "verdicts"
LABELS: Final = "labels"
JUDGE: Final = "judge:"
DEVELOPMENT: Final = "on development material, which is never a benchmark result (seed 002)"
"""Why a vote on a development task is left out, by the command and by the bundle alike."""


@dataclass(frozen=True)
class SourceVotes:
    """One source's votes and what was left out of them."""

    name: str
    votes: Votes
    excluded: list[Excluded]
    design: str | None = None
    counting: str | None = None
    """Which judgments the votes are (a design's verdicts: each item's final verdict)."""


class VoteFate(NamedTuple):
    """What becomes of a vote kept to a scope: where it is among the votes, its task and
    systems, and where it goes."""

    at: int
    task: str
    a: str
    b: str
    kept: bool
    """Counted; else out of scope, or (``development``) on development material."""
    development: bool


def vote_fates(
    votes: Votes, keep: Callable[[str, str], bool], apart: Callable[[str], bool]
) -> Iterator[VoteFate]:
    """Each vote in the votes' order, kept unless out of scope (``keep(task, condition)``
    false for either system) or on development material (``apart(task)``): the one rule of
    :func:`kept_votes` and of the bundle's votes file."""
    for k in range(len(votes)):
        task = votes.tasks[int(votes.task[k])]
        a, b = votes.systems[int(votes.a[k])], votes.systems[int(votes.b[k])]
        scoped = keep(task, a) and keep(task, b)
        development = scoped and apart(task)
        yield VoteFate(k, task, a, b, scoped and not development, development)


def kept_votes(
    votes: Votes, keep: Callable[[str, str], bool], apart: Callable[[str], bool]
) -> tuple[Votes, int, int]:
    """The votes kept, those out of scope and those on development material
    (:func:`vote_fates`), in the votes' order."""
    rows = []
    development = 0
    for fate in vote_fates(votes, keep, apart):
        if fate.development:
            development += 1
        elif fate.kept:
            k = fate.at
            la, lb = float(votes.length_a[k]), float(votes.length_b[k])
            rows.append((fate.task, fate.a, fate.b, int(votes.outcome[k]), la, lb))
    # NaN lengths stay unknown: from_rows reads None as NaN, and NaN as NaN.
    return Votes.from_rows(rows), len(votes) - len(rows) - development, development


def outside_design(design: StudyDesign) -> str:
    """Why a vote on a task or condition ``design`` does not judge is left out of a ranking."""
    return f"on a task or condition outside design {design.name}"


def _all_in(votes: Votes, design: StudyDesign) -> bool:
    """Every vote is on the design's tasks and conditions, none on development material
    (read from the votes' distinct tasks and systems)."""
    tasks = design.tasks == "all" or set(votes.tasks) <= set(design.tasks)
    systems = design.conditions == "all" or set(votes.systems) <= set(design.conditions)
    return tasks and systems and not any(is_development(design, t) for t in votes.tasks)


def in_design(
    found: SourceVotes, design: StudyDesign | None, whole_study: bool = False
) -> SourceVotes:
    """A source's votes kept to ``design``'s tasks and conditions, its development tasks left
    out: the scope its publication bundle carries (:mod:`abp_tui.services.ranking_bundle`, the
    same rule, :func:`vote_fates`), with the votes left out counted (``whole_study``: every
    task and condition kept, ``ranking --whole-study``). Any source but a design's own verdicts
    gets a note saying so first (the imported labels of the design's tasks, or all of the
    study's). No design: the source as read."""
    if design is None:
        return found
    if _all_in(found.votes, design):  # no copy of every vote when none is left out
        votes, dropped, development = found.votes, 0, 0
    else:
        votes, dropped, development = kept_votes(
            found.votes,
            lambda t, c: whole_study or in_scope(design, t, c),
            lambda t: is_development(design, t),
        )
    excluded = list(found.excluded)
    if dropped:
        excluded.append(Excluded(reason=outside_design(design), votes=dropped))
    if development:
        excluded.append(Excluded(reason=DEVELOPMENT, votes=development))
    counting = found.counting
    if found.name != VERDICTS and whole_study:
        counting = (
            f"{found.name}: every vote the study holds ({len(votes)}), not only those on the "
            f"tasks and conditions of design {design.name} (its publication bundle carries those)"
        )
    elif found.name != VERDICTS:
        counting = (
            f"{found.name}: kept to the tasks and conditions of design {design.name}, as its "
            f"publication bundle carries them: {len(votes)} of the study's {len(found.votes)} "
            "votes"
        )
        if len(votes) < len(found.votes):
            counting += " (abp-tui ranking --whole-study ranks them all)"
    return replace(found, votes=votes, excluded=excluded, counting=counting)


def _marking_design(
    db: sqlite_utils.Database, study: str, design: str | None
) -> StudyDesign | None:
    """The design whose development tasks a ranking leaves out: the one meant (``--design``),
    else the study's latest (None: the study has none)."""
    row = find_design_if_any(db, study, design)
    return None if row is None else stated_design(db, row.pk)


def parse_anchor(text: str | None) -> tuple[str, float] | None:
    """``COND=SCORE`` -> (condition, score)."""
    if text is None:
        return None
    condition, sep, value = text.rpartition("=")
    try:
        score = float(value)
    except ValueError:
        score = math.nan
    if not sep or not condition or not math.isfinite(score):
        raise AbpError(f"--anchor {text}: expected CONDITION=SCORE, e.g. gpt-4=1200")
    return condition, score


def _sides(db: sqlite_utils.Database, study: str) -> dict[str, Side]:
    return {k: Side(v.task, v.condition, v.length) for k, v in run_sides(db, study).items()}


def _labels(db: sqlite_utils.Database, study: str) -> SourceVotes:
    c = label_columns(db, study)
    votes, excluded = label_votes(
        c.conditions,
        c.tasks,
        c.task,
        c.condition_1,
        c.condition_2,
        c.choice,
        c.length_1,
        c.length_2,
        c.current,
    )
    return SourceVotes(LABELS, votes, excluded)


def _judge(db: sqlite_utils.Database, study: str, judge: str) -> SourceVotes:
    table = verdict_table(db, study)
    if judge not in table.judges:
        known = ", ".join(f"judge:{j}" for j in table.judges) or "none"
        raise AbpError(f"--source judge:{judge}: no such AI judge in study {study}; found: {known}")
    votes, excluded = judge_votes(table, judge, _sides(db, study))
    return SourceVotes(JUDGE + judge, votes, excluded)


def _verdicts(db: sqlite_utils.Database, study: str, design: str | None) -> SourceVotes:
    row = find_design_if_any(db, study, design)
    if row is None:
        raise AbpError(
            f"study {study!r} has no study design, so no final human preferences: use "
            "--source labels or --source judge:ID, or create a design and judge it"
        )
    named, design_pk = f"{row.name} v{row.version_no}", row.pk
    rubric = Rubric.model_validate(row.rubric)
    del row  # its document lists every task of the design: never parsed here
    rules = stated_design(db, design_pk).disagreement
    votes, excluded, sources = _final_votes(db, design_pk, rules, rubric)
    return SourceVotes(VERDICTS, votes, excluded, named, counting_line(sources))


def _final_votes(
    db: sqlite_utils.Database, design_pk: int, rules: DisagreementRules, rubric: Rubric
) -> tuple[Votes, list[Excluded], dict[str, int]]:
    """A design's final human preferences as votes, read one item at a time: each pair's final
    preference (:func:`abp_tui.analysis.verdicts.decide`'s rules: its reviewers' latest
    submitted judgments, its latest adjudication, whether they disagree under the design's
    rules) folded into a vote and dropped; and how many final preferences come from each
    source. Only the votes are held, never the design's judgments."""
    fold = VoteFold(judging.superseded_runs(db, design_pk))
    sources: dict[str, int] = dict.fromkeys(SOURCES, 0)
    # Only what the rules read of each judgment (no justification, no validity answers).
    for found in item_records(db, design_pk, figures=True):
        item = found.item
        if not item.is_pair:
            continue
        latest = latest_submitted(found.judgments).get(item.code, [])
        disputed = (
            bool(latest)
            and found.adjudication is None
            and bool(find_disagreements(rules, rubric, latest))
        )
        final = item_preference(item, latest, found.adjudication, disputed)
        if final is not None:
            sources[final.source] += 1
            fold.add(final, (found.lengths[0], found.lengths[1]))
    votes, excluded = fold.votes()
    return votes, excluded, sources


def study_sources(db: sqlite_utils.Database, study: str) -> list[str]:
    """The sources a study holds votes in: its design's final verdicts (when one has pair
    items), its imported labels, each AI judge with preference verdicts."""
    pairs, labelled, judges = held_sources(db, study)
    found = [VERDICTS] if pairs else []
    found += [LABELS] if labelled else []
    return found + [JUDGE + j for j in judges]


def read_source(
    db: sqlite_utils.Database, study: str, source: str, design: str | None = None
) -> SourceVotes:
    """The votes of one source (see the module docstring)."""
    if source == VERDICTS:
        return _verdicts(db, study, design)
    if source == LABELS:
        return _labels(db, study)
    if source.startswith(JUDGE) and len(source) > len(JUDGE):
        return _judge(db, study, source[len(JUDGE) :])
    raise AbpError(f"--source {source}: expected verdicts, labels or judge:ID")


def _agreements(
    db: sqlite_utils.Database,
    study: str,
    chosen: SourceVotes,
    theta: dict[str, float] | str,
    others: list[str],
    design: str | None,
    marking: StudyDesign | None,
    prior: float,
    whole_study: bool,
) -> list[SourceAgreement]:
    from abp_tui.analysis.ranking.fit import source_agreement

    scores: dict[str, dict[str, float] | str] = {chosen.name: theta}
    for name in others:
        try:
            found = in_design(read_source(db, study, name, design), marking, whole_study)
            fitted = point_scores(found.votes, prior)
            scores[name] = too_few_votes(found.votes) or dict(
                zip(found.votes.systems, fitted.tolist(), strict=True)
            )
        except AbpError as error:
            scores[name] = str(error)
    names = list(scores)
    return [
        source_agreement(a, scores[a], b, scores[b])
        for k, a in enumerate(names)
        for b in names[k + 1 :]
    ]


def ranking_report(
    db: sqlite_utils.Database,
    study: str | None = None,
    *,
    design: str | None = None,
    source: str | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int | None = None,
    confidence: float = 0.95,
    anchor: str | None = None,
    prior: float = 0.0,
    viewer: str | None = None,
    whole_study: bool = False,
) -> RankingReport:
    """The ranking of one source of a study (default: its only source; with several, the
    design's verdicts, else the labels: people before AI judges). ``viewer``'s look is
    recorded as a look at the results (:mod:`abp_tui.services.coordinator_identity`): the
    ranking sums up the people's verdicts, and every source is compared with them; a viewer
    with items still to judge is refused (``refuse_pending``). Every source is kept to the
    design's tasks and conditions (:func:`in_design`), or with ``whole_study`` takes every vote
    the study holds (but development material's) and says so."""
    fixed = parse_anchor(anchor)
    if not 0 < confidence < 1:
        raise AbpError(f"--confidence: expected a level strictly between 0 and 1, got {confidence}")
    if (problem := resamples_problem(resamples)) is not None:
        raise AbpError(f"--resamples: {problem}")
    if (problem := prior_problem(prior)) is not None:
        raise AbpError(f"--prior: {problem}")
    if seed is not None and not 0 <= seed <= MAX_SEED:
        raise AbpError(f"--seed: expected a whole number from 0 to {MAX_SEED}, got {seed}")
    study_id = find_study(db, study)
    if unblinded(db, study_id) is None:
        raise StudyIsBlind(
            f"study {study_id!r} is still blind: a ranking names the systems, so it appears only "
            f"after `{command(f'unblind --study {quoted(study_id)} --yes', db)}` (recorded in the "
            "audit log)"
        )
    if viewer is not None:
        shows = (
            "a ranking counts the people's, the imported labels' and the AI judges' votes on them"
        )
        refuse_pending(db, study_id, viewer, shows)
        seen = find_design_if_any(db, study_id, design)
        note_view(db, study_id, None if seen is None else seen.pk, viewer, "results")
        del seen  # its document lists every task of the design
    held = study_sources(db, study_id)
    if source is None:
        if not held:
            raise AbpError(
                f"study {study_id!r} holds no pairwise preferences to rank: no design with pair "
                "items, no imported labels, no AI judge's preference verdicts"
            )
        source = held[0]
    # The bundle's scope: the design's tasks and conditions, development votes left out (no
    # benchmark result, seed 002). The design is read for what it marks (and its seed) before
    # any vote is: reading it holds its stored document for a moment, which lists every task.
    marking = _marking_design(db, study_id, design)
    if seed is None:  # the bundle's draws: the same intervals wherever the ranking is read
        seed = design_seed(db, study_id, design)
    found = read_source(db, study_id, source, design)
    chosen = in_design(found, marking, whole_study)
    scoped = chosen.name != VERDICTS and marking is not None
    del found
    try:
        report = rank(
            chosen.votes,
            study=study_id,
            source=chosen.name,
            design=chosen.design,
            resamples=resamples,
            seed=seed,
            confidence=confidence,
            anchor=fixed,
            prior=prior,
            ties=TIES + (SWAP_TIES if chosen.name.startswith(JUDGE) else ""),
            excluded=chosen.excluded,
        )
    except NoRanking as none:
        if not scoped or chosen.counting is None:
            raise
        # The refusal names the scope its counts are of, as the report's note does.
        raise NoRanking(f"{none} ({chosen.counting})") from none
    if chosen.counting is not None:
        report = report.model_copy(update={"notes": [chosen.counting, *report.notes]})
    others = [s for s in held if s != chosen.name]
    if not others:
        return report
    theta = point_scores(chosen.votes, prior)
    sources = _agreements(
        db,
        study_id,
        chosen,
        report.too_few_votes or dict(zip(chosen.votes.systems, theta.tolist(), strict=True)),
        others,
        design,
        marking,
        prior,
        whole_study,
    )
    return report.model_copy(update={"sources": sources})


def read_ranking(
    db_path: Path, study: str | None = None, source: str | None = None
) -> RankingReport:
    """The ranking for the workstation (its own connection: a worker's)."""
    from abp_tui.store import connect

    db = connect(db_path)
    try:
        return ranking_report(db, study, source=source)
    finally:
        db.close()


__all__ = [
    "DEVELOPMENT",
    "LABELS",
    "VERDICTS",
    "NoRanking",
    "RankingReport",
    "SourceVotes",
    "in_design",
    "kept_votes",
    "parse_anchor",
    "ranking_report",
    "read_ranking",
    "read_source",
    "study_sources",
    "vote_fates",
]
