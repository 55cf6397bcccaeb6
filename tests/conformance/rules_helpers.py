"""Set-ups the conformance tests share: a small AFP study a test can bend, and bundle readers.

A conformance test drives the real commands and services on the bundled demo, the reference
files or records made here; these helpers only build inputs and read what a command wrote.
Nothing here holds a test.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import sqlite_utils

from abp_tui.models import StudyDesign
from abp_tui.services.designing import create_design
from abp_tui.services.importing import import_paths
from abp_tui.services.publishing import export_bundle
from abp_tui.services.results_report import unblind
from tests.factories import judge_all, write_jsonl


def small_study_lines(
    *,
    tasks: tuple[str, ...] = ("P01", "P02"),
    runs_per_cell: Mapping[str, int] | None = None,
    instructions: str = "Tie every conclusion to the evidence.",
    limitations: tuple[str, ...] = ("Two fixtures only.",),
    protocol: str = "",
    risk_types: Mapping[str, str] | None = None,
) -> list[dict[str, object]]:
    """An AFP-rubric study ``s``: conditions A (model only) and C, one run per task and
    condition unless ``runs_per_cell`` (task -> runs) asks for more. Every text is present, so
    the publication gate is met once every item is judged; a test removes what it checks."""
    study: dict[str, object] = {
        "type": "study",
        "id": "s",
        "rubric_id": "afp-v0.1",
        "name": "Small study",
        "limitations": list(limitations),
    }
    if protocol:
        study["protocol"] = protocol
    lines: list[dict[str, object]] = [
        study,
        {"type": "condition", "id": "A", "label": "Model Only"},
        {"type": "condition", "id": "C", "label": "Governed", "instructions": instructions},
    ]
    for t in tasks:
        lines.append(
            {
                "type": "task",
                "id": t,
                "prompt": f"Does the lease meet the cap? ({t})",
                "risk_type": (risk_types or {}).get(t, "Source conflict"),
                "fatal_criteria": [f"Fatal {t}"],
            }
        )
        for c in ("A", "C"):
            for k in range(1, (runs_per_cell or {}).get(t, 1) + 1):
                lines.append(
                    {
                        "type": "run",
                        "id": f"{t}-{c}-{k}",
                        "task_id": t,
                        "condition_id": c,
                        "trial": k,
                        "output": f"The signed lease prevails. [{t}/{c}/{k}]",
                        "model": "acme/demo-model-9",
                        "provider": "acme",
                    }
                )
    return lines


def judged_bundle(
    tmp_path: Path, db: sqlite_utils.Database, lines: list[dict[str, object]], name: str = "b"
) -> Path:
    """Import ``lines``, design every C-vs-A pair for reviewer alice, judge every item (all
    2s, a tie), unblind and export the bundle; return its folder."""
    import_paths(db, [write_jsonl(tmp_path / "s.jsonl", lines)])
    pk = create_design(
        db, StudyDesign(study="s", name="main", seed=7, contrasts=[("C", "A")], reviewers=["alice"])
    ).pk
    judge_all(db, pk)
    unblind(db, "s", "coordinator")
    return export_bundle(db, pk, tmp_path / name).folder


def read_json(path: Path) -> Any:
    return json.loads(path.read_text("utf-8"))


def read_jsonl(path: Path) -> list[Any]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def gate_checks(bundle: Path) -> dict[str, dict[str, Any]]:
    """The bundle's publication-gate checks by requirement (``status.json``)."""
    return {c["requirement"]: c for c in read_json(bundle / "status.json")["checks"]}


class ReportTables(HTMLParser):
    """Every <table> with its id, header cells and rows of cell texts; every SVG <text>."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: dict[str, tuple[list[str], list[list[str]]]] = {}
        self.svg_texts: list[str] = []
        self._table: str | None = None
        self._cell: list[str] | None = None
        self._row: list[str] = []
        self._svg_text: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self._table = dict(attrs).get("id") or f"table-{len(self.tables)}"
            self.tables[self._table] = ([], [])
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "text":
            self._svg_text = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr" and self._table is not None:
            header, rows = self.tables[self._table]
            if not header:
                header.extend(self._row)
            else:
                rows.append(self._row)
        elif tag == "table":
            self._table = None
        elif tag == "text" and self._svg_text is not None:
            self.svg_texts.append("".join(self._svg_text).strip())
            self._svg_text = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)
        if self._svg_text is not None:
            self._svg_text.append(data)
