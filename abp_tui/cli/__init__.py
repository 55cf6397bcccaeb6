"""The ``abp-tui`` command line: thin commands over the core functions.

``parser`` declares the commands, ``commands/`` holds one module per area (each command calls
one core function and prints), ``output`` prints JSON or text, ``options`` resolves ``--db`` and
``--by``. This module only runs a parsed command and turns errors into exit statuses.

Exit status: 0 success; 1 bad input or a refused operation (the message says what and where);
2 a usage error (unknown command or option); 3 an internal error (a bug: please report it).
"""

from __future__ import annotations

import argparse
import io
import os
import sys
from collections.abc import Sequence

from abp_tui.cli.commands.workstation import cmd_tui
from abp_tui.cli.options import OptionError
from abp_tui.cli.output import EXIT_ERROR, EXIT_INTERNAL, EXIT_OK, EXIT_USAGE
from abp_tui.errors import AbpError, ImportFailed

__all__ = ["EXIT_ERROR", "EXIT_INTERNAL", "EXIT_OK", "EXIT_USAGE", "build_parser", "main"]


def main(argv: Sequence[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else list(argv)
    args = workstation_args(arguments)
    if args is None:
        parser = build_parser()
        try:
            args = parser.parse_args(arguments)
        except OptionError as exc:  # a number outside the range its option declares
            sys.stderr.write(f"abp-tui: {exc}\n")
            return EXIT_ERROR
        if getattr(args, "reviewer", None) is None and getattr(args, "reviewer_required", False):
            parser.error("pack study: --reviewer NAME is required (whose pack it is)")
        if getattr(args, "option", None):
            bad = [o for o in args.option if "=" not in o]
            if bad:
                parser.error(f"--option {bad[0]}: expected KEY=VALUE")
    if not getattr(args, "command", None):
        args.func = cmd_tui
    if getattr(args, "reviewer", None) is None:
        args.reviewer = None  # --reviewer given neither before nor after the command
    code = _run(args)
    from abp_tui.cli.options import forget_created, remove_created

    if code == EXIT_ERROR:
        import contextlib

        with contextlib.suppress(Exception):  # the refusal is what the user needs to read
            remove_created()
    forget_created()
    return code


def _run(args: argparse.Namespace) -> int:
    """The parsed command run, its errors turned into exit statuses (each said in one line)."""
    try:
        code = int(args.func(args))
        sys.stdout.flush()  # a reader gone is met here, not at the interpreter's exit
        return code
    except BrokenPipeError:
        return _reader_gone()
    except ImportFailed as exc:
        from abp_tui.services.importing import refusal_lines

        first, *rest = refusal_lines(exc)
        sys.stderr.write(f"abp-tui: {first}\n" + "".join(f"{line}\n" for line in rest))
        return EXIT_ERROR
    except AbpError as exc:
        _refused(str(exc))
        return EXIT_ERROR
    except KeyboardInterrupt:
        sys.stderr.write("abp-tui: interrupted\n")
        return 130
    except Exception as exc:
        if os.environ.get("ABP_TUI_DEBUG"):
            raise
        known = _store_error(exc, args) or _file_error(exc)
        if known is not None:
            _refused(str(known))
            return EXIT_ERROR
        sys.stderr.write(
            f"abp-tui: internal error: {type(exc).__name__}: {exc}\n"
            "Set ABP_TUI_DEBUG=1 to see the traceback, and please report it.\n"
        )
        return EXIT_INTERNAL


def _refused(reason: str) -> None:
    """Say why a command was refused: one line on standard error, wrapped to the terminal's
    width when that is a terminal (a script or a log reads it whole)."""
    from abp_tui.text.wrapping import prose, terminal_width

    lines = prose([f"abp-tui: {reason}"], terminal_width(sys.stderr))
    sys.stderr.write("\n".join(lines) + "\n")


def build_parser() -> argparse.ArgumentParser:
    """The parser of every command (imported with them when first needed: the workstation's
    own launch does without it, see :func:`workstation_args`)."""
    from abp_tui.cli.parser import build_parser as build

    return build()


_WORKSTATION_OPTIONS = ("--db", "--reviewer")


def workstation_args(argv: Sequence[str]) -> argparse.Namespace | None:
    """The workstation's launch as people type it (``abp-tui``, ``abp-tui --db PATH
    --reviewer NAME``, each ``--name=value`` or ``--name value``), read as the parser reads it
    without building the parser of every command (a fiftieth of the workstation's start-up).
    None for anything else (a command, another option, an abbreviation, a value missing or
    starting with ``-``): the parser reads that, and says what is wrong with it."""
    values: dict[str, str] = {}
    at = 0
    while at < len(argv):
        name, equals, value = argv[at].partition("=")
        if name not in _WORKSTATION_OPTIONS:
            return None
        if not equals:
            at += 1
            if at == len(argv) or argv[at].startswith("-"):
                return None
            value = argv[at]
        values[name[2:]] = value  # given twice, the last one counts (as for the parser)
        at += 1
    return argparse.Namespace(command=None, **values)


def _reader_gone() -> int:
    """The reader of the output went away (``abp-tui ... | head -1``): stop quietly, as the
    Python documentation advises for SIGPIPE. Standard output is pointed at the null device, so
    that the interpreter's last flush of what was left in its buffer cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, sys.stdout.fileno())
        finally:
            os.close(devnull)
    except (OSError, ValueError, io.UnsupportedOperation):
        pass  # not a file descriptor (output captured in-process): nothing left to flush there
    return EXIT_ERROR


def _file_error(exc: Exception) -> Exception | None:
    """A file the command was given, or the folder it writes to, that the system refused
    (missing, not allowed, a folder where a file goes, a full disk), as one line naming it: the
    user's to fix, not a bug. None for anything else."""
    if not isinstance(exc, OSError) or exc.filename is None:
        return None
    where = str(exc.filename)
    if exc.filename2 is not None:
        where = str(exc.filename2)  # a rename: the target is the file the user named
    return AbpError(f"{where}: {exc.strerror or exc}")


def _store_error(exc: Exception, args: argparse.Namespace) -> Exception | None:
    """What the disk or another process did to a write outside the store's transactions
    (read-only, full, busy), as the store's one line; None for a bug."""
    import sqlite3

    if not isinstance(exc, sqlite3.Error):
        return None
    from abp_tui.cli.options import db_path
    from abp_tui.store.db import store_error

    return store_error(exc, db_path(args))
