"""One utility figure as the JSON report holds it, and ARX's normalisation onto its quality scale.

An entry is ``{"measure", "column", "value", "raw", "details"}``: ``value`` on ARX's quality scale
(1 = nothing lost, 0 = everything lost) or None when it cannot be normalised (``details["reason"]`` says
why), ``raw`` the measure before that normalisation. ARX 3.9 (``org.deidentifier.arx.aggregates.quality``)
normalises a row-oriented measure as ``QualityMeasureRowOriented.getValue`` does and a column-oriented one
as ``QualityMeasureColumnOriented.getValue`` (one column) and ``getArithmeticMean(false)`` (all columns:
the means of result, minimum and maximum, then normalised); both truncate to [0, 1] and return
``1 - (result - minimum) / (maximum - minimum)``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any


def entry(measure: str, column: str | None, value: float | None, raw: float | None, **details: Any) -> dict:
    """A utility entry (NaN becomes None: a figure that cannot be computed is absent, never 0)."""
    return {"measure": measure, "column": column, "value": _finite(value), "raw": _finite(raw), "details": details}


def _finite(x: float | None) -> float | None:
    if x is None:
        return None
    x = float(x)
    return None if math.isnan(x) else x


def arx_scale(result: float, minimum: float, maximum: float) -> float:
    """ARX's ``1 - (result - minimum) / (maximum - minimum)``, truncated to [0, 1] (NaN when undefined:
    ``maximum == minimum`` gives ARX a NaN or an infinity, which it truncates; we report no value)."""
    if any(math.isnan(v) for v in (result, minimum, maximum)) or maximum == minimum:
        return math.nan
    val = (result - minimum) / (maximum - minimum)
    return 1.0 - min(max(val, 0.0), 1.0)


def arx_mean(results: Sequence[float], minima: Sequence[float], maxima: Sequence[float]) -> float:
    """ARX's ``getArithmeticMean(false)``: the mean of the columns' results, minima and maxima (NaN columns
    left out, as ARX's ``toArray`` drops them), then :func:`arx_scale`."""
    keep = [i for i, r in enumerate(results) if not math.isnan(r)]
    if not keep:
        return math.nan
    mean = lambda xs: sum(xs[i] for i in keep) / len(keep)  # noqa: E731
    return arx_scale(mean(results), mean(minima), mean(maxima))


def clip01(x: float) -> float:
    """``x`` truncated to [0, 1] (NaN stays NaN)."""
    return x if math.isnan(x) else min(max(x, 0.0), 1.0)
