"""Match weights log2(m/u) and the Fellegi–Sunter thresholds on their total (Fellegi & Sunter 1969,
Theorem 1), from the exact distribution of the total weight under M and U."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from privaudit.risk.linkage.fellegi_sunter.model import Thresholds

#: Weights are rounded to multiples of this power of two so that sums are exact
#: (order-independent) and equal patterns tie exactly.
WEIGHT_QUANTUM = 2.0**-20


def quantise(w: np.ndarray) -> np.ndarray:
    return np.round(np.asarray(w, float) / WEIGHT_QUANTUM) * WEIGHT_QUANTUM


def attribute_weights(m: np.ndarray, u: np.ndarray, floor_m: float, floor_u: float) -> np.ndarray:
    """``log2(m/u)`` with zero probabilities floored (half a count) so weights stay finite."""
    return quantise(np.log2(np.maximum(m, floor_m) / np.maximum(u, floor_u)))


def weight_distribution(
    weights: Sequence[np.ndarray], m: Sequence[np.ndarray], u: Sequence[np.ndarray], max_support: int = 1 << 20
):
    """Distribution of ``W = sum_a w_a[gamma_a]`` under ``M`` and under ``U`` (independent attributes).

    Exact when the number of patterns is at most ``max_support``: outer sums
    attribute by attribute, equal totals merged (weights are multiples of a
    power-of-two quantum, so the sums are exact).  Otherwise the totals live on
    a grid of power-of-two step ``h`` with at most ``max_support`` bins over
    the whole range, every weight rounded to the grid and the convolution done
    by shifted adds; totals are then within ``A * h / 2`` of the exact ones.
    """
    weights = [np.asarray(w, float) for w in weights]
    m = [np.asarray(x, float) for x in m]
    u = [np.asarray(x, float) for x in u]
    n_patterns = float(np.prod([w.size for w in weights]))
    if n_patterns <= max_support:
        vals, pm, pu = np.zeros(1), np.ones(1), np.ones(1)
        for w, ma, ua in zip(weights, m, u, strict=False):
            vals = (vals[:, None] + w[None, :]).ravel()
            pm = (pm[:, None] * ma[None, :]).ravel()
            pu = (pu[:, None] * ua[None, :]).ravel()
            vals, inv = np.unique(vals, return_inverse=True)
            pm = np.bincount(inv, weights=pm, minlength=vals.size)
            pu = np.bincount(inv, weights=pu, minlength=vals.size)
        return vals, pm / pm.sum(), pu / pu.sum()
    span = sum(float(w.max() - w.min()) for w in weights)
    h = WEIGHT_QUANTUM
    while span / h > max_support - len(weights):
        h *= 2.0
    base = sum(float(w.min()) for w in weights)
    dm, du = np.ones(1), np.ones(1)
    for w, ma, ua in zip(weights, m, u, strict=False):
        shift = np.round((w - w.min()) / h).astype(np.int64)
        size = dm.size + int(shift.max())
        nm, nu = np.zeros(size), np.zeros(size)
        for s_l, pml, pul in zip(shift, ma, ua, strict=False):
            nm[s_l : s_l + dm.size] += dm * pml
            nu[s_l : s_l + du.size] += du * pul
        dm, du = nm, nu
    keep = (dm > 0) | (du > 0)
    vals = base + h * np.flatnonzero(keep)
    return vals, dm[keep] / dm.sum(), du[keep] / du.sum()


def fs_thresholds(
    weights: Sequence[Sequence[float]],
    m: Sequence[Sequence[float]],
    u: Sequence[Sequence[float]],
    *,
    max_false_match_rate: float = 0.01,
    max_false_non_match_rate: float = 0.01,
) -> Thresholds:
    """Fellegi–Sunter thresholds from the model's distributions of the total weight.

    ``upper`` = smallest attainable weight ``t`` with ``P(W >= t | U) <= mu``;
    ``lower`` = largest attainable ``t`` with ``P(W < t | M) <= lambda``
    (Fellegi & Sunter 1969, Theorem 1 with the randomisation at the boundary
    dropped).  ``lower`` is capped at ``upper``.  If no weight satisfies the
    false-match bound, ``upper`` is ``+inf`` (nothing is linked).
    """
    if not (0 <= max_false_match_rate <= 1 and 0 <= max_false_non_match_rate <= 1):
        raise ValueError("error rates must lie in [0, 1]")
    vals, pm, pu = weight_distribution([np.asarray(w, float) for w in weights], m, u)
    tail_u = np.cumsum(pu[::-1])[::-1]  # P(W >= vals[s] | U)
    below_m = np.cumsum(pm) - pm  # P(W < vals[s] | M)
    tol = 1e-12
    ok_u = np.flatnonzero(tail_u <= max_false_match_rate + tol)
    upper = float(vals[ok_u[0]]) if ok_u.size else float("inf")
    ok_m = np.flatnonzero(below_m <= max_false_non_match_rate + tol)
    lower = min(float(vals[ok_m[-1]]), upper)
    fmr = float(pu[vals >= upper].sum())
    fnmr = float(pm[vals < lower].sum())
    return Thresholds(lower=lower, upper=upper, false_match_rate=fmr, false_non_match_rate=fnmr)
