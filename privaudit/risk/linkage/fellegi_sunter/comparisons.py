"""Comparison levels of one column: values coded once (categorical codes, numbers, or offset int16 for
small integers), levels of any pairs computed from the codes."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from privaudit.common.numeric import to_numeric
from privaudit.risk.linkage.fellegi_sunter.model import ComparisonSpec


@dataclass(frozen=True)
class Encoded:
    spec: ComparisonSpec
    left: np.ndarray  # int32 codes (categorical, -1 missing) or float64 (numeric, NaN missing)
    right: np.ndarray
    has_missing: bool
    #: for integer-valued numeric columns stored as offset int16: the tolerances rounded down
    #: (for integers ``|d| > t`` iff ``|d| > floor(t)``), compared in int16 arithmetic
    int_tolerances: tuple[int, ...] | None = None

    @property
    def radix(self) -> int:
        return self.spec.n_levels + (1 if self.has_missing else 0)

    def levels(self, li: np.ndarray, ri: np.ndarray) -> np.ndarray:
        """Comparison level of the pairs ``(li[k], ri[k])``."""
        return self.levels_of(self.left[li], self.right[ri])

    def levels_of(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Comparison level of value pairs ``(a[k], b[k])`` (int8); missing is coded ``n_levels``."""
        if self.spec.kind == "categorical":
            lev = (a != b).view(np.int8)
            if self.has_missing:
                lev = lev.copy()
                lev[(a < 0) | (b < 0)] = self.spec.n_levels
            return lev
        d = np.abs(a - b)
        lev = (d > 0).view(np.int8).copy()
        for t in self.int_tolerances if self.int_tolerances is not None else self.spec.tolerances:
            lev += d > t
        if self.has_missing:
            lev[np.isnan(d)] = self.spec.n_levels
        return lev


def encode(spec: ComparisonSpec, left: pd.DataFrame, right: pd.DataFrame) -> Encoded:
    a, b = left[spec.name], right[spec.name]
    if spec.kind == "numeric":
        x = to_numeric(a, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
        y = to_numeric(b, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
        has_missing = bool(np.isnan(x).any() or np.isnan(y).any())
        if not has_missing and x.size and y.size:
            lo = min(x.min(), y.min())
            span = max(x.max(), y.max()) - lo
            if span < 2**15 and np.all(x == np.round(x)) and np.all(y == np.round(y)):
                # integer values: compare offset values in int16 arithmetic
                tol = tuple(int(min(np.floor(t), 2**15 - 1)) for t in spec.tolerances)
                return Encoded(spec, (x - lo).astype(np.int16), (y - lo).astype(np.int16), False, tol)
        return Encoded(spec, x, y, has_missing)
    if a.dtype != b.dtype:
        a, b = a.astype(str).where(a.notna()), b.astype(str).where(b.notna())
    codes, _ = pd.factorize(pd.concat([a, b], ignore_index=True), use_na_sentinel=True)
    codes = np.asarray(codes, dtype=np.int32)
    x, y = codes[: len(a)], codes[len(a) :]
    return Encoded(spec, x, y, bool((codes < 0).any()))
