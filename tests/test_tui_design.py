"""Creating a study design from the home screen does what `abp-tui study create` does."""

from __future__ import annotations

from pathlib import Path

from abp_tui.services.importing import import_paths
from abp_tui.store import connect, judging
from abp_tui.tui.app import make_app
from abp_tui.tui.screens.home import HomeScreen
from abp_tui.tui.screens.newdesign import NewDesignScreen
from tests.factories import write_jsonl
from tests.tui_helpers import drive, press, settle, type_text, until


def _db(tmp_path: Path) -> Path:
    lines: list[dict[str, object]] = [{"type": "study", "id": "s", "rubric_id": "afp-v0.1"}]
    for c in ("A", "B"):
        lines.append(
            {
                "type": "run",
                "id": f"T1-{c}",
                "task_id": "T1",
                "condition_id": c,
                "output": f"answer {c}",
            }
        )
    db_path = tmp_path / "h.db"
    db = connect(db_path)
    import_paths(db, [write_jsonl(tmp_path / "s.jsonl", lines)])
    db.close()
    return db_path


async def test_new_design_from_a_file_and_a_bad_file(tmp_path: Path) -> None:
    db_path = _db(tmp_path)
    good = tmp_path / "d.toml"
    good.write_text('study = "s"\nname = "pairs"\nseed = 3\nreviewers = ["ann"]\n', "utf-8")
    bad = tmp_path / "bad.toml"
    bad.write_text('study = "s"\nname = "x"\nseed = "three"\n', "utf-8")
    app = make_app(db_path, reviewer="demo")
    async with drive(app, (120, 40)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, HomeScreen)
        await press(pilot, "n")
        assert isinstance(app.screen, NewDesignScreen)
        await pilot.click("#design-path")
        await type_text(pilot, str(bad))
        await press(pilot, "enter")
        await until(pilot, lambda: app.failures, "the bad file to be refused")
        assert "Creating a study design" in app.failures[-1].description
        assert judging.designs(connect(db_path)) == []
        await press(pilot, "n")
        await type_text(pilot, str(good))
        await press(pilot, "enter")
    (design,) = judging.designs(connect(db_path))
    assert (design.study_id, design.name, design.version_no) == ("s", "pairs", 1)
