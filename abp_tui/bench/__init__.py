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
- ``ranking``: Bradley-Terry scores with 1,000 task resamples beside ``evalica``;
- ``workstation``: the home screen, the first item and the next-item key on studies of
  ``--items`` sizes, beside a 2,000-item study.
- ``scale``: every step of a generated study (import to verify) at several sizes, each a fresh
  process timed with its peak memory beside a baseline, and the memory's slope.
- ``allocation``: coverage and width of the judge-assisted intervals (uniform, active, the
  confidence sequence) on PandaLM's items, beside people's interval alone, by simulation.
"""

from __future__ import annotations

import argparse
from typing import Any, Final

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
    "workstation": 20,
    "scale": 1,
    "allocation": 1,
}
"""Repetitions when ``--repeat`` is not given: a UI key press and a process start are short and
noisy, so they are timed more often for a steady median."""


ITEMS = 10_000
"""Items of ``agreement`` and ``judges`` when ``--items`` is not given."""


def _one_size(what: str, args: argparse.Namespace) -> int:
    """The one ``--items`` size of a benchmark that takes one (``workstation`` and ``scale``
    take several)."""
    sizes = getattr(args, "items", None)
    if not sizes:
        return ITEMS
    if len(sizes) > 1:
        raise AbpError(f"bench {what}: --items takes one number here, got {len(sizes)}")
    return int(sizes[0])


TAKES: Final = {
    "items": ("agreement", "judges", "workstation", "scale"),
    "table": ("agreement",),
    "events": ("import", "contention"),
    "format": ("import",),
    "pairs": ("import",),
    "votes": ("ranking",),
    "systems": ("ranking",),
    "tasks": ("ranking",),
    "sizes": ("export",),
    "runs": ("export",),
    "studies": ("allocation",),
    "budget": ("allocation",),
    "pandalm": ("allocation",),
}
"""Which benchmarks each option is for: given to another, it is refused (never ignored)."""


def _given(args: argparse.Namespace, name: str, default: Any) -> Any:
    value = getattr(args, name, None)
    return default if value is None else value


def _refuse_others(what: str, args: argparse.Namespace) -> None:
    for name, benches in TAKES.items():
        if getattr(args, name, None) not in (None, False) and what not in benches:
            raise AbpError(
                f"bench {what}: --{name} is for bench {' and '.join(benches)}, not {what}"
            )


def run(what: str, args: argparse.Namespace) -> dict[str, Any]:
    _refuse_others(what, args)
    repeat = args.repeat if args.repeat is not None else REPEAT.get(what, 3)
    if what == "scale":
        from abp_tui.bench.scale import DEFAULT_SIZES, bench_scale

        return bench_scale(sizes=getattr(args, "items", None) or DEFAULT_SIZES)
    if what == "import" and _given(args, "format", "abp-trace") == "pairwise":
        from abp_tui.bench.pairwise_import import bench_import_pairwise

        return bench_import_pairwise(pairs=_given(args, "pairs", 20_000), repeat=repeat)
    if what == "import":
        from abp_tui.bench.imports import bench_import

        return bench_import(events=_given(args, "events", 200_000), repeat=repeat)
    if what == "agreement":
        if getattr(args, "table", False):
            from abp_tui.bench.agreement_table import bench_agreement_table

            return bench_agreement_table(items=_one_size(what, args), repeat=repeat)
        from abp_tui.bench.agreement import bench_agreement

        return bench_agreement(items=_one_size(what, args), repeat=repeat)
    if what == "judges":
        from abp_tui.bench.judges import bench_judges

        return bench_judges(items=_one_size(what, args), repeat=repeat)
    if what == "ranking":
        from abp_tui.bench.ranking import bench_ranking

        return bench_ranking(
            votes=_given(args, "votes", 1_000_000),
            systems=_given(args, "systems", 50),
            tasks=_given(args, "tasks", 200_000),
            repeat=repeat,
        )
    if what == "allocation":
        from pathlib import Path

        from abp_tui.bench.allocation import bench_allocation, default_pandalm

        pandalm = getattr(args, "pandalm", None)
        return bench_allocation(
            pandalm=Path(pandalm) if pandalm else default_pandalm(),
            studies=_given(args, "studies", 500),
            budget=_given(args, "budget", 200),
        )
    if what == "export" and getattr(args, "sizes", None):
        from abp_tui.bench.export_scale import bench_export_scale

        return bench_export_scale(args.sizes, repeat=args.repeat or 1)
    if what == "export":
        from abp_tui.bench.export import bench_export

        return bench_export(runs=_given(args, "runs", 10_000), repeat=repeat)
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

        return bench_contention(events=_given(args, "events", 200_000))
    if what == "workstation":
        from abp_tui.bench.workstation import SIZES, bench_workstation

        sizes = getattr(args, "items", None)
        return bench_workstation(sizes=sizes or SIZES, presses=repeat)
    raise AbpError(f"bench {what}: unknown benchmark; expected: {', '.join(REPEAT)}")
