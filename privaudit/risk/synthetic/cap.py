"""Correct attribution probability (CAP) of a synthetic release, and its disclosure-protection form.

The attacker knows the key values K of a real (training) person and looks their key up in the synthetic
table; they attribute to the person the target value T in proportion to how often it occurs among the
synthetic records with that key (Elliot 2014; Taub, Elliot, Pampaka & Smith 2018, "Differential Correct
Attribution Probability for Synthetic Data: An Exploration", PSD 2018, section 2). For a real record r
with key k and target t,

    CAP_r = |{s in synthetic: K_s = k, T_s = t}| / |{s in synthetic: K_s = k}|,

defined only when the key occurs in the synthetic table. The table's CAP is the mean over the real records
whose key does occur (SDMetrics' ``CategoricalCAP``); ``unmatched="zero"`` counts the others as 0
(``CategoricalZeroCAP``). Everything is computed on two class summaries -- the synthetic table's counts per
(key, target) and key, and the training table's counts per (key, target) -- joined on the key: no per-record
work.

Disclosure protection (SDMetrics ``DisclosureProtection``) compares the safety 1 - CAP with the safety a
table of random target values would give, 1 - 1/m for m possible target values (the distinct values of
the target in the training table):

    protection = min(1, (1 - CAP) / (1 - 1/m))    (1 when m = 1: a single value is known to everyone anyway).

Numeric key or target columns are cut into ``bins`` equal-width intervals over the training range (as
SDMetrics discretises them); a missing value is a value of its own.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from privaudit.common.numeric import to_numeric


@dataclass(frozen=True)
class CapResult:
    cap: float  # mean CAP over the evaluated training records (nan when none is evaluated)
    safety: float  # 1 - cap
    baseline_safety: float  # 1 - 1/m
    protection: float  # min(1, safety / baseline_safety)
    evaluated: int  # training records whose key occurs in the synthetic table (all with unmatched="zero")
    unmatched: int  # training records whose key does not occur in the synthetic table
    records: int  # training records
    target_values: int  # m


def discretise(column: pd.Series, reference: pd.Series, bins: int) -> pd.Series:
    """Numbers cut into ``bins`` equal-width intervals over the reference (training) range; missing stays
    missing (coded as its own label)."""
    ref = to_numeric(reference, errors="coerce")
    values = to_numeric(column, errors="coerce")
    lo, hi = float(np.nanmin(ref)) if ref.notna().any() else 0.0, float(np.nanmax(ref)) if ref.notna().any() else 0.0
    if hi <= lo:
        codes = np.where(values.isna(), -1, 0)
    else:
        codes = np.clip(np.floor((values.to_numpy(dtype=float) - lo) / (hi - lo) * bins), 0, bins - 1)
        codes = np.where(np.isnan(codes), -1, codes)
    return pd.Series(codes.astype(np.int64), index=column.index)


def _labels(
    frame: pd.DataFrame, reference: pd.DataFrame, columns: list[str], numeric: set[str], bins: int
) -> pd.DataFrame:
    out = {}
    for c in columns:
        if c in numeric:
            out[c] = discretise(frame[c], reference[c], bins)
        else:
            out[c] = frame[c].astype("string").fillna("\0missing")
    return pd.DataFrame(out)


def correct_attribution_probability(
    training: pd.DataFrame,
    synthetic: pd.DataFrame,
    keys: list[str],
    target: str,
    numeric: set[str] = frozenset(),
    bins: int = 10,
    unmatched: str = "skip",
) -> CapResult:
    """CAP of ``target`` given ``keys`` (see the module docstring)."""
    real = _labels(training, training, [*keys, target], set(numeric), bins)
    syn = _labels(synthetic, training, [*keys, target], set(numeric), bins)
    m = int(real[target].nunique(dropna=False))
    pairs = syn.groupby([*keys, target], sort=False, dropna=False).size().rename("hits")
    sizes = syn.groupby(keys, sort=False, dropna=False).size().rename("size")
    real_counts = real.groupby([*keys, target], sort=False, dropna=False).size().rename("n").reset_index()
    joined = real_counts.merge(sizes.reset_index(), on=keys, how="left").merge(
        pairs.reset_index(), on=[*keys, target], how="left"
    )
    size = joined["size"].to_numpy(dtype=float)
    hits = joined["hits"].fillna(0).to_numpy(dtype=float)
    n = joined["n"].to_numpy(dtype=float)
    matched = ~np.isnan(size)
    per_group = np.where(matched, hits / np.where(matched, size, 1.0), 0.0)
    weight = n if unmatched == "zero" else n * matched
    evaluated = int(weight.sum())
    cap = float((per_group * weight).sum() / evaluated) if evaluated else float("nan")
    baseline = 1.0 - 1.0 / m if m > 0 else 0.0
    safety = 1.0 - cap if evaluated else float("nan")
    if not evaluated:
        protection = 1.0  # the attacker can look up nobody
    elif baseline <= 0:
        protection = 1.0
    else:
        protection = min(1.0, safety / baseline)
    return CapResult(cap, safety, baseline, protection, evaluated, int(n[~matched].sum()), int(n.sum()), m)
