"""Release and original side by side, one quasi-identifier at a time, coded once per audit: the released
labels per record and the original's leaf per record (the index of its value among the hierarchy's
leaves). Read by the measures of the release against the original (non-uniform entropy, squared errors)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from privaudit.utility.domain import SUPPRESSED, coded
from privaudit.utility.inputs import UtilityInputs


@dataclass
class Aligned:
    released: np.ndarray  # per record: code into ``labels`` (-1 missing)
    labels: list[str]
    leaf: np.ndarray  # per record: the original value's leaf index (-1: missing or not a leaf)
    unknown_original: int  # how many distinct original values are not leaves of the hierarchy

    def suppressed(self, outlier: np.ndarray, root: str | None) -> np.ndarray:
        """Per record: the released value says nothing (missing, ``*``, the root, or a suppressed record)."""
        empty = np.array([t in (SUPPRESSED, "") or t == root for t in self.labels] + [True], dtype=bool)
        return empty[self.released] | outlier


def aligned(inputs: UtilityInputs, column: str) -> Aligned:
    cache = inputs.__dict__.setdefault("_aligned", {})
    if column not in cache:
        dom = inputs.domains[column]
        released, labels = coded(inputs.release[column])
        ocodes, olabels = coded(inputs.original[column])
        position = {str(v): i for i, v in enumerate(dom.matrix[:, 0].tolist())}
        lookup = np.array([position.get(t, -1) for t in olabels] + [-1], dtype=np.int64)
        leaf = lookup[ocodes]
        unknown = int(sum(1 for p in lookup[:-1] if p < 0))
        cache[column] = Aligned(released, labels, leaf, unknown)
    return cache[column]


def outliers(inputs: UtilityInputs) -> np.ndarray:
    """Per released record: every quasi-identifier suppressed (ARX's outlier)."""
    cache = inputs.__dict__.setdefault("_aligned", {})
    if "__outliers__" not in cache:
        out = np.ones(len(inputs.release), dtype=bool)
        for q in inputs.quasi_identifiers:
            a = aligned(inputs, q)
            out &= np.array([t in (SUPPRESSED, "") for t in a.labels] + [True], dtype=bool)[a.released]
        cache["__outliers__"] = out if inputs.quasi_identifiers else np.zeros(len(inputs.release), dtype=bool)
    return cache["__outliers__"]
