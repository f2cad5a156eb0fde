"""k-anonymous t-close microaggregation (Soria-Comas, Domingo-Ferrer, Sanchez &
Martinez, "t-Closeness through Microaggregation: Strict Privacy with Enhanced
Utility Preservation", IEEE TKDE 27(11), 2015, Sect. 5).

All three algorithms work on standardised quasi-identifiers ``Z`` (Euclidean
distance) and on the table distribution of one ordered sensitive attribute
(:class:`~.emd.SensitiveDistribution`); a cluster is *t-close* when the EMD
between its sensitive distribution and the table's is at most ``t``.

* :func:`merge_until_t_close` -- Algorithm 1's merging step: while some
  cluster is not t-close, merge the cluster with the largest EMD with the
  cluster whose centroid is nearest to its centroid.  It always terminates
  (a single cluster has EMD 0) and is the fallback of the other two.
* Algorithm 1 (``"merge"``) = MDAV followed by :func:`merge_until_t_close`.
* :func:`k_anonymity_first` -- Algorithm 2.
* :func:`t_closeness_first` -- Algorithm 3, with :func:`t_closeness_first_k`
  giving its cluster size.

Choices not fixed by the brief / paper text available to us are documented
on each function.  EMD comparisons use an absolute tolerance of
:data:`EMD_ATOL` to absorb floating-point rounding.
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

from privaudit.remediation.microaggregation._pool import RecordPool
from privaudit.remediation.microaggregation.cluster_emd import SensitiveDistribution
from privaudit.remediation.microaggregation.mdav import nearest_including

__all__ = [
    "EMD_ATOL",
    "merge_until_t_close",
    "k_anonymity_first",
    "t_closeness_first",
    "t_closeness_first_k",
]

EMD_ATOL = 1e-9
Progress = Callable[[int, int], None] | None


def merge_until_t_close(Z: np.ndarray, dist: SensitiveDistribution, labels, t: float,
                        *, atol: float = EMD_ATOL) -> tuple[np.ndarray, int]:
    """Algorithm 1 (merging step): merge clusters until every one is t-close.

    Repeatedly take the cluster ``C`` with the greatest EMD to the table; if
    ``EMD(C) <= t`` stop, otherwise merge ``C`` with the cluster whose
    centroid (in standardised QI space) is closest to ``C``'s centroid.
    Merging never breaks k-anonymity (sizes only grow).

    Returns ``(labels, n_merges)``; labels are renumbered 0..g'-1 keeping the
    order of the surviving clusters (a merged cluster keeps the smaller id).
    """
    labels = np.unique(np.asarray(labels, dtype=np.intp), return_inverse=True)[1]  # no gaps
    g = int(labels.max()) + 1
    emd = dist.cluster_emd(labels, g)
    if emd.max() <= t + atol:
        return labels, 0
    sizes = np.bincount(labels, minlength=g).astype(np.float64)
    sums = np.stack([np.bincount(labels, weights=Z[:, j], minlength=g)
                     for j in range(Z.shape[1])], axis=1)
    order = np.argsort(labels, kind="stable")
    members = np.split(order, np.cumsum(sizes.astype(np.intp))[:-1])
    active = np.ones(g, dtype=bool)
    n_merges = 0
    while True:
        worst = int(np.argmax(emd))  # inactive clusters hold -inf
        if emd[worst] <= t + atol or active.sum() == 1:
            break
        cent = sums / sizes[:, None]
        d = np.einsum("ij,ij->i", cent - cent[worst], cent - cent[worst])
        d[~active] = np.inf
        d[worst] = np.inf
        other = int(np.argmin(d))
        keep, drop = min(worst, other), max(worst, other)
        members[keep] = np.concatenate((members[keep], members[drop]))
        sums[keep] += sums[drop]
        sizes[keep] += sizes[drop]
        active[drop] = False
        sizes[drop] = 1.0  # avoid 0/0 in centroids of dead clusters
        emd[drop] = -np.inf
        emd[keep] = dist.emd_of_members(members[keep])
        n_merges += 1
    out = np.empty_like(labels)
    for new, old in enumerate(np.flatnonzero(active)):
        out[members[old]] = new
    return out, n_merges


def k_anonymity_first(Z: np.ndarray, dist: SensitiveDistribution, k: int, t: float,
                      progress: Progress = None, *, atol: float = EMD_ATOL
                      ) -> tuple[np.ndarray, int]:
    """Algorithm 2: k-anonymity-first t-close microaggregation.

    While at least ``2k`` records remain: ``x0`` = remaining record farthest
    from the centroid of the remaining records; ``C`` = ``x0`` and its
    ``k-1`` nearest remaining records.  While ``EMD(C) > t``: among the
    remaining records outside ``C`` that can replace some member of ``C``
    (other than ``x0``) so that ``EMD(C)`` decreases, take the one nearest
    to ``x0`` and swap it with the member whose removal lowers ``EMD(C)``
    the most; stop when ``C`` is t-close or no swap lowers its EMD.  The
    last ``k..2k-1`` records form the final cluster (as in MDAV).  Clusters
    that are still not t-close are then fixed by Algorithm 1's merging step
    (:func:`merge_until_t_close`).

    Every candidate swap is evaluated at once with
    :meth:`SensitiveDistribution.swap_deltas` (O(k * remaining) per swap).
    Returns ``(labels, n_merges)``.
    """
    n = Z.shape[0]
    labels = np.full(n, -1, dtype=np.intp)
    pool = RecordPool(Z)
    codes_all = dist.codes
    next_label = 0
    while len(pool) >= 2 * k:
        size = len(pool)
        x0 = int(np.argmax(pool.sq_dist(pool.centroid())))
        d0 = pool.sq_dist(pool.point(x0))
        C = nearest_including(d0, x0, k)
        codes = codes_all[pool.ids[:size]]
        emd = dist.emd_of_members(pool.ids[C])
        if emd > t + atol:
            in_c = np.zeros(size, dtype=bool)
            in_c[C] = True
            while emd > t + atol:
                movable = C[C != x0]
                if movable.size == 0:  # k == 1: only the seed, nothing to swap
                    break
                outside = np.flatnonzero(~in_c)
                delta = dist.swap_deltas(codes[C], codes[movable], codes[outside])
                best_z = np.argmin(delta, axis=0)
                gain = delta[best_z, np.arange(outside.size)]
                improving = gain < -atol
                if not improving.any():
                    break
                cand = np.flatnonzero(improving)
                y = cand[np.argmin(d0[outside[cand]])]
                z = movable[best_z[y]]
                in_c[z], in_c[outside[y]] = False, True
                C[C == z] = outside[y]
                emd += gain[y]
                if emd <= t + atol:  # confirm with an exact recomputation
                    emd = dist.emd_of_members(pool.ids[C])
        labels[pool.ids[C]] = next_label
        next_label += 1
        pool.remove(C)
        if progress is not None:
            progress(n - len(pool), n)
    labels[pool.ids[: len(pool)]] = next_label
    if progress is not None:
        progress(n, n)
    return merge_until_t_close(Z, dist, labels, t, atol=atol)


def t_closeness_first_k(n: int, k: int, t: float) -> int:
    """Cluster size used by Algorithm 3 (t-closeness-first).

    ``k' = max{k, ceil(n / (2(n-1)t + 1))}``: a cluster holding one record
    from each of ``k'`` equal rank strata of the sensitive attribute has
    ``EMD <= (n - k') / (2 (n-1) k')``, which is ``<= t`` for this ``k'``.
    If ``n`` is not a multiple of ``k'`` it is then increased by
    ``ceil((n mod k') / floor(n / k'))``.  Capped at ``n`` (one cluster).
    """
    if n < 1:
        raise ValueError("n must be >= 1")
    if t < 0:
        raise ValueError("t must be >= 0")
    kp = max(int(k), math.ceil(n / (2 * (n - 1) * t + 1)))
    if kp >= n:
        return n
    r = n % kp
    if r:
        kp += math.ceil(r / (n // kp))
    return min(kp, n)


def t_closeness_first(Z: np.ndarray, s_values, dist: SensitiveDistribution, k: int,
                      t: float, progress: Progress = None, *, atol: float = EMD_ATOL
                      ) -> tuple[np.ndarray, int, int]:
    """Algorithm 3: t-closeness-first microaggregation.

    1. ``k'`` = :func:`t_closeness_first_k` ``(n, k, t)``;
       ``q = floor(n / k')`` clusters will be built, ``r = n mod k'``.
    2. Sort the records by the sensitive attribute (stable, ties by row
       order) and cut the ranking into ``k'`` consecutive strata of ``q``
       records; the ``r`` left-over records go to the middle stratum
       (index ``k' // 2``), which thus holds ``q + r``.
    3. ``q`` times: ``x0`` = remaining record farthest from the centroid of
       all remaining records; the new cluster takes, from every stratum, the
       remaining record nearest to ``x0``; from the middle stratum it takes
       ``ceil(left_in_middle / clusters_left)`` nearest records, so the
       ``r`` extras are spread evenly (cluster sizes ``k'`` .. ``k' +
       ceil(r/q)``).
    4. Clusters not t-close (possible when the sensitive attribute has ties
       or few distinct values, where the EMD bound on ranks does not carry
       over to distinct values) are merged by :func:`merge_until_t_close`.

    Returns ``(labels, n_merges, k')``.
    """
    n = Z.shape[0]
    kp = t_closeness_first_k(n, k, t)
    labels = np.zeros(n, dtype=np.intp)
    if kp >= n:
        if progress is not None:
            progress(n, n)
        return labels, 0, n
    q, r = divmod(n, kp)
    mid = kp // 2
    ranked = np.argsort(np.asarray(s_values).ravel(), kind="stable")
    sizes = np.full(kp, q)
    sizes[mid] += r
    bounds = np.concatenate(([0], np.cumsum(sizes)))
    mid_ids = ranked[bounds[mid]:bounds[mid + 1]]
    reg_ids = np.array([ranked[bounds[i]:bounds[i + 1]] for i in range(kp) if i != mid],
                       dtype=np.intp).reshape(kp - 1, q)
    reg = np.ascontiguousarray(np.moveaxis(Z[reg_ids], 2, 0))  # (p, kp-1, q)
    mid_pool = RecordPool(Z, mid_ids)
    rows = np.arange(kp - 1)
    total = Z.sum(axis=0)
    remaining = n
    q_left = q
    for cl in range(q):
        centroid = total / remaining
        R = reg[:, :, :q_left]
        diff = R - centroid[:, None, None]
        d_reg = np.einsum("pij,pij->ij", diff, diff)
        d_mid = mid_pool.sq_dist(centroid)
        if d_reg.size and d_reg.max() >= d_mid.max():
            i, j = np.unravel_index(int(np.argmax(d_reg)), d_reg.shape)
            x0 = R[:, i, j].copy()
        else:
            x0 = mid_pool.point(int(np.argmax(d_mid)))
        # one record from every regular stratum
        diff = R - x0[:, None, None]
        pick = np.argmin(np.einsum("pij,pij->ij", diff, diff), axis=1) if kp > 1 else rows
        labels[reg_ids[rows, pick]] = cl
        total -= R[:, rows, pick].sum(axis=1)
        last = q_left - 1
        reg[:, rows, pick] = reg[:, rows, last]
        reg_ids[rows, pick] = reg_ids[rows, last]
        q_left -= 1
        # one or more records from the middle stratum
        take = math.ceil(len(mid_pool) / (q - cl))
        d = mid_pool.sq_dist(x0)
        near = np.argpartition(d, take - 1)[:take] if take < d.size else np.arange(d.size)
        labels[mid_pool.ids[near]] = cl
        total -= mid_pool.cols[:, near].sum(axis=1)
        mid_pool.remove(near)
        remaining -= (kp - 1) + take
        if progress is not None:
            progress(n - remaining, n)
    labels, n_merges = merge_until_t_close(Z, dist, labels, t, atol=atol)
    return labels, n_merges, kp
