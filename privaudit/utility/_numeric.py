"""The numeric columns sdcMicro's utility measures compare (``dUtility``'s numVars, ``summary.micro``'s x and
xm): the given columns that hold numbers in both the release and the original, as float arrays."""

from __future__ import annotations

import numpy as np
import pandas as pd

from privaudit.utility.inputs import UtilityInputs


def numeric_pairs(inputs: UtilityInputs) -> tuple[list[str], np.ndarray, np.ndarray, dict[str, str]]:
    """(columns, original n x p, release n x p, left-out column -> why); computed once per audit."""
    cache = inputs.__dict__.setdefault("_numeric_pairs", {})
    if "pairs" not in cache:
        cache["pairs"] = _pairs(inputs)
    return cache["pairs"]


def _pairs(inputs: UtilityInputs) -> tuple[list[str], np.ndarray, np.ndarray, dict[str, str]]:
    cols, xs, ms, left = [], [], [], {}
    for c in inputs.numeric:
        if c not in inputs.release or c not in inputs.original:
            left[c] = "not in both tables"
            continue
        r, o = inputs.release[c], inputs.original[c]
        if not pd.api.types.is_numeric_dtype(r):
            left[c] = "the release holds text (generalized) in this column"
            continue
        if not pd.api.types.is_numeric_dtype(o):
            left[c] = "the original holds text in this column"
            continue
        cols.append(c)
        xs.append(o.to_numpy(dtype=float))
        ms.append(r.to_numpy(dtype=float))
    n = len(inputs.release)
    shape = (n, 0)
    x = np.column_stack(xs) if xs else np.empty(shape)
    m = np.column_stack(ms) if ms else np.empty(shape)
    return cols, x, m, left
