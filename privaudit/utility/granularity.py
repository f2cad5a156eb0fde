"""Granularity: ARX 3.9's "Loss" quality model (``QualityModelColumnOrientedLoss``, whose source is the definition followed here;
the loss metric of Iyengar, KDD 2002, "Transforming data to satisfy privacy constraints").

Per quasi-identifier: the mean over the records of the domain share of the released value (leaves under
it / leaves, :mod:`privaudit.utility.domain`; a suppressed value or record 1). ARX normalises it between
``1 / leaves`` (every value kept) and 1 (every value suppressed): ``value = 1 - (result - 1/leaves) / (1 -
1/leaves)``; ``raw`` is the mean share. Over all quasi-identifiers, ARX's arithmetic mean. Needs the
release and the hierarchies only (without a hierarchy, ARX's ``[value, *]`` over the original's distinct
values, or the release's when there is no original).

A record counts as suppressed when every quasi-identifier is suppressed (ARX's outliers are ``*``
throughout). ARX's own test (``QualityModel.isSuppressed(handle, indices, row)``) is "all quasi-identifier
values are equal strings", which with a single quasi-identifier marks every record suppressed (granularity
and intensity 0 whatever the release); privaudit does not follow that, and agrees with ARX on every output
with two or more quasi-identifiers whose values differ.
"""

from __future__ import annotations

from privaudit.utility._columns import ARITHMETIC_MEAN, column_oriented
from privaudit.utility.inputs import UtilityInputs

NAME = "granularity"


def measure(inputs: UtilityInputs) -> list[dict]:
    return column_oriented(
        inputs,
        NAME,
        lambda dom, labels: dom.share_of(labels),
        1.0,
        lambda dom: 0.0 if dom.size == 0 else 1.0 / dom.size,
        1.0,
        ARITHMETIC_MEAN,
    )
