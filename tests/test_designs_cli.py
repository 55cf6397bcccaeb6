"""``abp-tui study create`` without a file (the choices as options), and every command picking
the only study of a database."""

from __future__ import annotations

import json
from pathlib import Path

from abp_tui.services.importing import import_paths
from abp_tui.store import connect
from tests.factories import Cli, afp_study_lines, write_jsonl


def _one_study(tmp_path: Path, cli: Cli) -> None:
    db = connect(cli.db_path)
    try:
        import_paths(db, [write_jsonl(tmp_path / "s.jsonl", afp_study_lines())])
    finally:
        db.close()


def test_study_create_from_options_with_their_defaults(tmp_path: Path, cli: Cli) -> None:
    _one_study(tmp_path, cli)
    db = str(cli.db_path)
    first = cli("study", "create", "--db", db, "--json")
    assert first.code == 0, first.err
    (made,) = json.loads(first.out)["designs"]
    # The only study, every condition, all pairs, the study's rubric, a fresh seed reported.
    assert (made["study"], made["name"], made["rubric"], made["pair_items"]) == (
        "s",
        "pairs",
        "afp-v0.1",
        2,
    )
    assert made["seed"] > 0
    # Again: a design of its own, never a new version of the first by accident.
    (second,) = json.loads(cli("study", "create", "--db", db, "--json").out)["designs"]
    assert (second["name"], second["status"]) == ("pairs-2", "created")
    # Naming an existing design versions it, keeping its seed unless one is given.
    named = cli("study", "create", "--db", db, "--name", "pairs", "--reviewers", "ann,bo", "--json")
    (again,) = json.loads(named.out)["designs"]
    # (both reviewers named judge every item: 2 items, 4 assignments).
    assert (again["status"], again["seed"], again["assignments"]) == (
        "replaced",
        made["seed"],
        4,
    )
    text = cli(
        "study", "create", "--db", db, "--rubric", "none", "--pairs", "C:A", "--name", "prefs"
    )
    assert text.code == 0, text.err
    assert "rubric preference-only" in text.out and "2 pairs" in text.out


def test_study_create_refuses_bad_options_with_one_line(tmp_path: Path, cli: Cli) -> None:
    _one_study(tmp_path, cli)
    db = str(cli.db_path)
    design = tmp_path / "d.toml"
    design.write_text('study = "s"\nname = "d"\nseed = 1\n', "utf-8")
    cases = [
        (("--pairs", "C:B"), "pairs: 'C:B' is not two of the conditions"),
        (("--conditions", "A,Z"), "conditions: study 's' has no condition 'Z'"),
        (("--rubric", "nope"), "rubric 'nope' is neither built in"),
        (("--reviewers-per-item", "2", "--reviewers", "ann"), "only 1 reviewers are listed"),
        (("--reviewers-per-item", "0"), "--reviewers-per-item: expected a count from 1 to"),
        ((str(design), "--seed", "3"), "give design files or choices (--seed), not both"),
        (("--study", "nosuch"), "no study 'nosuch'"),
    ]
    for options, message in cases:
        result = cli("study", "create", "--db", db, *options)
        assert result.code == 1, (options, result.out)
        assert message in result.err and "Traceback" not in result.err
        assert len(result.err.strip().splitlines()) == 1
    assert cli("study", "list", "--db", db, "--json").out.count('"name"') == 0


def test_every_command_picks_the_only_study(tmp_path: Path, cli: Cli) -> None:
    _one_study(tmp_path, cli)
    db = str(cli.db_path)
    assert cli("study", "create", "--db", db, "--reviewers", "ann").code == 0
    steps = [
        ("agreement",),
        ("unblind", "--yes"),
        ("results",),
        ("export", "verdicts", "--out", str(tmp_path / "v.jsonl")),
        ("pack", "study", "--db", db, "--reviewer", "ann", "--out", str(tmp_path / "p.json")),
        ("study", "list", "--db", db),
        ("status",),
    ]
    for step in steps:
        result = cli(*step)
        assert result.code == 0, (step, result.err)


def test_with_several_studies_the_error_lists_them(tmp_path: Path, cli: Cli) -> None:
    _one_study(tmp_path, cli)
    other = [{**line, "id": "t"} if line["type"] == "study" else line for line in afp_study_lines()]
    db = connect(cli.db_path)
    try:
        import_paths(db, [write_jsonl(tmp_path / "t.jsonl", other)])
    finally:
        db.close()
    path = str(cli.db_path)
    assert cli("study", "create", "--db", path, "--study", "t").code == 0
    assert cli("study", "create", "--db", path, "--study", "s").code == 0
    for step in (
        ("agreement",),
        ("unblind", "--yes"),
        ("results",),
        ("study", "create", "--db", path),
    ):
        result = cli(*step)
        assert result.code == 1, step
        assert "choose a study with --study (one of: s, t)" in result.err, (step, result.err)


def test_status_names_the_task_ids_that_tasks_takes(tmp_path: Path, cli: Cli) -> None:
    """`study create --tasks` takes task ids: `status` shows them, the first few and the last
    of a long list (every one in `--json`)."""
    lines: list[dict[str, object]] = [{"type": "study", "id": "many"}]
    for n in range(12):
        lines.append({"type": "task", "id": f"q{n}", "prompt": f"Question {n}."})
        lines.append({"type": "run", "id": f"r{n}", "task_id": f"q{n}", "condition_id": "A"})
    assert cli("import", write_jsonl(tmp_path / "many.jsonl", lines)).code == 0
    _one_study(tmp_path, cli)
    shown = cli("status")
    assert shown.code == 0, shown.err
    # In natural order, as the workstation lists them (q2 before q10).
    assert "    task ids: q0, q1, q2, q3, q4, q5, ... (5 more), q11" in shown.out.splitlines()
    assert "    task ids: P01, P02" in shown.out.splitlines()
    listed = json.loads(cli("status", "--json").out)["studies"]
    assert {s["id"]: len(s["task_runs"]) for s in listed} == {"many": 12, "s": 2}
