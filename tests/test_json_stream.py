"""A JSON list is read one item at a time: the items and the errors of a document read whole,
never more than an item held, and a pairwise data set of any size imported that way."""

from __future__ import annotations

import gc
import json
import tracemalloc
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from abp_tui.errors import InputError
from abp_tui.formats import base, detect, json_stream
from abp_tui.formats import pairwise as pairwise_format
from abp_tui.formats.base import ParseContext
from abp_tui.services.importing import import_paths
from abp_tui.store import connect
from abp_tui.store.queries import count
from abp_tui.text import json_input
from tests.factories import Cli
from tests.import_helpers import nothing_stored


def _items(n: int, *, width: int = 40) -> list[dict[str, Any]]:
    return [
        {
            "idx": i,
            "cmp_key": "alpha_beta",
            "instruction": f"Rewrite sentence {i} clearly. " + "x" * (i % width),
            "input": 'é \\ " \u2028 \U0001f600',
            "response1": "A clear sentence.",
            "response2": "A sentence, clearer.",
            "extra": [1.5, -2, True, None, {"n": [i, i * 1e-3]}],
            "annotator1": i % 3,
        }
        for i in range(n)
    ]


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))
    return path


def _read(path: Path) -> list[Any]:
    return [item for _i, item in json_stream.iter_json_list(path, path.name)]


@pytest.fixture
def tiny_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks of a few characters: every item, string, escape and number is cut somewhere."""
    monkeypatch.setattr(json_stream, "CHUNK", 7)


# -- the items of the document ----------------------------------------------------------------
@pytest.mark.parametrize("indent", [None, 2])
@pytest.mark.parametrize("chunk", [1, 3, 7, 64, 1 << 20])
def test_items_are_those_of_the_document_read_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, indent: int | None, chunk: int
) -> None:
    monkeypatch.setattr(json_stream, "CHUNK", chunk)
    items: list[Any] = [*_items(25), 12345678901234, -0.5e-7, "tail", [], {}, None, False]
    text = "\ufeff \n" + json.dumps(items, indent=indent, ensure_ascii=False) + " \n"
    path = _write(tmp_path / "list.json", text)
    assert _read(path) == items
    assert [i for i, _ in json_stream.iter_json_list(path, "x")] == list(range(len(items)))


@pytest.mark.parametrize("text", ["[]", " [ ] ", "[\n]\n"])
def test_an_empty_list_has_no_items(tmp_path: Path, text: str) -> None:
    assert _read(_write(tmp_path / "empty.json", text)) == []


def test_progress_reaches_the_size_of_the_file(tmp_path: Path, tiny_chunks: None) -> None:
    path = _write(tmp_path / "list.json", json.dumps(_items(5)))
    seen: list[int] = []
    for _ in json_stream.iter_json_list(path, "list.json", seen.append):
        pass
    assert seen == sorted(seen)
    assert seen[-1] == path.stat().st_size


# -- the errors of the document read whole ----------------------------------------------------
def _whole_error(path: Path) -> InputError:
    with pytest.raises(InputError) as caught:
        base.loads_json(path.read_bytes(), path.name)
    return caught.value


def _stream_error(path: Path) -> InputError:
    with pytest.raises(InputError) as caught:
        _read(path)
    return caught.value


@pytest.mark.parametrize(
    "text",
    [
        '[{"a": 1}, {"b": "cut in the mid',  # a truncated file: an unterminated string
        '[{"a": 1},\n {"b": 2}\n',  # no closing bracket
        '[{"a": 1},\n {"b": 2},\n]',  # a trailing comma
        '[{"a": 1}\n {"b": 2}]',  # a missing comma
        '[{"a": 1}, {"b": 2}] {"c": 3}',  # text after the list
        '[{"a": 1}, {"b": tru}]',  # a broken literal
        '[{"a": 1}, {"b": "\\q"}]',  # an invalid escape
        "[",
        "[1,",
    ],
)
@pytest.mark.parametrize("chunk", [2, 5, 1 << 20])
def test_a_syntax_error_names_the_line_and_column_as_the_whole_document(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, chunk: int
) -> None:
    monkeypatch.setattr(json_stream, "CHUNK", chunk)
    path = _write(tmp_path / "bad.json", "\n" + text.replace(", ", ",\n  "))
    whole, streamed = _whole_error(path), _stream_error(path)
    assert (streamed.line, streamed.message) == (whole.line, whole.message)
    assert streamed.whole_file


@pytest.mark.parametrize(
    ("item", "path", "reason"),
    [
        ('{"a": {"b": 99999999999999999999}}', "$[2].a.b", "out of range"),
        ('{"a": ["\\ud800"]}', "$[2].a[0]", "lone surrogate"),
    ],
)
def test_a_value_refused_names_its_item(
    tmp_path: Path, tiny_chunks: None, item: str, path: str, reason: str
) -> None:
    file = _write(tmp_path / "bad.json", f'[{{"x": 1}}, {{"y": 2}}, {item}, {{"z": 3}}]')
    error = _stream_error(file)
    assert error.path == path
    assert reason in error.message
    assert _whole_error(file).path == path


def test_nan_is_refused_at_its_line_and_column(tmp_path: Path, tiny_chunks: None) -> None:
    file = _write(tmp_path / "nan.json", '[{"x": 1},\n {"y": NaN}]')
    error = _stream_error(file)
    assert "line 2, column 8: NaN is not a JSON number" in error.message
    assert error.path == "$[1]"


def test_nesting_too_deep_is_refused(tmp_path: Path) -> None:
    file = _write(tmp_path / "deep.json", "[1, " + "[" * 300 + "]" * 300 + "]")
    assert "nested more than 200 levels" in _stream_error(file).message


def test_invalid_utf8_names_its_byte(tmp_path: Path, tiny_chunks: None) -> None:
    file = tmp_path / "latin.json"
    file.write_bytes(b'[{"a": "caf\xe9"}]')
    error = _stream_error(file)
    assert error.message == "invalid UTF-8 at byte 11: expected UTF-8 text"


# -- what is held -----------------------------------------------------------------------------
class _Counted(dict[str, Any]):
    """An item whose copies alive are counted (a dict subclass can be weakly referenced)."""


class _Live:
    def __init__(self) -> None:
        self.now = 0
        self.most = 0
        self.made = 0

    def count(self, value: Any) -> Any:
        if not isinstance(value, dict):
            return value
        counted = _Counted(value)
        self.now += 1
        self.made += 1
        self.most = max(self.most, self.now)
        weakref.finalize(counted, self._gone)
        return counted

    def _gone(self) -> None:
        self.now -= 1


@pytest.fixture
def live(monkeypatch: pytest.MonkeyPatch) -> Iterator[_Live]:
    """Every item the reader parses, counted while it is alive."""
    counter = _Live()
    loads_at = json_input.loads_at

    def counting(text: str, pos: int) -> tuple[Any, int]:
        value, end = loads_at(text, pos)
        return counter.count(value), end

    monkeypatch.setattr(json_input, "loads_at", counting)
    yield counter


@pytest.mark.parametrize("n", [50, 2000])
def test_a_pairwise_import_never_holds_more_than_two_items(
    tmp_path: Path, live: _Live, tiny_chunks: None, n: int
) -> None:
    """Detection, both passes over the file and the import itself hold an item at a time,
    however many the file has (read whole, all of them were alive at once)."""
    path = _write(tmp_path / "pandalm-big.json", json.dumps(_items(n)))
    db = connect(tmp_path / "abp.db")
    try:
        import_paths(db, [path])
        assert count(db, "tasks") == n
    finally:
        db.close()
    assert live.made >= 2 * n  # both passes read every item through the reader
    assert live.most <= 2


def test_the_reader_holds_a_chunk_and_an_item_with_cycles_uncollected(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An item cut by a chunk's end is read again with the next chunk: the refusal that says
    so must not keep the text read so far alive (an import pauses the cycle collector)."""
    monkeypatch.setattr(json_stream, "CHUNK", 4096)

    def peak(n: int) -> int:
        path = _write(tmp_path / f"{n}.json", json.dumps(_items(n, width=400)))
        gc.collect()
        gc.disable()
        tracemalloc.start()
        try:
            for _ in json_stream.iter_json_list(path, path.name):
                pass
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
            gc.enable()

    small, large = peak(200), peak(2000)
    assert large < small + 64 * 1024, (small, large)


# -- the formats that read JSON lists ---------------------------------------------------------
def test_a_pairwise_list_too_large_to_peek_at_is_still_recognised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Detection reads the first item, not the whole file: a list past the size a document is
    parsed whole for detection is recognised too."""
    path = _write(tmp_path / "pandalm-big.json", json.dumps(_items(300)))
    monkeypatch.setattr(base, "_PEEK_LIMIT", 1000)
    assert path.stat().st_size > 1000
    found = detect(path)
    assert found is not None and found.name == "pairwise"


def test_a_list_broken_half_way_stores_nothing_even_skipping_invalid(
    tmp_path: Path, cli: Cli
) -> None:
    """Items before the break were read (item by item) but the file is not JSON: nothing of it
    is kept, as when the document was read whole."""
    text = json.dumps(_items(40), indent=1)
    path = _write(tmp_path / "pandalm-cut.json", text[: len(text) * 3 // 4])
    result = cli("import", path, "--format", "pairwise")
    assert result.code == 1
    assert "pandalm-cut.json:" in result.err and "malformed JSON at line" in result.err
    nothing_stored(cli)
    # --skip-invalid skips invalid items of a readable list, never a list that does not parse.
    skipping = cli("import", path, "--format", "pairwise", "--skip-invalid", "--json")
    assert skipping.code == 1
    assert skipping.out == ""
    assert "pandalm-cut.json:" in skipping.err and "malformed JSON at line" in skipping.err
    nothing_stored(cli)


def test_a_document_not_a_list_is_refused_as_before(tmp_path: Path) -> None:
    path = _write(tmp_path / "obj.json", '{"response1": "a", "response2": "b"}')
    with pytest.raises(InputError, match="expected a JSON list of pairwise items"):
        list(pairwise_format.FORMAT.parse(path, ParseContext(display="obj.json")))


def test_an_item_error_names_the_file_and_item(tmp_path: Path, cli: Cli) -> None:
    items = _items(30)
    items[17]["annotator1"] = 7
    path = _write(tmp_path / "pandalm-bad.json", json.dumps(items))
    result = cli("import", path)
    assert result.code == 1
    assert "pandalm-bad.json: $[17].annotator1: expected 0 (tie)" in result.err
    nothing_stored(cli)
