"""Attribute weights of the maximum-knowledge intruder (Abril, Navarro-Arribas and Torra 2012).

The intruder knows the original, the release and which records correspond, and picks the weights
``w`` of the weighted-mean distance ``d_w(x, y)^2 = sum_a w_a d_a(x_a, y_a)^2`` that maximise the
number of correct links.  Abril et al. (Information Fusion 13, 2012) write this as a mixed-integer
programme: minimise ``sum_i K_i`` subject to, for every intruder record ``i`` and every competing
released record ``j != i``,

    d_w(b_i, r_j)^2 - d_w(b_i, r_i)^2 + C K_i >= eps,   K_i in {0, 1},
    sum_a w_a = 1,  w_a >= 0.

We solve its LP relaxation with HiGHS (:func:`scipy.optimize.linprog`).  With ``K_i`` relaxed
to ``[0, 1]`` the term ``C K_i`` is a slack ``xi_i >= 0``, so the LP is

    min  sum_i xi_i
    s.t. sum_a w_a [d_a(b_i, r_j)^2 - d_a(b_i, r_i)^2] + xi_i >= margin     for (i, j) in P
         sum_a w_a = 1,   w >= 0,   xi >= 0

(a hinge loss; the margin plays the role of ``eps``).  The relaxation is weak where it matters:
a tie costs only ``margin`` while a wrong link costs ``margin`` plus its violation, so when some
attribute is released unperturbed the LP likes to put all weight on it - the own record then ties
with every competitor sharing its value (a rate near 0 in practice).  Each round therefore also
solves a smooth convex companion over the same constraint set, the softmax likelihood of the own
record against its competitors (:func:`solve_weight_logistic`, as in neighbourhood components
analysis), in which a tie costs ``log 2`` whatever the scale.

Constraints are generated only for a few competitors per record - the ``k`` nearest under the
weights tried last (first round: the caller's weights) - and the procedure iterates: re-query the
competitors under every new candidate, add their constraints, re-solve (a cutting-plane scheme).
The margin is ``margin_scale`` x the median positive gap under the starting weights.  Every
candidate is scored by its nearest-neighbour rate (tie credit) on the training sample and the
best is returned: the maximum-knowledge intruder knows the true links, so it can score its
candidates.  The starting weights themselves are not a candidate, so the learned rate can fall
below the plain one; :attr:`DistanceLinkageResult.max_rate` takes the larger.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog, minimize

from privaudit.risk.linkage.encoding import EncodedPair

__all__ = [
    "WorstCaseFit",
    "group_sq_distances",
    "learn_worst_case_weights",
    "solve_weight_logistic",
    "solve_weight_lp",
]


@dataclass(frozen=True)
class WorstCaseFit:
    """Learned weights (sum 1, one per group of the encoded pair) and their training rate."""

    weights: np.ndarray
    train_rate: float
    rounds: int
    constraints: int


def group_sq_distances(pair: EncodedPair, qi: np.ndarray, rj: np.ndarray, chunk: int = 200_000) -> np.ndarray:
    """Unit squared distance of every group between query rows ``qi`` and released rows ``rj``."""
    starts = np.asarray([a for a, _ in pair.columns], dtype=np.int64)
    out = np.empty((len(qi), len(pair.columns)))
    for s in range(0, len(qi), chunk):
        diff = pair.query[qi[s : s + chunk]] - pair.released[rj[s : s + chunk]]
        out[s : s + chunk] = np.add.reduceat(diff * diff, starts, axis=1)
    return out


def solve_weight_lp(gaps: np.ndarray, record: np.ndarray, n_records: int, margin: float) -> np.ndarray:
    """Solve the hinge LP above; ``gaps[p]`` = per-group ``d_a(i, j)^2 - d_a(i, own)^2`` of pair ``p``
    whose intruder record is ``record[p]`` (``0 .. n_records-1``).  Returns weights summing to 1."""
    n_pairs, n_groups = gaps.shape
    # variables: w (n_groups), xi (n_records);  -gaps w - xi <= -margin
    a_w = sp.csr_array(-gaps)
    a_xi = sp.csr_array((-np.ones(n_pairs), (np.arange(n_pairs), record)), shape=(n_pairs, n_records))
    a_ub = sp.hstack([a_w, a_xi], format="csr")
    b_ub = np.full(n_pairs, -margin)
    a_eq = sp.csr_array(np.concatenate([np.ones(n_groups), np.zeros(n_records)])[None, :])
    c = np.concatenate([np.zeros(n_groups), np.ones(n_records)])
    bounds = [(0.0, 1.0)] * n_groups + [(0.0, None)] * n_records
    res = linprog(c, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=[1.0], bounds=bounds, method="highs")
    if res.status != 0 or res.x is None:  # pragma: no cover - the LP is always feasible and bounded
        raise RuntimeError(f"worst-case weight LP failed: {res.message}")
    w = np.clip(res.x[:n_groups], 0.0, None)
    return w / w.sum()


def solve_weight_logistic(gaps: np.ndarray, record: np.ndarray, n_records: int, start: np.ndarray) -> np.ndarray:
    """Smooth convex companion of the LP: minimise over ``v >= 0``

        sum_i log(1 + sum_{j in C_i} exp(-v . gap_ij))

    (a softmax / neighbourhood-components likelihood of the own record against its competitors).
    A tie costs ``log 2`` per tied competitor whatever the scale of ``v``, so, unlike the hinge LP,
    it cannot be satisfied cheaply by piling all weight on a noise-free attribute that ties the own
    record with its competitors.  Returns ``v / sum(v)``."""
    n_groups = gaps.shape[1]
    w0 = np.asarray(start, dtype=float) / float(np.sum(start))
    spread = float(np.median(np.abs(gaps @ w0))) or 1.0
    v0 = w0 / spread
    ridge = 1e-6 * n_records * spread * spread

    def fun(v: np.ndarray) -> tuple[float, np.ndarray]:
        s = -(gaps @ v)
        top = np.zeros(n_records)
        np.maximum.at(top, record, s)
        e = np.exp(s - top[record])
        tot = np.exp(-top) + np.bincount(record, weights=e, minlength=n_records)
        p = e / tot[record]
        val = float(np.sum(top + np.log(tot))) + ridge * float(v @ v)
        return val, -(gaps * p[:, None]).sum(axis=0) + 2.0 * ridge * v

    res = minimize(fun, v0, jac=True, method="L-BFGS-B", bounds=[(0.0, None)] * n_groups)
    v = np.clip(res.x, 0.0, None)
    return v / v.sum() if v.sum() > 0 else w0


def learn_worst_case_weights(
    pair: EncodedPair,
    own: np.ndarray,
    sample: np.ndarray,
    start: np.ndarray,
    link_rate: Callable[[np.ndarray, np.ndarray, int], tuple[float, np.ndarray, np.ndarray]],
    *,
    competitors: int = 5,
    rounds: int = 3,
    margin_scale: float = 0.5,
) -> WorstCaseFit:
    """Cutting-plane search for the weights; see the module docstring.

    ``own[i]`` is the released index of query row ``i``; ``sample`` the query rows used for
    training; ``start`` the starting weights.  ``link_rate(weights, rows, k)`` must return the
    nearest-neighbour rate (tie credit) of ``rows`` under ``weights`` and their ``k`` nearest
    released records (distances, indices).
    """
    if rounds < 1:
        raise ValueError("rounds must be >= 1")
    sample = np.asarray(sample, dtype=np.int64)
    n_s = len(sample)
    local = np.arange(n_s)
    own_s = own[sample]
    m = pair.released.shape[0]
    seen = np.zeros(0, dtype=np.int64)
    gap_parts: list[np.ndarray] = []
    rec_parts: list[np.ndarray] = []
    own_sq = group_sq_distances(pair, sample, own_s)
    w0 = np.asarray(start, dtype=float) / float(np.sum(start))
    _, _, idx = link_rate(w0, sample, competitors + 1)
    pending = [idx]
    margin = None
    best_w, best_rate, solved = w0, -1.0, 0
    for _ in range(rounds):
        # competitors: the k nearest other released records under the weights tried last
        idx = np.hstack(pending)
        keep = (idx >= 0) & (idx != own_s[:, None])
        rows = np.repeat(local, keep.sum(axis=1))
        cols = idx[keep]
        pair_id = rows.astype(np.int64) * m + cols
        pair_id, first = np.unique(pair_id, return_index=True)
        rows, cols = rows[first], cols[first]
        new = ~np.isin(pair_id, seen)
        if not new.any():
            break
        rows, cols = rows[new], cols[new]
        seen = np.union1d(seen, pair_id[new])
        gaps = group_sq_distances(pair, sample[rows], cols) - own_sq[rows]
        if margin is None:
            pos = gaps @ w0
            pos = pos[pos > 0]
            margin = max(margin_scale * float(np.median(pos)) if pos.size else 1e-6, 1e-12)
        gap_parts.append(gaps)
        rec_parts.append(rows)
        all_gaps, all_rec = np.vstack(gap_parts), np.concatenate(rec_parts)
        pending = []
        for w in (solve_weight_lp(all_gaps, all_rec, n_s, margin), solve_weight_logistic(all_gaps, all_rec, n_s, w0)):
            solved += 1
            rate, _, idx = link_rate(w, sample, competitors + 1)
            pending.append(idx)
            if rate > best_rate:
                best_w, best_rate = w, rate
    return WorstCaseFit(best_w, float(best_rate), solved, int(sum(len(r) for r in rec_parts)))
