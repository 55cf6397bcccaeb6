"""What an export keeps of the database's records to check its bundle against: a count and a
digest of the records the final verdicts are decided from, taken as the records are written.

An export decides the verdicts once, from the bundle's files as ``verify`` reads them. Before
it writes the derived files, the records those verdicts were decided from (the rubric, the
disagreement rules, the items, the submitted judgments, the adjudications) must be the ones the
database returned: the same records give the same verdicts under the same rules, so a
difference means a record was lost or changed on its way into the bundle. Each side is folded
into a :class:`RecordsDigest` (each record's canonical JSON, in whatever order it comes), so
the database's records are never held while the bundle's are parsed: a large study's hundreds
of thousands of items and judgments are written one at a time and let go.
"""

from __future__ import annotations

import hashlib
from typing import Final

from abp_tui.export.bundle_analysis import Analysis
from abp_tui.export.errors import ExportError
from abp_tui.models import DesignRecords, Model
from abp_tui.text.canonical import canonical_json

RUBRIC: Final = "rubric"
RULES: Final = "rules"
ITEM: Final = "item"
JUDGMENT: Final = "judgment"
ADJUDICATION: Final = "adjudication"
"""The kinds of records the verdicts are decided from (each record's digest names its kind)."""

_MODULUS: Final = 1 << 256


class RecordsDigest:
    """How many records were added, and a digest of them that does not depend on their order:
    the sum of each record's SHA-256 (of its kind and canonical JSON), modulo 2**256. The same
    records, in any order, give the same digest; a record lost, added or changed, another."""

    __slots__ = ("_sum", "count")

    def __init__(self) -> None:
        self.count = 0
        self._sum = 0

    def add(self, kind: str, line: str) -> None:
        """Add a record of ``kind`` given as its canonical JSON (:func:`canonical_json`)."""
        hashed = hashlib.sha256(f"{kind}\n{line}".encode())
        self._sum = (self._sum + int.from_bytes(hashed.digest(), "big")) % _MODULUS
        self.count += 1

    def add_model(self, kind: str, record: Model) -> None:
        self.add(kind, canonical_json(record.model_dump(mode="json")))

    def value(self) -> tuple[int, str]:
        """(records added, their digest in hex)."""
        return self.count, f"{self._sum:064x}"


def decided_from(records: DesignRecords) -> tuple[int, str]:
    """The count and digest (:class:`RecordsDigest`) of the records the verdicts are decided
    from (:func:`abp_tui.analysis.verdicts.decide` reads no other), as the analysis holds them."""
    digest = RecordsDigest()
    digest.add_model(RUBRIC, records.rubric)
    digest.add_model(RULES, records.rules)
    for item in records.items:
        digest.add_model(ITEM, item)
    for judgment in records.judgments:
        digest.add_model(JUDGMENT, judgment)
    for adjudication in records.adjudications:
        digest.add_model(ADJUDICATION, adjudication)
    return digest.value()


def cross_check(database: tuple[int, str], analysis: Analysis) -> None:
    """The records the bundle's verdicts were decided from must be those the database returned
    (``database``: their count and digest as the files were written from them); else the
    export is refused before anything derived is written."""
    found = decided_from(analysis.records)
    if found != database:
        raise ExportError(
            f"internal inconsistency: the {found[0]} records the bundle's verdicts are decided "
            f"from (rubric, rules, items, submitted judgments, adjudications) differ from the "
            f"{database[0]} of the database (their SHA-256 {found[1][:16]}, not "
            f"{database[1][:16]}); nothing was written (please report this)"
        )


__all__ = ["RecordsDigest", "cross_check", "decided_from"]
