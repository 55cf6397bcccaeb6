"""The ``abp-tui`` argument parser: every command, subcommand and option, and which command
function runs it. Parsing only: no command runs here and nothing heavy is imported.
"""

from __future__ import annotations

import argparse

from abp_tui import __version__
from abp_tui.cli.commands.gating import (
    DEFAULT_BASELINE,
    cmd_baseline_save,
    cmd_gate,
    drop_points,
    limit_pct,
)
from abp_tui.cli.commands.importing import cmd_demo, cmd_formats, cmd_import, cmd_schema
from abp_tui.cli.commands.judges import cmd_judges
from abp_tui.cli.commands.publishing import cmd_export, cmd_verify
from abp_tui.cli.commands.ranking import cmd_ranking
from abp_tui.cli.commands.reliability import cmd_reliability
from abp_tui.cli.commands.results import cmd_agreement, cmd_results
from abp_tui.cli.commands.scoring import cmd_score_scibench
from abp_tui.cli.commands.stations import cmd_merge, cmd_pack_open, cmd_pack_ratings, cmd_pack_study
from abp_tui.cli.commands.stats import (
    cmd_stats_binomial,
    cmd_stats_kappa,
    cmd_stats_mcnemar,
    cmd_stats_wilson,
)
from abp_tui.cli.commands.studies import cmd_status, cmd_study_create, cmd_study_list, cmd_unblind
from abp_tui.cli.commands.team import add_team_commands
from abp_tui.cli.commands.workstation import cmd_bench, cmd_tui
from abp_tui.cli.options import real, resamples, seed, sizes, whole, wholes
from abp_tui.cli.parser_planning import add_plan, add_stats_tables
from abp_tui.stats.limits import MAX_PRIOR, MAX_RESAMPLES, MAX_SEED, MIN_SEED
from abp_tui.stats.resampling import MIN_RESAMPLES

REVIEWER = (
    "who is looking (the workstation's reviewer; a pack's reviewer): what NAME still has to "
    "judge is held back from every figure, and the results, exports, judge report and ranking "
    "are refused while NAME has items of the study to judge (default: the user logged in)"
)
MAX_REVIEWERS_PER_ITEM = 1000
"""More reviewers per item than any study has people (a design lists each by name)."""


def build_parser() -> argparse.ArgumentParser:
    database = argparse.ArgumentParser(add_help=False)
    database.add_argument(
        "--db",
        metavar="PATH",
        default=argparse.SUPPRESS,
        help="SQLite database (default: data/abp.db)",
    )
    common = argparse.ArgumentParser(add_help=False, parents=[database])
    # One --reviewer for every command, before or after it: suppressed by default so that a
    # command's own parser never overwrites a name given before the command (the CLI's main
    # sets None when neither gave one).
    common.add_argument("--reviewer", default=argparse.SUPPRESS, metavar="NAME", help=REVIEWER)
    figures = argparse.ArgumentParser(add_help=False)
    figures.add_argument("--json", action="store_true", help="print one JSON document")

    parser = argparse.ArgumentParser(
        prog="abp-tui",
        parents=[common],
        description="Offline adjudication workstation for AI-agent and LLM benchmark results. "
        "With no command, opens the workstation.",
    )
    parser.add_argument("--version", action="version", version=f"abp-tui {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("tui", parents=[common], help="open the workstation (the default)")
    p.set_defaults(func=cmd_tui)

    p = sub.add_parser("import", parents=[common, figures], help="import run records")
    p.add_argument("paths", nargs="+", metavar="PATH", help="files or folders")
    p.add_argument("--study", default=None, help="study id to import into")
    p.add_argument("--format", default=None, help="input format (see: abp-tui formats)")
    p.add_argument(
        "--skip-invalid",
        action="store_true",
        help="import valid records and list the invalid ones instead of refusing",
    )
    p.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="format option, e.g. condition=task for Inspect logs",
    )
    p.set_defaults(func=cmd_import)

    study = sub.add_parser("study", parents=[common], help="study designs: create, list")
    study_sub = study.add_subparsers(dest="study_command", metavar="ACTION", required=True)
    p = study_sub.add_parser(
        "create",
        parents=[common, figures],
        help="create (or version) study designs from TOML or JSON files, or from choices",
        description="Create or version a study design: from design files, or (without a file) "
        "from the choices below, each with a default.",
    )
    p.add_argument("files", nargs="*", metavar="FILE", help="TOML or JSON design files")
    p.add_argument("--study", default=None, help="the study (default: the only one)")
    p.add_argument("--name", default=None, help="design name (default: a new one)")
    p.add_argument(
        "--rubric",
        default=None,
        metavar="NAME|none",
        help="rubric id, or none for preferences only (default: the study's, else none)",
    )
    p.add_argument("--conditions", default=None, help="all (default) or ids: A,C")
    p.add_argument("--pairs", default=None, help="all (default), none, or pairs: C:A,D:B")
    p.add_argument("--tasks", default=None, help="all (default) or ids: P01,P02")
    p.add_argument(
        "--reviewers", default=None, help="names: ann,bo (default: none listed, an open design)"
    )
    p.add_argument(
        "--reviewers-per-item",
        type=whole("--reviewers-per-item", 1, MAX_REVIEWERS_PER_ITEM, "a count"),
        default=None,
        metavar="N",
        help="default: all listed",
    )
    p.add_argument(
        "--adjudicators",
        default=None,
        help="names: lead,dee (default: anyone; never a reviewer of the item adjudicated)",
    )
    p.add_argument(
        "--seed",
        type=whole("--seed", MIN_SEED, MAX_SEED),
        default=None,
        help="default: a fresh seed (printed)",
    )
    p.add_argument("--single-items", action="store_true", help="also score each run on its own")
    p.add_argument(
        "--human-budget",
        default=None,
        metavar="N|N%",
        help="active allocation: people judge about N items (or N%% of them), drawn with "
        "probabilities that grow with the AI judges' uncertainty (default: every item)",
    )
    p.add_argument(
        "--allocation-floor",
        type=real("--allocation-floor", 0.0, 1.0, "a probability", above=True),
        default=None,
        metavar="P",
        help="with --human-budget: the least probability of any item (0.05)",
    )
    p.add_argument(
        "--stop-when",
        default=None,
        metavar="RULE",
        help='a stopping rule to watch: "win rate excludes 0.5" or "pass rate excludes P"',
    )
    p.add_argument(
        "--show-ai-after-submit",
        action="store_true",
        help="show each reviewer the AI judges' verdicts on an item once they have submitted "
        "their own judgment of it (docs/ai-judges.md); default: never shown to reviewers",
    )
    p.add_argument(
        "--limitation",
        action="append",
        default=None,
        metavar="TEXT",
        help="what the results cannot say (repeat for each); the publication bundle publishes "
        "its results only once the design declares at least one",
    )
    p.set_defaults(func=cmd_study_create)
    p = study_sub.add_parser(
        "list", parents=[common, figures], help="study designs with their progress per reviewer"
    )
    p.add_argument("--study", default=None)
    p.set_defaults(func=cmd_study_list)

    pack = sub.add_parser(
        "pack", parents=[common], help="offline reviewer stations: study packs and ratings"
    )
    pack_sub = pack.add_subparsers(dest="pack_command", metavar="ACTION", required=True)
    p = pack_sub.add_parser(
        "study", parents=[database, figures], help="write the study pack of one reviewer"
    )
    # Here --reviewer chooses whose pack it is, not who is looking.
    p.add_argument(
        "--reviewer",
        default=argparse.SUPPRESS,
        metavar="NAME",
        help="whose pack: the reviewer who judges it on a station (required; it holds the "
        "items NAME has not judged in this database)",
    )
    p.add_argument("--study", default=None)
    p.add_argument("--design", default=None, help="design name (default: the one created last)")
    p.add_argument("--out", default=None, metavar="FILE")
    p.set_defaults(func=cmd_pack_study, reviewer_required=True)
    p = pack_sub.add_parser(
        "open", parents=[common, figures], help="load a study pack into this (station) database"
    )
    p.add_argument("file", metavar="PACK")
    p.set_defaults(func=cmd_pack_open)
    p = pack_sub.add_parser(
        "ratings",
        parents=[common, figures],
        help="write this station's judgments for the coordinator",
    )
    p.add_argument("--out", required=True, metavar="FILE")
    p.set_defaults(func=cmd_pack_ratings)
    p = sub.add_parser(
        "merge", parents=[common, figures], help="merge reviewers' ratings files into this database"
    )
    p.add_argument("files", nargs="+", metavar="RATINGS")
    p.set_defaults(func=cmd_merge)

    p = sub.add_parser(
        "agreement",
        parents=[common, figures],
        help="inter-rater agreement of a study, or of a CSV table of judgments",
    )
    p.add_argument("--study", default=None)
    p.add_argument("--design", default=None)
    p.add_argument(
        "--table",
        default=None,
        metavar="CSV",
        help="judgments made elsewhere: columns item, reviewer, variable, value",
    )
    p.add_argument(
        "--level",
        choices=["nominal", "ordinal", "interval", "ratio"],
        default=None,
        help="with --table, for a single variable",
    )
    p.add_argument(
        "--scale",
        default=None,
        help="with --table and --level: the declared scale, e.g. 0,1,2 or 0,0.5,1 or "
        "low,mid,high (labels in their order)",
    )
    p.add_argument(
        "--header",
        default=None,
        metavar="TOML",
        help="with --table: each variable's level and scale",
    )
    _design_seed(p)
    p.add_argument(
        "--resamples",
        type=resamples("--resamples"),
        default=1000,
        metavar="N",
        help="bootstrap resamples of the multi-reviewer figures (1000; 0: no intervals; "
        f"else {MIN_RESAMPLES} to {MAX_RESAMPLES})",
    )
    p.add_argument(
        "--pair-resamples",
        type=resamples("--pair-resamples"),
        default=0,
        metavar="N",
        help=f"bootstrap resamples of each reviewer pair's figures (0: no pair intervals; else "
        f"{MIN_RESAMPLES} to {MAX_RESAMPLES})",
    )
    p.add_argument("--confidence", type=float, default=0.95, help="level of the intervals (0.95)")
    p.add_argument(
        "--weight-basis",
        choices=["declared", "observed"],
        default="declared",
        help="weights on the declared scale, or on the ranks of the values used (declared)",
    )
    p.set_defaults(func=cmd_agreement)

    p = sub.add_parser(
        "judges",
        parents=[common, figures],
        help="AI judges measured against people: agreement, kappa, position bias, alt-test",
    )
    p.add_argument("--study", default=None)
    p.add_argument("--design", default=None, help="with --reference final: the design")
    p.add_argument(
        "--reference",
        choices=["final", "labels"],
        default=None,
        help="the human reference: a design's final verdicts, or the labels imported with the "
        "study (default: final once people judged some of the design, else labels)",
    )
    p.add_argument("--confidence", type=float, default=0.95, help="level of the intervals (0.95)")
    _design_seed(p)
    p.add_argument(
        "--resamples",
        type=resamples("--resamples"),
        default=1000,
        metavar="N",
        help=f"bootstrap resamples (1000; 0: no intervals; else {MIN_RESAMPLES} to "
        f"{MAX_RESAMPLES})",
    )
    p.add_argument(
        "--epsilon",
        type=float,
        default=0.2,
        help="the alt-test's cost-benefit margin (0.2: expert annotators; 0.15 skilled; 0.1 "
        "crowd workers)",
    )
    p.set_defaults(func=cmd_judges)

    p = sub.add_parser(
        "reliability",
        parents=[common, figures],
        help="every annotator (people, imported labels, AI judges) in Dawid-Skene or the "
        "one-coin model, beside the final verdicts",
    )
    p.add_argument("--study", default=None)
    p.add_argument("--design", default=None, help="the design whose reviewers and verdicts count")
    p.add_argument(
        "--model",
        choices=["dawid-skene", "one-coin"],
        default="dawid-skene",
        help="a confusion matrix per annotator, or one competence each (dawid-skene)",
    )
    p.add_argument("--confidence", type=float, default=0.95, help="level of the intervals (0.95)")
    _design_seed(p)
    p.add_argument(
        "--resamples",
        type=resamples("--resamples"),
        default=1000,
        metavar="N",
        help=f"bootstrap resamples of the items, the model refitted on each (1000; 0: no "
        f"intervals; else {MIN_RESAMPLES} to {MAX_RESAMPLES})",
    )
    p.set_defaults(func=cmd_reliability)

    _add_ranking(sub, common, figures)

    p = sub.add_parser(
        "status",
        parents=[common, figures],
        help="studies, their tasks, conditions and runs, with counts",
    )
    p.add_argument("--study", default=None)
    p.set_defaults(func=cmd_status)

    p = sub.add_parser("formats", parents=[common, figures], help="list the input formats")
    p.set_defaults(func=cmd_formats)

    p = sub.add_parser(
        "schema", parents=[common, figures], help="write the JSON Schema of the native formats"
    )
    p.add_argument("--out", default="schemas", metavar="DIR")
    p.set_defaults(func=cmd_schema)

    p = sub.add_parser("demo", parents=[common, figures], help="load the bundled demo data")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser(
        "unblind",
        parents=[common, figures],
        help="show a study's results by condition from now on (audited; needs --yes)",
    )
    p.add_argument("--study", default=None)
    p.add_argument("--yes", action="store_true", help="confirm the unblinding")
    p.add_argument("--by", default=None, metavar="NAME", help="who unblinds (default: you)")
    p.set_defaults(func=cmd_unblind)

    p = sub.add_parser(
        "results",
        parents=[common, figures],
        help="results of a design, or of a study's automated outcomes when it has no design "
        "(after unblinding)",
    )
    p.add_argument("--study", default=None)
    p.add_argument("--design", default=None, help="design name (default: the one created last)")
    p.add_argument(
        "--confidence",
        default="0.95",
        metavar="LEVEL",
        help="level of every Wilson and bootstrap interval, strictly between 0 and 1 (0.95)",
    )
    p.set_defaults(func=cmd_results)

    p = sub.add_parser(
        "export",
        parents=[common, figures],
        help="export verdicts, judgments, abp-verdict/v1 or a publication bundle",
    )
    p.add_argument("what", choices=["verdicts", "judgments", "abp-verdict", "bundle"])
    p.add_argument("--study", default=None)
    p.add_argument("--design", default=None, help="design name (default: the one created last)")
    p.add_argument(
        "--out", required=True, metavar="PATH", help="file, or folder for a bundle (+ .zip)"
    )
    p.add_argument("--by", default=None, metavar="NAME", help="who exports (default: you)")
    p.add_argument(
        "--protocol-only",
        action="store_true",
        help="bundle: the protocol alone (study, design and its hash, rubric, seed, tasks, "
        "conditions), frozen before results; allowed while the study is blind",
    )
    p.add_argument(
        "--confidence",
        default=None,
        metavar="LEVEL",
        help="bundle: level of every Wilson and bootstrap interval of its results (0.95); "
        "recorded in the manifest, so verify re-derives at the same level",
    )
    p.set_defaults(func=cmd_export)

    p = sub.add_parser(
        "verify",
        parents=[common, figures],
        help="check a publication bundle: hashes and every table re-derived",
    )
    p.add_argument("bundle", metavar="BUNDLE", help="bundle folder or .zip")
    p.set_defaults(func=cmd_verify)

    _add_gate(sub, common, figures)
    add_team_commands(sub, common, figures)

    score = sub.add_parser(
        "score", parents=[common], help="automated judges: score sci-bench submissions"
    )
    score_sub = score.add_subparsers(dest="score_command", metavar="BENCHMARK", required=True)
    p = score_sub.add_parser(
        "sci-bench",
        parents=[common, figures],
        help="score sci-bench submissions and run records against the specification's oracles",
    )
    p.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="the specification, submissions, run records (files or folders)",
    )
    p.add_argument(
        "--provenance",
        default=None,
        metavar="FILE",
        help="pinned provenance (JSON) that reproducibility is checked against",
    )
    p.add_argument("--study", default=None, help="also store the outcomes on this study's runs")
    p.set_defaults(func=cmd_score_scibench)

    stats = sub.add_parser(
        "stats",
        parents=[common],
        help="statistics from counts or small tables: wilson, mcnemar, binomial, kappa, ppi, cs",
    )
    stats_sub = stats.add_subparsers(dest="stats_command", metavar="STATISTIC", required=True)
    p = stats_sub.add_parser(
        "wilson", parents=[common, figures], help="Wilson score interval of X successes in N"
    )
    p.add_argument("x", type=int, metavar="X", help="successes")
    p.add_argument("n", type=int, metavar="N", help="trials")
    p.add_argument("--confidence", type=float, default=0.95, help="confidence level (0.95)")
    p.add_argument(
        "--continuity", action="store_true", help="continuity-corrected (Newcombe method 4)"
    )
    p.set_defaults(func=cmd_stats_wilson)
    p = stats_sub.add_parser(
        "mcnemar", parents=[common, figures], help="McNemar's test of discordant pairs B and C"
    )
    p.add_argument("b", type=int, metavar="B", help="pairs where A passed and B failed")
    p.add_argument("c", type=int, metavar="C", help="pairs where B passed and A failed")
    p.set_defaults(func=cmd_stats_mcnemar)
    p = stats_sub.add_parser(
        "binomial", parents=[common, figures], help="exact binomial test of K successes in N"
    )
    p.add_argument("k", type=int, metavar="K", help="successes")
    p.add_argument("n", type=int, metavar="N", help="trials")
    p.add_argument("--p", type=float, default=0.5, help="probability under the null (0.5)")
    p.set_defaults(func=cmd_stats_binomial)
    p = stats_sub.add_parser(
        "kappa", parents=[common, figures], help="Cohen's kappa from a square confusion matrix"
    )
    p.add_argument("table", metavar="TABLE.csv", help="counts, optionally under a header row")
    p.add_argument("--confidence", type=float, default=0.95, help="confidence level (0.95)")
    p.add_argument(
        "--level",
        choices=["nominal", "ordinal", "interval", "ratio"],
        default="nominal",
        help="ordered levels add linear and quadratic weighted kappa (nominal)",
    )
    p.add_argument(
        "--weight-basis",
        choices=["declared", "observed"],
        default="declared",
        help="weights on the table's categories, or on the ranks of those used (declared)",
    )
    p.set_defaults(func=cmd_stats_kappa)
    add_stats_tables(stats_sub, common, figures)
    add_plan(sub, common, figures)

    p = sub.add_parser("bench", parents=[common], help="benchmarks (print JSON)")
    p.add_argument(
        "what",
        choices=[
            "import",
            "agreement",
            "export",
            "ui",
            "startup",
            "install",
            "contention",
            "judges",
            "ranking",
            "workstation",
            "scale",
            "allocation",
        ],
    )
    p.add_argument(
        "--items",
        type=wholes("--items", 1, 10**7),
        default=None,
        metavar="N[,N...]",
        help="items (agreement, judges: one number, default 10,000; workstation: the study "
        "sizes measured beside a 2,000-item one, default 20,000; scale: the sizes, default "
        "2000,20000,40000)",
    )
    p.add_argument(
        "--table",
        action="store_true",
        help="agreement: time `agreement --table` on a generated CSV (10,000 items: 150,000 rows)",
    )
    p.add_argument(
        "--events",
        type=whole("--events", 1, 10**8),
        default=None,
        help="trace events to generate (import, contention: 200,000)",
    )
    p.add_argument(
        "--format",
        choices=["abp-trace", "pairwise"],
        default=None,
        help="import: the input generated (abp-trace: --events events; pairwise: --pairs pairs)",
    )
    p.add_argument(
        "--pairs",
        type=whole("--pairs", 1, 10**7),
        default=None,
        help="pairs to generate (import pairwise: 20,000)",
    )
    p.add_argument(
        "--votes",
        type=whole("--votes", 1, 10**8),
        default=None,
        help="votes to generate (ranking: 1,000,000)",
    )
    p.add_argument(
        "--systems",
        type=whole("--systems", 2, 10**4),
        default=None,
        help="systems to rank (ranking: 50)",
    )
    p.add_argument(
        "--tasks",
        type=whole("--tasks", 1, 10**7),
        default=None,
        help="tasks of the votes (ranking: 200,000)",
    )
    p.add_argument(
        "--sizes",
        type=sizes("--sizes"),
        default=None,
        metavar="N,N",
        help="export: PandaLM-shaped studies of these many pairs, export and verify beside "
        "zipping and hashing the same folder, with peak memory",
    )
    p.add_argument(
        "--runs",
        type=whole("--runs", 1, 10**7),
        default=None,
        help="runs of the generated study (export: 10,000)",
    )
    p.add_argument(
        "--studies",
        type=whole("--studies", 1, 10**6),
        default=None,
        help="simulated studies per setting (allocation: 500)",
    )
    p.add_argument(
        "--budget",
        type=whole("--budget", 2, 10**6),
        default=None,
        help="human judgments per simulated study (allocation: 200)",
    )
    p.add_argument(
        "--pandalm",
        metavar="PATH",
        default=None,
        help="allocation: PandaLM's testset-v1.json (default: ../shared/reference/pandalm/)",
    )
    p.add_argument(
        "--repeat",
        type=whole("--repeat", 1, 1000),
        default=None,
        help="repetitions, the median is reported (default 3; ui: 15 key presses; startup: 11; "
        "workstation: 20 key presses)",
    )
    p.set_defaults(func=cmd_bench)
    return parser


def _add_ranking(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
    common: argparse.ArgumentParser,
    figures: argparse.ArgumentParser,
) -> None:
    """``ranking``: Bradley-Terry scores of a study's systems from one source of preferences."""
    p = sub.add_parser(
        "ranking",
        parents=[common, figures],
        help="rank a study's systems (Bradley-Terry, Elo scale) with intervals over tasks",
    )
    p.add_argument("--study", default=None)
    p.add_argument(
        "--design",
        default=None,
        help="the design (default: the one created last): its verdicts, and the tasks and "
        "conditions every source is kept to, as its publication bundle carries them",
    )
    p.add_argument(
        "--whole-study",
        action="store_true",
        help="rank every vote the study holds (all its imported labels or AI verdicts), not "
        "only those on the design's tasks and conditions",
    )
    p.add_argument(
        "--source",
        default=None,
        metavar="verdicts|labels|judge:ID",
        help="a design's final human preferences, the labels imported with the study, or one "
        "AI judge's verdicts; never mixed (default: the only one, else verdicts, else labels)",
    )
    p.add_argument(
        "--resamples",
        type=resamples("--resamples"),
        default=1000,
        metavar="N",
        help=f"bootstrap resamples of tasks (1000; 0: no intervals; else {MIN_RESAMPLES} to "
        f"{MAX_RESAMPLES})",
    )
    _design_seed(p)
    p.add_argument("--confidence", type=float, default=0.95, help="level of the intervals (0.95)")
    p.add_argument(
        "--anchor",
        default=None,
        metavar="COND=SCORE",
        help="fix one system's score (default: the systems' mean is 1000)",
    )
    p.add_argument(
        "--prior",
        type=real("--prior", 0.0, MAX_PRIOR, "a number of pseudo-ties"),
        default=0.0,
        metavar="K",
        help="K pseudo-ties on every compared pair: a finite score for a system that won or "
        "lost every comparison (0: none)",
    )
    p.set_defaults(func=cmd_ranking)


def _design_seed(p: argparse.ArgumentParser) -> None:
    """``--seed`` of a figure drawn as the publication bundle draws it (the design's seed)."""
    p.add_argument(
        "--seed",
        type=seed(),
        default=None,
        help=f"seed of the bootstrap draws, 0 to {MAX_SEED} (default: the design's seed, as the "
        "publication bundle draws them; 0 without a design)",
    )


def _add_gate(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
    common: argparse.ArgumentParser,
    figures: argparse.ArgumentParser,
) -> None:
    """``baseline save`` and ``gate``: the CI regression gate (seed 003 section 10)."""
    results_help = "an Arena results.json (or its run folder), an ABP run folder, or a study id"
    baseline = sub.add_parser(
        "baseline", parents=[common], help="CI baselines: save a run's headline figures"
    )
    baseline_sub = baseline.add_subparsers(dest="baseline_command", metavar="ACTION", required=True)
    p = baseline_sub.add_parser(
        "save", parents=[common, figures], help="snapshot a run as the committed CI baseline"
    )
    p.add_argument("results", metavar="RESULTS", help=results_help)
    p.add_argument("--out", default=DEFAULT_BASELINE, metavar="FILE")
    p.add_argument("--engine", default=None, help="only this engine (condition id)")
    p.set_defaults(func=cmd_baseline_save)

    p = sub.add_parser(
        "gate",
        parents=[common, figures],
        help="exit 1 when a run regressed against the baseline (the CI gate)",
    )
    p.add_argument("results", metavar="RESULTS", help=results_help)
    p.add_argument("--baseline", default=DEFAULT_BASELINE, metavar="FILE")
    p.add_argument("--config", default=None, metavar="GATE.json", help="thresholds (Arena names)")
    p.add_argument("--engine", default=None, help="only gate this engine (condition id)")
    p.add_argument(
        "--require-significant",
        action="store_true",
        help="fail a pass-rate drop only when it is statistically significant",
    )
    p.add_argument(
        "--allow-task-mismatch", action="store_true", help="gate a run over another task set"
    )
    suppress = argparse.SUPPRESS
    p.add_argument(
        "--accuracy-drop",
        type=drop_points,
        default=suppress,
        metavar="FRACTION",
        help="largest allowed pass-rate drop, 0-1 (default 0)",
    )
    p.add_argument(
        "--tokens-increase",
        type=limit_pct,
        default=suppress,
        metavar="PCT",
        help="largest median-token increase in %% (default 10; off: report only)",
    )
    p.add_argument(
        "--cost-increase",
        type=limit_pct,
        default=suppress,
        metavar="PCT",
        help="largest median-cost increase in %% (default 15)",
    )
    p.add_argument(
        "--wall-clock-increase",
        type=limit_pct,
        default=suppress,
        metavar="PCT",
        help="largest median wall-clock increase in %% (default: report only)",
    )
    p.set_defaults(func=cmd_gate)
