"""Household (hierarchical) risk: several records per household or person (sdcMicro ``measure_risk`` with
``hid``, its default ``fast_hier = TRUE`` branch in R/measure_risk.R; Templ, Statistical Disclosure
Control for Microdata, Springer 2017, section 3.7).

A household is re-identified when at least one of its members is: with r_i the individual risk of member
i (1/f_k, or the Benedetti-Franconi risk with weights), the household's risk is

    R_h = 1 - prod_{i in h} (1 - r_i),

every member of h carries R_h, and

    expected re-identifications  ER = sum over records of R_h(record) = sum_h n_h R_h,   global risk = ER / n

(sdcMicro's ``hier_risk_ER`` and ``hier_risk``). k-anonymity counted in entities: the number of distinct
households among the records of each class; its minimum is ``household_k``.

Vectorised: the product is a sum of log(1 - r_i) per household (``bincount``), a member with r_i = 1 makes
the household's risk exactly 1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class HouseholdRisk:
    households: int
    expected_reidentifications: float
    global_risk: float
    max_household_risk: float
    household_k: int  # fewest distinct households in a class
    record_risk: np.ndarray  # R_h of each record's household, in record order


def household_risk(household: pd.Series, record_risk: np.ndarray, class_of: np.ndarray) -> HouseholdRisk:
    """``household``: the id per record (no missing value); ``record_risk``: r_i per record; ``class_of``:
    each record's class."""
    codes, uniques = pd.factorize(household, sort=False)
    r = np.clip(np.asarray(record_risk, dtype=float), 0.0, 1.0)
    with np.errstate(divide="ignore"):
        logs = np.log1p(-r)  # -inf where r = 1
    certain = np.bincount(codes, weights=(r >= 1.0).astype(float), minlength=len(uniques)) > 0
    total = np.bincount(codes, weights=np.where(np.isfinite(logs), logs, 0.0), minlength=len(uniques))
    per_household = np.where(certain, 1.0, -np.expm1(total))
    per_record = per_household[codes]
    n_classes = int(class_of.max()) + 1 if len(class_of) else 0
    pairs = np.unique(np.asarray(class_of, dtype=np.int64) * len(uniques) + codes)
    distinct = np.bincount(pairs // len(uniques), minlength=n_classes) if len(uniques) else np.zeros(0, int)
    er = float(per_record.sum())
    return HouseholdRisk(
        len(uniques),
        er,
        er / len(r) if len(r) else 0.0,
        float(per_household.max()) if len(uniques) else 0.0,
        int(distinct.min()) if len(distinct) else 0,
        per_record,
    )
