"""What every format module provides, and the shared helpers that read JSON and JSONL safely.

A format module parses files into the protocol's models and nothing else: it never touches the
database. Record-level problems that ``--skip-invalid`` may skip are *yielded* as :class:`Invalid`;
problems that make the whole file unusable are *raised* as :class:`InputError`.
"""

from __future__ import annotations

import json
import stat as st
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar, get_args

from pydantic import BaseModel, ValidationError

from abp_tui.errors import InputError
from abp_tui.formats import json_stream
from abp_tui.models import (
    Condition,
    Preference,
    ReferenceVerdict,
    Reviewer,
    Rubric,
    Run,
    Study,
    Task,
    TraceEvent,
    TraceEventBatch,
)
from abp_tui.models.base import built
from abp_tui.models.judges import Judge, JudgeVerdict
from abp_tui.text import json_input
from abp_tui.text.input_files import not_regular

Record = (
    Study
    | Condition
    | Task
    | Rubric
    | Run
    | TraceEvent
    | TraceEventBatch
    | ReferenceVerdict
    | Reviewer
    | Preference
    | Judge
    | JudgeVerdict
)
"""What a parser yields. A Study comes first; a run's TraceEvents come before the Run itself."""


def build_records() -> None:
    """Build every record model's validator before a file is parsed
    (:func:`abp_tui.models.base.built`: no item of the file stays alive for having been
    read when its model was first used)."""
    built(*(m for m in get_args(Record) if issubclass(m, BaseModel)))


@dataclass(frozen=True)
class Invalid:
    """A record that failed validation; the import refuses the file unless told to skip it."""

    error: InputError


@dataclass
class ParseContext:
    """What a parser knows beyond the file: the requested study and where to report progress."""

    display: str
    """How the file is named in messages (its path as the user gave it)."""
    study_id: str | None = None
    """The study named by ``--study``; when None the format picks a sensible default."""
    options: dict[str, str] = field(default_factory=dict)
    """Format options from the command line (e.g. Inspect's ``condition=model``)."""
    progress: Callable[[int], None] = lambda _pos: None
    """Called now and then with the number of bytes read so far."""
    size: int = 0
    """The file's size in bytes, for :meth:`advance`."""

    def study(self, default: str) -> str:
        return self.study_id or default

    def advance(self, done: int, total: int) -> None:
        """Progress through a document already read whole: ``done`` of its ``total`` records,
        reported as the same share of the file's bytes."""
        if total > 0:
            self.progress(self.size * done // total)


class Format(Protocol):
    """A readable input format."""

    @property
    def name(self) -> str:
        """Short name accepted by ``--format``."""
        ...

    @property
    def summary(self) -> str:
        """One line for ``abp-tui formats``."""
        ...

    def sniff(self, path: Path, head: bytes) -> bool:
        """True when the file's name and first bytes say it is in this format."""
        ...

    def parse(self, path: Path, ctx: ParseContext) -> Iterator[Record | Invalid]:
        """Yield the file's records in order (Study first)."""
        ...

    def companions(self, path: Path) -> list[Path]:
        """Other files the parser reads with ``path`` (hashed with it), usually none."""
        ...


def decode_utf8(data: bytes, display: str, line: int | None = None) -> str:
    """Bytes as text, or an InputError naming the offset of the first invalid byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        where = f"byte {exc.start}" if line is None else f"byte {exc.start} of the line"
        raise InputError(display, f"invalid UTF-8 at {where}: expected UTF-8 text", line) from None


def check_input_file(path: Path, display: str) -> None:
    """Refuse, unopened, an input file that is not a regular file (:func:`not_regular`)."""
    kind = not_regular(path)
    if kind is not None:
        raise InputError(display, f"{kind}: expected a regular file")


def read_json(path: Path, display: str) -> Any:
    """Parse a whole JSON document, with errors that name the line and column.

    A document just parsed for format detection is taken from there (once: the parser may keep
    it), so that detecting and reading a large JSON file parses it only once.
    """
    peeked = _take_peeked(path)
    if peeked is not None:
        return peeked
    check_input_file(path, display)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(display, f"cannot read file: {exc.strerror}") from None
    return loads_json(data, display)


def loads_json(data: bytes, display: str, line: int | None = None) -> Any:
    """Parse JSON, refusing what no record can hold (NaN, an integer beyond 64 bits, a lone
    surrogate, nesting past 200 levels: :mod:`abp_tui.text.json_input`) as an InputError."""
    text = decode_utf8(data, display, line)
    if text.startswith("\ufeff"):
        text = text[1:]
    try:
        return json_input.loads(text)
    except json_input.JsonRefused as exc:
        at = exc.line if line is None else line
        if exc.path is not None:
            raise InputError(display, exc.reason, at, exc.path, whole_file=line is None) from None
        problem = "malformed JSON" if exc.malformed else "JSON refused"
        message = f"{problem} at line {at}, column {exc.column}: {exc.reason}"
        if line is None and exc.malformed:  # a whole document: no record of it can be read
            message += "; the file is not valid JSON: fix or re-export it"
        raise InputError(display, message, at, whole_file=line is None) from None


def iter_jsonl(path: Path, ctx: ParseContext) -> Iterator[tuple[int, bytes]]:
    """Yield (line number, raw line without newline) for each non-blank line, streaming.

    A last line that does not end in a newline and is not complete JSON is reported as truncated.
    """
    check_input_file(path, ctx.display)
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise InputError(ctx.display, f"cannot read file: {exc.strerror}") from None
    with handle:
        pos = 0
        lineno = 0
        for raw in handle:
            lineno += 1
            pos += len(raw)
            if lineno % 4096 == 0:
                ctx.progress(pos)
            complete = raw.endswith(b"\n")
            line = raw.rstrip(b"\r\n")
            if not line.strip():
                continue
            if not complete:
                try:
                    json.loads(line)
                except (ValueError, RecursionError):
                    raise InputError(
                        ctx.display,
                        f"malformed JSON at line {lineno}: truncated last line, the file ends "
                        "in the middle of a JSON record",
                        lineno,
                    ) from None
            yield lineno, line
        ctx.progress(pos)


def json_path(loc: tuple[int | str, ...], prefix: str = "$") -> str:
    out = prefix
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def describe_validation(
    exc: ValidationError,
    display: str,
    line: int | None = None,
    prefix: str = "$",
    skip_loc: int = 0,
) -> InputError:
    """The first pydantic error as an InputError naming the JSON path and what was expected.

    ``skip_loc`` drops leading location parts (a discriminated union's tag).
    """
    err = exc.errors(include_url=False)[0]
    loc = tuple(
        p for p in err["loc"][skip_loc:] if not (isinstance(p, str) and p.startswith("function-"))
    )
    got = err.get("input")
    got_text = ""
    if err["type"] != "missing":
        shown = json.dumps(got, ensure_ascii=False, default=str)
        got_text = f" (got {shown[:60]}{'...' if len(shown) > 60 else ''})"
    message = err["msg"]
    if err["type"] == "missing":
        message = "required field is missing"
    elif err["type"] == "extra_forbidden":
        message = "unexpected field"
    return InputError(display, f"{message}{got_text}", line, json_path(loc, prefix))


M = TypeVar("M", bound=BaseModel)


def validate(
    model: type[M], data: Any, display: str, line: int | None = None, prefix: str = "$"
) -> M:
    """``model.model_validate(data)`` with a clear InputError on failure."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise describe_validation(exc, display, line, prefix) from None


def head_bytes(path: Path, size: int = 4096, line_limit: int = 64 << 20) -> bytes:
    """The first ``size`` bytes, extended to the end of the first line (up to ``line_limit``).

    A JSONL file whose first record is a 20 MB output is still recognised from its first line.
    A JSON list is not extended: no JSONL record is a list, and a list written on one line
    would be read whole (twice, by detection) for nothing.
    """
    if not_regular(path) is not None:
        return b""
    try:
        with path.open("rb") as handle:
            head = handle.read(size)
            if b"\n" in head or len(head) < size:
                return head
            if head.lstrip(b"\xef\xbb\xbf \t\r").startswith(b"["):
                return head
            rest = handle.readline(line_limit)
            return head + rest
    except OSError:
        return b""


_PEEK_LIMIT = 64 << 20
_peek_cache: dict[tuple[str, int, int], Any] = {}


def peek_json(path: Path) -> Any:
    """The parsed JSON document at ``path`` for format sniffing, or None if it is not JSON.

    Whole documents are parsed (keys may come in any order); results are cached per file
    version so detection followed by parsing reads a small file only twice at most.
    """
    try:
        stat = path.stat()
    except OSError:
        return None
    if stat.st_size > _PEEK_LIMIT or not st.S_ISREG(stat.st_mode):
        return None
    key = (str(path), stat.st_mtime_ns, stat.st_size)
    if key not in _peek_cache:
        try:
            _peek_cache.clear()
            data = path.read_bytes()
            _peek_cache[key] = json_input.loads(data.decode(json.detect_encoding(data)))
        except (OSError, ValueError):
            _peek_cache[key] = None
    return _peek_cache[key]


def _take_peeked(path: Path) -> Any:
    try:
        stat = path.stat()
    except OSError:
        return None
    return _peek_cache.pop((str(path), stat.st_mtime_ns, stat.st_size), None)


JSON_SUFFIXES = (".json",)
JSONL_SUFFIXES = (".jsonl", ".ndjson")


def malformed_json(path: Path, display: str, head: bytes) -> InputError | None:
    """Why a file that looks like JSON or JSONL (by its name or first byte) cannot be read as
    JSON, or None: the message for a file no format recognised because it is broken."""
    suffix = path.suffix.lower()
    start = head.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    if suffix in JSONL_SUFFIXES:
        lines = ParseContext(display=display)
        try:
            for lineno, raw in iter_jsonl(path, lines):
                loads_json(raw, display, lineno)
                break  # the first record is JSON: not a syntax problem
        except InputError as exc:
            return exc
        return None
    if suffix in JSON_SUFFIXES or start in (b"{", b"["):
        try:
            if start == b"[":  # read item by item, however long the list
                for _item in json_stream.iter_json_list(path, display):
                    pass
            else:
                read_json(path, display)
        except InputError as exc:
            return exc
    return None


def first_jsonl_record(head: bytes) -> Any:
    """The first line of a JSONL head as JSON, or None."""
    line = head.split(b"\n", 1)[0].strip()
    if not line:
        return None
    try:
        return json.loads(line)
    except (ValueError, RecursionError):
        return None


@dataclass(frozen=True)
class SimpleFormat:
    """A Format built from two functions (most format modules use this)."""

    name: str
    summary: str
    sniff_fn: Callable[[Path, bytes], bool]
    parse_fn: Callable[[Path, ParseContext], Iterator[Record | Invalid]]
    companions_fn: Callable[[Path], list[Path]] | None = None

    def sniff(self, path: Path, head: bytes) -> bool:
        return self.sniff_fn(path, head)

    def parse(self, path: Path, ctx: ParseContext) -> Iterator[Record | Invalid]:
        return self.parse_fn(path, ctx)

    def companions(self, path: Path) -> list[Path]:
        return self.companions_fn(path) if self.companions_fn is not None else []


def validate_each(
    raws: Sequence[Any],
    model: type[M],
    ctx: ParseContext,
    list_path: str,
    key: str,
    what: str,
    each: str,
    check: Callable[[M, str], None] | None = None,
) -> Iterator[tuple[int, Any, M] | Invalid]:
    """Validate each element of a JSON list: (index, raw element, model), or an Invalid record.

    An element whose ``key`` repeats an earlier one is invalid ("duplicate {what} ...; expected
    each {each} once"); ``check(model, json_path)`` may raise InputError for more checks.
    """
    seen: set[Any] = set()
    for i, raw in enumerate(raws):
        prefix = f"{list_path}[{i}]"
        try:
            item = validate(model, raw, ctx.display, prefix=prefix)
            value = getattr(item, key)
            if value in seen:
                raise InputError(
                    ctx.display,
                    f"duplicate {what} {value!r}; expected each {each} once",
                    path=f"{prefix}.{key}",
                )
            if check is not None:
                check(item, prefix)
        except InputError as exc:
            yield Invalid(exc)
            continue
        seen.add(value)
        yield i, raw, item
