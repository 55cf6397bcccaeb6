"""Named errors of exports and of bundle verification."""

from __future__ import annotations

from abp_tui.errors import AbpError


class ExportError(AbpError):
    """An export could not be written; nothing was left half-written."""


class BundleMismatch(AbpError):
    """A bundle does not verify: ``path`` names the first file that differs, and how."""

    def __init__(self, path: str, detail: str) -> None:
        self.path = path
        self.detail = detail
        super().__init__(f"{path}: {detail}")


class UnsafeBundle(AbpError):
    """A bundle that is refused before anything is read from it (unsafe paths, links)."""
