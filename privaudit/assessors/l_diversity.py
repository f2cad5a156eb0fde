"""l_diversity: each class's sensitive values must be diverse enough (three variants).

* distinct:  value = min over classes of the number of distinct values; pass iff value >= l.
* entropy:   value = min over classes of exp(H), H = -sum p ln p (natural log, no truncation: two 50/50
  classes give exactly 2); pass iff value >= l.
* recursive (c,l): value = max over classes of r_1 / (r_l + ... + r_m), counts r sorted descending,
  infinite when a class has fewer than l values; pass iff value < c.

details: ``classes_failing``, ``records_failing``, ``per_class_histogram``, ``worst_classes``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import numpy as np
from pydantic import Field, model_validator

from privaudit.common.numbers import fmt
from privaudit.plugin.assessor import Assessor, ClassRule, Details, Disclosure, Measurement, Params
from privaudit.plugin.details import Histogram, WorstClass
from privaudit.plugin.helpers import check_sensitive, reaches, value_histogram
from privaudit.plugin.hookspecs import hookimpl
from privaudit.risk.ldiversity import distinct_per_class, entropy_per_class, recursive_ratio_per_class

if TYPE_CHECKING:  # pragma: no cover - types only: the report's modules load when a report is drawn
    from privaudit.plugin.sections import CheckEntry, ReportSection
    from privaudit.plugin.view import AuditView as AuditResult


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


class LDiversityDetails(Details):
    """What an l_diversity check's details hold."""

    variant: Literal["distinct", "entropy", "recursive"]
    classes: int
    classes_failing: int
    records_failing: int
    missing_sensitive: int
    per_class_histogram: Histogram
    worst_classes: list[LDiversityWorstClass]


def validate(params: LDiversityParams, policy) -> str | None:
    return check_sensitive(policy, [params.sensitive])


def per_class_figures(ctx, params: LDiversityParams) -> tuple[np.ndarray, np.ndarray]:
    """Each class's diversity figure and whether it fails the check."""
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
    return Measurement(value, threshold, bool(passed), message, details)


def report_section(check: CheckEntry[LDiversityParams, LDiversityDetails], audit: AuditResult) -> ReportSection:
    """The report section of an l_diversity check: who is in too-uniform classes, per-class chart, worst classes."""
    from privaudit.plugin import binning as rb
    from privaudit.plugin import figures as rf
    from privaudit.plugin import sections as rs
    from privaudit.plugin import text as rt

    d, p = check.details, check.params
    col, l, variant, n = p.sensitive, p.l, p.variant, audit.table.rows
    bad = d.records_failing
    who = f"{rt.people(bad)} ({rt.percent(bad, n)}) {'is' if bad == 1 else 'are'} in groups"
    if variant == "recursive":
        c = p.c
        threshold_text, value_text = f"ratio < c = {rt.fmt(c)} (l = {rt.fmt(l)})", rt.fmt(check.value)
        axis, line, side = "r₁ / (r_l + … + r_m) per class", f"c = {rt.fmt(c)}", "above"
        summary = (
            f"{who} where one {col} value dominates (r₁ ≥ c·(r_l + … + r_m), c = {rt.fmt(c)}, l = {rt.fmt(l)}): "
            f"finding their group makes that value a good guess."
            if bad
            else f"In every group no {col} value dominates (c = {rt.fmt(c)}, l = {rt.fmt(l)}): finding a person's "
            f"group leaves several plausible values."
        )
    else:
        threshold_text, value_text, side, line = f"l ≥ {rt.fmt(l)}", rt.fmt(check.value), "below", f"l = {rt.fmt(l)}"
        kind = "different values" if variant == "distinct" else "equally likely values (exp of the entropy)"
        axis = f"{'distinct values' if variant == 'distinct' else 'exp(entropy)'} of {col} per class"
        consequence = (
            f"finding their group narrows their {col} down to fewer than {rt.fmt(l)} possibilities"
            if variant == "distinct"
            else f"finding their group makes their {col} as easy to guess as a choice among fewer than "
            f"{rt.fmt(l)} equally likely values"
        )
        summary = (
            f"{who} with fewer than l = {rt.fmt(l)} {kind} of {col}: {consequence}."
            if bad
            else f"Every group has at least l = {rt.fmt(l)} {kind} of {col}: finding a person's group leaves at "
            f"least {rt.fmt(l)} possibilities."
        )
        if bad and variant == "distinct" and check.value == 1:
            summary += f" In the worst groups everyone shares one {col} value: finding the group reveals it."
    bound = c if variant == "recursive" else l
    hist = d.per_class_histogram.model_dump()
    if variant != "distinct":
        # rebin the per-class figures so that the bound is a bin edge (no bin holds passing and failing
        # classes); a value equal to c fails the recursive check, one equal to l passes the entropy check
        try:
            per_class, fails = per_class_figures(audit.context, p)
            if int(fails.sum()) == d.classes_failing:
                hist = rb.threshold_histogram(per_class, bound, side, variant == "recursive", lo=0.0)
        except Exception:  # no class summary at hand (e.g. a report rebuilt elsewhere): the assessor's bins
            pass
    figure = rf.value_histogram_figure(
        hist,
        bound,
        side,
        f"Diversity of {col} per class",
        axis,
        line,
        integers=variant == "distinct",
        failing_total=d.classes_failing,
        caption=f"Classes by the diversity of their {col} values; the dashed line marks the policy's bound.",
    )
    return rs.ReportSection(
        summary=summary,
        value_text=value_text,
        threshold_text=threshold_text,
        facts=rt.facts(
            ("variant", variant),
            ("classes", d.classes),
            ("classes failing", d.classes_failing),
            ("records in those classes", f"{rt.fmt(bad)} ({rt.percent(bad, n)})"),
            ("records with a missing value", d.missing_sensitive),
        ),
        figures=[figure] if figure else [],
        tables=[
            x
            for x in [
                rf.worst_classes_table(
                    check,
                    audit,
                    [("diversity", "diversity")],
                    failing=d.classes_failing,
                    what="classes that fail",
                    sensitive=True,
                )
            ]
            if x
        ],
        limitations="ignores how the values are spread in the whole table and what they mean: skewed or "
        "semantically similar values (three kinds of cancer) still leak (skewness and similarity attacks); "
        "it does not stop re-identification on its own.",
    )


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
    report_section=report_section,
    disclosure=Disclosure(sensitive=lambda p: [p.sensitive]),
)


@hookimpl
def privaudit_assessors():
    return [ASSESSOR]
