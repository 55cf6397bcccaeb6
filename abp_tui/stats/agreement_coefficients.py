"""The agreement coefficients, each declared once (:class:`Coefficient`): key, label, short
label, what it measures, its formula and its source, the levels it applies to and its kernel, in
the order every face lists them, and the wording of the weights and intervals the figures carry.

A declaration is all a new coefficient needs beside its kernel
(:mod:`abp_tui.stats.agreement_kernels`): :data:`VARIABLE_COEFFICIENTS` holds a multi-reviewer
one and :data:`PAIR_COEFFICIENTS` one of each pair of reviewers; the computation builds its figure
from it (:func:`abp_tui.stats.agreement.compute_variable`; a pair's,
:mod:`abp_tui.stats.agreement_pairs` and the batch of :mod:`abp_tui.stats.agreement_batch`), the
documents carry it under its key (:class:`abp_tui.stats.agreement_models.VariableAgreement`,
:class:`~abp_tui.stats.agreement_models.PairAgreement`) and every face (CLI, workstation, CSV,
JSON, report) lists it from there.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Literal, overload

import numpy as np
import numpy.typing as npt

from abp_tui.stats.agreement_kernels import (
    Kernel,
    PairKernel,
    ac1_kernel,
    ac2_kernel,
    alpha_values_kernel,
    cohen_kernel,
    fleiss_generalized_kernel,
    fleiss_kernel,
    fleiss_weighted_kernel,
    pair_percent_agreement_kernel,
    percent_agreement_kernel,
)

F64 = npt.NDArray[np.float64]

AC2_WEIGHTS: Final[dict[str, str]] = {
    "ordinal": "ordinal",
    "interval": "quadratic",
    "ratio": "quadratic",
}
"""The weights of ``gwet_ac2``, the figure the compact list shows, by level."""


# -- the coefficients, declared once -------------------------------------------------------------
@dataclass(frozen=True)
class Coefficient:
    """One agreement coefficient: what every face (CLI, workstation, CSV, report) lists it as,
    and how its figure is computed (its kernel: ``kernel`` over all reviewers, ``pair_kernel``
    for each pair).

    The faces iterate over :data:`VARIABLE_COEFFICIENTS` and :data:`PAIR_COEFFICIENTS`, never over
    a list of their own, so a new coefficient is its kernel plus its declaration.
    """

    key: str
    """The field of :class:`VariableAgreement` (or :class:`PairAgreement`) holding the figure."""
    label: str
    """Its name; a figure's ``name`` may add a qualifier (the level, the weights)."""
    short: str
    """A column header where space is tight (the workstation's tables)."""
    measures: str
    """What it measures, in one sentence."""
    formula: str
    """Its definition as each figure carries it (``{level}``/``{weights}``/``{basis}`` filled
    in)."""
    source: str
    """Where the formula comes from."""
    compact: bool = True
    """Shown in the compact list of variables (a column each); False: only in the variable's own
    table of figures, the CSV file and the JSON document, which list every figure."""
    weights: str | None = None
    """The weighting a weighted figure always uses (None: unweighted, or by level)."""
    ordered: bool = False
    """It gives partial credit to near categories, so it needs ordered ones: not applicable to
    a nominal scale (its figure there is undefined, and the faces list it once as such)."""
    kernel: Kernel | None = None
    """Its values from a variable's sums (a multi-reviewer coefficient)."""
    pair_kernel: PairKernel | None = None
    """Its values from a reviewer pair's confusion matrix (a pair coefficient)."""
    large_sample: bool = False
    """Its figure carries the large-sample standard error, interval and test of a (weighted)
    kappa with its weights (Fleiss, Cohen and Everitt 1969): a pair coefficient of the kappa
    family."""
    nominal_reason: str = "needs ordered categories"
    """Why an ``ordered`` coefficient is undefined on a nominal variable, after "nominal
    variable: " (and the figure to see instead)."""
    pairable_only: bool = False
    """Its figure rests on the items with two or more judgments alone (their judgments are the
    ones counted); otherwise its chance term counts every judged item too."""
    chance_corrected: bool = True
    """It corrects for chance agreement, which a scale of one category leaves undefined."""
    name: str = "{label}"
    """Its figure's name (``{label}``, ``{level}`` and ``{weights}`` filled in)."""
    by_level: Mapping[str, str] | None = None
    """The weighting it uses at each level, when that follows the level (its figure's name and
    source then say which)."""

    def applies(self, level: str) -> bool:
        """Whether the coefficient means anything at ``level``."""
        return not (self.ordered and level == "nominal")

    def weighting(self, level: str) -> str | None:
        """The weights its figure uses at ``level`` (None: unweighted, or not applicable)."""
        return self.by_level.get(level) if self.by_level is not None else self.weights


class Declared(Sequence[Coefficient]):
    """The declared coefficients of one kind, in the order every face lists them. One object
    that every face reads, so a coefficient declared (:meth:`declare`) is listed everywhere."""

    def __init__(
        self, coefficients: Iterable[Coefficient], kernel: Literal["kernel", "pair_kernel"]
    ) -> None:
        self._kernel = kernel
        """The field holding the kernel every coefficient of this kind needs."""
        self._declared: list[Coefficient] = []
        for coefficient in coefficients:
            self.declare(coefficient)

    @overload
    def __getitem__(self, index: int) -> Coefficient: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Coefficient]: ...

    def __getitem__(self, index: int | slice) -> Coefficient | Sequence[Coefficient]:
        return self._declared[index]

    def __len__(self) -> int:
        return len(self._declared)

    def __iter__(self) -> Iterator[Coefficient]:
        return iter(tuple(self._declared))

    def declared_keys(self) -> tuple[str, ...]:
        return tuple(c.key for c in self._declared)

    def declare(self, coefficient: Coefficient) -> None:
        """Add a coefficient after those declared (its key must be new)."""
        if coefficient.key in self.declared_keys():
            raise ValueError(f"the coefficient {coefficient.key!r} is declared already")
        if getattr(coefficient, self._kernel) is None:
            raise ValueError(f"the coefficient {coefficient.key!r} has no {self._kernel}")
        self._declared.append(coefficient)

    def withdraw(self, key: str) -> None:
        """Remove the coefficient ``key``."""
        self._declared = [c for c in self._declared if c.key != key]


_WEIGHTED_PO = (
    "P_o = mean over items with n_i >= 2 of sum_k n_ik(n*_ik - 1) / (n_i(n_i - 1)), "
    "n*_ik = sum_l w_kl n_il"
)
PERCENT_AGREEMENT: Final = Coefficient(
    key="percent_agreement",
    label="percent agreement",
    short="Agreement",
    measures="how often two judgments of the same item agree, chance agreement not removed",
    formula=(
        "mean over items judged by two or more reviewers of the share of agreeing pairs of "
        "judgments, sum_k n_ik(n_ik - 1) / (n_i(n_i - 1)); agreement is an exact category match"
    ),
    source="Gwet (2014), Handbook of Inter-Rater Reliability, 4th ed.; irrCAC pa.coeff.raw",
    kernel=percent_agreement_kernel,
    pairable_only=True,
    chance_corrected=False,
)
FLEISS_KAPPA: Final = Coefficient(
    key="fleiss_kappa",
    label="Fleiss' kappa",
    short="Fleiss κ",
    measures="agreement beyond chance among reviewers who each judged every item",
    formula=(
        "(P_o - P_e) / (1 - P_e); P_o = percent agreement; P_e = sum_k p_k^2 with p_k the share "
        "of all judgments in category k; requires every item to be judged by the same number of "
        "reviewers"
    ),
    source=(
        "Fleiss (1971), Measuring nominal scale agreement among many raters, "
        "Psychological Bulletin 76(5), 378-382"
    ),
    kernel=fleiss_kernel,
)
FLEISS_KAPPA_GENERALIZED: Final = Coefficient(
    key="fleiss_kappa_generalized",
    label="Fleiss' kappa generalized (Gwet)",
    short="Fleiss κ gen.",
    measures="Fleiss' kappa for any number of judgments per item",
    formula=(
        "(P_o - P_e) / (1 - P_e); P_o = mean over items with n_i >= 2 of "
        "sum_k n_ik(n_ik - 1) / (n_i(n_i - 1)); P_e = sum_k pi_k^2 with pi_k the mean over items "
        "with n_i >= 1 of n_ik / n_i (valid when the number of reviewers per item differs; equals "
        "Fleiss' kappa when it does not)"
    ),
    source=(
        "Gwet (2014), Handbook of Inter-Rater Reliability, 4th ed.; irrCAC fleiss.kappa.raw, "
        "unweighted"
    ),
    kernel=fleiss_generalized_kernel,
)


def _weighted_fleiss(weights: str, short: str) -> Coefficient:
    return Coefficient(
        key=f"fleiss_kappa_{weights}",
        label=f"Fleiss' kappa, {weights} weights",
        short=f"Fleiss κ {short}",
        measures=(
            f"Fleiss' kappa generalized (Gwet) with partial credit for near categories ({weights} "
            "weights)"
        ),
        formula=(
            "(P_o - P_e) / (1 - P_e) with {weights} weights w_kl {basis}; "
            + _WEIGHTED_PO
            + "; P_e = sum_kl w_kl pi_k pi_l, pi_k as in Fleiss' kappa generalized"
        ),
        source=(
            "Gwet (2014), Handbook of Inter-Rater Reliability, 4th ed.; irrCAC "
            f"fleiss.kappa.raw(weights = '{weights}')"
        ),
        compact=False,
        weights=weights,
        ordered=True,
        kernel=fleiss_weighted_kernel,
        nominal_reason="weights need ordered categories; see Fleiss' kappa generalized",
    )


FLEISS_KAPPA_LINEAR: Final = _weighted_fleiss("linear", "lin.")
FLEISS_KAPPA_QUADRATIC: Final = _weighted_fleiss("quadratic", "quad.")
FLEISS_KAPPA_ORDINAL: Final = _weighted_fleiss("ordinal", "ord.")
KRIPPENDORFF_ALPHA: Final = Coefficient(
    key="krippendorff_alpha",
    label="Krippendorff's alpha",
    short="Krippendorff α",
    measures="agreement beyond chance at the variable's level of measurement, gaps allowed",
    formula=(
        "1 - D_o / D_e over the coincidence matrix of pairable judgments (items with two or more), "
        "{level} distance; missing judgments allowed"
    ),
    source=(
        "Krippendorff (2011), Computing Krippendorff's Alpha-Reliability; the krippendorff "
        "package's coincidence-matrix formula, vectorised here over bootstrap resamples and tested "
        "against it"
    ),
    kernel=alpha_values_kernel,
    pairable_only=True,
    name="{label} ({level})",
)
GWET_AC1: Final = Coefficient(
    key="gwet_ac1",
    label="Gwet's AC1",
    short="AC1",
    measures="agreement beyond chance that stays stable when one category is prevalent",
    formula=(
        "(P_o - P_e) / (1 - P_e); P_o = percent agreement; P_e = sum_k pi_k(1 - pi_k) / (q - 1) "
        "over the q categories of the scale, pi_k as in Fleiss' generalized kappa"
    ),
    source=(
        "Gwet (2008), Computing inter-rater reliability and its variance in the presence of high "
        "agreement, BJMSP 61, 29-48; irrCAC gwet.ac1.raw"
    ),
    weights="identity",
    kernel=ac1_kernel,
)
_AC2_FORMULA = (
    "(P_o - P_e) / (1 - P_e) with {weights} weights w_kl {basis}; "
    + _WEIGHTED_PO
    + "; P_e = (sum_kl w_kl) sum_k pi_k(1 - pi_k) / (q(q - 1)), q the categories the weights span"
)
GWET_AC2: Final = Coefficient(
    key="gwet_ac2",
    label="Gwet's AC2",
    short="AC2",
    measures=(
        "AC1 with partial credit for near categories of an ordered scale, with the level's "
        "weights (ordinal for ordinal variables, quadratic for interval and ratio)"
    ),
    formula=_AC2_FORMULA,
    source="Gwet (2014), Handbook of Inter-Rater Reliability, 4th ed.; irrCAC gwet.ac1.raw",
    ordered=True,
    kernel=ac2_kernel,
    nominal_reason="AC2 needs ordered categories; see Gwet's AC1",
    name="{label} ({weights} weights)",
    by_level=AC2_WEIGHTS,
)


def _weighted_ac2(weights: str, short: str) -> Coefficient:
    return Coefficient(
        key=f"gwet_ac2_{weights}",
        label=f"Gwet's AC2, {weights} weights",
        short=f"AC2 {short}",
        measures=f"Gwet's AC2 with {weights} weights, whatever the level",
        formula=_AC2_FORMULA,
        source=(
            "Gwet (2014), Handbook of Inter-Rater Reliability, 4th ed.; irrCAC "
            f"gwet.ac1.raw(weights = '{weights}')"
        ),
        compact=False,
        weights=weights,
        ordered=True,
        kernel=ac2_kernel,
        nominal_reason="weights need ordered categories; see Gwet's AC1",
    )


GWET_AC2_LINEAR: Final = _weighted_ac2("linear", "lin.")
GWET_AC2_QUADRATIC: Final = _weighted_ac2("quadratic", "quad.")
GWET_AC2_ORDINAL: Final = _weighted_ac2("ordinal", "ord.")
VARIABLE_COEFFICIENTS: Final = Declared(
    (
        PERCENT_AGREEMENT,
        FLEISS_KAPPA,
        FLEISS_KAPPA_GENERALIZED,
        FLEISS_KAPPA_LINEAR,
        FLEISS_KAPPA_QUADRATIC,
        FLEISS_KAPPA_ORDINAL,
        KRIPPENDORFF_ALPHA,
        GWET_AC1,
        GWET_AC2,
        GWET_AC2_LINEAR,
        GWET_AC2_QUADRATIC,
        GWET_AC2_ORDINAL,
    ),
    "kernel",
)
"""The multi-reviewer figures of a variable, in the order every face lists them."""

_COHEN_FORMULA = (
    "(p_o - p_e) / (1 - p_e) over the items judged by both; p_o = sum_kl w_kl p_kl, "
    "p_e = sum_kl w_kl p_k. p_.l; {weights} weights {basis}; large-sample standard error of "
    "Fleiss, Cohen and Everitt (1969)"
)
_COHEN_SE_SOURCE = (
    "; standard error: Fleiss, Cohen and Everitt (1969), Large sample standard errors of kappa "
    "and weighted kappa, Psychological Bulletin 72(5), 323-327"
)
PAIR_PERCENT_AGREEMENT: Final = Coefficient(
    key="percent_agreement",
    label="percent agreement",
    short="Agreement",
    measures="how often the two reviewers gave the same category, chance agreement not removed",
    formula="share of the items judged by both reviewers on which they gave the same category",
    source="Cohen (1960): p_o, the observed agreement of the pair",
    pair_kernel=pair_percent_agreement_kernel,
    chance_corrected=False,
)
COHEN_KAPPA: Final = Coefficient(
    key="cohen_kappa",
    label="Cohen's kappa",
    short="Cohen κ",
    measures="agreement of two reviewers beyond chance, every disagreement counting in full",
    formula=_COHEN_FORMULA,
    source="Cohen (1960), A coefficient of agreement for nominal scales" + _COHEN_SE_SOURCE,
    weights="identity",
    pair_kernel=cohen_kernel,
    large_sample=True,
)
COHEN_KAPPA_LINEAR: Final = Coefficient(
    key="cohen_kappa_linear",
    label="Cohen's kappa (linear weights)",
    short="κ linear",
    measures="Cohen's kappa with partial credit falling linearly with the distance on the scale",
    formula=_COHEN_FORMULA,
    source="Cohen (1968), Weighted kappa; linear weights as irrCAC linear.weights"
    + _COHEN_SE_SOURCE,
    weights="linear",
    ordered=True,
    pair_kernel=cohen_kernel,
    large_sample=True,
    nominal_reason="weighted kappa needs ordered categories",
)
COHEN_KAPPA_QUADRATIC: Final = Coefficient(
    key="cohen_kappa_quadratic",
    label="Cohen's kappa (quadratic weights)",
    short="κ quadratic",
    measures="Cohen's kappa with partial credit falling with the squared distance on the scale",
    formula=_COHEN_FORMULA,
    source="Cohen (1968), Weighted kappa; quadratic weights as irrCAC quadratic.weights"
    + _COHEN_SE_SOURCE,
    weights="quadratic",
    ordered=True,
    pair_kernel=cohen_kernel,
    large_sample=True,
    nominal_reason="weighted kappa needs ordered categories",
)
PAIR_COEFFICIENTS: Final = Declared(
    (
        PAIR_PERCENT_AGREEMENT,
        COHEN_KAPPA,
        COHEN_KAPPA_LINEAR,
        COHEN_KAPPA_QUADRATIC,
    ),
    "pair_kernel",
)
"""The figures of each pair of reviewers, in the order every face lists them."""


def pair_weightings(level: str) -> tuple[str, ...]:
    """The weightings a pair's figures at ``level`` use: identity (the observed agreement),
    then each weighting a declared pair coefficient applying at ``level`` names."""
    found = [c.weights for c in PAIR_COEFFICIENTS if c.applies(level) and c.weights]
    return tuple(dict.fromkeys(["identity", *found]))


_BOOT_METHOD = "percentile bootstrap, {what} resampled with replacement"
_BASIS_TEXT: Final[dict[str, str]] = {
    "declared": (
        "built on the declared scale (the category values, or positions 1..q for labels; "
        "unobserved categories included)"
    ),
    "observed": (
        "built on the ranks 1..m of the m distinct values observed in the judgments behind the "
        "figure (R irr kappa2's convention; the bootstrap keeps these weights)"
    ),
}
LARGE_SAMPLE_METHOD: Final = (
    "large-sample standard error of Fleiss, Cohen and Everitt (1969) under the alternative; "
    "normal interval kappa -/+ z SE, z = {quantile:.6f} the exact normal quantile of {level} "
    "(not clipped to [-1, 1]); test of kappa = 0 with the standard error under the null, "
    "z = kappa / SE_0, two-sided p (as SAS PROC FREQ; Fleiss, Levin and Paik 2003, section 18.1)"
)


NOT_APPLICABLE: Final = "not applicable to a nominal scale (no order for partial credit): "


def not_applicable(level: str, *declared: Sequence[Coefficient]) -> tuple[Coefficient, ...]:
    """The declared coefficients that mean nothing at ``level`` (the weighted ones, at the
    nominal level), in declaration order."""
    return tuple(c for coefficients in declared for c in coefficients if not c.applies(level))


def not_applicable_line(level: str, *declared: Sequence[Coefficient]) -> str | None:
    """The one line that says which declared coefficients do not apply at ``level`` (None:
    every one does), listed instead of a row of "undefined" each."""
    found = not_applicable(level, *declared)
    if not found:
        return None
    return NOT_APPLICABLE + "; ".join(c.label for c in found)


def basis_text(basis: str) -> str:
    """How the weights of a weighted figure are built, as its definition says it."""
    return _BASIS_TEXT[basis]
