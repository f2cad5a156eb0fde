"""A quasi-identifier's generalization domain as ARX's quality models see it, and the released values coded
against it.

ARX 3.9 (``aggregates/StatisticsQuality.getHierarchies``) takes each quasi-identifier's hierarchy as a
``String[leaves][levels]`` matrix; a column without one gets ``[value, *]`` over the input's distinct values;
a hierarchy whose top level holds more than one label gets one more level, ``*`` (the suppression string,
``QualityConfiguration``). From it:

* the **domain share** of a label (``QualityDomainShareRaw``): leaves under it / leaves; a leaf 1/leaves;
  an unknown label 1/leaves, the suppression string 1;
* the **level** of a label (``QualityModelColumnOrientedPrecision.getPrecisions``,
  ``...NonUniformEntropy.getInverseGeneralizationFunction``): the first level it appears on; ``*`` the top.

A released value is matched to labels by its text (a whole number 39.0 is ``39``); a missing value is the
suppression string (privaudit reads ``*`` and the policy's missing tokens as missing).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

SUPPRESSED = "*"


def label(value: Any) -> str | None:
    """The text of a value as hierarchies write it (None: missing)."""
    if value is None or (isinstance(value, float) and np.isnan(value)) or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return str(int(value))
    return str(value)


def coded(values: pd.Series) -> tuple[np.ndarray, list[str]]:
    """Codes of a column's values (-1 = missing) and the text of each code."""
    codes, uniques = pd.factorize(values, use_na_sentinel=True)
    labels = [label(u) for u in uniques]
    codes = np.asarray(codes, dtype=np.int64)
    if any(t is None for t in labels):  # pd.NA inside an object column: missing to us too
        lookup = np.array([-1 if t is None else i for i, t in enumerate(labels)] + [-1], dtype=np.int64)
        codes = lookup[codes]
    return codes, [t if t is not None else "" for t in labels]


@dataclass
class Domain:
    """One quasi-identifier's hierarchy in ARX's matrix form (leaves x levels, with the ``*`` level ARX
    appends when the top level is not a single label)."""

    matrix: np.ndarray  # object array of str, leaves x levels
    source: str  # "hierarchy" or where the [value, *] hierarchy's values came from
    share: dict[str, float] = field(init=False)
    level: dict[str, int] = field(init=False)

    def __post_init__(self) -> None:
        n, levels = self.matrix.shape
        share: dict[str, float] = {str(v): 1.0 / n for v in self.matrix[:, 0]}
        for lv in range(1, levels):  # later levels overwrite, as ARX's putAll
            labels, counts = np.unique(self.matrix[:, lv].astype(str), return_counts=True)
            share.update({str(v): c / n for v, c in zip(labels.tolist(), counts.tolist(), strict=False)})
        self.share = share
        first: dict[str, int] = {}
        for lv in range(levels):
            for v in self.matrix[:, lv].tolist():
                first.setdefault(str(v), lv)
        first.setdefault(SUPPRESSED, levels - 1)
        self.level = first

    @property
    def size(self) -> int:
        """Leaves: ARX's domain size."""
        return int(self.matrix.shape[0])

    @property
    def height(self) -> int:
        """Levels above the leaves (ARX's ``hierarchy[0].length - 1``)."""
        return int(self.matrix.shape[1] - 1)

    @property
    def root(self) -> str:
        return str(self.matrix[0, -1])

    def share_of(self, labels: Sequence[str]) -> np.ndarray:
        """ARX's ``getShare`` of each label (a label not in the hierarchy 1/leaves, ``*`` 1)."""
        default = 1.0 / self.size
        return np.array([self.share.get(t, 1.0 if t == SUPPRESSED else default) for t in labels], dtype=float)

    def level_of(self, labels: Sequence[str], unknown: float = np.nan) -> np.ndarray:
        """The level of each label (``unknown`` for a label not in the hierarchy)."""
        return np.array([self.level.get(t, unknown) for t in labels], dtype=float)


def arx_matrix(rows: np.ndarray) -> np.ndarray:
    """ARX's hierarchy matrix: ``rows`` (leaves x levels) with a ``*`` level appended when the top level
    holds several labels (``StatisticsQuality.getHierarchies``)."""
    rows = np.asarray(rows, dtype=object)
    if len(set(rows[:, -1].tolist())) > 1:
        rows = np.column_stack([rows, np.full(len(rows), SUPPRESSED, dtype=object)])
    return rows


def domain_from_hierarchy(table: pd.DataFrame) -> Domain:
    """The domain of a hierarchy held as :attr:`privaudit.core.hierarchy.Hierarchy.table` (leaves x levels)."""
    return Domain(arx_matrix(table.to_numpy(dtype=object).astype(str).astype(object)), "hierarchy")


def domain_from_values(values: pd.Series, source: str) -> Domain:
    """ARX's ``[value, *]`` hierarchy over a column's distinct non-missing values (in sorted order, as
    ``DataHandle.getDistinctValues`` lists a column's dictionary)."""
    _, labels = coded(values)
    distinct = sorted(set(t for t in labels if t and t != SUPPRESSED))
    if not distinct:
        distinct = [SUPPRESSED]
    rows = np.array([[t, SUPPRESSED] for t in distinct], dtype=object)
    return Domain(arx_matrix(rows), source)
