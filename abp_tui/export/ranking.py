"""Rankings in a publication bundle: the votes as a source file, the rankings as derived files
that ``verify`` re-derives from those votes.

Source: ``ranking/votes.jsonl``, every vote of every source the study holds (``verdicts``,
``labels``, ``judge:ID``): its source, task, the two systems, the outcome (``a``, ``b`` or
``tie``) and the two outputs' lengths in characters (null: unknown); no reviewer's name, which
a ranking does not need. ``ranking/sources.json`` names each source with its design and the
votes left out of it, with the reason. JSON lines, not CSV: a task or system name that begins
with ``=`` would come back from a neutralised CSV cell with a quote nobody can tell from its own.

Derived (:func:`ranking_files`): ``results/ranking.csv``, one row per system and source (score,
interval, rank, rank interval, wins, losses, ties, the method, the unit resampled, seed,
resamples, confidence, and why the votes are too few, when they are); ``results/ranking.json``,
each source's whole ``abp-tui-ranking/v1`` document (the pairwise table, length bias and the
length-controlled ranking, Kendall's tau between the sources) and each source whose votes hold
no ranking, with why. The bootstrap is seeded by the design's seed with :data:`RESAMPLES`
resamples at the bundle's confidence. The ``verdicts`` votes must be final preferences of the
bundle's own judgments (lengths aside): ``verify`` refuses a votes file that says otherwise,
naming it.
"""

from __future__ import annotations

import json
import math
from array import array
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

import numpy as np
import numpy.typing as npt
from pydantic import NonNegativeFloat, ValidationError

from abp_tui.analysis.item_preferences import counting_line, source_counts
from abp_tui.analysis.material import is_development
from abp_tui.analysis.ranking.fit import (
    A_WON,
    B_WON,
    TIE,
    NoRanking,
    Votes,
    point_scores,
    rank,
    source_agreement,
)
from abp_tui.analysis.ranking.models import (
    SWAP_TIES,
    TIES,
    Excluded,
    RankingReport,
    SourceAgreement,
)
from abp_tui.analysis.ranking.sources import design_votes
from abp_tui.export.bundle_analysis import Analysis
from abp_tui.export.canonical import csv_bytes, json_bytes, jsonl_bytes, jsonl_file_lines
from abp_tui.export.errors import BundleMismatch
from abp_tui.models.base import Model, trusted
from abp_tui.text import json_input

VOTES: Final = "ranking/votes.jsonl"
SOURCES: Final = "ranking/sources.json"
RANKING_CSV: Final = "results/ranking.csv"
RANKING_JSON: Final = "results/ranking.json"
RANKING_SCHEMA: Final = "abp-tui-bundle-ranking/v1"
VERDICTS: Final = "verdicts"
RESAMPLES: Final = 1000
"""Resamples of tasks per source (``abp-tui ranking``'s default)."""
OUTCOMES: Final = {A_WON: "a", B_WON: "b", TIE: "tie"}
CSV_COLUMNS: Final = (
    "source",
    "condition",
    "score",
    "low",
    "high",
    "rank",
    "rank_low",
    "rank_high",
    "wins",
    "losses",
    "ties",
    "resolved_from_next",
    "length_controlled_score",
    "length_controlled_rank",
    "method",
    "resampled",
    "seed",
    "resamples",
    "confidence",
    "too_few_votes",
)


class VoteLine(Model):
    """One line of ``ranking/votes.jsonl``."""

    source: str
    task: str
    a: str
    b: str
    outcome: Literal["a", "b", "tie"]
    length_a: NonNegativeFloat | None
    length_b: NonNegativeFloat | None


class SourceLine(Model):
    """One source of ``ranking/sources.json``."""

    source: str
    design: str | None = None
    excluded: list[Excluded]


@dataclass(frozen=True)
class SourceFound:
    """What the export read for one source (the caller reads the database)."""

    source: str
    design: str | None
    votes: Votes
    excluded: Sequence[Excluded]


def _length(value: float) -> float | int | None:
    if math.isnan(value):
        return None
    return int(value) if value.is_integer() else value


def ranking_sources(found: Sequence[SourceFound]) -> dict[str, bytes]:
    """The source files of the study's votes (no source with a vote: no files)."""
    kept = [f for f in found if len(f.votes)]
    if not kept:
        return {}
    lines = []
    for f in kept:
        v = f.votes
        for k in range(len(v)):
            lines.append(
                {
                    "source": f.source,
                    "task": v.tasks[int(v.task[k])],
                    "a": v.systems[int(v.a[k])],
                    "b": v.systems[int(v.b[k])],
                    "outcome": OUTCOMES[int(v.outcome[k])],
                    "length_a": _length(float(v.length_a[k])),
                    "length_b": _length(float(v.length_b[k])),
                }
            )
    lines.sort(key=lambda r: json.dumps(r, sort_keys=True))
    sources = [
        SourceLine(source=f.source, design=f.design, excluded=list(f.excluded)).model_dump(
            mode="json"
        )
        for f in kept
    ]
    return {VOTES: jsonl_bytes(lines), SOURCES: json_bytes(sources)}


def _read_votes(files: Mapping[str, bytes], sources: set[str]) -> dict[str, _VoteColumns]:
    """Each source's votes, read a line at a time (a large study has hundreds of thousands)
    into :class:`_VoteColumns` (a few bytes a vote, never a record of each): a plain line's
    fields are taken as they are (:func:`_plain_fields`), any other validated by
    :class:`VoteLine`."""
    columns = {s: _VoteColumns() for s in sources}
    for number, raw in enumerate(jsonl_file_lines(files, VOTES), start=1):
        text = raw.decode("utf-8")
        try:
            data = json_input.loads(text)
            found = _plain_fields(data)
            if found is None:
                line = VoteLine.model_validate(data)
                found = (
                    line.source,
                    line.task,
                    line.a,
                    line.b,
                    line.outcome,
                    line.length_a,
                    line.length_b,
                )
        except (ValueError, ValidationError) as exc:
            first = str(exc).splitlines()[0]
            raise BundleMismatch(VOTES, f"line {number}: not a vote ({first})") from None
        source, task, a, b, outcome, length_a, length_b = found
        if a == b:
            raise BundleMismatch(VOTES, f"line {number}: a vote between {a!r} and itself")
        held = columns.get(source)
        if held is None:
            raise BundleMismatch(VOTES, f"line {number}: source {source!r} is not in {SOURCES}")
        held.add(task, a, b, _CODE[outcome], length_a, length_b)
    return columns


_CODE: Final = {"a": A_WON, "b": B_WON, "tie": TIE}


class _VoteColumns:
    """One source's votes as they are read: each task and system as a number (in the order
    first read), the outcome in a byte, the lengths as doubles (NaN: unknown), in typed arrays:
    :meth:`votes` gives them as :class:`Votes` (what :meth:`Votes.from_rows` makes of the
    same votes as rows)."""

    def __init__(self) -> None:
        self.tasks: dict[str, int] = {}
        self.systems: dict[str, int] = {}
        self.task = array("i")
        self.a = array("i")
        self.b = array("i")
        self.outcome = array("b")
        self.length_a = array("d")
        self.length_b = array("d")

    def __len__(self) -> int:
        return len(self.task)

    def add(
        self,
        task: str,
        a: str,
        b: str,
        outcome: int,
        length_a: float | None,
        length_b: float | None,
    ) -> None:
        tasks, systems = self.tasks, self.systems
        self.task.append(tasks.setdefault(task, len(tasks)))
        self.a.append(systems.setdefault(a, len(systems)))
        self.b.append(systems.setdefault(b, len(systems)))
        self.outcome.append(outcome)
        self.length_a.append(math.nan if length_a is None else length_a)
        self.length_b.append(math.nan if length_b is None else length_b)

    def votes(self) -> Votes:
        """The votes, systems in sorted order (their codes renumbered so) and tasks in the order
        first read, as :meth:`Votes.from_rows` numbers them."""
        systems = tuple(sorted(self.systems))
        renumbered = np.empty(len(self.systems), dtype=np.int32)
        for place, name in enumerate(systems):
            renumbered[self.systems[name]] = place
        return Votes(
            systems=systems,
            tasks=tuple(self.tasks),
            task=np.frombuffer(self.task, dtype=np.intc).astype(np.int32),
            a=renumbered[np.frombuffer(self.a, dtype=np.intc)],
            b=renumbered[np.frombuffer(self.b, dtype=np.intc)],
            outcome=np.frombuffer(self.outcome, dtype=np.int8).copy(),
            length_a=np.frombuffer(self.length_a, dtype=np.float64).copy(),
            length_b=np.frombuffer(self.length_b, dtype=np.float64).copy(),
        )


_VOTE_FIELDS: Final = frozenset(VoteLine.model_fields)
_OUTCOME_NAMES: Final = frozenset(("a", "b", "tie"))


def _vote_length(value: object) -> tuple[bool, float | None]:
    """Whether ``value`` is plainly a length :class:`VoteLine` takes, and the length."""
    if value is None:
        return True, None
    if (type(value) is int or type(value) is float) and 0 <= value < math.inf:
        return True, float(value)
    return False, None


def _plain_vote(data: object) -> VoteLine | None:
    """The vote a line of JSON plainly is (exactly the fields, each of the type and in the
    range :class:`VoteLine` validates), built without validating it again; None for anything
    else, which :class:`VoteLine` then validates (naming what is wrong)."""
    found = _plain_fields(data)
    if found is None:
        return None
    return trusted(VoteLine, **dict(zip(VoteLine.model_fields, found, strict=True)))


_PlainVote = tuple[str, str, str, str, str, float | None, float | None]


def _plain_fields(data: object) -> _PlainVote | None:
    """The fields of the vote a line of JSON plainly is, in :class:`VoteLine`'s order (its
    lengths as floats), without a model of it: None for anything else. A large study's bundle
    holds hundreds of thousands of votes."""
    if type(data) is not dict or data.keys() != _VOTE_FIELDS:
        return None
    source, task, a, b, outcome = (
        data["source"],
        data["task"],
        data["a"],
        data["b"],
        data["outcome"],
    )
    if not (
        type(source) is str
        and type(task) is str
        and type(a) is str
        and type(b) is str
        and type(outcome) is str
        and outcome in _OUTCOME_NAMES
    ):
        return None
    plain_a, length_a = _vote_length(data["length_a"])
    plain_b, length_b = _vote_length(data["length_b"])
    if not (plain_a and plain_b):
        return None
    return source, task, a, b, outcome, length_a, length_b


def _read_sources(data: bytes) -> list[SourceLine]:
    try:
        found = json_input.loads(data.decode("utf-8"))
        if not isinstance(found, list):
            raise ValueError("expected a list of sources")
        return [SourceLine.model_validate(s) for s in found]
    except (ValueError, ValidationError) as exc:
        raise BundleMismatch(SOURCES, f"not a list of ranking sources ({exc})") from None


@dataclass(frozen=True)
class BundleRanking:
    """Every source's ranking in a bundle, and the sources whose votes hold none."""

    reports: list[RankingReport]
    refused: list[tuple[str, str]] = field(default_factory=list)
    seed: int = 0
    confidence: float = 0.95


def _check_verdicts(found: Votes, expected: Votes, apart: Callable[[str], bool]) -> None:
    """Every ``verdicts`` vote is one of the bundle's own final human preferences (lengths
    aside; none on development material, which no ranking counts). The votes may hold fewer:
    a vote on a run whose content changed after it was judged is left out of the ranking, and
    counted in ``ranking/sources.json``, while the bundle publishes the run's current record.

    Each vote is compared as one number (its task, systems and outcome numbered over both sets
    of votes), a count of each such number on either side: never a record of each vote."""
    tasks: dict[str, int] = {}
    systems: dict[str, int] = {}
    coded = [_codes(votes, tasks, systems) for votes in (found, expected)]
    n = len(systems)
    read, wanted = (
        _vote_keys(votes, *codes, n) for votes, codes in zip((found, expected), coded, strict=True)
    )
    kept = np.array([not apart(t) for t in expected.tasks], dtype=bool)
    wanted = wanted[kept[expected.task]] if expected.task.size else wanted
    keys, counts = np.unique(read, return_counts=True)
    known, known_counts = np.unique(wanted, return_counts=True)
    at = np.searchsorted(known, keys)
    allowed = np.zeros(keys.size, dtype=np.int64)
    inside = at < known.size
    matched = inside.copy()
    matched[inside] = known[at[inside]] == keys[inside]
    allowed[matched] = known_counts[at[matched]]
    over = counts - allowed
    if not (over > 0).any():
        return
    task_names, system_names = list(tasks), list(systems)
    n = len(systems)
    extra = []
    for key, times in zip(keys[over > 0].tolist(), over[over > 0].tolist(), strict=True):
        rest, outcome = divmod(key, 4)
        rest, b = divmod(rest, n)
        task, a = divmod(rest, n)
        extra += [(task_names[task], system_names[a], system_names[b], outcome)] * times
    task_name, a_name, b_name, outcome = min(extra)
    raise BundleMismatch(
        VOTES,
        f"a verdicts vote on task {task_name!r} ({a_name} against {b_name}, {OUTCOMES[outcome]}) "
        f"is not a final preference of the bundle's judgments ({len(extra)} such votes)",
    )


def _codes(
    votes: Votes, tasks: dict[str, int], systems: dict[str, int]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The numbers of ``votes``' tasks and systems in ``tasks`` and ``systems`` (shared by every
    set of votes compared; a name first seen is numbered next)."""
    task_code = np.array([tasks.setdefault(t, len(tasks)) for t in votes.tasks], dtype=np.int64)
    system_code = np.array(
        [systems.setdefault(s, len(systems)) for s in votes.systems], dtype=np.int64
    )
    return task_code, system_code


def _vote_keys(
    votes: Votes, task_code: npt.NDArray[np.int64], system_code: npt.NDArray[np.int64], n: int
) -> npt.NDArray[np.int64]:
    """Each vote of ``votes`` as one number: its task and systems as numbered (``n`` systems in
    all) and its outcome."""
    if not len(votes):
        return np.zeros(0, dtype=np.int64)
    key = task_code[votes.task] * n + system_code[votes.a]
    key *= n
    key += system_code[votes.b]
    key *= 4
    key += votes.outcome
    return key


def bundle_rankings(
    files: Mapping[str, bytes], analysis: Analysis, confidence: float
) -> BundleRanking | None:
    """Each source's ranking from the bundle's votes (None: the bundle has no votes), seeded
    by the design's seed. The ``verdicts`` source's votes must be the final human preferences
    of the bundle's own judgments: a vote there that they do not give is refused."""
    study, seed = analysis.inputs.study.id, analysis.inputs.design.seed
    if VOTES not in files and SOURCES not in files:
        return None
    if VOTES not in files or SOURCES not in files:
        missing = VOTES if VOTES not in files else SOURCES
        raise BundleMismatch(missing, "missing: the bundle's rankings need both ranking files")
    sources = _read_sources(files[SOURCES])
    read = _read_votes(files, {s.source for s in sources})
    votes = {source: columns.votes() for source, columns in read.items()}
    del read
    if VERDICTS in votes:
        expected, _left_out = design_votes(analysis.records, analysis.decisions, {})
        scope = analysis.records.design
        _check_verdicts(votes[VERDICTS], expected, lambda t: is_development(scope, t))
        del expected
    reports: list[RankingReport] = []
    refused: list[tuple[str, str]] = []
    points: dict[str, dict[str, float] | str] = {}
    for s in sources:
        try:
            report = rank(
                votes[s.source],
                study=study,
                source=s.source,
                design=s.design,
                resamples=RESAMPLES,
                seed=seed,
                confidence=confidence,
                ties=TIES + (SWAP_TIES if s.source.startswith("judge:") else ""),
                excluded=s.excluded,
            )
        except NoRanking as exc:
            refused.append((s.source, str(exc)))
            points[s.source] = str(exc)
            continue
        theta = point_scores(votes[s.source])
        points[s.source] = report.too_few_votes or dict(
            zip(votes[s.source].systems, theta.tolist(), strict=True)
        )
        if s.source == VERDICTS:  # which judgments the votes are: each item's final verdict
            counting = counting_line(source_counts(analysis.decisions.preferences))
            report = report.model_copy(update={"notes": [counting, *report.notes]})
        reports.append(report)
    if len(sources) > 1:  # Kendall's tau between the sources' point fits
        reports = [r.model_copy(update={"sources": _agreements(r.source, points)}) for r in reports]
    return BundleRanking(reports, refused, seed, confidence)


def _agreements(name: str, points: dict[str, dict[str, float] | str]) -> list[SourceAgreement]:
    return [
        source_agreement(name, points[name], other, points[other])
        for other in points
        if other != name
    ]


def ranking_csv(ranking: BundleRanking) -> bytes:
    """One row per system and source."""
    rows = []
    for r in ranking.reports:
        for s in r.systems:
            low, high = s.interval if s.interval is not None else (None, None)
            rank_low, rank_high = s.rank_interval if s.rank_interval is not None else (None, None)
            rows.append(
                (
                    r.source,
                    s.condition,
                    s.score,
                    low,
                    high,
                    s.rank,
                    rank_low,
                    rank_high,
                    s.wins,
                    s.losses,
                    s.ties,
                    s.resolved_from_next,
                    s.length_controlled_score,
                    s.length_controlled_rank,
                    r.method,
                    r.resampled,
                    r.seed,
                    r.resamples,
                    r.confidence,
                    r.too_few_votes,
                )
            )
    return csv_bytes(CSV_COLUMNS, rows)


def ranking_document(ranking: BundleRanking) -> dict[str, Any]:
    return {
        "schema": RANKING_SCHEMA,
        "votes": VOTES,
        "resamples": RESAMPLES,
        "seed": ranking.seed,
        "confidence": ranking.confidence,
        "rankings": [r.model_dump(mode="json", by_alias=True) for r in ranking.reports],
        "refused": [{"source": s, "reason": why} for s, why in ranking.refused],
    }


def ranking_files(ranking: BundleRanking | None) -> dict[str, bytes]:
    """The derived files of the bundle's rankings (none without votes)."""
    if ranking is None:
        return {}
    return {
        RANKING_CSV: ranking_csv(ranking),
        RANKING_JSON: json_bytes(ranking_document(ranking), derived=True),
    }


__all__ = [
    "RANKING_CSV",
    "RANKING_JSON",
    "RESAMPLES",
    "SOURCES",
    "VOTES",
    "BundleRanking",
    "SourceFound",
    "bundle_rankings",
    "ranking_files",
    "ranking_sources",
]
