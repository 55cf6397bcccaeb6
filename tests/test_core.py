"""Core behaviour outside any one format: store, CLI surface, rubrics, safe text."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import sqlite_utils
from hypothesis import given
from hypothesis import strategies as st

from abp_tui.errors import StoreError
from abp_tui.models.builtin_rubrics import AFP_V01, BUSINESS_V1, SCI_BENCH_V1
from abp_tui.store import connect
from abp_tui.store.queries import load_run
from abp_tui.store.schema import MIGRATIONS
from abp_tui.text.safe import safe_line, safe_text
from tests.factories import Cli


def test_migrations_are_recorded_and_not_reapplied(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    connect(path).close()
    db = connect(path)
    names = [r[0] for r in db.execute("SELECT name FROM _migrations ORDER BY name").fetchall()]
    assert names == [name for name, _ in MIGRATIONS]
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert db.execute("PRAGMA busy_timeout").fetchone()[0] >= 1000


def test_a_file_that_is_not_a_database_is_a_clear_error(tmp_path: Path, cli: Cli) -> None:
    path = tmp_path / "notes.db"
    path.write_text("this is not sqlite " * 100, encoding="utf-8")
    with pytest.raises(StoreError, match="not a usable abp-tui database"):
        connect(path)
    result = cli("status", "--db", path)
    assert result.code == 1
    assert "notes.db: not a usable abp-tui database" in result.err


def test_newer_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    connect(path).close()
    raw = sqlite_utils.Database(path)
    raw.execute("INSERT INTO _migrations VALUES ('9999_future', 'x')")
    raw.conn.commit()
    with pytest.raises(StoreError, match="newer abp-tui"):
        connect(path)


def test_large_output_is_stored_intact(tmp_path: Path, cli: Cli) -> None:
    big = ("lorem ipsum dolor sit amet 中文 " * 700_000)[:20_000_000]
    src = tmp_path / "big.jsonl"
    lines = [
        {"type": "run", "id": "r1", "task_id": "T", "condition_id": "A", "output": big},
    ]
    src.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), "utf-8")
    assert cli("import", src).code == 0
    run = load_run(sqlite_utils.Database(cli.db_path), "big", "r1")
    assert run is not None and run.output == big


def test_schema_command_writes_valid_json_schemas(tmp_path: Path, cli: Cli) -> None:
    out = tmp_path / "schemas"
    result = cli("schema", "--out", out, "--json")
    assert result.code == 0
    written = {Path(p).name for p in json.loads(result.out)["written"]}
    assert {"native-line.schema.json", "run.schema.json", "task.schema.json"} <= written
    line = json.loads((out / "native-line.schema.json").read_text("utf-8"))
    assert "run" in json.dumps(line["discriminator"]) or "oneOf" in line


def test_status_json_and_python_dash_m(tmp_path: Path, cli: Cli) -> None:
    for made in (cli.db_path, tmp_path / "x.db"):
        connect(made).close()  # empty databases (status makes none)
    result = cli("status", "--json")
    assert result.code == 0
    assert json.loads(result.out)["studies"] == []
    proc = subprocess.run(
        [sys.executable, "-m", "abp_tui", "--db", str(tmp_path / "x.db"), "status", "--json"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["studies"] == []


def test_usage_error_exit_status_is_2(cli: Cli) -> None:
    with pytest.raises(SystemExit) as exc:
        cli("import")
    assert exc.value.code == 2


def test_folder_import_lists_skipped_files(tmp_path: Path, cli: Cli) -> None:
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "readme.txt").write_text("notes", "utf-8")
    (folder / "runs.jsonl").write_text(
        json.dumps({"type": "run", "id": "r", "task_id": "T", "condition_id": "A"}) + "\n",
        "utf-8",
    )
    result = cli("import", folder, "--json")
    assert result.code == 0
    files = {Path(f["file"]).name: f["status"] for f in json.loads(result.out)["files"]}
    assert files == {"readme.txt": "skipped", "runs.jsonl": "imported"}


def test_builtin_rubrics_follow_the_seeds() -> None:
    assert [d.name for d in AFP_V01.dimensions] == [
        "Task correctness",
        "Evidence discipline",
        "Uncertainty handling",
        "Failure control",
    ]
    assert AFP_V01.max_total == 8
    assert len(AFP_V01.fatal_criteria) == 6
    assert BUSINESS_V1.max_total == 10
    assert BUSINESS_V1.acceptance.min_total == 8
    assert BUSINESS_V1.acceptance.required_twos == ("source_fidelity", "instruction_adherence")
    scored = [d.id for d in SCI_BENCH_V1.dimensions if d.scored]
    assert len(scored) == 8 and "code_correctness" not in scored
    assert SCI_BENCH_V1.allows_abstention


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("\x1b[31mred", "\u241b[31mred"),
        ("osc\x1b]8;;http://x\x07", "osc\u241b]8;;http://x\u2407"),
        ("csi\x9b2J", "csi⟨U+009B⟩2J"),
        ("rtl\u202eabc", "rtl⟨U+202E⟩abc"),
        ("zero\u200bwidth", "zero⟨U+200B⟩width"),
        ("keep\nlines\tand tabs", "keep\nlines\tand tabs"),
        ("[bold red]x[/]", "[bold red]x[/]"),
        # Unicode tag characters spell invisible ASCII ("ASCII smuggling"): here "Hi".
        ("ok\U000e0048\U000e0069!", "ok⟨U+E0048⟩⟨U+E0069⟩!"),
        ("\U000e0001lang tag\U000e007f", "⟨U+E0001⟩lang tag⟨U+E007F⟩"),
        ("flag \U0001f3f4\U000e0067\U000e0062\U000e007f", "flag 🏴⟨U+E0067⟩⟨U+E0062⟩⟨U+E007F⟩"),
    ],
)
def test_safe_text_makes_controls_visible(raw: str, shown: str) -> None:
    assert safe_text(raw) == shown


def test_every_tag_character_is_made_visible_and_nothing_beside_them() -> None:
    tags = "".join(chr(c) for c in range(0xE0000, 0xE0080))
    shown = safe_line(tags)
    assert shown == "".join(f"⟨U+{c:04X}⟩" for c in range(0xE0000, 0xE0080))
    # The neighbours of the block are ordinary (unassigned or variation selectors): left alone.
    assert safe_text("\U000dffff\U000e0100") == "\U000dffff\U000e0100"


@given(st.text())
def test_safe_text_never_lets_a_control_character_through(text: str) -> None:
    out = safe_line(text)
    assert not any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in out)
    assert "\u202e" not in out and "\u200b" not in out
    assert not any(0xE0000 <= ord(c) <= 0xE007F for c in out)


def test_status_counts_as_excluded_exactly_the_states_outside_the_denominator() -> None:
    """``abp-tui status`` spells the states out to stay free of the models; they must agree."""
    from abp_tui.models import ResultState
    from abp_tui.store.overview import OUTSIDE_DENOMINATOR

    assert set(OUTSIDE_DENOMINATOR) == {
        s.value for s in ResultState if not s.in_quality_denominator
    }
