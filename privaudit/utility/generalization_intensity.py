"""Generalization intensity: ARX 3.9's "Precision" quality model (``QualityModelColumnOrientedPrecision``,
whose source is the definition followed here; Sweeney's precision metric, IJUFKS 2002, "Achieving
k-anonymity privacy protection using generalization and suppression").

Per quasi-identifier: the mean over the records of ``level / height`` of the released value (its first
level in the hierarchy, with ARX's appended ``*`` level counted; a suppressed value or record, or a label
not in the hierarchy, 1). ARX normalises it between 0 and 1: ``value = 1 - result``; ``raw`` is the mean
intensity. Over all quasi-identifiers, ARX's arithmetic mean.

A record counts as suppressed when every quasi-identifier is suppressed (ARX's outliers are ``*``
throughout). ARX's own test (``QualityModel.isSuppressed(handle, indices, row)``) is "all quasi-identifier
values are equal strings", which with a single quasi-identifier marks every record suppressed (granularity
and intensity 0 whatever the release); privaudit does not follow that, and agrees with ARX on every output
with two or more quasi-identifiers whose values differ.
"""

from __future__ import annotations

import numpy as np

from privaudit.utility._columns import ARITHMETIC_MEAN, column_oriented
from privaudit.utility.inputs import UtilityInputs

NAME = "generalization_intensity"


def _intensity(dom, labels) -> np.ndarray:
    levels = dom.level_of(labels, unknown=np.nan)
    return np.where(np.isnan(levels), 1.0, levels / max(dom.height, 1))


def measure(inputs: UtilityInputs) -> list[dict]:
    return column_oriented(inputs, NAME, _intensity, 1.0, lambda dom: 0.0, 1.0, ARITHMETIC_MEAN)
