"""MDAV -- Maximum Distance to Average Vector -- fixed-size microaggregation.

Domingo-Ferrer & Torra, "Ordinal, continuous and heterogeneous k-anonymity
through microaggregation", Data Min. Knowl. Disc. 11 (2005) 195-212;
Domingo-Ferrer & Mateo-Sanz, IEEE TKDE 14(1) (2002).

On the (standardised) records ``R`` still unassigned::

    while |R| >= 3k:
        c  = mean of R
        xr = record of R farthest from c
        xs = record of R farthest from xr
        cluster xr with its k-1 nearest records of R;  remove them from R
        cluster xs with its k-1 nearest records of R;  remove them from R
    if |R| >= 2k:
        c  = mean of R; xr = farthest from c
        cluster xr with its k-1 nearest records;  remove them
    the remaining records (k..2k-1 of them) form the last cluster

Every cluster therefore has between k and 2k-1 records.  Each pass costs a
few vectorised distance computations and ``argpartition`` calls over the
remaining records (see :mod:`._pool`), so the total cost is O(n^2 p / k)
arithmetic but only O(n / k) Python-level iterations.  Distances are
Euclidean on the standardised QIs (squared distances, which preserve every
arg-min / arg-max).  Ties are broken deterministically by numpy's selection
routines, so the result is a pure function of the input.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from privaudit.remediation.microaggregation._pool import RecordPool
from privaudit.remediation.microaggregation.sse import as_matrix, standardize

__all__ = ["mdav", "nearest_including"]

Progress = Callable[[int, int], None] | None


def nearest_including(d: np.ndarray, seed: int, k: int) -> np.ndarray:
    """Positions of the ``k`` smallest entries of ``d``, always including ``seed``.

    The seed is at distance 0 from itself, but exact duplicates are too; in
    that case the seed replaces one of them so that it is in its own cluster.
    """
    if k >= d.size:
        return np.arange(d.size)
    near = np.argpartition(d, k - 1)[:k]
    if not np.any(near == seed):
        near[np.argmax(d[near])] = seed
    return near


def mdav(X, k: int, *, standardized: bool = False, progress: Progress = None) -> np.ndarray:
    """Cluster the rows of ``X`` with MDAV; return one cluster label per row.

    Parameters
    ----------
    X:
        ``(n, p)`` numeric quasi-identifiers (1-D is treated as one column).
    k:
        Minimum cluster size; every cluster gets ``k`` .. ``2k-1`` records.
    standardized:
        If False (default) the columns are z-scored first so that each QI
        weighs equally in the Euclidean distance.
    progress:
        Optional ``callable(done, total)`` called with the number of records
        assigned so far.

    Returns
    -------
    numpy.ndarray
        Integer labels ``0 .. g-1`` in order of cluster formation.
    """
    Z = as_matrix(X) if standardized else standardize(X)
    n = Z.shape[0]
    k = int(k)
    if k < 1:
        raise ValueError("k must be >= 1")
    if n < k:
        raise ValueError(f"cannot form clusters of {k} records from {n} records")
    if k == 1:  # every record is its own cluster: no information loss
        if progress is not None:
            progress(n, n)
        return np.arange(n, dtype=np.intp)

    labels = np.full(n, -1, dtype=np.intp)
    pool = RecordPool(Z)
    next_label = 0
    buf = np.empty(n)  # reused distance buffer

    def take(near: np.ndarray) -> np.ndarray:
        nonlocal next_label
        labels[pool.ids[near]] = next_label
        next_label += 1
        return pool.remove(near)

    while len(pool) >= 3 * k:
        xr = int(np.argmax(pool.sq_dist(pool.centroid(), buf)))
        dr = pool.sq_dist(pool.point(xr), buf)
        xs = int(np.argmax(dr))
        near_r = nearest_including(dr, xr, k)
        if np.any(near_r == xs):  # only possible when all records coincide
            dr[near_r] = -np.inf
            xs = int(np.argmax(dr))
        moved_from, moved_to = take(near_r)
        hit = np.flatnonzero(moved_from == xs)
        if hit.size:
            xs = int(moved_to[hit[0]])
        take(nearest_including(pool.sq_dist(pool.point(xs), buf), xs, k))
        if progress is not None:
            progress(n - len(pool), n)

    if len(pool) >= 2 * k:
        xr = int(np.argmax(pool.sq_dist(pool.centroid(), buf)))
        take(nearest_including(pool.sq_dist(pool.point(xr), buf), xr, k))
    labels[pool.ids[: len(pool)]] = next_label
    if progress is not None:
        progress(n, n)
    return labels
