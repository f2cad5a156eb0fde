"""rr_attribute_disclosure: attribute disclosure of a randomized-response release (Guo, Ying & Wu 2011).

The published distortion matrices P_i (Pr(released = u | original = v)) are given per column, by a keep
probability (diagonal p, off-diagonal (1-p)/(d-1) over the column's domain as seen in the data) or by a
square CSV (labels as header and first column). The attacker's risk for a person with QI = alpha and
S = u is eta_QI(alpha) * eta_S(u | alpha) * pi_{alpha u} / pi_alpha (see
:mod:`privaudit.risk.randomized_response`); pi is the original joint when the original table is
given (``--original``, or the pre-randomization table during ``privaudit remediate``), else estimated
from the release by pi_hat = P^-1 lambda (negatives clipped, renormalised).
value = max risk over cells with pi > 0; pass iff value <= ``max_risk``.
details: ``share_above`` (records whose cell risk exceeds max_risk), ``keep_probabilities``,
``joint_from`` (original | estimated), ``riskiest_cell`` (QI values; the sensitive value only when the
policy's report shows sensitive values).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from privaudit.common.numbers import fmt
from privaudit.plugin.assessor import Assessor, Details, Disclosure, Measurement, Params, ResponseBound
from privaudit.plugin.details import Histogram
from privaudit.plugin.helpers import check_sensitive, exceeds
from privaudit.plugin.hookspecs import hookimpl

if TYPE_CHECKING:  # pragma: no cover - types only
    import pandas as pd


NAME = "rr_attribute_disclosure"


class Randomization(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    keep_probability: float | None = Field(default=None, gt=0, le=1)
    matrix: str | None = Field(default=None, description="Square CSV: labels as header and first column.")

    @model_validator(mode="after")
    def _one_of(self) -> Randomization:
        if (self.keep_probability is None) == (self.matrix is None):
            raise ValueError("give exactly one of keep_probability or matrix")
        return self


class RRParams(Params):
    better: ClassVar[str] = "lower"  # which way the value improves (privaudit diff)
    sensitive: str
    qi: list[str] | None = Field(default=None, description="Quasi-identifiers (default: all of the policy's).")
    randomized: dict[str, Randomization] = Field(default_factory=dict, description="Published distortion per column.")
    max_risk: float = Field(gt=0, le=1, description="Largest allowed Pr(S | QI), e.g. 1/l.")
    use_original: bool = Field(default=True, description="Use the original joint when the original is given.")


class RRDetails(Details):
    """What an rr_attribute_disclosure check's details hold."""

    qi: list[str]
    sensitive: str
    joint_from: Literal["estimated", "original"]
    records_mapped_to: str
    keep_probabilities: dict[str, float | None]
    matrix_files: dict[str, str]
    share_above: float
    riskiest_cell: dict[str, str]
    cells: int
    risk_histogram: Histogram | None = None


def response_bound(params: RRParams, policy) -> ResponseBound:
    """The bound this check sets, and how chosen keep probabilities are published in its ``randomized``."""
    return ResponseBound(
        params.sensitive,
        tuple(_qi(params, policy)),
        params.max_risk,
        lambda keep: {"randomized": {c: {"keep_probability": p} for c, p in keep.items()}},
    )


def _qi(params: RRParams, policy) -> list[str]:
    return list(params.qi) if params.qi else policy.quasi_identifiers


def validate(params: RRParams, policy) -> str | None:
    problem = check_sensitive(policy, [params.sensitive])
    if problem:
        return problem
    qi = _qi(params, policy)
    for name in qi:
        if name not in policy.quasi_identifiers:
            return f"qi: {name!r} is not a quasi-identifier of the policy"
    for name, spec in params.randomized.items():
        if name not in qi and name != params.sensitive:
            return f"randomized: {name!r} is neither a listed quasi-identifier nor the sensitive column"
        if policy.columns[name].type == "numeric":
            return f"randomized: column {name!r} is numeric; randomized response needs a categorical column"
        if spec.matrix is not None:
            policy.resolve_path(spec.matrix, f"randomized.{name}.matrix")
    for name in [*qi, params.sensitive]:
        if policy.columns[name].type == "numeric":
            return f"column {name!r} is numeric; this assessor works on categorical columns"
    return None


def _as_labels(frame: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """Categorical columns as plain object labels (missing = NaN), as the RR functions expect."""
    import numpy as np
    import pandas as pd

    return pd.DataFrame({c: frame[c].astype(object).where(frame[c].notna(), np.nan) for c in columns})


def matrices_for(params: RRParams, policy, released: pd.DataFrame, original: pd.DataFrame | None) -> dict:
    from privaudit.risk.randomized_response import (
        keep_probability_matrices,
        load_distortion_matrix,
    )

    keep = {c: s.keep_probability for c, s in params.randomized.items() if s.keep_probability is not None}
    extra = [original] if original is not None else []
    matrices: dict[str, Any] = keep_probability_matrices(released, keep, *extra) if keep else {}
    for column, spec in params.randomized.items():
        if spec.matrix is not None:
            path = policy.resolve_path(spec.matrix, f"randomized.{column}.matrix")
            matrices[column] = load_distortion_matrix(path)
    return matrices


def run(ctx, params: RRParams) -> Measurement:
    import numpy as np

    from privaudit.risk.randomized_response import (
        rr_attribute_disclosure,
    )

    qi = _qi(params, ctx.policy)
    columns = [*qi, params.sensitive]
    released = _as_labels(ctx.table, columns)
    original = _as_labels(ctx.original, columns) if (ctx.original is not None and params.use_original) else None
    matrices = matrices_for(params, ctx.policy, released, original)
    result = rr_attribute_disclosure(
        released, qi, params.sensitive, matrices, original=original, max_risk=params.max_risk
    )
    cell = {k: str(v) for k, v in result.argmax.items()}
    if not ctx.policy.report.show_sensitive_values:
        cell[params.sensitive] = "(hidden)"
    details = {
        "qi": qi,
        "sensitive": params.sensitive,
        "joint_from": "estimated" if result.estimated else "original",
        "records_mapped_to": result.records_mapped_to,
        "keep_probabilities": {c: s.keep_probability for c, s in params.randomized.items()},
        "matrix_files": {c: s.matrix for c, s in params.randomized.items() if s.matrix},
        "share_above": result.share_above,
        "riskiest_cell": cell,
        "cells": int(result.risk.size),
    }
    finite = result.record_risk[np.isfinite(result.record_risk)]
    if len(finite):
        counts, edges = np.histogram(finite, bins=20, range=(0.0, 1.0))
        details["risk_histogram"] = {"edges": edges.tolist(), "counts": counts.tolist(), "infinite": 0}
    message = (
        f"an intruder's best guess of {params.sensitive!r} from the quasi-identifiers is right with "
        f"probability up to {fmt(result.value)} (max_risk {params.max_risk:g}); "
        f"{(result.share_above or 0):.2%} of records are above it"
    )
    return Measurement(result.value, params.max_risk, not exceeds(result.value, params.max_risk), message, details)


ASSESSOR = Assessor(
    name=NAME,
    params=RRParams,
    details=RRDetails,
    response_bound=response_bound,
    run=run,
    title="Attribute disclosure under randomized response",
    protects="attribute",
    measures="how likely an intruder who knows a person's quasi-identifiers, and the published randomization "
    "matrices, is to reconstruct their sensitive value from a randomized release",
    formula="Pr(S_r | QI_r) = eta_QI(alpha) · eta_S(u | alpha) · pi_{alpha u} / pi_alpha with "
    "eta(mu) = sum_nu P[nu,mu]^2 pi_mu / lambda_nu; value = max over cells with pi > 0; pass iff value <= max_risk",
    reference="Guo, Ying & Wu, Limiting Attribute Disclosure in Randomization Based Microdata Release "
    "(JCSE 5(3), 2011)",
    validate_policy=validate,
    needs=frozenset({"table"}),
    disclosure=Disclosure(sensitive=lambda p: [p.sensitive]),
)


@hookimpl
def privaudit_assessors():
    return [ASSESSOR]
