"""Histogram binning for report figures: whole-number bins, and which bins fail a threshold (float edges
settle on the side the check's comparison puts them)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from privaudit.plugin.helpers import threshold_histogram  # noqa: F401 - computed by checks, re-exported


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
