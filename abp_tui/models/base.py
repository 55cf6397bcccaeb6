"""Shared building blocks of the data model: the strict base model and the "not exposed" marker.

Seed 002 asks that a field the source did not expose is recorded as "not exposed", distinct from a
value that is simply missing. A model lists such fields by name in ``not_exposed``; their value is
``None``. A ``None`` field that is not listed there is missing: the source could have carried it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, model_validator

NOT_EXPOSED = "not exposed"
MISSING = "missing"


class Model(BaseModel):
    """Strict, immutable base for every model: unknown fields are errors, not silently dropped."""

    model_config = ConfigDict(
        extra="forbid", frozen=True, str_strip_whitespace=False, defer_build=True
    )


class Exposable(Model):
    """A record some of whose fields the source format may not expose at all."""

    not_exposed: tuple[str, ...] = ()
    """Names of fields the source format does not expose (their value is None)."""

    @model_validator(mode="after")
    def _not_exposed_fields_are_empty(self) -> Exposable:
        fields = type(self).model_fields
        for name in self.not_exposed:
            if name not in fields:
                raise ValueError(f"not_exposed names unknown field {name!r}")
            if getattr(self, name) is not None:
                raise ValueError(f"field {name!r} is listed as not exposed but has a value")
        return self

    def shown(self, name: str) -> Any:
        """The value of ``name``, or "not exposed" / "missing" when it has none."""
        value = getattr(self, name)
        if value is not None:
            return value
        return NOT_EXPOSED if name in self.not_exposed else MISSING


_M = TypeVar("_M", bound=BaseModel)
_PLANS: dict[type[BaseModel], tuple[tuple[str, ...], set[str], bool]] = {}


def _plan(model: type[BaseModel]) -> tuple[tuple[str, ...], set[str], bool]:
    """``model``'s field names in order, the one set of them every :func:`trusted` instance
    holds, and whether an instance given every field by name is its ``__dict__`` and nothing
    more (no alias, no post-init, not a root model, no extra fields kept): then
    :func:`trusted` sets it directly, as ``model_construct`` would, without its steps per
    field."""
    fields = model.__pydantic_fields__
    names = tuple(fields)
    direct = (
        not model.__pydantic_root_model__
        and model.__pydantic_post_init__ is None
        and model.model_config.get("extra") != "allow"
        and all(f.alias is None and f.validation_alias is None for f in fields.values())
    )
    plan = _PLANS[model] = (names, set(names), direct)
    return plan


def trusted(model: type[_M], **values: Any) -> _M:
    """An instance of ``model`` from values that are already what its fields hold (read back
    from the store, which keeps only validated records, or computed here with the fields'
    types), every field given: built without validating them again, and sharing one set of the
    fields given among every instance (the models are frozen: it never changes), its values
    in a :func:`held_dict`. A large study's per-run records cost a third of the memory so, and
    half of what is left. Given exactly its fields, a plain model's instance is made as
    ``model_construct`` makes it, its values in field order, without that method's steps per
    field (the hundreds of thousands of records of a large study's export)."""
    plan = _PLANS.get(model) or _plan(model)
    names, shared, direct = plan
    if direct and len(values) == len(names):
        try:
            ordered = {name: values[name] for name in names}
        except KeyError:
            pass  # a name not a field's: made the slow way, as before
        else:
            instance = model.__new__(model)
            setattr_ = object.__setattr__
            setattr_(instance, "__dict__", held_dict(ordered))
            setattr_(instance, "__pydantic_fields_set__", shared)
            setattr_(instance, "__pydantic_extra__", None)
            setattr_(instance, "__pydantic_private__", None)
            return instance
    return _compact(model.model_construct(_fields_set=shared, **values))


def built(*models: type[BaseModel]) -> None:
    """Build now the validators of ``models`` whose build was deferred (``defer_build``: the
    workstation starts without building them). A model built on its first use reads the
    namespace of the frame making that first instance, and CPython then keeps that frame's
    locals in a dict of their own for as long as the frame lives: a parser's loop making the
    first record of a large file would keep that record's item alive to the end of the file.
    Built beforehand, by a frame that holds no item, it reads nothing later."""
    for model in models:
        if not model.__pydantic_complete__:
            model.model_rebuild()


_HOLDERS: dict[tuple[str, ...], type] = {}


def _compact(instance: _M) -> _M:
    """``instance`` (frozen) holding its field values in a :func:`held_dict`."""
    object.__setattr__(instance, "__dict__", held_dict(instance.__dict__))
    return instance


_V = TypeVar("_V")


def held_dict(values: dict[str, _V]) -> dict[str, _V]:
    """A copy of ``values`` whose table of keys is shared with every other dict of the same
    keys in the same order, rather than a table of its own: a record's fields (ten of them:
    300 bytes less), a judgment's placement. CPython keeps the keys of a class's instances'
    dicts once when they are set in one order; the values are the dict's own. Its items,
    their order and equality are those of ``values``; a dict of more keys than can be shared
    is an ordinary one, as is one a key is later added to. For dicts nobody changes (the
    fields of frozen models), read by the hundred thousand."""
    names = tuple(values)
    holder = _HOLDERS.get(names)
    if holder is None:
        if any(not isinstance(n, str) or n.startswith("__") for n in names):
            return dict(values)  # a name the holder's class has (__dict__, __class__...)
        if len(_HOLDERS) > 1_000:  # many sets of keys: the table never grows without bound
            _HOLDERS.clear()
        holder = _HOLDERS[names] = type("FieldValues", (), {"__module__": __name__})
    found: dict[str, _V] = holder().__dict__
    for name, value in values.items():  # set in the holder's own dict: its keys stay shared
        found[name] = value
    return found


_SHARED_SETS: dict[tuple[type[BaseModel], frozenset[str]], set[str]] = {}


def shared_fields(instance: _M) -> _M:
    """``instance`` (just validated, frozen) and the models it holds, each holding the one set
    of the fields given that every instance of its model given those fields holds, rather than a
    set of its own (the models are frozen: it never changes; a set of ten names costs 700
    bytes, more than most of a record's values). For records read by the hundred thousand."""
    for value in instance.__dict__.values():
        if isinstance(value, BaseModel):
            shared_fields(value)
    found = instance.__pydantic_fields_set__
    shared = _SHARED_SETS.setdefault((type(instance), frozenset(found)), found)
    object.__setattr__(instance, "__pydantic_fields_set__", shared)
    return _compact(instance)


_HELD: dict[Any, Any] = {}


def held_once(value: Any, key: Any = None) -> Any:
    """``value``, or the equal value held already (under ``key``, else the value itself): what
    many records hold alike (an item's kind, its conditions, its masking counts) is held once,
    a design having hundreds of thousands of items over a few conditions. For values nobody
    changes (fields of frozen models)."""
    if len(_HELD) > 10_000:  # names from many studies: the cache never grows without bound
        _HELD.clear()
    return _HELD.setdefault(value if key is None else key, value)


def same(value: str) -> str:
    """``value`` itself: what a reader shares its names through when it shares none."""
    return value


def sharing() -> Callable[[str], str]:
    """A function giving, for a name, the equal name it was first given: a read of a large
    design's records holds each run id, task id and item code once, however many records name
    it (a run id is named by its facts, its item and each judgment's placement). Its table is
    the reader's own, let go with the function once the records are read."""
    names: dict[str, str] = {}

    def one(value: str) -> str:
        return names.setdefault(value, value)

    return one
