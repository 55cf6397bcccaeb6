"""``--json`` output never carries a C1 control or a bidirectional control raw.

``json.dumps`` escapes only characters below U+0020, so a record's U+009B (CSI, which a terminal
reads as ESC [) or U+202E (right-to-left override) would reach the terminal as is. Every JSON
document the CLI prints spells them as ``\\uXXXX``: still valid JSON, the same data when parsed.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from abp_tui.cli.output import emit
from tests.factories import Cli, write_jsonl

C1 = [chr(c) for c in range(0x80, 0xA0)]
BIDI = [chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))]
BIDI += ["\u200e", "\u200f", "\u061c"]
HOSTILE = "ok\u009b31m red\u202eesrever\u2066iso\u2069 caf\u00e9 \U000e0041 end"


def test_every_c1_and_bidi_control_is_escaped_and_parses_back_equal(
    capsys: pytest.CaptureFixture[str],
) -> None:
    document = {
        "text": "".join(C1 + BIDI),
        f"key{HOSTILE}": [HOSTILE, {"nested": HOSTILE}],
        "plain": "café, 日本語, emoji \U0001f600",
    }
    emit(argparse.Namespace(json=True), document, "unused")
    out = capsys.readouterr().out
    for ch in C1 + BIDI + ["\U000e0041"]:
        assert ch not in out, f"U+{ord(ch):04X} raw"
    assert "\\u009b" in out and "\\u202e" in out and "\\u061c" in out
    assert "\\udb40\\udc41" in out  # a tag character, as its UTF-16 pair
    # Readable text stays readable; the data is the same once parsed.
    assert "café, 日本語, emoji \U0001f600" in out
    assert json.loads(out) == document


def test_a_records_controls_are_escaped_in_status_json(tmp_path: Path, cli: Cli) -> None:
    src = write_jsonl(
        tmp_path / "hostile.jsonl",
        [
            {"type": "study", "id": "s1", "name": HOSTILE, "description": HOSTILE},
            {"type": "condition", "id": "A", "label": HOSTILE},
            {"type": "task", "id": "t1", "prompt": "p"},
            {"type": "run", "id": "r1", "task_id": "t1", "condition_id": "A", "output": "o"},
        ],
    )
    assert cli("import", src).code == 0
    result = cli("status", "--json")
    assert result.code == 0, result.err
    assert "\u009b" not in result.out and "\u202e" not in result.out
    assert "\\u009b" in result.out and "\\u202e" in result.out
    (study,) = json.loads(result.out)["studies"]
    assert study["name"] == study["description"] == HOSTILE
