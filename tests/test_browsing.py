"""The database reads well in Datasette: views, a final-verdicts snapshot, described columns;
and the JSON Schemas the exports are checked against, validated by the jsonschema package."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import sqlite_utils
from datasette.app import Datasette

from abp_tui.export.validation import MANIFEST_SCHEMA_FILE, schema_errors
from abp_tui.models import PreferenceChoice
from abp_tui.services.adjudicating import final_verdicts
from abp_tui.store import connect
from abp_tui.store.metadata import column_description
from abp_tui.store.views import table_columns
from tests.factories import ROOT, Cli, afp_judgment, two_reviewer_design


def _judged(tmp_path: Path, db: sqlite_utils.Database) -> tuple[int, list[str]]:
    """Two items: both reviewers judge the first (b revises once); a alone the second, with a
    fatal hit; b leaves a draft of the second."""
    pk, a, b, codes = two_reviewer_design(tmp_path, db)
    a.save(codes[0], afp_judgment(2, 2, PreferenceChoice.TIE), 3, submit=True)
    b.save(codes[0], afp_judgment(2, 1, PreferenceChoice.RESPONSE_1), 4, submit=True)
    b.save(codes[0], afp_judgment(1, 2, PreferenceChoice.RESPONSE_2), 5, submit=True, reason="x")
    a.save(
        codes[1],
        afp_judgment(2, 2, PreferenceChoice.RESPONSE_1, fatal1=("Fatal P02",)),
        2,
        submit=True,
    )
    b.save(codes[1], afp_judgment(0, 0, PreferenceChoice.TIE), 1)
    return pk, codes


def test_every_table_view_and_column_is_described(tmp_path: Path) -> None:
    db = connect(tmp_path / "new.db")
    columns = table_columns(db)
    assert {"current_runs", "latest_judgments", "final_verdicts", "runs"} <= set(columns)
    undescribed = [
        f"{table}.{column}"
        for table, cols in columns.items()
        for column in cols
        if not column_description(table, column)
    ]
    assert undescribed == []


def test_latest_judgments_has_one_row_per_judged_run_with_scores_as_columns(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    _judged(tmp_path, db)
    db.close()
    db = connect(tmp_path / "test.db")  # as a browser would open it later
    cols = table_columns(db)["latest_judgments"]
    assert {"score_task_correctness", "score_failure_control", "total_score"} <= set(cols)
    rows = list(db.query("SELECT * FROM latest_judgments ORDER BY item, reviewer, shown_as"))
    # 2 reviewers x 2 runs on the first item, 1 x 2 on the second; b's draft is not a row.
    assert len(rows) == 6
    b_rows = [r for r in rows if r["reviewer"] == "b"]
    assert {r["revision"] for r in b_rows} == {2}  # the latest submitted revision only
    assert all(r["revision_reason"] == "x" for r in b_rows)
    by_shown = {r["shown_as"]: r for r in b_rows}
    assert by_shown["1"]["score_task_correctness"] == 1
    assert by_shown["2"]["total_score"] == 8
    # b preferred Response 2: the preferred run is the one b saw second.
    assert {r["preferred_run_id"] for r in b_rows} == {by_shown["2"]["run_id"]}
    fatal = [r for r in rows if r["fatal_hits"] != "[]"]
    assert len(fatal) == 1 and json.loads(fatal[0]["fatal_hits"]) == ["Fatal P02"]


def test_current_runs_shows_outputs_and_condition_labels(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    _judged(tmp_path, db)
    rows = list(db.query("SELECT * FROM current_runs ORDER BY run_id"))
    runs = db.execute("SELECT count(*) FROM runs WHERE current = 1").fetchone()[0]
    assert len(rows) == runs > 0
    first = rows[0]
    assert first["condition_label"] and first["output"]
    assert first["output_chars"] == len(first["output"])


def test_schema_writes_metadata_and_a_final_verdicts_snapshot(tmp_path: Path, cli: Cli) -> None:
    db = connect(cli.db_path)
    pk, _ = _judged(tmp_path, db)
    expected = {v.source for v in final_verdicts(db, pk)}
    db.close()
    out = tmp_path / "schemas"
    result = cli("schema", "--out", out)
    assert result.code == 0, result.err
    metadata = json.loads((out / "metadata.json").read_text())
    tables = metadata["databases"][cli.db_path.stem]["tables"]
    assert tables["latest_judgments"]["columns"]["score_task_correctness"]
    db = connect(cli.db_path)
    snapshot = list(db.query("SELECT * FROM final_verdicts"))
    assert {r["source"] for r in snapshot} == expected
    assert len(snapshot) == 4 and all(r["computed_at"] for r in snapshot)
    fatal = [r for r in snapshot if "Fatal P02" in r["fatal_hits"]]
    assert [r["result_state"] for r in fatal] == ["MODEL_FAIL"]
    # Taking the snapshot again replaces it rather than adding to it.
    assert cli("schema", "--out", out).code == 0
    assert db.execute("SELECT count(*) FROM final_verdicts").fetchone()[0] == 4


async def test_datasette_serves_the_views_with_their_descriptions(tmp_path: Path, cli: Cli) -> None:
    db = connect(cli.db_path)
    _, codes = _judged(tmp_path, db)
    db.close()
    out = tmp_path / "schemas"
    assert cli("schema", "--out", out).code == 0
    metadata = json.loads((out / "metadata.json").read_text())
    ds = Datasette([str(cli.db_path)], metadata=metadata)
    name = cli.db_path.stem
    response = await ds.client.get(f"/{name}/latest_judgments.json?_shape=array")
    assert response.status_code == 200
    assert {r["item"] for r in response.json()} == set(codes)
    page = await ds.client.get(f"/{name}/latest_judgments")
    assert page.status_code == 200 and "Where the reviewer saw this run" in page.text
    for table in ("current_runs", "final_verdicts"):
        assert (await ds.client.get(f"/{name}/{table}.json")).status_code == 200


def test_a_manifest_that_breaks_its_schema_is_named_field_by_field() -> None:
    manifest = {
        "schema": "abp-tui-bundle/v1",
        "tool": {"name": "abp-tui", "version": "0"},
        "environment": {},
        "study": "s",
        "synthetic": False,
        "design": {"name": "m", "version": "1", "sha256": "0" * 64, "seed": 1},
        "seed": 1,
        "status": "x",
        "missing": [],
        "schemas": {},
        "reproduce": "abp-tui verify .",
        "derived": [],
        "files": [{"path": "a", "sha256": "0" * 64, "bytes": -1}, {"path": "b", "bytes": 0}],
        "extra": 1,
    }
    errors = schema_errors(manifest, MANIFEST_SCHEMA_FILE)
    assert errors == [
        "$: unexpected field 'extra'",
        "$.design.version: expected integer, got str",
        "$.files[0].bytes: expected a value >= 0",
        "$.files[1]: required field 'sha256' is missing",
    ]


def test_verify_refuses_a_manifest_that_breaks_its_schema(tmp_path: Path, cli: Cli) -> None:
    assert cli("demo").code == 0
    assert cli("unblind", "--study", "afp-pilot-demo", "--yes").code == 0
    out = tmp_path / "bundle"
    assert cli("export", "bundle", "--study", "afp-pilot-demo", "--out", out).code == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert cli("verify", out).code == 0
    manifest["files"][0]["bytes"] = "many"
    (out / "manifest.json").write_text(json.dumps(manifest))
    result = cli("verify", out)
    assert result.code == 1
    assert "manifest.json" in result.err and "$.files[0].bytes: expected integer" in result.err


def test_canonical_json_is_written_in_one_place() -> None:
    """The compact sorted JSON that hashes are taken over has one definition."""
    offenders = []
    for path in sorted((ROOT / "abp_tui").rglob("*.py")):
        if path.name == "canonical.py" and path.parent.name == "text":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "dumps"):
                continue
            words = {k.arg: k.value for k in node.keywords}
            separators = words.get("separators")
            compact = isinstance(separators, ast.Tuple) and [
                getattr(e, "value", None) for e in separators.elts
            ] == [",", ":"]
            if "sort_keys" in words and compact:
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert offenders == []
