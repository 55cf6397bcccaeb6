"""What the commands print: one JSON document with ``--json``, else plain text, and the exit
status. Untrusted text reaches this module already made safe (``abp_tui.text.safe``); nothing
here parses markup.

Exit status: 0 success; 1 bad input or a refused operation (the message says what and where);
2 a usage error (unknown command or option); 3 an internal error (a bug: please report it).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Final

from abp_tui.text.safe import json_escaped

if TYPE_CHECKING:  # status loads no pydantic: the models are only ever handed in
    from pydantic import BaseModel

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3


_CHUNK: Final = 1 << 16
"""Characters of JSON written at a time: a long document is never held whole as text."""


class _Dumped(list[Any]):
    """A list of models that the JSON encoder reads one element at a time, each dumped as it
    is written: a results document's per-run and per-task rows are never all held as dicts.

    A ``list`` to the encoder (it writes lists only), but empty in memory: its length and its
    elements are the models'."""

    def __init__(self, models: Sequence[BaseModel]) -> None:
        super().__init__()
        self._models = models

    def __iter__(self) -> Iterator[Any]:
        return (m.model_dump(mode="json") for m in self._models)

    def __len__(self) -> int:
        return len(self._models)

    def __bool__(self) -> bool:
        return bool(self._models)


def streamed(model: BaseModel, *lists: str) -> dict[str, Any]:
    """``model.model_dump(mode="json")``, the fields ``lists`` (lists of models) dumped one
    element at a time while :func:`emit` writes them instead of all at once."""
    dumped = model.model_dump(mode="json", exclude=set(lists))
    order = [name for name in type(model).model_fields if name in dumped or name in lists]
    return {
        name: _Dumped(getattr(model, name)) if name in lists else dumped[name] for name in order
    }


def emit(args: argparse.Namespace, document: Any, text: str | Callable[[], str]) -> None:
    """Print ``document`` as JSON when ``--json`` was given, else ``text`` (or what it returns,
    made only then). The JSON keeps non-ASCII text readable but escapes C1, bidirectional and
    invisible characters (``json.dumps`` escapes only those below U+0020): record text never
    reaches the terminal as a control sequence or reordered, and parses back the same. It is
    written as it is encoded, a chunk at a time."""
    if getattr(args, "json", False):
        encoder = json.JSONEncoder(indent=2, ensure_ascii=False, default=str)
        pending: list[str] = []
        size = 0
        for part in encoder.iterencode(document):
            pending.append(part)
            size += len(part)
            if size >= _CHUNK:
                sys.stdout.write(json_escaped("".join(pending)))
                pending, size = [], 0
        sys.stdout.write(json_escaped("".join(pending)) + "\n")
    else:
        text = text() if callable(text) else text
        sys.stdout.write(text + ("\n" if text and not text.endswith("\n") else ""))
