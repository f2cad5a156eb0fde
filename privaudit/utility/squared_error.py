"""Squared errors of the release against the original, as ARX 3.9 computes them: ``sse_sst`` with
``column`` null is ``QualityModelRowOrientedSSESST`` (the sum of squared errors over the total sum of
squares, as in clustering: 1 - SSE/SST is the share of the original's spread the release keeps); with a
column, it is that column's attribute-level squared error, ``QualityModelColumnOrientedSquaredError``.

Each quasi-identifier becomes numbers first (``QualityModel.getColumnsAsNumbers``), an interval per
record:

* a numeric column (policy type ``numeric``, numbers in the original): the original value; a released
  number is itself; a released label the range of the original numbers of the records holding it (ARX's
  ``getNumbersFromNumericColumnAndHierarchy``; ARX first tries to parse interval labels such as
  ``[20, 30[`` with its range parser, which privaudit does not); a suppressed value the original's range;
* any other column: positions in the hierarchy's leaf order (``getNumbersFromHierarchy``): a leaf its
  index, a label the first and last index of the leaves under it, ``*`` the whole range.

SSE = sum over records and columns of the squared difference of the intervals' midpoints; SST = sum of
the squared differences of the released midpoints from the original's centroid (as ARX's ``getSST``);
``value = 1 - SSE / SST`` truncated to [0, 1], ``raw = SSE / SST``. ``details.attribute_level`` is ARX's mean over the columns of the attribute-level error
(``getAttributeLevelSquaredError().getArithmeticMean()``). Attribute-level: per record
``min(max((x - lo)^2, (x - hi)^2), d)`` with x the original, [lo, hi] the released interval and ``d`` the
largest squared distance of x from the original's range, summed and normalised by the sum of ``d``.
Needs ``--original``.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from privaudit.common.numeric import to_numeric
from privaudit.utility._aligned import aligned, outliers
from privaudit.utility.entries import arx_mean, arx_scale, entry
from privaudit.utility.inputs import UtilityInputs

NAME = "sse_sst"
NEEDS = frozenset({"original"})


def _hierarchy_intervals(matrix: np.ndarray) -> dict[str, tuple[int, int]]:
    bounds: dict[str, tuple[int, int]] = {}
    ids = np.arange(matrix.shape[0])
    for lv in range(matrix.shape[1]):
        frame = pd.DataFrame({"label": matrix[:, lv].astype(str), "id": ids})
        g = frame.groupby("label", sort=False)["id"].agg(["min", "max"])
        for t, lo, hi in zip(g.index.tolist(), g["min"].tolist(), g["max"].tolist(), strict=False):
            old = bounds.get(t)
            bounds[t] = (lo, hi) if old is None else (min(old[0], lo), max(old[1], hi))
    bounds.setdefault("*", (0, matrix.shape[0] - 1))
    return bounds


def intervals(inputs: UtilityInputs, column: str, numeric: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray] | str:
    """(original value, released lower bound, released upper bound) per record, or why the column cannot
    be turned into numbers."""
    dom = inputs.domains[column]
    a = aligned(inputs, column)
    outlier = outliers(inputs)
    if numeric:
        x = to_numeric(inputs.original[column], errors="coerce").to_numpy(dtype=float)
        if np.isnan(x).any():
            return "the original has missing values in this column"
        lo_all, hi_all = float(x.min()), float(x.max())
        released = inputs.release[column]
        if pd.api.types.is_numeric_dtype(released):
            y = released.to_numpy(dtype=float)
            lo = np.where(np.isnan(y) | outlier, lo_all, y)
            hi = np.where(np.isnan(y) | outlier, hi_all, y)
            return x, lo, hi
        codes = a.released
        width = len(a.labels) + 1
        c = np.where(codes < 0, width - 1, codes)
        bounds = pd.Series(x).groupby(c).agg(["min", "max"])  # the original's range under each released label
        mins = np.full(width, np.inf)
        maxs = np.full(width, -np.inf)
        mins[bounds.index.to_numpy()] = bounds["min"].to_numpy()
        maxs[bounds.index.to_numpy()] = bounds["max"].to_numpy()
        empty = a.suppressed(outlier, dom.root if dom.source == "hierarchy" else None)
        lo = np.where(empty, lo_all, mins[c])
        hi = np.where(empty, hi_all, maxs[c])
        return x, lo, hi
    if a.unknown_original:
        return f"{a.unknown_original} distinct original values are not leaves of the hierarchy"
    if (a.leaf < 0).any():
        return "the original has missing values in this column"
    bounds = _hierarchy_intervals(dom.matrix)
    missing = [t for t in a.labels if t not in bounds and t != ""]
    if missing:
        return f"{len(missing)} distinct released values are not in the hierarchy (ARX gives no figure)"
    table = np.array([bounds.get(t, bounds["*"]) for t in a.labels] + [bounds["*"]], dtype=float)
    lo, hi = table[a.released, 0], table[a.released, 1]
    lo = np.where(outlier, bounds["*"][0], lo)
    hi = np.where(outlier, bounds["*"][1], hi)
    return a.leaf.astype(float), lo, hi


def attribute_error(x: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> tuple[float, float]:
    """ARX's attribute-level squared error of one column: (result, maximum)."""
    xmin, xmax = float(x.min()), float(x.max())
    d = np.maximum((x - xmin) ** 2, (x - xmax) ** 2)
    diff = np.maximum((x - lo) ** 2, (x - hi) ** 2)
    return float(np.minimum(diff, d).sum()), float(d.sum())


def measure(inputs: UtilityInputs, numeric_columns=()) -> list[dict]:
    numeric = set(inputs.numeric) | set(numeric_columns)
    out, sse, sst, used, left_out = [], 0.0, 0.0, [], {}
    results, maxima = [], []
    for q in inputs.quasi_identifiers:
        got = intervals(inputs, q, q in numeric)
        if isinstance(got, str):
            left_out[q] = got
            out.append(entry(NAME, q, None, None, model="attribute-level squared error", reason=got))
            continue
        x, lo, hi = got
        result, maximum = attribute_error(x, lo, hi)
        results.append(result), maxima.append(maximum)
        out.append(
            entry(
                NAME,
                q,
                arx_scale(result, 0.0, maximum),
                result,
                model="attribute-level squared error",
                minimum=0.0,
                maximum=maximum,
                scale="numeric" if q in numeric else "hierarchy positions",
            )
        )
        mid = (lo + hi) / 2.0
        sse += float(((x - mid) ** 2).sum())
        sst += float(((mid - x.mean()) ** 2).sum())
        used.append(q)
    if inputs.quasi_identifiers:
        ratio = sse / sst if sst > 0 else math.nan
        details = {
            "model": "SSE/SST",
            "sse": sse,
            "sst": sst,
            "columns": used,
            "attribute_level": arx_mean(results, [0.0] * len(results), maxima) if used else None,
        }
        if left_out:
            details["left_out"] = left_out
        if not used:
            details["reason"] = "no quasi-identifier could be turned into numbers"
        out.insert(0, entry(NAME, None, arx_scale(sse, 0.0, sst) if used else None, ratio if used else None, **details))
    return out
