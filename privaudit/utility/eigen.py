"""Eigenvalue measure: sdcMicro's ``dUtility(method = "eigen")`` (R/dUtility.R): the relative change of
the eigenvalues of the numeric columns' correlation structure, ``sum_k |e_k - e'_k| / e_k`` with ``e`` the
eigenvalues (decreasing) of ``var(scale(x), use = "pairwise.complete.obs")`` of the original and ``e'``
those of the release.

``raw`` is sdcMicro's figure; ``value`` is ``1 - raw / p`` truncated to [0, 1] (p eigenvalues: one minus
the mean relative change of an eigenvalue). At least two numeric columns are needed. Needs
``--original``.
sdcMicro's own code gives the same figures on CASC (``tests/test_utility.py``, live run).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from privaudit.utility._numeric import numeric_pairs
from privaudit.utility.entries import clip01, entry
from privaudit.utility.inputs import UtilityInputs

NAME = "eigen"
NEEDS = frozenset({"original"})


def scaled_eigenvalues(x: np.ndarray) -> np.ndarray:
    """Eigenvalues (decreasing) of R's ``var(scale(x), use = "pairwise.complete.obs")``."""
    mean = np.nanmean(x, axis=0)
    sd = np.nanstd(x, axis=0, ddof=1)
    z = (x - mean) / sd
    cov = pd.DataFrame(z).cov().to_numpy()  # pairwise complete, n - 1, as R's var
    return np.sort(np.linalg.eigvalsh(cov))[::-1]


def eigen(x: np.ndarray, m: np.ndarray) -> float:
    e1, e2 = scaled_eigenvalues(x), scaled_eigenvalues(m)
    return float(np.sum(np.abs(e1 - e2) / e1))


def measure(inputs: UtilityInputs) -> list[dict]:
    cols, x, m, left = numeric_pairs(inputs)
    extra = {"left_out": left} if left else {}
    if len(cols) < 2:
        return [
            entry(
                NAME,
                None,
                None,
                None,
                reason="needs at least two numeric columns in both tables",
                columns=cols,
                **extra,
            )
        ]
    with np.errstate(divide="ignore", invalid="ignore"):
        try:
            d = eigen(x, m)
        except np.linalg.LinAlgError:
            d = float("nan")
    if not np.isfinite(d):
        return [
            entry(
                NAME,
                None,
                None,
                None,
                reason="a constant column or an undefined correlation (sdcMicro gives NA)",
                columns=cols,
                **extra,
            )
        ]
    return [entry(NAME, None, clip01(1 - d / len(cols)), d, columns=cols, **extra)]
