"""From a bundle's source records to verdicts, outcomes and results: pure, no database.

``verify`` recomputes a bundle's derived files from its own source files, so the results of a
bundle are computed here from the published records alone, with the same rules as the database's:
the published records are the shared records the store reads (:mod:`abp_tui.models.records`, runs
by id, items by code), so they make a :class:`abp_tui.models.DesignRecords` as they are and go
through :func:`abp_tui.analysis.verdicts.decide`,
:func:`abp_tui.analysis.results.document.results_document` (the one results document) and
:func:`abp_tui.analysis.agreement.input.agreement_input`,
exactly as :func:`abp_tui.services.adjudicating.final_verdicts`,
:func:`abp_tui.services.results_report.compute_results`
and :func:`abp_tui.services.agreement_report.study_agreement` do with the database's records:
only :func:`study_facts` (what the study holds besides, read from the bundle's own files) is
this module's.
What is added here is only what a bundle publishes besides: every reviewer's review of each
run, the adjudication behind a verdict, the excluded runs with their reasons. Before an export
writes its derived files it checks that the records the verdicts are decided from here are the
database's (:mod:`abp_tui.services.published_records`: a count and a digest of each kind).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, NamedTuple, TypeVar

from pydantic import BaseModel, Field, ValidationError

from abp_tui.analysis.agreement.input import agreement_input
from abp_tui.analysis.commitment import record_sha256
from abp_tui.analysis.made_when_read import MadeWhenRead
from abp_tui.analysis.matched_models import tokens_unverified
from abp_tui.analysis.material import Material, task_material
from abp_tui.analysis.model_versions import recorded_versions
from abp_tui.analysis.placement import relabel, runs_shown
from abp_tui.analysis.records import design_document, shown_as
from abp_tui.analysis.reruns import held_outcomes
from abp_tui.analysis.results.document import (
    DesignIdentity,
    ResultsDocument,
    StudyFacts,
    results_document,
)
from abp_tui.analysis.results.tallies import DEFAULT_CONFIDENCE, RESULTS_NOTES
from abp_tui.analysis.scibench_results import all_traits
from abp_tui.analysis.scoring import result_state
from abp_tui.analysis.verdicts import Decisions, Disagreement, decide
from abp_tui.export import records as rec
from abp_tui.export.canonical import file_lines
from abp_tui.export.errors import BundleMismatch
from abp_tui.models import (
    AdjudicationRevision,
    AllocationDraw,
    Condition,
    DesignRecords,
    FindingRevision,
    Item,
    ItemPreference,
    Judgment,
    JudgmentRevision,
    Model,
    OutcomeSource,
    ResponseJudgment,
    ResultState,
    Rubric,
    RunOutcome,
    Study,
    StudyDesign,
    Verdict,
)
from abp_tui.models.base import held_once, shared_fields, sharing, trusted
from abp_tui.stats.agreement import AgreementReport, compute_all
from abp_tui.text import json_input

NOTES: Final = (
    *RESULTS_NOTES,
    "Agreement uses each reviewer's first submitted judgment of an item, made before they "
    "could see anyone else's; later revisions and adjudications are not in it.",
)

M = TypeVar("M", bound=BaseModel)


# -- parsing ---------------------------------------------------------------------------------------
def _json(files: Mapping[str, bytes], path: str) -> Any:
    if path not in files:
        raise BundleMismatch(path, "missing from the bundle")
    try:
        return json_input.loads(files[path].decode("utf-8"))
    except (UnicodeDecodeError, json_input.JsonRefused) as exc:
        raise BundleMismatch(path, f"not a readable JSON document ({exc})") from None


def _model(model: type[M], data: Any, path: str, where: str = "") -> M:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first["loc"])
        raise BundleMismatch(path, f"{where}{loc}: {first['msg']}") from None


def _jsonl(files: Mapping[str, bytes], path: str, model: type[M]) -> list[M]:
    """The records of a JSON Lines file, read a line at a time (the file is never whole in
    memory), each holding the shared set of its fields given (:func:`shared_fields`)."""
    return list(_jsonl_each(files, path, model))


def _jsonl_each(files: Mapping[str, bytes], path: str, model: type[M]) -> Iterator[M]:
    """The records of :func:`_jsonl`, one at a time."""
    if path not in files:
        raise BundleMismatch(path, "missing from the bundle")
    for number, line in enumerate(file_lines(files, path), 1):
        if not line.strip() or (len(line) <= 12 and not line.decode("utf-8", "replace").strip()):
            continue  # a blank line, as str.strip sees it
        yield _careful(path, model, number, line)


def _careful(path: str, model: type[M], number: int, line: bytes) -> M:
    """The record of line ``number`` of ``path``, read by pydantic (refused naming the line
    and the field)."""
    # pydantic's JSON reader takes NaN and Infinity for numbers, which no record holds: a
    # line that may hold one is read the slow way, which refuses them naming the line.
    if b"NaN" not in line and b"Infinity" not in line:
        try:  # one parse and validation per line, in pydantic's own JSON reader
            return shared_fields(model.model_validate_json(line))
        except ValidationError:
            pass  # read again, slowly, to name the field
    try:
        data = json_input.loads(line.decode("utf-8", "replace"))
    except json_input.JsonRefused as exc:
        raise BundleMismatch(path, f"line {number}: not JSON ({exc})") from None
    return shared_fields(_model(model, data, path, f"line {number}: "))


def record_hashes(records: Iterable[object]) -> dict[Any, str]:
    """The content hash of each record (a JSON object) by its id (the last of an id counts)."""
    return {r.get("id"): record_sha256(r) for r in records if isinstance(r, dict)}


@dataclass(frozen=True)
class Inputs:
    """The source records of a bundle, parsed."""

    study: Study
    design: rec.PublishedDesign
    study_design: StudyDesign
    """The design file's part of the design document (its disagreement rules included)."""
    rubric: Rubric
    tasks: list[rec.HeldTask]
    """The tasks, each held as what the analysis reads and its text deflated
    (:class:`abp_tui.export.records.HeldTask`)."""
    conditions: list[Condition]
    runs: list[rec.HeldRun]
    """The runs, each record held as its JSON text (:class:`abp_tui.export.records.HeldRun`)."""
    items: list[Item]
    judgments: list[JudgmentRevision]
    adjudications: list[AdjudicationRevision]
    findings: list[FindingRevision]
    audit: list[rec.PublishedAuditEntry]
    judge_scores: list[rec.PublishedJudgeScore]
    """The automated judge's outcomes of the runs it scored (none in a bundle without it)."""
    allocation: list[AllocationDraw] = field(default_factory=list)
    """A design with a human budget: its draws (``judging/allocation.jsonl``); else none."""
    task_sha256: dict[Any, str] = field(default_factory=dict)
    """Each task's content hash by its id, as ``protocol/tasks.json`` holds it (what the design
    hash commits to: :func:`abp_tui.export.claims.check_commitment`)."""
    run_digests: bytes = b""
    """``parse(files, hashed=True)``: each run's commitment hash (:class:`rec.RunHolder`)."""

    @property
    def judge_dimensions(self) -> dict[str, list[dict[str, Any]]]:
        """Run id -> the judge's dimensions (the last stored, as the database reads them)."""
        return {s.run: s.dimensions for s in self.judge_scores}


def parse(files: Mapping[str, bytes], hashed: bool = False) -> Inputs:
    """Parse the source files; a missing or malformed one raises BundleMismatch naming it
    (``hashed``: each run's commitment hash made as it is read, :attr:`Inputs.run_digests`)."""
    design = _model(rec.PublishedDesign, _json(files, rec.DESIGN), rec.DESIGN)
    document = design.document
    study_design = _model(StudyDesign, design_document(document), rec.DESIGN, "document.")
    tasks_raw = _json(files, rec.TASKS)
    conditions_raw = _json(files, rec.CONDITIONS)
    if not isinstance(tasks_raw, list):
        raise BundleMismatch(rec.TASKS, "expected a list of tasks")
    if not isinstance(conditions_raw, list):
        raise BundleMismatch(rec.CONDITIONS, "expected a list of conditions")
    share = sharing()  # one string of each id, code and name, however many records name it
    task_sha256 = record_hashes(tasks_raw)
    tasks = _tasks(tasks_raw, share)
    del tasks_raw  # let go of the file's objects before the runs and judgments are read
    holder = rec.RunHolder(share, hashed)
    runs = [holder.careful(run) for run in _jsonl_each(files, rec.RUNS, rec.PublishedRun)]
    items = _items(files, share)
    inputs = Inputs(
        study=_model(Study, _json(files, rec.STUDY), rec.STUDY),
        design=design,
        study_design=study_design,
        rubric=_model(Rubric, _json(files, rec.RUBRIC), rec.RUBRIC),
        tasks=tasks,
        conditions=[
            _model(Condition, c, rec.CONDITIONS, f"[{i}].") for i, c in enumerate(conditions_raw)
        ],
        runs=runs,
        items=items,
        judgments=_judgments(files, share),
        adjudications=_jsonl(files, rec.ADJUDICATIONS, AdjudicationRevision),
        findings=_jsonl(files, rec.FINDINGS, FindingRevision),
        audit=_jsonl(files, rec.AUDIT, rec.PublishedAuditEntry),
        # Bundles made before the automated judge have no such file: nothing was scored.
        judge_scores=_jsonl(files, rec.JUDGE_SCORES, rec.PublishedJudgeScore)
        if rec.JUDGE_SCORES in files
        else [],
        allocation=_jsonl(files, rec.ALLOCATION, AllocationDraw) if rec.ALLOCATION in files else [],
        task_sha256=task_sha256,
        run_digests=b"" if holder.digests is None else bytes(holder.digests),
    )
    _check_references(inputs)
    return inputs


def _tasks(found: list[Any], share: Callable[[str], str]) -> list[rec.HeldTask]:
    """The tasks of ``protocol/tasks.json`` (its list, emptied as it is read), each validated
    and held as :class:`abp_tui.export.records.HeldTask`."""
    out: list[rec.HeldTask] = []
    for i, t in enumerate(found):
        task = _model(rec.PublishedTask, t, rec.TASKS, f"[{i}].")
        out.append(rec.HeldTask.held(task, t, out[0].dictionary if out else None, share))
        found[i] = None  # its objects are let go as the next is read
    return out


def _items(files: Mapping[str, bytes], share: Callable[[str], str]) -> list[Item]:
    """The items of a bundle (:func:`_jsonl`), each holding the one string of its code, kind,
    task and runs' ids that ``share`` gives (the runs' and the judgments' own), and the one
    tuple of its conditions every item of those conditions holds: a large study's items are
    read by the hundred thousand, over a few conditions."""
    out = _jsonl(files, rec.ITEMS, Item)
    for i in out:
        values = i.__dict__  # a frozen record's fields, read by nobody yet
        for name in ("code", "kind", "task"):
            values[name] = share(values[name])
        values["runs"] = tuple(map(share, values["runs"]))
        values["conditions"] = held_once(tuple(map(share, values["conditions"])))
    return out


_DECISIONS_SHARED: Final = 1_000  # decisions held once a read, at most (a few stock ones)
_SHARED_LONGEST: Final = 200  # a longer justification is its judgment's own (not shared)


def _judgments(files: Mapping[str, bytes], share: Callable[[str], str]) -> list[JudgmentRevision]:
    """The judgments of a bundle (:func:`_jsonl`), each holding the one string of its item's
    code, runs' ids, reviewer and status that ``share`` gives rather than copies of its own
    (a third of what each held, for a large study's hundreds of thousands). Likewise a
    preference alone's decision is the one every judgment deciding alike holds (a study's
    hundred thousand are a handful), else its empty responses or validity checks the one empty
    dict (records are frozen: nobody changes them). Equal values: the records are the ones read."""
    empty: dict[Any, Any] = {}
    decisions: dict[tuple[Any, str], Judgment] = {}
    out: list[JudgmentRevision] = []
    for j in _jsonl_each(files, rec.JUDGMENTS, JudgmentRevision):
        values = j.__dict__  # a frozen record's fields, read by nobody yet
        for name in ("item", "reviewer", "status"):
            values[name] = share(values[name])
        values["placement"] = relabel(j.placement, share)
        decided = j.judgment.__dict__
        for name in ("responses", "validity"):  # a preference alone: neither holds anything
            if not decided[name]:
                decided[name] = empty
        if decided["responses"] is empty and decided["validity"] is empty:
            key = (decided["preference"], decided["justification"])
            held = decisions.get(key)
            if held is not None and held.model_fields_set == j.judgment.model_fields_set:
                values["judgment"] = held
            elif len(decisions) < _DECISIONS_SHARED and len(key[1]) <= _SHARED_LONGEST:
                decisions.setdefault(key, j.judgment)
        out.append(j)
    return out


def _check_references(inputs: Inputs) -> None:
    """Every judgment names an item of the bundle and only runs of that item; every automated
    judge's outcome a run of the bundle."""
    items = {i.code: set(i.runs) for i in inputs.items}
    rows: list[tuple[str, int, str, set[str]]] = []
    for number, j in enumerate(inputs.judgments, start=1):
        rows.append(
            (rec.JUDGMENTS, number, j.item, runs_shown(j.placement) | set(j.judgment.responses))
        )
    for number, a in enumerate(inputs.adjudications, start=1):
        rows.append(
            (
                rec.ADJUDICATIONS,
                number,
                a.item,
                runs_shown(a.placement) | set(a.judgment.responses),
            )
        )
    published = {r.id for r in inputs.runs}
    for number, score in enumerate(inputs.judge_scores, start=1):
        if score.run not in published:
            raise BundleMismatch(
                rec.JUDGE_SCORES, f"line {number}: run {score.run!r} is not in {rec.RUNS}"
            )
    for path, number, item, named in rows:
        runs = items.get(item)
        if runs is None:
            raise BundleMismatch(path, f"line {number}: item {item!r} is not in {rec.ITEMS}")
        if not named <= runs:
            stray = sorted(named - runs)[0]
            raise BundleMismatch(
                path, f"line {number}: run {stray!r} is not a run of item {item!r}"
            )


# -- verdicts and outcomes -------------------------------------------------------------------------
class JudgedResponse(Model):
    """A person's judgment of one run, as a bundle publishes it."""

    scores: dict[str, int]
    rationales: dict[str, str]
    fatal_hits: tuple[str, ...]
    state_override: ResultState | None
    override_reason: str
    state: ResultState | None


class Review(JudgedResponse):
    """One reviewer's latest submitted judgment of one run in one item."""

    item: str
    reviewer: str
    revision: int
    position: str
    """Where the run was shown ("1" left / first, "2" right / second)."""


class AdjudicatedJudgment(JudgedResponse):
    item: str
    adjudicator: str
    revision: int
    note: str


class RunVerdict(Model):
    """A run's final verdict as ``verdicts.jsonl`` publishes it."""

    run: str
    task: str
    condition: str
    trial: int
    state: ResultState | None
    """The outcome that counts: the human verdict's, else automated, else the record's."""
    source: OutcomeSource
    human_state: ResultState | None
    automated_state: ResultState | None
    automated_outcome: str | None
    record_state: str | None
    excluded_reason: str | None
    scores: dict[str, float]
    """Component scores: the adjudicated or single judgment's; the median when several."""
    fatal_hits: tuple[str, ...]
    judgments: int
    """Reviewer judgments behind the verdict."""
    items: tuple[str, ...]
    reviews: tuple[Review, ...]
    """Each reviewer's judgment of the run, with rationales."""
    adjudication: AdjudicatedJudgment | None
    material: Material
    """``development``, ``holdout`` or ``benchmark`` (seed 002, :mod:`abp_tui.analysis.material`):
    a development run's outcome is never a benchmark result."""
    preferences: tuple[ItemPreference, ...] = Field(default=(), exclude_if=lambda v: not v)
    """The final preference of each judged pair the run is in, with its source and the
    reviewers' picks behind it (a preference belongs to the pair: both its runs carry it);
    absent from a line when the run is in no judged pair."""


def verdict_line_schema() -> dict[str, Any]:
    """The JSON Schema of a line of ``verdicts.jsonl`` (``abp-tui-verdicts/v1``), as shipped in
    ``abp_tui/export/schemas/``: fields are only ever added to it, optional (``preferences``)."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": rec.VERDICTS_SCHEMA,
        "title": "abp-tui final verdict of one run (a line of results/verdicts.jsonl)",
        **RunVerdict.model_json_schema(mode="serialization"),
    }


@dataclass
class Analysis:
    inputs: Inputs
    records: DesignRecords
    """The bundle's records as the rules take them (runs numbered)."""
    decisions: Decisions
    human: dict[str, Verdict]
    """Run id -> final human verdict (judged runs only)."""
    verdicts: RunVerdicts
    """One per run in scope, in run order (:class:`RunVerdicts`: each made when read)."""
    outcomes: list[RunOutcome]
    """One per run in scope, in run order."""
    excluded: list[dict[str, Any]] | None = None
    """The excluded runs with their reasons (:func:`excluded_runs`), once first read."""

    @property
    def latest(self) -> dict[str, list[JudgmentRevision]]:
        """Item code -> each reviewer's latest submitted judgment (reviewers in sorted order)."""
        return self.decisions.latest

    @property
    def disagreements(self) -> list[Disagreement]:
        return self.decisions.disagreements


def bundle_records(inputs: Inputs) -> DesignRecords:
    """The bundle's records as the rules take them: the published records themselves."""
    plan: dict[str, Item] = {}
    for i in sorted(inputs.items, key=lambda i: (i.index, i.code)):
        plan.setdefault(i.code, i)
    return DesignRecords(
        design=inputs.study_design,
        rubric=inputs.rubric,
        seed=inputs.design.seed,
        items=tuple(plan.values()),
        judgments=tuple(j for j in inputs.judgments if j.status == "submitted"),
        adjudications=tuple(inputs.adjudications),
        runs=tuple(inputs.runs),
        task_criteria={t.id: t.fatal_criteria for t in inputs.tasks},
        allocation=tuple(inputs.allocation),
    )


def _judged(rubric: Rubric, r: ResponseJudgment) -> dict[str, Any]:
    return {
        "scores": dict(r.scores),
        "rationales": dict(r.rationales),
        "fatal_hits": r.fatal_hits,
        "state_override": r.state_override,
        "override_reason": r.override_reason,
        "state": result_state(rubric, r),
    }


def _review(rubric: Rubric, j: JudgmentRevision, run: str, r: ResponseJudgment) -> Review:
    return Review(
        item=j.item,
        reviewer=j.reviewer,
        revision=j.revision,
        position=shown_as(j.placement, run) or "",
        **_judged(rubric, r),
    )


def _adjudicated(rubric: Rubric, a: AdjudicationRevision, run: str) -> AdjudicatedJudgment:
    return AdjudicatedJudgment(
        item=a.item,
        adjudicator=a.adjudicator,
        revision=a.revision,
        note=a.note,
        **_judged(rubric, a.judgment.responses[run]),
    )


def analyse(inputs: Inputs) -> Analysis:
    """Final verdicts and the outcome of every run in scope."""
    records = bundle_records(inputs)
    decisions = decide(records)
    run_outcomes = held_outcomes(records, decisions)  # a record failure's state stands
    human = {v.run: v for v in decisions.verdicts}
    return Analysis(
        inputs=inputs,
        records=records,
        decisions=decisions,
        human=human,
        verdicts=RunVerdicts(inputs, decisions, run_outcomes, human),
        outcomes=run_outcomes,
    )


class VerdictFacts(NamedTuple):
    """A run's final verdict without its reviews, adjudication and preferences: what the gate,
    the excluded runs and the report's table of runs read, made from what the analysis holds
    at the cost of a tuple (:meth:`RunVerdicts.facts`)."""

    run: str
    task: str
    condition: str
    trial: int
    state: ResultState | None
    source: OutcomeSource
    human_state: ResultState | None
    automated_state: ResultState | None
    automated_outcome: str | None
    record_state: str | None
    excluded_reason: str | None
    scores: dict[str, float]
    fatal_hits: tuple[str, ...]
    judgments: int
    items: tuple[str, ...]
    material: Material


def _value(state: ResultState | None) -> str | None:
    return None if state is None else state.value


def _judged_line(rubric: Rubric, r: ResponseJudgment) -> dict[str, Any]:
    """:func:`_judged`'s fields as ``model_dump(mode="json")`` writes them."""
    return {
        "scores": dict(r.scores),
        "rationales": dict(r.rationales),
        "fatal_hits": list(r.fatal_hits),
        "state_override": _value(r.state_override),
        "override_reason": r.override_reason,
        "state": _value(result_state(rubric, r)),
    }


class RunVerdicts(MadeWhenRead[RunVerdict]):
    """The final verdict of every run in scope, in run order, each made when it is read from
    what the analysis holds anyway (the run, its outcome, the decisions): a large study's
    hundreds of thousands of verdicts, with their reviews, are never all held. What most
    readers need of them (:meth:`facts`) and ``verdicts.jsonl``'s lines (:meth:`lines`) are
    made without a model for each run."""

    def __init__(
        self,
        inputs: Inputs,
        decisions: Decisions,
        outcomes: Sequence[RunOutcome],
        human: Mapping[str, Verdict],
    ) -> None:
        if len(inputs.runs) != len(outcomes):  # a bug: one outcome per run, in run order
            raise ValueError(f"{len(outcomes)} outcomes of {len(inputs.runs)} runs")
        self._inputs = inputs
        self._decisions = decisions
        self._outcomes = outcomes
        self._human = human
        judged: dict[str, list[JudgmentRevision]] = defaultdict(list)
        for js in decisions.latest.values():
            for j in js:
                for run in j.judgment.responses:
                    judged[run].append(j)
        self._judged = {run: tuple(js) for run, js in judged.items()}
        """Run id -> the latest submitted judgments with a response of it, in review order."""
        preferred: dict[str, list[ItemPreference]] = defaultdict(list)
        for p in decisions.preferences:
            for run in p.runs:
                preferred[run].append(p)
        alike: dict[tuple[int, ...], tuple[ItemPreference, ...]] = {}  # a pair's runs: one
        self._preferred = {
            r: alike.setdefault(tuple(map(id, ps)), tuple(ps)) for r, ps in preferred.items()
        }

    def __len__(self) -> int:
        return len(self._outcomes)

    def _at(self, index: int) -> RunVerdict:
        return self._verdict(self._inputs.runs[index], self._outcomes[index])

    def __iter__(self) -> Iterator[RunVerdict]:
        return map(self._verdict, self._inputs.runs, self._outcomes)

    def facts(self) -> Iterator[VerdictFacts]:
        """Each run's :class:`VerdictFacts`, in run order."""
        return map(self._facts, self._inputs.runs, self._outcomes)

    def facts_at(self, index: int) -> VerdictFacts:
        """The :class:`VerdictFacts` of the run at ``index``."""
        return self._facts(self._inputs.runs[index], self._outcomes[index])

    def lines(self) -> Iterator[dict[str, Any]]:
        """Each run's line of ``verdicts.jsonl``, in run order: what the run's
        :class:`RunVerdict` gives as ``model_dump(mode="json")``, made without the model."""
        rubric = self._inputs.rubric
        adjudicated_by = self._decisions.adjudicated_by
        for f in self.facts():
            run = f.run
            line = f._asdict()
            line["state"] = _value(f.state)
            line["human_state"] = _value(f.human_state)
            line["automated_state"] = _value(f.automated_state)
            line["fatal_hits"] = list(f.fatal_hits)
            line["items"] = list(f.items)
            line["reviews"] = [
                {
                    "item": j.item,
                    "reviewer": j.reviewer,
                    "revision": j.revision,
                    "position": shown_as(j.placement, run) or "",
                    **_judged_line(rubric, j.judgment.responses[run]),
                }
                for j in self._judged.get(run, ())
            ]
            a = adjudicated_by.get(run)
            line["adjudication"] = (
                None
                if a is None
                else {
                    "item": a.item,
                    "adjudicator": a.adjudicator,
                    "revision": a.revision,
                    "note": a.note,
                    **_judged_line(rubric, a.judgment.responses[run]),
                }
            )
            preferences = self._preferred.get(run, ())
            if preferences:  # absent from a line when the run is in no judged pair
                line["preferences"] = [p.model_dump(mode="json") for p in preferences]
            yield line

    def overrides(self, run: str) -> list[tuple[str, ResultState, str]]:
        """Who overrode the state of ``run`` (its adjudicator, else its reviewers), the state
        and why, as its verdict's adjudication or reviews hold them."""
        a = self._decisions.adjudicated_by.get(run)
        if a is not None:
            r = a.judgment.responses[run]
            return (
                []
                if r.state_override is None
                else [(a.adjudicator, r.state_override, r.override_reason)]
            )
        out = []
        for j in self._judged.get(run, ()):
            r = j.judgment.responses[run]
            if r.state_override is not None:
                out.append((j.reviewer, r.state_override, r.override_reason))
        return out

    def _facts(self, published: rec.HeldRun, o: RunOutcome) -> VerdictFacts:
        run = published.id
        verdict = self._human.get(run)
        origin = published.origin_status
        return VerdictFacts(
            run,
            published.task,
            published.condition,
            published.trial,
            o.state,
            o.source,
            o.human_state,
            o.automated_state,
            published.automated_outcome,
            None if origin is None else origin.value,
            published.excluded_reason,
            o.scores,
            verdict.fatal_hits if verdict else (),
            verdict.judgments if verdict else 0,
            verdict.items if verdict else (),
            task_material(self._inputs.study_design, published.task),
        )

    def _verdict(self, published: rec.HeldRun, o: RunOutcome) -> RunVerdict:
        rubric = self._inputs.rubric
        facts = self._facts(published, o)
        run = facts.run
        adjudication = self._decisions.adjudicated_by.get(run)
        # Built from values of its fields' types (a thousand bytes less each, for a large
        # study's hundreds of thousands of runs).
        return trusted(
            RunVerdict,
            **facts._asdict(),
            reviews=tuple(
                _review(rubric, j, run, j.judgment.responses[run])
                for j in self._judged.get(run, ())
            ),
            adjudication=None if adjudication is None else _adjudicated(rubric, adjudication, run),
            preferences=self._preferred.get(run, ()),
        )


# -- results -----------------------------------------------------------------------------------
Summary = ResultsDocument
"""The results of a bundle: the one results document (:mod:`abp_tui.analysis.results.document`)
computed from the bundle's records, as the database's results compute it from its own."""


def study_facts(inputs: Inputs) -> StudyFacts:
    """What results need of the bundle's study besides its design's records: the bundle's own
    study, conditions, run records, automated judge's outcomes and findings."""
    protocol = inputs.study.protocol
    return StudyFacts(
        study=inputs.study.id,
        protocol=protocol,
        description=inputs.study.description,
        conditions=inputs.conditions,
        unverified_tokens=[
            r.id for r in inputs.runs if tokens_unverified(r.record.get("metadata") or {})
        ],
        judge_dimensions=inputs.judge_dimensions,
        findings=inputs.findings,
        model_versions=lambda states: recorded_versions(protocol, inputs.runs, states),
        traits=lambda: all_traits((r.id, r.record) for r in inputs.runs),
    )


def document(analysis: Analysis, confidence: float = DEFAULT_CONFIDENCE) -> ResultsDocument:
    """The bundle's results document with every interval at ``confidence``: the same computation
    as the database's (:func:`abp_tui.analysis.results.document.results_document`)."""
    inputs = analysis.inputs
    design = DesignIdentity(inputs.design.name, inputs.design.version, inputs.design.sha256)
    return results_document(
        analysis.records,
        study_facts(inputs),
        design,
        confidence,
        analysis.decisions,
        analysis.outcomes,
        lazy=True,  # its rows by task are made as each file that lists them is written
    )


def summarise(analysis: Analysis, confidence: float = DEFAULT_CONFIDENCE) -> Summary:
    """The bundle's results document with every interval at ``confidence``, and the note on
    the agreement it publishes beside them."""
    found = document(analysis, confidence)
    return found.model_copy(update={"notes": [*found.notes, *NOTES[len(RESULTS_NOTES) :]]})


SUMMARY_LEFT_OUT: Final = frozenset({"outcomes", "preference_only"})
"""Fields of the results document ``results/summary.json`` leaves out: each run's outcome is
``results/verdicts.jsonl``'s line, and the rubric (published) says it is preference-only."""


# -- agreement -------------------------------------------------------------------------------------
def agreement(analysis: Analysis) -> AgreementReport:
    """Agreement of the reviewers' first submitted judgments, on the variables
    :func:`abp_tui.analysis.agreement.input.agreement_input` defines, seeded by the design's
    seed."""
    found = agreement_input(analysis.records)
    return compute_all(
        dict(found.records),
        dict(found.levels),
        dict(found.scales),
        seed=analysis.inputs.design.seed,
    )


def excluded_runs(analysis: Analysis) -> list[dict[str, Any]]:
    """Runs outside the quality denominator, or excluded by their source, with their reasons
    (made once for an analysis: its gate, its table and its summary read them)."""
    if analysis.excluded is None:
        analysis.excluded = _excluded_runs(analysis)
    return analysis.excluded


def _excluded_runs(analysis: Analysis) -> list[dict[str, Any]]:
    verdicts = analysis.verdicts
    out = []
    for v in verdicts.facts():
        excluded = v.state is not None and not v.state.in_quality_denominator
        if not excluded and not v.excluded_reason:
            continue
        reasons = []
        if v.excluded_reason:
            reasons.append(f"record: {v.excluded_reason}")
        elif v.record_state:
            reasons.append(f"record state: {v.record_state}")
        if v.automated_state is not None and not v.automated_state.in_quality_denominator:
            reasons.append(f"automated verification: {v.automated_outcome}")
        for who, state, why in verdicts.overrides(v.run):
            reasons.append(f"{who}: {state.value}: {why}")
        out.append(
            {
                "run": v.run,
                "task": v.task,
                "condition": v.condition,
                "trial": v.trial,
                "state": v.state.value if v.state else None,
                "source": v.source,
                "reasons": reasons,
                "material": v.material,
            }
        )
    return out
