"""Exact k-nearest-neighbour search for mixed-type record embeddings, by categorical blocking.

A plain k-d tree (:class:`scipy.spatial.cKDTree`) over one-hot coded records is slow: its
per-axis cell bounds see only one of the two coordinates in which two categories differ, so it
visits most cells whose records differ in a category.  The record distance is, however, a sum
``d^2 = d_cont^2 + sum_c delta_c`` of a continuous part and categorical parts, and every
categorical group ``c`` that differs contributes at least ``delta_c > 0`` (its smallest non-zero
squared distance).  The search therefore runs in stages, each exact below a radius:

1. *same key* - a tree over the continuous coordinates plus the joint categorical key scaled by a
   large constant (records with another key are farther than the radius, so never returned).
   Every record differing in a category is at least ``r_1 = sqrt(min_c delta_c)`` away, hence
   the ``k`` neighbours found below ``r_1`` are the true ones.
2. *one category differs* - for each categorical group ``a``, a tree over the continuous
   coordinates, the coordinates of ``a`` and the key of the *other* groups, restricted to the
   blocks still needed.  Records differing in two or more groups are at least
   ``r_2 = sqrt(delta_(1) + delta_(2))`` away (two smallest ``delta``), so the merged candidates
   below ``r_2`` are exact.
3. the rest - typically a few records far from everything (two or more categories differ) - by
   one cKDTree over all coordinates or by an exact chunked scan (BLAS), whichever is faster on a
   probe of 16 points.  Neither dominates: the scan wins with many one-hot coordinates and few records,
   the tree with few coordinates and many records.

No ``n x m`` distance matrix is ever formed.  Ties are broken arbitrarily (tree order); use
:meth:`BlockedIndex.count_within` to count tied records.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd
from scipy.spatial import cKDTree

__all__ = ["BlockedIndex", "brute_force_knn"]

_SHRINK = 1.0 - 1e-9  # keep exact radii strictly inside the bound despite rounding
_CHUNK = 16384
_PROBE = 16
_BRUTE_CELLS = 8_000_000  # squared distances held at once by the brute-force stage (64 MB)


def _combine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Dense codes of the pairs ``(a[i], b[i])`` (both non-negative int arrays)."""
    if len(a) == 0:
        return a.astype(np.int64)
    return pd.factorize(a.astype(np.int64) * (int(b.max()) + 1) + b.astype(np.int64))[0].astype(np.int64)


def _joint_key(codes: np.ndarray, cols: Sequence[int]) -> np.ndarray:
    key = np.zeros(codes.shape[0], dtype=np.int64)
    for c in cols:
        key = _combine(key, codes[:, c])
    return key


def _tree(data: np.ndarray) -> cKDTree:
    # unbalanced sliding-midpoint trees skip the median splits at build time and query about as fast
    return cKDTree(data, balanced_tree=False, compact_nodes=False)


def _topk_unique(dist: np.ndarray, idx: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Row-wise ``k`` smallest distances over candidate lists that may repeat an index."""
    order = np.argsort(idx, axis=1, kind="stable")
    idx = np.take_along_axis(idx, order, axis=1)
    dist = np.take_along_axis(dist, order, axis=1)
    dup = np.zeros(idx.shape, dtype=bool)
    dup[:, 1:] = (idx[:, 1:] == idx[:, :-1]) & (idx[:, 1:] >= 0)
    dist = np.where(dup, np.inf, dist)
    idx = np.where(dup, -1, idx)
    order = np.argsort(dist, axis=1, kind="stable")[:, :k]
    return np.take_along_axis(dist, order, axis=1), np.take_along_axis(idx, order, axis=1)


class BlockedIndex:
    """Exact Euclidean k-NN over ``released`` (``m x D``, already weighted).

    ``continuous`` lists the continuous columns; ``categorical`` gives, for every categorical group
    taking part in the key, its column range ``(start, stop)``, with ``codes[:, c]`` its value codes
    for each released record and ``delta[c] > 0`` its smallest non-zero weighted squared distance.
    Queries must carry value codes from the same code space.  Columns outside ``continuous`` and
    ``categorical`` must be zero (e.g. zero-weight attributes).
    """

    def __init__(
        self,
        released: np.ndarray,
        continuous: np.ndarray,
        categorical: Sequence[tuple[int, int]],
        codes: np.ndarray,
        delta: np.ndarray,
        *,
        workers: int = -1,
    ):
        self.released = np.ascontiguousarray(released, dtype=float)
        self.m = self.released.shape[0]
        self.continuous = np.asarray(continuous, dtype=np.int64)
        self.categorical = [tuple(map(int, c)) for c in categorical]
        self.codes = np.asarray(codes, dtype=np.int64).reshape(self.m, len(self.categorical))
        self.delta = np.asarray(delta, dtype=float)
        if np.any(~(self.delta > 0)):
            raise ValueError("categorical groups in the key need delta > 0")
        self.workers = workers
        srt = np.sort(self.delta)
        self.r1 = math.sqrt(srt[0]) * _SHRINK if len(srt) >= 1 else math.inf
        self.r2 = math.sqrt(srt[0] + srt[1]) * _SHRINK if len(srt) >= 2 else math.inf
        self.big1 = 2.0 * self.r1 + 1.0 if math.isfinite(self.r1) else math.inf
        self.big2 = 2.0 * self.r2 + 1.0 if math.isfinite(self.r2) else math.inf
        # contiguous per-part copies: gathering rows of thin arrays is much cheaper than of R
        self._cont = np.ascontiguousarray(self.released[:, self.continuous])
        self._cat = [np.ascontiguousarray(self.released[:, a:b]) for a, b in self.categorical]
        self._same: cKDTree | None = None
        self._full: cKDTree | None = None
        self._far_method: str | None = None  # "tree" or "scan", chosen on a probe
        self._rsq: np.ndarray | None = None

    # ------------------------------------------------------------------ helpers
    def _keys(self, qcodes: np.ndarray, groups: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """Joint keys of ``groups`` for the queries and the released records.

        Released rows come first in the factorization, so their keys do not depend on the queries
        (codes follow first appearance); a query key absent from the release gets a new value."""
        qcodes = np.asarray(qcodes, dtype=np.int64)
        both = np.vstack([self.codes, qcodes.reshape(len(qcodes), len(self.categorical))])
        key = _joint_key(both, groups)
        return key[self.m :], key[: self.m]

    @staticmethod
    def _points(cont: np.ndarray, blocks: Sequence[np.ndarray], key: np.ndarray | None, big: float) -> np.ndarray:
        """Stage coordinates ``[continuous | blocks | key * big]`` (key omitted when ``big`` is inf)."""
        use_key = key is not None and math.isfinite(big)
        width = cont.shape[1] + sum(b.shape[1] for b in blocks) + int(use_key)
        if width == 0:  # nothing distinguishes the records: one constant coordinate
            return np.zeros((len(cont), 1))
        out = np.empty((len(cont), width))
        out[:, : cont.shape[1]] = cont
        pos = cont.shape[1]
        for b in blocks:
            out[:, pos : pos + b.shape[1]] = b
            pos += b.shape[1]
        if use_key:
            out[:, pos] = key * big
        return out

    def _same_key(self, qcodes: np.ndarray) -> tuple[cKDTree, np.ndarray]:
        """Stage-1 tree (cached) and the query keys."""
        qkey, rkey = self._keys(qcodes, range(len(self.categorical)))
        if self._same is None:
            self._same = _tree(self._points(self._cont, [], rkey, self.big1))
        return self._same, qkey

    def _brute_sq(self, points: np.ndarray, rows: np.ndarray):
        """Yield ``(rows chunk, squared distances chunk x m)``, at most ~64 MB at a time."""
        if self._rsq is None:
            self._rsq = np.einsum("ij,ij->i", self.released, self.released)
        step = max(1, _BRUTE_CELLS // max(self.m, 1))
        for start in range(0, len(rows), step):
            part = rows[start : start + step]
            p = points[part]
            d2 = self._rsq[None, :] - 2.0 * (p @ self.released.T)
            d2 += np.einsum("ij,ij->i", p, p)[:, None]
            np.maximum(d2, 0.0, out=d2)
            yield part, d2

    def _brute(self, points: np.ndarray, rows: np.ndarray, k: int):
        """Yield ``(rows chunk, distances, indices)`` of the exact ``k`` nearest, by scanning."""
        for part, d2 in self._brute_sq(points, rows):
            if k < self.m:
                cand = np.argpartition(d2, k - 1, axis=1)[:, :k]
            else:
                cand = np.broadcast_to(np.arange(self.m), (len(part), self.m)).copy()
            # exact distances of the candidates from coordinate differences (no cancellation)
            diff = points[part][:, None, :] - self.released[cand]
            d = np.sqrt(np.einsum("ijk,ijk->ij", diff, diff))
            order = np.argsort(d, axis=1, kind="stable")
            yield part, np.take_along_axis(d, order, axis=1), np.take_along_axis(cand, order, axis=1)

    def _full_tree(self) -> cKDTree:
        if self._full is None:
            self._full = _tree(self.released)
        return self._full

    def _tree_knn(self, points: np.ndarray, rows: np.ndarray, k: int):
        d, i = self._full_tree().query(points[rows], k=k, workers=self.workers)
        return d.reshape(len(rows), k), i.reshape(len(rows), k)

    def _far_knn(self, points: np.ndarray, rows: np.ndarray, k: int):
        """Yield ``(rows chunk, distances, indices)`` for the stage-3 points, choosing the method."""
        if self._far_method is None and len(rows) > 2 * _PROBE:
            probe, rows = rows[:_PROBE], rows[_PROBE:]
            self._full_tree()
            t0 = time.perf_counter()
            yield (probe, *self._tree_knn(points, probe, k))
            t1 = time.perf_counter()
            probe, rows = rows[:_PROBE], rows[_PROBE:]
            yield from self._brute(points, probe, k)
            t2 = time.perf_counter()
            self._far_method = "tree" if t1 - t0 <= t2 - t1 else "scan"
        if self._far_method == "scan":
            yield from self._brute(points, rows, k)
        else:
            for start in range(0, len(rows), _CHUNK):
                part = rows[start : start + _CHUNK]
                yield (part, *self._tree_knn(points, part, k))

    # ------------------------------------------------------------------ k-NN
    def query(
        self,
        points: np.ndarray,
        qcodes: np.ndarray,
        k: int,
        progress: Callable[[int, int], None] | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Distances and indices of the ``k`` nearest released records of every query point.

        Rows are sorted by distance; missing neighbours (``k > m``) are ``inf`` / ``-1``.
        ``progress(done, total)`` is called as queries are finalised.
        """
        points = np.ascontiguousarray(points, dtype=float)
        qcodes = np.asarray(qcodes, dtype=np.int64).reshape(len(points), len(self.categorical))
        n = len(points)
        keff = min(k, self.m)
        dist = np.full((n, k), np.inf)
        idx = np.full((n, k), -1, dtype=np.int64)
        if n == 0 or keff == 0:
            return dist, idx
        done = 0

        def advance(count: int) -> None:
            nonlocal done
            done += count
            if progress is not None:
                progress(done, n)

        qcont = points[:, self.continuous]
        todo = self._query_same_key(qcont, qcodes, keff, dist, idx, advance)
        if len(todo) and len(self.categorical) >= 1:
            todo = self._query_one_differs(points, qcont, qcodes, todo, keff, dist, idx, advance)

        # stage 3: everything else (typically few points, far from every record): one k-d tree over
        # all coordinates or an exact chunked scan, whichever is faster on a probe of the points -
        # the tree wins on low-dimensional data, the scan on many one-hot coordinates.
        if len(todo):
            for part, d, i in self._far_knn(points, todo, keff):
                dist[part, :keff] = d
                idx[part, :keff] = i
                advance(len(part))
        return dist, idx

    def _query_same_key(
        self,
        qcont: np.ndarray,
        qcodes: np.ndarray,
        keff: int,
        dist: np.ndarray,
        idx: np.ndarray,
        advance: Callable[[int], None],
    ) -> np.ndarray:
        """Stage 1 of :meth:`query`: neighbours sharing the joint key, exact below ``r1``; fills ``dist`` and
        ``idx`` for the queries it resolves and returns the others."""
        n = len(qcont)
        tree, qkey = self._same_key(qcodes)
        unresolved = []
        for start in range(0, n, _CHUNK):
            stop = min(n, start + _CHUNK)
            qpts = self._points(qcont[start:stop], [], qkey[start:stop], self.big1)
            d, i = tree.query(qpts, k=keff, distance_upper_bound=self.r1, workers=self.workers)
            d, i = d.reshape(stop - start, keff), i.reshape(stop - start, keff)
            ok = np.isfinite(d[:, -1])
            rows = start + np.flatnonzero(ok)
            dist[rows, :keff] = d[ok]
            idx[rows, :keff] = i[ok]
            unresolved.append(start + np.flatnonzero(~ok))
            advance(len(rows))
        return np.concatenate(unresolved)

    def _query_one_differs(
        self,
        points: np.ndarray,
        qcont: np.ndarray,
        qcodes: np.ndarray,
        todo: np.ndarray,
        keff: int,
        dist: np.ndarray,
        idx: np.ndarray,
        advance: Callable[[int], None],
    ) -> np.ndarray:
        """Stage 2 of :meth:`query`: neighbours differing in at most one categorical group, exact below
        ``r2`` (one tree per group); fills ``dist`` and ``idx`` for the ``todo`` queries it resolves and
        returns the others."""
        n_cat = len(self.categorical)
        cand_d, cand_i = [], []
        qc_todo = qcodes[todo]
        for a in range(n_cat):
            others = [c for c in range(n_cat) if c != a]
            qk, rk = self._keys(qc_todo, others)
            sel = np.flatnonzero(np.isin(rk, qk)) if others else np.arange(self.m)
            if len(sel) == 0:
                continue
            big = self.big2 if others else math.inf
            lo, hi = self.categorical[a]
            t2 = _tree(self._points(self._cont[sel], [self._cat[a][sel]], rk[sel], big))
            kk = min(keff, len(sel))
            d, i = t2.query(
                self._points(qcont[todo], [points[todo, lo:hi]], qk, big),
                k=kk,
                distance_upper_bound=self.r2,
                workers=self.workers,
            )
            d, i = d.reshape(len(todo), kk), i.reshape(len(todo), kk)
            cand_d.append(d)
            cand_i.append(np.where(np.isfinite(d), sel[np.minimum(i, len(sel) - 1)], -1))
        if not cand_d:
            return todo
        d, i = _topk_unique(np.hstack(cand_d), np.hstack(cand_i), keff)
        if d.shape[1] < keff:  # fewer candidates than k in every tree
            pad = keff - d.shape[1]
            d = np.hstack([d, np.full((len(todo), pad), np.inf)])
            i = np.hstack([i, np.full((len(todo), pad), -1)])
        ok = d[:, -1] < self.r2
        dist[todo[ok], :keff] = d[ok]
        idx[todo[ok], :keff] = i[ok]
        advance(int(ok.sum()))
        return todo[~ok]

    # ------------------------------------------------------------------ ties
    def count_within(self, points: np.ndarray, qcodes: np.ndarray, radius: np.ndarray) -> np.ndarray:
        """Number of released records at distance ``<= radius[i]`` of each query point."""
        points = np.ascontiguousarray(points, dtype=float)
        qcodes = np.asarray(qcodes, dtype=np.int64).reshape(len(points), len(self.categorical))
        radius = np.asarray(radius, dtype=float)
        out = np.zeros(len(points), dtype=np.int64)
        if len(points) == 0:
            return out
        small = radius < self.r1
        if small.any():
            tree, qkey = self._same_key(qcodes[small])
            qpts = self._points(points[small][:, self.continuous], [], qkey, self.big1)
            out[small] = tree.query_ball_point(qpts, radius[small], return_length=True, workers=self.workers)
        if (~small).any():
            far = np.flatnonzero(~small)
            if self._far_method == "tree":
                out[far] = self._full_tree().query_ball_point(
                    points[far], radius[far], return_length=True, workers=self.workers
                )
            else:
                for part, d2 in self._brute_sq(points, far):
                    r = radius[part]
                    out[part] = np.count_nonzero(d2 <= (r * r)[:, None], axis=1)
        return out


def brute_force_knn(
    points: np.ndarray, released: np.ndarray, k: int, chunk: int = 512
) -> tuple[np.ndarray, np.ndarray]:
    """Reference k-NN by chunked dense distances (``chunk x m`` at a time); for tests and checks.

    Candidates are selected on the BLAS expansion ``|p|^2 + |r|^2 - 2 p.r`` and their distances
    recomputed from coordinate differences, so exact duplicates come out at distance 0."""
    points = np.asarray(points, dtype=float)
    released = np.asarray(released, dtype=float)
    n, m = len(points), len(released)
    keff = min(k, m)
    dist = np.full((n, k), np.inf)
    idx = np.full((n, k), -1, dtype=np.int64)
    if keff == 0:
        return dist, idx
    rsq = np.einsum("ij,ij->i", released, released)
    for start in range(0, n, chunk):
        p = points[start : start + chunk]
        d2 = np.einsum("ij,ij->i", p, p)[:, None] + rsq[None, :] - 2.0 * p @ released.T
        part = np.argpartition(d2, keff - 1, axis=1)[:, :keff] if keff < m else np.tile(np.arange(m), (len(p), 1))
        diff = p[:, None, :] - released[part]
        d = np.sqrt(np.einsum("ijk,ijk->ij", diff, diff))
        order = np.argsort(d, axis=1, kind="stable")
        dist[start : start + len(p), :keff] = np.take_along_axis(d, order, axis=1)
        idx[start : start + len(p), :keff] = np.take_along_axis(part, order, axis=1)
    return dist, idx
