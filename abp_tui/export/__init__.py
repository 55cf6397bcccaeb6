"""What a study publishes: bundles, verdicts, tables and the report, and their verification.

Everything here works without a terminal and without the database: the writers take records
(:mod:`abp_tui.models.records`) or a bundle's files and return or write bytes. Collecting a
design's records from the database and recording an export is
:mod:`abp_tui.services.publishing`'s. A publication bundle is a folder and a zip with the same
bytes; ``verify`` recomputes its hashes and re-derives its tables from its own records.
"""

from typing import TYPE_CHECKING, Any

from abp_tui.export.errors import BundleMismatch, ExportError, UnsafeBundle

if TYPE_CHECKING:
    from abp_tui.export.bundle import VerifyReport, read_bundle, verify

_BUNDLE = frozenset({"VerifyReport", "read_bundle", "verify"})
"""Loaded when first asked for: the bundle's writers and checkers load Jinja2, jsonschema and the
statistics, which a module needing only the records' names (a design, the workstation's first
screens) must not wait for."""

__all__ = [
    "BundleMismatch",
    "ExportError",
    "UnsafeBundle",
    "VerifyReport",
    "read_bundle",
    "verify",
]


def __getattr__(name: str) -> Any:
    if name in _BUNDLE:
        from abp_tui.export import bundle

        return getattr(bundle, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
