"""Public entry point: run a microaggregation algorithm and check its output.

:func:`microaggregate` dispatches to MDAV or one of the three t-closeness
algorithms of Soria-Comas et al. (TKDE 2015), replaces each record's
quasi-identifiers by its cluster centroid (in the original units), and
reports cluster sizes, per-cluster EMD and the normalised SSE.  Every output
is checked with :func:`verify` (size >= k, EMD <= t, constant QIs within a
cluster).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from privaudit.remediation.microaggregation.cluster_emd import SensitiveDistribution
from privaudit.remediation.microaggregation.mdav import mdav
from privaudit.remediation.microaggregation.sse import as_matrix, cluster_means, normalized_sse, sse, standardize
from privaudit.remediation.microaggregation.tcloseness import (
    EMD_ATOL,
    k_anonymity_first,
    merge_until_t_close,
    t_closeness_first,
)

__all__ = ["ALGORITHMS", "MicroaggregationResult", "VerificationReport", "microaggregate", "verify"]

Algorithm = Literal["mdav", "merge", "k-anonymity-first", "t-closeness-first"]
ALGORITHMS: tuple[str, ...] = ("mdav", "merge", "k-anonymity-first", "t-closeness-first")


@dataclass(frozen=True)
class VerificationReport:
    """Outcome of :func:`verify`; truthy when every check passed."""

    ok: bool
    n_clusters: int
    min_size: int
    max_emd: float | None
    undersized: np.ndarray = field(repr=False)  # cluster ids with size < k
    not_t_close: np.ndarray = field(repr=False)  # cluster ids with EMD > t
    not_constant: np.ndarray = field(repr=False)  # cluster ids whose released QIs differ

    def __bool__(self) -> bool:
        return self.ok


def verify(
    labels, k: int, s=None, t: float | None = None, *, X_aggregated=None, atol: float = EMD_ATOL
) -> VerificationReport:
    """Check a clustering: every cluster has >= ``k`` records, and, when
    ``s`` and ``t`` are given, an EMD (ordered distance) to the table's
    distribution of ``s`` of at most ``t`` (+ ``atol``); when
    ``X_aggregated`` is given, all records of a cluster release identical QIs.
    ``s`` may also be a prebuilt :class:`SensitiveDistribution`.  The EMD is
    recomputed from scratch (:meth:`SensitiveDistribution.cluster_emd`).
    """
    labels = np.asarray(labels, dtype=np.intp).ravel()
    if labels.size == 0 or labels.min() < 0:
        raise ValueError("labels must be non-empty and non-negative")
    g = int(labels.max()) + 1
    sizes = np.bincount(labels, minlength=g)
    undersized = np.flatnonzero(sizes < k)  # includes unused (empty) label ids
    max_emd = None
    not_t_close = np.empty(0, dtype=np.intp)
    if s is not None:
        dist = s if isinstance(s, SensitiveDistribution) else SensitiveDistribution.from_values(s)
        if dist.n != labels.size:
            raise ValueError("s must have one entry per record")
        emd = dist.cluster_emd(labels, g)
        max_emd = float(emd.max())
        if t is not None:
            not_t_close = np.flatnonzero(emd > t + atol)
    not_constant = np.empty(0, dtype=np.intp)
    if X_aggregated is not None:
        A = as_matrix(X_aggregated)
        first = np.full(g, -1, dtype=np.intp)
        first[labels[::-1]] = np.arange(labels.size)[::-1]
        bad = np.any(A != A[first[labels]], axis=1)
        not_constant = np.unique(labels[bad])
    ok = undersized.size == 0 and not_t_close.size == 0 and not_constant.size == 0
    return VerificationReport(
        ok=bool(ok),
        n_clusters=g,
        min_size=int(sizes.min()),
        max_emd=max_emd,
        undersized=undersized,
        not_t_close=not_t_close,
        not_constant=not_constant,
    )


@dataclass(frozen=True)
class MicroaggregationResult:
    """Output of :func:`microaggregate`.

    ``labels[r]`` is the cluster of record ``r``; ``X_aggregated[r]`` its
    released QIs (the centroid of its cluster, in the input units);
    ``cluster_emd`` is None when no sensitive attribute was given;
    ``normalized_sse`` = SSE/SST on standardised QIs (see :mod:`.sse`);
    ``k_effective`` is Algorithm 3's ``k'`` (``k`` otherwise); ``n_merges``
    counts the cluster merges performed by Algorithm 1's merging step.
    """

    labels: np.ndarray
    X_aggregated: np.ndarray
    cluster_sizes: np.ndarray
    cluster_emd: np.ndarray | None
    normalized_sse: float
    sse: float
    algorithm: str
    k: int
    t: float | None
    k_effective: int
    n_merges: int
    verification: VerificationReport

    @property
    def n_clusters(self) -> int:
        return int(self.cluster_sizes.size)

    @property
    def min_cluster_size(self) -> int:
        return int(self.cluster_sizes.min())

    @property
    def mean_cluster_size(self) -> float:
        return float(self.cluster_sizes.mean())

    @property
    def max_emd(self) -> float | None:
        return None if self.cluster_emd is None else float(self.cluster_emd.max())


def _checked_arguments(
    X, s, k: int, t: float | None, algorithm: str
) -> tuple[np.ndarray, int, np.ndarray | None, SensitiveDistribution | None]:
    """The arguments of :func:`microaggregate` checked (a ValueError naming the wrong one): the QI matrix,
    ``k`` as an int, the sensitive values and their distribution (None without ``s``)."""
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r}; choose one of {ALGORITHMS}")
    A = as_matrix(X)
    n = A.shape[0]
    k = int(k)
    if k < 1:
        raise ValueError("k must be >= 1")
    if n < k:
        raise ValueError(f"cannot form clusters of {k} records from {n} records")
    s_arr = None if s is None else np.asarray(s).ravel()
    dist = None if s_arr is None else SensitiveDistribution.from_values(s_arr)
    if dist is not None and dist.n != n:
        raise ValueError("s must have one entry per row of X")
    if t is not None and not t >= 0:
        raise ValueError("t must be >= 0")
    if algorithm != "mdav" and (t is None or dist is None):
        raise ValueError(f"algorithm {algorithm!r} needs a sensitive attribute s and a level t")
    return A, k, s_arr, dist


def _clusters(
    algorithm: str,
    Z: np.ndarray,
    s_arr: np.ndarray | None,
    dist: SensitiveDistribution | None,
    k: int,
    t: float | None,
    progress: Callable[[int, int], None] | None,
) -> tuple[np.ndarray, int, int]:
    """The cluster labels of the standardised QIs ``Z`` under ``algorithm``, the number of cluster merges and
    the effective cluster size ``k`` (larger than ``k`` only for Algorithm 3)."""
    k_eff, n_merges = k, 0
    if algorithm == "mdav":
        labels = mdav(Z, k, standardized=True, progress=progress)
    elif algorithm == "merge":
        labels = mdav(Z, k, standardized=True, progress=progress)
        labels, n_merges = merge_until_t_close(Z, dist, labels, t)
    elif algorithm == "k-anonymity-first":
        labels, n_merges = k_anonymity_first(Z, dist, k, t, progress)
    else:
        labels, n_merges, k_eff = t_closeness_first(Z, s_arr, dist, k, t, progress)
    return labels, n_merges, k_eff


def microaggregate(
    X,
    s,
    k: int,
    t: float | None,
    algorithm: Algorithm = "t-closeness-first",
    progress: Callable[[int, int], None] | None = None,
    weights: np.ndarray | None = None,
) -> MicroaggregationResult:
    """Microaggregate the numeric quasi-identifiers ``X`` into k-anonymous
    (and, except for ``"mdav"``, t-close w.r.t. ``s``) clusters.

    Parameters
    ----------
    X:
        ``(n, p)`` numeric QIs (array or DataFrame); they are standardised
        for all distance computations.
    s:
        ``(n,)`` ordered (numeric) sensitive attribute; may be None for
        ``"mdav"``.
    k:
        Minimum cluster size (k-anonymity).
    t:
        t-closeness level (EMD with ordered distance).  Required except for
        ``"mdav"``, where it is only used to report whether the result
        happens to be t-close.
    algorithm:
        ``"mdav"`` (k-anonymity only), ``"merge"`` (Algorithm 1),
        ``"k-anonymity-first"`` (Algorithm 2) or ``"t-closeness-first"``
        (Algorithm 3).
    progress:
        Optional ``callable(done, total)`` receiving the number of records
        clustered so far.
    weights:
        Optional ``(p,)`` positive weights of the standardised QIs in every
        distance (a QI weighing more is kept closer within clusters: the
        importance of the QIs); None weighs them alike.

    Raises
    ------
    ValueError
        On invalid arguments (unknown algorithm, ``n < k``, missing ``t``/``s``).
    RuntimeError
        If a t-closeness algorithm's output failed :func:`verify` (a bug).
    """
    A, k, s_arr, dist = _checked_arguments(X, s, k, t, algorithm)

    Z = standardize(A)
    if weights is not None:
        Z = Z * np.asarray(weights, dtype=np.float64)[None, :]
    labels, n_merges, k_eff = _clusters(algorithm, Z, s_arr, dist, k, t, progress)

    g = int(labels.max()) + 1
    X_agg = cluster_means(A, labels, g)[labels]
    emd = None if dist is None else dist.cluster_emd(labels, g)
    report = verify(labels, k, dist, t, X_aggregated=X_agg)
    if algorithm != "mdav" and not report.ok:
        raise RuntimeError(f"{algorithm} produced an invalid clustering: {report}")
    return MicroaggregationResult(
        labels=labels,
        X_aggregated=X_agg,
        cluster_sizes=np.bincount(labels, minlength=g),
        cluster_emd=emd,
        normalized_sse=normalized_sse(A, labels),
        sse=sse(A, labels),
        algorithm=algorithm,
        k=k,
        t=t,
        k_effective=k_eff,
        n_merges=n_merges,
        verification=report,
    )
