"""SDMetrics' quality report of a synthetic table: column shapes, column pair trends and their mean.

The figures are SDMetrics' own (sdmetrics 0.32, ``sdmetrics/reports/single_table/_properties/column_shapes.py``
and ``column_pair_trends.py``, the metrics in ``sdmetrics/single_column/statistical/`` and
``sdmetrics/column_pairs/statistical/``), computed on whole columns with numpy instead of per metric call:

**Column shapes** (one figure per column), by the column's kind:

* ``numerical`` and ``datetime`` columns: ``KSComplement`` = 1 - D, where D = max_x |F_real(x) - F_synth(x)| is
  the two-sample Kolmogorov-Smirnov statistic of the non-missing values (numbers rounded to 14 decimals as
  SDMetrics does; datetimes as nanoseconds since the epoch).
* ``categorical``, ``ordinal`` and ``boolean`` columns: ``TVComplement`` = 1 - TV, TV = 1/2 sum_v |f_synth(v) -
  f_real(v)| over the non-missing values of the real column plus those only the synthetic column holds, each of
  which counts 1e-6 in the real column (SDMetrics' ``get_frequencies`` regularisation, in the denominator too).

**Column pair trends** (one figure per pair of columns, in the order of ``kinds``):

* two continuous columns (numerical/datetime): ``CorrelationSimilarity`` = 1 - |r_real - r_synth| / 2 with
  Pearson's r on the rows where both values are present (SDMetrics' default coefficient). A column constant in
  either table, or fewer than two complete rows, has no figure (SDMetrics reports an error there).
* otherwise ``ContingencySimilarity`` = 1 - 1/2 sum_(a,b) |p_real(a,b) - p_synth(a,b)| over the joint
  categories, a missing value being a category of its own (``groupby(dropna=False)``). A continuous column
  paired with a discrete one is first binned **as the quality report bins it**: ``np.histogram_bin_edges`` with
  10 equal-width bins over that table's own non-missing range (the real and the synthetic column each get
  their own edges) and ``np.digitize`` (so the maximum and missing values share the 11th index).

**Thresholds** (SDMetrics >= 0.27 ``QualityReport`` defaults): a continuous pair counts towards the Column Pair
Trends score only when |r_real| > ``real_correlation_threshold`` (0.5), a contingency pair only when the
real table's Cramer's V (as ``scipy.stats.contingency.association`` computes it: Pearson's chi-squared
without continuity correction) exceeds ``real_association_threshold`` (0.3). SDMetrics leaves the score of the other pairs empty; privaudit computes
it anyway (the same metric with threshold 0) and marks it ``"counted": false`` in its details, so the
property scores are SDMetrics' while every pair still has its figure. Thresholds of 0 give the pre-0.27 report
(every pair counted).

**Scores**: ``column_shapes`` is the mean of the column figures, ``column_pair_trends`` the mean of the counted
pair figures (figures that cannot be computed are skipped, as pandas' mean skips SDMetrics' NaN), and
``quality_score`` their mean (``np.nanmean``: one missing property leaves the other).

Deviations from SDMetrics, on purpose: the report subsamples 50,000 rows at random (unseeded) for each
contingency pair of a larger table; privaudit uses every row, so it gives the exact figure where SDMetrics'
varies from run to run. Columns are typed by ``kinds`` instead of SDMetrics metadata; datetime strings are
parsed by ``pd.to_datetime`` (SDMetrics needs a ``datetime_format``).

Checked figure for figure against sdmetrics 0.32 (``tests/test_utility_synthetic_quality.py``): on its demo
pair (``sdmetrics.load_demo("single_table")``, student_placements) the quality score is 0.7767270753585065
(column shapes 0.8511084702797364, column pair trends 0.7023456804372765 over 20 counted pairs of 120), and
0.838042498377066 with thresholds 0.

Every figure is a dict ``{"measure", "column", "value", "raw", "details"}``: ``value`` on the quality scale (1 =
the synthetic table keeps the real one's shape or trend, 0 = nothing of it; ``None`` when it cannot be
computed, with ``details["error"]`` saying why), ``raw`` the distance it is the complement of (D, TV,
|r_real - r_synth|), ``column`` the column name, ``"a|b"`` for a pair (``details["columns"]`` holds the two names
unambiguously), ``None`` for ``quality_score``.
"""

from __future__ import annotations

import itertools
import math
import sys
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from privaudit.common.numeric import to_numeric
from privaudit.core.errors import PrivauditError
from privaudit.utility.inputs import UtilityInputs

__all__ = [
    "KINDS",
    "DEFAULT_REAL_CORRELATION_THRESHOLD",
    "DEFAULT_REAL_ASSOCIATION_THRESHOLD",
    "quality_report",
    "ks_complement",
    "tv_complement",
    "correlation_similarity",
    "contingency_similarity",
    "pair_column",
    "infer_kinds",
]

#: The kinds a column may have, and their shape (SDMetrics' ``_sdtype_to_shape``).
KINDS = {
    "numerical": "continuous",
    "datetime": "continuous",
    "categorical": "discrete",
    "ordinal": "discrete",
    "boolean": "discrete",
}
DEFAULT_REAL_CORRELATION_THRESHOLD = 0.5  # sdmetrics.reports.utils.DEFAULT_REAL_CORRELATION_THRESHOLD
DEFAULT_REAL_ASSOCIATION_THRESHOLD = 0.3  # sdmetrics.reports.utils.DEFAULT_REAL_ASSOCIATION_THRESHOLD
_BINS = 10  # np.histogram_bin_edges' default, which ColumnPairTrends._discretize_column relies on
_MAX_DECIMALS = sys.float_info.dig - 1  # KSComplement rounds to this many decimals
_TV_REGULARISATION = 1e-6  # sdmetrics.utils.get_frequencies


def pair_column(a: str, b: str) -> str:
    """The ``column`` of a pair figure: ``"a|b"`` (the names themselves are in ``details["columns"]``)."""
    return f"{a}|{b}"


def infer_kinds(frame: pd.DataFrame) -> dict[str, str]:
    """Kinds read from the dtypes (for a caller with no column types): bool -> ``boolean``, datetime ->
    ``datetime``, other numbers -> ``numerical``, everything else -> ``categorical``."""
    kinds = {}
    for name in frame.columns:
        dtype = frame[name].dtype
        if pd.api.types.is_bool_dtype(dtype):
            kinds[name] = "boolean"
        elif pd.api.types.is_datetime64_any_dtype(dtype):
            kinds[name] = "datetime"
        elif pd.api.types.is_numeric_dtype(dtype):
            kinds[name] = "numerical"
        else:
            kinds[name] = "categorical"
    return kinds


# --------------------------------------------------------------------------------------------------------------
# single metrics on arrays


def ks_complement(real: np.ndarray, synthetic: np.ndarray) -> tuple[float, float]:
    """(1 - D, D) for the non-missing float values of two columns; (nan, nan) when either is empty."""
    a = np.sort(real[~np.isnan(real)])
    b = np.sort(synthetic[~np.isnan(synthetic)])
    if a.size == 0 or b.size == 0:
        return math.nan, math.nan
    a = np.round(a, _MAX_DECIMALS)
    b = np.round(b, _MAX_DECIMALS)
    both = np.concatenate([a, b])
    cdf_a = np.searchsorted(a, both, side="right") / a.size
    cdf_b = np.searchsorted(b, both, side="right") / b.size
    d = float(np.max(np.abs(cdf_a - cdf_b)))
    return 1.0 - d, d


def tv_complement(real: np.ndarray, synthetic: np.ndarray, n_categories: int) -> tuple[float, float]:
    """(1 - TV, TV) for two columns coded 0..n_categories-1 (missing values already removed).

    A category only the synthetic column holds counts ``1e-6`` in the real column, numerator and denominator
    (SDMetrics' ``get_frequencies``)."""
    if real.size == 0 or synthetic.size == 0:
        return math.nan, math.nan
    r = np.bincount(real, minlength=n_categories).astype(float)
    s = np.bincount(synthetic, minlength=n_categories).astype(float)
    r[(r == 0) & (s > 0)] += _TV_REGULARISATION
    present = r > 0  # SDMetrics iterates over the (regularised) real categories
    f_exp = r[present] / r[present].sum()
    f_obs = s[present] / s.sum()
    tv = 0.5 * float(np.abs(f_obs - f_exp).sum())
    return 1.0 - tv, tv


def _pearson(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson's r as scipy.stats.pearsonr computes it (centred, normalised, clipped to [-1, 1])."""
    xm = x - x.mean()
    ym = y - y.mean()
    nx = np.linalg.norm(xm)
    ny = np.linalg.norm(ym)
    if nx == 0 or ny == 0:
        return math.nan
    r = float(np.dot(xm / nx, ym / ny))
    return max(-1.0, min(1.0, r))


def correlation_similarity(
    real_a: np.ndarray, real_b: np.ndarray, synth_a: np.ndarray, synth_b: np.ndarray
) -> tuple[float, float, float, str | None]:
    """(score, r_real, r_synth, error) of two continuous columns (floats, nan = missing)."""
    for name, col in (("real", real_a), ("real", real_b), ("synthetic", synth_a), ("synthetic", synth_b)):
        present = col[~np.isnan(col)]
        if present.size and np.all(present == present[0]):
            return math.nan, math.nan, math.nan, f"the {name} column is constant: correlation is undefined"
    rows_r = ~(np.isnan(real_a) | np.isnan(real_b))
    rows_s = ~(np.isnan(synth_a) | np.isnan(synth_b))
    if rows_r.sum() < 2 or rows_s.sum() < 2:
        return math.nan, math.nan, math.nan, "fewer than two rows with both values present"
    r_real = _pearson(real_a[rows_r], real_b[rows_r])
    r_synth = _pearson(synth_a[rows_s], synth_b[rows_s])
    if math.isnan(r_real) or math.isnan(r_synth):
        return math.nan, r_real, r_synth, "a column is constant on the complete rows: correlation is undefined"
    return 1.0 - abs(r_real - r_synth) / 2.0, r_real, r_synth, None


_DENSE_CELLS = 1 << 22  # joint tables up to this many cells are counted with np.bincount, larger ones sorted


def _cells(keys: np.ndarray, n_cells: int) -> tuple[np.ndarray, int]:
    """(index of each key among the occurring cells, number of occurring cells)."""
    if n_cells <= max(_DENSE_CELLS, 4 * keys.size):
        present = np.bincount(keys, minlength=n_cells) > 0
        index = np.cumsum(present) - 1
        return index[keys], int(index[-1]) + 1 if n_cells else 0
    cells, inverse = np.unique(keys, return_inverse=True)
    return inverse.reshape(-1), int(cells.size)


def contingency_similarity(
    real_a: np.ndarray, real_b: np.ndarray, synth_a: np.ndarray, synth_b: np.ndarray, n_a: int, n_b: int
) -> tuple[float, float]:
    """(1 - TV, TV) of the joint distributions of two coded columns (codes shared by both tables,
    a < n_a, b < n_b)."""
    if real_a.size == 0 or synth_a.size == 0:
        return math.nan, math.nan
    keys = np.concatenate([real_a, synth_a]).astype(np.int64) * n_b + np.concatenate([real_b, synth_b])
    index, n_cells = _cells(keys, n_a * n_b)
    cr = np.bincount(index[: real_a.size], minlength=n_cells) / real_a.size
    cs = np.bincount(index[real_a.size :], minlength=n_cells) / synth_a.size
    tv = 0.5 * float(np.abs(cr - cs).sum())
    return 1.0 - tv, tv


def cramers_v(a: np.ndarray, b: np.ndarray, n_a: int, n_b: int) -> float:
    """Cramer's V of two coded columns of one table (a < n_a, b < n_b); nan when either has a single value.

    Pearson's chi-squared over the occurring cells only: chi2 = n (sum_ij O_ij^2 / (R_i C_j) - 1), the same
    sum as scipy's sum (O - E)^2 / E with E = R_i C_j / n, without the table of empty cells."""
    n = a.size
    if n == 0:
        return math.nan
    ca, ka = _cells(a.astype(np.int64), n_a)
    cb, kb = _cells(b.astype(np.int64), n_b)
    if min(ka, kb) < 2:
        return math.nan
    rows = np.bincount(ca, minlength=ka).astype(float)
    cols = np.bincount(cb, minlength=kb).astype(float)
    keys = ca.astype(np.int64) * kb + cb
    index, n_cells = _cells(keys, ka * kb)
    observed = np.bincount(index, minlength=n_cells).astype(float)
    first = np.zeros(n_cells, dtype=np.int64)
    first[index] = np.arange(n)  # one row of each cell gives its row and column
    chi2 = n * (float((observed**2 / (rows[ca[first]] * cols[cb[first]])).sum()) - 1.0)
    return math.sqrt(max(chi2, 0.0) / n / min(ka - 1, kb - 1))


# --------------------------------------------------------------------------------------------------------------
# the report


@dataclass
class _Column:
    name: str
    kind: str
    shape: str  # continuous / discrete
    real: np.ndarray  # continuous: float64 with nan; discrete: codes shared by both tables (nan a code)
    synth: np.ndarray
    n_codes: int = 0  # discrete: number of codes
    real_missing: np.ndarray | None = None  # discrete: rows whose value is missing
    synth_missing: np.ndarray | None = None
    real_bins: np.ndarray | None = None  # continuous: np.digitize codes on the table's own edges
    synth_bins: np.ndarray | None = None
    bin_error: str | None = None


def _numbers(series: pd.Series, column: str, table: str, kind: str) -> np.ndarray:
    if kind == "datetime":
        if pd.api.types.is_datetime64_any_dtype(series):
            stamps = series
        else:
            try:  # one format, inferred from the first value (consistent day/month order) ...
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", UserWarning)  # "could not infer format": the fallback below
                    stamps = pd.to_datetime(series)
            except (TypeError, ValueError, OverflowError):
                try:  # ... or each value on its own
                    stamps = pd.to_datetime(series, errors="coerce", format="mixed")
                except (TypeError, ValueError, OverflowError):
                    stamps = pd.Series(pd.NaT, index=series.index)
            bad = stamps.isna() & series.notna()
            if bad.any():
                value = series[bad].iloc[0]
                raise PrivauditError(
                    f"column {column!r} of the {table} table is datetime but holds {str(value)!r}, not a date"
                )
        if getattr(stamps.dt, "tz", None) is not None:
            stamps = stamps.dt.tz_convert("UTC").dt.tz_localize(None)
        ns = stamps.astype("datetime64[ns]")
        out = ns.to_numpy().view(np.int64).astype(np.float64)
        out[ns.isna().to_numpy()] = np.nan
        return out
    if pd.api.types.is_bool_dtype(series):
        return series.to_numpy(dtype=np.float64)
    numbers = to_numeric(series, errors="coerce")
    bad = numbers.isna() & series.notna()
    if bad.any():
        value = series[bad].iloc[0]
        raise PrivauditError(f"column {column!r} of the {table} table is numerical but holds {str(value)!r}")
    return numbers.to_numpy(dtype=np.float64, na_value=np.nan)


def _bin(values: np.ndarray) -> np.ndarray:
    """ColumnPairTrends._discretize_column: 10 equal-width bins over the table's own non-missing values."""
    edges = np.histogram_bin_edges(values[~np.isnan(values)], bins=_BINS)
    return np.digitize(values, bins=edges)


def _prepare(real: pd.DataFrame, synthetic: pd.DataFrame, kinds: dict[str, str]) -> list[_Column]:
    columns: list[_Column] = []
    for name, kind in kinds.items():
        shape = KINDS[kind]
        r, s = real[name], synthetic[name]
        if shape == "continuous":
            col = _Column(name, kind, shape, _numbers(r, name, "real", kind), _numbers(s, name, "synthetic", kind))
            try:
                col.real_bins = _bin(col.real)
                col.synth_bins = _bin(col.synth)
            except ValueError as exc:  # e.g. infinite values: SDMetrics records the pair as failed
                col.bin_error = f"the column cannot be binned: {' '.join(str(exc).split())}"
        else:
            both = pd.concat([r, s], ignore_index=True)
            codes, uniques = pd.factorize(both, use_na_sentinel=False)
            missing = pd.isna(np.asarray(uniques, dtype=object))[codes]  # isna on the few uniques, not every row
            col = _Column(name, kind, shape, codes[: len(r)], codes[len(r) :], n_codes=max(len(uniques), 1))
            col.real_missing = missing[: len(r)]
            col.synth_missing = missing[len(r) :]
        columns.append(col)
    return columns


def _validate(real: pd.DataFrame, synthetic: pd.DataFrame, kinds: dict[str, str]) -> None:
    for table, frame in (("real", real), ("synthetic", synthetic)):
        if not isinstance(frame, pd.DataFrame):
            raise PrivauditError(f"the {table} table must be a pandas DataFrame, not {type(frame).__name__}")
        if len(frame) == 0:
            raise PrivauditError(f"the {table} table has no rows: the quality report compares distributions")
    if not kinds:
        raise PrivauditError("the quality report needs at least one column (kinds is empty)")
    for name, kind in kinds.items():
        if kind not in KINDS:
            raise PrivauditError(f"column {name!r} has kind {kind!r}; the quality report knows {', '.join(KINDS)}")
        for table, frame in (("real", real), ("synthetic", synthetic)):
            if name not in frame.columns:
                raise PrivauditError(f"column {name!r} is not a column of the {table} table")


def _float_or_none(x: float) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


def _shape_entry(col: _Column) -> dict:
    if col.shape == "continuous":
        value, raw = ks_complement(col.real, col.synth)
        details: dict = {
            "metric": "KSComplement",
            "kind": col.kind,
            "real_values": int(np.count_nonzero(~np.isnan(col.real))),
            "synthetic_values": int(np.count_nonzero(~np.isnan(col.synth))),
        }
        measure = "ks_complement"
    else:
        assert col.real_missing is not None and col.synth_missing is not None
        r = col.real[~col.real_missing]
        s = col.synth[~col.synth_missing]
        value, raw = tv_complement(r, s, col.n_codes)
        details = {
            "metric": "TVComplement",
            "kind": col.kind,
            "real_values": int(r.size),
            "synthetic_values": int(s.size),
            "categories": int(np.unique(np.concatenate([r, s])).size),
        }
        measure = "tv_complement"
    if math.isnan(value):
        details["error"] = "the column has no non-missing value in one of the tables"
    return {
        "measure": measure,
        "column": col.name,
        "value": _float_or_none(value),
        "raw": _float_or_none(raw),
        "details": details,
    }


def _pair_entry(a: _Column, b: _Column, correlation_threshold: float, association_threshold: float) -> dict:
    details: dict = {"columns": [a.name, b.name]}
    if a.shape == "continuous" and b.shape == "continuous":
        score, r_real, r_synth, error = correlation_similarity(a.real, b.real, a.synth, b.synth)
        raw = abs(r_real - r_synth) if error is None else math.nan
        details.update(
            metric="CorrelationSimilarity",
            coefficient="Pearson",
            real_correlation=_float_or_none(r_real),
            synthetic_correlation=_float_or_none(r_synth),
        )
        if correlation_threshold > 0:
            counted = not math.isnan(r_real) and abs(r_real) > correlation_threshold
        else:
            counted = error is None
        details["threshold"] = correlation_threshold
        measure = "correlation_similarity"
    else:
        measure = "contingency_similarity"
        details["metric"] = "ContingencySimilarity"
        error = next((c.bin_error for c in (a, b) if c.shape == "continuous" and c.bin_error), None)
        score = raw = math.nan
        counted = False
        if error is None:
            codes = []
            binned = []
            for col in (a, b):
                if col.shape == "continuous":
                    assert col.real_bins is not None and col.synth_bins is not None
                    codes.append((col.real_bins, col.synth_bins, _BINS + 2))
                    binned.append(col.name)
                else:
                    codes.append((col.real, col.synth, col.n_codes))
            (ra, sa, na), (rb, sb, nb) = codes
            score, raw = contingency_similarity(ra, rb, sa, sb, na, nb)
            if binned:
                details["binned"] = binned
                details["bins"] = _BINS
            v = cramers_v(ra, rb, na, nb)
            details["real_association"] = _float_or_none(v)
            if association_threshold > 0:
                counted = not math.isnan(v) and v > association_threshold
            else:
                counted = not math.isnan(score)
        details["threshold"] = association_threshold
    details["counted"] = bool(counted)
    if error is not None:
        details["error"] = error
    return {
        "measure": measure,
        "column": pair_column(a.name, b.name),
        "value": _float_or_none(score),
        "raw": _float_or_none(raw),
        "details": details,
    }


def _mean(values: list[float | None]) -> float:
    present = [v for v in values if v is not None]
    return float(np.mean(present)) if present else math.nan


def quality_report(
    real: pd.DataFrame,
    synthetic: pd.DataFrame,
    kinds: dict[str, str],
    *,
    real_correlation_threshold: float = DEFAULT_REAL_CORRELATION_THRESHOLD,
    real_association_threshold: float = DEFAULT_REAL_ASSOCIATION_THRESHOLD,
) -> list[dict]:
    """SDMetrics' single-table quality report of ``synthetic`` against ``real`` (see the module docstring).

    ``kinds`` maps each column to compare to ``numerical``, ``datetime``, ``categorical``, ``ordinal`` or
    ``boolean``; other columns are ignored. Returns the column-shape figures (in ``kinds``' order), then the
    pair figures (``itertools.combinations`` of that order), then one ``quality_score`` whose details hold the
    two property scores. Raises :class:`PrivauditError` (one line) for a column missing from either table, an
    unknown kind, a value that does not fit its kind, an empty table, or a threshold outside [0, 1].
    """
    for name, threshold in (
        ("real_correlation_threshold", real_correlation_threshold),
        ("real_association_threshold", real_association_threshold),
    ):
        if not isinstance(threshold, (int, float)) or not 0 <= threshold <= 1:
            raise PrivauditError(f"{name} must be a number between 0 and 1, not {threshold!r}")
    _validate(real, synthetic, kinds)
    columns = _prepare(real, synthetic, kinds)
    shapes = [_shape_entry(col) for col in columns]
    pairs = [
        _pair_entry(a, b, float(real_correlation_threshold), float(real_association_threshold))
        for a, b in itertools.combinations(columns, 2)
    ]
    column_shapes = _mean([e["value"] for e in shapes])
    column_pair_trends = _mean([e["value"] for e in pairs if e["details"]["counted"]])
    properties = [p for p in (column_shapes, column_pair_trends) if not math.isnan(p)]
    overall = float(np.mean(properties)) if properties else math.nan
    quality = {
        "measure": "quality_score",
        "column": None,
        "value": _float_or_none(overall),
        "raw": None,
        "details": {
            "column_shapes": _float_or_none(column_shapes),
            "column_pair_trends": _float_or_none(column_pair_trends),
            "column_figures": len(shapes),
            "pair_figures": len(pairs),
            "pairs_counted": sum(1 for e in pairs if e["details"]["counted"] and e["value"] is not None),
            "real_correlation_threshold": float(real_correlation_threshold),
            "real_association_threshold": float(real_association_threshold),
        },
    }
    return [*shapes, *pairs, quality]


#: The options a policy may give this family (``utility: [{quality_score: {...}}]``).
OPTIONS = ("real_correlation_threshold", "real_association_threshold")


def measure(inputs: UtilityInputs) -> list[dict]:
    """The audit's family for a synthetic release: :func:`quality_report` of the release against its training
    table (``--original``), over the policy's columns that are neither identifiers nor weights, numeric
    columns as SDMetrics' ``numerical`` and the others as ``categorical``. Options (SDMetrics' thresholds) come
    from any of the family's measures in the policy's ``utility`` list."""
    options: dict = {}
    for name in ("ks_complement", "tv_complement", "correlation_similarity", "contingency_similarity", "quality_score"):
        options.update(inputs.options.get(name, {}))
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise PrivauditError(
            f"utility: the quality report has no option {unknown[0]!r} (options: {', '.join(OPTIONS)})"
        )
    numeric = set(inputs.numeric)
    kinds = {c: ("numerical" if c in numeric else "categorical") for c in inputs.compared}
    return quality_report(inputs.training, inputs.release, kinds, **options)
