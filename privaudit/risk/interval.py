"""Interval disclosure of numeric attributes (original vs released values of the same records).

An intruder who sees a released value V'(x) builds an interval around it and claims the original
value V(x) lies inside. The record is *disclosed* on that attribute when it does. Two ways of
building the interval are implemented (Domingo-Ferrer & Torra, "A quantitative comparison of
disclosure control methods for microdata", 2001; Domingo-Ferrer, Mateo-Sanz & Torra 2001, used in
sdcMicro's ``dRisk``):

``method="rank"`` (rank interval, parameter p in percent)
    Sort the n non-missing released values of the attribute. A record whose released value sits at
    sorted position r gets the interval

        [ sorted[max(0, r_lo - h)],  sorted[min(n - 1, r_hi + h)] ],   h = floor(p * n / 200 + 1/2)

    i.e. the p*n/100 positions are split evenly, h on each side of the rank (rounded half up), and
    clamped to [0, n-1]. **Ties**: all records sharing a released value share one interval, from
    the first position of the tie block (r_lo) minus h to its last position (r_hi) plus h. This
    makes the result independent of row order and errs on the side of more disclosure.

``method="sd"`` (standard-deviation interval, parameter p in percent)
    disclosed when  V'(x) - k*sd <= V(x) <= V'(x) + k*sd,  with k = p/100 and sd the sample standard
    deviation (denominator n-1, missing values ignored) of the original or the released column
    (``sd_of``). sdcMicro's ``dRisk(x, xm, k=0.05)`` uses the *released* column's sd (R's ``sd``,
    n-1, ``na.rm=TRUE``) and closed bounds ``xm - k*sd <= x <= xm + k*sd``; that is
    ``p=5, sd_of="released"`` here.

Several attributes: a record counts as disclosed when it is disclosed on every listed attribute
(sdcMicro 5.6.0: ``rowSums(outside) == 0``), or, with ``max_misses=m``, on all but at most m of
them (sdcMicro 4.5.0 used ``rowSums(outside) %in% 0:1``, which is ``max_misses=1``).
The value is the share of *all* records (missing ones included in the denominator).

Missing values: a record whose original or released value is missing on an attribute is **not**
disclosed on it. (sdcMicro differs: its ``na.rm=TRUE`` in ``rowSums`` silently counts a missing
comparison as inside the interval.) The rank method ranks only the non-missing released values.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pandas as pd

from privaudit.common.numeric import to_numeric

__all__ = ["IntervalDisclosureResult", "interval_disclosure", "rank_interval_bounds", "sd_interval_bounds"]


@dataclass(frozen=True)
class IntervalDisclosureResult:
    """Outcome of :func:`interval_disclosure`.

    value: share of records disclosed on every attribute (or all but ``max_misses`` of them).
    per_attribute: share of records disclosed on each attribute alone.
    disclosed: boolean frame (records x attributes), True where the original value is in the interval.
    record_disclosed: boolean array, True where the record counts as disclosed overall.
    """

    value: float
    per_attribute: dict[str, float]
    disclosed: pd.DataFrame
    record_disclosed: np.ndarray
    method: str
    p: float
    sd_of: str | None
    max_misses: int
    n_records: int
    half_width_ranks: dict[str, int] = field(default_factory=dict)


def _numeric(series: pd.Series, which: str, name: str) -> np.ndarray:
    """Column as float64 with NaN for missing; a ValueError if it is not numeric."""
    try:
        return to_numeric(series, errors="raise").to_numpy(dtype=np.float64, na_value=np.nan)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"interval disclosure: {which} column {name!r} is not numeric") from exc


def rank_interval_bounds(released: np.ndarray, p: float) -> tuple[np.ndarray, np.ndarray, int]:
    """Lower/upper bounds of the rank interval of every released value (NaN where missing).

    Returns ``(lower, upper, h)`` where h = floor(p*n/200 + 1/2) positions are taken on each side of
    the tie block holding the value, clamped to [0, n-1] (see module docstring).
    """
    released = np.asarray(released, dtype=np.float64)
    ok = ~np.isnan(released)
    vals = released[ok]
    n = vals.size
    lower = np.full(released.shape, np.nan)
    upper = np.full(released.shape, np.nan)
    if n == 0:
        return lower, upper, 0
    h = int(np.floor(p * n / 200.0 + 0.5))
    srt = np.sort(vals)
    first = np.searchsorted(srt, vals, side="left")  # first position of the tie block
    last = np.searchsorted(srt, vals, side="right") - 1  # last position of the tie block
    lower[ok] = srt[np.clip(first - h, 0, n - 1)]
    upper[ok] = srt[np.clip(last + h, 0, n - 1)]
    return lower, upper, h


def sd_interval_bounds(released: np.ndarray, sd: float, p: float) -> tuple[np.ndarray, np.ndarray]:
    """Bounds ``released -/+ (p/100) * sd`` computed as sdcMicro does (NaN where missing)."""
    released = np.asarray(released, dtype=np.float64)
    k = p / 100.0
    return released - k * sd, released + k * sd


def interval_disclosure(
    original: pd.DataFrame,
    released: pd.DataFrame,
    attributes: Sequence[str],
    *,
    method: Literal["rank", "sd"],
    p: float,
    sd_of: Literal["original", "released"] = "original",
    max_misses: int = 0,
) -> IntervalDisclosureResult:
    """Share of records whose original values fall in the intruder's interval around the released ones.

    ``original`` and ``released`` hold the same records in the same order. See the module docstring
    for the rank and sd intervals, ties and missing values.
    """
    attributes = list(attributes)
    if not attributes:
        raise ValueError("interval disclosure: no attributes given")
    if method not in ("rank", "sd"):
        raise ValueError(f"interval disclosure: unknown method {method!r} (expected 'rank' or 'sd')")
    if sd_of not in ("original", "released"):
        raise ValueError(f"interval disclosure: sd_of must be 'original' or 'released', not {sd_of!r}")
    if not np.isfinite(p) or p < 0:
        raise ValueError(f"interval disclosure: p must be a non-negative percentage, got {p!r}")
    if max_misses < 0:
        raise ValueError("interval disclosure: max_misses must be >= 0")
    if len(original) != len(released):
        raise ValueError(f"interval disclosure: original has {len(original)} rows but released has {len(released)}")
    for frame, which in ((original, "original"), (released, "released")):
        missing = [a for a in attributes if a not in frame.columns]
        if missing:
            raise ValueError(f"interval disclosure: {which} data lacks column(s) {missing}")

    n = len(original)
    hit = np.zeros((n, len(attributes)), dtype=bool)
    widths: dict[str, int] = {}
    for j, name in enumerate(attributes):
        x = _numeric(original[name], "original", name)
        xm = _numeric(released[name], "released", name)
        if method == "rank":
            lo, hi, widths[name] = rank_interval_bounds(xm, p)
        else:
            base = x if sd_of == "original" else xm
            base = base[~np.isnan(base)]
            sd = float(np.std(base, ddof=1)) if base.size > 1 else np.nan
            lo, hi = sd_interval_bounds(xm, sd, p)
        with np.errstate(invalid="ignore"):
            hit[:, j] = (lo <= x) & (x <= hi)  # NaN anywhere -> False (not disclosed)

    misses = len(attributes) - hit.sum(axis=1)
    record = misses <= max_misses
    per_attr = {a: float(hit[:, j].mean()) if n else 0.0 for j, a in enumerate(attributes)}
    return IntervalDisclosureResult(
        value=float(record.mean()) if n else 0.0,
        per_attribute=per_attr,
        disclosed=pd.DataFrame(hit, columns=attributes, index=original.index),
        record_disclosed=record,
        method=method,
        p=float(p),
        sd_of=sd_of if method == "sd" else None,
        max_misses=int(max_misses),
        n_records=n,
        half_width_ranks=widths,
    )
