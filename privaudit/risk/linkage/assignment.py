"""One-to-one (global) assignment of intruder records to released records.

Because the release is a 1:1 masking of the original, each released record belongs to at most one
intruder record.  Instead of linking every record greedily to its nearest neighbour, the intruder
solves the linear assignment problem

    min  sum_i  d(b_i, r_pi(i))     over injective pi : B -> R.

We minimise the sum of distances rather than of squared distances (the Gaussian
maximum-likelihood matching): a few heavily perturbed records (e.g. with swapped categories)
then distort the others' assignments less.  On 5,000 adult records against a copy with 10 %
swapped categories the sum of distances links 52.3 % correctly, the sum of squares 50.2 %
(nearest neighbour: 50.8 %).

Identical records.  Records with the same embedding are interchangeable, and a solver would
break the ties among them arbitrarily (often in favour of the true pairing, since row ``i`` of
both tables is the same individual).  We therefore collapse both sides into *types* (distinct
vectors, with multiplicities) and solve the assignment at type level; among interchangeable
records the matching is taken as uniformly random, in expectation: an intruder record of type
``A`` whose own record is of type ``B`` is correct with probability ``f_AB / (|A| |B|)``, where
``f_AB`` is the number of ``A`` records sent to ``B`` (the analogue of the ``1/t`` tie credit of
nearest-neighbour linkage).

Solvers (all from SciPy):

* every type a single record, ``n <= dense_max`` and ``n m <= dense_cells``: exact
  Jonker-Volgenant on the dense cost matrix (:func:`scipy.optimize.linear_sum_assignment`);
* every type a single record, larger: LAPJVsp
  (:func:`scipy.sparse.csgraph.min_weight_full_bipartite_matching`) on the ``k``-nearest-neighbour
  graph;
* some multiplicity > 1: the transportation problem (supplies ``|A|``, capacities ``|B|``) on the
  dense type graph if it has at most ``lp_cells`` edges, else on the ``k``-nearest-type graph,
  solved as an LP with HiGHS (:func:`scipy.optimize.linprog`); the constraint matrix is totally
  unimodular, so vertex solutions are integral.

A kNN graph need not admit a full assignment, so every intruder type also has a private dummy
"unassigned" option costing ``2 * max(edge cost) + 1``: the problem is always feasible.
Unassigned records fall back to the caller's nearest-neighbour rule.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linear_sum_assignment, linprog
from scipy.sparse.csgraph import min_weight_full_bipartite_matching
from scipy.spatial.distance import cdist

from privaudit.common.thresholds import TIE_ATOL, TIE_RTOL

__all__ = ["AssignmentOutcome", "one_to_one", "row_types"]

DENSE_MAX = 2000
DENSE_CELLS = 4_000_000
MAX_EDGES = 5_000_000

#: ``knn(query_rows, released_rows, k) -> (distances, positions in released_rows)``
KnnFunction = Callable[[np.ndarray, np.ndarray, int], tuple[np.ndarray, np.ndarray]]


@dataclass(frozen=True)
class AssignmentOutcome:
    """Per intruder record: probability of being assigned its own record, probability of being
    left unassigned (dummy), and a representative released record it is assigned to (-1: none)."""

    p_own: np.ndarray
    p_unassigned: np.ndarray
    linked: np.ndarray


def row_types(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct rows of ``x``: (index of a representative row, type of every row, multiplicities)."""
    x = np.ascontiguousarray(x)
    if x.shape[1] == 0:
        return (
            np.zeros(min(len(x), 1), np.int64),
            np.zeros(len(x), np.int64),
            np.array([len(x)] if len(x) else [], np.int64),
        )
    rows = x.view(np.dtype((np.void, x.dtype.itemsize * x.shape[1]))).ravel()
    _, first, inverse, counts = np.unique(rows, return_index=True, return_inverse=True, return_counts=True)
    return first.astype(np.int64), inverse.ravel().astype(np.int64), counts.astype(np.int64)


def _exclusive_nearest(rows: np.ndarray, cols: np.ndarray, cost: np.ndarray, n_cols: int, rounds: int = 100):
    """Rows whose cheapest edge goes to a column no other remaining row can use.

    Such a pair is in some optimal assignment (exchange argument: the column is free for the row,
    and it is the row's cheapest option), so it is fixed and removed; removing rows frees further
    columns, hence the iteration.  Returns (fixed rows, fixed columns, mask of remaining edges)."""
    alive = np.ones(len(rows), dtype=bool)
    fixed_r, fixed_c = [], []
    for _ in range(rounds):
        r, c, w = rows[alive], cols[alive], cost[alive]
        if len(r) == 0:
            break
        users = np.bincount(c, minlength=n_cols)
        order = np.lexsort((w, r))
        first = np.ones(len(order), dtype=bool)
        first[1:] = r[order][1:] != r[order][:-1]
        best = order[first]
        take = users[c[best]] == 1
        if not take.any():
            break
        fixed_r.append(r[best[take]])
        fixed_c.append(c[best[take]])
        gone = np.zeros(int(rows.max()) + 1, dtype=bool)
        gone[r[best[take]]] = True
        alive &= ~gone[rows]
    if not fixed_r:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), alive
    return np.concatenate(fixed_r), np.concatenate(fixed_c), alive


def _assignment(cost_rows, cost_cols, cost, n_rows, n_cols):
    """Unit-capacity sparse assignment with a dummy column per row; returns (rows, cols) matched.

    Rows with an exclusive cheapest column are fixed first (:func:`_exclusive_nearest`); the
    rest goes to LAPJVsp on the columns it actually uses (its run time grows with the number of
    columns, so compacting them matters when the intruder holds a small sample)."""
    fr, fc, alive = _exclusive_nearest(cost_rows, cost_cols, cost, n_cols)
    r, c, w = cost_rows[alive], cost_cols[alive], cost[alive]
    left = np.setdiff1d(np.arange(n_rows), fr)
    if len(left) == 0:
        return fr, fc
    row_id = np.full(n_rows, -1, dtype=np.int64)
    row_id[left] = np.arange(len(left))
    used, col_id = np.unique(c, return_inverse=True)
    n_l, n_u = len(left), len(used)
    penalty = 2.0 * (float(cost.max()) if cost.size else 0.0) + 1.0
    # offset 1 keeps every weight non-zero (explicit zeros are not edges); it adds n_l to every
    # full matching and so does not change the optimum
    graph = sp.csr_array(
        (
            np.concatenate([w + 1.0, np.full(n_l, penalty + 1.0)]),
            (np.concatenate([row_id[r], np.arange(n_l)]), np.concatenate([col_id.ravel(), n_u + np.arange(n_l)])),
        ),
        shape=(n_l, n_u + n_l),
    )
    ri, ci = min_weight_full_bipartite_matching(graph)
    real = ci < n_u
    return np.concatenate([fr, left[ri[real]]]), np.concatenate([fc, used[ci[real]]])


def _transport(e_a, e_b, cost, supply, capacity):
    """Min-cost transportation with a dummy sink per source; returns (flow per edge, dummy flow)."""
    n_a, n_b, n_e = len(supply), len(capacity), len(cost)
    penalty = 2.0 * (float(cost.max()) if cost.size else 0.0) + 1.0
    # variables: edge flows (n_e) then dummy flows (n_a)
    c = np.concatenate([cost, np.full(n_a, penalty)])
    a_eq = sp.hstack(
        [sp.csr_array((np.ones(n_e), (e_a, np.arange(n_e))), shape=(n_a, n_e)), sp.eye_array(n_a, format="csr")],
        format="csr",
    )
    a_ub = sp.hstack(
        [sp.csr_array((np.ones(n_e), (e_b, np.arange(n_e))), shape=(n_b, n_e)), sp.csr_array((n_b, n_a))],
        format="csr",
    )
    res = linprog(
        c,
        A_ub=a_ub,
        b_ub=capacity.astype(float),
        A_eq=a_eq,
        b_eq=supply.astype(float),
        bounds=(0, None),
        method="highs-ds",
    )
    if res.status != 0 or res.x is None:  # pragma: no cover - feasible by construction (dummies)
        raise RuntimeError(f"transportation LP failed: {res.message}")
    x = np.clip(res.x, 0.0, None)
    return x[:n_e], x[n_e:]


def _expand(e_a, e_b, q_type, r_type, q_mult, r_mult):
    """All record pairs (i, j) with type(i) = e_a[e] and type(j) = e_b[e] for some type edge e."""
    q_order = np.argsort(q_type, kind="stable")
    r_order = np.argsort(r_type, kind="stable")
    q_start = np.concatenate([[0], np.cumsum(q_mult)])
    r_start = np.concatenate([[0], np.cumsum(r_mult)])
    a, b = q_mult[e_a], r_mult[e_b]
    sizes = a * b
    edge = np.repeat(np.arange(len(e_a)), sizes)
    t = np.arange(int(sizes.sum())) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    u, v = t // b[edge], t % b[edge]
    return q_order[q_start[e_a[edge]] + u], r_order[r_start[e_b[edge]] + v], edge


def _candidates(knn: KnnFunction, q_rows: np.ndarray, r_rows: np.ndarray, k: int, cap: int):
    """The ``k`` nearest released types of every query type, extended by all types tied with the
    ``k``-th (up to ``cap`` candidates): with discrete distances a plain top-``k`` cut drops an
    arbitrary part of a tie, often the own record."""
    k = max(1, min(k, len(r_rows)))
    cap = max(cap, k)
    dist, pos = knn(q_rows, r_rows, min(k + 1, len(r_rows)))
    out_d = np.full((len(q_rows), k), np.inf)
    out_p = np.full((len(q_rows), k), -1, dtype=np.int64)
    out_d[:, : min(k, dist.shape[1])] = dist[:, :k]
    out_p[:, : min(k, dist.shape[1])] = pos[:, :k]
    if dist.shape[1] <= k:
        return out_d, out_p
    kth = dist[:, k - 1]
    tol = kth * TIE_RTOL + TIE_ATOL  # the ties of tie_bound
    need = np.flatnonzero(dist[:, k] <= kth + tol)
    if len(need) == 0:
        return out_d, out_p
    # tied rows: re-query with a growing k until the tie ends or the cap is reached
    ext_d = np.full((len(q_rows), cap), np.inf)
    ext_p = np.full((len(q_rows), cap), -1, dtype=np.int64)
    kk = k
    while len(need) and kk < cap:
        kk = min(cap, 2 * kk)
        d, p = knn(q_rows[need], r_rows, min(kk + 1, len(r_rows)))
        keep = d[:, :kk] <= (kth[need] + tol[need])[:, None]
        ext_d[need, : min(kk, d.shape[1])] = np.where(keep, d[:, :kk], np.inf)
        ext_p[need, : min(kk, d.shape[1])] = np.where(keep, p[:, :kk], -1)
        if d.shape[1] <= kk:
            break
        need = need[d[:, kk] <= kth[need] + tol[need]]
    tied = np.isfinite(ext_d[:, 0])
    ext_d[~tied, :k], ext_p[~tied, :k] = out_d[~tied], out_p[~tied]
    return ext_d, ext_p


def one_to_one(
    query: np.ndarray,
    released: np.ndarray,
    own: np.ndarray,
    knn: KnnFunction,
    *,
    candidates: int = 10,
    max_candidates: int | None = None,
    dense_max: int = DENSE_MAX,
    dense_cells: int = DENSE_CELLS,
    max_edges: int = MAX_EDGES,
) -> AssignmentOutcome:
    """Global one-to-one linkage; see the module docstring.

    ``query`` / ``released`` are the weighted embeddings (Euclidean distance = record distance);
    ``own[i]`` the released index of intruder record ``i``; ``knn(query_rows, released_rows, k)``
    finds the ``k`` nearest among a subset of released rows (used for the sparse graphs).
    ``candidates`` nearest released types per intruder type, extended by ties with the last one up
    to ``max_candidates`` (default ``8 * candidates``), form the sparse graph.
    """
    n, m = len(query), len(released)
    if n == 0 or m == 0:
        return AssignmentOutcome(np.zeros(n), np.ones(n), np.full(n, -1, np.int64))
    q_rep, q_type, q_mult = row_types(query)
    r_rep, r_type, r_mult = row_types(released)
    n_a, n_b = len(q_rep), len(r_rep)
    if max_candidates is None:
        max_candidates = 8 * candidates

    if n <= dense_max and n * m <= dense_cells:
        rows, cols = linear_sum_assignment(cdist(query, released))
        f_a, f_b, flow = q_type[rows], r_type[cols], np.ones(len(rows))
        dummy = q_mult.astype(float) - np.bincount(f_a, minlength=n_a)
    else:
        dist, pos = _candidates(knn, q_rep, r_rep, candidates, max_candidates)
        ok = pos >= 0
        e_a = np.repeat(np.arange(n_a), ok.sum(axis=1))
        e_b = pos[ok]
        cost = dist[ok]
        if int(np.sum(q_mult[e_a] * r_mult[e_b])) <= max_edges:
            qi, rj, edge = _expand(e_a, e_b, q_type, r_type, q_mult, r_mult)
            rows, cols = _assignment(qi, rj, cost[edge], n, m)
            f_a, f_b, flow = q_type[rows], r_type[cols], np.ones(len(rows))
            dummy = q_mult.astype(float) - np.bincount(f_a, minlength=n_a)
        else:
            flow, dummy = _transport(e_a, e_b, cost, q_mult, r_mult)
            f_a, f_b = e_a, e_b

    # aggregate the flow between types: f_AB
    key = f_a.astype(np.int64) * n_b + f_b
    key, inverse = np.unique(key, return_inverse=True)
    flow_ab = np.bincount(inverse.ravel(), weights=flow, minlength=len(key))
    keep = flow_ab > 1e-9
    key, flow_ab = key[keep], flow_ab[keep]
    e_a_s, e_b_s = key // n_b, key % n_b
    # P(own) = f_AB / (|A| |B|) with A the record's type and B its own record's type
    want = q_type * n_b + r_type[own]
    pos = np.searchsorted(key, want)
    pos_c = np.minimum(pos, max(len(key) - 1, 0))
    hit = (pos < len(key)) & (key[pos_c] == want) if len(key) else np.zeros(n, bool)
    f_own = np.where(hit, flow_ab[pos_c] if len(key) else 0.0, 0.0)
    p_own = f_own / (q_mult[q_type] * r_mult[r_type[own]])
    p_unassigned = np.clip(dummy, 0.0, None)[q_type] / q_mult[q_type]
    # representative link: a record of the type receiving the largest flow from the record's type
    best = np.full(n_a, -1, dtype=np.int64)
    if len(flow_ab):
        by_flow = np.lexsort((-flow_ab, e_a_s))
        first = np.ones(len(by_flow), dtype=bool)
        first[1:] = e_a_s[by_flow][1:] != e_a_s[by_flow][:-1]
        top = by_flow[first]
        best[e_a_s[top]] = r_rep[e_b_s[top]]
    return AssignmentOutcome(p_own, p_unassigned, best[q_type])
