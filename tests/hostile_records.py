"""Records whose every text field is hostile to a terminal UI (markup, actions, escapes).

Used by ``tests/test_hostile_screens.py``: each field carries :func:`hostile` with a tag naming
the field, so a test can say which field was shown as markup, or not shown at all. This module
holds no tests.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from abp_tui.models import (
    Finding,
    Judgment,
    PreferenceChoice,
    ResponseJudgment,
    ResultState,
    StudyDesign,
)
from abp_tui.models.builtin_rubrics import AFP_V01
from abp_tui.services.designing import create_design
from abp_tui.services.importing import import_paths
from abp_tui.services.reviewing import ReviewSession
from abp_tui.store import connect
from tests.factories import GATE, flipped, write_jsonl

ACTION = "[@click=app.quit]Z[/]"
"""Rich/Textual markup that, parsed, is a live action: clicking it would quit the app."""
LINK = "[link=https://evil.example/]L[/link]"
ESCAPE = "\x1b]52;c;ZXZpbA==\x07\x1b[2J"
"""An OSC 52 clipboard write and a clear-screen: must never reach the terminal as they are."""


LIVE: frozenset[str] = frozenset(
    {"T2", "title-T2", "prompt-T2", "out-T2-2", "rev2", "labelC", "second", "why-r2"}
    | {"justify-r2", "findingtitle", "rubricfatal", "anchor1"}
)
"""Tags whose text is valid markup: parsed, it would not crash but draw a live action."""


def hostile(tag: str) -> str:
    """Text for the field ``tag`` names: markup that crashes a parser (``[/]`` closes nothing)
    before a live action, or, for the tags in :data:`LIVE`, the live action alone."""
    return f"{tag}{ACTION}" if tag in LIVE else f"{tag}[/]{ACTION}"


def hostile_identity(tag: str) -> str:
    """Hostile text for a run's model, provider or engine. Their name parts are masked in
    every text a reviewer reads, so they hold no word of :data:`ACTION` (whose words would then
    be masked in the outputs and no longer be visible as written)."""
    return f"{tag}[/][red]"


STUDY = hostile("study")
A, C = hostile("condA"), hostile("condC")
R1, R2 = hostile("rev1"), hostile("rev2")
DESIGN = hostile("design")
TASKS = (hostile("T1"), hostile("T2"))


def _rubric() -> dict[str, Any]:
    rubric = AFP_V01.model_dump(mode="json")
    rubric["id"] = "hostile-rubric"
    rubric["name"] = hostile("rubric")
    for dim in rubric["dimensions"]:
        dim["name"] = hostile(f"dim-{dim['id']}")
        dim["anchors"] = {k: hostile(f"anchor{k}") for k in dim["anchors"]}
    rubric["fatal_criteria"] = [hostile("rubricfatal")]
    for check in rubric.get("validity_gate", []):
        check["text"] = hostile(f"gate-{check['id']}")
    return rubric


def study_lines() -> list[dict[str, Any]]:
    rubric = _rubric()
    lines: list[dict[str, Any]] = [
        {
            "type": "study",
            "id": STUDY,
            "name": hostile("studyname"),
            "description": hostile("studydesc"),
            "rubric_id": rubric["id"],
            "limitations": [hostile("limitation")],
        },
        {"type": "rubric", **rubric},
        {
            "type": "condition",
            "id": A,
            "label": hostile("labelA"),
            "instructions": hostile("instrA"),
        },
        {
            "type": "condition",
            "id": C,
            "label": hostile("labelC"),
            "instructions": hostile("instrC"),
        },
    ]
    for task in TASKS:
        lines.append(
            {
                "type": "task",
                "id": task,
                "title": hostile(f"title-{task[:2]}"),
                "prompt": hostile(f"prompt-{task[:2]}") + "\n" + LINK + ESCAPE,
                "evidence": hostile(f"evidence-{task[:2]}"),
                "expected_behaviour": hostile(f"expected-{task[:2]}"),
                "fatal_criteria": [hostile(f"fatal-{task[:2]}")],
                "risk_type": hostile(f"risk-{task[:2]}"),
            }
        )
        for index, cond in enumerate((A, C), start=1):
            run_id = f"{task[:2]}-{index}-{hostile('run')}"
            lines += [
                {
                    "type": "trace_event",
                    "run_id": run_id,
                    "seq": 1,
                    "kind": hostile("kind"),
                    "tool": hostile("tool"),
                    "input_tokens": 10,
                    "output_tokens": 5,
                },
                {
                    "type": "run",
                    "id": run_id,
                    "task_id": task,
                    "condition_id": cond,
                    "output": hostile(f"out-{task[:2]}-{index}") + "\n" + LINK + ESCAPE,
                    "model": hostile_identity("model"),
                    "provider": hostile_identity("provider"),
                    "engine": hostile_identity("engine"),
                    "tokens": {"input": 100, "output": 10},
                },
            ]
    return lines


def _judgment(score: int, preference: PreferenceChoice, tag: str) -> Judgment:
    def response(value: int) -> ResponseJudgment:
        dims = [d.id for d in AFP_V01.dimensions]
        return ResponseJudgment(
            scores={d: value for d in dims},
            rationales={d: hostile(f"why-{tag}") for d in dims} if value < 2 else {},
        )

    return Judgment(
        responses={"1": response(score), "2": response(2)},
        preference=preference,
        justification=hostile(f"justify-{tag}"),
        validity=GATE,
    )


def hostile_database(tmp_path: Path) -> Path:
    """The hostile study with two designs; on the first, reviewers R1 and R2 disagree on one
    item (scores 0 against 2, opposite preferences) and R1 records a finding."""
    db_path = tmp_path / "hostile.db"
    db = connect(db_path)
    try:
        import_paths(db, [write_jsonl(tmp_path / "hostile.jsonl", study_lines())])
        pk = create_design(
            db,
            StudyDesign(
                study=STUDY,
                name=DESIGN,
                seed=5,
                contrasts=[(C, A)],
                reviewers=[R1, R2],
                reviewers_per_item=2,
                mask_terms=[],
            ),
        ).pk
        create_design(
            db, StudyDesign(study=STUDY, name=hostile("second"), seed=6, single_items=True)
        )
        one, two = ReviewSession(db, pk, R1), ReviewSession(db, pk, R2)
        codes = sorted(r.code for r in one.queue())
        same = flipped(one, codes[0]) == flipped(two, codes[0])
        other = PreferenceChoice.RESPONSE_2 if same else PreferenceChoice.RESPONSE_1
        one.save(codes[0], _judgment(2, PreferenceChoice.RESPONSE_1, "r1"), 3, submit=True)
        judged = _judgment(0, other, "r2")
        responses = dict(judged.responses)
        responses["2"] = ResponseJudgment(
            state_override=ResultState.GRADER_DISPUTE, override_reason=hostile("override")
        )
        two.save(codes[0], judged.model_copy(update={"responses": responses}), 3, submit=True)
        one.record_finding(
            codes[0],
            Finding(
                id=hostile("findingid"),
                title=hostile("findingtitle"),
                severity="high",
                layer="model",
                actual=hostile("findingactual"),
                evidence=hostile("findingevidence"),
            ),
        )
    finally:
        db.close()
    return db_path
