"""Commands of offline reviewer stations: ``pack study``, ``pack open``, ``pack ratings``,
``merge``.

File names and names read from packs and ratings files are shown, never interpreted: every line
goes through :func:`abp_tui.text.safe.safe_line`, so an escape sequence in a file name reaches
the terminal as visible text.
"""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path

from abp_tui.cli.options import db_path, open_db, opened_or_removed
from abp_tui.cli.output import EXIT_OK, emit


def cmd_pack_study(args: argparse.Namespace) -> int:
    from abp_tui.services.designing import find_design
    from abp_tui.services.stations import judged_here, write_study_pack
    from abp_tui.text.counts import counted
    from abp_tui.text.safe import safe_line

    db = open_db(args)
    design = find_design(db, args.study, args.design)
    out = Path(args.out or f"exports/{design.study_id}.{design.name}.{args.reviewer}.pack.json")
    pack = write_study_pack(db, design.pk, args.reviewer, out)
    here = judged_here(db, design.pk, args.reviewer)
    kept = (
        f"; left out: {counted(here, 'item')} {args.reviewer} judged in this database (revised "
        "here, never on a station)"
        if here
        else ""
    )
    emit(
        args,
        {"pack": str(out), "sha256": pack.sha256, "items": len(pack.items)},
        safe_line(
            f"wrote {out}: {counted(len(pack.items), 'item')} for {args.reviewer} "
            f"(design {design.name} v{design.version_no}), sha256 {pack.sha256[:12]}{kept}"
        ),
    )
    return EXIT_OK


def cmd_pack_open(args: argparse.Namespace) -> int:
    from abp_tui.services.stations import open_station
    from abp_tui.text.safe import safe_line

    with opened_or_removed(args) as db:
        opened = open_station(db, Path(args.file))
    where = db_path(args)
    design = f"design {opened.design.name} v{opened.design.version}"
    done = "was already open" if opened.already_open else "opened"
    emit(
        args,
        {
            "database": str(where),
            "design": opened.design_pk,
            "reviewer": opened.reviewer,
            "items": opened.items,
            "already_open": opened.already_open,
        },
        # The reviewer and design names come from the pack file: shown, never interpreted.
        safe_line(
            f"{args.file} {done} in {where}: {opened.items} items for {opened.reviewer} "
            f"({design}); judge with: abp-tui --db {shlex.quote(str(where))} "
            f"(opens as {opened.reviewer})"
        ),
    )
    return EXIT_OK


def cmd_pack_ratings(args: argparse.Namespace) -> int:
    from abp_tui.services.stations import write_ratings
    from abp_tui.text.safe import safe_line

    out = Path(args.out)
    ratings = write_ratings(open_db(args), out)
    submitted = sum(1 for j in ratings.judgments if j.status == "submitted")
    emit(
        args,
        {"ratings": str(out), "sha256": ratings.sha256, "judgments": len(ratings.judgments)},
        safe_line(
            f"wrote {out}: {len(ratings.judgments)} judgment revisions ({submitted} submitted) "
            f"by {ratings.reviewer}"
        ),
    )
    return EXIT_OK


def cmd_merge(args: argparse.Namespace) -> int:
    from abp_tui.services.stations import merge_ratings
    from abp_tui.text.safe import safe_line

    results = merge_ratings(open_db(args), [Path(p) for p in args.files])
    emit(
        args,
        {"merged": results},
        "\n".join(
            safe_line(
                # Revisions, as `pack ratings` counts them: each draft saved is one.
                f"{r['file']}: {r['added']} judgment revisions added from {r['reviewer']}"
                + (f" ({r['note']})" if r["note"] else f" ({r['submitted']} submitted)")
            )
            for r in results
        ),
    )
    return EXIT_OK
