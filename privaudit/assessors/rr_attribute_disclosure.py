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

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict, Field, model_validator

from privaudit.common.numbers import fmt
from privaudit.plugin.assessor import Assessor, Details, Disclosure, Measurement, Params, ResponseBound
from privaudit.plugin.details import Histogram
from privaudit.plugin.helpers import check_sensitive, exceeds
from privaudit.plugin.hookspecs import hookimpl
from privaudit.risk.randomized_response import (
    keep_probability_matrices,
    load_distortion_matrix,
    rr_attribute_disclosure,
)

if TYPE_CHECKING:  # pragma: no cover - types only: the report's modules load when a report is drawn
    from privaudit.plugin.sections import CheckEntry, ReportSection
    from privaudit.plugin.view import AuditView as AuditResult


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
    return pd.DataFrame({c: frame[c].astype(object).where(frame[c].notna(), np.nan) for c in columns})


def matrices_for(params: RRParams, policy, released: pd.DataFrame, original: pd.DataFrame | None) -> dict:
    keep = {c: s.keep_probability for c, s in params.randomized.items() if s.keep_probability is not None}
    extra = [original] if original is not None else []
    matrices: dict[str, Any] = keep_probability_matrices(released, keep, *extra) if keep else {}
    for column, spec in params.randomized.items():
        if spec.matrix is not None:
            path = policy.resolve_path(spec.matrix, f"randomized.{column}.matrix")
            matrices[column] = load_distortion_matrix(path)
    return matrices


def run(ctx, params: RRParams) -> Measurement:
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


def report_section(check: CheckEntry[RRParams, RRDetails], audit: AuditResult) -> ReportSection:
    """The report section of an rr_attribute_disclosure check: how well an intruder who knows the published
    randomization reconstructs a person's sensitive value, the records' risk histogram against max_risk and
    the keep probabilities."""
    from privaudit.plugin import figures as rf
    from privaudit.plugin import sections as rs
    from privaudit.plugin import text as rt

    d = check.details
    s, qi, limit, value = d.sensitive, list(d.qi), float(check.params.max_risk), float(check.value)
    hist = d.risk_histogram
    records = int(sum(hist.counts) + hist.infinite) if hist else 0
    above = int(round((d.share_above or 0.0) * records))
    know = rt.qi_phrase(qi)
    if above:
        summary = (
            f"{rt.people(above)} ({rt.percent(above, records)}) can have their {s} guessed right with a "
            f"probability above {rt.fmt(limit)} by an intruder who knows {know} and the published "
            f"randomization; at worst {rt.fmt(value, 3)}."
        )
    else:
        summary = (
            f"Nobody's {s} can be guessed right with a probability above {rt.fmt(limit)} by an intruder who "
            f"knows {know} and the published randomization; the highest is {rt.fmt(value, 3)}."
        )
    keep, files = d.keep_probabilities or {}, d.matrix_files or {}
    randomized = any(v is not None for v in keep.values()) or any(files.values())
    meaning = (
        "the randomization blurs the released values, but the intruder undoes part of it with the "
        "published matrices (Guo, Ying & Wu's reconstruction probability)."
        if randomized
        else f"nothing is randomized, so this is the share of {s} values in the person's group (the l-diversity risk)."
    )
    paragraphs = [
        f"A risk of {rt.fmt(value, 2)} means that such a guess is right about {rt.fmt(round(100 * value))} times "
        f"in 100: {meaning}",
        "The joint distribution of the original values is "
        + (
            "taken from the original table (what the auditor knows; the worst case)."
            if d.joint_from == "original"
            else "estimated from the release by inverting the randomization (π̂ = P⁻¹λ; negative cells are set to 0 "
            "and the rest renormalised)."
        )
        + f" Records are placed by their {('released' if d.records_mapped_to is None else d.records_mapped_to)} values.",
    ]
    rows = []
    for column in [*qi, s]:
        role = "sensitive" if column == s else "quasi-identifier"
        if files.get(column):
            rows.append([column, role, "published matrix", files[column]])
        elif keep.get(column) is not None:
            rows.append(
                [
                    column,
                    role,
                    rt.fmt(keep[column], 4),
                    f"kept with probability {rt.fmt(keep[column], 4)}, else replaced by another value at random",
                ]
            )
        else:
            rows.append([column, role, "1", "not randomized"])
    table = rs.DataTable(
        ["column", "role", "keep probability", "randomization"],
        rows,
        caption="Published randomization per column",
        numeric=frozenset({2}),
        kind="details",
        widths=("18%", "19%", "15%"),
    )
    figures = []
    if hist:
        figure = rf.value_histogram_figure(
            hist.model_dump(),
            limit,
            "above",
            f"Risk of reconstructing {s}",
            f"Pr({s} | quasi-identifiers) of the record's cell",
            f"max_risk = {rt.fmt(limit)}",
            y_label="records",
            failing_total=above,
            caption=f"Records by the probability that an intruder reconstructs their {s}; the dashed line marks "
            f"max_risk.",
        )
        if figure:
            figures.append(figure)
    cell = d.riskiest_cell or {}
    return rs.ReportSection(
        summary=summary,
        value_text=rt.fmt(value),
        threshold_text=f"risk ≤ {rt.fmt(limit)}",
        paragraphs=paragraphs,
        facts=rt.facts(
            ("records", records),
            ("records above max_risk", f"{rt.fmt(above)} ({rt.percent(above, records)})"),
            ("riskiest cell", ", ".join(f"{k} = {v}" for k, v in cell.items()) or None),
            ("cells of the contingency table", d.cells),
            ("joint distribution", d.joint_from),
        ),
        figures=figures,
        tables=[table],
        limitations="assumes the intruder knows only the quasi-identifiers and the published matrices; it bounds "
        "the guess of one sensitive value, not re-identification, and an estimated joint can under- or overstate "
        "the risk on small tables.",
    )


ASSESSOR = Assessor(
    name="rr_attribute_disclosure",
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
    report_section=report_section,
    disclosure=Disclosure(sensitive=lambda p: [p.sensitive]),
)


@hookimpl
def privaudit_assessors():
    return [ASSESSOR]
