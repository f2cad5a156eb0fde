"""model_risk: identification risk from a log-linear model of the key variables (sdcMicro ``modRisk``;
Skinner & Shlomo 2008), :mod:`privaudit.risk.loglinear`.

Parameters: ``method`` (default, CE, PML, weightedLLM, IPF; sdcMicro's default ``default``), ``variables``
(default: the quasi-identifiers; main effects only), ``bound`` (cells with more records are left out, as
sdcMicro's ``bound``; default none), ``measure`` (``tau1``: sample uniques that are population unique,
default; ``tau2``: expected correct matches of sample uniques), ``max_risk`` (required). The sampling weights
are the policy's ``weight`` column (1 without one, as sdcMicro). value = the chosen measure; pass iff
value <= max_risk. details: ``tau1``, ``tau2``, ``cells``, ``sample_unique_cells``, ``grid_cells``, ``method``.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from privaudit.plugin.assessor import Assessor, Details, Measurement, Params
from privaudit.plugin.helpers import exceeds
from privaudit.plugin.hookspecs import hookimpl

NAME = "model_risk"


class ModelRiskParams(Params):
    better: ClassVar[str] = "lower"  # which way the value improves (privaudit diff)
    method: Literal["default", "CE", "PML", "weightedLLM", "IPF"] = "default"
    variables: list[str] | None = Field(default=None, description="Key variables (default: the quasi-identifiers).")
    bound: float | None = Field(default=None, gt=0, description="Leave out cells with more records than this.")
    measure: Literal["tau1", "tau2"] = "tau1"
    max_risk: float = Field(ge=0, description="Largest allowed value of the measure.")


class ModelRiskDetails(Details):
    """What a model_risk check's details hold."""

    method: str
    variables: list[str]
    tau1: float | None
    tau2: float | None
    cells: int
    sample_unique_cells: int
    grid_cells: int
    bound: float | None
    weight_column: str | None


def variables_of(params: ModelRiskParams, policy) -> list[str]:
    return list(params.variables) if params.variables else list(policy.quasi_identifiers)


def validate(params: ModelRiskParams, policy) -> str | None:
    for name in params.variables or ():
        if name not in policy.columns:
            return f"variables: {name!r} is not a column of the policy"
    if not variables_of(params, policy):
        return "variables: the policy has no quasi-identifier; give variables"
    return None


def run(ctx, params: ModelRiskParams) -> Measurement:
    from privaudit.risk.loglinear import model_risk

    variables = variables_of(params, ctx.policy)
    weight = ctx.policy.columns_with("weight")
    weights = ctx.table[weight[0]].to_numpy(dtype=float) if weight else None
    r = model_risk(ctx.table, variables, weights, params.method, float("inf") if params.bound is None else params.bound)
    details = {
        "method": r.method,
        "variables": variables,
        "tau1": r.tau1,
        "tau2": r.tau2,
        "cells": r.cells,
        "sample_unique_cells": r.sample_unique_cells,
        "grid_cells": r.grid_cells,
        "bound": params.bound,
        "weight_column": weight[0] if weight else None,
    }
    value = details[params.measure]
    message = (
        f"log-linear model risk ({r.method}): τ1 {r.tau1:.4g}, τ2 {r.tau2:.4g} over {r.cells} cells with "
        f"{r.sample_unique_cells} sample uniques; {params.measure} max_risk {params.max_risk:g}"
    )
    return Measurement(value, params.max_risk, not exceeds(value, params.max_risk), message, details)


ASSESSOR = Assessor(
    name=NAME,
    params=ModelRiskParams,
    details=ModelRiskDetails,
    run=run,
    title="Log-linear model risk",
    protects="identity",
    measures="the identification risk of sample uniques estimated by a log-linear model of the key variables",
    formula="λ_k fitted by a Poisson main-effects model of the cell counts; v_k = (1 - π_k) λ_k with π_k the cell's "
    "summed inclusion probabilities; τ1 = Σ_{f_k=1} exp(-v_k) / N, τ2 = Σ_{f_k=1} (1 - exp(-v_k))/v_k / N over "
    "the N cells with 0 < f_k <= bound",
    reference="C. Skinner & N. Shlomo, JASA 103(483), 2008, sections 2-3; sdcMicro modRisk (Templ, Kowarik & Meindl)",
    needs=frozenset({"table"}),
    validate_policy=validate,
)


@hookimpl
def privaudit_assessors():
    return [ASSESSOR]
