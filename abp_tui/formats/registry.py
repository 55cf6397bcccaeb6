"""Every input format, in the order detection tries them, and detection itself."""

from __future__ import annotations

from pathlib import Path

from abp_tui.errors import AbpError, InputError
from abp_tui.formats import (
    abp,
    abp_trace,
    afp,
    arena,
    fastchat_judgment,
    inspect_log,
    llmbar_eval,
    mtbench,
    native,
    pairwise,
    scibench,
)
from abp_tui.formats.base import Format, head_bytes, malformed_json

FORMATS: list[Format] = [
    native.FORMAT,
    abp.TASK,
    abp.RUN,
    abp_trace.FORMAT,
    abp.VERDICT,
    arena.FORMAT,
    afp.PACK,
    afp.RUNNER,
    scibench.SPEC,
    scibench.SUBMISSION,
    scibench.PILOT_RUN,
    inspect_log.JSON_LOG,
    inspect_log.EVAL_LOG,
    # AI judges' verdicts (kept apart from people's); an LLMBar evaluator's result.json also
    # looks like pairwise items, so it is recognised first.
    llmbar_eval.FORMAT,
    fastchat_judgment.FORMAT,
    pairwise.FORMAT,
    mtbench.QUESTIONS,
    mtbench.ANSWERS,
]

CONVERT_HINT = (
    "convert the records to abp-tui native JSONL (`abp-tui schema` writes its JSON Schema, "
    "native-line.schema.json)"
)


def detect(path: Path) -> Format | None:
    """The format of ``path`` judged from its name and first bytes, or None."""
    head = head_bytes(path)
    for fmt in FORMATS:
        if fmt.sniff(path, head):
            return fmt
    return None


def not_imported(path: Path) -> str | None:
    """Why a file that is recognised is deliberately not imported (an AI judge's verdicts, a
    file read with another one), or None."""
    head = head_bytes(path)
    if llmbar_eval.FORMAT.sniff(path, head) or fastchat_judgment.FORMAT.sniff(path, head):
        return None  # AI judges' verdicts are imported, as judge verdicts (never as people's)
    for note in (mtbench.ai_judge_note, pairwise.ai_judge_note):
        found = note(path, head)
        if found is not None:
            return found
    return None


def unknown_format(path: Path, display: str) -> InputError:
    """The error for a file no format recognises: its JSON syntax error when it looks like JSON
    but is broken (a truncated file), else what the formats are and how to convert."""
    broken = malformed_json(path, display, head_bytes(path))
    if broken is not None:
        # Its format cannot be told, so no record of it can be read: skipping invalid records
        # would not help.
        broken.whole_file = True
        return broken
    names = ", ".join(f.name for f in FORMATS)
    return InputError(
        display,
        f"no known format: expected one of {names} (name one with --format, or {CONVERT_HINT})",
    )


def format_by_name(name: str) -> Format:
    for fmt in FORMATS:
        if fmt.name == name:
            return fmt
    known = ", ".join(f.name for f in FORMATS)
    raise AbpError(f"--format {name}: unknown format; expected one of {known}")
