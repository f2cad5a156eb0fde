"""Comparisons with a threshold beyond rounding (:func:`exceeds`, :func:`reaches`), and the one tie tolerance
of distances (:func:`tie_bound`): the checks, the remediators, the report's bins and the linkage mathematics
all judge "equal up to rounding" the same way."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover - imported by the comparisons: a plugin module importing them stays light
    import numpy as np

__all__ = ["TIE_ATOL", "TIE_RTOL", "TOLERANCE", "exceeds", "reaches", "tie_bound"]

#: Relative slack for comparisons with a threshold, so that a figure equal to the threshold in exact arithmetic
#: (0.1 + 0.2 against 0.3) is not judged by its last rounding bit.
TOLERANCE = 1e-12

#: Distances within ``d * (1 + TIE_RTOL) + TIE_ATOL`` of a nearest distance ``d`` tie with it: the relative part
#: absorbs the rounding of sums of squares computed in different orders (numpy, DuckDB), the absolute part a
#: nearest distance of zero.
TIE_RTOL = 1e-9
TIE_ATOL = 1e-12


def exceeds(x: np.ndarray | float, bound: np.ndarray | float) -> np.ndarray | bool:
    """``x > bound`` beyond rounding: by more than :data:`TOLERANCE` relative to ``max(1, |bound|)``."""
    import numpy as np

    bound = np.asarray(bound, dtype=float)
    out = np.asarray(x) > bound + TOLERANCE * np.maximum(1.0, np.abs(bound))
    return bool(out) if out.ndim == 0 else out


def reaches(x: np.ndarray | float, bound: np.ndarray | float) -> np.ndarray | bool:
    """``x >= bound`` up to rounding (the passing side of ``x >= l``, the failing side of ``x < c``)."""
    import numpy as np

    bound = np.asarray(bound, dtype=float)
    out = np.asarray(x) >= bound - TOLERANCE * np.maximum(1.0, np.abs(bound))
    return bool(out) if out.ndim == 0 else out


def tie_bound(nearest: np.ndarray | float) -> np.ndarray | float:
    """The largest distance that ties with the ``nearest`` distance (see :data:`TIE_RTOL`)."""
    return nearest * (1 + TIE_RTOL) + TIE_ATOL
