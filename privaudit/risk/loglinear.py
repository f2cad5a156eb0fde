"""Log-linear model risk (Skinner & Holmes 1998; Skinner & Shlomo 2008, "Assessing identification risk in
survey microdata using log-linear models", JASA 103(483), sections 2-3), as sdcMicro's ``modRisk``
(R/modRisk.R) computes it.

The key variables' cells k (combinations of their values) get sample counts f_k, weight sums and
inclusion-probability sums π_k = Σ 1/w_i. A Poisson log-linear model with the variables' main effects is
fitted to the counts of the full grid of cells (empty cells count 0), giving fitted values λ_k. Over the
cells with 0 < f_k <= ``bound`` (and not λ_k = 0), with N that number of cells and v_k = (1 - π_k) λ_k,

    τ1 = Σ_{f_k = 1} exp(-v_k) / N                 (sdcMicro's "risk measure 1": sample uniques that are
                                                    population unique)
    τ2 = Σ_{f_k = 1} (1 - exp(-v_k)) / v_k / N      (measure 2: expected correct matches of sample uniques)

Methods (sdcMicro's): ``default`` (counts ~ main effects), ``CE`` (the same with the offset
log(f_k / weights_k + 0.1), Skinner & Shlomo's clogit-free estimator), ``PML`` (the response is
round(weights_k · Σf/Σw), pseudo maximum likelihood), ``weightedLLM`` (the cell's weight sum as a further
covariate), ``IPF`` (iterative proportional fitting of the main effects; for main effects the same fit as
``default``, computed in closed form). Main effects only: sdcMicro's formulas with interactions are not
supported here.

The main-effects fits of ``default``, ``PML`` and ``IPF`` are the independence model and have a closed form
(the product of the margins), so they need only the observed cells; ``CE`` and ``weightedLLM`` are fitted by
iteratively reweighted least squares (Poisson, log link, as R's ``glm``) over the full grid, which is refused
beyond ``MAX_GRID`` cells.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

METHODS = ("default", "CE", "PML", "weightedLLM", "IPF")
MAX_GRID = 2_000_000


@dataclass(frozen=True)
class ModelRisk:
    method: str
    tau1: float
    tau2: float
    cells: int  # cells with 0 < f_k <= bound
    sample_unique_cells: int
    grid_cells: int


def _cells(frame: pd.DataFrame, variables: Sequence[str], weights: np.ndarray) -> pd.DataFrame:
    data = frame[list(variables)].astype("string").fillna("\0missing").copy()
    data["_w"] = weights
    data["_pi"] = 1.0 / weights
    return (
        data.groupby(list(variables), sort=True, dropna=False)
        .agg(counts=("_w", "size"), weights=("_w", "sum"), incl=("_pi", "sum"))
        .reset_index()
    )


def _independence(cells: pd.DataFrame, variables: Sequence[str], response: np.ndarray) -> np.ndarray:
    """Fitted values of the main-effects Poisson model: T · Π_j (margin_j / T)."""
    total = response.sum()
    fitted = np.full(len(cells), total, dtype=float)
    for v in variables:
        margin = pd.Series(response).groupby(cells[v].to_numpy()).transform("sum").to_numpy()
        fitted *= margin / total if total > 0 else 0.0
    return fitted


def _irls(x: np.ndarray, y: np.ndarray, offset: np.ndarray, tol: float = 1e-8, max_iter: int = 50) -> np.ndarray:
    """Poisson GLM with log link by iteratively reweighted least squares (R's glm.fit: start at y + 0.1,
    stop when the deviance changes by less than tol relative)."""
    mu = y + 0.1
    eta = np.log(mu)
    dev_old = np.inf
    for _ in range(max_iter):
        z = eta - offset + (y - mu) / mu
        w = mu
        xw = x * w[:, None]
        beta = np.linalg.lstsq(xw.T @ x, xw.T @ z, rcond=None)[0]
        eta = x @ beta + offset
        mu = np.exp(eta)
        with np.errstate(divide="ignore", invalid="ignore"):
            dev = 2.0 * np.sum(np.where(y > 0, y * np.log(y / mu), 0.0) - (y - mu))
        if abs(dev - dev_old) / (abs(dev) + 0.1) < tol:
            break
        dev_old = dev
    return mu


def model_risk(
    frame: pd.DataFrame,
    variables: Sequence[str],
    weights: np.ndarray | None = None,
    method: str = "default",
    bound: float = np.inf,
) -> ModelRisk:
    """τ1 and τ2 of the main-effects log-linear model of ``variables`` (see the module docstring);
    ``weights`` per record (None: 1, as sdcMicro without a weight variable)."""
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r} (one of {', '.join(METHODS)})")
    w = np.ones(len(frame)) if weights is None else np.asarray(weights, dtype=float)
    cells = _cells(frame, variables, w)
    levels = [cells[v].nunique() for v in variables]
    grid_size = int(np.prod(levels, dtype=float))
    counts = cells["counts"].to_numpy(dtype=float)
    if method in ("default", "IPF"):
        fitted = _independence(cells, variables, counts)
    elif method == "PML":
        f = counts.sum() / cells["weights"].sum()
        fitted = _independence(cells, variables, np.round(cells["weights"].to_numpy() * f))
    else:
        if grid_size > MAX_GRID:
            raise ValueError(
                f"method {method!r} fits the full grid of {grid_size:,} cells (more than "
                f"{MAX_GRID:,}): use method default, PML or IPF, or fewer variables"
            )
        fitted = _grid_fit(cells, variables, method)
    keep = (counts > 0) & (counts <= bound) & ~((fitted == 0) & (counts > 0))
    lam, pi, f_k = fitted[keep], cells["incl"].to_numpy()[keep], counts[keep]
    n = int(keep.sum())
    v = (1.0 - pi) * lam
    r1 = np.exp(-v) / n
    with np.errstate(divide="ignore", invalid="ignore"):
        r2 = np.where(v == 0, 1.0, -np.expm1(-v) / v) / n
    unique = f_k == 1
    return ModelRisk(method, float(r1[unique].sum()), float(r2[unique].sum()), n, int(unique.sum()), grid_size)


def _grid_fit(cells: pd.DataFrame, variables: Sequence[str], method: str) -> np.ndarray:
    """Fit over the full grid of cells (empty ones with count 0); fitted values of the observed cells."""
    levels = [np.sort(cells[v].unique()) for v in variables]
    grid = pd.MultiIndex.from_product(levels, names=list(variables)).to_frame(index=False)
    full = grid.merge(cells, on=list(variables), how="left").fillna({"counts": 0, "weights": 0, "incl": 0})
    y = full["counts"].to_numpy(dtype=float)
    columns = [np.ones(len(full))]
    for v, lv in zip(variables, levels, strict=False):
        codes = pd.Categorical(full[v], categories=lv).codes
        for j in range(1, len(lv)):  # treatment contrasts: the first level is the baseline
            columns.append((codes == j).astype(float))
    offset = np.zeros(len(full))
    if method == "CE":
        with np.errstate(divide="ignore", invalid="ignore"):
            ec = np.where(full["weights"].to_numpy() > 0, y / full["weights"].to_numpy(), 0.0)
        offset = np.log(ec + 0.1)
    elif method == "weightedLLM":
        columns.append(full["weights"].to_numpy(dtype=float))
    mu = _irls(np.column_stack(columns), y, offset)
    position = full.reset_index().merge(cells, on=list(variables), how="inner")["index"].to_numpy()
    return mu[position]
