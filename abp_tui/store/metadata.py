"""What every table, view and column of the database means, for people browsing it.

``abp-tui schema`` writes these descriptions as a Datasette ``metadata.json``; a test checks that
every table, view and column of a new database is described here, so the two cannot drift.
Columns named ``score_<dimension>`` in ``latest_judgments`` follow the stored rubrics and are
described by pattern.
"""

from __future__ import annotations

from typing import Any, Final

_KEY = "Row key (an integer the database assigns)."
_STUDY = "The study's id."
_CREATED = "When the row was written (UTC, RFC 3339)."
_SHA = "SHA-256 of the record's canonical JSON (content address)."
_VERSION_NO = "Version number: a changed record under the same id becomes a new version."
_CURRENT = "1 for the version in use, 0 for an older one kept for what was judged on it."
_PLACEHOLDER = "1 when no record was imported yet: a run named this id and nothing more."
_METADATA = "Everything the source record carries beyond the common fields (JSON)."
_TOKENS = {
    "input_tokens": "Input tokens (seed 003's normalisation); empty when not reported.",
    "output_tokens": "Output tokens; empty when not reported.",
    "cache_read_tokens": "Tokens read from a prompt cache; empty when not reported.",
    "cache_write_tokens": "Tokens written to a prompt cache; empty when not reported.",
}

TABLES: Final[dict[str, tuple[str, dict[str, str]]]] = {
    "_migrations": (
        "Schema migrations applied to this file, in order.",
        {"name": "Migration name.", "applied_at": "When it was applied (UTC)."},
    ),
    "studies": (
        "Studies: one comparison of conditions on a set of tasks, as imported.",
        {
            "id": "Study id.",
            "name": "Study name.",
            "protocol": "The protocol the study follows (AFP, ABP, business, sci-bench...).",
            "description": "What the study is about.",
            "rubric_id": "The rubric the study's source names, if any.",
            "limitations": "Limitations the study's authors declared (JSON list).",
            "synthetic": "1 when no real model produced the runs (demo or fixture data).",
            "created_at": _CREATED,
        },
    ),
    "rubrics": (
        "Rubrics: dimensions with their 0-2 anchors, fatal criteria and the acceptance rule.",
        {
            "pk": _KEY,
            "id": "Rubric id.",
            "version": "Rubric version as its source states it.",
            "sha256": _SHA,
            "document": "The rubric (JSON).",
            "source": "Where it came from: built-in or the imported file.",
        },
    ),
    "imports": (
        "Every file imported, with its hash, so importing it again adds nothing.",
        {
            "pk": _KEY,
            "file_name": "The file as named on import.",
            "sha256": "SHA-256 of the file's bytes.",
            "size": "File size in bytes.",
            "format": "The detected or given format (abp-tui formats).",
            "study_id": _STUDY,
            "imported_at": "When it was imported (UTC).",
            "counts": "What the import added, by kind (JSON).",
        },
    ),
    "conditions": (
        "Conditions compared in a study (treatments, engines, models, prompts), versioned.",
        {
            "pk": _KEY,
            "study_id": _STUDY,
            "id": "Condition id.",
            "version_no": _VERSION_NO,
            "current": _CURRENT,
            "placeholder": _PLACEHOLDER,
            "sha256": _SHA,
            "label": "Human-readable label.",
            "instructions": "The condition's actual instructions (seed 000 asks for them).",
            "version": "Version as the source states it.",
            "metadata": _METADATA,
            "created_at": _CREATED,
        },
    ),
    "tasks": (
        "Tasks (fixtures, cases, questions): the same prompt every condition faced, versioned.",
        {
            "pk": _KEY,
            "study_id": _STUDY,
            "id": "Task id.",
            "version_no": _VERSION_NO,
            "current": _CURRENT,
            "placeholder": _PLACEHOLDER,
            "sha256": _SHA,
            "title": "Short title.",
            "prompt": "The full task text.",
            "base_instruction": "Instruction shared by every condition.",
            "evidence": "Evidence given with the task.",
            "expected_behaviour": "What a correct response does.",
            "fatal_criteria": "The task's own fatal criteria (JSON list).",
            "risk_type": "The kind of risk the task probes.",
            "version": "Version as the source states it.",
            "synthetic": "1 for fixture or demo material.",
            "metadata": _METADATA,
            "created_at": _CREATED,
        },
    ),
    "blobs": (
        "Texts stored once by their SHA-256 (outputs).",
        {"sha256": "SHA-256 of the text's UTF-8 bytes.", "text": "The text, exactly as imported."},
    ),
    "traces": (
        "Traces: the events of one run, hashed as a whole.",
        {"pk": _KEY, "sha256": "SHA-256 of the trace's events.", "n_events": "Event count."},
    ),
    "trace_events": (
        "Trace events (model calls, tool calls...), in order within their trace.",
        {
            "trace_pk": "The trace (traces.pk).",
            "seq": "Position in the trace, strictly increasing.",
            "t": "When the event happened (RFC 3339 UTC), if the source says.",
            "kind": "Event kind, e.g. model.call or tool.call.",
            "tool": "The tool called, for tool events.",
            **_TOKENS,
            "duration_ms": "Duration in milliseconds, if reported.",
            "raw": "The event exactly as the source wrote it (JSON).",
        },
    ),
    "runs": (
        "Runs: what a condition produced for a task in one trial, versioned. The source of "
        "truth; the view current_runs joins it with tasks, conditions and output texts.",
        {
            "pk": _KEY,
            "study_id": _STUDY,
            "id": "Run id.",
            "version_no": _VERSION_NO,
            "current": _CURRENT,
            "placeholder": _PLACEHOLDER,
            "sha256": _SHA,
            "task_pk": "The task version (tasks.pk).",
            "condition_pk": "The condition version (conditions.pk).",
            "trial": "Trial (repeat) number.",
            "output_sha256": "The output text (blobs.sha256); empty when the record had none.",
            "trace_pk": "The run's trace (traces.pk), if any.",
            "provider": "Model provider, if exposed.",
            "model": "Model, if exposed.",
            "model_version": "Model version, if exposed.",
            "engine": "Agent engine, if any.",
            "engine_version": "Engine version.",
            "reasoning": "Reasoning setting, if exposed.",
            **_TOKENS,
            "total_tokens": "Total tokens; empty when not reported.",
            "tool_calls": "Tool calls made.",
            "wall_clock_ms": "Wall clock time in milliseconds.",
            "cost_usd": "Cost in US dollars, as computed by the source.",
            "started_at": "When the run started.",
            "origin_status": "A result state the source itself assigned (e.g. INFRA_ERROR).",
            "automated_outcome": "The automated verification outcome (passed, failed...).",
            "excluded_reason": "Why the source excluded the run, if it did.",
            "source_file": "The file the run was imported from.",
            "source_line": "Its line in that file, for line-based formats.",
            "synthetic": "1 for demo or fixture data.",
            "not_exposed": "Fields the source does not expose at all (JSON list).",
            "document": "The whole run record (JSON).",
            "import_pk": "The import that stored this version (imports.pk).",
            "created_at": _CREATED,
        },
    ),
    "reference_verdicts": (
        "Verdicts imported as a reference (e.g. an abp-verdict/v1 file).",
        {
            "pk": _KEY,
            "study_id": _STUDY,
            "id": "Verdict id.",
            "sha256": _SHA,
            "schema_name": "The verdict's schema, e.g. abp-verdict/v1.",
            "document": "The verdict (JSON).",
        },
    ),
    "reviewers": (
        "Everyone who judged: reviewers of designs and external annotators of imported labels.",
        {
            "name": "Reviewer name.",
            "external": "1 for an annotator whose labels came with the imported study.",
        },
    ),
    "preferences": (
        "Preference labels imported with a study (PandaLM annotators, LLMBar's gold label...).",
        {
            "pk": _KEY,
            "study_id": _STUDY,
            "reviewer": "Who gave the label.",
            "item_id": "The source's item id.",
            "task_pk": "The task (tasks.pk).",
            "run_1_pk": "The first response's run (runs.pk).",
            "run_2_pk": "The second response's run (runs.pk).",
            "choice": "Which response the label prefers, or tie.",
            "justification": "The label's justification, if any.",
            "source": "The imported file.",
            "created_at": _CREATED,
        },
    ),
    "audit_log": (
        "What happened, who did it and when (unblinding, packs, merges, exports...).",
        {
            "pk": _KEY,
            "at": "When (UTC).",
            "actor": "Who.",
            "action": "What, e.g. unblind.",
            "detail": "Details (JSON).",
        },
    ),
    "designs": (
        "Study designs: what to judge, how pairs are formed, who judges, the seed; versioned.",
        {
            "pk": _KEY,
            "study_id": _STUDY,
            "name": "Design name.",
            "version_no": "Version: a changed design under the same name becomes a new one.",
            "sha256": "The design hash (design, rubric and the exact run versions planned).",
            "document": "The design (JSON).",
            "rubric": "The rubric it judges with (JSON).",
            "seed": "Seeds blind codes, assignment, placement and order.",
            "created_at": _CREATED,
            "frozen_at": "When its first judgment was saved; a frozen design never changes.",
        },
    ),
    "items": (
        "Items of a design's plan: a pair of runs of one task and trial, or a single run.",
        {
            "pk": _KEY,
            "design_pk": "The design (designs.pk).",
            "key": "The item's key in the plan.",
            "code": "Blind code shown to reviewers (P- for pairs, S- for single runs).",
            "kind": "pair or single.",
            "task_pk": "The task (tasks.pk).",
            "trial": "Trial number.",
            "run_a_pk": "The item's first run in its own orientation (runs.pk).",
            "run_b_pk": "Its second run (runs.pk); empty for a single item.",
            "base_flip": "1 when the plan shows run b first by default.",
            "masking": "Identity terms masked in this item's texts (JSON).",
        },
    ),
    "enrolments": (
        "Reviewers who joined a design without being named in it.",
        {
            "design_pk": "The design (designs.pk).",
            "reviewer": "Reviewer name.",
            "slot": "Their slot in the assignment.",
            "enrolled_at": "When (UTC).",
        },
    ),
    "assignments": (
        "Which reviewer judges which item, in which order and placement.",
        {
            "item_pk": "The item (items.pk).",
            "reviewer": "Reviewer name.",
            "slot": "Which of the item's reviewers this is.",
            "order_index": "Position in the reviewer's queue.",
            "flipped": "1 when this reviewer sees the item's runs in reverse order.",
        },
    ),
    "judgments": (
        "Every judgment revision, drafts included; append-only (triggers refuse changes). The "
        "view latest_judgments shows each reviewer's latest submitted one with scores as "
        "columns.",
        {
            "pk": _KEY,
            "item_pk": "The item (items.pk).",
            "reviewer": "Reviewer name.",
            "revision": "Revision number, from 1.",
            "status": "draft or submitted.",
            "payload": "The judgment (JSON): per run key its scores, rationales, fatal hits and "
            "override; the preference, justification and validity checks.",
            "placement": "Position shown (1, 2) -> run key (JSON).",
            "reason": "Why a submitted judgment was changed.",
            "seconds_spent": "Time spent on the item.",
            "created_at": _CREATED,
        },
    ),
    "findings": (
        "Findings (seed 002 section 6), every revision.",
        {
            "pk": _KEY,
            "study_id": _STUDY,
            "id": "Finding id.",
            "revision": "Revision number.",
            "reviewer": "Who recorded it.",
            "document": "The finding (JSON).",
            "created_at": _CREATED,
        },
    ),
    "finding_runs": (
        "The runs a finding concerns.",
        {"finding_pk": "The finding (findings.pk).", "run_pk": "A run (runs.pk)."},
    ),
    "positions": (
        "Where each reviewer stands in a design's queue (resumes there).",
        {
            "reviewer": "Reviewer name.",
            "design_pk": "The design (designs.pk).",
            "item_pk": "The item open last (items.pk).",
            "updated_at": "When (UTC).",
        },
    ),
    "packs": (
        "Study packs issued to offline reviewer stations.",
        {
            "sha256": "SHA-256 of the pack.",
            "design_pk": "The design (designs.pk).",
            "reviewer": "The pack's reviewer.",
            "items": "Items in the pack.",
            "created_at": _CREATED,
        },
    ),
    "coordinator_views": (
        "Who has seen a study's coordinator-level figures while able to enrol in one of its "
        "open designs; their enrolment is refused (append-only).",
        {
            "pk": _KEY,
            "study_id": "The study (studies.id).",
            "design_pk": "The design whose figures were seen (designs.pk); empty for the study.",
            "viewer": "Who looked.",
            "figure": "agreement, disagreements, adjudication, results or judges.",
            "viewed_at": "First look (UTC).",
        },
    ),
    "import_sessions": (
        "Imports in progress: a row left by one that never finished lets the next import "
        "delete what it staged.",
        {
            "pk": _KEY,
            "host": "The machine the import ran on.",
            "pid": "Its process id.",
            "started_at": "When it began (UTC).",
        },
    ),
    "team_members": (
        "The team of a shared server: who may open a session over SSH, with which key and role.",
        {
            "name": "The member's name (the reviewer name their key opens the workstation as).",
            "role": "reviewer, adjudicator or coordinator.",
            "public_key": "Their OpenSSH public key (type and base64).",
            "fingerprint": "The key's SHA256 fingerprint, as ssh-keygen -l prints it.",
            "added_by": "Who added them (the account running team add).",
            "added_at": "When (UTC).",
        },
    ),
    "team_audit": (
        "Every change to the team (append-only).",
        {
            "pk": _KEY,
            "at": "When (UTC).",
            "actor": "Who changed it.",
            "action": "add, role (a changed role) or remove.",
            "name": "The member.",
            "role": "Their role after the change; empty for a removal.",
            "fingerprint": "Their key's SHA256 fingerprint.",
            "authorized_keys": "The authorized_keys file written.",
        },
    ),
    "allocation_draws": (
        "Active allocation: for a design with a human budget, each item's uncertainty when the "
        "plan was stored, its probability of going to people and whether the seeded draw sent it.",
        {
            "design_pk": "The design (designs.pk).",
            "item_pk": "The item (items.pk).",
            "uncertainty": "How far the AI judges distrusted the item (0: not at all).",
            "probability": "Its chance of going to people (never below the design's floor).",
            "drawn": "1 when the draw sent it to people (only these are assigned).",
            "draw_seed": "The seed of the draw (from the design's seed and plan secret).",
        },
    ),
    "queue_summaries": (
        "Each reviewer's items of a design, by the status of their latest revision: kept in "
        "step with assignments and judgments by triggers, so counts never read every item.",
        {
            "design_pk": "The design (designs.pk).",
            "reviewer": "The reviewer.",
            "assigned": "Items in their queue.",
            "submitted": "Items whose latest revision is submitted.",
            "drafts": "Items whose latest revision is a draft.",
        },
    ),
    "design_masking": (
        "The well-known names (Google, GPT...) a design's identity masking may leave where "
        "they reveal nobody: none of them names the study's own conditions, models or makers.",
        {
            "design_pk": "The design (designs.pk).",
            "loose": "Those names (JSON list); a design made before has no row: none.",
        },
    ),
    "task_order": (
        "Each study's current tasks in natural order (T2 before T10), ranked after an import: "
        "the home screen lists them a page at a time from here.",
        {
            "study_id": _STUDY,
            "rank": "The task's place in natural order (0 first).",
            "task_pk": "The task (tasks.pk).",
        },
    ),
    "task_order_stamps": (
        "What task_order was ranked from, to tell when it is out of date.",
        {
            "study_id": _STUDY,
            "tasks": "Current tasks of the study when they were ranked.",
            "last_pk": "The newest task key of the study when they were ranked.",
        },
    ),
    "merges": (
        "Ratings files merged back from stations.",
        {
            "sha256": "SHA-256 of the ratings file.",
            "pack_sha256": "The pack it answers (packs.sha256).",
            "reviewer": "The station's reviewer.",
            "judgments": "Judgments merged.",
            "merged_at": "When (UTC).",
        },
    ),
    "plan_secrets": (
        "Each design's plan secret (coordinator only): its blind codes, placement and order are "
        "derived from it; revealed by the results bundle after unblinding.",
        {
            "design_pk": "The design (designs.pk).",
            "secret": "The secret (64 hex digits; the demo designs' is published).",
            "sha256": "Its commitment: SHA-256 of the secret, recorded in the design document.",
            "created_at": _CREATED,
        },
    ),
    "reviewer_keys": (
        "The key each reviewer's pack signs its ratings with (HMAC-SHA256); a station holds its "
        "own pack's.",
        {
            "design_pk": "The design (designs.pk).",
            "reviewer": "The pack's reviewer.",
            "key": "The key (64 hex digits).",
            "created_at": _CREATED,
        },
    ),
    "adjudications": (
        "Final judgments of disputed items, every revision; append-only, with a note.",
        {
            "pk": _KEY,
            "item_pk": "The item (items.pk).",
            "adjudicator": "Who adjudicated.",
            "revision": "Revision number.",
            "payload": "The final judgment (JSON), as in judgments.payload.",
            "placement": "Position shown (1, 2) -> run key (JSON).",
            "note": "Why (required).",
            "show_names": "1 when the adjudicator chose to see the reviewers' names.",
            "created_at": _CREATED,
        },
    ),
    "automated_scores": (
        "The automated judge's outcome of a run version, dimension by dimension (the sci-bench "
        "oracle scorer); append-only. Shown to a reviewer only after they submit their own.",
        {
            "pk": _KEY,
            "study_id": _STUDY,
            "run_pk": "The run version scored (runs.pk).",
            "scorer": "The scorer and its version (sci-bench-oracle/1).",
            "spec_sha256": "SHA-256 of the specification file holding the oracles.",
            "submission_sha256": "SHA-256 of the structured submission file scored.",
            "outcome": "passed, or failed (a scored dimension failed or the schema is invalid).",
            "dimensions": "Each dimension's outcome (pass, fail, unscored) with its reason (JSON).",
            "document": "The case's score, the submission's schema errors and the provenance "
            "rule (JSON).",
            "created_at": _CREATED,
        },
    ),
    "judges": (
        "AI judges (kind ai): a model with its prompt or template and version. Never a "
        "reviewer: a judge's verdicts are in judge_verdicts, not in judgments or agreement.",
        {
            "pk": _KEY,
            "id": "How the judge's verdicts name it (gpt-4/pair-v2, GPT-4-Vanilla...).",
            "kind": "ai: the only kind of judge whose verdicts are imported.",
            "model": "The judging model, as the source names it.",
            "prompt": "The prompt or template name the judge was run with.",
            "version": "The judge's version, when its source states one.",
            "source": "What produced the verdicts (fastchat, llmbar, inspect, native).",
            "sha256": _SHA,
            "document": "The judge as imported (JSON).",
            "created_at": _CREATED,
        },
    ),
    "judge_verdicts": (
        "Every AI judge verdict: on a pair of runs in one presentation order, or on one run "
        "(a score, pass or fail); append-only. Never shown to a blind reviewer before they "
        "submit their own judgment.",
        {
            "pk": _KEY,
            "study_id": _STUDY,
            "judge_pk": "The judge (judges.pk).",
            "task_pk": "The task version judged (tasks.pk).",
            "run_a_pk": "The run judged, or the pair's run a in its own orientation (runs.pk).",
            "run_b_pk": "The pair's run b (runs.pk); empty for a verdict on one run.",
            "shown_first_pk": "The run shown to the judge first (runs.pk); empty for one run.",
            "turn": "The conversation turn judged (MT-Bench), when the verdict is on one turn.",
            "kind": "preference (a pair), score or pass_fail (one run).",
            "verdict": "preference: the winning run's id or tie; pass_fail: pass, fail, partial.",
            "score": "score: the number the judge gave.",
            "error": "Why the judge gave no verdict, as its source says; empty otherwise.",
            "explanation_sha256": "The judge's explanation text (blobs.sha256).",
            "document": "The verdict as imported (JSON).",
            "sha256": _SHA,
            "import_pk": "The import that brought the verdict (imports.pk).",
            "created_at": _CREATED,
        },
    ),
    "final_verdicts": (
        "The final verdict of every judged run of every design, with its source (adjudicated, "
        "unanimous, single review, unresolved). A snapshot: abp-tui schema rewrites it; "
        "computed_at says when.",
        {
            "design_pk": "The design (designs.pk).",
            "study_id": _STUDY,
            "design": "Design name.",
            "design_version": "Design version.",
            "run_id": "Run id.",
            "task_id": "Task id.",
            "condition_id": "Condition id.",
            "trial": "Trial number.",
            "source": "adjudicated, unanimous, single review or unresolved.",
            "result_state": "One of the six result states; empty while unresolved.",
            "scores": "Component scores (JSON): the deciding judgment's, the median of several.",
            "fatal_hits": "Fatal criteria hit (JSON list).",
            "judgments": "Reviewer judgments behind the verdict.",
            "items": "Blind codes of the items the run was judged in (JSON list).",
            "computed_at": "When this snapshot was taken (UTC).",
        },
    ),
    "final_preferences": (
        "The final preference of every judged pair of every design, with its source "
        "(adjudicated, unanimous, single review, unresolved): what results and rankings count, "
        "once per pair. A snapshot: abp-tui schema rewrites it; computed_at says when.",
        {
            "design_pk": "The design (designs.pk).",
            "study_id": _STUDY,
            "design": "Design name.",
            "design_version": "Design version.",
            "item": "The pair's blind code.",
            "task_id": "Task id.",
            "run_a_id": "The pair's first run (its own orientation, not as shown).",
            "condition_a_id": "The first run's condition.",
            "run_b_id": "The pair's second run.",
            "condition_b_id": "The second run's condition.",
            "source": "adjudicated, unanimous, single review or unresolved.",
            "preferred": "The run preferred, tie or insufficient_evidence; empty while unresolved.",
            "preferred_condition_id": "The preferred run's condition.",
            "judgments": "Reviewers' preferences of the pair (for agreement; counted once).",
            "reviews": "Each reviewer's pick in run terms and where the picked run was shown "
            "(JSON list).",
            "adjudicator": "Who settled the pair, when adjudicated.",
            "computed_at": "When this snapshot was taken (UTC).",
        },
    ),
}
"""Table -> (description, column -> description)."""

VIEWS: Final[dict[str, tuple[str, dict[str, str]]]] = {
    "current_runs": (
        "The current version of every run, with its task, condition label and output text.",
        {
            "study_id": _STUDY,
            "run_id": "Run id.",
            "task_id": "Task id.",
            "task_title": "Task title.",
            "condition_id": "Condition id.",
            "condition_label": "Condition label.",
            "trial": "Trial number.",
            "provider": "Model provider, if exposed.",
            "model": "Model, if exposed.",
            "model_version": "Model version, if exposed.",
            "engine": "Agent engine, if any.",
            "engine_version": "Engine version.",
            "origin_status": "A result state the source assigned.",
            "automated_outcome": "The automated verification outcome.",
            "excluded_reason": "Why the source excluded the run.",
            "input_tokens": _TOKENS["input_tokens"],
            "output_tokens": _TOKENS["output_tokens"],
            "total_tokens": "Total tokens.",
            "tool_calls": "Tool calls made.",
            "wall_clock_ms": "Wall clock time in milliseconds.",
            "cost_usd": "Cost in US dollars.",
            "started_at": "When the run started.",
            "output_chars": "Length of the output in characters.",
            "output": "The output text, exactly as imported.",
            "trace_events": "Events in the run's trace.",
            "run_version": "The run's version number.",
            "synthetic": "1 for demo or fixture data.",
            "source_file": "The file it was imported from.",
            "imported_at": "When this version was imported.",
        },
    ),
    "latest_judgments": (
        "Each reviewer's latest submitted judgment, one row per judged run (a preference "
        "alone: one per run of its pair), with the rubric's scores as columns "
        "(score_<dimension>).",
        {
            "study_id": _STUDY,
            "design": "Design name.",
            "design_version": "Design version.",
            "item": "The item's blind code.",
            "reviewer": "Reviewer name.",
            "revision": "The judgment's revision.",
            "submitted_at": "When it was submitted.",
            "seconds_spent": "Time spent on the item.",
            "run_id": "The judged run.",
            "task_id": "Task id.",
            "condition_id": "The run's condition.",
            "trial": "Trial number.",
            "shown_as": "Where the reviewer saw this run: Response 1 or 2.",
            "state_override": "INVALID_TEST, GRADER_DISPUTE or a confirmed PROVIDER_BLOCK / "
            "INFRA_ERROR, if set.",
            "fatal_hits": "Fatal criteria the run hits (JSON list).",
            "total_score": "Sum of the run's dimension scores.",
            "preference": "The item's preference as shown: response_1, response_2, tie or "
            "insufficient_evidence.",
            "preferred_run_id": "The run the preference names; empty for a tie or none.",
            "preferred_condition_id": "The preferred run's condition.",
            "justification": "The preference's justification.",
            "revision_reason": "Why a submitted judgment was changed.",
        },
    ),
}
"""View -> (description, column -> description)."""

SCORE_PREFIX: Final = "score_"


def column_description(table: str, column: str) -> str | None:
    """The description of a column, or None when it is not described."""
    described = {**TABLES, **VIEWS}.get(table)
    if described is None:
        return None
    if table == "latest_judgments" and column.startswith(SCORE_PREFIX):
        return (
            f"Score on the rubric dimension {column[len(SCORE_PREFIX) :]!r}, on its rubric's scale."
        )
    return described[1].get(column)


def datasette_metadata(
    database: str, columns: dict[str, list[str]], title: str = "abp-tui study database"
) -> dict[str, Any]:
    """A Datasette ``metadata.json`` for the database named ``database`` (its file stem), whose
    tables and views have ``columns`` (name -> column names, as read from the file)."""
    tables: dict[str, Any] = {}
    for name, cols in sorted(columns.items()):
        described = {**TABLES, **VIEWS}.get(name)
        if described is None:
            continue
        entry: dict[str, Any] = {
            "description": described[0],
            "columns": {c: column_description(name, c) or "" for c in cols},
        }
        if name == "_migrations":
            entry["hidden"] = True
        tables[name] = entry
    return {
        "title": title,
        "description": "Runs, blind judgments, adjudications and verdicts of benchmark studies, "
        "as stored by abp-tui. Start with current_runs, latest_judgments, final_verdicts and "
        "final_preferences.",
        "databases": {database: {"tables": tables}},
    }
