"""What a study publishes: bundles, verdicts, tables and the report, and their verification.

Everything here works without a terminal and without the database: the writers take records
(:mod:`abp_tui.models.records`) or a bundle's files and return or write bytes. Collecting a
design's records from the database and recording an export is
:mod:`abp_tui.services.publishing`'s. A publication bundle is a folder and a zip with the same
bytes; ``verify`` recomputes its hashes and re-derives its tables from its own records.
"""

from abp_tui.export.bundle import VerifyReport, read_bundle, verify
from abp_tui.export.errors import BundleMismatch, ExportError, UnsafeBundle

__all__ = [
    "BundleMismatch",
    "ExportError",
    "UnsafeBundle",
    "VerifyReport",
    "read_bundle",
    "verify",
]
