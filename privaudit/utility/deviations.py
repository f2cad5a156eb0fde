"""Relative deviations of means, variances and correlations: sdcMicro's ``summary.micro``
(R/microaggregation.R) on the numeric columns, original x against release xm.

* ``mean_deviation``: per column ``|mean(x) - mean(xm)| / |mean(x)|``; over all columns (``column``
  null) sdcMicro's ``amean``, their sum.
* ``variance_deviation``: per column ``|var(x) - var(xm)| / var(x)``; over all columns sdcMicro's
  ``devvar``, ``sum |var(x) - var(xm)| / |var(x)| / p`` over the p x p covariance matrices.
* ``correlation_deviation``: sdcMicro's ``acor``, ``sum |cor(x) - cor(xm)| / |cor(x)| / (2p)`` over the
  correlation matrices (at least two columns).

sdcMicro does not normalise them; ``value`` is ``1 - mean relative deviation`` truncated to [0, 1]: per
column ``1 - raw``, over all columns ``1 - amean / p``, ``1 - devvar / p`` (the mean over the p^2 entries)
and ``1 - 2 acor / p`` (the mean over the p^2 entries). Missing cells are left out (pairwise for
covariances); sdcMicro's R code would return NA. Needs ``--original``.
sdcMicro's own code gives the same figures on CASC (``tests/test_utility.py``, live run).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from privaudit.utility._numeric import numeric_pairs
from privaudit.utility.entries import clip01, entry
from privaudit.utility.inputs import UtilityInputs

NAMES = ("mean_deviation", "variance_deviation", "correlation_deviation")
NEEDS = frozenset({"original"})


def _relative(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.abs(a - b) / np.abs(a)


def measure(inputs: UtilityInputs, names=NAMES) -> list[dict]:
    cols, x, m, left = numeric_pairs(inputs)
    extra = {"left_out": left} if left else {}
    if not cols:
        return [entry(n, None, None, None, reason="no numeric column in both tables", **extra) for n in names]
    p = len(cols)
    out = []
    if "mean_deviation" in names:
        rel = _relative(np.nanmean(x, axis=0), np.nanmean(m, axis=0))
        amean = float(np.sum(rel))
        out.append(entry("mean_deviation", None, clip01(1 - amean / p), amean, columns=cols, **extra))
        out += [entry("mean_deviation", c, clip01(1 - r), r) for c, r in zip(cols, rel.tolist(), strict=False)]
    if "variance_deviation" in names:
        v1, v2 = pd.DataFrame(x).cov().to_numpy(), pd.DataFrame(m).cov().to_numpy()
        rel = _relative(v1, v2)
        devvar = float(np.sum(rel) / p)
        out.append(entry("variance_deviation", None, clip01(1 - devvar / p), devvar, columns=cols, **extra))
        out += [
            entry("variance_deviation", c, clip01(1 - r), r) for c, r in zip(cols, np.diag(rel).tolist(), strict=False)
        ]
    if "correlation_deviation" in names:
        if p < 2:
            out.append(
                entry(
                    "correlation_deviation",
                    None,
                    None,
                    None,
                    reason="needs at least two numeric columns",
                    columns=cols,
                    **extra,
                )
            )
        else:
            c1, c2 = pd.DataFrame(x).corr().to_numpy(), pd.DataFrame(m).corr().to_numpy()
            acor = float(np.sum(_relative(c1, c2)) / (2 * p))
            out.append(entry("correlation_deviation", None, clip01(1 - 2 * acor / p), acor, columns=cols, **extra))
    return out
