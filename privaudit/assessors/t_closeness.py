"""t_closeness: each class's sensitive distribution must be within t of the whole table's (EMD).

value = max over classes of the Earth Mover's Distance (see :mod:`privaudit.risk.emd`); pass iff value <= t.
Ground distance ``auto``: numeric and ordinal -> ordered over the table's sorted distinct values;
nominal with a hierarchy -> hierarchical; nominal without -> equal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Literal

import numpy as np
from pydantic import Field

from privaudit.common.numbers import fmt
from privaudit.plugin.assessor import Assessor, ClassRule, Details, Disclosure, Measurement, Params
from privaudit.plugin.details import Histogram, WorstClass
from privaudit.plugin.helpers import check_sensitive, exceeds, value_histogram
from privaudit.plugin.hookspecs import hookimpl
from privaudit.risk import emd

if TYPE_CHECKING:  # pragma: no cover - types only: the report's modules load when a report is drawn
    from privaudit.plugin.sections import CheckEntry, ReportSection
    from privaudit.plugin.view import AuditView as AuditResult


class TClosenessParams(Params):
    better: ClassVar[str] = "lower"  # which way the value improves (privaudit diff)
    sensitive: str = Field(description="The sensitive column.")
    t: float = Field(ge=0, le=1, description="Largest allowed EMD.")
    distance: Literal["auto", "ordered", "equal", "hierarchical"] = "auto"


class TClosenessWorstClass(WorstClass):
    emd: float | None = Field(description="the class's EMD (null: the class has no sensitive value)")


class TClosenessDetails(Details):
    """What a t_closeness check's details hold."""

    distance: Literal["ordered", "equal", "hierarchical"]
    classes: int
    classes_failing: int
    records_failing: int
    classes_without_values: int
    per_class_histogram: Histogram
    worst_classes: list[TClosenessWorstClass]


def validate(params: TClosenessParams, policy) -> str | None:
    problem = check_sensitive(policy, [params.sensitive])
    if problem:
        return problem
    spec = policy.columns[params.sensitive]
    if params.distance == "hierarchical" and params.sensitive not in policy.hierarchies:
        return f"distance: 'hierarchical' needs a hierarchy for column {params.sensitive!r}"
    if params.distance == "ordered" and spec.type == "nominal":
        return f"distance: 'ordered' needs a numeric or ordinal column; {params.sensitive!r} is nominal"
    return None


def per_class_emd(ctx, column: str, distance: str) -> np.ndarray:
    sc = ctx.summary.sensitive[column]
    q = sc.total / max(sc.total.sum(), 1)
    if distance == "ordered":
        return emd.emd_ordered(sc.counts, q, sc.class_totals)
    if distance == "equal":
        return emd.emd_equal(sc.counts, q, sc.class_totals)
    paths = ctx.policy.hierarchies[column].leaf_ancestors(list(sc.values))
    return emd.emd_hierarchical(sc.counts, q, paths, sc.class_totals)


def violations(ctx, params: TClosenessParams) -> np.ndarray:
    per_class = per_class_emd(ctx, params.sensitive, emd.ground_distance(params.sensitive, ctx.policy, params.distance))
    return ~np.isnan(per_class) & (exceeds(per_class, params.t))


def run(ctx, params: TClosenessParams) -> Measurement:
    s = ctx.summary
    distance = emd.ground_distance(params.sensitive, ctx.policy, params.distance)
    per_class = per_class_emd(ctx, params.sensitive, distance)
    defined = ~np.isnan(per_class)
    value = float(per_class[defined].max()) if defined.any() else 0.0
    failing = defined & (exceeds(per_class, params.t))
    details = {
        "distance": distance,
        "classes": s.n_classes,
        "classes_failing": int(failing.sum()),
        "records_failing": int(s.sizes[failing].sum()),
        "classes_without_values": int((~defined).sum()),
        "per_class_histogram": value_histogram(per_class[defined], lo=0.0, hi=1.0),
        "worst_classes": ctx.worst_classes(
            np.where(defined, per_class, -1.0),
            failing=failing,
            sensitive=params.sensitive,
            descending=True,
            extra={"emd": np.where(defined, per_class, np.nan)},
        ),
    }
    message = (
        f"largest distance between a class's {params.sensitive!r} distribution and the table's: "
        f"{fmt(value)} ({distance} EMD; t={params.t:g})"
    )
    return Measurement(value, params.t, not exceeds(value, params.t), message, details)


def report_section(check: CheckEntry[TClosenessParams, TClosenessDetails], audit: AuditResult) -> ReportSection:
    """The report section of a t_closeness check: who is in too-distant classes, EMD chart, worst classes."""
    from privaudit.plugin import figures as rf
    from privaudit.plugin import sections as rs
    from privaudit.plugin import text as rt

    d = check.details
    col, t, n = check.params.sensitive, check.params.t, audit.table.rows
    failing = d.records_failing
    if failing:
        summary = (
            f"{rt.people(failing)} ({rt.percent(failing, n)}) {'is' if failing == 1 else 'are'} in groups whose "
            f"{col} distribution is further than t = {rt.fmt(t)} from the whole table's: finding their group "
            f"tells an intruder noticeably more about their {col} than the table as a whole does."
        )
    else:
        summary = (
            f"In every group the {col} distribution is within t = {rt.fmt(t)} of the whole table's: finding a "
            f"person's group tells an intruder little more about their {col} than the table as a whole."
        )
    figure = rf.value_histogram_figure(
        d.per_class_histogram.model_dump(),
        t,
        "above",
        f"Distance of each class's {col} from the table",
        f"earth mover's distance ({d.distance} ground distance)",
        f"t = {rt.fmt(t)}",
        caption=f"Classes by the distance between their {col} values and the whole table's; the dashed line marks t.",
        failing_total=d.classes_failing,
    )
    return rs.ReportSection(
        summary=summary,
        value_text=rt.fmt(check.value),
        threshold_text=f"t ≤ {rt.fmt(t)}",
        facts=rt.facts(
            ("ground distance", d.distance),
            ("classes", d.classes),
            ("classes further than t", d.classes_failing),
            ("records in those classes", f"{rt.fmt(failing)} ({rt.percent(failing, n)})"),
            ("classes without a value", d.classes_without_values),
        ),
        figures=[figure] if figure else [],
        tables=[
            x
            for x in [
                rf.worst_classes_table(
                    check,
                    audit,
                    [("emd", "EMD")],
                    failing=d.classes_failing,
                    what=f"classes further than t = {rt.fmt(t)}",
                    sensitive=True,
                )
            ]
            if x
        ],
        limitations="bounds what a group adds to the whole table's distribution, not what that distribution itself "
        "reveals; it does not stop re-identification on its own, and a coarse ground distance can hide semantically "
        "close values.",
    )


ASSESSOR = Assessor(
    name="t_closeness",
    params=TClosenessParams,
    details=TClosenessDetails,
    run=run,
    title="t-closeness",
    protects="attribute",
    measures="how far the sensitive values inside each group of look-alike records stray from their spread "
    "in the whole table; a large distance means finding a person's group tells an intruder much about them",
    formula="value = max over classes of EMD(P_class, Q_table) with ground distance ordered |i-j|/(m-1), "
    "equal (1), or hierarchical height(LCA)/H; pass iff value <= t",
    reference="Li, Li & Venkatasubramanian, t-Closeness: Privacy Beyond k-Anonymity and l-Diversity (ICDE 2007)",
    validate_policy=validate,
    class_violations=violations,
    class_rule=lambda params, policy: ClassRule(max_distance={params.sensitive: params.t}),
    concurrent=True,
    report_section=report_section,
    disclosure=Disclosure(sensitive=lambda p: [p.sensitive]),
)


@hookimpl
def privaudit_assessors():
    return [ASSESSOR]
