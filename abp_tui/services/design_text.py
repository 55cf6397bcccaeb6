"""The text of a design chosen field by field (``study create --study S ...`` and the home
screen's form): lists of names, and the pairs of conditions to compare."""

from __future__ import annotations

from collections.abc import Sequence

from abp_tui.errors import AbpError

ALL = "all"
"""What ``conditions`` or ``pairs`` say for every condition, or every pair of them."""
NO_LIMITATIONS = (
    "no limitation declared: its publication bundle publishes the protocol but not the results "
    "until the design declares what they cannot say (--limitation TEXT, once each; the form's "
    "limitations; a design file's limitations = [...]); declare it now, before anyone judges: "
    "a design already judged takes one only in a new version, judged afresh"
)
"""The warning of a design (and a study) that declares no limitation (the gate's check 7)."""


def limitation_warning(*declared: Sequence[str]) -> str | None:
    """:data:`NO_LIMITATIONS` when neither the design nor its study (``declared``) says any."""
    return None if any(declared) else NO_LIMITATIONS


def no_study_chosen(ids: Sequence[str], packs: Sequence[str]) -> str:
    """Why no study was taken by default: several (``ids``), or none; on a reviewer station
    (only ``packs``' blind copies) that results, designs and exports are not made there."""
    if not ids and packs:
        return (
            f"this is a reviewer station: its study {packs[0]!r} is a pack's blind copy; "
            "results, unblinding, designs and exports are made on the coordinator's database"
        )
    return "choose a study with --study" + (
        f" (one of: {', '.join(ids)})" if ids else ": the database has none"
    )


def split_names(text: str, once: bool = True) -> list[str]:
    """Names separated by commas (blanks around them ignored), in order, each once (``once``)
    or as listed: people, whom a design refuses to list twice (a slip to say, not to drop)."""
    names = [part.strip() for part in text.split(",") if part.strip()]
    return list(dict.fromkeys(names)) if once else names


def parse_pairs(text: str, conditions: list[str]) -> str | list[tuple[str, str]]:
    """``all``, ``none`` or pairs ``C:A, D:B`` of ``conditions`` (a condition id may hold a
    colon itself: each pair is split where both sides are conditions)."""
    value = text.strip()
    if value.lower() in (ALL, "all-pairs", ""):
        return "all-pairs"
    if value.lower() == "none":
        return "none"
    pairs: list[tuple[str, str]] = []
    for part in split_names(value):
        splits = [
            (part[:i].strip(), part[i + 1 :].strip())
            for i, char in enumerate(part)
            if char == ":"
            and part[:i].strip() in conditions
            and part[i + 1 :].strip() in conditions
        ]
        if len(splits) != 1:
            raise AbpError(
                f"pairs: {part!r} is not two of the conditions joined by a colon, like "
                f"{':'.join(conditions[:2]) or 'C:A'} (conditions: {', '.join(conditions)})"
            )
        pairs.append(splits[0])
    return pairs


__all__ = ["ALL", "parse_pairs", "split_names"]
