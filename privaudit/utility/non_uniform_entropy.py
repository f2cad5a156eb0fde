"""Non-uniform entropy: ARX 3.9's ``QualityModelColumnOrientedNonUniformEntropy`` (its source is the
definition followed here: ARX's variant, for records generalized to different levels, of the non-uniform
entropy measure of Gionis & Tassa, IEEE TKDE 2009, "k-Anonymization with minimal loss of information").

Per quasi-identifier, with ``t(r)`` the level of record r's released value (a suppressed value the top)
and ``L_0 < L_1 < ...`` the levels present: for each ``L_i``, over the records with ``t(r) >= L_i``,
``sum log2(f(g_{L_(i-1)}(x_r)) / f(g_{L_i}(x_r)))`` where ``x_r`` is the original value, ``g_L`` its label
on level L (``g_{L_(-1)}`` the value itself) and f counts those records holding the label. ``raw`` is minus
the total (bits lost); ARX normalises it between 0 and the original's own information,
``-sum_r log2(f(x_r) / n)``: ``value = 1 - raw / max``. Summing a label's log-count over the records holding
it is ``f log2 f``, so each level costs two bincounts. Records whose original value is missing are left
out (``details.records_skipped``). Needs ``--original``.
"""

from __future__ import annotations

import math

import numpy as np

from privaudit.utility._aligned import aligned, outliers
from privaudit.utility._columns import ARITHMETIC_MEAN
from privaudit.utility.domain import SUPPRESSED
from privaudit.utility.entries import arx_mean, arx_scale, entry
from privaudit.utility.inputs import UtilityInputs

NAME = "non_uniform_entropy"
NEEDS = frozenset({"original"})


def _flogf(codes: np.ndarray, width: int) -> float:
    c = np.bincount(codes, minlength=width).astype(float)
    c = c[c > 0]
    return float(np.dot(c, np.log2(c)))


def level_codes(matrix: np.ndarray) -> list[np.ndarray]:
    """Per level, each leaf's label as a code (labels numbered per level)."""
    out = []
    for lv in range(matrix.shape[1]):
        _, inverse = np.unique(matrix[:, lv].astype(str), return_inverse=True)
        out.append(inverse.astype(np.int64))
    return out


def column_entropy(inputs: UtilityInputs, column: str) -> tuple[float, float, dict]:
    dom = inputs.domains[column]
    a = aligned(inputs, column)
    if a.unknown_original:
        return (
            math.nan,
            math.nan,
            {"reason": f"{a.unknown_original} distinct original values are not leaves of the hierarchy"},
        )
    level = dom.level_of(a.labels, unknown=np.nan)
    unknown = [t for t, lv in zip(a.labels, level, strict=False) if np.isnan(lv) and t not in (SUPPRESSED, "")]
    if unknown:
        return (
            math.nan,
            math.nan,
            {"reason": f"{len(unknown)} distinct released values are not in the hierarchy (ARX gives no figure)"},
        )
    top = dom.height
    level = np.where(np.isnan(level), top, level)
    t = np.append(level, top).astype(np.int64)[a.released]
    t[outliers(inputs)] = top
    keep = a.leaf >= 0
    skipped = int((~keep).sum())
    t, leaf = t[keep], a.leaf[keep]
    n = len(leaf)
    gen = level_codes(dom.matrix)
    total = 0.0
    previous = None
    for lv in np.unique(t).tolist():
        mask = t >= lv
        before = leaf[mask] if previous is None else gen[previous][leaf[mask]]
        after = gen[lv][leaf[mask]]
        total += _flogf(before, dom.size) - _flogf(after, dom.size)
        previous = lv
    maximum = n * math.log2(n) - _flogf(leaf, dom.size) if n else math.nan
    return 0.0 - total, maximum, {"records_skipped": skipped, "hierarchy": dom.source}


def measure(inputs: UtilityInputs) -> list[dict]:
    out, results, minima, maxima = [], [], [], []
    for q in inputs.quasi_identifiers:
        raw, maximum, details = column_entropy(inputs, q)
        results.append(raw), minima.append(0.0), maxima.append(maximum)
        if maximum == 0 and "reason" not in details:
            details["reason"] = "the original column holds a single value: nothing to lose (ARX's 0/0 gives no figure)"
        out.append(
            entry(
                NAME,
                q,
                arx_scale(raw, 0.0, maximum),
                raw,
                minimum=0.0,
                maximum=None if math.isnan(maximum) else maximum,
                **details,
            )
        )
    if inputs.quasi_identifiers:
        ok = [r for r in results if not math.isnan(r)]
        out.insert(
            0,
            entry(
                NAME,
                None,
                arx_mean(results, minima, maxima),
                sum(ok) / len(ok) if ok else None,
                aggregate=ARITHMETIC_MEAN,
                columns=len(ok),
            ),
        )
    return out
