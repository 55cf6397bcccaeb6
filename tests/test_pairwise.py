"""Pairwise judgments (PandaLM and LLMBar styles): the PandaLM test set, JSONL, bad input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils

from abp_tui.formats import detect
from abp_tui.formats.pairwise import resolve_cmp_keys
from abp_tui.store.queries import count, load_run
from tests.factories import Cli
from tests.import_helpers import nothing_stored


def _import(cli: Cli, *args: str | Path) -> dict[str, int]:
    result = cli("import", *args, "--json")
    assert result.code == 0, result.err
    totals: dict[str, int] = json.loads(result.out)["totals"]
    return totals


def _rows(cli: Cli, sql: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
    return list(sqlite_utils.Database(cli.db_path).execute(sql, params or []).fetchall())


def _choices(cli: Cli, item: str) -> dict[str, str]:
    rows = _rows(cli, "SELECT reviewer, choice FROM preferences WHERE item_id = ?", [item])
    return dict(rows)


def _nothing_stored(cli: Cli) -> None:
    nothing_stored(cli)


def _write(path: Path, items: list[Any]) -> Path:
    if path.suffix == ".jsonl":
        path.write_text("".join(json.dumps(x) + "\n" for x in items), encoding="utf-8")
    else:
        path.write_text(json.dumps(items), encoding="utf-8")
    return path


def _panda(idx: int, **extra: Any) -> dict[str, Any]:
    return {
        "idx": idx,
        "cmp_key": "model-a_model-b",
        "instruction": f"Instruction {idx}",
        "input": "",
        "response1": f"first {idx}",
        "response2": f"second {idx}",
        "annotator1": 1,
        "annotator2": 0,
        **extra,
    }


LLMBAR = [
    {"input": "Name a colour.", "output_1": "Blue.", "output_2": "Seven.", "label": 1},
    {"input": "Add 2 and 2.", "output_1": "5", "output_2": "4", "label": 2},
]


# -- the PandaLM reference set ------------------------------------------------------------------
def test_pandalm_reference_set(reference: Path, cli: Cli) -> None:
    src = reference / "pandalm" / "testset-v1.json"
    found = detect(src)
    assert found is not None and found.name == "pairwise"
    totals = _import(cli, src)
    assert totals == {
        "studies added": 1,
        "conditions added": 5,
        "tasks added": 999,
        "runs added": 1998,
        "preferences added": 2997,
    }
    reviewers = _rows(cli, "SELECT name, external FROM reviewers ORDER BY name")
    assert reviewers == [
        ("pandalm-testset-v1:annotator1", 1),
        ("pandalm-testset-v1:annotator2", 1),
        ("pandalm-testset-v1:annotator3", 1),
    ]
    conditions = {r[0] for r in _rows(cli, "SELECT id FROM conditions")}
    assert conditions == {"bloom-7b", "llama-7b", "opt-7b", "cerebras-gpt-6.7B", "pythia-6.9b"}
    # Item 0: bloom-7b vs llama-7b, all three annotators prefer response2.
    assert _choices(cli, "0") == {
        "pandalm-testset-v1:annotator1": "response_2",
        "pandalm-testset-v1:annotator2": "response_2",
        "pandalm-testset-v1:annotator3": "response_2",
    }
    # Item 1: all prefer response1. Item 157: two prefer response1, annotator3 calls a tie.
    assert set(_choices(cli, "1").values()) == {"response_1"}
    assert _choices(cli, "157")["pandalm-testset-v1:annotator3"] == "tie"
    assert _choices(cli, "157")["pandalm-testset-v1:annotator1"] == "response_1"
    ties = _rows(
        cli, "SELECT reviewer, COUNT(*) FROM preferences WHERE choice = 'tie' GROUP BY reviewer"
    )
    assert dict(ties) == {
        "pandalm-testset-v1:annotator1": 97,
        "pandalm-testset-v1:annotator2": 116,
        "pandalm-testset-v1:annotator3": 113,
    }
    db = sqlite_utils.Database(cli.db_path)
    first = load_run(db, "pandalm-testset-v1", "0/1")
    second = load_run(db, "pandalm-testset-v1", "0/2")
    assert first is not None and second is not None
    assert (first.condition_id, second.condition_id) == ("bloom-7b", "llama-7b")
    assert first.output == "If you have any questions about my rate, please let me know."
    assert first.shown("tokens") == "not exposed"
    assert first.shown("provider") == "not exposed"
    assert first.shown("cost_usd") == "not exposed"
    assert first.metadata["cmp_key"] == "bloom-7b_llama-7b"
    pref = _rows(
        cli,
        "SELECT r1.id, r2.id FROM preferences p JOIN runs r1 ON r1.pk = p.run_1_pk "
        "JOIN runs r2 ON r2.pk = p.run_2_pk WHERE p.item_id = '0' LIMIT 1",
    )
    assert pref == [("0/1", "0/2")]
    # Item 157's response1 is a bare JSON `true` in the file: kept as its JSON text, flagged.
    odd = load_run(db, "pandalm-testset-v1", "157/1")
    assert odd is not None
    assert odd.output == "true"
    assert odd.metadata["output_json_type"] == "boolean"
    task = _rows(cli, "SELECT prompt, metadata FROM tasks WHERE id = '0'")[0]
    assert task[0].startswith("The sentence you are given might be too wordy")
    assert task[0].endswith("please let me know.")
    assert "bloom" not in task[1]  # the task, which reviewers see, does not name the models

    again = cli("import", src)
    assert again.code == 0
    assert "Nothing new was added." in again.out
    assert count(db, "preferences") == 2997


def test_study_option_names_the_reviewers(tmp_path: Path, cli: Cli) -> None:
    src = _write(tmp_path / "pairs.json", [_panda(0), _panda(1)])
    _import(cli, src, "--study", "panda-pilot")
    names = {r[0] for r in _rows(cli, "SELECT reviewer FROM preferences")}
    assert names == {"panda-pilot:annotator1", "panda-pilot:annotator2"}


# -- LLMBar and JSONL ---------------------------------------------------------------------------
@pytest.mark.parametrize("suffix", [".json", ".jsonl"])
def test_llmbar_items(tmp_path: Path, cli: Cli, suffix: str) -> None:
    src = _write(tmp_path / f"natural{suffix}", LLMBAR)
    found = detect(src)
    assert found is not None and found.name == "pairwise"
    totals = _import(cli, src)
    assert totals == {
        "studies added": 1,
        "conditions added": 2,
        "tasks added": 2,
        "runs added": 4,
        "preferences added": 2,
    }
    assert _choices(cli, "0") == {"natural:label": "response_1"}
    assert _choices(cli, "1") == {"natural:label": "response_2"}
    run = load_run(sqlite_utils.Database(cli.db_path), "natural", "1/2")
    assert run is not None
    assert (run.output, run.condition_id) == ("4", "response2")
    assert run.shown("model") == "not exposed"
    assert run.source_line == (2 if suffix == ".jsonl" else None)


def test_jsonl_with_a_long_first_line_is_detected(tmp_path: Path) -> None:
    item = _panda(0, response1="x" * 10_000)
    src = _write(tmp_path / "long.jsonl", [item])
    found = detect(src)
    assert found is not None and found.name == "pairwise"


# -- cmp_key splitting --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("keys", "expected"),
    [
        (["bloom-7b_llama-7b"], {"bloom-7b_llama-7b": ("bloom-7b", "llama-7b")}),
        # "gpt_4" is learnt from nothing, but "llama-7b" is known: split next to it.
        (
            ["bloom-7b_llama-7b", "gpt_4_llama-7b"],
            {
                "bloom-7b_llama-7b": ("bloom-7b", "llama-7b"),
                "gpt_4_llama-7b": ("gpt_4", "llama-7b"),
            },
        ),
        # Resolving one key teaches a name that resolves the next.
        (
            ["a_b", "b_c_d", "c_d_e_f"],
            {"a_b": ("a", "b"), "b_c_d": ("b", "c_d"), "c_d_e_f": ("c_d", "e_f")},
        ),
        # Nothing known: ambiguous, left unresolved.
        (["model_a_model_b"], {}),
        (["solo", "_x", "y_"], {}),
    ],
)
def test_resolve_cmp_keys(keys: list[str], expected: dict[str, tuple[str, str]]) -> None:
    assert resolve_cmp_keys(keys) == expected


def test_ambiguous_or_absent_cmp_key_falls_back_to_positions(tmp_path: Path, cli: Cli) -> None:
    items = [_panda(0, cmp_key="model_a_model_b"), _panda(1)]
    del items[1]["cmp_key"]
    _import(cli, _write(tmp_path / "amb.json", items))
    rows = _rows(
        cli,
        "SELECT r.id, c.id, r.model FROM runs r JOIN conditions c ON c.pk = r.condition_pk "
        "ORDER BY r.id",
    )
    assert rows == [
        ("0/1", "response1", None),
        ("0/2", "response2", None),
        ("1/1", "response1", None),
        ("1/2", "response2", None),
    ]
    # A PandaLM-style file is a PandaLM data set: its study says so.
    run = load_run(sqlite_utils.Database(cli.db_path), "pandalm-amb", "0/1")
    assert run is not None
    assert run.metadata["cmp_key_unresolved"] is True
    assert run.shown("model") == "missing"  # the format names models; this item does not
    labels = _rows(cli, "SELECT id, label FROM conditions ORDER BY id")
    assert labels == [
        ("response1", "response 1 (position; the data set does not name the models)"),
        ("response2", "response 2 (position; the data set does not name the models)"),
    ]


# -- bad input ----------------------------------------------------------------------------------
def test_llmbar_label_out_of_range(tmp_path: Path, cli: Cli) -> None:
    items = [LLMBAR[0], {**LLMBAR[1], "label": 3}]
    src = _write(tmp_path / "bad.json", items)
    result = cli("import", src)
    assert result.code == 1
    assert "bad.json: $[1].label: expected 1 (output_1 better) or 2 (output_2 better) (got 3)" in (
        result.err
    )
    assert "Traceback" not in result.err
    _nothing_stored(cli)
    skipped = _import(cli, src, "--skip-invalid")
    assert skipped["runs added"] == 2 and skipped["records skipped"] == 1


@pytest.mark.parametrize("label", [True, "1", 1.5, None])
def test_llmbar_label_must_be_an_integer(tmp_path: Path, cli: Cli, label: Any) -> None:
    result = cli("import", _write(tmp_path / "bad.json", [{**LLMBAR[0], "label": label}]))
    assert result.code == 1
    assert "bad.json: $[0].label: expected 1 (output_1 better) or 2" in result.err


def test_pandalm_missing_response_and_bad_annotator(tmp_path: Path, cli: Cli) -> None:
    missing = _panda(1)
    del missing["response2"]
    result = cli("import", _write(tmp_path / "bad.json", [_panda(0), missing]))
    assert result.code == 1
    assert "bad.json: $[1].response2: required field is missing" in result.err
    _nothing_stored(cli)
    result = cli("import", _write(tmp_path / "bad2.json", [_panda(0, annotator2=5)]))
    assert result.code == 1
    assert (
        "bad2.json: $[0].annotator2: expected 0 (tie), 1 (response1 better) or 2 "
        "(response2 better) (got 5)"
    ) in result.err
    _nothing_stored(cli)


def test_jsonl_bad_line_names_the_line(tmp_path: Path, cli: Cli) -> None:
    src = _write(tmp_path / "bad.jsonl", [LLMBAR[0], {**LLMBAR[1], "label": 0}])
    result = cli("import", src)
    assert result.code == 1
    assert "bad.jsonl:2: $.label: expected 1" in result.err
    _nothing_stored(cli)


def test_truncated_jsonl_keeps_earlier_items_under_skip_invalid(tmp_path: Path, cli: Cli) -> None:
    src = _write(tmp_path / "cut.jsonl", LLMBAR)
    src.write_text(src.read_text(encoding="utf-8") + '{"input": "x", "output_1"', encoding="utf-8")
    result = cli("import", src)
    assert result.code == 1
    assert "cut.jsonl:3: malformed JSON at line 3: truncated last line" in result.err
    _nothing_stored(cli)
    totals = _import(cli, src, "--skip-invalid")
    assert totals["runs added"] == 4 and totals["preferences added"] == 2


def test_duplicate_idx_is_invalid(tmp_path: Path, cli: Cli) -> None:
    result = cli("import", _write(tmp_path / "dup.json", [_panda(4), _panda(4)]))
    assert result.code == 1
    assert "dup.json: $[1].idx: duplicate item '4'" in result.err
    _nothing_stored(cli)


def test_not_a_list_or_no_pairwise_items(tmp_path: Path, cli: Cli) -> None:
    obj = tmp_path / "obj.json"
    obj.write_text(json.dumps({"items": [_panda(0)]}), encoding="utf-8")
    assert detect(obj) is None
    result = cli("import", obj, "--format", "pairwise")
    assert result.code == 1
    assert "obj.json: $: expected a JSON list of pairwise items" in result.err
    empty = _write(tmp_path / "empty.json", [])
    result = cli("import", empty, "--format", "pairwise")
    assert result.code == 1
    assert "empty.json: no pairwise item found" in result.err
    _nothing_stored(cli)


def test_malformed_json(tmp_path: Path, cli: Cli) -> None:
    src = tmp_path / "broken.json"
    src.write_text('[{"input": "x", "output_1": "a",', encoding="utf-8")
    result = cli("import", src, "--format", "pairwise")
    assert result.code == 1
    assert "broken.json:1: malformed JSON" in result.err
    _nothing_stored(cli)


def test_an_empty_idx_is_invalid_and_every_problem_is_listed(tmp_path: Path, cli: Cli) -> None:
    items = [_panda(0), {**_panda(1), "idx": ""}, _panda(2, annotator1=7)]
    result = cli("import", _write(tmp_path / "blank.json", items))
    assert result.code == 1
    assert "blank.json: $[1].idx: expected a non-empty idx" in result.err
    assert "blank.json: $[2].annotator1: expected 0 (tie)" in result.err
    assert "Traceback" not in result.err and "internal error" not in result.err
    _nothing_stored(cli)


@pytest.mark.parametrize("suffix", [".json", ".jsonl"])
def test_runs_are_what_the_run_model_validates_from_their_values(
    tmp_path: Path, suffix: str
) -> None:
    """The runs are copies of a validated run (validating each again cost more than the rest of
    its item): each must be exactly the Run validated from its own values."""
    from abp_tui.formats.base import ParseContext
    from abp_tui.formats.pairwise import FORMAT
    from abp_tui.models import Run

    panda = [
        _panda(0),
        _panda(1, cmp_key="same_same"),  # one model on both sides: the second is trial 2
        _panda(2, cmp_key="a_b_c"),  # ambiguous: the fallback conditions
        {**_panda(3), "response1": True, "response2": 2.5},  # bare JSON scalars, as PandaLM's
        {k: v for k, v in _panda(4).items() if k not in ("idx", "cmp_key")},
    ]
    for name, items in (("panda", panda), ("llmbar", LLMBAR)):
        src = _write(tmp_path / f"{name}{suffix}", items)
        runs = [r for r in FORMAT.parse(src, ParseContext(display=src.name)) if isinstance(r, Run)]
        assert len(runs) == 2 * len(items)
        for run in runs:
            again = Run.model_validate(run.model_dump())
            assert again == run
            assert again.model_dump_json() == run.model_dump_json()
        if name == "panda":
            assert [r.trial for r in runs[2:4]] == [1, 2]
            assert runs[4].condition_id == "response1" and runs[5].condition_id == "response2"
            assert runs[6].output == "true" and runs[6].metadata["output_json_type"] == "boolean"
            assert runs[8].task_id == "4"  # no idx: its position
            assert runs[0].source_line == (1 if suffix == ".jsonl" else None)
