"""Helpers for writing assessors, used by the built-in ones and offered to plugins: a check's parameters
against the policy (:func:`check_sensitive`), comparisons with a threshold beyond rounding
(:func:`exceeds`, :func:`reaches`, from :mod:`privaudit.common.thresholds`), and the histograms reports draw
(:func:`size_histogram`, :func:`value_histogram`). Numbers in messages are formatted by
:func:`privaudit.common.numbers.fmt`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from privaudit.common.thresholds import TOLERANCE, exceeds, reaches
from privaudit.core.errors import did_you_mean

if TYPE_CHECKING:  # pragma: no cover - numpy is imported by the helpers that compute: loading a plugin stays light
    import numpy as np

    from privaudit.core.policy import Policy

__all__ = [
    "TOLERANCE",
    "check_sensitive",
    "compared_columns",
    "compared_columns_problem",
    "exceeds",
    "population_classes",
    "reaches",
    "size_histogram",
    "value_histogram",
]


def check_sensitive(policy: Policy, names: Sequence[str] | None, field: str = "sensitive") -> str | None:
    """A policy error when a named column is not declared with role sensitive (None when fine)."""
    declared = policy.sensitive
    if not declared:
        return "this check needs a column with role 'sensitive'"
    for name in names or ():
        if name not in policy.columns:
            hint = did_you_mean(name, declared)
            return f"{field}: {name!r} is not a column of the policy{hint} (sensitive columns: {', '.join(declared)})"
        if name not in declared:
            return f"{field}: column {name!r} has role {policy.columns[name].role!r}, not 'sensitive'"
    return None


def size_histogram(sizes: np.ndarray, max_bins: int = 60) -> list[list[int]]:
    """``[[size, number of classes], ...]`` for the distinct sizes; past ``max_bins`` distinct sizes the
    largest ones are pooled into the last bin (its size is the smallest size pooled)."""
    import numpy as np

    values, counts = np.unique(sizes, return_counts=True)
    if len(values) > max_bins:
        pooled = int(counts[max_bins - 1 :].sum())
        values, counts = values[:max_bins], np.concatenate((counts[: max_bins - 1], [pooled]))
    return [[int(v), int(c)] for v, c in zip(values, counts, strict=False)]


def value_histogram(
    values: np.ndarray,
    bins: int = 20,
    lo: float | None = None,
    hi: float | None = None,
    weights: np.ndarray | None = None,
) -> dict:
    """Histogram of per-class figures (finite values only) with equal-width bins; with ``weights`` (class
    sizes) it counts records instead of classes."""
    import numpy as np

    keep = np.isfinite(values)
    finite = values[keep]
    lo = float(finite.min()) if lo is None and len(finite) else (lo or 0.0)
    hi = float(finite.max()) if hi is None and len(finite) else (hi if hi is not None else 1.0)
    if hi <= lo:
        hi = lo + 1.0
    counts, edges = np.histogram(finite, bins=bins, range=(lo, hi), weights=None if weights is None else weights[keep])
    return {
        "edges": [float(e) for e in edges],
        "counts": [int(c) for c in counts],
        "infinite": int(np.isinf(values).sum()),
    }


def population_classes(ctx, population: str, field: str = "population"):
    """A population table (``population``: a file named by a check, relative to the policy) grouped on the
    quasi-identifiers, joined with the release's classes. Returns ``(F_k per release class, population class
    sizes, release records per population class, path)``: F_k is NaN for a release class absent from the
    population; population classes are every distinct QI combination of the population, in value order.
    Used by ``k_map``, ``delta_presence`` and ``reidentification_risk``."""
    import numpy as np

    from privaudit.io.data import load_table

    s = ctx.summary
    qi = ctx.policy.quasi_identifiers
    path = ctx.policy.resolve_path(population, field)
    table = load_table(path, ctx.policy, what="population table", required=qi).frame
    missing = "\0missing"
    pop = table[qi].astype("string").fillna(missing).value_counts(dropna=False, sort=False).rename("F").reset_index()
    keys = s.representatives(np.arange(s.n_classes), qi).astype("string").fillna(missing)
    keys["f"] = np.asarray(s.sizes)
    release_in_pop = pop.merge(keys, on=qi, how="left")["f"].fillna(0).to_numpy(dtype=float)
    big_f = keys.merge(pop, on=qi, how="left")["F"].to_numpy(dtype=float)
    return big_f, pop["F"].to_numpy(dtype=float), release_in_pop, path


#: roles whose columns a synthetic release does not synthesise or weighs, left out of record comparisons
NOT_COMPARED = ("identifier", "record_id", "weight")


def compared_columns(columns: list[str] | None, policy: Any) -> list[str]:
    """The columns synthetic-release checks compare records on: ``columns`` when given, else every policy
    column but identifiers, record ids and weights."""
    if columns:
        return list(columns)
    return [name for name, spec in policy.columns.items() if spec.role not in NOT_COMPARED]


def compared_columns_problem(columns: list[str] | None, policy: Any) -> str | None:
    """One line when a check's ``columns`` cannot be compared (empty, unknown, an identifier, listed twice)
    or the policy leaves none; else None."""
    if columns is not None and not columns:
        return "columns: give at least one column (or leave it out for every non-identifier column)"
    for name in columns or ():
        spec = policy.columns.get(name)
        if spec is None:
            return f"columns: {name!r} is not a column of the policy{did_you_mean(name, policy.columns)}"
        if spec.role in ("identifier", "record_id"):
            return f"columns: {name!r} has role {spec.role!r}; it is not a synthesised value"
    if len(set(columns or ())) != len(columns or ()):
        return "columns: a column is listed twice"
    if not compared_columns(columns, policy):
        return "the policy has no column to compare records on (all are identifiers, record ids or weights)"
    return None


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
    :func:`privaudit.plugin.figures.value_histogram_figure` draws. A check computes it for its details (the
    report only draws it: ``l_diversity``'s ``threshold_histogram``).
    """
    import math

    import numpy as np

    from privaudit.common.numbers import nice_step, number_label

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
    step = nice_step(span if span > 1e-9 * max(1.0, abs(t)) else 1.0, bins)
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
    top = number_label(float(edges[-1]))
    return {
        "edges": [float(e) for e in edges],
        "counts": [int(round(c)) for c in counts],
        "infinite": infinite,
        "overflow": int(round(wx[beyond].sum())),
        "overflow_label": ("≥" if left_closed else ">") + top,
    }
