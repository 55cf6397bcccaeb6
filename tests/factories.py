"""Shared test factories: studies, designs, judgments and the constants tests agree on.

Every test module builds its data from here instead of importing another ``test_*.py``: a test
module is a list of tests, not a library, and importing one from another re-runs its collection
and ties unrelated files together. The factories go through the core's own functions (import,
design, review session, adjudication, unblinding), so a test set up here sees the database a user
would have. This module must not hold tests, or write anywhere but the paths a test passes in;
its one cache (``_built_once``) keeps in-memory copies of finished databases, never files.

Vocabulary:

- ``write_jsonl`` / ``afp_study_lines``: the native run-record format, one JSON object a line.
- ``afp_study``: study ``s`` (AFP rubric), conditions A and C, tasks P01 and P02, four runs.
- ``two_reviewer_design``: that study with a design judged by reviewers ``a`` and ``b``.
- ``open_design`` / ``judged_open_design``: that study with an open design (reviewers enrol on
  first opening it), the second with alice's judgments submitted; ``llmbar_open_design``: the
  reference LLMBar set with one.
- ``import_afp_rerun``: the bundled AFP demo's timed-out run, rerun and imported.
- ``native_study``: a complete small study (texts, instructions, limitations), unblinded.
- ``abp_judged`` / ``afp_judged``: the bundled demo, unblinded, with judgments by reviewers
  (built once per process, then copied into each test's database: see ``_built_once``).
- ``afp_judgment`` / ``business_judgment`` / ``full_judgment``: judgments scored on every dimension.
- ``labelled_pairs_judged``: a PandaLM-style study (three imported label sets) whose pair design
  reviewers ann and bo judged, agreeing on some items only.
"""

from __future__ import annotations

import contextlib
import json
import random
import shutil
import sqlite3
import tracemalloc
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest
import sqlite_utils

from abp_tui.bench.pairwise_import import write_pairs
from abp_tui.cli import main
from abp_tui.export.bundle_analysis import Inputs, parse
from abp_tui.export.bundle_reading import read_bundle
from abp_tui.models import (
    Finding,
    Judgment,
    PreferenceChoice,
    ResponseJudgment,
    ResultState,
    StudyDesign,
)
from abp_tui.models.builtin_rubrics import AFP_V01, BUSINESS_V1
from abp_tui.services.adjudicating import adjudicate
from abp_tui.services.demo import load_demo
from abp_tui.services.designing import (
    DesignChoices,
    create_design,
    create_from_choices,
    find_design,
)
from abp_tui.services.importing import import_paths
from abp_tui.services.publishing import export_bundle
from abp_tui.services.results_report import unblind
from abp_tui.services.reviewing import ReviewSession
from abp_tui.store import connect
from abp_tui.store.judging import item_by_code

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
DEMO = FIXTURES / "demo"

#: The AFP rubric's dimensions, in its order.
AFP_DIMS: tuple[str, ...] = tuple(d.id for d in AFP_V01.dimensions)
#: The business rubric's dimensions (the ABP demo is scored against it), in its order.
BUSINESS_DIMS: tuple[str, ...] = tuple(d.id for d in BUSINESS_V1.dimensions)
#: Every validity-gate question answered yes: the comparison is fair and may count.
GATE: dict[str, bool] = {
    k: True
    for k in ("consistent", "visible", "same_requirement", "invariant_assertions", "observable")
}
#: Text that would run script in a report that forgot to escape it.
HOSTILE = '<script>document.title="pwned"</script><img src=x onerror=alert(1)>'


# -- files ---------------------------------------------------------------------------------------
def write_jsonl(path: Path, lines: Iterable[Mapping[str, Any]]) -> Path:
    """Write records one JSON object a line (UTF-8, LF) and return the path."""
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


def copy_db(template: Path, target: Path) -> sqlite_utils.Database:
    """Open a private copy of a database file built once (a module or session template).

    Copying a closed database file is cheaper than migrating (or importing into) a new one; each
    test still gets its own file, so nothing a test writes is seen by another, in any order or
    on any worker.
    """
    shutil.copyfile(template, target)
    return connect(target)


def build_db(path: Path, build: Callable[[sqlite_utils.Database], object]) -> Path:
    """Create the database file at ``path`` with ``build`` and close it (for templates)."""
    db = connect(path)
    try:
        build(db)
    finally:
        db.close()
    return path


# -- studies ---------------------------------------------------------------------------------------
def afp_study_lines(extra_output: str = "") -> list[dict[str, object]]:
    """Study ``s`` on the AFP rubric: conditions A and C, tasks P01 and P02, one run each."""
    lines: list[dict[str, object]] = [
        {"type": "study", "id": "s", "rubric_id": "afp-v0.1"},
        {"type": "condition", "id": "A", "label": "Model Only"},
        {"type": "condition", "id": "C", "label": "Governed Workflow"},
    ]
    for t in ("P01", "P02"):
        lines.append(
            {"type": "task", "id": t, "prompt": f"Task {t}", "fatal_criteria": [f"Fatal {t}"]}
        )
        for c in ("A", "C"):
            lines.append(
                {
                    "type": "run",
                    "id": f"{t}-{c}",
                    "task_id": t,
                    "condition_id": c,
                    "output": f"Answer for {t} from the Governed Workflow. {extra_output}",
                    "model": "acme/demo-model-9",
                    "provider": "acme",
                }
            )
    return lines


def afp_study(tmp_path: Path, db: sqlite_utils.Database, extra_output: str = "") -> None:
    """Import ``afp_study_lines`` from ``tmp_path/s.jsonl`` (the file name is part of it)."""
    import_paths(db, [write_jsonl(tmp_path / "s.jsonl", afp_study_lines(extra_output))])


def two_reviewer_design(
    tmp_path: Path, db: sqlite_utils.Database
) -> tuple[int, ReviewSession, ReviewSession, list[str]]:
    """``afp_study`` with a C-vs-A design every item of which reviewers a and b both judge.

    Returns the design's pk, both sessions and the sorted item codes.
    """
    afp_study(tmp_path, db)
    pk = create_design(
        db,
        StudyDesign(
            study="s",
            name="m",
            seed=3,
            contrasts=[("C", "A")],
            reviewers=["a", "b"],
            reviewers_per_item=2,
        ),
    ).pk
    a, b = ReviewSession(db, pk, "a"), ReviewSession(db, pk, "b")
    return pk, a, b, sorted(r.code for r in a.queue())


def two_reviewer_design_judged(tmp_path: Path, db: sqlite_utils.Database) -> tuple[int, list[str]]:
    """:func:`two_reviewer_design` with both items judged by a and b on the AFP rubric, the
    two disputing the first and b revising the second after submitting it. Returns the
    design's pk and the item codes."""
    pk, a, b, codes = two_reviewer_design(tmp_path, db)
    first, second = codes
    a.save(first, afp_judgment(2, 2, PreferenceChoice.RESPONSE_1), 1, submit=True)
    b.save(first, afp_judgment(0, 1, PreferenceChoice.RESPONSE_2), 1, submit=True)
    a.save(second, afp_judgment(2, 1, PreferenceChoice.TIE), 1, submit=True)
    b.save(second, afp_judgment(1, 1, PreferenceChoice.RESPONSE_1), 1, submit=True)
    b.save(second, afp_judgment(2, 1, PreferenceChoice.TIE), 1, submit=True, reason="Saw a's.")
    return pk, codes


def open_design(tmp_path: Path, db: sqlite_utils.Database, name: str = "open") -> int:
    """``afp_study`` with an open C-vs-A design (nobody listed: a reviewer enrols on first
    opening it; one reviewer per item): its pk."""
    afp_study(tmp_path, db)
    return create_design(db, StudyDesign(study="s", name=name, seed=3, contrasts=[("C", "A")])).pk


def judged_open_design(tmp_path: Path, db: sqlite_utils.Database) -> tuple[int, list[str]]:
    """``open_design`` with alice enrolled and both her items submitted (one judgment per item,
    so nobody disagrees yet): the design's pk and the item codes."""
    pk = open_design(tmp_path, db)
    alice = ReviewSession(db, pk, "alice")
    codes = [r.code for r in alice.queue()]
    for code in codes:
        alice.save(code, afp_judgment(2, 1, PreferenceChoice.RESPONSE_1), 5, submit=True)
    return pk, codes


def llmbar_open_design(db: sqlite_utils.Database, reference: Path) -> int:
    """The reference LLMBar manual set imported as study ``llmbar`` (its AI judges' verdicts and
    gold labels), with an open design of its two responses and no rubric: its pk."""
    import_paths(db, [reference / "llmbar-manual"], study="llmbar")
    design = StudyDesign(
        study="llmbar", name="open", seed=3, rubric="none", contrasts=[("response1", "response2")]
    )
    return create_design(db, design).pk


def native_study(
    tmp_path: Path,
    db: sqlite_utils.Database,
    *,
    prompt: str = "Does the lease meet the cap?",
    label: str = "Governed Workflow",
    output: str = "The signed lease prevails.",
    condition_id: str = "C",
    limitations: tuple[str, ...] = ("Two fixtures only.",),
) -> int:
    """A small complete study (full texts, instructions, limitations) with a 1-reviewer design.

    Reviewer ``alice`` judges design ``main``; the study is already unblinded. Returns the pk.
    """
    lines: list[dict[str, object]] = [
        {
            "type": "study",
            "id": "s",
            "rubric_id": "afp-v0.1",
            "name": "Small study",
            "limitations": list(limitations),
        },
        {"type": "condition", "id": "A", "label": "Model Only"},
        {
            "type": "condition",
            "id": condition_id,
            "label": label,
            "instructions": "Tie every conclusion to the evidence.",
        },
    ]
    for t in ("P01", "P02"):
        lines.append(
            {
                "type": "task",
                "id": t,
                "prompt": f"{prompt} ({t})",
                "risk_type": "Source conflict",
                "fatal_criteria": [f"Fatal {t}"],
            }
        )
        for c in ("A", condition_id):
            lines.append(
                {
                    "type": "run",
                    "id": f"{t}-{c}",
                    "task_id": t,
                    "condition_id": c,
                    "output": f"{output} [{t}/{c}]",
                    "model": "acme/demo-model-9",
                    "provider": "acme",
                    "tokens": {"input": 100, "output": 20 + len(c)},
                    "wall_clock_ms": 1000.0 + len(t),
                }
            )
    import_paths(db, [write_jsonl(tmp_path / "s.jsonl", lines)])
    pk = create_design(
        db,
        StudyDesign(
            study="s", name="main", seed=7, contrasts=[(condition_id, "A")], reviewers=["alice"]
        ),
    ).pk
    unblind(db, "s", "coordinator")
    return pk


# -- judgments -------------------------------------------------------------------------------------
def afp_judgment(
    scores1: int, scores2: int, pref: PreferenceChoice, fatal1: tuple[str, ...] = ()
) -> Judgment:
    """A pair judgment on the AFP rubric: every dimension of a response gets the same score.

    Scores below 2 carry a rationale (the rubric asks for one); the gate is met.
    """

    def resp(score: int, fatal: tuple[str, ...] = ()) -> ResponseJudgment:
        return ResponseJudgment(
            scores={d: score for d in AFP_DIMS},
            rationales={d: "gap" for d in AFP_DIMS} if score < 2 else {},
            fatal_hits=fatal,
        )

    return Judgment(
        responses={"1": resp(scores1, fatal1), "2": resp(scores2)},
        preference=pref,
        justification="because",
        validity=GATE,
    )


def business_judgment(score1: int, score2: int, pref: PreferenceChoice) -> Judgment:
    """A pair judgment on the business rubric (the ABP demo), scored like ``afp_judgment``."""

    def resp(score: int) -> ResponseJudgment:
        return ResponseJudgment(
            scores={d: score for d in BUSINESS_DIMS},
            rationales={d: "gap" for d in BUSINESS_DIMS} if score < 2 else {},
        )

    return Judgment(
        responses={"1": resp(score1), "2": resp(score2)},
        preference=pref,
        justification="because",
        validity=GATE,
    )


def full_judgment(
    n_responses: int, pref: PreferenceChoice | None = PreferenceChoice.TIE
) -> Judgment:
    """Every AFP dimension of ``n_responses`` responses scored 2; a preference for pairs."""
    response = ResponseJudgment(scores={d: 2 for d in AFP_DIMS})
    return Judgment(
        responses={str(i): response for i in range(1, n_responses + 1)},
        preference=pref,
        justification="Both meet the requirement." if pref else "",
        validity=GATE,
    )


def flipped(session: ReviewSession, code: str) -> bool:
    """Whether this reviewer sees the item's runs in swapped places."""
    return next(r.flipped for r in session.queue() if r.code == code)


def panda_pairs(count: int, labels: Sequence[Callable[[int], int]]) -> list[dict[str, Any]]:
    """``count`` PandaLM-style pairs of m1 against m2, labelled by ``len(labels)`` annotators
    (``labels[k](i)``: annotator k+1's label of pair i: 0 tie, 1 or 2 the better response)."""
    return [
        {
            "idx": i,
            "instruction": f"Rewrite sentence {i} plainly.",
            "input": "",
            "response1": f"First rewrite of sentence {i}.",
            "response2": f"Second rewrite of sentence {i}.",
            "cmp_key": "m1_m2",
            **{f"annotator{k}": label(i) for k, label in enumerate(labels, 1)},
        }
        for i in range(count)
    ]


def labelled_pairs_judged(db_path: Path, folder: Path, items: int = 6, study: str = "panda") -> int:
    """Study ``study``: ``items`` PandaLM-style pairs (m1 against m2) labelled by three
    annotators, and a design of them judged by ann (a, b, tie in turn) and bo (a, then b and
    tie every other item): the reviewers part on some items, every label set on others. The
    design's pk."""
    source = folder / "panda.json"
    labels = (lambda i: 1 + i % 2, lambda i: 1 + i % 2, lambda i: i % 3)
    source.write_text(json.dumps(panda_pairs(items, labels)), "utf-8")
    choices = (PreferenceChoice.RESPONSE_1, PreferenceChoice.RESPONSE_2, PreferenceChoice.TIE)
    db = connect(db_path)
    try:
        import_paths(db, [source], study=study)
        pk = create_design(
            db,
            StudyDesign(
                study=study,
                name="pairs",
                seed=7,
                contrasts=[("m2", "m1")],
                reviewers=["ann", "bo"],
                reviewers_per_item=2,
            ),
        ).pk
        for reviewer in ("ann", "bo"):
            session = ReviewSession(db, pk, reviewer)
            for i, row in enumerate(session.queue()):
                pick = choices[i % 3] if reviewer == "ann" or i % 2 else choices[(i // 2) % 2]
                judgment = Judgment(preference=pick, justification="Read both.")
                session.save(row.code, judgment, 2.0, submit=True)
    finally:
        db.close()
    return pk


def judge_all(db: sqlite_utils.Database, pk: int, justification: str = "Both meet it.") -> None:
    """Reviewer alice submits a tie, everything scored 2, on every item of design ``pk``."""
    session = ReviewSession(db, pk, "alice")
    for row in session.queue():
        judgment = afp_judgment(2, 2, PreferenceChoice.TIE).model_copy(
            update={"justification": justification}
        )
        session.save(row.code, judgment, 10, submit=True)


# -- the bundled demo, judged ----------------------------------------------------------------------
_BUILT: dict[str, tuple[sqlite3.Connection, int]] = {}


def _built_once(db: sqlite_utils.Database, build: Callable[[sqlite_utils.Database], int]) -> int:
    """Run ``build`` on ``db`` the first time in this process; afterwards copy its result in.

    The first database built is kept in memory (SQLite's backup API) and later calls copy its
    pages into the (fresh) database they are given, which is several times cheaper than
    importing, designing and judging again and gives the same rows. Nothing is shared between
    tests or xdist workers: each process keeps its own in-memory copy and each test gets its own
    file. ``db`` must be freshly connected (empty but for the schema).
    """
    key = build.__qualname__
    if key in _BUILT:
        template, pk = _BUILT[key]
        template.backup(db.conn)
        return pk
    pk = build(db)
    template = sqlite3.connect(":memory:", check_same_thread=False)
    db.conn.backup(template)
    _BUILT[key] = (template, pk)
    return pk


def abp_judged(db: sqlite_utils.Database) -> int:
    """The ABP demo, unblinded, with two pair items and one single item judged by 'demo'."""
    return _built_once(db, _build_abp_judged)


def afp_judged(db: sqlite_utils.Database) -> int:
    """The AFP demo, unblinded: one unanimous item, one adjudicated, one unresolved, a finding."""
    return _built_once(db, _build_afp_judged)


def _build_abp_judged(db: sqlite_utils.Database) -> int:
    load_demo(db, DEMO)
    unblind(db, "abp-demo", "coordinator")
    design = find_design(db, "abp-demo")
    session = ReviewSession(db, design.pk, "demo")
    queue = session.queue()
    pairs = [r.code for r in queue if r.kind == "pair"]
    singles = [r.code for r in queue if r.kind == "single"]
    session.save(pairs[0], business_judgment(0, 2, PreferenceChoice.RESPONSE_2), 30, submit=True)
    session.save(pairs[1], business_judgment(2, 2, PreferenceChoice.TIE), 10)  # a draft first
    session.save(pairs[1], business_judgment(2, 1, PreferenceChoice.RESPONSE_1), 20, submit=True)
    session.save(
        pairs[1],
        business_judgment(2, 0, PreferenceChoice.RESPONSE_1),
        5,
        submit=True,
        reason="Second look: response 2 invents a test result.",
    )
    single = Judgment(
        responses={"1": ResponseJudgment(scores={d: 2 for d in BUSINESS_DIMS})},
        validity=GATE,
    )
    # A single item of a run neither pair shows: its verdict is a single review, not a conflict.
    shown = {pk for code in pairs[:2] for pk in item_by_code(db, design.pk, code).run_pks}
    alone = next(c for c in singles if not shown & set(item_by_code(db, design.pk, c).run_pks))
    session.save(alone, single, 12, submit=True)
    return design.pk


def _build_afp_judged(db: sqlite_utils.Database) -> int:
    load_demo(db, DEMO)
    unblind(db, "afp-pilot-demo", "coordinator")
    design = find_design(db, "afp-pilot-demo")
    a = ReviewSession(db, design.pk, "demo")
    b = ReviewSession(db, design.pk, "second-reviewer")
    codes = sorted(r.code for r in a.queue())
    a.save(codes[0], afp_judgment(2, 2, PreferenceChoice.TIE), 40, submit=True)
    b.save(codes[0], afp_judgment(2, 2, PreferenceChoice.TIE), 35, submit=True)
    a.save(
        codes[1],
        afp_judgment(2, 2, PreferenceChoice.RESPONSE_1, fatal1=AFP_V01.fatal_criteria[:1]),
        50,
        submit=True,
    )
    b.save(codes[1], afp_judgment(2, 2, PreferenceChoice.TIE), 45, submit=True)
    item = db.execute("SELECT run_a_pk, run_b_pk FROM items WHERE code = ?", [codes[1]]).fetchone()
    adjudicate(
        db,
        design.pk,
        codes[1],
        "carol",
        afp_judgment(1, 2, PreferenceChoice.RESPONSE_2),
        {"1": item[0], "2": item[1]},
        "The fatal hit is not supported by the output.",
    )
    a.save(codes[2], afp_judgment(2, 2, PreferenceChoice.RESPONSE_1), 20, submit=True)
    other = (
        PreferenceChoice.RESPONSE_1
        if flipped(a, codes[2]) != flipped(b, codes[2])
        else PreferenceChoice.RESPONSE_2
    )
    b.save(codes[2], afp_judgment(0, 0, other), 25, submit=True)
    a.record_finding(
        codes[1],
        Finding(
            id="F-001",
            title="Uses the lower-authority figure",
            severity="high",
            layer="model",
            occurrences=2,
            retest_status="not retested",
        ),
    )
    return design.pk


# -- the AFP demo's reruns -------------------------------------------------------------------------
#: The AFP demo's run that timed out (INFRA_ERROR): P06 under C, repeat 3.
AFP_INFRA_RUN = "afp-demo-run-20260112-P06-C-r3"


def import_afp_rerun(cli: Cli, tmp_path: Path, **changes: object) -> str:
    """A completed rerun of ``AFP_INFRA_RUN`` imported into the loaded demo (from a folder in
    ``tmp_path``; ``changes`` to its record): the rerun's id."""
    study = "afp-pilot-demo"
    lines = (DEMO / study / "runs.jsonl").read_text("utf-8").splitlines()
    failed = json.loads(next(line for line in lines if AFP_INFRA_RUN in line))
    rerun = {
        **failed,
        "execution_id": f"{AFP_INFRA_RUN}-rerun1",
        "validity_status": "UNSCORED",
        "error_type": None,
        "error_message": None,
        "raw_output": "No, not tonight: the change freeze and the missing rollback test stand.",
        "latency_ms": 5000,
        "input_tokens": 222,
        "output_tokens": 20,
        **changes,
    }
    folder = tmp_path / study
    folder.mkdir()
    (folder / "runs.jsonl").write_text(json.dumps(rerun) + "\n", "utf-8")
    assert cli("import", folder, "--study", study).code == 0, "rerun import"
    return str(rerun["execution_id"])


# -- the command line ------------------------------------------------------------------------------
@dataclass
class CliResult:
    code: int
    out: str
    err: str


class Cli:
    """Runs ``abp-tui`` in-process against a database in tmp_path: ``cli("import", path)``."""

    def __init__(self, db_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        self.db_path = db_path
        self._capsys = capsys

    def __call__(self, *args: str | Path) -> CliResult:
        argv = [str(a) for a in args]
        if "--db" not in argv and argv and argv[0] != "--version":
            argv = [argv[0], "--db", str(self.db_path), *argv[1:]]
        self._capsys.readouterr()
        code = main(argv)
        captured = self._capsys.readouterr()
        return CliResult(code, captured.out, captured.err)


INLINE_RUBRIC_DESIGN = """
study = "s"
name = "own"
seed = 2
contrasts = [["C", "A"]]

[rubric]
id = "brief-v1"
name = "Brief answers"
fatal_criteria = ["Invents a figure."]
acceptance = { min_total = 3, required_twos = ["accuracy"] }

[[rubric.dimensions]]
id = "accuracy"
name = "Accuracy"
anchors = { 0 = "Wrong", 1 = "Partly right", 2 = "Right" }

[[rubric.dimensions]]
id = "brevity"
anchors = { 0 = "Rambles", 1 = "Some padding", 2 = "Tight" }

[[rubric.validity_gate]]
id = "same_task"
text = "Both responses answer the task shown."
"""
"""A design file (TOML) that defines its own rubric, with a validity gate."""


def exported_abp_bundle(root: Path) -> Path:
    """The bundle folder of :func:`abp_judged`'s study, exported under ``root``."""
    db = connect(root / "b.db")
    try:
        export_bundle(db, abp_judged(db), root / "bundle")
    finally:
        db.close()
    return root / "bundle"


PAIR_CHOICES = (PreferenceChoice.RESPONSE_1, PreferenceChoice.RESPONSE_2, PreferenceChoice.TIE)
"""The preferences :func:`judged_pairs` draws from."""


def judged_pairs(db: sqlite_utils.Database, folder: Path, pairs: int, failed: int = 0) -> int:
    """A PandaLM-shaped study ``panda`` of ``pairs`` pairs (its file written under ``folder``)
    imported into ``db``, planned for ann, bo and cy two to an item, and every item judged by
    both (a preference apiece, drawn with a fixed seed, submitted): its design's key.
    ``failed``: that many runs (the first stored) recorded as INFRA_ERROR by their source
    before the design is planned, so that the study has states to count and rows by task."""
    source = folder / f"pairs{pairs}" / "testset-v1.json"
    write_pairs(source, pairs)
    import_paths(db, [source], study="panda")
    if failed:
        db.execute(
            "UPDATE runs SET origin_status = 'INFRA_ERROR' "
            "WHERE pk IN (SELECT pk FROM runs ORDER BY pk LIMIT ?)",
            [failed],
        )
        db.conn.commit()
    pk = create_from_choices(
        db, DesignChoices(study="panda", reviewers="ann,bo,cy", reviewers_per_item=2)
    ).pk
    rng = random.Random(5)
    for reviewer in ("ann", "bo", "cy"):
        session = ReviewSession(db, pk, reviewer)
        for row in session.queue():
            judgment = Judgment(preference=rng.choice(PAIR_CHOICES), justification="Reads better.")
            session.save(row.code, judgment, 3.0, submit=True)
    return pk


_T = TypeVar("_T")


def traced_peak(work: Callable[[], object]) -> int:
    """Bytes held at the peak of ``work`` beyond what was held before it (tracemalloc)."""
    tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        work()
        _now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak - before


def traced_held(work: Callable[[], _T]) -> tuple[int, _T]:
    """Bytes still held once ``work`` has returned (tracemalloc, counted from its start), and
    what it returned."""
    tracemalloc.start()
    try:
        made = work()
        now, _peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return now, made


RUN_OUTCOME_VALUES: dict[str, Any] = {
    "run_id": "r1",
    "task_id": "t1",
    "condition_id": "c1",
    "trial": 1,
    "state": ResultState.MODEL_PASS,
    "source": "unanimous",
    "human_state": ResultState.MODEL_PASS,
    "automated_state": None,
    "fatal": False,
    "scores": {"q": 2.0},
}
"""A run's outcome's fields, each already of its field's type (what ``trusted`` takes)."""


def judged_study(tmp_path: Path, template: Path, pairs: int, failed: int = 0) -> Path:
    """A copy of ``template`` with ``pairs`` judged pairs (:func:`judged_pairs`, ``failed``
    runs failed by their source), unblinded."""
    path = tmp_path / f"judged{pairs}.db"
    database = copy_db(template, path)
    judged_pairs(database, tmp_path, pairs, failed)
    unblind(database, "panda", "lead")
    database.close()
    return path


def results_peak(path: Path) -> tuple[int, str]:
    """The traced peak of ``results --json``, its output written to a file (as a terminal or
    a pipe takes it: never held here), and that output."""
    written = path.with_suffix(".json")
    tracemalloc.start()
    try:
        with written.open("w", encoding="utf-8") as out, contextlib.redirect_stdout(out):
            code = main(["--db", str(path), "--reviewer", "lead", "results", "--json"])
        _now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert code == 0
    return peak, written.read_text("utf-8")


def judged_unblinded(
    root: Path, template: Path, pairs: int, failed: int = 0
) -> tuple[sqlite_utils.Database, int]:
    """A copy of ``template`` with ``pairs`` judged pairs (:func:`judged_pairs`: two of three
    reviewers each, a preference apiece, ``failed`` runs failed by their source), unblinded:
    its database and design."""
    db = copy_db(template, root / f"judged{pairs}.db")
    pk = judged_pairs(db, root, pairs, failed)
    unblind(db, "panda", "lead")
    return db, pk


def exported_judged(root: Path, template: Path, pairs: int, failed: int = 0) -> Path:
    """The study of :func:`judged_unblinded`, exported: the bundle's folder."""
    db, pk = judged_unblinded(root, template, pairs, failed)
    try:
        export_bundle(db, pk, root / f"bundle{pairs}")
    finally:
        db.close()
    return root / f"bundle{pairs}"


def parsed_size(bundle: Path) -> tuple[int, Inputs]:
    """Bytes a bundle's records hold once parsed (its files read beforehand), and the records."""
    files = read_bundle(bundle)
    return traced_held(lambda: parse(files))
