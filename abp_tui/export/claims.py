"""What a bundle claims beyond its hashes, re-derived or bound by a hash ``verify`` recomputes.

A forger who edits a file of a bundle and lists its new hash in ``manifest.json`` passes every
hash check; what stops them is a fact that the edited file must still agree with. Here:

- **The design hash.** The store hashes a design as SHA-256 of the canonical JSON of its stored
  document, its rubric and the plan's HMAC under the plan secret
  (:func:`abp_tui.analysis.blinding.design_hash`); the design hash is what a pre-registration
  publishes, what every pack carries and what the results state. A bundle publishes the
  plan's HMAC (``plan_hmac`` in ``protocol/design.json``), so the hash is recomputed from the
  bundle's own document (contrasts, acceptance rule, masked terms, limitations...) and rubric:
  an edit to either no longer gives the hash the bundle records. A bundle made before
  ``plan_hmac`` was published is reported as an older format, never as changed; a design stored
  before plan secrets hashed its plan with database keys, and its hash is said not recomputed.
  A study's automated scope is hashed from its document, rubric and runs' facts: recomputed.
- **What the design adds to the study and conditions**: its description and limitations are in
  ``protocol/study.json``, its instructions in ``protocol/conditions.json``.
- **The models**: each run's model is the one the results state its condition ran on (the run
  configuration's, for engines).
- **What the design planned and when** (a design stored since designs carry a ``commitment``,
  :mod:`abp_tui.analysis.commitment`): its ``created_at``, each task and condition its items use
  and its planned runs' facts, records and outputs are the ones the design hash commits to.
  Older designs' hashes bind none of these, and ``verify`` says so.
- **The design's times**: stored after its runs were made, frozen after it was stored and no
  later than its first judgment (frozen_at comes after the hash and is bound only by these).
- **The files**: every file the manifest lists is one an export writes.

Each check raises :class:`BundleMismatch` naming the file and what differs.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Iterator, Mapping
from datetime import datetime
from typing import Any, Final

from abp_tui.analysis.automated import AUTOMATED_DESIGN, automated_hash
from abp_tui.analysis.blinding import design_hash
from abp_tui.analysis.commitment import (
    COMMITMENT_KEY,
    COMMITMENT_VERSION,
    hashed_runs_sha256,
    record_sha256,
    run_record,
)
from abp_tui.analysis.judgment_checks import CLOCK_SKEW
from abp_tui.analysis.matched_models import ENGINE_PROTOCOLS
from abp_tui.export import records as rec
from abp_tui.export.bundle_analysis import Inputs, _json, record_hashes
from abp_tui.export.errors import BundleMismatch
from abp_tui.export.judges import JUDGES, VERDICTS
from abp_tui.export.ranking import SOURCES, VOTES
from abp_tui.models import Condition, RunFacts, Study, StudyDesign
from abp_tui.text.safe import safe_line

OPTIONAL_SOURCES: Final = (JUDGES, VERDICTS, VOTES, SOURCES, rec.ALLOCATION)
"""Source files a bundle has only when it has AI judges' verdicts or votes to rank, or a
design with a human budget (its draws)."""


def check_design_hash(
    files: Mapping[str, bytes],
    design: rec.PublishedDesign,
    tool: object = None,
    inputs: Inputs | None = None,
) -> bool:
    """Recompute the design hash from ``protocol/design.json``'s document and ``plan_hmac`` and
    ``protocol/rubric.json`` (for a study's automated scope, from its document, rubric and
    runs: ``inputs``); True when it was recomputed and matches the hash the design records,
    False for a design stored before plan secrets (no bundle can recompute its hash).
    ``tool``: the abp-tui version the manifest names (for an older bundle's message)."""
    if design.plan_hmac is None:
        if design.document.get("plan_secret_sha256") is None and design.plan_secret is None:
            return _automated(files, design, inputs)
        raise BundleMismatch(
            rec.DESIGN,
            "plan_hmac: missing: an older bundle format"
            + (f" (abp-tui {safe_line(str(tool))[:40]})" if tool else "")
            + ", made before bundles published the plan's part of the design hash: verify "
            "cannot recompute the hash (which is no sign that anything changed); export the "
            "bundle again to verify it",
        )
    found = design_hash(design.document, _rubric(files), design.plan_hmac)
    if found != design.sha256:
        raise BundleMismatch(
            rec.DESIGN,
            f"sha256: the design hash recomputed from its document, {rec.RUBRIC} and plan_hmac "
            f"is {found}, not the {design.sha256} the design records: the design document or "
            "its rubric was changed after the design was stored",
        )
    return True


def _automated(
    files: Mapping[str, bytes], design: rec.PublishedDesign, inputs: Inputs | None
) -> bool:
    """Check the hash of a study's automated scope (no items, never frozen), recomputed from
    its document, rubric and runs' facts; False for anything else without a plan secret."""
    if (
        inputs is None
        or design.name != AUTOMATED_DESIGN
        or inputs.items
        or design.frozen_at is not None
    ):
        return False
    fields = set(RunFacts.model_fields)
    runs = [
        RunFacts.model_validate(r.model_dump(include=fields)).model_dump(mode="json")
        for r in inputs.runs
    ]
    found = automated_hash(design.document, _rubric(files), runs)
    if found != design.sha256:
        raise BundleMismatch(
            rec.DESIGN,
            f"sha256: the hash of the automated scope recomputed from its document, "
            f"{rec.RUBRIC} and {rec.RUNS} is {found}, not the {design.sha256} it records: a "
            "run's facts, the document or the rubric was changed",
        )
    return True


def check_commitment(
    files: Mapping[str, bytes], design: rec.PublishedDesign, inputs: Inputs | None = None
) -> bool:
    """The records and time the design hash commits to (:mod:`abp_tui.analysis.commitment`)
    are the bundle's: ``created_at``, each planned task and condition (``protocol/``) and, with
    ``inputs`` (a full bundle), the planned runs. Call it once the design hash is recomputed
    (which binds the commitment itself). False for a design stored before commitments."""
    found = design.document.get(COMMITMENT_KEY)
    if found is None:
        return False
    if not isinstance(found, dict) or not isinstance(found.get("created_at"), str):
        raise BundleMismatch(rec.DESIGN, "document.commitment: expected an object with created_at")
    if found.get("version") != COMMITMENT_VERSION:
        raise BundleMismatch(
            rec.DESIGN,
            f"document.commitment.version: {safe_line(json.dumps(found.get('version')))[:20]}, "
            f"this abp-tui checks version {COMMITMENT_VERSION}: verify the bundle with the "
            "abp-tui that made it",
        )
    if design.created_at != found["created_at"]:
        raise BundleMismatch(
            rec.DESIGN,
            f"created_at {safe_line(design.created_at)[:40]} is not the "
            f"{safe_line(found['created_at'])[:40]} the design hash commits to: the design's "
            "time was changed",
        )
    for path, kind in ((rec.TASKS, "tasks"), (rec.CONDITIONS, "conditions")):
        # A full bundle's tasks were hashed when parsed (a large study's are not read twice).
        known = inputs.task_sha256 if inputs is not None and kind == "tasks" else None
        _check_records(files, path, kind, found.get(kind), known)
    if inputs is not None:
        planned = {r for item in inputs.items for r in item.runs}
        digest = hashed_runs_sha256(_planned_hashes(inputs, planned))
        if digest != found.get("runs_sha256"):
            raise BundleMismatch(
                rec.RUNS,
                f"the runs the design plans hash to {digest}, not the "
                f"{safe_line(str(found.get('runs_sha256')))[:64]} the design hash commits to: a "
                "planned run's facts, record (model, tokens, metadata...) or output was changed",
            )
    return True


def _planned_hashes(inputs: Inputs, planned: set[str]) -> Iterator[tuple[str, str]]:
    """Each planned run's id and commitment hash: the one made as its line was read
    (:attr:`Inputs.run_digests`), else made here from the run held, in turn."""
    digests = inputs.run_digests
    if len(digests) == 32 * len(inputs.runs):
        for at, r in enumerate(inputs.runs):
            if r.id in planned:
                yield r.id, digests[32 * at : 32 * at + 32].hex()
        return
    for r in inputs.runs:
        if r.id in planned:
            output = r.located().get("output")
            made = run_record(
                {
                    **r.model_dump(mode="json", exclude={"output", "trace", "diff"}),
                    "record": r.record,
                },
                None if output is None else output["sha256"],
            )
            yield r.id, record_sha256(made)


def committed_checked(inputs: Inputs) -> Inputs:
    """``inputs`` once :func:`check_commitment` passed on them: the design's document without
    the content hash of every task its commitment lists, and no task hashes of the bundle's own
    (nothing after the check reads either; a large study's design lists a hash for each of its
    tens of thousands of tasks, twice held), nor each run's commitment hash. The design's name,
    version, seed and hash, which the results and the report state, are the design's."""
    found = inputs.design.document.get(COMMITMENT_KEY)
    if not isinstance(found, dict) or not found.get("tasks"):
        return dataclasses.replace(inputs, task_sha256={}, run_digests=b"")
    document = {**inputs.design.document, COMMITMENT_KEY: {**found, "tasks": {}}}
    design = inputs.design.model_copy(update={"document": document})
    return dataclasses.replace(inputs, design=design, task_sha256={}, run_digests=b"")


def _check_records(
    files: Mapping[str, bytes],
    path: str,
    kind: str,
    committed: object,
    known: Mapping[Any, str] | None = None,
) -> None:
    """Each record the design committed to (id -> content hash) is in ``path``, unchanged;
    ``known``: the content hash of each record of ``path`` by id, computed when it was read."""
    if not isinstance(committed, dict):
        raise BundleMismatch(rec.DESIGN, f"document.commitment.{kind}: expected an object")
    if known is None:
        raw = _json(files, path)
        records = raw if isinstance(raw, list) else []
        known = record_hashes(records)
    noun = kind.rstrip("s")
    for key, want in sorted(committed.items()):
        digest = known.get(key)
        if digest is None:
            raise BundleMismatch(
                path, f"{noun} {safe_line(key)!r}, which the design plans, is missing"
            )
        if digest != want:
            raise BundleMismatch(
                path,
                f"{noun} {safe_line(key)!r}: its content hash is {digest}, not the "
                f"{safe_line(str(want))[:64]} the design hash commits to: the {noun} (its "
                "text, label, instructions or metadata) was changed after the design was stored",
            )


def _rubric(files: Mapping[str, bytes]) -> dict[str, object]:
    rubric = _json(files, rec.RUBRIC)
    if not isinstance(rubric, dict):
        raise BundleMismatch(rec.RUBRIC, "expected a JSON object (the design's rubric)")
    return rubric


def check_framing(study: Study, scope: StudyDesign, conditions: Iterable[Condition]) -> None:
    """The study and conditions carry what the design adds to them (the design's description,
    limitations and instructions), as an export frames them."""
    description = scope.description.strip()
    if description and not study.description.strip().endswith(description):
        raise BundleMismatch(
            rec.STUDY, "description: it does not end with the design's description"
        )
    for number, text in enumerate(scope.limitations, start=1):
        if text not in study.limitations:
            raise BundleMismatch(
                rec.STUDY,
                f"limitations: the design's limitation {number} "
                f"({safe_line(text)[:60]!r}) is missing",
            )
    for condition in conditions:
        given = scope.instructions.get(condition.id)
        if given is not None and condition.instructions.strip() != given.strip():
            raise BundleMismatch(
                rec.CONDITIONS,
                f"{condition.id}: instructions differ from the ones the design gives it",
            )


def _stated_model(condition: Condition) -> str | None:
    model = condition.metadata.get("model")
    return model if isinstance(model, str) and model else None


def check_models(inputs: Inputs) -> None:
    """Each engine run's model is the one its condition's run configuration names, which the
    results state as the model the engine ran on (``provider/model`` or ``model``)."""
    if inputs.study.protocol not in ENGINE_PROTOCOLS:
        return
    stated = {c.id: _stated_model(c) for c in inputs.conditions}
    for number, run in enumerate(inputs.runs, start=1):
        want = stated.get(run.condition)
        record = run.record  # read once: each reading inflates and parses the record
        model, provider = record.get("model"), record.get("provider")
        if want is None or not isinstance(model, str) or not model:
            continue
        named = {model, f"{provider}/{model}"} if isinstance(provider, str) else {model}
        if want not in named:
            raise BundleMismatch(
                rec.RUNS,
                f"line {number}: run {safe_line(run.id)!r} ran on model "
                f"{safe_line(json.dumps(model))[:80]}, but {rec.CONDITIONS} and the results "
                f"state that condition {safe_line(run.condition)!r} ran on "
                f"{safe_line(json.dumps(want))[:80]}",
            )


def _time(value: str, field: str) -> datetime:
    try:
        found = datetime.fromisoformat(value)
    except ValueError:
        raise BundleMismatch(rec.DESIGN, f"{field}: {value!r} is not an ISO 8601 time") from None
    if found.tzinfo is None:
        raise BundleMismatch(rec.DESIGN, f"{field}: {value!r} has no time zone (expected UTC)")
    return found


def _aware(value: str) -> datetime | None:
    """A record's time with its zone, or None when it is not one (checked where it is read)."""
    try:
        found = datetime.fromisoformat(value)
    except ValueError:
        return None
    return found if found.tzinfo is not None else None


def check_times(design: rec.PublishedDesign, inputs: Inputs | None = None) -> None:
    """The design was frozen after it was stored, and stored after every run it plans was
    made (a design is planned from runs already imported); judged, it is frozen, no later than
    its first judgment (within the clock skew merging allows a station)."""
    if not design.created_at:
        return  # a study's automated scope whose outcomes carry no time
    created = _time(design.created_at, "created_at")
    if design.frozen_at is not None and _time(design.frozen_at, "frozen_at") < created:
        raise BundleMismatch(
            rec.DESIGN, f"frozen_at {design.frozen_at} is before created_at {design.created_at}"
        )
    if inputs is None:
        return
    if design.frozen_at is None and inputs.judgments:
        raise BundleMismatch(
            rec.DESIGN, "frozen_at: missing, but the design was judged (judging freezes it)"
        )
    # The first judgment's time (a large study's are not all held and sorted to find it).
    first = min(
        (t for t in map(_aware, (j.created_at for j in inputs.judgments)) if t), default=None
    )
    # A station's clock may be behind the coordinator's by CLOCK_SKEW (merging allows it).
    if (
        design.frozen_at is not None
        and first is not None
        and _time(design.frozen_at, "frozen_at") > first + CLOCK_SKEW
    ):
        raise BundleMismatch(
            rec.DESIGN,
            f"frozen_at {design.frozen_at} is after the first judgment in {rec.JUDGMENTS} "
            f"({first.isoformat()}): a design is frozen by its first judgment at the latest",
        )
    planned = {r for item in inputs.items for r in item.runs}
    for run in inputs.runs:
        started = run.record.get("started_at")
        if run.id not in planned or not isinstance(started, str):
            continue
        try:
            when = datetime.fromisoformat(started)
        except ValueError:
            continue  # a source's own field, not a time the bundle claims
        if when.tzinfo is not None and when > created:
            raise BundleMismatch(
                rec.DESIGN,
                f"created_at {design.created_at} is before run {safe_line(run.id)!r} it plans "
                f"started ({safe_line(started)[:40]}): a design is planned from runs already "
                "made",
            )


def check_produced(listed: Iterable[str], inputs: Inputs, derived: Iterable[str]) -> None:
    """Every file the manifest lists is one an export writes: a source record, an output,
    trace or diff a run names, or a file derived from them."""
    produced = {*rec.SOURCE_FILES, *OPTIONAL_SOURCES, *derived, rec.MANIFEST}
    for run in inputs.runs:
        for ref in run.located().values():
            if ref is not None:
                produced.add(ref["path"])
    for path in sorted(listed):
        if path not in produced:
            raise BundleMismatch(
                path,
                "listed in manifest.json, but no export writes it: not a source record, an "
                "output, trace or diff a run names, nor a file derived from them",
            )
