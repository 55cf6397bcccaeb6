"""The team of a shared server: ``team add``, ``team list``, ``team show``, ``team remove``
(run by the account that owns the database), and their parser."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from abp_tui.cli.options import actor, db_path, existing_db, open_db
from abp_tui.cli.output import EXIT_OK, emit


def add_team_commands(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
    common: argparse.ArgumentParser,
    figures: argparse.ArgumentParser,
) -> None:
    """``team add|list|show|remove`` and ``session`` (the forced command of a member's key)."""
    from abp_tui.cli.commands.session import cmd_session

    keys_file = argparse.ArgumentParser(add_help=False)
    keys_file.add_argument(
        "--authorized-keys",
        default=None,
        metavar="FILE",
        help="the authorized_keys file granting the team (default: ~/.ssh/authorized_keys of "
        "the account running the command)",
    )
    team = sub.add_parser(
        "team", parents=[common], help="the team of a shared server: who may log in, as whom"
    )
    team_sub = team.add_subparsers(dest="team_command", metavar="ACTION", required=True)
    p = team_sub.add_parser(
        "add",
        parents=[common, figures, keys_file],
        help="grant NAME a session on this database with the SSH public key in FILE",
    )
    p.add_argument("name", metavar="NAME", help="who the key names (their reviewer name)")
    p.add_argument("--key", required=True, metavar="PUBKEY_FILE", help="their .pub file")
    p.add_argument(
        "--role",
        choices=["reviewer", "adjudicator", "coordinator"],
        default="reviewer",
        help="reviewer (default): judges their own queue; adjudicator: also adjudicates; "
        "coordinator: also unblinds, exports and creates designs",
    )
    p.set_defaults(func=cmd_team_add)
    p = team_sub.add_parser("list", parents=[common, figures], help="the team of this database")
    p.set_defaults(func=cmd_team_list)
    p = team_sub.add_parser(
        "show", parents=[common, figures], help="one member: role, key, line, changes"
    )
    p.add_argument("name", metavar="NAME")
    p.set_defaults(func=cmd_team_show)
    p = team_sub.add_parser(
        "remove", parents=[common, figures, keys_file], help="take NAME and their key off"
    )
    p.add_argument("name", metavar="NAME")
    p.set_defaults(func=cmd_team_remove)

    p = sub.add_parser(
        "session",
        help="the forced command of a team member's key: opens what SSH_ORIGINAL_COMMAND asks "
        "for, as NAME",
    )
    p.add_argument("name", metavar="NAME")
    p.set_defaults(func=cmd_session)


def _keys_file(args: argparse.Namespace) -> Path:
    from abp_tui.services.team import default_authorized_keys

    return Path(args.authorized_keys) if args.authorized_keys else default_authorized_keys()


def _document(member: Any) -> dict[str, Any]:
    return {
        "name": member.name,
        "role": member.role,
        "fingerprint": member.fingerprint,
        "added_by": member.added_by,
        "added_at": member.added_at,
    }


def cmd_team_add(args: argparse.Namespace) -> int:
    from abp_tui.services.team import add_member, readable_by_others
    from abp_tui.text.safe import safe_line

    keys = _keys_file(args)
    member, done = add_member(
        existing_db(args), args.name, Path(args.key), args.role, keys, actor(args)
    )
    emit(
        args,
        {**_document(member), "done": done, "authorized_keys": str(keys)},
        safe_line(
            f"{member.name} ({member.role}, key {member.fingerprint}): {done}; {keys} grants "
            f"them: ssh -t {_account()}@HOST"
        ),
    )
    open_folder = readable_by_others(db_path(args))
    if open_folder is not None:
        sys.stderr.write(
            safe_line(
                f"notice: {open_folder} may be read by other accounts of this server, who could "
                "read the judgments behind the tool's back: chmod 700 it"
            )
            + "\n"
        )
    return EXIT_OK


def _account() -> str:
    import getpass

    try:
        return getpass.getuser()
    except (OSError, KeyError):
        return "ACCOUNT"


def cmd_team_list(args: argparse.Namespace) -> int:
    from abp_tui.services.team import team_members
    from abp_tui.text.safe import safe_line

    members = team_members(open_db(args))
    lines = [
        safe_line(f"{m.name}  {m.role}  {m.fingerprint}  added {m.added_at} by {m.added_by}")
        for m in members
    ]
    emit(
        args,
        {"database": str(db_path(args)), "team": [_document(m) for m in members]},
        "\n".join(lines) if lines else f"no team on {db_path(args)}: add one with abp-tui team add",
    )
    return EXIT_OK


def cmd_team_show(args: argparse.Namespace) -> int:
    from abp_tui.services.team import member_details
    from abp_tui.text.safe import safe_line

    member = member_details(open_db(args), db_path(args), args.name)
    changes = [
        {"at": c.at, "by": c.actor, "action": c.action, "role": c.role, "file": c.authorized_keys}
        for c in member.changes
    ]
    lines = [
        f"{member.name}: {member.role}, key {member.fingerprint}, added {member.added_at} by "
        f"{member.added_by}",
        f"authorized_keys line: {member.line}",
        *(
            f"  {c['at']} {c['action']}{' as ' + str(c['role']) if c['role'] else ''} by "
            f"{c['by']} ({c['file']})"
            for c in changes
        ),
    ]
    emit(
        args,
        {**_document(member), "line": member.line, "changes": changes},
        "\n".join(safe_line(line) for line in lines),
    )
    return EXIT_OK


def cmd_team_remove(args: argparse.Namespace) -> int:
    from abp_tui.services.team import remove_member
    from abp_tui.text.safe import safe_line

    keys = _keys_file(args)
    member = remove_member(existing_db(args), args.name, keys, actor(args))
    emit(
        args,
        {**_document(member), "done": "removed", "authorized_keys": str(keys)},
        safe_line(f"{member.name} removed: key {member.fingerprint} no longer granted in {keys}"),
    )
    return EXIT_OK
