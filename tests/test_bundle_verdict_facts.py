"""A bundle's derivation makes no model of a run's verdict (issue 31).

What was found: every run's final verdict was built as a pydantic ``RunVerdict``, with its
reviews, nine times over for each derivation (three times for the excluded runs, twice for the
gate's checks, once each for its rerun rules, its model versions, ``verdicts.jsonl`` and the
report's table of runs): a third of an export's time at 20,000 pairs. Now the gate, the excluded
runs and the report read each run's facts as a tuple, and ``verdicts.jsonl``'s lines are made
as dicts: what the models gave, byte for byte, without them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import sqlite_utils

from abp_tui.export.bundle_analysis import (
    AdjudicatedJudgment,
    Analysis,
    RunVerdicts,
    analyse,
    excluded_runs,
    parse,
)
from abp_tui.export.canonical import jsonl_bytes
from abp_tui.export.derive import derive, verdict_chunks
from abp_tui.models import Judgment, PreferenceChoice, ResponseJudgment, ResultState
from abp_tui.services.publishing import export_bundle
from abp_tui.services.results_report import unblind
from abp_tui.services.reviewing import ReviewSession
from abp_tui.store import connect
from tests.factories import GATE, afp_judged, judged_pairs


def _files(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()
    }


def _afp_overridden(db: sqlite_utils.Database) -> int:
    """The judged AFP demo, with a reviewer who overrode a response's state (an excluded run
    with a reviewer's reason)."""
    pk = afp_judged(db)
    session = ReviewSession(db, pk, "demo")
    code = sorted(r.code for r in session.queue())[-1]
    judgment = Judgment(
        responses={
            "1": ResponseJudgment(
                scores={},
                state_override=ResultState.INVALID_TEST,
                override_reason="The sandbox died mid-run.",
            ),
            "2": ResponseJudgment(
                scores={},
                state_override=ResultState.GRADER_DISPUTE,
                override_reason="Refused by the provider.",
            ),
        },
        preference=PreferenceChoice.TIE,
        justification="neither ran",
        validity=GATE,
    )
    session.save(code, judgment, 9, submit=True)
    return pk


@pytest.fixture(scope="module", params=["afp", "pairs"])
def bundle(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp(request.param)
    db = connect(root / "b.db")
    try:
        if request.param == "afp":
            pk = _afp_overridden(db)
        else:
            pk = judged_pairs(db, root, 12)
            unblind(db, "panda", "coordinator")
        export_bundle(db, pk, root / "bundle")
    finally:
        db.close()
    return root / "bundle"


def _old_excluded(analysis: Analysis) -> list[dict[str, Any]]:
    """The excluded runs as they were made from each run's ``RunVerdict`` model."""
    out = []
    for v in analysis.verdicts:
        excluded = v.state is not None and not v.state.in_quality_denominator
        if not excluded and not v.excluded_reason:
            continue
        reasons = []
        if v.excluded_reason:
            reasons.append(f"record: {v.excluded_reason}")
        elif v.record_state:
            reasons.append(f"record state: {v.record_state}")
        if v.automated_state is not None and not v.automated_state.in_quality_denominator:
            reasons.append(f"automated verification: {v.automated_outcome}")
        sources = [v.adjudication] if v.adjudication else list(v.reviews)
        for r in sources:
            if r is not None and r.state_override is not None:
                who = r.adjudicator if isinstance(r, AdjudicatedJudgment) else r.reviewer
                reasons.append(f"{who}: {r.state_override.value}: {r.override_reason}")
        out.append(
            {
                "run": v.run,
                "task": v.task,
                "condition": v.condition,
                "trial": v.trial,
                "state": v.state.value if v.state else None,
                "source": v.source,
                "reasons": reasons,
                "material": v.material,
            }
        )
    return out


def test_each_verdict_line_is_its_models_json(bundle: Path) -> None:
    analysis = analyse(parse(_files(bundle)))
    verdicts = analysis.verdicts
    lines = list(verdicts.lines())
    assert lines == [v.model_dump(mode="json") for v in verdicts]
    assert [f._asdict() for f in verdicts.facts()] == [
        {k: getattr(v, k) for k in f._fields}
        for f, v in zip(verdicts.facts(), verdicts, strict=True)
    ]
    assert any(line["reviews"] or line.get("preferences") for line in lines)
    # The file: each model's JSON with its figures rounded, as it was written from the models.
    written = jsonl_bytes((v.model_dump(mode="json") for v in verdicts), derived=True)
    assert b"".join(verdict_chunks(analysis)) == written


def test_the_excluded_runs_are_those_of_the_verdicts_models(bundle: Path) -> None:
    analysis = analyse(parse(_files(bundle)))
    assert excluded_runs(analysis) == _old_excluded(analysis)
    if bundle.parent.name.startswith("afp"):
        reasons = [r for e in excluded_runs(analysis) for r in e["reasons"]]
        assert "demo: INVALID_TEST: The sandbox died mid-run." in reasons, reasons


def test_deriving_a_bundle_makes_no_model_of_a_runs_verdict(
    bundle: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = _files(bundle)
    analysis = analyse(parse(files))
    made = 0
    verdict = RunVerdicts._verdict

    def counted(self: RunVerdicts, *args: Any) -> Any:
        nonlocal made
        made += 1
        return verdict(self, *args)

    monkeypatch.setattr(RunVerdicts, "_verdict", counted)
    derived = derive(files, analysis)
    assert len(analysis.verdicts) > 0
    assert made == 0  # it was nine a run
    assert all(derived[path] == files[path] for path in derived if path in files)
