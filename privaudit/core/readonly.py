"""Read-only views of what the audit shares between checks: the class summary and the tables.

Every check reads the same class summary (``ctx.summary``) and the same tables, so one check (a
third-party plugin, say) that wrote into them would change every later check's figures. Freezing marks
their numpy buffers read-only: a write raises ``ValueError: assignment destination is read-only``, which
ends that check as ``error`` and leaves the shared figures as they were. Freezing sets a flag on each
buffer (no copy), so it costs nothing measurable however large the table.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

#: the numpy buffers inside pandas' extension arrays (Categorical codes, masked values and masks, strings)
_INNER = ("_ndarray", "_data", "_mask", "_codes")


def freeze_array(array: Any) -> Any:
    """``array`` with its buffer marked read-only (a numpy array, or a pandas extension array's buffers)."""
    if isinstance(array, np.ndarray):
        array.flags.writeable = False
    elif array is not None:
        for name in _INNER:
            inner = getattr(array, name, None)
            if isinstance(inner, np.ndarray):
                inner.flags.writeable = False
    return array


def freeze_frame(frame: pd.DataFrame | None) -> pd.DataFrame | None:
    """Mark every column buffer of ``frame`` read-only (in place; pandas then refuses in-place writes)."""
    if frame is not None:
        for array in frame._mgr.arrays:
            freeze_array(array)
    return frame


def freeze_matrix(matrix: Any) -> Any:
    """A scipy sparse matrix's buffers (``data``, ``indices``, ``indptr``) marked read-only."""
    for name in ("data", "indices", "indptr"):
        freeze_array(getattr(matrix, name, None))
    return matrix


def freeze_summary(summary: Any) -> Any:
    """The class summary (``privaudit.core.summary.ClassSummary``) with every array read-only: per-class
    figures, the records' order, the per-sensitive-column counts and domains, and the table it points into."""
    for value in vars(summary).values():
        if isinstance(value, np.ndarray):
            freeze_array(value)
        elif isinstance(value, pd.DataFrame):
            freeze_frame(value)
    for counts in summary.sensitive.values():
        freeze_array(counts.values)
        freeze_array(counts.total)
        freeze_matrix(counts.counts)
    return summary
