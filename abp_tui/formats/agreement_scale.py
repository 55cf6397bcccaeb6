"""What a scale and a cell of a table of judgments mean, however a person wrote them.

``--scale 0,1,2``, ``"0, 0.5, 1"``, ``low,mid,high`` and ``1,2,tie`` are scales as people type
them; "1", "1.0" and "1e0" in a cell are one value at a numeric level. This module turns such text
into the categories :mod:`abp_tui.stats.agreement` takes, or says what was expected; it reads no
file (:mod:`abp_tui.formats.agreement_table` does).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Final

from abp_tui.errors import AbpError
from abp_tui.stats.agreement import (
    LEVELS,
    AgreementError,
    Category,
    VariableSpec,
    category_label,
    declared_categories,
    is_number,
)

__all__ = ["OffScale", "cell_reader", "check_scale", "is_non_finite", "parse_number", "parse_scale"]

_NON_FINITE: Final = frozenset({"inf", "infinity", "nan"})


def parse_number(text: str) -> int | float | None:
    """The finite number ``text`` (already stripped) means, else None.

    "1", "1.0" and "1e0" are all the int 1, so that a scale and a cell agree on a value however
    either is written. Only ASCII decimal notation counts: ``float`` also reads "1_0" as 10 and
    other scripts' digits, which nobody means in a table of judgments.
    """
    if not text.isascii() or "_" in text:
        return None
    try:
        number = float(text)
    except ValueError:
        return None
    if not math.isfinite(number):
        return None
    if number.is_integer():
        digits = text[1:] if text[:1] in "+-" else text
        # Exact for integers too large for a float.
        return int(text) if digits.isdigit() else int(number)
    return number


def is_non_finite(text: str) -> bool:
    """Whether ``text`` spells infinity or NaN: a number, but not one a judgment can be."""
    return text.lower().lstrip("+-") in _NON_FINITE


def _scale_key(category: Category) -> tuple[str, float | str]:
    """Two categories with the same key are the same value ("1" and 1.0 on an ordinal scale)."""
    number = category if is_number(category) else parse_number(str(category))
    return ("number", float(number)) if number is not None else ("label", str(category))


def check_scale(level: str, categories: Sequence[Category], where: str) -> tuple[Category, ...]:
    """The scale as the statistics take it: numbers ascending, labels in the order given.

    At the ordinal level a scale with any label is a scale of labels, the numbers among them
    written as they were (``1,2,tie``): the order given is then the order meant.
    """
    if level not in LEVELS:
        raise AbpError(f"{where}: unknown level {level!r}; expected one of {', '.join(LEVELS)}")
    cats = list(categories)
    if not cats:
        raise AbpError(f"{where}: the scale is empty; expected categories such as 0,1,2")
    labels = [c for c in cats if isinstance(c, str)]
    if labels and level in ("interval", "ratio"):
        article = "an" if level == "interval" else "a"
        raise AbpError(
            f"{where}: {article} {level} scale needs numbers; {labels[0]!r} is not a number "
            "(use the ordinal level for ordered labels)"
        )
    if labels and level == "ordinal":
        cats = [c if isinstance(c, str) else category_label(c) for c in cats]
    seen: dict[tuple[str, float | str], Category] = {}
    for category in cats:
        key = _scale_key(category)
        if key in seen:
            shown, first = category_label(category), category_label(seen[key])
            same = f" (the same value as {first})" if shown != first else ""
            raise AbpError(f"{where}: the scale repeats the category {shown}{same}")
        seen[key] = category
    try:
        return declared_categories(level, cats, "the scale")
    except AgreementError as exc:
        raise AbpError(f"{where}: {exc}") from None


def parse_scale(text: str, level: str) -> tuple[Category, ...]:
    """The categories of a scale typed as text: ``0,1,2``, ``0, 0.5, 1``, ``low,mid,high``.

    Entries are separated by commas; spaces around them do not count. An entry that reads as a
    finite number is that number ("1" and "1.0" are the same); any other is a label, so numbers
    and labels mix (``1,2,tie``) at the nominal level and, as labels in the order given, at the
    ordinal level. Raises AbpError naming the scale and what was expected.
    """
    where = f"scale {text!r}"
    entries = [entry.strip() for entry in text.split(",")]
    for position, entry in enumerate(entries, 1):
        if not entry:
            raise AbpError(
                f"{where}: entry {position} is empty; expected categories separated by commas, "
                "e.g. 0,1,2 or low,mid,high"
            )
    cats: list[Category] = []
    for entry in entries:
        number = parse_number(entry)
        cats.append(entry if number is None else number)
    if level == "ordinal" and any(isinstance(c, str) for c in cats):
        cats = list(entries)  # labels, each as it was typed
    return check_scale(level, cats, where)


class OffScale(Exception):
    """A cell's value is not one the variable can take; the message says what was expected."""


def cell_reader(spec: VariableSpec, name: str) -> Callable[[str], Category | None]:
    """What a stripped cell of the variable means: a category, or None for a blank."""
    if spec.scale is None:
        if spec.level == "nominal":
            return lambda text: text or None

        def number(text: str) -> Category | None:
            if not text:
                return None
            value = parse_number(text)
            if value is not None:
                return value
            if is_non_finite(text):
                raise OffScale(f"expected a finite number, got {text!r}")
            raise OffScale(
                f"expected a number for the {spec.level} variable {name!r}, got {text!r}"
            )

        return number

    scale = spec.scale
    labels = {c: c for c in scale if isinstance(c, str)}
    numbers: dict[float, Category] = {}
    for category in scale:
        value = category if is_number(category) else parse_number(str(category))
        if value is not None:
            numbers.setdefault(float(value), category)
    shown = ", ".join(category_label(c) for c in scale)

    def on_scale(text: str) -> Category | None:
        if not text:
            return None
        if text in labels:
            return labels[text]
        value = parse_number(text)
        if value is not None and float(value) in numbers:
            return numbers[float(value)]
        raise OffScale(f"{text!r} is not on the declared scale ({shown}) of variable {name!r}")

    return on_scale
