"""Standardisation of quasi-identifiers and the SSE information-loss measure.

Microaggregation replaces each record's quasi-identifiers (QIs) by the
centroid of its cluster.  Its information loss is the within-cluster sum of
squared errors (Soria-Comas et al., TKDE 2015, Eq. 5; Domingo-Ferrer &
Mateo-Sanz, IEEE TKDE 14(1), 2002)::

    SSE = sum_{clusters C} sum_{x in C} (x - c_C)^T (x - c_C)

computed on *standardised* QIs (each attribute centred and divided by its
population standard deviation) so that attributes with large ranges do not
dominate.

Normalisation used here: ``normalized SSE = SSE / SST`` where
``SST = sum_x (x - xbar)^T (x - xbar)`` is the total sum of squares of the
same standardised QIs (``SST = n * p`` for ``p`` non-constant attributes).
This is the customary ``SSE/SST`` ratio of the microaggregation literature:
it lies in ``[0, 1]``, is 0 when every record is its own cluster (k = 1) and
1 when the whole table is a single cluster, and equals the mean, over QIs,
of the fraction of each attribute's variance removed by aggregation.
"""

from __future__ import annotations

import numpy as np

__all__ = ["as_matrix", "standardize", "cluster_means", "sse", "normalized_sse"]


def as_matrix(X) -> np.ndarray:
    """Return ``X`` as a finite 2-D float64 array (a 1-D input is one column)."""
    A = np.asarray(X, dtype=np.float64)
    if A.ndim == 1:
        A = A[:, None]
    if A.ndim != 2:
        raise ValueError("X must be 1-D or 2-D")
    if not np.isfinite(A).all():
        raise ValueError("X contains NaN or infinite values")
    return A


def standardize(X) -> np.ndarray:
    """Z-scores per column (population std, ddof=0); constant columns become 0."""
    A = as_matrix(X)
    if A.shape[0] == 0:
        return A.copy()
    sd = A.std(axis=0)
    sd[sd == 0] = 1.0
    return (A - A.mean(axis=0)) / sd


def cluster_means(X, labels, n_clusters: int | None = None) -> np.ndarray:
    """Centroid (column means) of every cluster, shape ``(g, p)``."""
    A = as_matrix(X)
    labels = np.asarray(labels, dtype=np.intp).ravel()
    g = int(labels.max()) + 1 if n_clusters is None else int(n_clusters)
    sizes = np.bincount(labels, minlength=g).astype(np.float64)
    sums = np.stack([np.bincount(labels, weights=A[:, j], minlength=g) for j in range(A.shape[1])], axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return sums / sizes[:, None]


def sse(X, labels) -> float:
    """Within-cluster SSE of the standardised QIs (Eq. 5 of Soria-Comas et al.)."""
    Z = standardize(X)
    labels = np.asarray(labels, dtype=np.intp).ravel()
    if labels.size != Z.shape[0]:
        raise ValueError("labels must have one entry per record")
    if Z.shape[0] == 0:
        return 0.0
    dev = Z - cluster_means(Z, labels)[labels]
    return float(np.einsum("ij,ij->", dev, dev))


def normalized_sse(X, labels) -> float:
    """``SSE / SST`` on standardised QIs, in ``[0, 1]`` (0 if all QIs are constant)."""
    Z = standardize(X)
    sst = float(np.einsum("ij,ij->", Z, Z))
    if sst == 0.0:
        return 0.0
    return sse(X, labels) / sst
