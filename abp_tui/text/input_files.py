"""What an input file must be before it is opened: a regular file.

Opening a named pipe waits for a writer forever, and reading a device may never end; a folder
where a file is expected fails only once opened, with the system's words. Every reader of a
file given from outside asks here first (``formats.base.check_input_file`` refuses anything
else in one line naming the file).
"""

from __future__ import annotations

import os
import stat as st
from pathlib import Path


def not_regular(path: Path) -> str | None:
    """What ``path`` is when it exists but is not a regular file (a folder, a named pipe, a
    device, a socket), else None. Asked before an input is opened: opening a named pipe waits
    for a writer forever, and reading a device may never end."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None  # missing or unreadable: the reader's own message says so
    if st.S_ISREG(mode):
        return None
    if st.S_ISDIR(mode):
        return "a folder"
    if st.S_ISFIFO(mode):
        return "a named pipe"
    if st.S_ISSOCK(mode):
        return "a socket"
    if st.S_ISCHR(mode) or st.S_ISBLK(mode):
        return "a device"
    return "not a regular file"
