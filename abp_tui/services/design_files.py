"""Design files: reading a TOML or JSON study design, and turning a design's own rubric (the
``[rubric]`` table) into a Rubric.

Every error names the file and the key, the way the file spells it: TOML keys for a TOML file
(``rubric.dimensions[2].anchors``), JSON paths for a JSON one (``$.rubric.dimensions[2].anchors``).
Nothing here touches the database; which rubric ids are already taken is the caller's question.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Collection
from pathlib import Path
from typing import Any

from abp_tui.errors import AbpError, InputError
from abp_tui.formats.base import check_input_file, loads_json, validate
from abp_tui.models import AcceptanceRule, Dimension, InlineRubric, Rubric, StudyDesign
from abp_tui.models.design import SCALE
from abp_tui.text import json_input
from abp_tui.text.json_input import MAX_DEPTH

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def key_path(parts: tuple[str | int, ...], toml: bool) -> str:
    """A key as a TOML file writes it (``rubric.dimensions[2].id``), or a JSON path."""
    out = "" if toml else "$"
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
            continue
        shown = part if not toml or _BARE_KEY.match(part) else '"' + part.replace('"', '\\"') + '"'
        out += f".{shown}" if out else shown
    return out


def _retarget(exc: InputError, toml: bool) -> InputError:
    """A validation error whose JSON path is written as the file writes its keys."""
    path = exc.path
    if toml and path is not None:
        path = path.removeprefix("$").lstrip(".")
    return InputError(exc.file, exc.message.removeprefix("Value error, "), exc.line, path)


def load_design_file(path: Path) -> StudyDesign:
    """A design from TOML or JSON, with errors naming the file and the key."""
    display = str(path)
    check_input_file(path, display)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(display, f"cannot read file: {exc.strerror}") from None
    data: Any
    toml = path.suffix.lower() == ".toml"
    if toml:
        try:
            data = tomllib.loads(raw.decode("utf-8"))
            # The rules JSON input is held to (no integer beyond 64 bits, no nesting past
            # 200 levels), so a TOML design cannot carry what a JSON one may not.
            json_input.check(data)
        except UnicodeDecodeError:
            raise InputError(display, "invalid UTF-8: expected UTF-8 text") from None
        except tomllib.TOMLDecodeError as exc:
            raise InputError(display, f"malformed TOML: {exc}") from None
        except RecursionError:
            raise InputError(
                display, f"arrays or tables nested too deeply: expected at most {MAX_DEPTH}"
            ) from None
        except json_input.JsonRefused as exc:
            key = (exc.path or "").removeprefix("$").lstrip(".") or None
            raise InputError(display, exc.reason, path=key) from None
    elif path.suffix.lower() == ".json":
        data = loads_json(raw, display)
    else:
        raise InputError(display, "expected a .toml or .json design file")
    if not isinstance(data, dict):
        raise InputError(display, "expected a table/object at the top level")
    rubric = data.get("rubric")
    if isinstance(rubric, dict):
        # Validated on its own so that an error names its key, not the union it is part of.
        try:
            data = {**data, "rubric": validate(InlineRubric, rubric, display, prefix="$.rubric")}
        except InputError as exc:
            raise _retarget(exc, toml) from None
    elif rubric is not None and not isinstance(rubric, str):
        raise InputError(
            display,
            'expected a rubric id, "none" (preference only) or a [rubric] table',
            path=key_path(("rubric",), toml),
        )
    try:
        design = validate(StudyDesign, data, display)
    except InputError as exc:
        raise _retarget(exc, toml) from None
    if isinstance(design.rubric, InlineRubric):
        inline_rubric(design, design.rubric, display, toml=toml)  # refused now, not at create
    return design


def inline_rubric(
    design: StudyDesign,
    spec: InlineRubric,
    source: str = "",
    *,
    toml: bool = True,
    taken: Collection[str] = (),
) -> Rubric:
    """The Rubric a design file defines, checked whole; ``taken``: rubric ids already in use
    (built in or imported), which a design's own rubric may not reuse."""

    def refuse(message: str, *parts: str | int) -> AbpError:
        key = key_path(("rubric", *parts), toml)
        if source:
            return InputError(source, message, path=key)
        return AbpError(f"design {design.name!r}: {key}: {message}")

    rubric_id = spec.id or design.name
    if rubric_id in taken:
        raise refuse(
            f"{rubric_id!r} is the id of another rubric (built in or imported); give this "
            "rubric an id of its own",
            "id",
        )
    ids = [d.id for d in spec.dimensions]
    for i, dim_id in enumerate(ids):
        if dim_id in ids[:i]:
            raise refuse(
                f"duplicate dimension id {dim_id!r}; expected each once", "dimensions", i, "id"
            )
    for i, criterion in enumerate(spec.fatal_criteria):
        if not criterion.strip():
            raise refuse("a fatal criterion must not be empty", "fatal_criteria", i)
    checks = [c.id for c in spec.validity_gate]
    for i, check_id in enumerate(checks):
        if check_id in checks[:i]:
            raise refuse(
                f"duplicate check id {check_id!r}; expected each once", "validity_gate", i, "id"
            )
    rule = spec.acceptance
    if rule.min_total is None and rule.min_each is None and not rule.required_twos:
        raise refuse(
            "expected at least one of min_total, min_each or required_twos (a fatal hit fails "
            "a response whatever the rule)",
            "acceptance",
        )
    top = max(SCALE) * len(spec.dimensions)
    if rule.min_total is not None and not 0 <= rule.min_total <= top:
        raise refuse(f"expected a total between 0 and {top}", "acceptance", "min_total")
    for name in rule.required_twos:
        if name not in ids:
            raise refuse(
                f"{name!r} is not one of the rubric's dimensions ({', '.join(ids)})",
                "acceptance",
                "required_twos",
            )
    return Rubric(
        id=rubric_id,
        name=spec.name or rubric_id,
        version=spec.version,
        dimensions=tuple(
            Dimension(id=d.id, name=d.name or d.id, anchors=dict(d.anchors), scale=SCALE)
            for d in spec.dimensions
        ),
        fatal_criteria=spec.fatal_criteria,
        acceptance=AcceptanceRule(
            min_total=rule.min_total,
            min_each=rule.min_each,
            required_twos=rule.required_twos,
            text=rule.text.strip() or _rule_text(spec),
        ),
        validity_gate=spec.validity_gate,
        source="design",
    )


def _rule_text(spec: InlineRubric) -> str:
    """The acceptance rule in words, for a design file that gives only its numbers."""
    rule = spec.acceptance
    names = {d.id: d.name or d.id for d in spec.dimensions}
    parts = []
    if rule.min_total is not None:
        parts.append(f"the total is at least {rule.min_total} of {max(SCALE) * len(names)}")
    if rule.min_each is not None:
        parts.append(f"no dimension scores below {rule.min_each}")
    if rule.required_twos:
        parts.append(", ".join(names[d] for d in rule.required_twos) + " each score 2")
    return (
        "Any fatal criterion hit => MODEL_FAIL whatever the scores; otherwise the output passes "
        f"when {' and '.join(parts)}."
    )
