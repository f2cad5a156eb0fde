"""Histograms of per-class figures whose bins never straddle the threshold.

The report draws each class's figure against the policy's threshold and colours the bars that fail.
A bin straddling the threshold would hold passing and failing classes at once, so the threshold is
always a bin edge here, and which side of an edge a figure equal to it falls on follows the check:

* ``closed="right"`` — bins ``(a, b]``: a figure equal to the threshold lands below it (checks that
  pass iff ``figure <= threshold``, like β-likeness);
* ``closed="left"`` — bins ``[a, b)``: it lands above (checks that pass iff ``figure < threshold``,
  like δ-disclosure privacy).

The result has the shape privaudit's report helpers draw (``privaudit.plugin.sections.
value_histogram_figure``): ``{"edges": [...], "counts": [...], "infinite": n}``; classes whose figure
is NaN (no sensitive value) are left out, infinite ones are counted in ``infinite``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np


def threshold_edges(top: float, threshold: float, bins: int = 20) -> np.ndarray:
    """Bin edges from 0 to ``max(top, threshold)`` with ``threshold`` among them; the bins below and
    above it share ``bins`` in proportion to the lengths they cover (at least one each)."""
    threshold = float(threshold)
    hi = max(float(top), threshold)
    if hi <= threshold:  # nothing above the threshold: bins up to it only
        return np.linspace(0.0, threshold, bins + 1) if threshold > 0 else np.array([0.0, 1.0])
    below = int(np.clip(round(bins * threshold / hi), 1, bins - 1))
    return np.concatenate((np.linspace(0.0, threshold, below + 1), np.linspace(threshold, hi, bins - below + 1)[1:]))


def threshold_histogram(values: np.ndarray, threshold: float, closed: Literal["left", "right"], bins: int = 20) -> dict:
    """Counts of the finite ``values`` (all >= 0) in :func:`threshold_edges` bins, plus the number of
    infinite ones."""
    values = np.asarray(values, dtype=float)
    finite = values[np.isfinite(values)]
    edges = threshold_edges(finite.max() if len(finite) else 0.0, threshold, bins)
    side = "left" if closed == "right" else "right"
    index = np.clip(np.searchsorted(edges, finite, side=side) - 1, 0, len(edges) - 2)
    counts = np.bincount(index, minlength=len(edges) - 1)
    return {
        "edges": [float(e) for e in edges],
        "counts": [int(c) for c in counts],
        "infinite": int(np.isinf(values).sum()),
    }


def failing_bins(edges: Sequence[float], threshold: float) -> list[bool]:
    """Which bins of a :func:`threshold_histogram` lie on the failing (upper) side of ``threshold``."""
    return [float(lo) >= float(threshold) for lo in edges[:-1]]
