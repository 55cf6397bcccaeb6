"""``verify`` parses and analyses a bundle with the cyclic garbage collector paused (issue #31).

What was found: a 20,000-pair bundle's verification spent a quarter of its time in the cycle
collector, which walked the hundreds of thousands of parsed records again at each collection and
freed nothing (reference counting frees them). An export pauses it already; ``verify`` now does
too, and switches it back on afterwards, whether the bundle verified or was refused.
"""

from __future__ import annotations

import gc
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from abp_tui.export import BundleMismatch, verify
from abp_tui.export.bundle_analysis import parse
from tests.factories import exported_abp_bundle


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return exported_abp_bundle(tmp_path_factory.mktemp("exported"))


@pytest.fixture
def collector_seen(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bool]]:
    """Whether the collector was on each time ``verify`` parsed a bundle's records."""
    seen: list[bool] = []

    def watched(files: Any, **options: Any) -> Any:
        seen.append(gc.isenabled())
        return parse(files, **options)

    monkeypatch.setattr("abp_tui.export.bundle.parse", watched)
    enabled = gc.isenabled()
    gc.enable()
    try:
        yield seen
    finally:
        if not enabled:
            gc.disable()


def test_verify_parses_with_the_collector_paused_and_switches_it_back_on(
    exported: Path, collector_seen: list[bool]
) -> None:
    report = verify(exported)
    assert report.files > 0
    assert collector_seen == [False]
    assert gc.isenabled()


def test_a_refused_bundle_switches_the_collector_back_on(
    exported: Path, tmp_path: Path, collector_seen: list[bool]
) -> None:
    bundle = Path(shutil.copytree(exported, tmp_path / "bundle"))
    (bundle / "results" / "summary.json").write_bytes(b"{}")
    with pytest.raises(BundleMismatch):
        verify(bundle)
    assert gc.isenabled()


def test_verify_leaves_a_paused_collector_paused(
    exported: Path, collector_seen: list[bool]
) -> None:
    gc.disable()
    try:
        verify(exported)
        assert not gc.isenabled()
    finally:
        gc.enable()
    assert collector_seen == [False]
