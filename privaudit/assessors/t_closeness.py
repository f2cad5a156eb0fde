"""t_closeness: each class's sensitive distribution must be within t of the whole table's (EMD).

value = max over classes of the Earth Mover's Distance (see :mod:`privaudit.risk.emd`); pass iff value <= t.
Ground distance ``auto``: numeric and ordinal -> ordered over the table's sorted distinct values;
nominal with a hierarchy -> hierarchical; nominal without -> equal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Literal

from pydantic import Field

from privaudit.common.numbers import fmt
from privaudit.plugin.assessor import Assessor, ClassRule, Details, Disclosure, Measurement, Params
from privaudit.plugin.details import Histogram, WorstClass
from privaudit.plugin.helpers import check_sensitive, exceeds, value_histogram
from privaudit.plugin.hookspecs import hookimpl

if TYPE_CHECKING:  # pragma: no cover - types only
    import numpy as np


NAME = "t_closeness"


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
    from privaudit.risk import emd

    sc = ctx.summary.sensitive[column]
    q = sc.total / max(sc.total.sum(), 1)
    if distance == "ordered":
        return emd.emd_ordered(sc.counts, q, sc.class_totals)
    if distance == "equal":
        return emd.emd_equal(sc.counts, q, sc.class_totals)
    paths = ctx.policy.hierarchies[column].leaf_ancestors(list(sc.values))
    return emd.emd_hierarchical(sc.counts, q, paths, sc.class_totals)


def violations(ctx, params: TClosenessParams) -> np.ndarray:
    import numpy as np

    from privaudit.risk import emd

    per_class = per_class_emd(ctx, params.sensitive, emd.ground_distance(params.sensitive, ctx.policy, params.distance))
    return ~np.isnan(per_class) & (exceeds(per_class, params.t))


def run(ctx, params: TClosenessParams) -> Measurement:
    import numpy as np

    from privaudit.risk import emd

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


ASSESSOR = Assessor(
    name=NAME,
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
    disclosure=Disclosure(sensitive=lambda p: [p.sensitive]),
)


@hookimpl
def privaudit_assessors():
    return [ASSESSOR]
