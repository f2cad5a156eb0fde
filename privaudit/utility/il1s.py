"""IL1s: sdcMicro's standardised absolute deviation (``dUtility(method = "IL1s")``, R/dUtility.R,
whose code is the definition followed here; sdcMicro's manual refers to Mateo-Sanz, Sebé & Domingo-Ferrer,
"Outlier protection in continuous microdata masking", PSD 2004, pp. 201-215).

``raw`` is sdcMicro's figure, ``sum_j sum_i |x_ij - x'_ij| / (sd(x_j) sqrt 2)`` over the numeric columns
(missing cells left out, ``na.rm = TRUE``; sd with n - 1, R's ``sd``); per column, that column's sum.
sdcMicro does not normalise it; ``value`` is ``1 - raw / cells`` truncated to [0, 1]: one minus the mean
standardised deviation of a cell (0 when cells move on average by sqrt 2 standard deviations or more). Needs
``--original``.
sdcMicro's own code gives the same figures on CASC (``tests/test_utility.py``, live run).
"""

from __future__ import annotations

import numpy as np

from privaudit.utility._numeric import numeric_pairs
from privaudit.utility.entries import clip01, entry
from privaudit.utility.inputs import UtilityInputs

NAME = "il1s"
NEEDS = frozenset({"original"})


def il1s(x: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Per column: sum |x - m| / (sd(x) sqrt 2), missing cells left out (sdcMicro's IL1s terms)."""
    sd = np.nanstd(x, axis=0, ddof=1) if len(x) > 1 else np.full(x.shape[1], np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.abs(x - m) / (sd * np.sqrt(2.0))
    a[~np.isfinite(a)] = np.nan  # R: Inf / NaN cells dropped by na.rm (a constant column: 0/0)
    return np.nansum(a, axis=0)


def measure(inputs: UtilityInputs) -> list[dict]:
    cols, x, m, left = numeric_pairs(inputs)
    if not cols:
        return [entry(NAME, None, None, None, reason="no numeric column in both tables", left_out=left)]
    per = il1s(x, m)
    cells = np.sum(~(np.isnan(x) | np.isnan(m)), axis=0)
    out = [
        entry(
            NAME,
            None,
            clip01(1 - per.sum() / max(cells.sum(), 1)),
            float(per.sum()),
            columns=cols,
            cells=int(cells.sum()),
            **({"left_out": left} if left else {}),
        )
    ]
    for c, v, k in zip(cols, per.tolist(), cells.tolist(), strict=False):
        out.append(entry(NAME, c, clip01(1 - v / max(k, 1)), v, cells=int(k)))
    return out
