"""The intruder's file: which original records the intruder holds (shared by both linkage methods)."""

from __future__ import annotations

import numpy as np


def intruder_sample(n: int, rows: float | int, seed: int) -> np.ndarray:
    """Sorted positions of the intruder's records: a fraction (float in (0, 1]) or a count (int).

    Same draw as the probabilistic linkage module for the same ``seed``, so both attacks can be run
    on the same intruder file.
    """
    if isinstance(rows, (bool, np.bool_)):
        raise TypeError("rows must be a fraction (float) or a count (int)")
    if isinstance(rows, (float, np.floating)):
        if not 0.0 < rows <= 1.0:
            raise ValueError("a fraction of rows must lie in (0, 1]")
        size = max(1, int(round(rows * n)))
    elif isinstance(rows, (int, np.integer)):
        if not 1 <= rows <= n:
            raise ValueError(f"a count of rows must lie in [1, {n}]")
        size = int(rows)
    else:
        raise TypeError("rows must be a fraction (float) or a count (int)")
    if size >= n:
        return np.arange(n)
    return np.sort(np.random.default_rng(seed).choice(n, size=size, replace=False))
