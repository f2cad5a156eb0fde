"""The exact ``k`` Gower-nearest synthetic records of attack targets, searched over distinct records.

The linkability and inference attacks (Giomi et al., PETS 2023; :mod:`.linkability`, :mod:`.inference`)
look up, for every target, the ``k`` synthetic records nearest to it on a few columns, ties broken by a
seeded priority order of the synthetic records. On a handful of columns a release of 10^5 records
holds far fewer distinct records (about 10^3 to 10^4 on four adult columns), and records that are equal
on the searched columns are at the same distance from every target. So distances are computed between
the targets and the *distinct* records only (the same arithmetic per cell as between records, so the
values are identical), and the ``k`` nearest records are read off those in three steps, all vectorised
over a block of targets:

1. ``v``: the ``k``-th smallest distance among distinct records (``np.argpartition``);
2. the records that can be among the ``k`` nearest are (a) those of distinct records nearer than ``v``
   (fewer than ``k`` of them) and (b) those of the ``k`` distinct records at distance exactly ``v``
   whose first record comes earliest in the priority order -- a record of another tied distinct record
   is preceded by ``k`` tied records of those and cannot be chosen; and from each distinct record only its
   ``k`` first records in priority order can be chosen;
3. of those at most ``2 k * k`` candidate records, the ``k`` first by (distance, priority).

For ``k = 1`` (the inference attack, whose many auxiliary columns leave most records distinct) the
nearest record is found without a full distance matrix: first among the distinct records with the
target's categorical values (a join; any other record mismatches a categorical column, at a sum of at
least 1), and for the targets left, by screening every distinct record with mismatch counts in small
integers plus the numeric terms in float32, then measuring again, exactly, those within rounding of the
smallest screen.

For ``k > 1`` with a numeric column among many distinct records (a continuous column leaves nearly every
record distinct), the targets are first searched in windows of sorted numeric columns within their
categorical group (:mod:`.windows`); only those it cannot settle are measured against every distinct record.

The result equals a search over every record (ranked by distance, then priority; the tests compare it
with one), at a cost that follows the number of distinct records rather than the number of records
(``benchmarks/bench_synthetic.py`` measures both side by side).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from privaudit.core.summary import pack_keys

#: target x distinct-record distances held at once (float64 cells: 16 MB)
BLOCK_CELLS = 2_000_000
#: distinct records from which a search with a numeric column reads windows of sorted columns (:mod:`.windows`)
WINDOW_MIN = 4096
#: the same for the nearest record alone (small integer and float32 screens that stay in cache)
SCREEN_CELLS = 262_144


def gower_block(
    queries: np.ndarray,
    candidates: np.ndarray,
    numeric_mask: np.ndarray,
    ranges: np.ndarray,
    work: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
) -> np.ndarray:
    """Gower distances (sums, not means) between every query and every candidate: ``len(queries) x
    len(candidates)``. Numeric columns ``|x - y| / range``, the others 0 when equal and 1 otherwise; a
    missing value (NaN) is at 0 from a missing value and at 1 from anything else. Terms are added column
    by column in column order (so that equal sums are equal floats whatever the block); ``work``: three
    flat buffers (float, float, bool) of at least that many cells to reuse (fresh memory is slow)."""
    b, m = len(queries), len(candidates)
    if work is None:
        work = workspace(b * m)
    dist, tmp, equal = (w[: b * m].reshape(b, m) for w in work)
    dist.fill(0.0)
    for j in range(queries.shape[1]):
        q, c = queries[:, j, None], candidates[None, :, j]
        qn, cn = np.isnan(q), np.isnan(c)
        if numeric_mask[j]:
            np.subtract(q, c, out=tmp)
            np.abs(tmp, out=tmp)
            np.divide(tmp, ranges[j], out=tmp)
            if qn.any() or cn.any():
                tmp[qn | cn] = 1.0
                tmp[qn & cn] = 0.0
            np.add(dist, tmp, out=dist)
        else:
            np.not_equal(q, c, out=equal)
            if qn.any() and cn.any():
                equal[qn & cn] = False
            np.add(dist, equal, out=dist)
    return dist


def gower_pairs(
    queries: np.ndarray, candidates: np.ndarray, numeric_mask: np.ndarray, ranges: np.ndarray
) -> np.ndarray:
    """Gower distances (sums) between ``queries[i]`` and ``candidates[i]``, pair by pair, with the same
    arithmetic in the same order as :func:`gower_block` (so the values are equal floats)."""
    dist = np.zeros(len(queries))
    for j in range(queries.shape[1]):
        q, c = queries[:, j], candidates[:, j]
        qn, cn = np.isnan(q), np.isnan(c)
        if numeric_mask[j]:
            term = np.abs(q - c) / ranges[j]
            term[qn | cn] = 1.0
            term[qn & cn] = 0.0
        else:
            term = (q != c) & ~(qn & cn)
        np.add(dist, term, out=dist)
    return dist


def _codes(matrix: np.ndarray) -> np.ndarray:
    """Categorical codes (non-negative floats or NaN) as integers, missing -1."""
    return np.where(np.isnan(matrix), -1.0, matrix).astype(np.int64)


def _nearest_one(
    queries: np.ndarray, patterns: np.ndarray, numeric_mask: np.ndarray, ranges: np.ndarray, first_rank: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The nearest distinct record of every query (the earliest first record among equally near ones) and
    its distance, exactly: categorical mismatches counted in small integers and numeric terms added in
    float32 screen the distinct records within a rounding tolerance of the nearest; those are measured
    again with :func:`gower_pairs` (a few per query) and the nearest is chosen among them."""
    b_all, u = len(queries), len(patterns)
    cat = np.flatnonzero(~numeric_mask)
    num = np.flatnonzero(numeric_mask)
    qc, pc = _codes(queries[:, cat]), _codes(patterns[:, cat])
    small = np.uint8 if len(cat) < 255 else np.uint32
    # float32 sums of at most p terms in [0, 1] are within p * len(num) * 2^-24 of the float64 fold
    tol = 4.0 * queries.shape[1] * (len(num) + 1) * 2.0**-23
    step = max(1, SCREEN_CELLS // max(u, 1))
    cells = min(step, b_all) * u
    count, equal, approx, term = (
        np.empty(cells, dtype=small),
        np.empty(cells, dtype=bool),
        np.empty(cells, dtype=np.float32),
        np.empty(cells),
    )
    best = np.empty(b_all, dtype=np.int64)
    best_d = np.empty(b_all)
    for lo in range(0, b_all, step):
        q = queries[lo : lo + step]
        b = len(q)
        mism, eq, t, tmp = (w[: b * u].reshape(b, u) for w in (count, equal, approx, term))
        mism.fill(0)
        for j in range(len(cat)):
            np.not_equal(qc[lo : lo + b, j, None], pc[None, :, j], out=eq)
            np.add(mism, eq, out=mism)
        np.copyto(t, mism)
        for j in num:
            qv, cv = q[:, j, None], patterns[None, :, j]
            np.subtract(qv, cv, out=tmp)
            np.abs(tmp, out=tmp)
            np.divide(tmp, ranges[j], out=tmp)
            qn, cn = np.isnan(qv), np.isnan(cv)
            if qn.any() or cn.any():
                tmp[qn | cn] = 1.0
                tmp[qn & cn] = 0.0
            np.add(t, tmp, out=t, casting="same_kind")
        low = t.min(axis=1, keepdims=True)
        qi, pj = np.nonzero(t <= low + np.float32(tol))
        exact = gower_pairs(q[qi], patterns[pj], numeric_mask, ranges)
        ranked = np.lexsort((first_rank[pj], exact, qi))
        head = ranked[np.r_[True, qi[ranked][1:] != qi[ranked][:-1]]]
        best[lo : lo + b], best_d[lo : lo + b] = first_rank[pj[head]], exact[head]
    return best, best_d


#: (query, distinct record) pairs joined on their categorical values, per query and distinct record
PAIR_BUDGET = 64
#: ... and compared at once
PAIR_CHUNK = 500_000


def _nearest_same_categories(
    queries: np.ndarray, patterns: np.ndarray, numeric_mask: np.ndarray, ranges: np.ndarray, first_rank: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The nearest distinct record of every query among those with its categorical values (a join on them;
    at most :data:`PAIR_BUDGET` pairs per record, the queries of the smallest groups first): ``(first rank,
    distance, settled)``. Any other record differs in a categorical column, at a sum of at least 1, so a
    query whose nearest here is nearer than 1 is settled, ties included."""
    nq, u = len(queries), len(patterns)
    best, best_d = np.zeros(nq, dtype=np.int64), np.full(nq, np.inf)
    settled = np.zeros(nq, dtype=bool)
    cat = np.flatnonzero(~numeric_mask)
    if not len(cat) or nq == 0:
        return best, best_d, settled
    _, group, _ = distinct_rows(np.vstack([patterns[:, cat], queries[:, cat]]))
    gp, gq = group[:u], group[u:]
    by_group = np.argsort(gp, kind="stable")
    edges = np.searchsorted(gp[by_group], np.arange(group.max() + 2))
    size = (edges[1:] - edges[:-1])[gq]
    cheapest = np.argsort(size, kind="stable")
    chosen = cheapest[np.cumsum(size[cheapest]) <= PAIR_BUDGET * (nq + u)]
    chosen = np.sort(chosen[size[chosen] > 0])
    if not len(chosen):
        return best, best_d, settled
    start = 0
    while start < len(chosen):  # queries in chunks of at most PAIR_CHUNK pairs
        stop = start + max(1, int(np.searchsorted(np.cumsum(size[chosen[start:]]), PAIR_CHUNK, "right")))
        part = chosen[start:stop]
        start = stop
        qi = np.repeat(part, size[part])
        pj = by_group[edges[gq[qi]] + np.arange(len(qi)) - np.repeat(np.cumsum(size[part]) - size[part], size[part])]
        exact = gower_pairs(queries[qi], patterns[pj], numeric_mask, ranges)
        ranked = np.lexsort((first_rank[pj], exact, qi))
        head = ranked[np.r_[True, qi[ranked][1:] != qi[ranked][:-1]]]
        best[qi[head]], best_d[qi[head]] = first_rank[pj[head]], exact[head]
        settled[qi[head]] = exact[head] < 1.0 - 1e-9
    return best, best_d, settled


def workspace(cells: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Buffers for :func:`gower_block` of ``cells`` cells."""
    return np.empty(cells), np.empty(cells), np.empty(cells, dtype=bool)


def distinct_rows(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(first, inverse, counts)`` of the distinct rows of a float matrix (NaN equal to NaN): the first
    row of each distinct row, every row's distinct row, and how many rows each has."""
    n, d = matrix.shape
    if n == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    codes = np.empty((n, d), dtype=np.int64)
    radices = []
    for j in range(d):
        c, uniques = pd.factorize(matrix[:, j], use_na_sentinel=True)
        codes[:, j] = c + 1  # missing: 0
        radices.append(len(uniques) + 1)
    key = pack_keys([(codes[:, j], radix) for j, radix in enumerate(radices)], n)  # the class summary's packing
    _, first, inverse, counts = np.unique(key, return_index=True, return_inverse=True, return_counts=True)
    return first, inverse.reshape(-1), counts


def gower_neighbours(
    queries: np.ndarray,
    candidates: np.ndarray,
    numeric_mask: np.ndarray,
    ranges: np.ndarray,
    k: int,
    priority: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Exact ``k`` nearest candidates of every query under the Gower distance: ``(indices, distances)``,
    each ``len(queries) x k``, nearest first. ``priority`` (a permutation of the candidates) breaks ties:
    of equally near candidates, the one listed first in ``priority`` wins (default: the lowest index).
    See the module docstring for the search over distinct candidates."""
    n = len(candidates)
    k = min(k, n)
    if k <= 0 or len(queries) == 0:
        return np.zeros((len(queries), max(k, 0)), dtype=np.int64), np.zeros((len(queries), max(k, 0)))
    order = np.arange(n) if priority is None else np.asarray(priority, dtype=np.int64)
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    first, inverse, counts = distinct_rows(candidates)
    u = len(first)
    patterns = candidates[first]
    # the k first records (as priority ranks) of every distinct record; n where it has fewer
    by = np.lexsort((rank, inverse))
    within = np.arange(n) - np.repeat(np.cumsum(counts) - counts, counts)
    keep = within < k
    first_k = np.full((u, k), n, dtype=np.int64)
    first_k[inverse[by][keep], within[keep]] = rank[by][keep]
    first_rank = first_k[:, 0]
    kp = min(k, u)
    idx = np.empty((len(queries), k), dtype=np.int64)
    dist = np.empty((len(queries), k), dtype=float)
    if k == 1:
        best, best_d, settled = _nearest_same_categories(queries, patterns, numeric_mask, ranges, first_rank)
        rest = np.flatnonzero(~settled)
        if len(rest):
            best[rest], best_d[rest] = _nearest_one(queries[rest], patterns, numeric_mask, ranges, first_rank)
        return order[best][:, None], best_d[:, None]
    rest = np.arange(len(queries))
    if numeric_mask.any() and u >= WINDOW_MIN:  # a continuous column: most records distinct (:mod:`.windows`)
        from privaudit.risk.synthetic_attacks.windows import nearest_in_windows  # it imports this module

        ranks, near_d, settled = nearest_in_windows(queries, patterns, numeric_mask, ranges, first_k, n)
        idx[settled], dist[settled] = order[ranks[settled]], near_d[settled]
        rest = np.flatnonzero(~settled)
    step = max(1, BLOCK_CELLS // max(u, 1))
    work = workspace(min(step, len(rest)) * u)
    for lo in range(0, len(rest), step):
        at = rest[lo : lo + step]
        d = gower_block(queries[at], patterns, numeric_mask, ranges, work)
        b = len(d)
        near = np.argpartition(d, kp - 1, axis=1)[:, :kp] if kp < u else np.broadcast_to(np.arange(u), (b, u))
        near_d = np.take_along_axis(d, near, axis=1)
        v = near_d.max(axis=1, keepdims=True)  # the kp-th smallest distance to a distinct record
        tied = np.where(d == v, first_rank, n)
        tie = np.argpartition(tied, kp - 1, axis=1)[:, :kp] if kp < u else np.broadcast_to(np.arange(u), (b, u))
        chosen = np.concatenate([near, tie], axis=1)
        usable = np.concatenate([near_d < v, np.take_along_axis(tied, tie, axis=1) < n], axis=1)
        ranks = np.where(usable[:, :, None], first_k[chosen], n).reshape(b, -1)
        values = np.where(ranks < n, np.repeat(np.take_along_axis(d, chosen, axis=1), k, axis=1), np.inf)
        best = np.lexsort((ranks, values), axis=1)[:, :k]
        idx[at] = order[np.take_along_axis(ranks, best, axis=1)]
        dist[at] = np.take_along_axis(values, best, axis=1)
    return idx, dist
