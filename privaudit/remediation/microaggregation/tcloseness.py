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
* :func:`k_anonymity_first` -- Algorithm 2 (Section 6), as listed: clusters
  seeded in pairs (``x0`` farthest from the centroid, then ``x1`` farthest
  from ``x0``), each refined by GenerateCluster's swaps.
* :func:`t_closeness_first` -- Algorithm 3 (Section 7), with
  :func:`t_closeness_first_k` giving its cluster size by Expressions (3)
  and (4).

Where the paper contradicts itself, the text its Table III agrees with is
followed and the other is documented (:func:`t_closeness_first_k`); choices the
paper leaves open are documented on each function.  EMD comparisons use an
absolute tolerance of :data:`EMD_ATOL` to absorb floating-point rounding.
"""

from __future__ import annotations

import math
from collections.abc import Callable

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


def merge_until_t_close(
    Z: np.ndarray, dist: SensitiveDistribution, labels, t: float, *, atol: float = EMD_ATOL
) -> tuple[np.ndarray, int]:
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
    sums = np.stack([np.bincount(labels, weights=Z[:, j], minlength=g) for j in range(Z.shape[1])], axis=1)
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


def _generate_cluster(
    pool: RecordPool, x: int, dist: SensitiveDistribution, k: int, t: float, atol: float
) -> np.ndarray:
    """GenerateCluster of Algorithm 2 (Section 6): slots of ``pool`` forming the cluster seeded at slot ``x``.

    With fewer than ``2k`` records left, all of them. Otherwise ``C`` = the ``k`` records closest to ``x``
    (``x`` included); the candidates ``X'`` are the other records in order of distance to ``x``. While
    ``EMD(C) > t`` and candidates remain: ``y`` = the closest candidate; ``y'`` = the member of ``C``
    (``x`` included) whose swap for ``y`` gives the lowest EMD; the swap is made when it lowers the EMD;
    ``y`` leaves ``X'`` either way, and a swapped-out record never re-enters it. Ties the listing leaves
    open go to the record nearer ``x`` (then the lower row): among candidates, and among members ``y'``
    whose swaps give the same EMD (within rounding).

    Vectorised without changing the listing's order: the swap deltas of every remaining candidate are
    computed against the current ``C`` at once; the candidates before the first improving one would each
    have been tried and dropped unchanged, so the loop jumps to it."""
    size = len(pool)
    if size < 2 * k:
        return np.arange(size)
    d = pool.sq_dist(pool.point(x))
    C = nearest_including(d, x, k)
    C = C[np.lexsort((C, C != x, d[C]))]  # members by distance to x (x first): ties in y' go to the nearest
    emd = dist.emd_of_members(pool.ids[C])
    if emd <= t + atol:
        return C
    outside = np.ones(size, dtype=bool)
    outside[C] = False
    cand = np.flatnonzero(outside)
    cand = cand[np.argsort(d[cand], kind="stable")]
    codes = dist.codes[pool.ids[:size]]
    pos = 0
    while emd > t + atol and pos < cand.size:
        delta = dist.swap_deltas(codes[C], codes[C], codes[cand[pos:]])  # (member out, candidate in)
        out = np.argmax(delta <= delta.min(axis=0) + atol, axis=0)  # y': the first member at the lowest EMD
        gain = delta[out, np.arange(delta.shape[1])]
        improving = np.flatnonzero(gain < -atol)
        if improving.size == 0:
            break
        j = int(improving[0])
        C[out[j]] = cand[pos + j]
        emd = dist.emd_of_members(pool.ids[C])
        pos += j + 1
    return C


def k_anonymity_first(
    Z: np.ndarray, dist: SensitiveDistribution, k: int, t: float, progress: Progress = None, *, atol: float = EMD_ATOL
) -> tuple[np.ndarray, int]:
    """Algorithm 2 (Section 6): k-anonymity-first t-close microaggregation, as listed.

    While records remain: ``xa`` = their centroid, ``x0`` = the remaining record farthest from ``xa``,
    ``C`` = GenerateCluster(``x0``) (:func:`_generate_cluster`); then, if records remain, ``x1`` = the
    remaining record farthest from ``x0`` and ``C`` = GenerateCluster(``x1``). Algorithm 2 alone cannot
    guarantee t-closeness (the paper, after the listing): as the paper does, its clusters are the
    microaggregation of Algorithm 1, whose merging step (:func:`merge_until_t_close`) follows.

    Returns ``(labels, n_merges)``.
    """
    n = Z.shape[0]
    labels = np.full(n, -1, dtype=np.intp)
    pool = RecordPool(Z)
    next_label = 0
    while len(pool):
        x0 = int(np.argmax(pool.sq_dist(pool.centroid())))
        x0_point = pool.point(x0)
        for seed in ("x0", "x1"):
            if seed == "x1":
                if not len(pool):
                    break
                x = int(np.argmax(pool.sq_dist(x0_point)))  # farthest remaining record from x0
            else:
                x = x0
            C = _generate_cluster(pool, x, dist, k, t, atol)
            labels[pool.ids[C]] = next_label
            next_label += 1
            pool.remove(C)
        if progress is not None:
            progress(n - len(pool), n)
    return merge_until_t_close(Z, dist, labels, t, atol=atol)


def t_closeness_first_k(n: int, k: int, t: float) -> int:
    """Cluster size of Algorithm 3: Expression (3), then Expression (4).

    (3) ``k' = max{k, ceil(n / (2(n-1)t + 1))}``: a cluster with one record from each of ``k'`` rank strata
    has ``EMD <= (n - k')/(2(n-1)k')`` (Proposition 2), which is ``<= t`` for this ``k'``.
    (4) ``k' = k' + floor((n mod k') / floor(n/k'))``, so that the left-over records fit one per cluster.

    The listing of Algorithm 3 writes a ceiling in (4); Expression (4) a floor. Table III agrees with the
    floor (n = 1080, t = 0.01: (3) gives 48, 1080 mod 48 = 24, floor(1080/48) = 22: 48 + floor(24/22) = 49,
    the table's 49 for every k; the ceiling would give 50), so the floor is used. Capped at ``n``.
    """
    if n < 1:
        raise ValueError("n must be >= 1")
    if t < 0:
        raise ValueError("t must be >= 0")
    kp = max(int(k), math.ceil(n / (2 * (n - 1) * t + 1)))
    if kp >= n:
        return n
    kp += (n % kp) // (n // kp)
    return min(kp, n)


def _strata(s_values, kp: int) -> list[np.ndarray]:
    """Algorithm 3's split: ``kp`` subsets of ``floor(n/kp)`` records in ascending order of the confidential
    attribute (stable: ties by row), the ``n mod kp`` left-over records in the central subset(s). With an
    odd ``kp`` they all join the middle subset ``S_{(kp+1)/2}``; with an even ``kp`` they are split between
    the two middle subsets ``S_{kp/2}`` and ``S_{kp/2+1}`` (Figures 3-4), the lower one taking the odd one
    out (the paper does not say which)."""
    n = len(s_values)
    q, r = divmod(n, kp)
    sizes = np.full(kp, q)
    if kp % 2:
        sizes[kp // 2] += r
    else:
        sizes[kp // 2 - 1] += (r + 1) // 2
        sizes[kp // 2] += r // 2
    ranked = np.argsort(np.asarray(s_values).ravel(), kind="stable")
    return np.split(ranked, np.cumsum(sizes)[:-1])


class _StrataPool:
    """The records not yet clustered by Algorithm 3, grouped by rank stratum: ``cols`` holds the standardised
    quasi-identifiers ``(p, n)`` in slot order, the remaining records of stratum ``i`` being the prefix of
    its block (``starts[i]``, ``counts[i]`` records); ``total`` is their coordinate sum, ``labels`` the
    cluster of every record (by record), ``label`` the next cluster's."""

    def __init__(self, Z: np.ndarray, strata: list[np.ndarray], labels: np.ndarray):
        order = np.concatenate(strata)  # records grouped by stratum
        self.starts = np.concatenate(([0], np.cumsum([len(s) for s in strata])))
        self.counts = np.array([len(s) for s in strata])  # remaining records per stratum (a prefix of its block)
        self.pos_ids = order.copy()  # pos_ids[slot] = record; the remaining records of stratum i: its block's prefix
        self.cols = np.array(np.asarray(Z, dtype=np.float64)[order].T, order="C")  # (p, n) in slot order
        self.alive = np.ones(len(order), dtype=bool)  # by slot
        self.total = self.cols.sum(axis=1)
        self.remaining = len(order)
        self.labels = labels
        self.label = 0

    def sq(self, point: np.ndarray) -> np.ndarray:
        """Squared distances of the remaining records to ``point`` (inf for the clustered ones), by slot."""
        diff = self.cols - point[:, None]
        d = np.einsum("pj,pj->j", diff, diff)
        d[~self.alive] = np.inf
        return d

    def take(self, slot: int) -> None:
        """Put the record of ``slot`` in the current cluster."""
        starts, counts, cols = self.starts, self.counts, self.cols
        i = int(np.searchsorted(starts, slot, side="right") - 1)
        last = starts[i] + counts[i] - 1
        self.labels[self.pos_ids[slot]] = self.label
        self.total[:] -= cols[:, slot]
        for arr in (self.pos_ids,):  # swap the taken slot with its stratum's last remaining slot
            arr[slot], arr[last] = arr[last], arr[slot]
        cols[:, [slot, last]] = cols[:, [last, slot]]
        self.alive[last] = False
        counts[i] -= 1
        self.remaining -= 1

    def cluster(self, seed_point: np.ndarray, kp: int) -> None:
        """One cluster around ``seed_point``: from every stratum in turn its record closest to it, and a second
        one when the stratum still holds left-over records and the cluster has none of those yet."""
        starts, counts = self.starts, self.counts
        d = self.sq(seed_point)
        taken = 0
        for i in range(kp):
            for extra in (False, True):
                if extra and not (counts[i] > counts[0] and taken == i + 1):
                    break
                if counts[i] == 0:
                    break
                lo = starts[i]
                slot = lo + int(np.argmin(d[lo : lo + counts[i]]))
                self.take(slot)
                d[slot], d[starts[i] + counts[i]] = d[starts[i] + counts[i]], np.inf
                taken += 1
        self.label += 1


def t_closeness_first(
    Z: np.ndarray,
    s_values,
    dist: SensitiveDistribution,
    k: int,
    t: float,
    progress: Progress = None,
    *,
    atol: float = EMD_ATOL,
) -> tuple[np.ndarray, int, int]:
    """Algorithm 3 (Section 7): t-closeness-first microaggregation, as listed.

    ``k'`` from :func:`t_closeness_first_k`; the records split into ``k'`` rank strata (:func:`_strata`).
    While records remain: ``x0`` = the record farthest from their centroid; the cluster takes from every
    stratum ``S_i`` in turn its record closest to ``x0``, and a second one when ``|S_i| > |S_1|`` (it
    still holds left-over records) and the cluster has none of those yet (``|C| = i``); then, if records
    remain, a cluster is built in the same way around ``x1``, the remaining record farthest from ``x0``.
    Distances are Euclidean on the standardised quasi-identifiers.

    Two cases the listing leaves open: a cluster that comes out smaller than ``k`` (strata exhausted
    unevenly; impossible when Expression (4) leaves at most one left-over record per cluster) joins the
    cluster built before it; clusters that are not t-close (the bound holds on ranks, and ties in the
    confidential attribute can break it on values) are merged by :func:`merge_until_t_close`.

    Returns ``(labels, n_merges, k')``.
    """
    n = Z.shape[0]
    kp = t_closeness_first_k(n, k, t)
    labels = np.zeros(n, dtype=np.intp)
    if kp >= n:
        if progress is not None:
            progress(n, n)
        return labels, 0, n
    pool = _StrataPool(Z, _strata(s_values, kp), labels)
    while pool.remaining:
        x0 = pool.cols[:, int(np.argmax(pool.sq(pool.total / pool.remaining)))].copy()
        pool.cluster(x0, kp)
        if pool.remaining:
            x1 = pool.cols[:, int(np.argmax(pool.sq(x0)))].copy()
            pool.cluster(x1, kp)
        if progress is not None:
            progress(n - pool.remaining, n)
    label = pool.label
    sizes = np.bincount(labels, minlength=label)
    for small in np.flatnonzero(sizes < min(k, n))[::-1]:
        if small > 0:
            labels[labels == small] = small - 1
    labels, n_merges = merge_until_t_close(Z, dist, labels, t, atol=atol)
    return labels, n_merges, kp
