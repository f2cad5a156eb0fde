"""Histogram binning for report figures: whole-number bins, and which bins fail a threshold (float edges
settle on the side the check's comparison puts them)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from privaudit.common.thresholds import TOLERANCE
from privaudit.plugin import charts


def integer_bins(hist: dict) -> tuple[list[int], list[int]] | None:
    """Per-class counts that are whole numbers (distinct values) binned narrower than 1 back into one
    bar per integer; None when the bins are too wide to tell integers apart."""
    edges, counts = hist.get("edges") or [], hist.get("counts") or []
    if len(edges) < 2 or (edges[1] - edges[0]) >= 1:
        return None
    values: dict[int, int] = {}
    for lo, _hi, c in zip(edges[:-1], edges[1:], counts, strict=False):
        if c:
            v = math.ceil(lo - 1e-9)
            values[v] = values.get(v, 0) + int(c)
    if not values:
        return None
    span = range(min(values), max(values) + 1)
    return list(span), [values.get(v, 0) for v in span]


def reciprocal_bins_failing(edges: Sequence[float], threshold: float) -> list[bool]:
    """Which bins of a histogram of 1/f (f = 1, 2, ...; bins [lo, hi), the last one closed) hold a
    value above ``threshold``. Record risk 1/f_k takes only these values, so a bin starting exactly at
    the threshold (risk 0.2 = 1/5 in [0.2, 0.25)) passes, which a bin-centre rule would get wrong."""
    out = []
    last = len(edges) - 2
    for i, (lo, hi) in enumerate(zip(edges[:-1], edges[1:], strict=False)):
        # the largest 1/f in the bin: the smallest f with 1/f < hi (<= hi in the last bin)
        f = max(1, math.ceil(1.0 / hi - 1e-12)) if i == last else math.floor(1.0 / hi + 1e-12) + 1
        out.append(bool(lo - 1e-12 <= 1.0 / f and 1.0 / f > threshold + 1e-12))
    return out


def bin_failing_counts(
    edges: Sequence[float],
    counts: Sequence[float],
    threshold: float,
    fail_side: str,
    failing_total: float | None = None,
    failing_beside: float = 0.0,
) -> list[float | None]:
    """How many of each bin's values fail the threshold, as far as the histogram tells.

    A bin that ends at or below ``threshold`` holds only values below it, one that starts at or above it
    only values above it (edges within 1e-9 relative of the threshold count as equal); ``fail_side`` says
    which side fails. A bin with the threshold strictly inside holds both, in a proportion the histogram
    does not tell: ``None``. ``failing_total`` (the assessor's count of failing values, including the
    ``failing_beside`` ones drawn beside the axis: infinite or overflow values) settles it: the failing
    values not accounted for by the bins wholly on the failing side are in the straddling bin; with no
    straddling bin they are values equal to the threshold, in the bin that starts or ends there.
    An inconsistent total is ignored (the bins keep what their position says)."""
    edges = [float(e) for e in edges]
    eps = 1e-9 * max(1.0, abs(threshold), abs(edges[-1] - edges[0]))
    out: list[float | None] = []
    for lo, hi, c in zip(edges[:-1], edges[1:], counts, strict=False):
        if hi <= threshold + eps:
            side = "below"
        elif lo >= threshold - eps:
            side = "above"
        else:
            out.append(None if c else 0.0)
            continue
        out.append(float(c) if side == fail_side else 0.0)
    if failing_total is None:
        return out
    diff = float(failing_total) - float(failing_beside) - sum(f for f in out if f is not None)
    unknown = [i for i, f in enumerate(out) if f is None]
    if len(unknown) == 1:
        i = unknown[0]
        if -0.5 < diff < counts[i] + 0.5:
            out[i] = min(max(diff, 0.0), float(counts[i]))
    elif not unknown and abs(diff) >= 0.5:
        # values equal to the threshold sit in the bin that starts there, or (an edge a rounding error
        # above it) in the bin that ends there
        at = [i for i, lo in enumerate(edges[:-1]) if abs(lo - threshold) <= eps]
        at += [i for i, hi in enumerate(edges[1:]) if abs(hi - threshold) <= eps]
        for i in at:
            if 0 <= (out[i] or 0.0) + diff <= counts[i]:
                out[i] = (out[i] or 0.0) + diff
                break
    return out


def threshold_histogram(
    values: Any,
    threshold: float,
    fail_side: str,
    fails_at_threshold: bool,
    *,
    bins: int = 20,
    lo: float | None = None,
    tail: float = 0.9,
    weights: Any = None,
) -> dict:
    """A histogram of per-class (or per-record) figures whose bins never straddle ``threshold``.

    The bin width is a nice number (1, 2, 2.5, 5 x 10^n) giving about ``bins`` bins, and the threshold is
    an edge, so every bin passes or fails as a whole; bins are closed on the side that keeps a value equal
    to the threshold with its own verdict (``fails_at_threshold``: does a value equal to it fail?).
    Heavy tails do not squash the picture: when the largest value lies more than 1.5 times as far from the
    start as the ``tail`` quantile, the axis ends at that quantile (but at least as far beyond the
    threshold as the smallest value is below it) and the values past it are pooled in an ``overflow``
    bar. Infinite values are counted apart (``infinite``), NaN ones ignored.

    Returns ``{edges, counts, infinite, overflow, overflow_label}``, the shape
    :func:`value_histogram_figure` draws.
    """

    v = np.asarray(values, dtype=float)
    w = np.ones(len(v)) if weights is None else np.asarray(weights, dtype=float)
    finite = np.isfinite(v)
    infinite = int(round(w[np.isinf(v)].sum()))
    t = float(threshold)
    if not finite.any():
        return {
            "edges": [t - 1.0, t, t + 1.0],
            "counts": [0, 0],
            "infinite": infinite,
            "overflow": 0,
            "overflow_label": "",
        }
    x, wx = v[finite], w[finite]
    t = float(threshold)
    # a figure equal to the threshold up to the checks' rounding slack (exp(ln 3) = 2.9999999999999996 for
    # l = 3) is judged as equal by the check, so it is binned as equal: on its verdict's side of the line
    x = np.where(np.abs(x - t) <= TOLERANCE * max(1.0, abs(t)), t, x)
    vmin, vmax = float(x.min()), float(x.max())
    start = min(vmin, t) if lo is None else min(float(lo), vmin, t)
    cap = max(float(np.quantile(x, tail)), t + (t - start), t)
    if max(vmax, t) - start <= 1.5 * (cap - start):
        cap = max(vmax, t)  # no heavy tail: show every value on the axis
    span = cap - start
    step = charts.nice_step(span if span > 1e-9 * max(1.0, abs(t)) else 1.0, bins)
    left_closed = (fail_side == "above") == fails_at_threshold
    k_lo = math.floor((start - t) / step + 1e-9)
    if not left_closed and t + k_lo * step >= start:
        k_lo -= 1  # (a, b] bins: the first edge lies below the smallest value
    k_hi = math.ceil((cap - t) / step - 1e-9)
    if left_closed and t + k_hi * step <= cap and cap >= vmax:
        k_hi += 1  # [a, b) bins: the largest value needs a bin of its own
    k_hi = max(k_hi, 1)
    edges = np.array([t + k * step for k in range(k_lo, k_hi + 1)])
    if lo is not None and edges[0] < float(lo) <= start:
        edges[0] = float(lo)  # no bin reaches below the figure's natural floor (0 for ratios)
    side = "right" if left_closed else "left"
    index = np.maximum(np.searchsorted(edges, x, side=side) - 1, 0)  # a value on a clamped first edge: bin 0
    beyond = index >= len(edges) - 1
    counts = np.bincount(index[~beyond], weights=wx[~beyond], minlength=len(edges) - 1)
    top = charts.number_label(float(edges[-1]))
    return {
        "edges": [float(e) for e in edges],
        "counts": [int(round(c)) for c in counts],
        "infinite": infinite,
        "overflow": int(round(wx[beyond].sum())),
        "overflow_label": ("≥" if left_closed else ">") + top,
    }
