"""``abp-tui --db DB session NAME``: the forced command of a team member's SSH key.

sshd runs it whatever the client asked for, and passes the request in
``SSH_ORIGINAL_COMMAND``; the session signs NAME in with their role
(:func:`abp_tui.services.team.open_session`) and then does one of the few things a request may
choose (the leading word ``abp-tui`` is optional):

- nothing, or ``tui``: the workstation, as NAME (it needs a terminal: ``ssh -t``);
- ``status [--study S] [--json]``: the studies and everyone's progress;
- ``pack ratings``: NAME's own signed ratings, on stdout, when this database is NAME's station;
- ``unblind --study S --yes [--json]``: unblind (a coordinator's: the core refuses anyone else).

Anything else, a shell included, is refused in one line. ``--reviewer`` and ``--db`` are not the
client's to give: the key names the person and the line names the database, so either, given,
is ignored with a notice. No request names a file on the server.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import tempfile
from pathlib import Path
from typing import NoReturn

from abp_tui.cli.options import open_db
from abp_tui.cli.output import EXIT_OK
from abp_tui.errors import AbpError

FIXED = ("--reviewer", "--db")
"""Options the client may not give: the key and the forced command fix them."""


class SessionRefused(AbpError):
    """A request the session does not run."""


class _Parser(argparse.ArgumentParser):
    """A request's options: an error is a one-line refusal, never a usage screen or an exit."""

    def error(self, message: str) -> NoReturn:
        raise SessionRefused(f"{self.prog}: {message}")


def _parser(prog: str) -> _Parser:
    return _Parser(prog=prog, add_help=False, exit_on_error=False)


def requested(text: str, name: str) -> tuple[list[str], list[str]]:
    """The request's words (without a leading ``abp-tui``, nor ``--reviewer``/``--db`` and
    their values) and a notice for each option the client may not give."""
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise SessionRefused(f"not a command abp-tui runs here ({exc})") from None
    if words and (words[0] == "abp-tui" or words[0].endswith("/abp-tui")):
        words = words[1:]
    kept: list[str] = []
    notices: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        option = word.split("=", 1)[0]
        if option in FIXED:
            value = word.split("=", 1)[1] if "=" in word else " ".join(words[i + 1 : i + 2])
            notices.append(
                f"{option} {value} ignored: this key opens {name}'s session on its own database"
            )
            i += 1 if "=" in word else 2
            continue
        kept.append(word)
        i += 1
    return kept, notices


def cmd_session(args: argparse.Namespace) -> int:
    from abp_tui.cli.options import existing_db
    from abp_tui.services.roles import sign_out
    from abp_tui.services.team import open_session

    member = open_session(existing_db(args), args.name)
    try:
        return _requested_command(args, member.name)
    finally:
        sign_out()


def _requested_command(args: argparse.Namespace, name: str) -> int:
    from abp_tui.text.safe import safe_line

    words, notices = requested(os.environ.get("SSH_ORIGINAL_COMMAND", ""), name)
    for notice in notices:
        sys.stderr.write(f"abp-tui: {safe_line(notice)}\n")
    args.reviewer = name  # who looks and who acts: the key's person, whatever was asked
    if not words or words == ["tui"]:
        return _workstation(args)
    if words[0] == "status":
        return _status(args, words[1:])
    if words[:2] == ["pack", "ratings"]:
        return _ratings(args, words[2:], name)
    if words[0] == "unblind":
        return _unblind(args, words[1:])
    raise SessionRefused(
        f"{name}'s key opens the workstation (ssh -t), status, pack ratings or unblind "
        f"here, nothing else: not {safe_line(shlex.join(words))!r}"
    )


def _workstation(args: argparse.Namespace) -> int:
    from abp_tui.cli.commands.workstation import cmd_tui

    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise SessionRefused(
            "the workstation needs a terminal: connect with ssh -t (or ask for status)"
        )
    return cmd_tui(args)


def _status(args: argparse.Namespace, words: list[str]) -> int:
    from abp_tui.cli.commands.studies import cmd_status

    parser = _parser("status")
    parser.add_argument("--study", default=None)
    parser.add_argument("--json", action="store_true")
    parsed = parser.parse_args(words)
    args.study, args.json = parsed.study, parsed.json
    return cmd_status(args)


def _unblind(args: argparse.Namespace, words: list[str]) -> int:
    from abp_tui.cli.commands.studies import cmd_unblind
    from abp_tui.services.roles import require

    require("unblind")
    parser = _parser("unblind")
    parser.add_argument("--study", default=None)
    parser.add_argument("--yes", action="store_true")
    parser.add_argument("--json", action="store_true")
    parsed = parser.parse_args(words)
    args.study, args.yes, args.json, args.by = parsed.study, parsed.yes, parsed.json, None
    return cmd_unblind(args)


def _ratings(args: argparse.Namespace, words: list[str], name: str) -> int:
    from abp_tui.services.stations import station_reviewer, write_ratings

    if words:
        raise SessionRefused(
            "pack ratings: the ratings are written to your terminal, nothing else is asked: "
            "ssh ACCOUNT@HOST pack ratings > ratings.json"
        )
    db = open_db(args)
    if station_reviewer(db) != name:
        raise SessionRefused(
            f"pack ratings: this database is not {name}'s reviewer station, so it holds no "
            "ratings of theirs to write (your judgments here are already the coordinator's)"
        )
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "ratings.json"
        write_ratings(db, out)
        sys.stdout.buffer.write(out.read_bytes())
        sys.stdout.flush()
    return EXIT_OK
