"""Input formats: one module per format, plus detection. Parsers produce models, nothing else.

Run folders (a harness's whole output) are described in :mod:`abp_tui.formats.layouts`; the
list of formats and detection in :mod:`abp_tui.formats.registry`, whose names are importable
from here too. They load every format's models, so they are loaded when first asked for: a
module that needs one format's helpers (the workstation's first screens) loads only that one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from abp_tui.formats.registry import (
        CONVERT_HINT,
        FORMATS,
        detect,
        format_by_name,
        not_imported,
        unknown_format,
    )

__all__ = ["CONVERT_HINT", "FORMATS", "detect", "format_by_name", "not_imported", "unknown_format"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from abp_tui.formats import registry

        return getattr(registry, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
