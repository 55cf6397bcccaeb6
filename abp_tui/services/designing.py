"""Study designs: resolve their rubric, plan them against the stored runs, store and freeze
them; make one from choices instead of a file; find the study and design a command means.

A design is frozen once its first judgment is saved, its first pack is issued or its protocol
is published: its hash (design with the commitment to its plan secret, rubric, the exact run
versions of every item, and the content hashes of the tasks, conditions and runs it planned with
the time it was stored, :mod:`abp_tui.analysis.commitment`) is recorded, and a changed design
under the same name becomes a new version. Before that, a changed design simply replaces the
plan nobody has judged yet. The plan secret stays in the coordinator's database
(:mod:`abp_tui.store.secrets`). Reading design files
is :mod:`abp_tui.services.design_files`'s.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations
from typing import Any, NoReturn

import sqlite_utils

from abp_tui.analysis.adjudicators import (
    adjudicator_of_nothing,
    reviewers_by_item,
    reviewing_adjudicators_warning,
)
from abp_tui.analysis.blinding import (
    BUDGET_BALANCED_KEY,
    ORDER_BLOCK,
    ORDER_BLOCKS_KEY,
    Assignment,
    Masker,
    PlanError,
    PlannedItem,
    PlanRun,
    assign,
    design_hash,
    identity_terms,
    item_runs,
    new_plan_secret,
    plan_commitment,
    plan_hmac,
    plan_items,
    unblinded_warning,
)
from abp_tui.analysis.commitment import (
    COMMITMENT_KEY,
    hashed_commitment,
    hashed_runs_sha256,
    record_sha256,
    run_record,
)
from abp_tui.analysis.material import unlisted_tasks, unlisted_warning
from abp_tui.analysis.reruns import (
    HeldRun,
    held_back,
    held_back_note,
    held_from_plan,
    planned_runs,
)
from abp_tui.analysis.shared_runs import (
    SHARED_RUNS_KEY,
    exposed_reviewers,
    keeps_apart,
    planned_warning,
    shared_runs_warning,
)
from abp_tui.errors import AbpError, InputError
from abp_tui.export import records as rec
from abp_tui.models import InlineRubric, Rubric, RunFacts, StudyDesign
from abp_tui.models.builtin_rubrics import BUILT_IN, NO_RUBRIC, PREFERENCE_ONLY
from abp_tui.services.design_files import inline_rubric, key_path
from abp_tui.services.design_files import load_design_file as load_design_file
from abp_tui.services.design_text import ALL as ALL
from abp_tui.services.design_text import (
    limitation_warning,
    no_study_chosen,
    parse_pairs,
    split_names,
)
from abp_tui.services.reviewing import item_masking
from abp_tui.services.roles import require
from abp_tui.store import bulk
from abp_tui.store import judging as sql
from abp_tui.store import queries as run_rows
from abp_tui.store import secrets as secret_sql
from abp_tui.store.allocation import draws as allocation_draws
from abp_tui.store.db import utc_now
from abp_tui.store.design_masking import set_masked_loose
from abp_tui.store.queries import list_studies, study_conditions, study_protocol, unblinded
from abp_tui.store.views import refresh_views
from abp_tui.text.canonical import canonical_json, sha256_bytes
from abp_tui.text.hints import command, no_such_study, quoted


@dataclass(frozen=True)
class CreatedDesign:
    pk: int
    study: str
    name: str
    version_no: int
    sha256: str
    status: str
    """created, unchanged, replaced (not yet judged) or new version (the old one was frozen)."""
    items: int
    pair_items: int
    single_items: int
    assignments: int
    seed: int = 0
    rubric: str = ""
    """The id of the rubric the design is judged on (``preference-only``: preferences only)."""
    warnings: tuple[str, ...] = ()
    """What the person creating the design should know (seed 002: tasks in neither
    development_tasks nor holdout_tasks, counted as benchmark material)."""
    held_back: tuple[HeldRun, ...] = ()
    """Seed 000: runs whose record says INFRA_ERROR / PROVIDER_BLOCK, held back from reviewers."""
    drawn: int | None = None
    """A human budget: the items drawn for people (None: no budget, or the design unchanged)."""
    expected_drawn: float = 0.0

    @property
    def held_back_note(self) -> str | None:
        """The sentence every face prints about ``held_back`` (None: none held back)."""
        return held_back_note(self.held_back)


@dataclass(frozen=True)
class RubricChoice:
    """A rubric a new design may name: its id (``none``: preference only) and a label."""

    id: str
    label: str


def resolve_rubric(db: sqlite_utils.Database, design: StudyDesign, source: str = "") -> Rubric:
    """The rubric a design is judged on: its own (``[rubric]``), the one it names, ``none``
    (preference only), else the study's, else preference only."""
    chosen = design.rubric
    if isinstance(chosen, InlineRubric):
        taken = {*BUILT_IN, PREFERENCE_ONLY.id, NO_RUBRIC}
        if sql.rubric_document(db, chosen.id or design.name) is not None:
            taken.add(chosen.id or design.name)
        toml = not source.lower().endswith(".json")
        return inline_rubric(design, chosen, source, toml=toml, taken=taken)
    rubric_id = chosen or sql.study_rubric_id(db, design.study)
    if rubric_id is None or rubric_id in (NO_RUBRIC, PREFERENCE_ONLY.id):
        return PREFERENCE_ONLY
    stored = sql.rubric_document(db, rubric_id)
    if stored is not None:
        return Rubric.model_validate_json(stored)
    if rubric_id in BUILT_IN:
        return BUILT_IN[rubric_id]
    raise AbpError(
        f"rubric {rubric_id!r} is neither built in ({', '.join(BUILT_IN)}), {NO_RUBRIC!r} "
        "(preference only) nor stored"
    )


def rubric_choices(db: sqlite_utils.Database, study: str) -> list[RubricChoice]:
    """The rubrics a new design of ``study`` may name: preference only, the built-in ones and
    the study's own; the first is what a design that names none gets."""
    own = sql.study_rubric_id(db, study)
    found = [RubricChoice(NO_RUBRIC, f"{PREFERENCE_ONLY.name}: A / B / tie / insufficient")]
    for rubric_id, rubric in BUILT_IN.items():
        found.append(RubricChoice(rubric_id, f"{rubric_id}: {rubric.name}"))
    if own is not None and own not in BUILT_IN and own not in (NO_RUBRIC, PREFERENCE_ONLY.id):
        stored = sql.rubric_document(db, own)
        name = Rubric.model_validate_json(stored).name if stored else "imported"
        found.append(RubricChoice(own, f"{own}: {name}"))
    if own is not None:
        found.sort(key=lambda c: c.id != own)
    return found


def study_masker(db: sqlite_utils.Database, design: StudyDesign) -> Masker:
    ids, labels, values = sql.identities(db, design.study)
    return identity_terms(ids, labels, values, design.mask_terms, design.mask_well_known)


class _Replan(Exception):
    """Another process stored a version of the design while this one planned it."""


REPLANS = 5
"""How many times a design is planned again when other processes keep storing it meanwhile."""


def create_design(
    db: sqlite_utils.Database,
    design: StudyDesign,
    source: str = "",
    *,
    plan_secret: str | None = None,
) -> CreatedDesign:
    """Plan and store a design; idempotent for an unchanged design. ``source``: the design
    file, named by errors about its keys.

    Planning reads the database before the write lock is taken; if another process stored a
    version of the design meanwhile (two ``study create`` of one file at once), the design is
    planned again against it, and is then usually found unchanged.

    The plan is derived from the design's plan secret (:mod:`abp_tui.analysis.blinding`): the
    latest version's when it has one, else a fresh one; a new version of a frozen design gets a
    fresh one. ``plan_secret`` imposes one (the bundled demo's published secret). A design
    stored before plan secrets is planned again with one: replaced while nobody judged it, else
    a new version. The secret stays in this database; the design records its commitment.
    Refused to a team session's reviewer or adjudicator (:mod:`abp_tui.services.roles`).
    """
    require("design")
    for _ in range(REPLANS):
        with contextlib.suppress(_Replan):
            return _create_once(db, design, source, plan_secret)
    raise AbpError(
        f"design {design.name}: other processes kept storing it while it was planned; "
        "nothing was changed (try again)"
    )


def _state(row: sql.DesignRow | None) -> tuple[int, str, str | None] | None:
    return None if row is None else (row.pk, row.sha256, row.frozen_at)


def _latest(db: sqlite_utils.Database, study: str, name: str) -> sql.DesignRow | None:
    versions = [d for d in sql.designs(db, study) if d.name == name]
    return versions[-1] if versions else None


def _create_once(
    db: sqlite_utils.Database, design: StudyDesign, source: str, plan_secret: str | None
) -> CreatedDesign:
    sql.study_rubric_id(db, design.study)  # the study must exist
    if study_protocol(db, design.study) == "pack":
        raise AbpError(
            "this is a reviewer station: study designs are made on the coordinator's database"
        )
    rubric = resolve_rubric(db, design, source)
    _check_additions(db, design, source)
    if rubric.preference_only and design.single_items:
        raise _refused(
            design,
            source,
            ("single_items",),
            "a preference-only design judges pairs: set single_items = false, or name a rubric "
            "to score single runs",
        )
    if rubric.preference_only and design.contrasts == "none":
        raise _refused(
            design,
            source,
            ("contrasts",),
            'a preference-only design judges pairs: contrasts = "none" leaves nothing to judge',
        )
    masker = study_masker(db, design)
    rubric_doc = rubric.model_dump_json()
    facts = run_rows.stated_runs(db, design.study)  # what a plan reads of the runs: their states
    runs = _plannable(db, design, facts)
    latest = _latest(db, design.study, design.name)
    stored = secret_sql.plan_secret(db, latest.pk) if latest is not None else None
    secret = plan_secret or stored or new_plan_secret()
    # A version stored before items sharing a run were laid apart keeps its plan while the
    # design is unchanged; anything planned anew lays them apart.
    apart_runs = latest is None or bool(latest.document.get(SHARED_RUNS_KEY))
    # Likewise for ordering each reviewer's items in common blocks.
    in_blocks = latest is None or ORDER_BLOCKS_KEY in latest.document
    # And for dealing a human budget's drawn items alone.
    balanced = latest is None or BUDGET_BALANCED_KEY in latest.document
    plan = _plan(design, runs, masker, rubric_doc, secret, apart_runs, in_blocks, balanced=balanced)
    committed = _commitment_of(db, design, plan.items)  # the same runs under any secret

    def is_latest(found: _Planned) -> bool:
        """Whether ``found`` is the latest version as stored (its commitment's time and all;
        a version stored before commitments, as it was hashed)."""
        if latest is None:
            return False
        kept = latest.document.get(COMMITMENT_KEY)
        at = kept.get("created_at") if isinstance(kept, dict) else None
        return found.sealed(committed(at) if isinstance(at, str) else None)[1] == latest.sha256

    if latest is not None and not is_latest(plan) and not (apart_runs and in_blocks and balanced):
        apart_runs = in_blocks = True
        plan = _plan(design, runs, masker, rubric_doc, secret, True, True)
    changed_frozen = latest is not None and not is_latest(plan) and latest.frozen_at is not None
    if changed_frozen and plan_secret is None:  # a new version: a plan of its own
        secret = new_plan_secret()
        plan = _plan(design, runs, masker, rubric_doc, secret, True, True)
    items, assignments = plan.items, plan.assignments
    adjudicating = _reviewing_adjudicators(design, source, items, assignments)
    pairs = sum(1 for i in items if i.kind == "pair")
    unlisted = unlisted_warning(unlisted_tasks(design, (i.task_id for i in items)))
    shared = _shared_runs_warning(design, items, assignments)
    said = limitation_warning(design.limitations, bulk.study_limitations(db, design.study))
    warnings = tuple(w for w in (unlisted, shared, adjudicating, said) if w)
    planned = (r for i in items for r in (i.run_a, i.run_b) if r is not None)
    held = tuple(held_back(design, facts, planned))
    if latest is not None and is_latest(plan):
        kept = allocation_draws(db, latest.pk)  # a human budget: the draw stored with the plan
        drawn = {i.key for i in items if i.code in {d.item for d in kept if d.drawn}}
        return CreatedDesign(
            latest.pk,
            design.study,
            design.name,
            latest.version_no,
            latest.sha256,
            "unchanged",
            len(items),
            pairs,
            len(items) - pairs,
            len([a for a in assignments if not kept or a.item_key in drawn]),
            design.seed,
            rubric.id,
            warnings,
            held,
            len(drawn) if kept else None,
            sum(d.probability for d in kept),
        )
    created_at = utc_now()
    document, sha = plan.sealed(committed(created_at))
    with db.atomic():
        if _state(_latest(db, design.study, design.name)) != _state(latest):
            raise _Replan  # rolled back: nothing written
        version_no = 1
        status = "created"
        if latest is not None and latest.frozen_at is None:
            secret_sql.drop_plan_secret(db, latest.pk)
            sql.delete_unfrozen_plan(db, latest.pk)
            version_no, status = latest.version_no, "replaced"
        elif latest is not None:
            version_no, status = latest.version_no + 1, "new version"
        pk = sql.insert_design(
            db,
            design.study,
            design.name,
            version_no,
            sha,
            canonical_json(document),
            rubric_doc,
            design.seed,
            created_at,
        )
        secret_sql.store_plan_secret(db, pk, secret, plan_commitment(secret))
        set_masked_loose(db, pk, masker.loose)  # what the blind screens may leave
        key_to_pk = sql.insert_items(db, pk, items, item_masking(db, masker, items))
        # NumPy, imported when a design is created, not when the workstation starts.
        from abp_tui.services.allocating import draw_design, drawn_only
        from abp_tui.services.judge_order import order_queues

        draws = draw_design(db, pk, design)  # a human budget: only the drawn items
        if draws and document.get(BUDGET_BALANCED_KEY):  # dealt alone, evenly
            picked = {d.item for d in draws if d.drawn}
            drawn = {i.key for i in items if i.code in picked}
            apart, blocks = document.get(SHARED_RUNS_KEY) is True, ORDER_BLOCKS_KEY in document
            assignments = assign(design, items, secret, apart, blocks, drawn)
            # What the deal shows whom, as the warnings say it (a refusal rolls it all back).
            dealt = [i for i in items if i.key in drawn]
            adjudicating = _reviewing_adjudicators(design, source, dealt, assignments)
            shared = _shared_runs_warning(design, dealt, assignments)
            warnings = tuple(w for w in (unlisted, shared, adjudicating, said) if w)
        assignments = drawn_only(db, pk, key_to_pk, assignments)
        sql.insert_assignments(db, key_to_pk, assignments)

        order_queues(db, pk)  # a calibration sample first, then where AI judges are unsure
    refresh_views(db)  # the design's rubric may add score columns to latest_judgments
    opened = unblinded(db, design.study)  # judged now, its results may be known to its reviewers
    warnings += () if opened is None else (unblinded_warning(design.study, *opened),)
    return CreatedDesign(
        pk,
        design.study,
        design.name,
        version_no,
        sha,
        status,
        len(items),
        pairs,
        len(items) - pairs,
        len(assignments),
        design.seed,
        rubric.id,
        warnings,
        held,
        sum(d.drawn for d in draws) if draws else None,
        sum(d.probability for d in draws),
    )


def _plannable(
    db: sqlite_utils.Database, design: StudyDesign, facts: list[RunFacts]
) -> list[PlanRun]:
    """The runs a plan may hold (seed 000: no record failure in ``facts`` unless shown)."""
    held = held_from_plan(design, {f.id: f.origin_status for f in facts})
    return planned_runs(design, run_rows.plan_runs(db, design.study), held)


def _shared_runs_warning(
    design: StudyDesign, items: list[PlannedItem], assignments: list[Assignment]
) -> str | None:
    """The warning of a plan that shows a reviewer the same run in two items (None: none)."""
    run_ids = [item_runs(i) for i in items]
    exposed = exposed_reviewers(
        ((i.key, runs) for i, runs in zip(items, run_ids, strict=True)),
        ((a.reviewer, a.item_key) for a in assignments),
    )
    return shared_runs_warning(design, run_ids, len(exposed))


def _reviewing_adjudicators(
    design: StudyDesign, source: str, items: list[PlannedItem], assignments: list[Assignment]
) -> str | None:
    """Refuses a listed adjudicator the plan gives every item to review; the warning of those
    who review some (:mod:`abp_tui.analysis.adjudicators`)."""
    reviewers_of = reviewers_by_item(
        (i.key for i in items), ((a.item_key, a.reviewer) for a in assignments)
    )
    refusal = adjudicator_of_nothing(design, reviewers_of)
    if refusal is not None:
        raise _refused(design, source, ("adjudicators",), refusal)
    return reviewing_adjudicators_warning(design, reviewers_of)


@dataclass(frozen=True)
class _Planned:
    """A design's plan under one secret, its stored document before its commitment, and the
    plan's part of its hash."""

    items: list[PlannedItem]
    assignments: list[Assignment]
    document: dict[str, Any]
    plan_mac: str
    rubric: dict[str, Any]

    def sealed(self, commitment: dict[str, Any] | None) -> tuple[dict[str, Any], str]:
        """The stored document and its hash, with ``commitment`` (None: a design stored before
        commitments, hashed as it was)."""
        document = dict(self.document)
        if commitment is not None:
            document[COMMITMENT_KEY] = commitment
        return document, design_hash(document, self.rubric, self.plan_mac)


def _plan(
    design: StudyDesign,
    runs: list[PlanRun],
    masker: Masker,
    rubric_doc: str,
    secret: str,
    apart_runs: bool,
    in_blocks: bool,
    balanced: bool = True,
) -> _Planned:
    """The plan of a design under ``secret`` and its stored document (``apart_runs``: lay items
    sharing a run apart, recorded in the document when it changes the plan; ``in_blocks``:
    order each reviewer's items in common blocks, recorded in the document; ``balanced``: deal
    a human budget's drawn items alone, recorded when the design has a budget: its stored
    assignments are dealt once the items are drawn, :func:`_create_once`).

    The hash covers the document (with the secret's commitment and the records it planned), the
    rubric and the plan; the plan enters it as an HMAC keyed by the secret, so a hash a pack
    carries reveals nothing of the plan to anyone who could otherwise try the few plans a small
    design allows.
    """
    try:
        items = plan_items(design, runs, secret, apart_runs)
        assignments = assign(design, items, secret, apart_runs, in_blocks)
    except PlanError as exc:
        raise AbpError(f"design {design.name!r}: {exc}") from None
    document = design.model_dump(mode="json")
    if apart_runs and keeps_apart(design, [item_runs(i) for i in items]):
        document[SHARED_RUNS_KEY] = True
    if in_blocks:
        document[ORDER_BLOCKS_KEY] = ORDER_BLOCK
    if balanced and design.human_budget is not None:
        document[BUDGET_BALANCED_KEY] = True
    document["masked_terms"] = list(masker.terms)
    document["masked_short_ids"] = list(masker.short_ids)
    document["plan_secret_sha256"] = plan_commitment(secret)
    plan_doc = [
        [i.key, i.code, i.run_a.pk, i.run_b.pk if i.run_b else None, i.base_flip] for i in items
    ]
    return _Planned(
        items, assignments, document, plan_hmac(secret, plan_doc), json.loads(rubric_doc)
    )


def _commitment_of(
    db: sqlite_utils.Database, design: StudyDesign, items: list[PlannedItem]
) -> Callable[[str], dict[str, Any]]:
    """The commitment of a design whose plan is ``items``, as a function of the time it is
    stored: the tasks, conditions and runs its items use, as a bundle publishes them. Each
    record is hashed as it is read (a batch of runs at a time): only the hashes are held."""
    runs = {r.id: r for i in items for r in (i.run_a, i.run_b) if r is not None}
    task_ids = {r.task_id for r in runs.values()}
    condition_ids = {r.condition_id for r in runs.values()}
    tasks = {
        task.id: record_sha256(
            rec.PublishedTask(**task.model_dump(), placeholder=placeholder).model_dump(mode="json")
        )
        for task, placeholder in bulk.each_task(db, design.study)
        if task.id in task_ids
    }
    conditions = {
        c.id: record_sha256(design.framed_condition(c).model_dump(mode="json"))
        for c in bulk.conditions(db, design.study)
        if c.id in condition_ids
    }
    planned = hashed_runs_sha256(
        (
            stored.facts.id,
            record_sha256(
                run_record(
                    {**stored.facts.model_dump(mode="json"), "record": stored.record},
                    None if stored.output is None else sha256_bytes(stored.output.encode("utf-8")),
                )
            ),
        )
        for stored in bulk.each_current_run(db, design.study)
        if stored.facts.id in runs
    )
    return lambda created_at: hashed_commitment(created_at, dict(tasks), dict(conditions), planned)


def _refused(design: StudyDesign, source: str, key: tuple[str, ...], message: str) -> AbpError:
    """An error about one key of the design: in its file (as the file spells the key) or, for
    a design from no file, naming the design."""
    if source:
        return InputError(source, message, path=key_path(key, not source.endswith(".json")))
    return AbpError(f"design {design.name!r}: {key_path(key, True)}: {message}")


def _check_additions(db: sqlite_utils.Database, design: StudyDesign, source: str) -> None:
    """The design's condition instructions name conditions of the study that have none."""
    if not design.instructions:
        return
    conditions = {c.condition.id: c.condition for c in study_conditions(db, design.study)}
    for condition_id, text in design.instructions.items():
        key = ("instructions", condition_id)
        found = conditions.get(condition_id)
        if found is None:
            raise _refused(
                design,
                source,
                key,
                f"study {design.study!r} has no condition {condition_id!r} "
                f"(its conditions: {', '.join(conditions) or 'none'})",
            )
        if found.instructions.strip() and found.instructions.strip() != text.strip():
            raise _refused(
                design,
                source,
                key,
                f"condition {condition_id!r} has its instructions from its records; a design "
                "gives instructions only to conditions that have none",
            )


def find_study(db: sqlite_utils.Database, study: str | None = None) -> str:
    """The study a command means: the one named, else the only study the database holds.

    Every face picks through here, so "which study" has one answer. Station copies of a pack
    (protocol ``pack``) are not studies anyone picks by default.
    """
    if study is not None:
        if study_protocol(db, study) is None:
            known = [s.id for s in list_studies(db) if s.protocol != "pack"]
            raise AbpError(
                no_such_study(study, db)
                + (
                    f" (one of: {', '.join(known[:20])}{', ...' if len(known) > 20 else ''})"
                    if known
                    else ": it has none"
                )
            )
        return study
    studies = list_studies(db)
    ids = [s.id for s in studies if s.protocol != "pack"]
    if len(ids) != 1:
        raise AbpError(no_study_chosen(ids, [s.id for s in studies if s.protocol == "pack"]))
    return ids[0]


def find_design_if_any(
    db: sqlite_utils.Database, study: str | None = None, name: str | None = None
) -> sql.DesignRow | None:
    """The latest version of the design a command means, or None when there is none to mean:
    of the design named, else the design created last (not the last by name: a study's main
    design made after its pilot is the one meant).

    Without a study, the designs (of that name) must all belong to one study: picking the
    latest across studies would silently judge, publish or report the wrong one. A design
    named but not found is refused rather than answered with None.
    """
    rows = sql.designs(db, study)
    if name is not None:
        rows = [d for d in rows if d.name == name]
    if study is None:
        studies = sorted({d.study_id for d in rows})
        if len(studies) > 1:
            every = [s.id for s in list_studies(db) if s.protocol != "pack"]
            raise AbpError(f"choose a study with --study (one of: {', '.join(every)})")
    if not rows and name is not None:
        _no_design(db, study, name)
    return max(rows, key=lambda d: d.pk) if rows else None


def find_design(
    db: sqlite_utils.Database, study: str | None = None, name: str | None = None
) -> sql.DesignRow:
    """The latest version of the design a command means (see ``find_design_if_any``); refused
    when the database holds none."""
    row = find_design_if_any(db, study, name)
    if row is None:
        _no_design(db, study, name)
    return row


def _no_design(db: sqlite_utils.Database, study: str | None, name: str | None) -> NoReturn:
    what = f"design {name!r}" if name else "study design"
    where = f" for study {study!r}" if study else ""
    known = sorted({d.name for d in sql.designs(db, study)}) if name else []  # a name mistyped
    where += f" ({'its ' if study else ''}designs: {', '.join(known)})" if known else ""
    made = command(f"study create --study {quoted(study) if study else 'STUDY'}", db)
    raise AbpError(f"no {what}{where}; create one with: {made} (or FILE)")


# -- a design without a file: the choices of `study create --study S ...` and of the home form --


@dataclass(frozen=True)
class DesignChoices:
    """A design chosen field by field instead of written in a file; None: the default.

    The command line (``abp-tui study create --study S --pairs ...``) and the home screen's form
    fill this in; a TOML file can say more (mask terms, disagreement rules, its own rubric...).
    """

    study: str | None = None
    """Default: the only study in the database."""
    name: str | None = None
    """Default: a name no design of the study has yet. An existing design's name makes a new
    version of it (with its seed, unless one is given)."""
    rubric: str | None = None
    """A rubric id or ``none`` (preference only); default: the study's rubric, else none."""
    conditions: str = ALL
    """``all`` or condition ids separated by commas."""
    pairs: str = ALL
    """``all`` (every pair of the conditions), ``none``, or pairs ``C:A, D:B``."""
    tasks: str = ALL
    """``all`` or task ids separated by commas."""
    reviewers: str = ""
    """Reviewer names separated by commas; empty: an open design."""
    reviewers_per_item: int | None = None
    """Default: every listed reviewer judges every item (one reviewer each in an open design).
    A design file's own default stays 1, so an existing file keeps planning what it planned."""
    seed: int | None = None
    """Default: a fresh seed (reported with the design)."""
    single_items: bool = False
    adjudicators: str = ""
    """Who may adjudicate, names separated by commas; empty: anyone who reviewed none of it."""
    human_budget: str | None = None
    """Active allocation: a number of items or a share (``25%``); None: people judge all."""
    allocation_floor: float | None = None
    stop_when: str | None = None
    """A stopping rule to watch (``win rate excludes 0.5``); None: none."""
    limitations: tuple[str, ...] = ()
    """What the results cannot say (a file's ``limitations``; results publish with one)."""
    show_ai_after_submit: bool = False


@dataclass(frozen=True)
class DesignDefaults:
    """What a new design of a study starts from in the home screen's form."""

    study: str
    name: str
    conditions: list[tuple[str, str]]
    """Every condition of the study: (id, label)."""
    rubrics: list[RubricChoice]
    """The first is the default."""
    seed: int
    reviewers: str
    unblinded: tuple[str, str] | None = None
    """Who unblinded the study and when (None: it is blind)."""


def fresh_seed() -> int:
    """A new seed for a plan (shown to the user and recorded with the design)."""
    import secrets

    return 10_000_000 + secrets.randbelow(90_000_000)


def free_name(db: sqlite_utils.Database, study: str, base: str = "pairs") -> str:
    """``base``, or ``base-2``, ``base-3``... whichever no design of the study has."""
    taken = {d.name for d in sql.designs(db, study)}
    if base not in taken:
        return base
    return next(f"{base}-{n}" for n in range(2, len(taken) + 3) if f"{base}-{n}" not in taken)


def design_defaults(db: sqlite_utils.Database, study: str | None, reviewer: str) -> DesignDefaults:
    """Every condition, all pairs, ``reviewer`` alone, a fresh seed and the study's rubric (else
    preference only)."""
    study_id = find_study(db, study)
    return DesignDefaults(
        study=study_id,
        name=free_name(db, study_id),
        conditions=[(c.condition.id, c.condition.label) for c in study_conditions(db, study_id)],
        rubrics=rubric_choices(db, study_id),
        seed=fresh_seed(),
        reviewers=reviewer,
        unblinded=unblinded(db, study_id),
    )


def design_from_choices(db: sqlite_utils.Database, choices: DesignChoices) -> StudyDesign:
    """The StudyDesign the choices describe, each default filled in."""
    from pydantic import ValidationError

    study = find_study(db, choices.study)
    known = [c.condition.id for c in study_conditions(db, study)]
    chosen: str | list[str] = ALL
    if choices.conditions.strip().lower() not in (ALL, ""):
        chosen = split_names(choices.conditions)
        unknown = [c for c in chosen if c not in known]
        if unknown:
            raise AbpError(
                f"conditions: study {study!r} has no condition {unknown[0]!r} "
                f"(its conditions: {', '.join(known) or 'none'})"
            )
    in_scope = known if chosen == ALL else list(chosen)
    pairs = parse_pairs(choices.pairs, in_scope)
    name = (choices.name or "").strip() or free_name(db, study)
    previous = [d for d in sql.designs(db, study) if d.name == name]
    seed = choices.seed
    if seed is None:
        seed = previous[-1].seed if previous else fresh_seed()
    rubric = (choices.rubric or "").strip() or None
    every = choices.tasks.strip().lower() in (ALL, "")
    tasks: str | list[str] = ALL if every else split_names(choices.tasks)
    reviewers = split_names(choices.reviewers, once=False)
    per_item = choices.reviewers_per_item
    if per_item is None:
        per_item = max(1, len(set(reviewers)))
    try:
        return StudyDesign.model_validate(
            {
                "study": study,
                "name": name,
                "rubric": rubric,
                "seed": seed,
                "tasks": tasks,
                "conditions": chosen,
                "contrasts": pairs,
                "single_items": choices.single_items,
                "reviewers": reviewers,
                "reviewers_per_item": per_item,
                "adjudicators": split_names(choices.adjudicators, once=False),
                "human_budget": choices.human_budget,
                "allocation_floor": choices.allocation_floor,
                "stop_when": choices.stop_when,
                "limitations": list(choices.limitations),
                "show_ai_after_submit": choices.show_ai_after_submit,
            }
        )
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        field = ".".join(str(p) for p in err["loc"][:1]) or "design"
        message = str(err["msg"]).removeprefix("Value error, ")
        raise AbpError(f"{field.replace('_', ' ')}: {message}") from None


def choices_warning(pairs: str, conditions: list[str], reviewers: str, per_item: int) -> str | None:
    """What the new-design form previews as it is filled in: the warning of items sharing runs
    too few reviewers would see twice (None: none, or choices not readable yet)."""
    try:
        chosen = parse_pairs(pairs, conditions)
    except AbpError:
        return None
    contrasts: list[tuple[str, str]] = []
    if chosen == "all-pairs":
        contrasts = list(combinations(sorted(conditions), 2))
    elif not isinstance(chosen, str):
        contrasts = chosen
    return planned_warning(contrasts, len(split_names(reviewers)), max(per_item, 1))


def create_from_choices(db: sqlite_utils.Database, choices: DesignChoices) -> CreatedDesign:
    """Create (or version) the design the choices describe: what both faces call."""
    return create_design(db, design_from_choices(db, choices))
