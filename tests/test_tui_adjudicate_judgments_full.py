"""On a small terminal the adjudicator can read every reviewer's justification.

The fault: at 80x24 the panel of the reviewers' judgments sat under the responses with room for
the preference row and little else; the justifications (the words the pick is weighed by, headed
with the placement that reviewer saw) were below its edge, and no key could reach the panel to
scroll it (Tab brings the final judgment form). ``w`` now gives the panel the responses' place
and the focus; Escape or ``w`` gives the responses back, without leaving the item.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.containers import VerticalScroll
from textual.pilot import Pilot

from abp_tui.tui.app import make_app
from abp_tui.tui.widgets.response_pair import ResponsePair
from tests.tui_helpers import (
    adjudicating,
    admin_database,
    drive,
    press,
    svg_text,
    until,
)

JUSTIFICATION = "Clearer about the owner."
"""What both reviewers of the disputed item wrote (tests/tui_helpers.py)."""


def _visible(pilot: Pilot[Any]) -> str:
    return " ".join(svg_text(pilot.app.export_screenshot()).split())


async def test_w_shows_the_reviewers_justifications_in_full_and_escape_gives_the_item_back(
    tmp_path: Path,
) -> None:
    db_path, _pk, codes = admin_database(tmp_path)
    app = make_app(db_path, reviewer="carol")
    async with drive(app, (80, 24)) as pilot:
        screen = await adjudicating(pilot)
        assert JUSTIFICATION not in _visible(pilot)  # below the panel's edge
        await press(pilot, "w")
        panel = screen.query_one("#judgments", VerticalScroll)
        assert app.focused is panel
        assert not screen.query_one(ResponsePair).display
        await press(pilot, "end")
        await until(pilot, lambda: panel.scroll_y >= panel.max_scroll_y > 0, "the panel's end")
        # Each reviewer's words. Waited for: on a loaded machine the picture once came out with
        # the panel's lines blank although its scroll had already landed.
        await until(
            pilot, lambda: _visible(pilot).count(JUSTIFICATION) == 2, "both justifications shown"
        )
        await press(pilot, "escape")
        assert screen.code == codes[0]
        assert app.screen is screen
        assert screen.query_one(ResponsePair).display
        assert app.focused is not panel
