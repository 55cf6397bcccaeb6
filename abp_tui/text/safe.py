"""Untrusted text (outputs, evidence, traces, file names) made safe to display.

Control characters (C0 except newline and tab, DEL, C1 including CSI and OSC introducers), ESC,
bidirectional overrides and isolates, zero-width characters and Unicode tag characters
(U+E0000-U+E007F, which can spell invisible ASCII inside visible text) are replaced by visible
placeholders, so nothing from a run record can reach the terminal as an escape sequence or
silently reorder or hide text. This module returns plain strings; it never produces markup.
"""

from __future__ import annotations

import re

_C0_PICTURES = {i: chr(0x2400 + i) for i in range(0x20)}  # U+2400 control pictures
_C0_PICTURES[0x7F] = "\u2421"

_INVISIBLE = (
    "\u061c\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
    "\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069\ufeff\u00ad"
)
_TAGS = "\U000e0000-\U000e007f"
_UNSAFE = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_INVISIBLE}\ud800-\udfff{_TAGS}]")


def _visible(match: re.Match[str]) -> str:
    ch = match.group()
    code = ord(ch)
    if code in _C0_PICTURES:
        return _C0_PICTURES[code]
    return f"⟨U+{code:04X}⟩"


def safe_text(text: str) -> str:
    """Text with every unsafe character made visible; newlines and tabs are kept."""
    return _UNSAFE.sub(_visible, text)


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code > 0xFFFF:  # JSON spells a character past the BMP as its UTF-16 surrogate pair
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


def json_escaped(document: str) -> str:
    """JSON text with every unsafe character (as for :func:`safe_text`) written as a ``\\uXXXX``
    escape: still valid JSON that parses to the same data, with nothing a terminal acts on.

    For text ``json.dumps`` wrote: outside its strings it writes only ASCII, and inside them it
    escapes C0 controls, newlines and tabs already, so every match is a character of a string."""
    return _UNSAFE.sub(_escaped, document)


def safe_line(text: str) -> str:
    """Text for a single line: as :func:`safe_text`, with newlines and tabs shown as escapes."""
    return safe_text(text).replace("\r", "\u240d").replace("\n", "\\n").replace("\t", "\\t")
