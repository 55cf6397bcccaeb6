"""The agreement screen's detail is readable on a small terminal and uses a wide one.

The fault: at 80x24 the highlighted variable's detail box showed about eight lines under the
summary and the list of variables, and no key gave it more. Now Enter (or d) on a variable moves
the focus to its detail, the list shrinks to the variable and its neighbours and the summary
gives its lines; ``[`` and ``]`` step through the variables from there, and esc goes back to the
list (a second esc leaves). On a wide terminal the heat maps stand beside the figures.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils
from rich.console import Console
from textual.pilot import Pilot
from textual.widgets import DataTable

from abp_tui.models import PreferenceChoice
from abp_tui.services.agreement_report import study_agreement
from abp_tui.tui.charts import variable_detail
from abp_tui.tui.screens.agreement import AgreementScreen
from tests.factories import afp_judgment, two_reviewer_design
from tests.snapshot_helpers import admin_app, agreement_shown
from tests.tui_helpers import drive, press, until


def _detail_lines(pilot: Pilot[Any]) -> int:
    """Lines of the detail box's content in view (its border aside)."""
    return pilot.app.screen.query_one("#variable-detail").scrollable_content_region.height


def _title(pilot: Pilot[Any]) -> str:
    return str(pilot.app.screen.query_one("#variable-detail").border_title)


async def test_the_detail_gets_the_room_at_80x24_and_esc_gives_the_list_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = admin_app(tmp_path, monkeypatch, unblinded=True)
    async with drive(app, (80, 24)) as pilot:
        await agreement_shown(pilot)
        screen = app.screen
        assert isinstance(screen, AgreementScreen)
        listed = _detail_lines(pilot)
        assert listed <= 10  # the list and the summary take the rest

        await press(pilot, "down", "enter")
        assert app.focused is screen.query_one("#variable-detail")
        assert _detail_lines(pilot) >= 16
        assert screen.query_one("#variables", DataTable).cursor_row == 1
        assert _title(pilot).startswith("Variable 2:")
        assert not screen.query_one("#agreement-summary").display

        await press(pilot, "right_square_bracket")  # the next variable, still reading
        assert _title(pilot).startswith("Variable 3:")
        assert app.focused is screen.query_one("#variable-detail")
        await press(pilot, "left_square_bracket", "left_square_bracket", "left_square_bracket")
        assert _title(pilot).startswith("Variable 1:")  # stops at the first

        await press(pilot, "escape")  # back to the list, not off the screen
        assert app.screen is screen
        assert app.focused is screen.query_one("#variables", DataTable)
        assert _detail_lines(pilot) == listed
        await press(pilot, "right_square_bracket")  # the list's own keys move it: ] does nothing
        assert _title(pilot).startswith("Variable 1:")

        await press(pilot, "d")
        assert app.focused is screen.query_one("#variable-detail")
        await press(pilot, "d")
        assert app.focused is screen.query_one("#variables", DataTable)
        await press(pilot, "escape")
        await until(pilot, lambda: not isinstance(app.screen, AgreementScreen), "leaving")


def _printed(renderable: object, width: int) -> list[str]:
    console = Console(width=width, record=True, file=io.StringIO(), color_system=None)
    console.print(renderable)
    return console.export_text().splitlines()


def test_the_heat_maps_stand_beside_the_figures_on_a_wide_terminal(
    tmp_path: Path, db: sqlite_utils.Database
) -> None:
    pk, a, b, codes = two_reviewer_design(tmp_path, db)
    one, two = PreferenceChoice.RESPONSE_1, PreferenceChoice.RESPONSE_2
    for index, code in enumerate(codes):
        a.save(code, afp_judgment(2, 1, one), 3, submit=True)
        judgment = afp_judgment(2 - index % 3, index % 2, two if index % 2 else one)
        b.save(code, judgment, 3, submit=True)
    report = study_agreement(db, "s", pk, resamples=200)
    variable = next(v for v in report.variables if v.pairs)
    narrow, wide = _printed(variable_detail(variable), 72), _printed(variable_detail(variable), 194)

    def line_of(lines: list[str], words: str) -> str:
        return next(line for line in lines if words in line)

    # 72 cells: the heat map's heading on a line of its own, under the reviewer pairs
    heading = "items on the diagonal"
    assert line_of(narrow, heading).lstrip().startswith(variable.pairs[0].reviewer_a)
    assert narrow.index(line_of(narrow, heading)) > narrow.index(line_of(narrow, "Reviewer pairs"))
    # 194 cells: on the line of the figures' header, and the whole detail is shorter
    assert heading in line_of(wide, "Value [95% interval]")
    assert len(wide) < len(narrow) - 4
