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
few vectorised distance computations and ``argpartition`` calls on the
remaining rows (which are compacted after every pass), so the total cost is
O(n^2 p / k) arithmetic but only O(n / k) Python-level iterations.
Distances are Euclidean on the standardised QIs (squared distances are used,
which preserves every arg-min / arg-max).  Ties are broken deterministically
by numpy's selection routines, so the result is a pure function of the input.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from .sse import as_matrix, standardize

__all__ = ["mdav", "sq_dist"]

Progress = Callable[[int, int], None] | None


def sq_dist(A: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Squared Euclidean distance from every row of ``A`` to the vector ``x``."""
    D = A - x
    return np.einsum("ij,ij->i", D, D)


def _nearest(d: np.ndarray, seed: int, k: int) -> np.ndarray:
    """Positions of the ``k`` smallest entries of ``d``, always including ``seed``.

    ``seed`` has distance 0 to itself, but exact duplicates can also be at
    distance 0; in that case make sure the seed itself is in its cluster.
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
    ids = np.arange(n)           # original row of each remaining record
    A = np.ascontiguousarray(Z)  # remaining records (compacted every pass)
    nxt = 0

    def take(near: np.ndarray) -> None:
        nonlocal A, ids, nxt
        labels[ids[near]] = nxt
        nxt += 1
        keep = np.ones(ids.size, dtype=bool)
        keep[near] = False
        A, ids = A[keep], ids[keep]

    while ids.size >= 3 * k:
        xr = int(np.argmax(sq_dist(A, A.mean(axis=0))))
        dr = sq_dist(A, A[xr])
        xs = int(np.argmax(dr))
        near_r = _nearest(dr, xr, k)
        if np.any(near_r == xs):  # only possible when all records coincide
            dr_masked = dr.copy()
            dr_masked[near_r] = -np.inf
            xs = int(np.argmax(dr_masked))
        xs_id = ids[xs]
        take(near_r)
        xs = int(np.searchsorted(ids, xs_id))  # ids stay sorted
        take(_nearest(sq_dist(A, A[xs]), xs, k))
        if progress is not None:
            progress(n - ids.size, n)

    if ids.size >= 2 * k:
        xr = int(np.argmax(sq_dist(A, A.mean(axis=0))))
        take(_nearest(sq_dist(A, A[xr]), xr, k))
    if ids.size:
        labels[ids] = nxt
    if progress is not None:
        progress(n, n)
    return labels
