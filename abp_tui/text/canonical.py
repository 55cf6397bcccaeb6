"""Canonical JSON text: the one serialisation that content hashes are computed over.

Keys sorted, UTF-8 text as is (no ``\\u`` escapes), no white space between tokens. The store
hashes imported records, designs and packs over it; bundles write JSON Lines with it; the format
parsers derive stable ids from it. Two equal documents always give the same text, so the same
hash on every machine. Nothing here reads or writes files.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any


def canonical_json(data: Any) -> str:
    """``data`` as canonical JSON text."""
    return json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def sha256_text(text: str) -> str:
    """SHA-256 (hex) of ``text`` encoded as UTF-8."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def sha256_bytes(data: bytes) -> str:
    """SHA-256 (hex) of ``data``."""
    return hashlib.sha256(data).hexdigest()
