"""``abp-tui bench``: benchmarks that print JSON, each figure beside a baseline measured in the
same run. They live outside the core: nothing in the core imports this package, and each
benchmark module is imported only when its benchmark runs.

- ``imports``: importing a generated abp-trace/v1 file, beside sqlite-utils and a bare loop;
  ``pairwise_import`` (``--format pairwise``): a generated pairwise file beside a bare loop;
- ``agreement``: the agreement report beside the ``krippendorff`` package; with ``--table``,
  ``agreement --table`` on a generated CSV beside the package reading the same file;
- ``export``: a publication bundle beside a bare copy-and-zip; ``export_scale`` (``--sizes``):
  export and verify of PandaLM-shaped studies beside zipping and hashing the same folder;
- ``ui``: the next-item key on the compare screen beside a bare Textual floor;
- ``startup``: ``abp-tui status`` as a fresh process beside a bare ``python -c pass``;
- ``install``: the first ``make run``'s installation beside ``pip install textual``;
- ``contention``: reviewers' saves beside an import and an export, each a process, beside the
  same saves alone;
- ``judges``: the whole AI judge report beside Cohen's kappa alone in NumPy;
- ``ranking``: Bradley-Terry scores with 1,000 task resamples beside ``evalica``.
"""

from __future__ import annotations

import argparse
from typing import Any

from abp_tui.errors import AbpError

REPEAT = {
    "import": 3,
    "agreement": 3,
    "export": 3,
    "ui": 15,
    "startup": 11,
    "install": 3,
    "contention": 1,
    "judges": 7,
    "ranking": 3,
}
"""Repetitions when ``--repeat`` is not given: a UI key press and a process start are short and
noisy, so they are timed more often for a steady median."""


def run(what: str, args: argparse.Namespace) -> dict[str, Any]:
    repeat = args.repeat if args.repeat is not None else REPEAT.get(what, 3)
    if what == "import" and getattr(args, "format", "abp-trace") == "pairwise":
        from abp_tui.bench.pairwise_import import bench_import_pairwise

        return bench_import_pairwise(pairs=args.pairs, repeat=repeat)
    if what == "import":
        from abp_tui.bench.imports import bench_import

        return bench_import(events=args.events, repeat=repeat)
    if what == "agreement":
        if getattr(args, "table", False):
            from abp_tui.bench.agreement_table import bench_agreement_table

            return bench_agreement_table(items=args.items, repeat=repeat)
        from abp_tui.bench.agreement import bench_agreement

        return bench_agreement(items=args.items, repeat=repeat)
    if what == "judges":
        from abp_tui.bench.judges import bench_judges

        return bench_judges(items=args.items, repeat=repeat)
    if what == "ranking":
        from abp_tui.bench.ranking import bench_ranking

        return bench_ranking(
            votes=getattr(args, "votes", 1_000_000),
            systems=getattr(args, "systems", 50),
            tasks=getattr(args, "tasks", 200_000),
            repeat=repeat,
        )
    if what == "export" and getattr(args, "sizes", None):
        from abp_tui.bench.export_scale import bench_export_scale

        return bench_export_scale(args.sizes, repeat=args.repeat or 1)
    if what == "export":
        from abp_tui.bench.export import bench_export

        return bench_export(runs=args.runs, repeat=repeat)
    if what == "ui":
        from abp_tui.bench.ui import bench_ui

        return bench_ui(repeat=repeat)
    if what == "startup":
        from abp_tui.bench.startup import bench_startup

        return bench_startup(repeat=repeat)
    if what == "install":
        from abp_tui.bench.install import bench_install

        return bench_install(repeat=repeat)
    if what == "contention":
        from abp_tui.bench.contention import bench_contention

        return bench_contention(events=args.events)
    raise AbpError(f"bench {what}: unknown benchmark; expected: {', '.join(REPEAT)}")
