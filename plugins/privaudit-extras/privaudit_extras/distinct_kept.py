"""The ``distinct_kept`` utility measure: per quasi-identifier, the share of the original's distinct values
that the release still holds.

Recoding (global recoding, top and bottom coding, rounding) merges values and suppression removes them; both
make some of the original's categories disappear from the release, which is what an analyst tabulating the
release loses. This counts it per column as the share of categories kept (Hundepool et al., *Statistical
Disclosure Control*, Wiley 2012, chapter 3: the information loss of recoding and rounding is the detail of
the categories they remove; µ-ARGUS shows the number of categories of each variable before and after its
recodings). With ``D_o`` the distinct non-missing values of a column in the original and ``D_r`` those of
the release::

    distinct_kept(column) = |D_o ∩ D_r| / |D_o|        (1: every category survives; higher is better)

A released value that is not an original one (a generalised interval, a rounded number) keeps nothing.
Values are compared as privaudit types them (numbers as numbers, categories as text). One entry per
quasi-identifier, and one over all of them (``column`` null): the mean of the columns' shares. Needs the
original (``--original``); a column the original holds no value of has no figure.
"""

from __future__ import annotations

import math
from typing import Any

from privaudit.plugin import Measure, hookimpl

NAME = "distinct_kept"


def _entry(column: str | None, value: float, raw: float, **details: Any) -> dict[str, Any]:
    """A utility entry, as the JSON report's ``utility`` lists it (a NaN is absent, never 0)."""
    value_out = None if math.isnan(value) else float(value)
    return {"measure": NAME, "column": column, "value": value_out, "raw": float(raw), "details": details}


def compute(inputs: Any) -> list[dict[str, Any]]:
    """The entries of ``inputs`` (:class:`privaudit.utility.inputs.UtilityInputs`): release and original."""
    import numpy as np
    import pandas as pd

    release, original = inputs.release, inputs.original
    if release is None or original is None:
        return []
    entries, shares = [], []
    for column in inputs.quasi_identifiers:
        before = pd.Index(pd.unique(original[column].dropna().astype(object)))
        after = pd.unique(release[column].dropna().astype(object))
        kept = int(np.count_nonzero(before.isin(after)))
        share = kept / len(before) if len(before) else math.nan
        if not math.isnan(share):
            shares.append(share)
        entries.append(_entry(column, share, kept, original_distinct=len(before), release_distinct=len(after)))
    overall = sum(shares) / len(shares) if shares else math.nan
    entries.insert(0, _entry(None, overall, overall, columns=len(shares)))
    return entries


MEASURE = Measure(
    NAME,
    "distinct values kept (share of the original's categories)",
    f"{__name__}:compute",
    needs=frozenset({"original"}),
    direction="higher",
)


@hookimpl
def privaudit_utility_measures() -> list[Measure]:
    return [MEASURE]
