"""A held run's record and file references are read back as ``json.loads`` reads them.

A held run keeps its record and its files' references as compact JSON text of its own
(:mod:`abp_tui.export.records`), parsed again each time they are asked for: several times a run
in an export or ``verify``, for hundreds of thousands of runs. That text is now handed to the
standard library's scanner directly (issue #31: ``json.loads``' steps before it took twice as
long on such short texts); the values, their types and their keys' order are the same.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from abp_tui.export import records as rec

RECORDS: tuple[Any, ...] = (
    {},
    {"model": "gpt-4", "provider": "openai", "tokens": {"input": 12, "output": 0}},
    {"b": 1, "a": 2.0, "c": [1, 2.5, -0.0, 1e-300, 1.7976931348623157e308, None, True, False]},
    {"big": 10**40, "neg": -(10**25), "float": 0.1 + 0.2},
    {"text": 'ü ☃ 𝄞 \u2028 "quoted" \\ \n \t \x00 </script>', "": ""},
    {"nan": math.nan, "inf": math.inf, "minus": -math.inf},
    {"deep": [[[{"x": [[]]}]]], "empty": {"": {}}},
    {"output": {"path": "runs/outputs/a.txt", "sha256": "0" * 64, "bytes": 3}, "trace": None},
)


@pytest.mark.parametrize("record", RECORDS, ids=range(len(RECORDS)))
def test_a_held_text_reads_back_as_json_loads_reads_it(record: Any) -> None:
    text = rec._record_text(record).encode("utf-8")
    found, expected = rec._parsed(text), json.loads(text)
    assert json.dumps(found) == json.dumps(expected)  # NaN is not equal to itself
    assert list(found) == list(expected)

    def kinds(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: kinds(v) for k, v in value.items()}
        if isinstance(value, list):
            return [kinds(v) for v in value]
        return type(value).__name__

    assert kinds(found) == kinds(expected)
