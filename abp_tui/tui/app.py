"""The Textual application factory. TO BE IMPLEMENTED (home screen)."""

from __future__ import annotations

from pathlib import Path

from textual.app import App


def make_app(db_path: Path, reviewer: str | None = None) -> App[None]:
    return App()
