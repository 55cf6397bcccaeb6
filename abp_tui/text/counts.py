"""Counts in words: ``1 study added``, ``2 studies added``. Every summary that prints how many of
something says it through :func:`counted`, so a count and its noun always agree."""

from __future__ import annotations

from collections.abc import Mapping

_IRREGULAR = {"studies": "study", "analyses": "analysis", "entries": "entry", "matches": "match"}
"""Plurals whose singular is not the word less its final ``s``."""

_STATES = frozenset({"added", "unchanged", "skipped", "replaced", "created", "updated", "removed"})
"""The words after the noun in a count's label (``runs added``)."""


def counted(n: int, one: str, many: str | None = None) -> str:
    """``n`` and the noun that agrees with it: ``counted(1, "study", "studies")`` is ``1 study``;
    ``many`` defaults to ``one`` + ``s``."""
    return f"{n} {one if n == 1 else (many or one + 's')}"


def singular(plural: str) -> str:
    """The singular of a plural noun phrase (its last word): ``judge verdicts`` → ``judge
    verdict``."""
    head, _, last = plural.rpartition(" ")
    word = _IRREGULAR.get(last, last[:-1] if last.endswith("s") and len(last) > 1 else last)
    return f"{head} {word}" if head else word


def counted_label(n: int, label: str) -> str:
    """A count under a label written in the plural, as the import's totals are keyed
    (``studies added``, ``records skipped``): ``1 study added``, ``2 studies added``."""
    words = label.split(" ")
    tail: list[str] = []
    while len(words) > 1 and words[-1] in _STATES:
        tail.insert(0, words.pop())
    noun = " ".join(words)
    return " ".join([counted(n, singular(noun), noun), *tail])


def counts_text(counts: Mapping[str, int], empty: str = "") -> str:
    """Every non-zero count of ``counts`` (labels in the plural) in words, comma-separated;
    ``empty`` when there is none."""
    parts = [counted_label(v, k) for k, v in counts.items() if v]
    return ", ".join(parts) or empty
