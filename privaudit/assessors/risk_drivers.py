"""risk_drivers: which quasi-identifiers drive the re-identification risk (sdcMicro issues 71 and 84 ask for
it; the idea of sdcMicro's "contribution of a variable" for SUDA, applied to the class summary).

For each quasi-identifier q, the classes are recounted (a) without q and (b) with q generalized one level
up its hierarchy (when the policy gives one), and the drop is reported in sample uniques (records alone in
their class) and in the average re-identification risk (the mean of 1/f_k over records: classes / records,
the prosecutor's success rate). The recount regroups the shared class summary's classes (their
quasi-identifier values and sizes) on the remaining values: no pass over the records, on every engine.
Classes are counted with missing values as values of their own (``missing_qi: value``).

Informational: the check passes unless ``max_share`` is given (then value = the share of sample uniques of
the release, pass iff <= max_share, as ``uniqueness``). value = the largest drop in sample uniques (records)
from removing one quasi-identifier, when no threshold is given. details: ``baseline`` {sample_uniques,
average_risk}, ``drivers`` [{column, removed: {sample_uniques, average_risk, drop_uniques, drop_risk},
generalized: {...} or null}], ordered by the drop when removed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from pydantic import Field

from privaudit.plugin.assessor import Assessor, Details, Measurement, Params
from privaudit.plugin.helpers import exceeds
from privaudit.plugin.hookspecs import hookimpl

if TYPE_CHECKING:  # pragma: no cover - types only
    import pandas as pd


NAME = "risk_drivers"


class RiskDriversParams(Params):
    better: ClassVar[str] = "lower"  # which way the value improves (privaudit diff)
    max_share: float | None = Field(
        default=None,
        ge=0,
        le=1,
        description="Largest allowed share of sample uniques (default: informational, always passes).",
    )


class DriverFigures(Details):
    sample_uniques: int
    average_risk: float
    drop_uniques: int
    drop_risk: float


class Driver(Details):
    column: str
    removed: DriverFigures
    generalized: DriverFigures | None


class Baseline(Details):
    sample_uniques: int
    average_risk: float
    records: int


class RiskDriversDetails(Details):
    """What a risk_drivers check's details hold: the drivers, largest drop first."""

    baseline: Baseline
    drivers: list[Driver]


def _figures(groups: pd.DataFrame, columns: list[str], n: int) -> tuple[int, float]:
    import numpy as np

    if columns:
        sizes = groups.groupby(columns, sort=False, dropna=False, observed=True)["f"].sum().to_numpy()
    else:
        sizes = np.array([n])
    return int(sizes[sizes == 1].sum()), len(sizes) / n


def _as_labels(values: pd.Series) -> pd.Series:
    """Hierarchy lookups use the file's text: whole numbers without a decimal point."""
    import pandas as pd

    if pd.api.types.is_float_dtype(values.dtype):
        whole = values.dropna()
        if len(whole) and (whole == whole.round()).all():
            return values.astype("Int64").astype("string")
    return values.astype("string")


def run(ctx, params: RiskDriversParams) -> Measurement:
    import numpy as np

    s = ctx.summary
    qi = list(ctx.policy.quasi_identifiers)
    n = int(s.n_records)
    groups = s.representatives(np.arange(s.n_classes), qi)
    groups["f"] = np.asarray(s.sizes)
    base_uniques, base_risk = _figures(groups, qi, n)
    drivers = []
    for q in qi:
        rest = [c for c in qi if c != q]
        uniques, risk = _figures(groups, rest, n)
        entry = {
            "column": q,
            "removed": {
                "sample_uniques": uniques,
                "average_risk": risk,
                "drop_uniques": base_uniques - uniques,
                "drop_risk": base_risk - risk,
            },
            "generalized": None,
        }
        hierarchy = ctx.policy.hierarchies.get(q)
        if hierarchy is not None and hierarchy.height >= 1:
            up = groups.copy()
            mapped = hierarchy.generalize(_as_labels(up[q]).astype(object), 1)
            up[q] = mapped.fillna(_as_labels(up[q])).to_numpy()  # values outside the tree stay as they are
            g_uniques, g_risk = _figures(up, qi, n)
            entry["generalized"] = {
                "sample_uniques": g_uniques,
                "average_risk": g_risk,
                "drop_uniques": base_uniques - g_uniques,
                "drop_risk": base_risk - g_risk,
            }
        drivers.append(entry)
    drivers.sort(key=lambda d: (-d["removed"]["drop_uniques"], -d["removed"]["drop_risk"]))
    details = {
        "baseline": {"sample_uniques": base_uniques, "average_risk": base_risk, "records": n},
        "drivers": drivers,
    }
    top = drivers[0] if drivers else None
    lead = (
        f"removing {top['column']!r} removes {top['removed']['drop_uniques']} of {base_uniques} sample uniques"
        if top
        else "no quasi-identifier"
    )
    if params.max_share is None:
        value = top["removed"]["drop_uniques"] if top else 0
        return Measurement(value, None, True, f"{lead} (informational)", details)
    share = base_uniques / n
    return Measurement(
        share,
        params.max_share,
        not exceeds(share, params.max_share),
        f"{share:.2%} sample uniques (max_share {params.max_share:g}); {lead}",
        details,
    )


ASSESSOR = Assessor(
    name=NAME,
    params=RiskDriversParams,
    details=RiskDriversDetails,
    run=run,
    title="Risk drivers",
    protects="identity",
    measures="how much each quasi-identifier contributes to the sample uniques and the average risk",
    formula="for each QI q: sample uniques and classes/records of the release with q left out, and with q "
    "generalized one hierarchy level; drop = baseline - changed",
    reference="sdcMicro issues 71 and 84 (github.com/sdcTools/sdcMicro); Templ, Statistical Disclosure Control for "
    "Microdata, Springer 2017, section 3.5",
    validate_policy=None,
    concurrent=True,
)


@hookimpl
def privaudit_assessors():
    return [ASSESSOR]
