"""A JSON list read one item at a time, so that reading a file holds one item, not the file.

A data set shipped as one JSON list (PandaLM's ``testset-v1.json``, an LLMBar evaluator's
``result.json``) can be hundreds of megabytes: parsed whole, its Python objects took four times
the file's size before the first item was stored. :func:`iter_json_list` reads the file in
chunks and parses each item as soon as its text is complete (``JSONDecoder.raw_decode`` from the
item's first character: :func:`abp_tui.text.json_input.loads_at`, which refuses what
:func:`abp_tui.text.json_input.loads` refuses), keeping only the text not parsed yet: at most a
chunk and the item being read. The errors are those of a document read whole: the line and
column of a syntax error in the file, the JSON path of a value refused (``$[3].tokens``).
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Final

from abp_tui.errors import InputError
from abp_tui.text import json_input
from abp_tui.text.input_files import not_regular

CHUNK: Final = 1 << 20
"""Bytes read at a time."""
PROGRESS_EVERY: Final = 256
"""Items between two reports of progress."""
_SPACE: Final = " \t\r\n"
_NUMBER_TAIL: Final = re.compile(r"[0-9.eE+\-]*")
_NEAR_END: Final = 16
"""A syntax error this close to the end of the text read may be the next chunk's start: a
string escape, a literal or a delimiter cut in two."""


def starts_list(path: Path) -> bool:
    """True when the file's first character (after a byte order mark and white space) is
    ``[``: a document that :func:`iter_json_list` reads."""
    if not_regular(path) is not None:
        return False
    try:
        with path.open("rb") as handle:
            head = handle.read(4096)
    except OSError:
        return False
    return head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"[")


class _Text:
    """The file's text from where the reader is, with what is needed to name a line and column
    in the file (the lines and the columns of the current line before the text held)."""

    def __init__(self, path: Path, display: str, progress: Callable[[int], None]) -> None:
        self.display = display
        self.handle = path.open("rb")
        self.decoder = codecs.getincrementaldecoder("utf-8")()
        self.progress = progress
        self.text = ""
        self.pos = 0
        self.eof = False
        self.bytes_read = 0
        self.lines_before = 0
        """Newlines in the text already dropped."""
        self.column_before = 0
        """Characters of the current line already dropped (the first line of ``text``)."""
        self.first = True
        self.chars_dropped = 0

    def report(self) -> None:
        """Progress: how far the items parsed reach, in bytes (counted as characters, which
        is exact for ASCII and behind for other text, never past the bytes read)."""
        self.progress(min(self.chars_dropped + self.pos, self.bytes_read))

    def close(self) -> None:
        self.handle.close()

    def more(self, at_least: int = 0) -> bool:
        """Read on (dropping what was parsed); False at the end of the file."""
        if self.eof:
            return False
        data = self.handle.read(max(at_least, CHUNK))
        if not data:
            self.eof = True
            try:
                self.decoder.decode(b"", final=True)
            except UnicodeDecodeError:
                raise self._invalid_utf8(0) from None
            return False
        try:
            chunk = self.decoder.decode(data)
        except UnicodeDecodeError as exc:
            raise self._invalid_utf8(exc.start) from None
        if self.first and chunk:
            self.first = False
            if chunk.startswith("\ufeff"):
                chunk = chunk[1:]
        self.bytes_read += len(data)
        self._drop()  # only now: at the end, a refusal names a place in the text held
        self.text += chunk
        return True

    def _invalid_utf8(self, start: int) -> InputError:
        offset = self.bytes_read + start
        return InputError(
            self.display, f"invalid UTF-8 at byte {offset}: expected UTF-8 text", whole_file=True
        )

    def _drop(self) -> None:
        text, pos = self.text, self.pos
        if pos == 0:
            return
        newlines = text.count("\n", 0, pos)
        if newlines:
            self.lines_before += newlines
            self.column_before = pos - (text.rfind("\n", 0, pos) + 1)
        else:
            self.column_before += pos
        self.chars_dropped += pos
        self.text = text[pos:]
        self.pos = 0

    def skip_space(self) -> str:
        """The next character that is not white space ("" at the end of the file)."""
        while True:
            text, pos = self.text, self.pos
            while pos < len(text) and text[pos] in _SPACE:
                pos += 1
            self.pos = pos
            if pos < len(text):
                return text[pos]
            if not self.more():
                return ""

    def where(self, line: int, column: int) -> tuple[int, int]:
        """A line and column counted in ``text`` as a line and column of the file."""
        return self.lines_before + line, column + (self.column_before if line == 1 else 0)

    def position(self, pos: int) -> tuple[int, int]:
        line = self.text.count("\n", 0, pos) + 1
        column = pos - (self.text.rfind("\n", 0, pos) + 1) + 1
        return self.where(line, column)

    def malformed(self, reason: str, pos: int) -> InputError:
        line, column = self.position(pos)
        return _malformed(self.display, reason, line, column)


def _malformed(display: str, reason: str, line: int, column: int) -> InputError:
    return InputError(
        display,
        f"malformed JSON at line {line}, column {column}: {reason}; the file is not valid JSON: "
        "fix or re-export it",
        line,
        whole_file=True,
    )


def _may_go_on(value: Any, text: str, end: int) -> bool:
    """True when the value read may be the start of a longer one cut by the chunk's end: a
    number followed by nothing but what a number may hold (``-0.`` of ``-0.5``, ``1e`` of
    ``1e5``)."""
    if end == len(text):
        return True
    kind = type(value)
    return (kind is int or kind is float) and _NUMBER_TAIL.fullmatch(text, end) is not None


def _item(source: _Text, index: int) -> Any:
    """The value starting at ``source.pos``, read on until its text is complete."""
    while True:
        text, pos = source.text, source.pos
        try:
            value, end = json_input.loads_at(text, pos)
        except json_input.JsonRefused as exc:
            cut = exc.malformed and (
                exc.reason.startswith("Unterminated string")
                or (exc.pos is not None and exc.pos >= len(text) - _NEAR_END)
            )
            if cut and source.more(len(text) - pos):
                continue  # the item goes on in the next chunk
            if exc.path is not None:
                raise InputError(
                    source.display, exc.reason, path=f"$[{index}]{exc.path[1:]}", whole_file=True
                ) from None
            line, column = source.where(exc.line or 1, exc.column or 1)
            if exc.malformed:
                raise _malformed(source.display, exc.reason, line, column) from None
            raise InputError(
                source.display,
                f"JSON refused at line {line}, column {column}: {exc.reason}",
                line,
                f"$[{index}]",
                whole_file=True,
            ) from None
        if _may_go_on(value, text, end) and source.more():
            del value  # read again with the next chunk: a number may go on there
            continue
        source.pos = end
        return value


def iter_json_list(
    path: Path, display: str, progress: Callable[[int], None] | None = None
) -> Iterator[tuple[int, Any]]:
    """Yield (index, item) for each item of the JSON list in ``path``, reading it in chunks.

    The file must start with ``[`` (:func:`starts_list`); a syntax error anywhere (a truncated
    file, text after the list) is an InputError naming its line and column, a value refused one
    naming its JSON path, raised when the reader gets there. ``progress`` is called now and then
    with how far into the file the items read so far reach, in bytes.
    """
    kind = not_regular(path)
    if kind is not None:
        raise InputError(display, f"{kind}: expected a regular file")
    try:
        source = _Text(path, display, progress or (lambda _pos: None))
    except OSError as exc:
        raise InputError(display, f"cannot read file: {exc.strerror}") from None
    try:
        if source.skip_space() != "[":
            raise source.malformed("Expecting '['", source.pos)
        source.pos += 1
        index = 0
        following = source.skip_space()
        while following != "]":
            if following == "":
                raise source.malformed("Expecting value", source.pos)
            yield index, _item(source, index)
            index += 1
            if index % PROGRESS_EVERY == 0:
                source.report()
            following = source.skip_space()
            if following == ",":
                source.pos += 1
                following = source.skip_space()
                if following in ("]", ""):
                    raise source.malformed("Expecting value", source.pos)
            elif following != "]":  # another item without a comma, or the end of the file
                raise source.malformed("Expecting ',' delimiter", source.pos)
        source.pos += 1
        if source.skip_space() != "":
            raise source.malformed("Extra data", source.pos)
        source.progress(source.bytes_read)
    except OSError as exc:
        raise InputError(display, f"cannot read file: {exc.strerror}") from None
    finally:
        source.close()


def leading_items(path: Path, count: int) -> Iterator[Any]:
    """The first ``count`` items of the JSON list in ``path`` (fewer if it is shorter or they
    stop being valid JSON), one at a time, for format detection: none when it is not a list."""
    if not starts_list(path):
        return
    try:
        for index, item in iter_json_list(path, str(path)):
            yield item
            if index + 1 >= count:
                return
    except InputError:
        return


def first_item(path: Path) -> Any:
    """The first item of the JSON list in ``path``; None when there is none (or no list)."""
    return next(leading_items(path, 1), None)
