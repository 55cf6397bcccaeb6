"""``abp-tui stats ...``: statistics from counts given on the command line, for a reader who
wants to check a published figure by hand: a Wilson interval, McNemar's test, a binomial test
and Cohen's kappa from a confusion matrix, with its large-sample standard error, interval and
test of kappa = 0 (Fleiss, Cohen and Everitt 1969), weighted too for an ordered ``--level``.

Each figure is printed with the convention that produced it (method, quantile, correction), and
``--json`` prints the same as one document. The numbers come from :mod:`abp_tui.stats`; bad
counts become one message naming the value and what was expected (exit 1).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from abp_tui.cli.output import EXIT_OK, emit
from abp_tui.errors import AbpError

if TYPE_CHECKING:
    from abp_tui.stats.agreement import Figure

T = TypeVar("T")


def _checked(what: str, compute: Callable[[], T]) -> T:
    """``compute()``, its ValueError (a count out of range) turned into a message for the user."""
    try:
        return compute()
    except (ValueError, TypeError) as exc:
        raise AbpError(f"stats {what}: {exc}") from None


def _p(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.6g}"


def cmd_stats_wilson(args: argparse.Namespace) -> int:
    from abp_tui.stats.inference import wilson

    confidence = args.confidence
    if not 0 < confidence < 1:
        raise AbpError(
            f"stats wilson: --confidence {confidence} is not a confidence level "
            "(expected a number strictly between 0 and 1, e.g. 0.95)"
        )
    p = _checked(
        "wilson",
        lambda: wilson(args.x, args.n, confidence=confidence, continuity=args.continuity),
    )
    document: dict[str, Any] = {
        "statistic": "wilson",
        **p.model_dump(mode="json"),
        "convention": p.convention,
    }
    if p.defined:
        text = (
            f"{p.x}/{p.n} = {p.point:.6f}, {p.confidence:.4g} interval "
            f"[{p.low:.6f}, {p.high:.6f}]\n"
            f"convention: {p.convention}"
            + (" (Newcombe 1998 method 4)" if p.continuity else " (Newcombe 1998 method 3)")
        )
    else:
        text = f"{p.x}/{p.n}: undefined ({p.undefined_reason})"
    emit(args, document, text)
    return EXIT_OK


def cmd_stats_mcnemar(args: argparse.Namespace) -> int:
    from abp_tui.stats.inference import MCNEMAR_METHODS, NO_DISCORDANT_PAIRS_NOTE, mcnemar

    b, c = args.b, args.c
    tests = [_checked("mcnemar", partial(mcnemar, b, c, method)) for method in MCNEMAR_METHODS]
    first = tests[0]
    document: dict[str, Any] = {
        "statistic": "mcnemar",
        "b": first.b,
        "c": first.c,
        "n": first.n,
        "tests": [
            {**t.model_dump(mode="json", exclude={"b", "c", "n"}), "convention": t.convention}
            for t in tests
        ],
    }
    lines = [
        f"McNemar's test, b = {first.b} (A passed, B failed), c = {first.c} (B passed, A failed), "
        f"{first.n} discordant pairs"
    ]
    if not first.defined:
        document["note"] = NO_DISCORDANT_PAIRS_NOTE
        lines.append(NO_DISCORDANT_PAIRS_NOTE)
    else:
        for t in tests:
            chi = f", chi-square = {t.statistic:.6g}" if t.statistic is not None else ""
            lines.append(f"  {t.method:<14} p = {_p(t.p_value)}{chi}   [{t.convention}]")
    emit(args, document, "\n".join(lines))
    return EXIT_OK


def cmd_stats_binomial(args: argparse.Namespace) -> int:
    from abp_tui.stats.inference import binomial_test

    if not 0 < args.p < 1:
        raise AbpError(
            f"stats binomial: --p {args.p} is not a probability under the null hypothesis "
            "(expected a number strictly between 0 and 1)"
        )
    test = _checked("binomial", lambda: binomial_test(args.k, args.n, args.p))
    convention = (
        "exact two-sided binomial test: sum of the probabilities of outcomes no more likely "
        "than the one observed (scipy.stats.binomtest)"
    )
    document = {"statistic": "binomial", **test.model_dump(mode="json"), "convention": convention}
    if test.defined:
        text = f"{test.x}/{test.n} against p = {test.p0:g}: p = {_p(test.p_value)}\n"
    else:
        text = f"{test.x}/{test.n} against p = {test.p0:g}: undefined ({test.undefined_reason})\n"
    emit(args, document, text + f"convention: {convention}")
    return EXIT_OK


KAPPA_NOTE = (
    "each kappa carries its large-sample standard error under the alternative (its normal "
    "interval) and under kappa = 0 (its test), as Fleiss, Cohen and Everitt 1969 give them"
)


def _kappa_lines(figure: Figure) -> list[str]:
    """A kappa, its agreement terms, its large-sample interval and its test of kappa = 0.

    A reason can quote a category label from the file: it passes through ``safe_line``."""
    from abp_tui.text.safe import safe_line

    if not figure.defined:
        return [f"  {figure.name}: undefined ({safe_line(figure.undefined_reason or '')})"]
    lines = [
        f"  {figure.name} = {figure.value:.6f}  (p_o = {figure.observed_agreement:.6f}, "
        f"p_e = {figure.chance_agreement:.6f})"
    ]
    ls = figure.large_sample
    if ls is None:
        lines.append(f"    no standard error: {safe_line(figure.large_sample_note or '')}")
        return lines
    level = f"{ls.confidence * 100:.10g}%"
    if ls.low is not None and ls.high is not None:
        interval = f"{level} interval [{ls.low:.6f}, {ls.high:.6f}] (z = {ls.quantile:.6f})"
    else:
        interval = f"no interval: {ls.interval_note}"
    lines.append(f"    SE = {ls.standard_error:.6f}, {interval}")
    if ls.standard_error_null is not None and ls.z is not None:
        lines.append(
            f"    test of kappa = 0: SE_0 = {ls.standard_error_null:.6f}, z = {ls.z:.6f}, "
            f"two-sided p = {_p(ls.p_value)}"
        )
    else:
        lines.append(
            "    test of kappa = 0: undefined (the variance under the null is not positive)"
        )
    return lines


def cmd_stats_kappa(args: argparse.Namespace) -> int:
    from abp_tui.formats.confusion_table import numeric_labels, read_confusion_table
    from abp_tui.stats.agreement import AgreementError, pair_from_confusion
    from abp_tui.text.safe import safe_line

    confidence = args.confidence
    if not 0 < confidence < 1:
        raise AbpError(
            f"stats kappa: --confidence {confidence} is not a confidence level "
            "(expected a number strictly between 0 and 1, e.g. 0.95)"
        )
    labels, counts = read_confusion_table(Path(args.table))
    # An ordered scale of numbers is weighed by the numbers (0, 1, 4 are not evenly spaced).
    numbers = numeric_labels(labels) if args.level != "nominal" else None
    categories: list[str | int | float] = numbers if numbers is not None else list(labels)
    try:
        pair = pair_from_confusion(
            counts,
            categories,
            args.level,
            confidence=confidence,
            weight_basis=args.weight_basis,
        )
    except AgreementError as exc:
        raise AbpError(f"{args.table}: {exc}") from None
    # Each declared kappa (the weighted ones only for an ordered scale), keyed by declaration.
    kappas = {
        c.key: f
        for c, f in pair.figures()
        if c.weights is not None and (args.level != "nominal" or c.weights == "identity")
    }
    agreement = pair.percent_agreement
    document: dict[str, Any] = {
        "statistic": "cohen_kappa",
        "categories": labels,
        "counts": counts,
        "n_items": pair.n_items,
        "level": args.level,
        "confidence": confidence,
        "weight_basis": args.weight_basis,
        "percent_agreement": agreement.model_dump(mode="json"),
        **{key: f.model_dump(mode="json") for key, f in kappas.items()},
        "note": KAPPA_NOTE,
    }
    lines = [
        f"Cohen's kappa of two raters (rows: A, columns: B) over {pair.n_items} items, "
        f"categories {', '.join(safe_line(c) for c in labels)} ({args.level})",
    ]
    for figure in kappas.values():
        lines += _kappa_lines(figure)
    first = pair.cohen_kappa
    lines.append(f"  convention: {first.definition}; {first.source}")
    if first.large_sample is not None:
        lines.append(f"  standard error: {first.large_sample.method}")
    if len(kappas) > 1:
        lines.append(f"  weights: {pair.cohen_kappa_linear.definition}")
    lines.append(f"  note: {KAPPA_NOTE}")
    emit(args, document, "\n".join(lines))
    return EXIT_OK
