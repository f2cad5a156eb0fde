"""utility: a gate on one utility figure -- the release must keep at least ``min`` of what a measure of
:mod:`privaudit.utility` measures (``{assessor: utility, measure: granularity, min: 0.6}``).

value = the measure's ``value`` (ARX's quality scale: 1 nothing lost, 0 everything lost), over all
quasi-identifiers or, with ``column``, that column's; pass iff value >= ``min``. Default severity warning
(a release can be safe and still poor: the officer decides). The figure is the audit's own utility entry,
computed once and shared with the report's Utility chapter. A measure that needs ``--original`` (for its
value: AECS and discernibility are normalised by the original's own figure) is refused without it, before
any work. A measure that cannot be computed on this input (no numeric column, a value not in the
hierarchy) ends the check in ``error``, never in a pass.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import ConfigDict, Field, field_validator

from privaudit.plugin.assessor import Assessor, Measurement, Params
from privaudit.plugin.assessor import Details as ApiDetails
from privaudit.plugin.helpers import reaches
from privaudit.plugin.hookspecs import hookimpl

NAME = "utility"


class UtilityParams(Params):
    DEFAULT_SEVERITY: ClassVar[str] = "warning"

    measure: str = Field(
        description="A utility measure (privaudit.utility.MEASURES), e.g. granularity.",
        json_schema_extra=lambda schema: schema.update(enum=_available()),
    )
    min: float = Field(ge=0, le=1, description="The least value (1 = nothing lost) the release must keep.")
    column: str | None = Field(
        default=None,
        description="A quasi-identifier (or numeric column) whose own figure "
        "is gated; absent: the figure over all columns.",
    )

    @field_validator("measure")
    @classmethod
    def _known(cls, v: str) -> str:
        from privaudit.utility import available

        if v not in available():
            raise ValueError(f"unknown utility measure {v!r} (available: {', '.join(available())})")
        return v

    def utility_measures(self) -> list[str]:
        """The utility measures this check reads (computed by the audit even when ``utility:`` omits them)."""
        return [self.measure]


def _available() -> list[str]:
    from privaudit.utility import available

    return available()


class Details(ApiDetails):
    """What a utility check's ``details`` hold."""

    model_config = ConfigDict(extra="forbid")
    measure: str
    column: str | None
    raw: float | None
    figures: dict[str, Any]


def validate(params: UtilityParams, policy) -> str | None:
    if params.column is not None and params.column not in policy.columns:
        return f"column {params.column!r} is not a column of the policy"
    return None


def run(ctx, params: UtilityParams) -> Measurement:
    found = [e for e in ctx.utility if e["measure"] == params.measure and e["column"] == params.column]
    where = f" of column {params.column!r}" if params.column else ""
    if not found:
        raise ValueError(
            f"utility measure {params.measure!r} gave no figure{where} (is the column a "
            "quasi-identifier or a numeric column?)"
        )
    e = found[0]
    if e["value"] is None:
        why = e["details"].get("reason") or e["details"].get("error") or "no value"
        raise ValueError(f"utility measure {params.measure!r}{where} has no value: {why}")
    value = float(e["value"])
    passed = bool(reaches(value, params.min))
    details = Details(measure=params.measure, column=params.column, raw=e["raw"], figures=dict(e["details"]))
    message = (
        f"{params.measure}{where}: the release keeps {value:.1%} (ARX's quality scale, 1 = nothing lost); "
        f"at least {params.min:.1%} required"
    )
    return Measurement(value, params.min, passed, message, details.model_dump())


ASSESSOR = Assessor(
    name=NAME,
    params=UtilityParams,
    run=run,
    title="Utility gate",
    protects="attribute",
    measures="how much of the original's detail the release keeps, on one utility measure (ARX's quality scale)",
    formula="value = 1 - (result - minimum) / (maximum - minimum), as ARX's quality models normalise it",
    reference="Prasser et al., ARX 3.9 org.deidentifier.arx.aggregates.quality; Templ, Statistical Disclosure "
    "Control for Microdata (Springer, 2017), ch. 7 (sdcMicro's dUtility)",
    validate_policy=validate,
    details=Details,
)


@hookimpl
def privaudit_assessors():
    return [ASSESSOR]
