"""Commands that start something interactive or long-running: ``tui`` (the default) and
``bench``."""

from __future__ import annotations

import argparse
import json
import os
import sys

from abp_tui.cli.options import DEFAULT_DB, db_path, open_db, remove_created
from abp_tui.cli.output import EXIT_OK
from abp_tui.errors import AbpError


def cmd_tui(args: argparse.Namespace) -> int:
    # abp-tui uses no pydantic plugin: looking for some would read every installed package's
    # metadata as the first record is validated, a tenth of the workstation's start-up.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    # No garbage collection while the workstation starts: it runs again once the first item
    # is on screen (see abp_tui.tui.responsive).
    from abp_tui.tui.responsive import hold_collector, release_collector

    hold_collector()
    try:
        return _run_workstation(args)
    finally:
        release_collector()


def _run_workstation(args: argparse.Namespace) -> int:
    from abp_tui.services.station_owner import station_reviewer

    # The workstation makes its database (its home screen imports with `i`).
    db = open_db(args, create=True)
    if db_path(args) == DEFAULT_DB:
        from abp_tui.services.demo import is_empty, load_demo

        if is_empty(db):
            load_demo(db)
    # A reviewer station opens as its pack's reviewer unless --reviewer says otherwise.
    reviewer = args.reviewer or station_reviewer(db)
    db.close()
    from abp_tui.tui.app import make_app

    app = make_app(db_path=db_path(args), reviewer=reviewer)
    app.run()
    # A database this launch made and left with nothing imported (a mistyped --db, closed at
    # once) is removed with the folders made for it: a mistyped --db leaves nothing behind.
    remove_created()
    if app.lost_work:
        # A draft the database refused as the workstation closed: said, never lost silently.
        raise AbpError("NOT SAVED: " + "; ".join(app.lost_work))
    return EXIT_OK


def cmd_bench(args: argparse.Namespace) -> int:
    from abp_tui import bench

    document = bench.run(args.what, args)
    sys.stdout.write(json.dumps(document, indent=2) + "\n")
    return EXIT_OK
