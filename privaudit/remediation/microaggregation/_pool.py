"""Pool of not-yet-clustered records with fast vectorised distance queries.

The greedy microaggregation heuristics (MDAV and the t-closeness variants)
repeatedly ask for the centroid of the remaining records, distances from one
point to all of them, and then remove a handful of records.  Copying the
remaining rows after every removal (boolean indexing) costs O(n p) memory
traffic per cluster and dominates the run time; instead the pool stores the
records column-wise and deletes by *swap-remove* (the last rows fill the
holes), which costs O(k p).  The centroid is maintained as a running sum.
"""

from __future__ import annotations

import numpy as np


class RecordPool:
    """Remaining records of a standardised QI matrix ``Z`` (rows = records)."""

    def __init__(self, Z: np.ndarray, ids: np.ndarray | None = None):
        Z = np.asarray(Z, dtype=np.float64)
        if ids is None:
            ids = np.arange(Z.shape[0])
        self.cols = np.array(Z[ids].T, order="C")  # (p, N): one contiguous row per QI
        self.ids = np.array(ids, dtype=np.intp)  # original index of each slot
        self.size = self.ids.size
        self._sum = self.cols.sum(axis=1)
        self._buf = np.empty(self.size)

    def __len__(self) -> int:
        return self.size

    def centroid(self) -> np.ndarray:
        return self._sum / self.size

    def point(self, pos: int) -> np.ndarray:
        return self.cols[:, pos].copy()

    def sq_dist(self, x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """Squared Euclidean distances from ``x`` to every remaining record.

        If ``out`` (length >= current size) is given the result is written
        into its leading slice, avoiding a large allocation per call.
        """
        n = self.size
        d = np.subtract(self.cols[0, :n], x[0], out=None if out is None else out[:n])
        d *= d
        tmp = self._buf[:n]
        for j in range(1, self.cols.shape[0]):
            np.subtract(self.cols[j, :n], x[j], out=tmp)
            tmp *= tmp
            d += tmp
        return d

    def remove(self, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Remove the records at the (distinct) slots ``positions``.

        Returns ``(moved_from, moved_to)``: the old and new slots of the
        records that were moved from the tail into the holes.
        """
        positions = np.sort(np.asarray(positions, dtype=np.intp))
        r = positions.size
        n_new = self.size - r
        self._sum -= self.cols[:, positions].sum(axis=1)
        holes = positions[positions < n_new]
        in_tail = np.zeros(r, dtype=bool)
        in_tail[positions[holes.size :] - n_new] = True
        movers = n_new + np.flatnonzero(~in_tail)
        self.cols[:, holes] = self.cols[:, movers]
        self.ids[holes] = self.ids[movers]
        self.size = n_new
        return movers, holes
