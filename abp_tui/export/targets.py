"""Where a command writes: the path the user gave must be of the kind the command writes (a file,
or a folder of files), checked before anything is computed or written, so that the message says
what was expected there rather than what the system refused."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Literal

from abp_tui.export.errors import ExportError


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISREG(mode):
        return "a file"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    return "not a regular file"


def check_target(path: Path, expected: Literal["file", "folder"], what: str) -> None:
    """Refuse ``path`` as the place to write ``what`` when something of another kind is there
    (a folder where a file goes, a file where a folder goes, a pipe or a device), or when the
    folder it goes into is a file. Nothing there yet is fine: the writer creates it."""
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        mode = None
    except OSError as exc:
        raise ExportError(f"{path}: cannot write {what} there ({exc.strerror})") from None
    if mode is not None:
        wanted = stat.S_ISDIR(mode) if expected == "folder" else stat.S_ISREG(mode)
        if not wanted:
            into = "a file to write {} to (a new name, or a file to replace)"
            if expected == "folder":
                into = "a folder to write {} into"
            raise ExportError(f"{path} is {_kind(mode)}: expected {into.format(what)}")
        return
    for parent in path.parents:
        try:
            parent_mode = os.stat(parent).st_mode
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError as exc:
            raise ExportError(f"{path}: cannot write {what} there ({exc.strerror})") from None
        if not stat.S_ISDIR(parent_mode):
            raise ExportError(
                f"{path}: {parent} is {_kind(parent_mode)}, not a folder {what} can be written in"
            )
        return
