"""Commands about studies and their designs: ``status``, ``study create``, ``study list``,
``unblind``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from abp_tui.cli.options import actor, db_path, existing_db, open_db
from abp_tui.cli.output import EXIT_OK, emit
from abp_tui.errors import AbpError
from abp_tui.text.counts import counted
from abp_tui.text.hints import command, no_such_study, quoted

if TYPE_CHECKING:  # the services load when a command runs, not when the CLI starts
    from abp_tui.services.designing import CreatedDesign


def cmd_status(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from abp_tui.store import overview, source_summaries
    from abp_tui.text.safe import safe_line

    path = existing_db(args)
    studies = overview.read(path)
    logs = source_summaries.read(path)
    if args.study:
        studies = [s for s in studies if s.study.id == args.study]
        if not studies:
            raise AbpError(f"--study {args.study}: no such study in {path}")
    doc: list[dict[str, Any]] = []
    lines = [f"Database: {path}", ""]
    if not studies:
        lines.append(f"No studies yet. Import run records with: {command('import PATH', path)}")
    for found in studies:
        s = found.study
        doc.append(
            {
                **asdict(s),
                "condition_runs": {c.id: c.runs for c in found.conditions},
                "task_runs": {t.id: t.runs for t in found.tasks},
                # Who judged and how much: blind-safe (what they picked waits for unblinding).
                "judges": [asdict(j) for j in found.judges],
                "designs": [
                    {
                        "name": d.name,
                        "version": d.version_no,
                        "sha256": d.sha256,
                        "frozen_at": d.frozen_at,
                        "progress": [asdict(p) for p in d.progress],
                    }
                    for d in found.designs
                ],
                # A log's own figures (Inspect's plan, results, stats), kept whole at import;
                # while the study is blind, without its scores and usage ("withheld" says so).
                "source_logs": [asdict(log) for log in logs.get(s.id, [])],
            }
        )
        mark = " [SYNTHETIC]" if s.synthetic else ""
        lines.append(f"{safe_line(s.id)}{mark}  ({s.protocol}) {safe_line(s.name)}")
        lines.append(
            f"  tasks {s.tasks}, conditions {s.conditions}, runs {s.runs} "
            f"(excluded {s.excluded_runs}), trace events {s.trace_events}, "
            f"imported preferences {s.preferences}"
        )
        if found.tasks:  # what --tasks of `study create` names
            lines.append(f"    task ids: {_task_ids([t.id for t in found.tasks], safe_line)}")
        for c in found.conditions:
            lines.append(
                f"    condition {safe_line(c.id)}: {c.runs} runs"
                + (f"  {safe_line(c.label)}" if c.label else "")
            )
        lines.extend(_log_lines(logs.get(s.id, []), safe_line))
        lines.extend(_judge_lines(found.judges, safe_line))
        for d in found.designs:
            lines.append(f"    design {safe_line(d.name)} v{d.version_no}:")
            lines.extend(
                f"      {safe_line(p.reviewer)}: {p.submitted}/{p.assigned} submitted, "
                f"{p.drafts} in draft"
                for p in d.progress
            )
            if not d.progress:
                lines.append("      no reviewer has opened it yet (open design)")
    emit(args, {"database": str(path), "studies": doc}, "\n".join(lines))
    return EXIT_OK


SHOWN_TASK_IDS = 6
"""Task ids listed by ``status`` (the first ones and the last; ``--json`` has them all)."""


def _task_ids(ids: list[str], safe_line: Any) -> str:
    """The study's task ids in their order: all of a few, else the first few, how many are
    left out and the last (``status --json`` lists them all)."""
    if len(ids) <= SHOWN_TASK_IDS + 2:  # "... (1 more)" would be no shorter
        return ", ".join(safe_line(i) for i in ids)
    first = ", ".join(safe_line(i) for i in ids[:SHOWN_TASK_IDS])
    return f"{first}, ... ({len(ids) - SHOWN_TASK_IDS - 1} more), {safe_line(ids[-1])}"


def _judge_lines(judges: list[Any], safe_line: Any) -> list[str]:
    """Each AI judge of the study: its id, model and verdicts by kind (never their outcomes)."""
    return [
        f"    AI judge {safe_line(j.id)} (model {safe_line(j.model)}): "
        + counted(j.verdicts, "verdict")
        + (
            " (" + ", ".join(f"{n} {safe_line(k)}" for k, n in sorted(j.kinds.items())) + ")"
            if len(j.kinds) > 1
            else f" ({safe_line(next(iter(j.kinds)))})"
        )
        for j in judges
    ]


def _log_lines(logs: list[Any], safe_line: Any) -> list[str]:
    """What each imported log states of itself (abp_tui.store.source_summaries), a few lines."""
    lines = []
    for log in logs:
        head = [f"model {log.model}", log.status]
        if log.samples:
            head.append(f"samples {log.samples}")
        if log.started_at:
            head.append(f"{log.started_at} to {log.completed_at}")
        lines.append(
            f"    log {safe_line(log.log)} ({safe_line(log.task)}): "
            + ", ".join(safe_line(h) for h in head if h)
        )
        if log.plan:
            lines.append("      plan: " + "; ".join(safe_line(p) for p in log.plan))
        if log.withheld:  # a blind study: scores and usage by model are results by condition
            lines.append(f"      results and model usage: {safe_line(log.withheld)}")
        for label, parts in (("results", log.metrics), ("model usage", log.usage)):
            if parts:
                lines.append(f"      {label}: " + "; ".join(safe_line(p) for p in parts))
    return lines


def _created_json(created: CreatedDesign) -> dict[str, object]:
    return {
        **created.__dict__,
        "held_back": [h.model_dump(mode="json") for h in created.held_back],
        "held_back_note": created.held_back_note,
    }


def cmd_study_create(args: argparse.Namespace) -> int:
    from abp_tui.services.designing import (
        DesignChoices,
        create_design,
        create_from_choices,
        load_design_file,
    )
    from abp_tui.text.safe import safe_line

    chosen = [
        flag
        for flag, value in (
            ("--name", args.name),
            ("--rubric", args.rubric),
            ("--conditions", args.conditions),
            ("--pairs", args.pairs),
            ("--tasks", args.tasks),
            ("--reviewers", args.reviewers),
            ("--reviewers-per-item", args.reviewers_per_item),
            ("--adjudicators", args.adjudicators),
            ("--seed", args.seed),
            ("--single-items", args.single_items or None),
            ("--human-budget", args.human_budget),
            ("--allocation-floor", args.allocation_floor),
            ("--stop-when", args.stop_when),
            ("--limitation", args.limitation),
            ("--show-ai-after-submit", args.show_ai_after_submit or None),
        )
        if value is not None
    ]
    if args.files and (chosen or args.study):
        raise AbpError(
            f"study create: give design files or choices ({', '.join(chosen or ['--study'])}), "
            "not both: a file holds its own study, name and seed"
        )
    db = open_db(args)
    if args.files:
        created = [create_design(db, load_design_file(Path(p)), p) for p in args.files]
    else:
        choices = DesignChoices(
            study=args.study,
            name=args.name,
            rubric=args.rubric,
            conditions=args.conditions or "all",
            pairs=args.pairs or "all",
            tasks=args.tasks or "all",
            reviewers=args.reviewers or "",
            reviewers_per_item=args.reviewers_per_item,
            seed=args.seed,
            single_items=args.single_items,
            adjudicators=args.adjudicators or "",
            human_budget=args.human_budget,
            allocation_floor=args.allocation_floor,
            stop_when=args.stop_when,
            limitations=tuple(args.limitation or ()),
            show_ai_after_submit=args.show_ai_after_submit,
        )
        created = [create_from_choices(db, choices)]
    lines = []
    for c in created:
        lines.append(
            f"{c.status:11} design {safe_line(c.name)} v{c.version_no} of study "
            f"{safe_line(c.study)}: {c.items} items ({c.pair_items} pairs, {c.single_items} "
            f"single), {c.assignments} assignments, rubric {safe_line(c.rubric)}, seed "
            f"{c.seed}, sha256 {c.sha256[:12]}"
        )
        if c.drawn is not None and c.drawn == c.items:
            lines.append(
                f"  human budget: all {c.items} items drawn for people (expected "
                f"{c.expected_drawn:g}): the budget covers every item, so the AI judges stand "
                "in for none"
            )
        elif c.drawn is not None:
            lines.append(
                f"  human budget: {c.drawn} of {c.items} items drawn for people (expected "
                f"{c.expected_drawn:g}), the rest judged by the AI judges alone"
            )
        lines.extend(f"  warning: {safe_line(w)}" for w in c.warnings)
        if c.held_back_note:  # seed 000: record failures held from the plan
            lines.append(f"  {safe_line(c.held_back_note)}")
    emit(args, {"designs": [_created_json(c) for c in created]}, "\n".join(lines))
    return EXIT_OK


def cmd_study_list(args: argparse.Namespace) -> int:
    from abp_tui.store import judging, queue_pages
    from abp_tui.text.safe import safe_line

    db = open_db(args)
    doc = []
    lines = []
    for d in queue_pages.design_listing(db, args.study):
        n_items = d.items
        prog = judging.progress(db, d.pk)
        doc.append(
            {
                "study": d.study_id,
                "name": d.name,
                "version": d.version_no,
                "sha256": d.sha256,
                "seed": d.seed,
                "frozen_at": d.frozen_at,
                "items": n_items,
                "progress": [p.__dict__ for p in prog],
            }
        )
        frozen = f"frozen {d.frozen_at}" if d.frozen_at else "not yet judged"
        lines.append(
            f"{safe_line(d.study_id)} / {safe_line(d.name)} v{d.version_no}: "
            f"{n_items} items, seed {d.seed}, {frozen}, sha256 {d.sha256[:12]}"
        )
        lines.extend(
            f"    {safe_line(p.reviewer)}: {p.submitted}/{p.assigned} submitted, "
            f"{p.drafts} in draft"
            for p in prog
        )
    if not lines:
        lines.append(
            "No study designs yet. Create one with: "
            f"{command('study create --study STUDY', db_path(args))} (or FILE)"
        )
    emit(args, {"designs": doc}, "\n".join(lines))
    return EXIT_OK


def cmd_unblind(args: argparse.Namespace) -> int:
    from abp_tui.services.designing import find_study
    from abp_tui.services.results_report import unblind
    from abp_tui.store.queries import study_protocol

    db = open_db(args)
    study = find_study(db, args.study)
    if study_protocol(db, study) is None:
        raise AbpError(no_such_study(study, db))
    if not args.yes:
        raise AbpError(
            f"unblinding shows the results of study {study!r} by condition and cannot be undone; "
            "it is recorded in the audit log. Confirm with: "
            + command(f"unblind --study {quoted(study)} --yes", db_path(args))
        )
    from abp_tui.store.pending_items import still_judging
    from abp_tui.store.queries import unblinded
    from abp_tui.text.safe import safe_line

    # Said when it happens, as the workstation's dialog says it before.
    before = unblinded(db, study)
    judging = [] if before is not None else still_judging(db, study)
    who, when = unblind(db, study, actor(args))
    if judging:
        left = ", ".join(f"{safe_line(name)} {n}" for name, n in judging)
        sys.stderr.write(
            f"abp-tui: note: unblinded while reviewers are still judging (items left: {left}); "
            "the results stay hidden from each of them until they have submitted every item\n"
        )
    already = "was already unblinded" if before is not None else "unblinded"
    emit(
        args,
        {"study": study, "unblinded_by": who, "unblinded_at": when},
        f"study {study} {already} by {who} at {when}",
    )
    return EXIT_OK
