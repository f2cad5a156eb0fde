"""l-diversity per equivalence class (Machanavajjhala, Kifer, Gehrke & Venkitasubramaniam, "l-Diversity:
Privacy Beyond k-Anonymity", ICDE 2006 / TKDD 2007: distinct values, entropy l-diversity exp(H) and the
recursive (c,l) ratio), for all classes at once from the shared summary's sparse class x value counts, a
block of classes at a time (the assessor, :mod:`privaudit.assessors.l_diversity`, compares them with l and c).
"""

from __future__ import annotations

import numpy as np

from privaudit.core.summary import SensitiveCounts


def distinct_per_class(sc: SensitiveCounts) -> np.ndarray:
    return sc.distinct.astype(float)


def entropy_per_class(sc: SensitiveCounts) -> np.ndarray:
    """exp of the Shannon entropy (natural log) of each class's sensitive distribution."""
    totals = sc.class_totals.astype(float)
    h = np.empty(len(totals))
    for c0, c1, e0, e1, rows in sc.blocks():
        p = sc.counts.data[e0:e1] / totals[c0:c1][rows]
        h[c0:c1] = np.bincount(rows, weights=p * np.log(p), minlength=c1 - c0)
    out = np.exp(-h)
    out[totals == 0] = 0.0
    return out


def recursive_ratio_per_class(sc: SensitiveCounts, l: int) -> np.ndarray:
    """r_1 / (r_l + ... + r_m) per class, counts sorted descending; inf with fewer than l values."""
    totals = sc.class_totals
    n = len(totals)
    r1 = np.zeros(n)
    head = np.zeros(n)  # r_1 + ... + r_{l-1}
    indptr = sc.counts.indptr
    filled = np.flatnonzero(np.diff(indptr) > 0)
    if l <= 2 and len(filled):  # only the largest count matters: no sort
        r1[filled] = np.maximum.reduceat(sc.counts.data, indptr[filled])
        if l == 2:
            head = r1
    elif len(filled):
        for c0, c1, e0, e1, rows in sc.blocks():
            data = sc.counts.data[e0:e1]
            if not len(data):
                continue
            top = int(data.max()) + 1
            # one integer sort orders each class's counts descending (class in the high part of the key)
            key = rows * top + (top - 1 - data)
            key.sort()
            block_rows = key // top
            sorted_data = top - 1 - (key - block_rows * top)
            rank = np.arange(len(key)) - (indptr[c0:c1][block_rows] - e0)
            first = rank == 0
            r1[c0 + block_rows[first]] = sorted_data[first]
            head[c0:c1] = np.bincount(block_rows, weights=np.where(rank < l - 1, sorted_data, 0), minlength=c1 - c0)
    tail = totals - head
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(tail > 0, r1 / np.where(tail > 0, tail, 1), np.inf)
    return ratio
