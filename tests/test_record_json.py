"""The hashed bodies built field by field (:mod:`abp_tui.store.record_json`) are the very text
the long way makes, ``canonical_json(model.model_dump(mode="json"))``: a stored hash made
before stays the hash of the same record, so a file imported again is "unchanged"."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from abp_tui.models import Run, Task
from abp_tui.models.rubric import ResultState
from abp_tui.models.runs import Tokens
from abp_tui.store.record_json import (
    RUN_FAST,
    RUN_NOT_HASHED,
    TASK_FAST,
    metadata_json,
    run_body,
    task_body,
)
from abp_tui.text.canonical import canonical_json

TEXT = st.text(alphabet=st.characters(codec="utf-8"), max_size=40)  # no lone surrogates
SCALAR = st.none() | st.booleans() | st.integers() | st.floats() | TEXT
JSONISH = st.recursive(
    SCALAR,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(TEXT, inner, max_size=4)
        | st.dictionaries(st.integers(-20, 20), inner, max_size=3)
    ),
    max_leaves=12,
)
FLAT = st.dictionaries(TEXT, st.none() | st.booleans() | st.integers() | TEXT, max_size=6)
"""The usual metadata (text keys, scalar values), which is built without the encoder."""
METADATA = FLAT | st.dictionaries(TEXT, JSONISH, max_size=5)
OPTIONAL_TEXT = st.none() | TEXT
FIELD = st.sampled_from(["provider", "engine", "reasoning", "tokens", "model_version"])


def _long_way_run(run: Run) -> str:
    return canonical_json(run.model_dump(mode="json", exclude=set(RUN_NOT_HASHED)))


def _long_way_task(task: Task) -> str:
    return canonical_json(task.model_dump(mode="json"))


def test_the_models_have_the_fields_built_here() -> None:
    # A field added to Task or Run is hashed the long way (correct, slower) until it is listed.
    assert TASK_FAST
    assert RUN_FAST


@st.composite
def runs(draw: st.DrawFn) -> Run:
    tokens = draw(
        st.none()
        | st.builds(
            Tokens,
            input=st.none() | st.integers(0, 10**12),
            output=st.none() | st.integers(0, 10**6),
            total=st.none() | st.integers(0, 10**6),
        )
    )
    not_exposed = tuple(sorted(set(draw(st.lists(FIELD, max_size=3)))))
    values: dict[str, Any] = {
        "provider": draw(OPTIONAL_TEXT),
        "engine": draw(OPTIONAL_TEXT),
        "reasoning": draw(OPTIONAL_TEXT),
        "model_version": draw(OPTIONAL_TEXT),
        "tokens": tokens,
    }
    for name in not_exposed:
        values[name] = None
    return Run(
        id=draw(TEXT.filter(bool)),
        task_id=draw(TEXT.filter(bool)),
        condition_id=draw(TEXT.filter(bool)),
        trial=draw(st.integers(0, 10**9)),
        output=draw(OPTIONAL_TEXT),
        model=draw(OPTIONAL_TEXT),
        engine_version=draw(OPTIONAL_TEXT),
        tool_calls=draw(st.none() | st.integers(0, 10**9)),
        wall_clock_ms=draw(st.none() | st.floats(min_value=0) | st.integers(0, 10**17)),
        cost_usd=draw(st.none() | st.floats(min_value=0, allow_infinity=False)),
        started_at=draw(OPTIONAL_TEXT),
        origin_status=draw(st.none() | st.sampled_from(list(ResultState))),
        automated_outcome=draw(OPTIONAL_TEXT),
        excluded_reason=draw(OPTIONAL_TEXT),
        source_file=draw(TEXT),
        source_line=draw(st.none() | st.integers(1, 10**6)),
        synthetic=draw(st.booleans()),
        metadata=draw(METADATA),
        not_exposed=not_exposed,
        diff=draw(st.none() | st.binary(max_size=8)),
        **values,
    )


@given(runs())
@settings(max_examples=300, deadline=None)
def test_a_run_body_is_the_text_of_its_dump(run: Run) -> None:
    assert run_body(run) == _long_way_run(run)


@given(
    st.builds(
        Task,
        id=TEXT.filter(bool),
        title=TEXT,
        prompt=TEXT,
        base_instruction=TEXT,
        evidence=TEXT,
        expected_behaviour=TEXT,
        fatal_criteria=st.lists(TEXT, max_size=3).map(tuple),
        risk_type=TEXT,
        version=TEXT,
        synthetic=st.booleans(),
        metadata=METADATA,
    )
)
@settings(max_examples=300, deadline=None)
def test_a_task_body_and_metadata_column_are_the_texts_of_the_long_way(task: Task) -> None:
    hashed, stored = metadata_json(task.metadata)
    assert task_body(task, hashed) == _long_way_task(task)
    assert stored == canonical_json(task.metadata)


@pytest.mark.parametrize(
    "metadata",
    [
        {"n": float("inf")},  # JSON mode dumps it as null, the column keeps Infinity
        {"n": float("nan")},
        {"pair": ("a", "b")},  # a list in both, but the dump is not equal to the tuple
        {"by": {10: "ten", 9: "nine"}},  # keys sorted as numbers, then as text
        {"quote": 'a "b" \\ \n \t \u2028 \x00 é 😀'},
        {"position": 2, "cmp_key": "a_b", "output_json_type": "boolean", "b": None, "a": True},
        {},
    ],
)
def test_metadata_is_hashed_as_dumped_and_stored_as_given(
    metadata: dict[str, Any],
) -> None:
    task = Task(id="t", metadata=metadata)
    hashed, stored = metadata_json(task.metadata)
    assert task_body(task, hashed) == _long_way_task(task)
    assert stored == canonical_json(task.metadata)
    run = Run(id="r", task_id="t", condition_id="c", metadata=metadata)
    assert run_body(run) == _long_way_run(run)


@pytest.mark.parametrize("value", [float("inf"), 1e16, 0.1, 5, 0.0, 1e-7])
def test_float_fields_are_written_as_the_encoder_writes_them(value: float) -> None:
    run = Run(id="r", task_id="t", condition_id="c", wall_clock_ms=value, cost_usd=value)
    assert run_body(run) == _long_way_run(run)


@given(JSONISH | st.dictionaries(st.integers() | TEXT, JSONISH, max_size=4))
@settings(max_examples=300, deadline=None)
def test_canonical_json_is_what_json_dumps_writes(data: Any) -> None:
    # The encoder is built once instead of at every call: the text must not change, nor the
    # refusal of keys that cannot be sorted together.
    try:
        expected = json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    except TypeError:
        with pytest.raises(TypeError):
            canonical_json(data)
        return
    assert canonical_json(data) == expected
