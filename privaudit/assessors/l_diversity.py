"""l_diversity: each class's sensitive values must be diverse enough (three variants).

* distinct:  value = min over classes of the number of distinct values; pass iff value >= l.
* entropy:   value = min over classes of exp(H), H = -sum p ln p (natural log, no truncation: two 50/50
  classes give exactly 2); pass iff value >= l.
* recursive (c,l): value = max over classes of r_1 / (r_l + ... + r_m), counts r sorted descending,
  infinite when a class has fewer than l values; pass iff value < c.

details: ``classes_failing``, ``records_failing``, ``per_class_histogram``, ``worst_classes``; for the entropy
and recursive variants ``threshold_histogram``, the per-class figures binned so that the bound (l or c) is a bin
edge (:func:`privaudit.plugin.helpers.threshold_histogram`: no bin holds passing and failing classes), which
the report draws.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import Field, model_validator

from privaudit.common.numbers import fmt
from privaudit.plugin.assessor import Assessor, ClassRule, Details, Disclosure, Measurement, Params
from privaudit.plugin.details import Histogram, WorstClass
from privaudit.plugin.helpers import check_sensitive, reaches, threshold_histogram, value_histogram
from privaudit.plugin.hookspecs import hookimpl

if TYPE_CHECKING:  # pragma: no cover - types only: numpy loads when a check runs
    import numpy as np


class LDiversityParams(Params):
    sensitive: str = Field(description="The sensitive column.")
    variant: Literal["distinct", "entropy", "recursive"] = "distinct"
    l: float = Field(ge=1, description="Required diversity.")
    c: float | None = Field(default=None, gt=0, description="The c of recursive (c,l)-diversity.")

    @property
    def better(self) -> str:
        """Which way the value improves (privaudit diff): the diversity up, the recursive ratio down."""
        return "lower" if self.variant == "recursive" else "higher"

    @model_validator(mode="after")
    def _c_for_recursive(self) -> LDiversityParams:
        if self.variant == "recursive":
            if self.c is None:
                raise ValueError("variant 'recursive' needs c")
            if not float(self.l).is_integer():
                raise ValueError("recursive (c,l)-diversity needs a whole number l")
        elif self.c is not None:
            raise ValueError("c is only used by variant 'recursive'")
        return self


class LDiversityWorstClass(WorstClass):
    diversity: float | None


class BoundHistogram(Histogram):
    """Per-class figures binned so that the bound is a bin edge; values past the last edge are pooled in
    ``overflow`` (labelled ``overflow_label``)."""

    overflow: int = 0
    overflow_label: str = ""


class LDiversityDetails(Details):
    """What an l_diversity check's details hold."""

    variant: Literal["distinct", "entropy", "recursive"]
    classes: int
    classes_failing: int
    records_failing: int
    missing_sensitive: int
    per_class_histogram: Histogram
    threshold_histogram: BoundHistogram | None = None
    worst_classes: list[LDiversityWorstClass]


def validate(params: LDiversityParams, policy) -> str | None:
    return check_sensitive(policy, [params.sensitive])


def per_class_figures(ctx, params: LDiversityParams) -> tuple[np.ndarray, np.ndarray]:
    """Each class's diversity figure and whether it fails the check."""
    from privaudit.risk.ldiversity import distinct_per_class, entropy_per_class, recursive_ratio_per_class

    sc = ctx.summary.sensitive[params.sensitive]
    if params.variant == "recursive":
        per_class = recursive_ratio_per_class(sc, int(params.l))
        return per_class, ~(per_class < params.c)
    per_class = distinct_per_class(sc) if params.variant == "distinct" else entropy_per_class(sc)
    return per_class, ~reaches(per_class, params.l)


def rule(params: LDiversityParams, policy) -> ClassRule:
    """Every class must reach l on the sensitive column; distinct l-diversity is a count of distinct values,
    which can only grow as classes merge."""
    distinct = params.variant == "distinct"
    return ClassRule(
        min_distinct={params.sensitive: params.l} if distinct else {},
        diversity={params.sensitive: params.l},
        monotone=distinct,
        exact=distinct,
    )


def violations(ctx, params: LDiversityParams) -> np.ndarray:
    return per_class_figures(ctx, params)[1]


def run(ctx, params: LDiversityParams) -> Measurement:
    s = ctx.summary
    sc = s.sensitive[params.sensitive]
    per_class, failing = per_class_figures(ctx, params)
    if params.variant == "recursive":
        value = float(per_class.max())
        passed = value < params.c
        threshold = {"c": params.c, "l": params.l}
        worst_key, descending = per_class, True
        message = (
            f"largest r1/(r_l+...+r_m) over classes: {fmt(value)} (must stay below c={params.c:g}, l={params.l:g})"
        )
    else:
        value = float(per_class.min())
        passed = not failing.any()
        threshold = params.l
        worst_key, descending = per_class, False
        what = (
            ("distinct value" if value == 1 else "distinct values") if params.variant == "distinct" else "exp(entropy)"
        )
        message = f"least diverse class: {fmt(value)} {what} of {params.sensitive!r} (l={params.l:g})"
    if params.variant == "distinct":
        value = int(value)
    details = {
        "variant": params.variant,
        "classes": s.n_classes,
        "classes_failing": int(failing.sum()),
        "records_failing": int(s.sizes[failing].sum()),
        "missing_sensitive": sc.missing,
        "per_class_histogram": value_histogram(per_class, lo=0.0 if params.variant != "recursive" else None),
        "worst_classes": ctx.worst_classes(
            worst_key,
            failing=failing,
            sensitive=params.sensitive,
            descending=descending,
            extra={"diversity": per_class},
        ),
    }
    if params.variant != "distinct":
        # the bound is a bin edge: a figure equal to c fails the recursive check, one equal to l passes entropy
        recursive = params.variant == "recursive"
        bound, side = (params.c, "above") if recursive else (params.l, "below")
        details["threshold_histogram"] = threshold_histogram(per_class, bound, side, recursive, lo=0.0)
    return Measurement(value, threshold, bool(passed), message, details)


ASSESSOR = Assessor(
    name="l_diversity",
    params=LDiversityParams,
    details=LDiversityDetails,
    run=run,
    title="l-diversity",
    protects="attribute",
    measures="how varied the sensitive values are inside each group of look-alike records; a group where "
    "everyone shares the same value reveals it to anyone who finds the group",
    formula="distinct: min_classes |{s}|; entropy: min_classes exp(-sum p_s ln p_s); recursive (c,l): "
    "max_classes r_1 / (r_l + ... + r_m) < c (r sorted descending)",
    reference="Machanavajjhala, Kifer, Gehrke & Venkitasubramaniam, l-Diversity: Privacy Beyond k-Anonymity "
    "(ACM TKDD 1(1), 2007)",
    validate_policy=validate,
    class_violations=violations,
    class_rule=rule,
    concurrent=True,
    disclosure=Disclosure(sensitive=lambda p: [p.sensitive]),
)


@hookimpl
def privaudit_assessors():
    return [ASSESSOR]
