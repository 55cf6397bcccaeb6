"""The CI baseline file, ``abp-baseline/v1``: written atomically, read back against its schema.

A baseline is committed beside the code it measures, so reading one is reading input: it is
checked against the published JSON Schema (``schemas/abp-baseline-v1.schema.json``) and against
what a schema cannot say (passes within the scored trials, per-trial outcomes that add up to the
counts), and a bad file is refused with one line naming the file and the JSON path. Writing
goes through a temporary file renamed into place, so an interrupted save never leaves half a
baseline where the old one was.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any, Final

from pydantic import ValidationError

from abp_tui.analysis.regression_gate import Baseline
from abp_tui.errors import InputError
from abp_tui.export.validation import schema_errors
from abp_tui.text import json_input
from abp_tui.text.input_files import not_regular

BASELINE_SCHEMA_FILE: Final = "abp-baseline-v1.schema.json"


def baseline_document(baseline: Baseline) -> dict[str, Any]:
    """The baseline as its published JSON document (camelCase, nothing left out)."""
    document: dict[str, Any] = baseline.model_dump(mode="json", by_alias=True)
    return document


def baseline_text(baseline: Baseline) -> str:
    return json.dumps(baseline_document(baseline), indent=2, ensure_ascii=False) + "\n"


def write_baseline(baseline: Baseline, path: Path) -> None:
    """Write ``path`` whole or not at all (a temporary file in its folder, then a rename)."""
    text = baseline_text(baseline)
    problems = schema_errors(json.loads(text), BASELINE_SCHEMA_FILE)
    if problems:  # a bug here, not the user's input: refuse to publish an invalid file
        raise AssertionError(f"baseline does not match its schema: {problems[0]}")
    folder = path.parent if str(path.parent) else Path(".")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=folder)
    except OSError as exc:
        raise InputError(str(path), f"cannot write the baseline: {exc.strerror}") from None
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
            out.write(text)
        os.replace(temporary, path)
    except OSError as exc:
        Path(temporary).unlink(missing_ok=True)
        raise InputError(str(path), f"cannot write the baseline: {exc.strerror}") from None


def _consistency(baseline: Baseline, display: str) -> None:
    for i, engine in enumerate(baseline.engines):
        where = f"$.engines[{i}]"
        if engine.passed > engine.scored_trials:
            raise InputError(display, "expected passed <= scoredTrials", path=f"{where}.passed")
        if engine.outcomes is None:
            continue
        passes = sum(1 for o in engine.outcomes if o.passed)
        keys = {(o.task, o.trial) for o in engine.outcomes}
        if len(engine.outcomes) != engine.scored_trials or passes != engine.passed:
            raise InputError(
                display,
                f"expected {engine.scored_trials} outcomes with {engine.passed} passed "
                f"(got {len(engine.outcomes)} with {passes})",
                path=f"{where}.outcomes",
            )
        if len(keys) != len(engine.outcomes):
            raise InputError(display, "expected each (task, trial) once", path=f"{where}.outcomes")
    engines = [e.engine for e in baseline.engines]
    if len(set(engines)) != len(engines):
        raise InputError(display, "expected each engine once", path="$.engines")


def read_baseline(path: Path, display: str | None = None) -> Baseline:
    """The baseline at ``path``, or an InputError naming what is wrong and where."""
    shown = display or str(path)
    if (kind := not_regular(path)) is not None:
        raise InputError(shown, f"{kind}: expected a regular file (a baseline)")
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError(
            shown, "no such baseline (write one with `abp-tui baseline save RESULTS`)"
        ) from None
    except OSError as exc:
        raise InputError(shown, f"cannot read file: {exc.strerror}") from None
    try:
        document = json_input.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise InputError(shown, "expected UTF-8 JSON text") from None
    except json_input.JsonRefused as exc:
        if exc.path is not None:
            raise InputError(shown, exc.reason, path=exc.path) from None
        problem = "malformed JSON" if exc.malformed else "JSON refused"
        raise InputError(
            shown, f"{problem} at column {exc.column}: {exc.reason}", exc.line
        ) from None
    if not isinstance(document, dict) or document.get("schema") != "abp-baseline/v1":
        raise InputError(shown, 'expected an abp-baseline/v1 document ("schema")', path="$")
    problems = schema_errors(document, BASELINE_SCHEMA_FILE)
    if problems:
        where, _, message = problems[0].partition(": ")
        raise InputError(shown, message or where, path=where if message else None)
    try:
        baseline = Baseline.model_validate(document)
    except ValidationError as exc:  # the schema and the model say the same; this is a guard
        raise InputError(shown, str(exc.errors(include_url=False)[0]["msg"])) from None
    _consistency(baseline, shown)
    return baseline
