"""Choosing randomized-response keep probabilities under an attribute-disclosure bound.

Following Guo, Ying & Wu (JCSE 5(3), 2011), the data owner randomizes some categorical QIs and/or
the sensitive attribute S (RR-QI, RR-S, RR-Both) with keep-probability matrices (p_i on the
diagonal, q_i = (1-p_i)/(d_i-1) elsewhere) and picks the p_i that lose least utility while the
linking-attack risk of :func:`privaudit.risk.randomized_response.rr_risk_table`, evaluated on
the *original* joint pi (the owner has it), stays <= ``max_risk`` in every cell:

    minimise   prod_i ||P_i^{-1}||_F^2      subject to   max_cells risk(p) <= max_risk,   1/d_i < p_i <= 1.

Utility loss. P_i = q J + (p - q) I is symmetric with eigenvalues 1 (once) and
p - q = (d p - 1)/(d - 1) (d - 1 times), so ||P_i^{-1}||_F^2 = 1 + (d-1)^3 / (d p - 1)^2 (equal to d
at p = 1, infinite at p = 1/d). Columns not randomized are not part of the product.

Optimisation. With p_i = 1/d_i + (1 - 1/d_i) x_i, x_i in (0, 1], the loss is
prod_i (1 + (d_i - 1)/x_i^2); its log is minimised by SLSQP with one inequality constraint per
populated cell (max_risk - risk_cell(x) >= 0, one-sided finite-difference Jacobian; only a working
set of nearly binding cells is passed, grown by cutting planes until the full table satisfies
the bound) from several starts: the largest feasible point on the diagonal x_i = t and on each axis (found by bisection)
plus seeded random points. Each end point is pulled back onto the feasible set along the segment
to a known feasible point if SLSQP stops slightly outside, and the feasible point with least loss
is returned. x_i is kept >= 1e-3 so that every P_i stays invertible.

Reconstruction error. For the inversion estimator pi_hat = P^{-1} lambda_hat with multinomial
lambda_hat, Cov(lambda_hat) = (diag(lambda) - lambda lambda^T) / n, hence

    trace Cov(pi_hat) = ( sum_j lambda_j ||P^{-1} e_j||^2  -  ||pi||^2 ) / n        (P^{-1} lambda = pi),

and the squared column norms of P^{-1} = ⊗ P_i^{-1} are the outer product of the per-factor
squared column norms, so no Kronecker product is formed (cost O(prod d_i)). This is the expected
squared error of the unclipped estimator over the QI x S table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from privaudit.risk.randomized_response import (
    MAX_CELLS,
    _counts,
    _domain,
    _encode,
    apply_kronecker,
    distortion_matrix_keep,
)

__all__ = [
    "RRSelection",
    "inverse_frobenius_sq",
    "reconstruction_error",
    "select_keep_probabilities",
    "utility_loss",
]

_X_MIN = 1e-3  # lower bound on x = (d p - 1)/(d - 1): keeps P invertible, loss finite
_FD_STEP = 1e-7


def inverse_frobenius_sq(d: int, p: float) -> float:
    """||P^{-1}||_F^2 = 1 + (d-1)^3 / (d p - 1)^2 for the d x d keep-probability matrix (inf at p = 1/d)."""
    if d <= 1:
        return 1.0
    den = (d * p - 1.0) ** 2
    return float("inf") if den == 0 else 1.0 + (d - 1) ** 3 / den


def utility_loss(dims: Sequence[int], keeps: Sequence[float]) -> float:
    """prod_i ||P_i^{-1}||_F^2 over the randomized columns (domain sizes ``dims``, keep probabilities ``keeps``)."""
    return float(np.prod([inverse_frobenius_sq(d, p) for d, p in zip(dims, keeps, strict=False)]))


def reconstruction_error(pi: np.ndarray, factors: Sequence[np.ndarray | None], n: int) -> float:
    """Trace of Cov(P^{-1} lambda_hat) for n multinomial records, lambda = P pi (see module docstring)."""
    pi = np.asarray(pi, dtype=np.float64)
    if n <= 0:
        return float("nan")
    lam = apply_kronecker(factors, pi)
    weighted = lam
    for axis, f in enumerate(factors):
        if f is None:
            continue  # identity: every column has norm 1
        col_sq = (np.linalg.inv(f) ** 2).sum(axis=0)
        shape = [1] * pi.ndim
        shape[axis] = col_sq.size
        weighted = weighted * col_sq.reshape(shape)
    return float((weighted.sum() - np.sum(pi * pi)) / n)


@dataclass(frozen=True)
class RRSelection:
    """Outcome of :func:`select_keep_probabilities`.

    keep_probabilities: p per randomized column (1.0 = not randomized).  matrices: ``{column:
    (labels, P)}`` ready for :func:`~privaudit.risk.randomized_response.randomize`.
    achieved_risk / initial_risk: max cell risk with the chosen p / with no randomization.
    utility_loss: prod ||P_i^{-1}||_F^2 over ``randomize_columns``.  utility_loss_full: ||P^{-1}||_F^2
    of the whole QI x S distortion (unrandomized columns add a factor d_i = ||I||_F^2), comparable
    across RR-QI / RR-S / RR-Both choices.  reconstruction_error: trace Cov(pi_hat) for n records.
    feasible: False when even the strongest allowed randomization leaves risk above ``max_risk``
    (the returned p are then the strongest randomization allowed, x_i = 1e-3).
    """

    keep_probabilities: dict[str, float]
    matrices: dict[str, tuple[list[Any], np.ndarray]]
    achieved_risk: float
    initial_risk: float
    max_risk: float
    utility_loss: float
    utility_loss_full: float
    reconstruction_error: float
    feasible: bool
    n_records: int


class _Problem:
    """Risk and loss as functions of x (one entry per randomized column with d >= 2).

    Risk is evaluated only on populated cells (pi_{alpha u} > 0), optionally on a subset of them:
    eta_QI needs the whole QI marginal (using the keep-matrix structure, see :meth:`eta_qi`), eta_S
    only the rows of the QI groups asked for. ``rr_risk_table`` gives the same numbers (tested).
    """

    def __init__(self, pi: np.ndarray, axes: list[int], dims: list[int], max_risk: float):
        self.ndim, self.axes, self.dims, self.max_risk = pi.ndim, axes, np.asarray(dims, float), max_risk
        self.s_axis = pi.ndim - 1
        self.pi2 = pi.reshape(-1, pi.shape[-1])
        pa = self.pi2.sum(axis=1)
        self.pa_table = pa.reshape(pi.shape[:-1])
        self.a_idx, self.u_idx = np.nonzero(self.pi2 > 0)
        self.cond = self.pi2[self.a_idx, self.u_idx] / pa[self.a_idx]
        self.n_cells = self.cond.size
        self.qi_randomized = any(ax != self.s_axis for ax in axes)
        self.s_randomized = self.s_axis in axes

    def keeps(self, x: np.ndarray) -> np.ndarray:
        x = np.clip(x, _X_MIN * 0.5, 1.0)
        return np.where(x >= 1.0, 1.0, np.minimum(1.0 / self.dims + (1.0 - 1.0 / self.dims) * x, 1.0))

    def factors(self, x: np.ndarray) -> list[np.ndarray | None]:
        out: list[np.ndarray | None] = [None] * self.ndim
        for axis, d, p in zip(self.axes, self.dims, self.keeps(x), strict=False):
            out[axis] = distortion_matrix_keep(int(d), float(p))
        return out

    def eta_qi(self, x: np.ndarray) -> np.ndarray:
        """Lemma 1 on the QI marginal for keep-probability matrices, in O(k * prod d) operations.

        P_i = q_i J + (p_i - q_i) I, so along axis i, P_i y = q_i * (sum of y along i) + (p_i - q_i) y,
        and P_i∘P_i = q_i^2 J + (p_i^2 - q_i^2) I likewise (both symmetric).
        """
        keeps = self.keeps(x)
        spec = [
            (ax, p, (1.0 - p) / (d - 1.0))
            for ax, d, p in zip(self.axes, self.dims, keeps, strict=False)
            if ax != self.s_axis
        ]
        lam = self.pa_table
        for ax, p, q in spec:
            lam = q * lam.sum(axis=ax, keepdims=True) + (p - q) * lam
        t = np.zeros_like(lam)
        np.divide(1.0, lam, out=t, where=lam > 0)
        for ax, p, q in spec:
            t = q * q * t.sum(axis=ax, keepdims=True) + (p * p - q * q) * t
        return (self.pa_table * t).ravel()

    def cell_risk(self, x: np.ndarray, cells: np.ndarray | None = None) -> np.ndarray:
        """eta_QI(alpha) eta_S(u | alpha) pi_{alpha u} / pi_alpha on populated cells (or the subset ``cells``)."""
        a, u, risk = self.a_idx, self.u_idx, self.cond
        if cells is not None:
            a, u, risk = a[cells], u[cells], risk[cells]
        if self.qi_randomized:
            risk = risk * self.eta_qi(x)[a]
        if self.s_randomized:
            ps = self.factors(x)[-1]
            rows, inverse = np.unique(a, return_inverse=True)
            block = self.pi2[rows]
            lam_s = block @ ps.T
            inv = np.zeros_like(lam_s)
            np.divide(1.0, lam_s, out=inv, where=lam_s > 0)
            eta_s = block * (inv @ (ps * ps))
            risk = risk * eta_s[inverse, u]
        return risk

    def max_cell_risk(self, x: np.ndarray) -> float:
        return float(self.cell_risk(x).max()) if self.n_cells else 0.0

    def feasible(self, x: np.ndarray) -> bool:
        return self.max_cell_risk(x) <= self.max_risk

    def log_loss(self, x: np.ndarray) -> float:
        return float(np.sum(np.log1p((self.dims - 1.0) / x**2)))

    def log_loss_grad(self, x: np.ndarray) -> np.ndarray:
        c = self.dims - 1.0
        return -2.0 * c / (x**3 + c * x)

    def constraint(self, x: np.ndarray, cells: np.ndarray) -> np.ndarray:
        # a relative margin of 1e-9 keeps SLSQP's end points on the feasible side
        return self.max_risk * (1.0 - 1e-9) - self.cell_risk(x, cells)

    def constraint_jac(self, x: np.ndarray, cells: np.ndarray) -> np.ndarray:
        base = self.cell_risk(x, cells)
        jac = np.empty((base.size, x.size))
        for j in range(x.size):  # one-sided step into the interior (x <= 1 is the upper bound)
            step = np.zeros_like(x)
            step[j] = -_FD_STEP
            jac[:, j] = (self.cell_risk(x + step, cells) - base) / _FD_STEP  # = -d(risk)/dx
        return jac

    def boundary_point(self, direction: np.ndarray, floor: np.ndarray) -> np.ndarray | None:
        """Largest t in [0, 1] with floor + t (direction - floor) feasible (bisection); None if floor fails."""
        if not self.feasible(floor):
            return None
        if self.feasible(direction):
            return direction
        return floor + _last_feasible(self, floor, direction) * (direction - floor)


def select_keep_probabilities(
    original: pd.DataFrame,
    qi: Sequence[str],
    sensitive: str,
    randomize_columns: Sequence[str],
    max_risk: float,
    seed: int = 0,
    n_starts: int = 6,
) -> RRSelection:
    """Keep probabilities for ``randomize_columns`` minimising prod ||P_i^{-1}||_F^2 s.t. max risk <= ``max_risk``.

    ``randomize_columns`` is a subset of ``qi + [sensitive]``; each column's domain is its sorted
    distinct non-missing values in ``original`` (records with a missing QI/S value are left out).
    ``seed`` drives the random starts; ``n_starts`` of them are added to the deterministic ones.
    """
    qi = list(qi)
    cols = qi + [sensitive]
    if sensitive in qi:
        raise ValueError("rr selection: the sensitive attribute is also listed as a QI")
    missing = [c for c in cols if c not in original.columns]
    if missing:
        raise ValueError(f"rr selection: original data lacks column(s) {missing}")
    bad = [c for c in randomize_columns if c not in cols]
    if bad:
        raise ValueError(f"rr selection: randomize column(s) {bad} are neither QI nor sensitive")
    if not (0.0 < max_risk <= 1.0):
        raise ValueError(f"rr selection: max_risk must be in (0, 1], got {max_risk!r}")

    domains = [_domain(original[c]) for c in cols]
    shape = tuple(len(d) for d in domains)
    if int(np.prod(shape, dtype=np.float64)) > MAX_CELLS:
        raise ValueError(f"rr selection: joint table {' x '.join(map(str, shape))} exceeds {MAX_CELLS} cells")
    codes = np.column_stack([_encode(original[c], d, f"column {c!r}")[0] for c, d in zip(cols, domains, strict=False)])
    counts, ok = _counts(codes, shape)
    n = int(ok.sum())
    if n == 0:
        raise ValueError("rr selection: no complete records in the QI and sensitive columns")
    pi = counts / n

    rand_cols = list(dict.fromkeys(randomize_columns))
    active = [c for c in rand_cols if shape[cols.index(c)] >= 2]
    prob = _Problem(pi, [cols.index(c) for c in active], [shape[cols.index(c)] for c in active], max_risk)
    k = len(active)
    ones = np.ones(k)
    initial_risk = prob.max_cell_risk(ones)

    if k == 0 or initial_risk <= max_risk:
        x_best, feasible = ones, initial_risk <= max_risk
    else:
        floor = np.full(k, _X_MIN)
        x_best, feasible = _optimise(prob, floor, seed, n_starts)

    keeps = prob.keeps(x_best) if k else np.zeros(0)
    keep_map = {c: 1.0 for c in rand_cols}
    keep_map.update({c: float(p) for c, p in zip(active, keeps, strict=False)})
    matrices = {
        c: (list(domains[cols.index(c)]), distortion_matrix_keep(shape[cols.index(c)], keep_map[c])) for c in rand_cols
    }
    factors = prob.factors(x_best) if k else [None] * len(cols)
    return RRSelection(
        keep_probabilities=keep_map,
        matrices=matrices,
        achieved_risk=prob.max_cell_risk(x_best) if k else initial_risk,
        initial_risk=initial_risk,
        max_risk=float(max_risk),
        utility_loss=utility_loss([shape[cols.index(c)] for c in rand_cols], [keep_map[c] for c in rand_cols]),
        utility_loss_full=utility_loss(list(shape), [keep_map.get(c, 1.0) for c in cols]),
        reconstruction_error=reconstruction_error(pi, factors, n),
        feasible=bool(feasible),
        n_records=n,
    )


def _optimise(prob: _Problem, floor: np.ndarray, seed: int, n_starts: int) -> tuple[np.ndarray, bool]:
    """Multi-start SLSQP with a growing working set of cell constraints; returns (best x, feasible).

    Only cells that are (nearly) binding somewhere enter SLSQP: those above ``max_risk`` without
    randomization or within 10 % of it at the diagonal boundary point. After each solve the full
    table is checked and violated cells are added (cutting planes), at most 8 rounds per start.
    """
    k = floor.size
    anchor = prob.boundary_point(np.ones(k), floor)  # diagonal: x_i = t
    if anchor is None:  # even the strongest randomization is too risky
        return floor, False
    starts = [anchor]
    for j in range(k):  # randomize one column only (others kept), when that suffices
        axis_dir = np.ones(k)
        axis_dir[j] = _X_MIN
        if prob.feasible(axis_dir):
            starts.append(prob.boundary_point(np.ones(k), axis_dir))
    rng = np.random.default_rng(seed)
    starts += list(rng.uniform(_X_MIN, 1.0, size=(n_starts, k)))

    working = (prob.cell_risk(np.ones(k)) > prob.max_risk) | (prob.cell_risk(anchor) >= 0.9 * prob.max_risk)
    # imported here, not at module level: scipy.optimize slows every CLI start-up
    from scipy.optimize import minimize

    bounds = [(_X_MIN, 1.0)] * k
    best_x, best_f = anchor, prob.log_loss(anchor)
    for x0 in starts:
        x = np.asarray(x0, dtype=float)
        for _ in range(8):
            cells = np.flatnonzero(working)
            cons = {"type": "ineq", "fun": prob.constraint, "jac": prob.constraint_jac, "args": (cells,)}
            res = minimize(
                prob.log_loss,
                x,
                jac=prob.log_loss_grad,
                method="SLSQP",
                bounds=bounds,
                constraints=[cons],
                options={"maxiter": 100, "ftol": 1e-12},
            )
            x = np.clip(res.x, _X_MIN, 1.0)
            violated = (prob.cell_risk(x) > prob.max_risk) & ~working
            if not violated.any():
                break
            working |= violated
        if not prob.feasible(x):  # pull back towards the feasible anchor
            x = anchor + _last_feasible(prob, anchor, x) * (x - anchor)
        f = prob.log_loss(x)
        if f < best_f - 1e-12:
            best_x, best_f = x, f
    return best_x, True


def _last_feasible(prob: _Problem, good: np.ndarray, bad: np.ndarray) -> float:
    """Largest t in [0, 1] (to 2^-32) with good + t (bad - good) feasible, good being feasible."""
    lo, hi = 0.0, 1.0
    for _ in range(32):
        mid = 0.5 * (lo + hi)
        if prob.feasible(good + mid * (bad - good)):
            lo = mid
        else:
            hi = mid
    return lo
