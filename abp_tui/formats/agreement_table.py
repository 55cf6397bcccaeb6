"""Judgments made elsewhere: a CSV table (item, reviewer, variable, value) and a TOML header.

``abp-tui agreement --table`` reads these files into the long table of judgments that
:mod:`abp_tui.stats.agreement` computes figures from. Bad input raises an InputError naming the
file, the line and the column, with what was expected; nothing here computes a statistic.
"""

from __future__ import annotations

import csv
import math
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from abp_tui.errors import InputError
from abp_tui.formats.base import validate
from abp_tui.models.base import Model
from abp_tui.stats.agreement import (
    CONFIDENCE,
    DEFAULT_PAIR_RESAMPLES,
    DEFAULT_RESAMPLES,
    LEVELS,
    AgreementError,
    AgreementReport,
    Category,
    Observation,
    VariableSpec,
    category_label,
    compute_all,
    declared_categories,
    is_number,
)


class _TableHeader(Model):
    variables: dict[str, VariableSpec]


_COLUMNS: Final = ("item", "reviewer", "variable", "value")


def read_header(path: Path) -> dict[str, VariableSpec]:
    """Per-variable levels and scales from a TOML file.

    Each variable is a table ``[variables.NAME]`` with ``level = "ordinal"`` and optionally
    ``scale = [0, 1, 2]``.
    """
    display = str(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(display, f"cannot read file: {exc.strerror}") from None
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise InputError(display, "invalid UTF-8: expected UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(display, f"malformed TOML: {exc}") from None
    header = validate(_TableHeader, data, display)
    for name, spec in header.variables.items():
        if spec.scale is not None:
            try:
                declared_categories(spec.level, spec.scale, name)
            except AgreementError as exc:
                raise InputError(display, str(exc), None, f"$.variables.{name}.scale") from None
    return header.variables


def agreement_table(
    path: Path | str,
    *,
    level: str | None = None,
    scale: Sequence[Category] | None = None,
    header: Path | str | None = None,
    seed: int = 0,
    resamples: int = DEFAULT_RESAMPLES,
    pair_resamples: int = DEFAULT_PAIR_RESAMPLES,
    confidence: float = CONFIDENCE,
) -> AgreementReport:
    """Agreement figures for judgments in a CSV file with columns item, reviewer, variable, value.

    A blank value is a missing judgment; other columns are ignored. Give ``level`` (and
    optionally ``scale``) when the file holds a single variable, or ``header``, a TOML file
    declaring each variable (see ``read_header``). Bad input raises InputError naming the file,
    the line and the column, with what was expected.
    """
    path = Path(path)
    display = str(path)
    single: VariableSpec | None = None
    specs: dict[str, VariableSpec] = {}
    if header is not None:
        specs = read_header(Path(header))
    elif level is not None:
        if level not in LEVELS:
            raise InputError(
                display, f"unknown level {level!r}; expected one of {', '.join(LEVELS)}"
            )
        try:
            cats = None if scale is None else declared_categories(level, scale, "the variable")
        except AgreementError as exc:
            raise InputError(display, str(exc)) from None
        single = VariableSpec(level=level, scale=cats)
    else:
        raise InputError(
            display, "no level given: give the level (and scale) or a header file declaring each"
        )

    rows_by_var, first_line = _read_rows(path, display)
    if single is not None:
        if len(rows_by_var) > 1:
            names = ", ".join(repr(v) for v in list(rows_by_var)[:5])
            raise InputError(
                display,
                f"the table holds {len(rows_by_var)} variables ({names}); a level applies to one "
                "variable: declare each in a header file",
            )
        specs = dict.fromkeys(rows_by_var, single)
    records: dict[str, list[Observation]] = {}
    for name, rows in rows_by_var.items():
        spec = specs.get(name)
        if spec is None:
            raise InputError(
                display,
                f"variable {name!r} is not declared in the header file {header}",
                first_line[name],
                "variable",
            )
        records[name] = _parse_values(rows, spec, name, display)
    levels = {name: specs[name].level for name in records}
    scales = {name: specs[name].scale for name in records}
    try:
        return compute_all(
            records,
            levels,
            scales,
            seed,
            resamples=resamples,
            pair_resamples=pair_resamples,
            confidence=confidence,
        )
    except AgreementError as exc:
        raise InputError(display, str(exc)) from None


def _read_rows(
    path: Path, display: str
) -> tuple[dict[str, list[tuple[str, str, str, int]]], dict[str, int]]:
    rows_by_var: dict[str, list[tuple[str, str, str, int]]] = {}
    first_line: dict[str, int] = {}
    seen: dict[tuple[str, str, str], int] = {}
    try:
        with path.open(encoding="utf-8-sig", newline="") as handle:
            reader = csv.reader(handle, strict=True)
            try:
                head = next(reader, None)
                if head is None:
                    raise InputError(
                        display, "empty file: expected a header row item,reviewer,variable,value", 1
                    )
                names = [h.strip().lower() for h in head]
                for column in _COLUMNS:
                    if column not in names:
                        raise InputError(
                            display,
                            f"missing column {column!r}: expected columns {', '.join(_COLUMNS)}",
                            1,
                        )
                if len(set(names)) != len(names):
                    raise InputError(display, "a column name is repeated in the header row", 1)
                at = [names.index(c) for c in _COLUMNS]
                width = len(names)
                for row in reader:
                    line = reader.line_num
                    if not row or (len(row) == 1 and not row[0].strip()):
                        continue
                    if len(row) != width:
                        raise InputError(
                            display,
                            f"expected {width} fields as in the header row, found {len(row)}",
                            line,
                        )
                    item, reviewer, variable, value = (row[i].strip() for i in at)
                    for column, text in (
                        ("item", item),
                        ("reviewer", reviewer),
                        ("variable", variable),
                    ):
                        if not text:
                            raise InputError(
                                display, f"empty {column}: expected a {column} name", line, column
                            )
                    key = (item, reviewer, variable)
                    if key in seen:
                        raise InputError(
                            display,
                            f"reviewer {reviewer!r} already judged item {item!r} for variable "
                            f"{variable!r} on line {seen[key]}",
                            line,
                        )
                    seen[key] = line
                    first_line.setdefault(variable, line)
                    rows_by_var.setdefault(variable, []).append((item, reviewer, value, line))
            except csv.Error as exc:
                raise InputError(display, f"malformed CSV: {exc}", reader.line_num) from None
    except OSError as exc:
        raise InputError(display, f"cannot read file: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise InputError(display, "invalid UTF-8: expected UTF-8 text") from None
    if not rows_by_var:
        raise InputError(display, "no judgments: expected rows after the header row", 2)
    return rows_by_var, first_line


def _parse_values(
    rows: list[tuple[str, str, str, int]], spec: VariableSpec, name: str, display: str
) -> list[Observation]:
    numeric = spec.level != "nominal" or (
        spec.scale is not None and all(is_number(c) for c in spec.scale)
    )
    allowed = set(spec.scale) if spec.scale is not None else None
    out: list[Observation] = []
    for item, reviewer, text, line in rows:
        value: Category | None
        if not text:
            value = None
        elif numeric:
            try:
                number = float(text)
            except ValueError:
                raise InputError(
                    display,
                    f"expected a number for the {spec.level} variable {name!r}, got {text!r}",
                    line,
                    "value",
                ) from None
            if not math.isfinite(number):
                raise InputError(display, f"expected a finite number, got {text!r}", line, "value")
            value = int(number) if number.is_integer() else number
        else:
            value = text
        if value is not None and allowed is not None and value not in allowed:
            shown = ", ".join(category_label(c) for c in spec.scale or ())
            raise InputError(
                display,
                f"{text!r} is not on the declared scale ({shown}) of variable {name!r}",
                line,
                "value",
            )
        out.append((item, reviewer, value))
    return out
