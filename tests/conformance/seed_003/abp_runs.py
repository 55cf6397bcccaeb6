"""Run folders the seed 003 conformance tests drive the real commands on: the bundled ABP demo,
the named conformance fixtures (``fixtures/abp-conformance/``) and variants of them written here.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from tests.factories import FIXTURES, Cli

DEMO = FIXTURES / "demo" / "abp-demo"
CONFORMANCE = FIXTURES / "abp-conformance"


def copy_run(source: Path, target: Path, **config: Any) -> Path:
    """A copy of an ABP run folder, its ``run.json`` updated with ``config``."""
    shutil.copytree(source, target)
    run = target / "run.json"
    doc = json.loads(run.read_text(encoding="utf-8"))
    doc.update(config)
    run.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    return target


def imported(cli: Cli, folder: Path) -> str:
    """Import a run folder and unblind its study, as a coordinator would; the study's id."""
    done = cli("import", folder, "--json")
    assert done.code == 0, done.err
    study = folder.name
    unblinded = cli("unblind", "--study", study, "--yes")
    assert unblinded.code == 0, unblinded.err
    return study


def traces(folder: Path) -> list[list[dict[str, Any]]]:
    """Every trace of a run folder, read straight from its files (independent of the importer)."""
    return [
        [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
        for path in sorted((folder / "traces").glob("*.abp-trace.jsonl"))
    ]
