"""``trusted``: a model built from values already of its fields' types is the instance
``model_construct`` makes, whichever way it is made."""

from __future__ import annotations

from abp_tui.models import RunOutcome
from abp_tui.models.base import Model, trusted
from tests.factories import RUN_OUTCOME_VALUES

VALUES = RUN_OUTCOME_VALUES


def test_a_trusted_record_given_its_fields_in_any_order_is_the_validated_one() -> None:
    shuffled = dict(reversed(list(VALUES.items())))
    record = trusted(RunOutcome, **shuffled)
    validated = RunOutcome(**VALUES)
    assert record == validated
    assert list(record.__dict__) == list(RunOutcome.model_fields)  # the fields' order
    assert record.model_fields_set == set(RunOutcome.model_fields)
    assert record.__pydantic_extra__ is None and record.__pydantic_private__ is None
    assert record.model_dump_json() == validated.model_dump_json()
    assert repr(record) == repr(validated)
    # Every instance holds the one set of its fields given.
    assert trusted(RunOutcome, **VALUES).model_fields_set is record.model_fields_set


class _Defaulted(Model):
    name: str
    tags: tuple[str, ...] = ()


def test_a_trusted_record_lacking_a_field_with_a_default_takes_the_default() -> None:
    made = trusted(_Defaulted, name="a")
    built = _Defaulted.model_construct(name="a")
    assert made.__dict__ == built.__dict__ == {"name": "a", "tags": ()}
    assert made == _Defaulted(name="a")


def test_a_name_that_is_no_field_is_left_out_as_model_construct_leaves_it_out() -> None:
    values = {**VALUES}
    del values["scores"]
    values["stray"] = 1  # as many values as fields, one of them not a field
    made = trusted(RunOutcome, **values)
    assert "stray" not in made.__dict__ and made.__pydantic_extra__ is None
