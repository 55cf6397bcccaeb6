"""Exports of a study design's results: verdicts, judgments, abp-verdict/v1, publication bundles.

Everything here works without a terminal. Results are exported only after the study was
unblinded. A publication bundle is a folder and a zip with the same bytes; ``verify`` recomputes
its hashes and re-derives its tables from its own records.
"""

from abp_tui.export.bundle import (
    BundleResult,
    VerifyReport,
    build_bundle,
    export_abp_verdict,
    export_bundle,
    export_judgments,
    export_verdicts,
    read_bundle,
    verify,
)
from abp_tui.export.errors import BundleMismatch, ExportError, UnsafeBundle

__all__ = [
    "BundleMismatch",
    "BundleResult",
    "ExportError",
    "UnsafeBundle",
    "VerifyReport",
    "build_bundle",
    "export_abp_verdict",
    "export_bundle",
    "export_judgments",
    "export_verdicts",
    "read_bundle",
    "verify",
]
