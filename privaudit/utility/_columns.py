"""The shape shared by ARX's column-oriented measures of the release alone: a per-class figure of each
quasi-identifier, averaged over the records (class sizes as weights), then normalised per column and over
all columns (:mod:`privaudit.utility.entries`)."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from privaudit.utility.domain import Domain
from privaudit.utility.entries import arx_mean, arx_scale, entry
from privaudit.utility.inputs import UtilityInputs


def column_oriented(
    inputs: UtilityInputs,
    name: str,
    per_label: Callable[[Domain, list[str]], np.ndarray],
    suppressed_figure: float,
    minimum: Callable[[Domain], float],
    maximum: float,
    aggregate_note: str,
) -> list[dict]:
    """Entries of one column-oriented measure: ``per_label(domain, labels)`` gives each released label's
    figure, a suppressed value or record counts ``suppressed_figure``; the column's result is the mean over
    the records, normalised between ``minimum(domain)`` and ``maximum``."""
    s = inputs.summary
    n = s.n_records
    out, results, minima, maxima = [], [], [], []
    for q in inputs.quasi_identifiers:
        dom = inputs.domains[q]
        col = inputs.class_column(q)
        lo = minimum(dom)
        figure = np.append(per_label(dom, col.labels), inputs.missing_figure(q, suppressed_figure, lo))[col.codes]
        figure[inputs.suppressed_classes] = suppressed_figure
        result = float(np.dot(s.sizes, figure) / n) if n else math.nan
        both = inputs.missing_in_both(q)  # missing in the original too: kept as it was, not suppressed
        if both is not None and n:
            result -= float(both.sum()) * (inputs.missing_figure(q, suppressed_figure, lo) - lo) / n
        results.append(result), minima.append(lo), maxima.append(maximum)
        extra = {"reason": SINGLE} if lo == maximum else {}
        out.append(
            entry(
                name,
                q,
                arx_scale(result, lo, maximum),
                result,
                minimum=lo,
                maximum=maximum,
                domain_size=dom.size,
                levels=dom.height,
                hierarchy=dom.source,
                **extra,
            )
        )
    if inputs.quasi_identifiers:
        out.insert(
            0,
            entry(
                name,
                None,
                arx_mean(results, minima, maxima),
                float(np.nanmean(results)) if not all(map(math.isnan, results)) else None,
                aggregate=aggregate_note,
                columns=len(results),
            ),
        )
    return out


SINGLE = "the column's domain holds a single value: nothing to lose (ARX's 0/0 gives no figure)"

ARITHMETIC_MEAN = (
    "arithmetic mean of the columns' results, minima and maxima, then normalised "
    "(ARX QualityMeasureColumnOriented.getArithmeticMean(false))"
)
