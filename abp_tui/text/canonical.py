"""Canonical JSON text: the one serialisation that content hashes are computed over.

Keys sorted, UTF-8 text as is (no ``\\u`` escapes), no white space between tokens. The store
hashes imported records, designs and packs over it; bundles write JSON Lines with it; the format
parsers derive stable ids from it. Two equal documents always give the same text, so the same
hash on every machine. Nothing here reads or writes files.
"""

from __future__ import annotations

import hashlib
import json
from json.encoder import c_make_encoder, encode_basestring  # type: ignore[attr-defined]
from typing import Any

_ENCODER = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":"))
# What json.dumps builds on every call with these options, built once: an import makes a text
# per record. Without the circular check (JSON documents have no cycles; a cycle built in code
# still fails, as a RecursionError).
_C_ENCODE = (
    c_make_encoder(None, _ENCODER.default, encode_basestring, None, ":", ",", True, False, True)
    if c_make_encoder is not None
    else None
)


def canonical_json(data: Any) -> str:
    """``data`` as canonical JSON text."""
    if _C_ENCODE is None:  # pragma: no cover - CPython has the C encoder
        return _ENCODER.encode(data)
    return "".join(_C_ENCODE(data, 0))


def ascii_canonical_json(data: Any) -> str:
    """``data`` as canonical JSON with non-ASCII and control characters escaped as
    ``json.dumps`` escapes them by default (``\\u`` escapes; DEL is left as it is): a text that
    sorts as that dump does."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


def sha256_text(text: str) -> str:
    """SHA-256 (hex) of ``text`` encoded as UTF-8."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def sha256_bytes(data: bytes) -> str:
    """SHA-256 (hex) of ``data``."""
    return hashlib.sha256(data).hexdigest()
