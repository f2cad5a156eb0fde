"""The exact ``k`` Gower-nearest records of targets, read off windows of a sorted numeric column instead of
a distance to every distinct record -- for searches whose columns include a continuous one.

A continuous column (hours worked, income) leaves almost every record distinct, so the search over
distinct records of :mod:`.neighbours` measures every target against nearly every record. Two facts
narrow it, both exact in floating point (a sum of non-negative terms is at least each of its terms,
rounding included):

* a record whose categorical values or numeric missingness differ from the target's is at a Gower sum of
  at least 1 (a mismatch counts 1, a missing value against a present one counts 1);
* a record's sum is at least its term on any one numeric column, ``|x - y| / range``.

So per target: the distinct records of its *group* (its categorical values and numeric missingness) are
sorted by each numeric column; the ``k`` records nearest in position on each column give an upper bound
``U`` on the ``k``-th smallest distance (measured exactly, each distinct record counting for as many of
its records as can be chosen, at most ``k``). When ``U < 1``, every record among the ``k`` nearest lies in
the group within ``U * range`` of the target on every numeric column: the window of the column where
that is fewest records (with a safety margin: a wider window only adds candidates) is measured exactly
(:func:`~.neighbours.gower_pairs`, the arithmetic of the full search, so the distances are equal floats)
and the ``k`` first by (distance, priority) are kept, as in the full search. Targets with ``U >= 1`` (a
rare group) are left to the full search. The result is the full search's, at a cost that follows the
window sizes: on the ten-column adult benchmark (``benchmarks/bench_synthetic.py --ten-columns``, age and
hours among the linkability columns) a few hundred records per target instead of every distinct record.
"""

from __future__ import annotations

import numpy as np

from privaudit.risk.synthetic_attacks.neighbours import PAIR_CHUNK, distinct_rows, gower_pairs

#: the relative and absolute slack added to a window's half-width (covers the rounding of ``|x - y| / range``)
SLACK = 1e-9


def _column_order(values: np.ndarray, group: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """The distinct records sorted by (group, value): ``(order, sorted integer keys group * radix + value
    rank, distinct values, radix)``."""
    distinct = np.unique(values[~np.isnan(values)])
    radix = len(distinct) + 1  # missing values: the last rank
    key = group.astype(np.int64) * radix + np.searchsorted(distinct, values)
    order = np.argsort(key, kind="stable")
    return order, key[order], distinct, radix


def _window(
    column: tuple, group: np.ndarray, lo_value: np.ndarray, hi_value: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Positions ``[lo, hi)`` in ``column``'s order of the records of ``group`` with a value in
    ``[lo_value, hi_value]``."""
    _, keys, distinct, radix = column
    base = group.astype(np.int64) * radix
    lo = np.searchsorted(keys, base + np.searchsorted(distinct, lo_value, "left"), "left")
    hi = np.searchsorted(keys, base + np.searchsorted(distinct, hi_value, "right"), "left")
    return lo, np.maximum(lo, hi)


def _run(column: tuple, group: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Positions ``[lo, hi)`` in ``column``'s order of all the records of ``group``."""
    _, keys, _, radix = column
    base = group.astype(np.int64) * radix
    return np.searchsorted(keys, base, "left"), np.searchsorted(keys, base + radix, "left")


def _pairs(targets: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every (target, position) with ``lo <= position < hi``, target by target."""
    size = hi - lo
    qi = np.repeat(targets, size)
    pos = np.repeat(lo - np.cumsum(size) + size, size) + np.arange(len(qi))
    return qi, pos


def _upper_bound(
    queries: np.ndarray,
    patterns: np.ndarray,
    numeric_mask: np.ndarray,
    ranges: np.ndarray,
    columns: list[tuple],
    gq: np.ndarray,
    weight: np.ndarray,
    k: int,
) -> np.ndarray:
    """Step 1 of :func:`nearest_in_windows`, an upper bound on every query's ``k``-th nearest distance: the
    ``k`` records nearest in position on each numeric column (within the query's group ``gq``), measured
    exactly; ``inf`` when they hold fewer than ``k`` records (``weight`` per distinct record)."""
    nq, u = len(queries), len(patterns)
    num = np.flatnonzero(numeric_mask)
    probe_q, probe_p = [], []
    for j, column in enumerate(columns):
        x = queries[:, num[j]]
        start, stop = _run(column, gq)
        present = ~np.isnan(x)
        centre = np.where(present, _window(column, gq, np.where(present, x, 0.0), np.where(present, x, 0.0))[0], start)
        lo, hi = np.maximum(start, centre - k), np.minimum(stop, centre + k)
        qi, pos = _pairs(np.arange(nq), lo, np.maximum(lo, hi))
        probe_q.append(qi)
        probe_p.append(column[0][pos])
    qi, pj = np.concatenate(probe_q), np.concatenate(probe_p)
    pair = np.unique(qi * u + pj)
    qi, pj = pair // u, pair % u
    d = gower_pairs(queries[qi], patterns[pj], numeric_mask, ranges)
    by = np.lexsort((d, qi))
    qi, pj, d = qi[by], pj[by], d[by]
    total = np.cumsum(weight[pj])
    starts = np.searchsorted(qi, np.arange(nq), "left")
    before = np.concatenate([[0], total])[starts]  # weight of earlier queries' pairs
    reached = np.flatnonzero(total - before[qi] >= k)
    bound = np.full(nq, np.inf)
    first = reached[np.r_[True, qi[reached][1:] != qi[reached][:-1]]] if len(reached) else reached
    bound[qi[first]] = d[first]
    return bound


def _narrowest_window(
    queries: np.ndarray, num: np.ndarray, ranges: np.ndarray, columns: list[tuple], gq: np.ndarray, bound: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Step 2 of :func:`nearest_in_windows`: for every query, the window ``[lo, hi)`` of the numeric column
    holding the fewest records of its group ``gq`` within distance ``bound``, and that column's index."""
    best_lo = np.zeros(len(queries), dtype=np.int64)
    best_hi = np.full(len(queries), np.iinfo(np.int64).max)
    best_col = np.zeros(len(queries), dtype=np.int64)
    for j, column in enumerate(columns):
        x = queries[:, num[j]]
        half = bound * ranges[num[j]] * (1 + SLACK) + SLACK * (np.abs(np.nan_to_num(x)) + ranges[num[j]])
        present = ~np.isnan(x)
        lo, hi = _window(column, gq, np.where(present, x - half, 0.0), np.where(present, x + half, 0.0))
        start, stop = _run(column, gq)
        lo, hi = np.where(present, lo, start), np.where(present, hi, stop)  # a missing value: the whole group
        better = hi - lo < best_hi - best_lo
        best_lo[better], best_hi[better], best_col[better] = lo[better], hi[better], j
    return best_lo, best_hi, best_col


def nearest_in_windows(
    queries: np.ndarray, patterns: np.ndarray, numeric_mask: np.ndarray, ranges: np.ndarray, first_k: np.ndarray, n: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ``k`` nearest records of every query whose bound is below 1 (see the module docstring):
    ``(ranks, distances, settled)``, ``ranks`` as priority ranks (``len(queries) x k``, nearest first, ties
    by rank); rows of unsettled queries are undefined. ``first_k``: per distinct record (``patterns``) the
    priority ranks of its first ``k`` records, ``n`` where it has fewer."""
    nq, u = len(queries), len(patterns)
    k = first_k.shape[1]
    ranks, dist = np.full((nq, k), n, dtype=np.int64), np.full((nq, k), np.inf)
    settled = np.zeros(nq, dtype=bool)
    num = np.flatnonzero(numeric_mask)
    if not len(num) or nq == 0 or u == 0:
        return ranks, dist, settled
    both = np.vstack([patterns, queries])
    grouping = np.hstack([both[:, ~numeric_mask], np.isnan(both[:, num]).astype(float)])
    _, group, _ = distinct_rows(grouping)
    gp, gq = group[:u], group[u:]
    columns = [_column_order(patterns[:, c], gp) for c in num]
    weight = (first_k < n).sum(axis=1)  # how many of a distinct record's records can be chosen
    bound = _upper_bound(queries, patterns, numeric_mask, ranges, columns, gq, weight, k)
    settled = bound < 1.0 - 1e-9
    todo = np.flatnonzero(settled)
    if not len(todo):
        return ranks, dist, settled
    best_lo, best_hi, best_col = _narrowest_window(queries[todo], num, ranges, columns, gq[todo], bound[todo])
    # 3. the k first by (distance, priority) among the window's records, a chunk of queries at a time
    size = best_hi - best_lo
    start = 0
    while start < len(todo):
        stop = start + max(1, int(np.searchsorted(np.cumsum(size[start:]), PAIR_CHUNK, "right")))
        part = np.arange(start, stop)
        start = stop
        at, pos = _pairs(part, best_lo[part], best_hi[part])
        pj = np.empty(len(at), dtype=np.int64)
        for j, column in enumerate(columns):
            here = best_col[at] == j
            pj[here] = column[0][pos[here]]
        q = todo[at]
        d = gower_pairs(queries[q], patterns[pj], numeric_mask, ranges)
        near = d <= bound[q]  # the k nearest are within the bound
        q, pj, d = q[near], pj[near], d[near]
        rank = first_k[pj].reshape(-1)
        q, d = np.repeat(q, k), np.repeat(d, k)
        usable = rank < n
        q, d, rank = q[usable], d[usable], rank[usable]
        by = np.lexsort((rank, d, q))
        q, d, rank = q[by], d[by], rank[by]
        within = np.arange(len(q)) - np.searchsorted(q, q, "left")
        keep = within < k
        ranks[q[keep], within[keep]] = rank[keep]
        dist[q[keep], within[keep]] = d[keep]
    return ranks, dist, settled
