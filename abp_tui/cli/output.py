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
from typing import Any

from abp_tui.text.safe import json_escaped

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3


def emit(args: argparse.Namespace, document: Any, text: str) -> None:
    """Print ``document`` as JSON when ``--json`` was given, else ``text``. The JSON keeps
    non-ASCII text readable but escapes C1, bidirectional and invisible characters
    (``json.dumps`` escapes only those below U+0020): record text never reaches the terminal
    as a control sequence or reordered, and parses back the same."""
    if getattr(args, "json", False):
        shown = json.dumps(document, indent=2, ensure_ascii=False, default=str)
        sys.stdout.write(json_escaped(shown) + "\n")
    else:
        sys.stdout.write(text + ("\n" if text and not text.endswith("\n") else ""))
