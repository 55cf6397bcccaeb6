"""Deterministic bytes for everything an export writes: JSON, JSON Lines, CSV and file names.

Two exports of the same judgments must be byte-identical, and ``verify`` must re-derive the same
bytes from a bundle on another machine. So: keys are sorted, text is UTF-8 with ``\\n`` line
ends, and derived figures are rounded to six significant digits (enough for any published table,
and it keeps the last bits of floating-point arithmetic out of the comparison). Source data
(run records, judgments) is written exactly as stored, never rounded.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from json.encoder import encode_basestring
from typing import Any, Final, Protocol, runtime_checkable

from abp_tui.text.canonical import canonical_json
from abp_tui.text.csvsafe import (
    FORMULA_STARTS,
    LINE_BREAKS,
    Figure,
    csv_text,
    field_text,
    neutralise,
    safe_cell,
)

SIGNIFICANT = 6
"""Significant digits of the derived figures."""


def rounded(value: Any) -> Any:
    """``value`` with every float rounded to :data:`SIGNIFICANT` significant digits."""
    if type(value) in _AS_IS:  # most values of a document: nothing to round
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            return None
        return float(f"{value:.{SIGNIFICANT}g}")
    if isinstance(value, dict):
        return {k: rounded(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [rounded(v) for v in value]
    return value


_AS_IS: Final = frozenset({str, int, bool, type(None)})


def json_bytes(document: Any, *, derived: bool = False) -> bytes:
    """A JSON document: sorted keys, one-space indent, a final newline."""
    data = rounded(document) if derived else document
    return (json.dumps(data, sort_keys=True, ensure_ascii=False, indent=1) + "\n").encode("utf-8")


def _key(key: Any) -> str:
    """A key as ``json.dumps`` writes it (a str as it is; a number, bool or None as its JSON)."""
    if isinstance(key, str):
        return key
    if key is True or key is False or key is None:
        return _SCALARS[key]
    if isinstance(key, float):
        return _float(key)
    if isinstance(key, int):
        return int.__repr__(key)
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(key).__name__}")


_SCALARS: dict[Any, str] = {True: "true", False: "false", None: "null"}


def _float(value: float) -> str:
    if value != value:
        return "NaN"
    if value in (math.inf, -math.inf):
        return "Infinity" if value > 0 else "-Infinity"
    return float.__repr__(value)


def _indented(value: Any, depth: int, derived: bool = False) -> str:
    """``value`` as ``json.dumps(value, sort_keys=True, ensure_ascii=False, indent=1)`` writes
    it, its lines indented ``depth`` spaces more. The standard library's indenting encoder
    makes a cycle of closures for each document: a large study writes a hundred thousand
    documents of a group each, with the cyclic collector paused. Each container's members
    are written and joined at once, a text, a count, a flag or a null without a call for it,
    each key with its separator as written before (:func:`_key_head`).
    ``derived``: every float written as :func:`rounded` rounds it (the value is not copied)."""
    kind = type(value)
    if kind is str:  # most values of a document: written at once
        return encode_basestring(value)
    if kind is int:
        return int.__repr__(value)
    if kind is dict:
        if not value:
            return "{}"
        members: list[str] = []
        heads = _HEADS
        for key, element in sorted(value.items()):
            head = heads.get(key) if type(key) is str else None
            if head is None:
                head = _key_head(key)
            kind = type(element)
            if kind is str:
                members.append(head + encode_basestring(element))
            elif kind is int:
                members.append(head + int.__repr__(element))
            elif element is None or kind is bool:
                members.append(head + _SCALARS[element])
            else:
                members.append(head + _indented(element, depth + 1, derived))
        inner = _indent(depth + 1)
        return "{" + inner + ("," + inner).join(members) + _indent(depth) + "}"
    if kind is list or kind is tuple:
        if not value:
            return "[]"
        inner = _indent(depth + 1)
        elements = [
            encode_basestring(e) if type(e) is str else _indented(e, depth + 1, derived)
            for e in value
        ]
        return "[" + inner + ("," + inner).join(elements) + _indent(depth) + "]"
    if kind is float:
        if not derived:
            return _float(value)
        # rounded's figure, written as _float writes it (a NaN or an infinity rounds to null)
        return float.__repr__(float(format(value, _ROUNDING))) if _isfinite(value) else "null"
    if isinstance(value, str):
        return encode_basestring(value)
    if value is None or value is True or value is False:
        return _SCALARS[value]
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        if derived:
            value = rounded(value)
            return "null" if value is None else _float(value)
        return _float(value)
    if isinstance(value, list | tuple):
        return _indented(list(value), depth, derived)
    if isinstance(value, dict):
        return _indented(dict(value), depth, derived)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


_ROUNDING: Final = f".{SIGNIFICANT}g"
_isfinite: Final = math.isfinite


def _key_head(key: Any) -> str:
    """A member's key as :func:`_indented` writes it, with the separator after it; a short
    text key's kept for the next time (a document's keys are mostly the same few names, once
    in each of a hundred thousand groups)."""
    head = encode_basestring(key if type(key) is str else _key(key)) + ": "
    if type(key) is str and len(key) <= _HEAD_LENGTH and len(_HEADS) < _HEADS_HELD:
        _HEADS[key] = head
    return head


_HEADS: dict[str, str] = {}
"""Text keys (no longer than :data:`_HEAD_LENGTH`) -> their heads (:func:`_key_head`), at most
:data:`_HEADS_HELD` of them, whatever the documents written."""
_HEAD_LENGTH: Final = 64
_HEADS_HELD: Final = 4096


def _indent(depth: int) -> str:
    """A line end and the indent of a line ``depth`` deep."""
    return _INDENTS[depth] if depth < len(_INDENTS) else "\n" + " " * depth


_INDENTS: Final = tuple("\n" + " " * depth for depth in range(32))


def json_chunks(
    document: dict[str, Any], streamed: dict[str, Iterable[Any]], *, derived: bool = False
) -> Iterator[bytes]:
    """The bytes :func:`json_bytes` gives the object ``document`` with ``streamed``'s lists
    among its keys, a piece at a time: each of those lists' elements is made, written and
    dropped in turn, so the document is never whole in memory. An element is dumped on its own
    and indented to its depth: no JSON text holds a raw line end, so its lines are its own."""

    def text(value: Any, depth: int) -> str:
        return _indented(value, depth, derived)

    keys = sorted({*document, *streamed})
    if not keys:
        yield b"{}\n"
        return
    for number, key in enumerate(keys):
        head = ("{\n " if number == 0 else ",\n ") + json.dumps(key, ensure_ascii=False) + ": "
        if key not in streamed:
            yield (head + text(document[key], 1)).encode("utf-8")
            continue
        empty = True
        for element in streamed[key]:
            yield ((head + "[\n  ") if empty else ",\n  ").encode("utf-8")
            yield text(element, 2).encode("utf-8")
            empty = False
        yield (head + "[]").encode("utf-8") if empty else b"\n ]"
    yield b"\n}\n"


def json_list_chunks(elements: Iterable[Any]) -> Iterator[bytes]:
    """The bytes :func:`json_bytes` gives the list of ``elements``, an element at a time."""
    empty = True
    for element in elements:
        yield (("[\n " if empty else ",\n ") + _indented(element, 1)).encode("utf-8")
        empty = False
    yield b"[]\n" if empty else b"\n]\n"


def jsonl_chunks(
    rows: Iterable[Any], *, derived: bool = False, batch: int = 1000
) -> Iterator[bytes]:
    """The bytes :func:`jsonl_bytes` gives ``rows``, ``batch`` lines at a time."""
    lines: list[str] = []
    for row in rows:
        lines.append(canonical_json(rounded(row) if derived else row))
        if len(lines) >= batch:
            yield ("\n".join(lines) + "\n").encode("utf-8")
            lines.clear()
    if lines:
        yield ("\n".join(lines) + "\n").encode("utf-8")


def jsonl_bytes(rows: Iterable[Any], *, derived: bool = False) -> bytes:
    """One compact JSON document per line, keys sorted."""
    out = io.StringIO()
    for row in rows:
        data = rounded(row) if derived else row
        out.write(canonical_json(data))
        out.write("\n")
    return out.getvalue().encode("utf-8")


def jsonl_lines(data: bytes, errors: str = "strict") -> list[str]:
    """The lines of a JSONL file as :func:`jsonl_bytes` writes it: split on ``\\n`` alone.

    A JSON string may hold U+0085, U+2028 or U+2029 as they are (only control characters below
    U+0020 are escaped), and ``str.splitlines`` would take each for the end of a line, cutting
    a record in two."""
    text = data.decode("utf-8", errors)
    if not text:
        return []
    return (text[:-1] if text.endswith("\n") else text).split("\n")


def split_lines(chunks: Iterable[bytes]) -> Iterator[bytes]:
    """The lines of a file read a chunk at a time, split on ``\\n`` alone as
    :func:`jsonl_lines` splits them (without their ends; the empty piece after a final ``\\n``
    included, as a blank line is)."""
    rest = b""
    for chunk in chunks:
        parts = (rest + chunk).split(b"\n") if rest else chunk.split(b"\n")
        rest = parts.pop()
        yield from parts
    yield rest


@runtime_checkable
class LineSource(Protocol):
    """Files (path -> bytes) that also hand a file over a line at a time, never whole."""

    def lines(self, path: str) -> Iterator[bytes]: ...


def file_lines(files: Mapping[str, bytes], path: str) -> Iterator[bytes]:
    """The lines of ``files[path]`` (split as :func:`split_lines` splits them), a chunk at a time
    where ``files`` reads them so (a bundle's folder or zip): a file of records is never whole in
    memory."""
    if isinstance(files, LineSource):
        return files.lines(path)
    return split_lines((files[path],))


def jsonl_file_lines(files: Mapping[str, bytes], path: str) -> Iterator[bytes]:
    """The lines :func:`jsonl_lines` gives ``files[path]`` (as bytes), read as
    :func:`file_lines` reads them: the empty piece after a final line end is not a line."""
    previous: bytes | None = None
    for piece in file_lines(files, path):
        if previous is not None:
            yield previous
        previous = piece
    if previous:
        yield previous


def cell(value: Any) -> str:
    """A CSV cell: empty for missing, figures with six significant digits (a number comes back
    as a :class:`~abp_tui.text.csvsafe.Figure`, which the CSV writer leaves as it is)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        r = rounded(value)
        return "" if r is None else Figure(f"{r:g}" if abs(r) < 1e16 else repr(r))
    if isinstance(value, int):
        return Figure(value)
    if isinstance(value, list | tuple):
        return "; ".join(cell(v) for v in value)
    return str(value)


def csv_bytes(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> bytes:
    """A CSV table with a header row, ``\\n`` line ends and minimal quoting; a text cell that a
    spreadsheet would run as a formula is neutralised (:mod:`abp_tui.text.csvsafe`), numbers are
    written as numbers."""
    return csv_text(header, ([cell(v) for v in row] for row in rows)).encode("utf-8")


def csv_field(value: Any) -> str:
    """The field :func:`csv_bytes` writes for ``value`` (:func:`cell`, made safe and quoted as
    needed), the common kinds of value without the steps between."""
    kind = type(value)
    if kind is str:
        text: str = value
        if _AS_IT_IS(text) is None and not text.startswith(FORMULA_STARTS):
            return text  # neither a formula's start, a line break, a comma nor a quote
        return field_text(neutralise(text))
    if value is None:
        return ""
    if kind is int:
        return int.__repr__(value)
    if kind is float:
        r = rounded(value)
        if r is None:
            return ""
        return f"{r:g}" if abs(r) < 1e16 else repr(r)
    return field_text(safe_cell(cell(value)))


_AS_IT_IS: Final = re.compile('[,"' + re.escape(LINE_BREAKS) + "]").search
"""What makes a text field change when written: quoted, or neutralised after a line break."""


def csv_lines(
    rows: Iterable[Sequence[Any]],
    field: Callable[[Any], str] = csv_field,
    width: int | None = None,
) -> str:
    """The lines :func:`csv_bytes` writes for ``rows`` (without the header row).

    ``field``: what writes a field that is not a text, a count, missing or an empty list
    (:func:`csv_field`, or a function that reads such a cell's value first and then calls
    it). ``width``: each row's count of fields (a row of another is refused)."""
    out: list[str] = []
    starts, quote_or_break, formula = FORMULA_STARTS, _QUOTE_OR_BREAK, _FORMULA_AFTER_COMMA
    for row in rows:
        if width is not None and len(row) != width:
            raise ValueError(f"a row of {len(row)} cells, not {width}")
        # Each field as it is written when it is a text written as it is, a count, missing
        # or an empty list (most fields), then the line checked once: a line with no quote,
        # no line break, no formula's start at a field's start and no comma but its
        # separators is written so. Any other line is written a field at a time.
        line = ",".join(
            [
                v
                if type(v) is str
                else ""
                if v is None or v == ()
                else int.__repr__(v)
                if type(v) is int
                else field(v)
                for v in row
            ]
        )
        if (
            line.startswith(starts)
            or quote_or_break(line) is not None
            or formula(line) is not None
            or line.count(",") != len(row) - 1
        ):
            line = ",".join([field(v) for v in row])
        out.append('""\n' if not line and len(row) == 1 else line + "\n")
    return "".join(out)


_QUOTE_OR_BREAK: Final = re.compile('["' + re.escape(LINE_BREAKS) + "]").search
_FORMULA_AFTER_COMMA: Final = re.compile(",[" + re.escape("".join(FORMULA_STARTS)) + "]").search
"""What makes a line of fields joined as they are differ from the line :func:`csv_field`
writes: a quote or a line break anywhere (the first), a formula's start after a comma (the
second) or at the line's start (a negative number is one too: its line is then written a field
at a time, the same bytes). Two searches for a character and a test of the line's start take a
quarter of the time of one pattern of the three tried at every place of the line."""


def csv_header(header: Sequence[str]) -> str:
    """The header row :func:`csv_bytes` writes."""
    return csv_text(header, ())


_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


def file_stem(identifier: str) -> str:
    """A file name stem for a record id: safe characters only, unique by a short hash.

    Run ids carry slashes and other characters no file system accepts everywhere; the hash suffix
    keeps two ids apart even on case-insensitive file systems.
    """
    slug = _UNSAFE_NAME.sub("_", identifier).strip("._")[:80] or "run"
    return f"{slug}-{hashlib.sha256(identifier.encode('utf-8')).hexdigest()[:8]}"
