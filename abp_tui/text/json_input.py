"""JSON from outside (run records, packs, ratings, designs, manifests): parsed, or refused with
the reason and where.

The standard parser accepts more than the rest of the program can hold, and each excess ended as
an internal error somewhere downstream: ``NaN`` and ``Infinity`` (not JSON at all, RFC 8259
section 6), a number too large for a float (``1e999`` reads as infinity), an integer outside
SQLite's 64 bits (the store cannot write it), an escaped lone surrogate (``"\\ud800"``: no UTF-8
encoding exists for it), or nesting so deep that parsing, validating or pickling the document
exhausts the interpreter's recursion limit. :func:`loads` refuses each of these as a
:class:`JsonRefused` naming the line and column, or the JSON path of the value; :func:`check`
applies the same rules to a document parsed by another reader (TOML). The callers turn the
refusal into their own error, naming the file.

What is cheap stays cheap: numbers are range-checked as the parser converts them, and the
parsed document is walked only when its text could hold the problem (a surrogate escape, more
brackets than the depth allowed) or, to name the path, once a number was refused.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterator
from typing import Any, Final

MAX_DEPTH: Final = 200
"""Deepest nesting of arrays and objects accepted: the limit pydantic's own JSON reader applies,
so every reader of the project refuses the same documents."""
INT_MIN: Final = -(2**63)
INT_MAX: Final = 2**63 - 1
"""SQLite's INTEGER range: every integer read may end in the database."""

_STRING_OR_CONSTANT = re.compile(r'"(?:[^"\\]+|\\.)*"|(NaN|-?Infinity)', re.DOTALL)
_STRING_OR_BRACKET = re.compile(r'"(?:[^"\\]+|\\.)*"|([\[\]{}])', re.DOTALL)
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_LONG_DIGITS = re.compile(r"\d{4000,}")


class JsonRefused(ValueError):
    """Why a JSON document is refused, and where: a line and column of its text, or the JSON
    path of the value (``$.runs[3].tokens``)."""

    def __init__(
        self,
        reason: str,
        line: int | None = None,
        column: int | None = None,
        path: str | None = None,
        *,
        malformed: bool = False,
    ) -> None:
        self.reason = reason
        self.malformed = malformed
        """True when the text is not JSON's syntax (as opposed to a value refused)."""
        self.line = line
        self.column = column
        self.path = path
        self.pos: int | None = None
        """Where in the text a syntax error was found (set by :func:`loads_at`)."""
        super().__init__(str(self))

    @property
    def where(self) -> str:
        """ "line 3, column 7", "$.a.b" or "" (the callers that number lines use ``column``)."""
        if self.path:
            return self.path
        if self.line is not None:
            return f"line {self.line}, column {self.column}"
        return ""

    def __str__(self) -> str:
        return f"{self.where}: {self.reason}" if self.where else self.reason


class _Constant(Exception):
    """NaN or Infinity met by the parser (raised out of ``parse_constant``)."""


def _refuse_constant(name: str) -> Any:
    raise _Constant(name)


def _line_column(text: str, pos: int) -> tuple[int, int]:
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1


def _constant_at(text: str, pos: int = 0) -> tuple[str, int, int]:
    for match in _STRING_OR_CONSTANT.finditer(text, pos):
        if match.group(1):
            return (match.group(1), *_line_column(text, match.start(1)))
    return ("NaN", 1, 1)  # pragma: no cover - the parser met one, so the scan does


def _too_deep_at(text: str, pos: int = 0) -> tuple[int, int]:
    depth = 0
    for match in _STRING_OR_BRACKET.finditer(text, pos):
        bracket = match.group(1)
        if not bracket:
            continue
        depth += 1 if bracket in "[{" else -1
        if depth > MAX_DEPTH:
            return _line_column(text, match.start(1))
    return 1, 1  # pragma: no cover - only called for a document nested too deeply


def _too_deep(text: str, pos: int = 0) -> JsonRefused:
    return JsonRefused(
        f"arrays and objects nested more than {MAX_DEPTH} levels deep: expected at most "
        f"{MAX_DEPTH}",
        *_too_deep_at(text, pos),
    )


class _OutOfRange(Exception):
    """A number no record can hold, met by the parser (raised out of ``parse_int`` or
    ``parse_float``); the document is then parsed again, plainly, to name its path."""


def _integer(text: str) -> int:
    value = int(text)
    if INT_MIN <= value <= INT_MAX:
        return value
    raise _OutOfRange


def _real(text: str) -> float:
    value = float(text)
    if math.isfinite(value):
        return value
    raise _OutOfRange


# One decoder for every call: ``json.loads`` with any keyword builds a new one each time, which
# cost more than parsing a 2 KB line. The number hooks are the parser's own conversions with a
# range check; scanning the text for long numbers by a regex instead took 15 times as long as
# parsing a 2 KB line and 7 times as long as parsing a 9 MB document.
_DECODER: Final = json.JSONDecoder(
    parse_constant=_refuse_constant, parse_int=_integer, parse_float=_real
)


def _number_out_of_range(text: str) -> JsonRefused:
    try:
        problem = _first_problem(json.loads(text), numbers=True, strings=False)
    except (ValueError, RecursionError):  # pragma: no cover - the first parse got this far
        problem = None
    return problem or JsonRefused(
        f"a number out of range: expected a finite one, integers from {INT_MIN} to {INT_MAX}"
    )


def loads(text: str, object_hook: Callable[[dict[str, Any]], Any] | None = None) -> Any:
    """Parse JSON text, refusing (as :class:`JsonRefused`) what is not JSON or what no record
    can hold: see the module's docstring. ``object_hook``: as :func:`json.loads`'s, each object
    handed to it as it is parsed and replaced by what it returns (a hook that keeps a string
    of an object it replaces checks it holds no lone surrogate, which is then not looked
    for)."""
    decoder = _DECODER
    if object_hook is not None:
        decoder = json.JSONDecoder(
            object_hook=object_hook,
            parse_constant=_refuse_constant,
            parse_int=_integer,
            parse_float=_real,
        )
    try:
        data = decoder.decode(text)
    except _Constant:
        name, line, column = _constant_at(text)
        raise JsonRefused(
            f"{name} is not a JSON number: expected a finite number (or null)", line, column
        ) from None
    except _OutOfRange:
        raise _number_out_of_range(text) from None
    except json.JSONDecodeError as exc:
        raise JsonRefused(exc.msg, exc.lineno, exc.colno, malformed=True) from None
    except RecursionError:
        raise _too_deep(text) from None
    except ValueError:
        # Python refuses to convert an integer of more than 4300 digits (CVE-2020-10735).
        found = _LONG_DIGITS.search(text)
        line, column = _line_column(text, found.start()) if found else (1, 1)
        raise JsonRefused(
            f"an integer of thousands of digits: expected one from {INT_MIN} to {INT_MAX}",
            line,
            column,
        ) from None
    if text.count("[") + text.count("{") > MAX_DEPTH and _deeper_than(data, MAX_DEPTH):
        raise _too_deep(text)
    if _SURROGATE_ESCAPE.search(text) is not None:
        problem = _first_problem(data, numbers=False, strings=True)
        if problem is not None:
            raise problem
    return data


_PLAIN: Final = json.JSONDecoder()


def _syntax_error(exc: json.JSONDecodeError) -> JsonRefused:
    refused = JsonRefused(exc.msg, exc.lineno, exc.colno, malformed=True)
    refused.pos = exc.pos
    return refused


def loads_at(text: str, pos: int) -> tuple[Any, int]:
    """The JSON value starting at index ``pos`` of ``text`` and the index just past it, refused
    as :func:`loads` refuses (lines and columns counted in ``text``, JSON paths from the value:
    ``$`` is the value itself). What follows the value is not looked at: a reader of a long
    document takes its values one at a time (:mod:`abp_tui.formats.json_stream`). A syntax
    error's :attr:`JsonRefused.pos` is its index in ``text``."""
    try:
        data, end = _DECODER.raw_decode(text, pos)
    except _Constant:
        name, line, column = _constant_at(text, pos)
        raise JsonRefused(
            f"{name} is not a JSON number: expected a finite number (or null)", line, column
        ) from None
    except _OutOfRange:
        try:
            end = _PLAIN.raw_decode(text, pos)[1]
        except (ValueError, RecursionError):  # pragma: no cover - broken after the number
            end = len(text)
        raise _number_out_of_range(text[pos:end]) from None
    except json.JSONDecodeError as exc:
        # Made by a call, not held in a local: the exception's traceback holds this frame, and
        # a local naming the exception would make a cycle that keeps ``text`` (a megabyte of a
        # long file) alive while an import runs with the cycle collector paused.
        raise _syntax_error(exc) from None
    except RecursionError:
        raise _too_deep(text, pos) from None
    except ValueError:
        found = _LONG_DIGITS.search(text, pos)
        line, column = _line_column(text, found.start()) if found else (1, 1)
        raise JsonRefused(
            f"an integer of thousands of digits: expected one from {INT_MIN} to {INT_MAX}",
            line,
            column,
        ) from None
    if text.count("[", pos, end) + text.count("{", pos, end) > MAX_DEPTH and _deeper_than(
        data, MAX_DEPTH
    ):
        raise _too_deep(text, pos)
    if _SURROGATE_ESCAPE.search(text, pos, end) is not None:
        problem = _first_problem(data, numbers=False, strings=True)
        if problem is not None:
            raise problem
    return data, end


def check(data: Any) -> None:
    """Apply :func:`loads`' rules to a document another reader parsed (a TOML table): raises
    :class:`JsonRefused` naming the JSON path of the first value refused."""
    if _deeper_than(data, MAX_DEPTH):
        raise JsonRefused(
            f"arrays and tables nested more than {MAX_DEPTH} levels deep: expected at most "
            f"{MAX_DEPTH}"
        )
    problem = _first_problem(data, numbers=True, strings=True)
    if problem is not None:
        raise problem


def _deeper_than(data: Any, limit: int) -> bool:
    if type(data) is not dict and type(data) is not list:
        return False
    stack = [(data, 1)]
    while stack:
        node, depth = stack.pop()
        values = node.values() if type(node) is dict else node
        for value in values:
            kind = type(value)
            if kind is dict or kind is list:
                if depth >= limit:
                    return True
                stack.append((value, depth + 1))
    return False


def _children(node: Any, path: str) -> Iterator[tuple[str, Any, Any]]:
    """(path, key or None, value) of each member of an object or array."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield f"{path}.{key}" if _plain_key(key) else f"{path}[{json.dumps(key)}]", key, value
    else:
        for index, value in enumerate(node):
            yield f"{path}[{index}]", None, value


def _plain_key(key: Any) -> bool:
    return isinstance(key, str) and key.isidentifier()


def _first_problem(data: Any, *, numbers: bool, strings: bool) -> JsonRefused | None:
    stack: list[tuple[str, Any]] = [("$", data)]
    while stack:
        path, node = stack.pop()
        problem = _value_problem(node, path, numbers=numbers, strings=strings)
        if problem is not None:
            return problem
        if isinstance(node, dict | list):
            members = list(_children(node, path))
            for child_path, key, value in reversed(members):
                if strings and isinstance(key, str) and _lone_surrogate(key):
                    return JsonRefused(
                        "a key holding a lone surrogate (an escape such as \\ud800 with no "
                        "pair): expected text that UTF-8 can encode",
                        path=child_path,
                    )
                stack.append((child_path, value))
    return None


def _value_problem(node: Any, path: str, *, numbers: bool, strings: bool) -> JsonRefused | None:
    kind = type(node)
    if numbers and kind is int and not INT_MIN <= node <= INT_MAX:
        shown = str(node)
        shown = shown if len(shown) <= 30 else f"{shown[:12]}...({len(shown)} digits)"
        return JsonRefused(
            f"integer {shown} is out of range: expected one from {INT_MIN} to {INT_MAX}",
            path=path,
        )
    if numbers and kind is float and not math.isfinite(node):
        what = "NaN" if math.isnan(node) else "an infinite number (or one too large for a float)"
        return JsonRefused(f"{what}: expected a finite number", path=path)
    if strings and kind is str and _lone_surrogate(node):
        return JsonRefused(
            "text holding a lone surrogate (an escape such as \\ud800 with no pair): expected "
            "text that UTF-8 can encode",
            path=path,
        )
    return None


def _lone_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


__all__ = ["INT_MAX", "INT_MIN", "MAX_DEPTH", "JsonRefused", "check", "loads", "loads_at"]
