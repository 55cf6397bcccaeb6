"""The ``abp-tui`` command line: thin commands over the core functions.

``parser`` declares the commands, ``commands/`` holds one module per area (each command calls
one core function and prints), ``output`` prints JSON or text, ``options`` resolves ``--db`` and
``--by``. This module only runs a parsed command and turns errors into exit statuses.

Exit status: 0 success; 1 bad input or a refused operation (the message says what and where);
2 a usage error (unknown command or option); 3 an internal error (a bug: please report it).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from abp_tui.cli.commands.workstation import cmd_tui
from abp_tui.cli.output import EXIT_ERROR, EXIT_INTERNAL, EXIT_OK, EXIT_USAGE
from abp_tui.cli.parser import build_parser
from abp_tui.errors import AbpError, ImportFailed

__all__ = ["EXIT_ERROR", "EXIT_INTERNAL", "EXIT_OK", "EXIT_USAGE", "build_parser", "main"]


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        args.func = cmd_tui
    if getattr(args, "reviewer", None) is None:
        args.reviewer = None
    if getattr(args, "option", None):
        bad = [o for o in args.option if "=" not in o]
        if bad:
            parser.error(f"--option {bad[0]}: expected KEY=VALUE")
    try:
        return int(args.func(args))
    except ImportFailed as exc:
        from abp_tui.text.safe import safe_line

        sys.stderr.write(
            f"abp-tui: import refused; nothing was written ({len(exc.errors)} "
            f"error{'s' if len(exc.errors) != 1 else ''}):\n"
        )
        for err in exc.errors[:50]:
            sys.stderr.write(f"  {safe_line(str(err))}\n")
        if any(err.line is not None or err.path for err in exc.errors):
            sys.stderr.write("Fix the input, or use --skip-invalid to import the valid records.\n")
        return EXIT_ERROR
    except AbpError as exc:
        from abp_tui.text.safe import safe_line

        sys.stderr.write(f"abp-tui: {safe_line(str(exc))}\n")
        return EXIT_ERROR
    except KeyboardInterrupt:
        sys.stderr.write("abp-tui: interrupted\n")
        return 130
    except Exception as exc:
        if os.environ.get("ABP_TUI_DEBUG"):
            raise
        sys.stderr.write(
            f"abp-tui: internal error: {type(exc).__name__}: {exc}\n"
            "Set ABP_TUI_DEBUG=1 to see the traceback, and please report it.\n"
        )
        return EXIT_INTERNAL
