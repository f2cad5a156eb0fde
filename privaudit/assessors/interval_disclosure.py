"""interval_disclosure: how often an intruder's interval around a released value holds the original.

Needs the original table (``--original``). value = share of records disclosed on every listed attribute
(sdcMicro's convention; see :mod:`privaudit.risk.interval` for the rank and sd intervals);
pass iff value <= ``max_rate``. details: ``per_attribute`` shares, ``disclosed_records``.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from privaudit.common.numbers import fmt
from privaudit.plugin.assessor import Assessor, Details, Measurement, Params
from privaudit.plugin.hookspecs import hookimpl


class IntervalDisclosureParams(Params):
    better: ClassVar[str] = "lower"  # which way the value improves (privaudit diff)
    attributes: list[str] | None = Field(
        default=None, description="Numeric columns (default: every numeric quasi-identifier and sensitive column)."
    )
    method: Literal["rank", "sd"] = "rank"
    p: float = Field(default=10.0, gt=0, le=100, description="Interval width parameter, in percent.")
    sd_of: Literal["original", "released"] = "original"
    max_misses: int = Field(default=0, ge=0, description="Attributes a record may miss and still count.")
    max_rate: float = Field(default=0.0, ge=0, le=1, description="Largest allowed share of disclosed records.")


class IntervalDisclosureDetails(Details):
    """What an interval_disclosure check's details hold (``half_width_ranks`` for the rank method)."""

    attributes: list[str]
    method: Literal["rank", "sd"]
    p: float
    sd_of: Literal["original", "released"] | None
    records: int
    disclosed_records: int
    per_attribute: dict[str, float]
    half_width_ranks: dict[str, int] | None = None


def attributes_of(params: IntervalDisclosureParams, policy) -> list[str]:
    if params.attributes:
        return list(params.attributes)
    return [
        c
        for c, spec in policy.columns.items()
        if spec.type == "numeric" and spec.role in ("quasi_identifier", "sensitive")
    ]


def validate(params: IntervalDisclosureParams, policy) -> str | None:
    names = attributes_of(params, policy)
    if not names:
        return "attributes: the policy has no numeric quasi-identifier or sensitive column"
    for name in names:
        spec = policy.columns.get(name)
        if spec is None:
            return f"attributes: {name!r} is not a column of the policy"
        if spec.type != "numeric":
            return f"attributes: column {name!r} is {spec.type}, not numeric"
    return None


def run(ctx, params: IntervalDisclosureParams) -> Measurement:
    from privaudit.risk.interval import interval_disclosure

    names = attributes_of(params, ctx.policy)
    result = interval_disclosure(
        ctx.original,
        ctx.table,
        names,
        method=params.method,
        p=params.p,
        sd_of=params.sd_of,
        max_misses=params.max_misses,
    )
    disclosed = int(result.record_disclosed.sum())
    details = {
        "attributes": names,
        "method": params.method,
        "p": params.p,
        "sd_of": params.sd_of if params.method == "sd" else None,
        "records": result.n_records,
        "disclosed_records": disclosed,
        "per_attribute": result.per_attribute,
    }
    if result.half_width_ranks:
        details["half_width_ranks"] = result.half_width_ranks
    message = (
        f"{fmt(disclosed)} of {fmt(result.n_records)} records ({result.value:.2%}) have every original "
        f"value of {', '.join(names)} inside the intruder's {params.method} interval (p={params.p:g}%)"
    )
    return Measurement(result.value, params.max_rate, result.value <= params.max_rate, message, details)


ASSESSOR = Assessor(
    name="interval_disclosure",
    params=IntervalDisclosureParams,
    details=IntervalDisclosureDetails,
    run=run,
    title="Interval disclosure",
    protects="attribute",
    measures="how often a narrow interval around a released number (income, age ...) contains the person's "
    "true value, so that an intruder learns it closely enough even though it was perturbed",
    formula="rank: the interval spans p·n/100 ranks around the released value's rank; sd: |V(x) − V'(x)| ≤ "
    "p·sd/100; value = share of records disclosed on every attribute; pass iff value ≤ max_rate",
    reference="Domingo-Ferrer & Torra, A quantitative comparison of disclosure control methods for microdata "
    "(2001); sdcMicro dRisk",
    needs=frozenset({"original", "table"}),
    validate_policy=validate,
)


@hookimpl
def privaudit_assessors():
    return [ASSESSOR]
