"""The windowed k-nearest search of privaudit/risk/synthetic_attacks/windows.py against a search over every record."""

from __future__ import annotations

import numpy as np
import pytest

import privaudit.risk.synthetic_attacks.neighbours as neighbours
from privaudit.risk.synthetic_attacks.neighbours import gower_block, gower_neighbours


def _brute(queries, candidates, numeric, ranges, k, priority):
    dist = gower_block(queries, candidates, numeric, ranges)
    rank = np.empty(len(candidates), dtype=np.int64)
    rank[priority] = np.arange(len(candidates))
    order = np.lexsort((np.broadcast_to(rank, dist.shape), dist), axis=1)[:, :k]
    return order, np.take_along_axis(dist, order, axis=1)


@pytest.mark.parametrize("k", [2, 3, 10])
def test_windows_equal_a_search_over_every_record(monkeypatch, k):
    """Continuous and coarse numeric columns, repeated records, ties, missing values, rare groups (left to
    the full search): the k nearest by (distance, priority) and their distances are the same."""
    monkeypatch.setattr(neighbours, "WINDOW_MIN", 0)
    rng = np.random.default_rng(k)
    for trial in range(60):
        n, d = int(rng.integers(1, 150)), int(rng.integers(1, 5))
        numeric = rng.random(d) < 0.5
        numeric[rng.integers(d)] = True
        candidates = rng.integers(0, 3, (n, d)).astype(float)
        queries = rng.integers(0, 4, (25, d)).astype(float)
        for j in np.flatnonzero(numeric):
            if rng.random() < 0.5:  # continuous, with a few repeats
                candidates[:, j] = rng.normal(size=n).round(int(rng.integers(0, 3)))
                queries[:, j] = np.where(
                    rng.random(25) < 0.3, candidates[rng.integers(0, n, 25), j], rng.normal(size=25).round(2)
                )
            else:  # values whose sums round differently in different orders
                values = np.array([0.1, 0.2, 0.3, 1 / 3])
                candidates[:, j], queries[:, j] = values[rng.integers(0, 4, n)], values[rng.integers(0, 4, 25)]
        candidates[rng.random((n, d)) < 0.1] = np.nan
        queries[rng.random((25, d)) < 0.1] = np.nan
        candidates = np.vstack([candidates, candidates[rng.integers(0, n, n // 3)]])  # repeated records
        ranges = np.where(numeric, rng.choice([0.7, 3.0, 50.0]), 1.0)
        priority = rng.permutation(len(candidates))
        got = gower_neighbours(queries, candidates, numeric, ranges, k, priority)
        want = _brute(queries, candidates, numeric, ranges, min(k, len(candidates)), priority)
        assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1]), trial
