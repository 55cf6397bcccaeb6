"""Creating a study design from the home screen does what `abp-tui study create` does."""

from __future__ import annotations

import json
from pathlib import Path

from abp_tui.services.importing import import_paths
from abp_tui.store import connect, judging
from abp_tui.tui.app import make_app
from abp_tui.tui.screens.home import HomeScreen


def _db(tmp_path: Path) -> Path:
    lines = [{"type": "study", "id": "s", "rubric_id": "afp-v0.1"}]
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
    src = tmp_path / "s.jsonl"
    src.write_text("".join(json.dumps(x) + "\n" for x in lines), "utf-8")
    db_path = tmp_path / "h.db"
    db = connect(db_path)
    import_paths(db, [src])
    db.close()
    return db_path


async def test_new_design_from_a_file_and_a_bad_file(tmp_path: Path) -> None:
    db_path = _db(tmp_path)
    good = tmp_path / "d.toml"
    good.write_text('study = "s"\nname = "pairs"\nseed = 3\nreviewers = ["ann"]\n', "utf-8")
    bad = tmp_path / "bad.toml"
    bad.write_text('study = "s"\nname = "x"\nseed = "three"\n', "utf-8")
    app = make_app(db_path, reviewer="demo")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)
        await pilot.press("n")
        await pilot.pause()
        await pilot.click("#design-path")
        for ch in str(bad):
            await pilot.press(ch)
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert judging.designs(connect(db_path)) == []
        await pilot.press("n")
        await pilot.pause()
        for ch in str(good):
            await pilot.press(ch)
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
    (design,) = judging.designs(connect(db_path))
    assert (design.study_id, design.name, design.version_no) == ("s", "pairs", 1)
