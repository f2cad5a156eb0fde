"""Probabilistic (Fellegi–Sunter) record linkage of an intruder's records to a release.

Threat model.  The auditor holds the original table and the release, row
``i`` of one being row ``i`` of the other.  An intruder holds a seeded sample
``B`` of the original restricted to some columns and links it to the release
with the Fellegi–Sunter (1969) decision rule:

* every candidate pair (from exact-match blocking, :mod:`.blocking`) gets a
  comparison vector ``gamma``; attribute ``a`` is compared at levels
  ``0 = exact``, ``k = |x - y| <= tolerances[k-1]`` (numeric only, first
  tolerance that holds) and ``L_a = disagree``;
* the match weight is ``W(gamma) = sum_a log2(m_a[gamma_a] / u_a[gamma_a])``
  with ``m_a[l] = P(gamma_a = l | match)`` and ``u_a[l] = P(gamma_a = l | non-match)``
  (conditional independence);
* pairs with ``W >= upper`` are links, ``lower <= W < upper`` go to clerical
  review, the rest are non-links.  The thresholds follow FS's optimal rule:
  ``upper`` is the smallest weight with ``P(W >= upper | U) <= mu`` (false
  match rate) and ``lower`` the largest with ``P(W < lower | M) <= lambda``
  (false non-match rate), both computed from the model's own ``m``/``u``
  distribution of ``W`` (exact convolution over attributes).  When the two
  conditions leave no clerical region ``lower`` is set to ``upper``.

``m`` and ``u`` come from

* ``labels`` - the worst-case intruder: ``m`` = level frequencies over all true
  pairs ``(i, i)``, ``u`` = exact level frequencies over *all* non-matching
  pairs of ``B x release`` (counted from value frequencies in
  ``O(n log n)``, no sampling);
* ``em`` - an intruder without labels: EM (:mod:`.em`) on the counts of the
  distinct agreement patterns of the candidate pairs, started from label-free
  values.  Its diagnostics compare the fitted match prior with the prior
  ``n_intruder / n_pairs`` expected if every intruder record has its match
  among the candidates (equivalently ``1 / n_released`` over the full product).

Risk value of one estimation: the share of intruder records whose top
candidate (highest weight) is above ``upper`` and is their own record.  Ties
at the top weight are broken at random *in expectation*: a record whose own
record is one of ``t`` tied top candidates counts ``1 / t``.

Pairs are generated and scored chunk by chunk; only the per-record best
weight, its tie count, the weight of the own record and the pattern counts are
kept, so memory is ``O(n + chunk_size)`` whatever the number of pairs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Literal, Sequence

import numpy as np
import pandas as pd

from .blocking import BlockKeys, count_candidate_pairs, default_blocking, encode_block_keys, iter_candidate_pairs
from .em import default_m_init, fit_em, marginal_level_frequencies

__all__ = [
    "ComparisonSpec",
    "AttributeParameters",
    "Thresholds",
    "EstimationResult",
    "ProbabilisticLinkageResult",
    "probabilistic_linkage",
    "fs_thresholds",
    "sample_intruder_rows",
]

#: EM diagnostics warn when the fitted prior is off by more than this factor.
LAMBDA_RATIO_WARNING = 3.0
#: Weights are rounded to multiples of this power of two so that sums are exact
#: (order-independent) and equal patterns tie exactly.
_WEIGHT_QUANTUM = 2.0**-20
#: Above this many patterns, weights are summed per pair instead of looked up.
_MAX_TABLE = 1 << 22
#: Above this many patterns, pattern counts are kept sparse (np.unique) not dense.
_MAX_DENSE_COUNTS = 1 << 16


# --------------------------------------------------------------------------- specs and results


@dataclass(frozen=True)
class ComparisonSpec:
    """How one intruder column is compared.

    ``kind="categorical"``: levels exact / disagree.  ``kind="numeric"``:
    levels exact, then one per absolute tolerance (strictly increasing,
    positive), then disagree.  Non-numeric values in a numeric column count
    as missing; a missing value on either side gives a neutral (weight 0)
    comparison.
    """

    name: str
    kind: Literal["numeric", "categorical"]
    tolerances: tuple[float, ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in ("numeric", "categorical"):
            raise ValueError(f"kind must be 'numeric' or 'categorical', got {self.kind!r}")
        tol = tuple(float(t) for t in self.tolerances)
        object.__setattr__(self, "tolerances", tol)
        if tol and self.kind != "numeric":
            raise ValueError("tolerances only apply to numeric comparisons")
        if any(t <= 0 for t in tol) or any(b <= a for a, b in zip(tol, tol[1:])):
            raise ValueError("tolerances must be positive and strictly increasing")

    @property
    def n_levels(self) -> int:
        return len(self.tolerances) + 2

    @property
    def level_labels(self) -> tuple[str, ...]:
        return ("exact", *(f"<={t:g}" for t in self.tolerances), "disagree")


@dataclass(frozen=True)
class AttributeParameters:
    """Estimated ``m``/``u`` of one attribute, per level, and the weights ``log2(m/u)``."""

    name: str
    levels: tuple[str, ...]
    m: tuple[float, ...]
    u: tuple[float, ...]
    weights: tuple[float, ...]


@dataclass(frozen=True)
class Thresholds:
    """FS thresholds on the total weight and the model-estimated error rates they achieve."""

    lower: float
    upper: float
    false_match_rate: float
    false_non_match_rate: float


@dataclass(frozen=True)
class EstimationResult:
    """Outcome of linkage with one way of estimating ``m``/``u``.

    ``value`` is the risk: share of intruder records whose top link is above
    ``thresholds.upper`` and is correct (ties credited ``1/t``).
    ``lambda_`` is the match prior among candidate pairs (fitted by EM, or the
    true share for labels); ``expected_lambda = n_intruder / n_pairs``.
    """

    estimation: Literal["labels", "em"]
    value: float
    top1_correct: float
    unique_top1_correct: float
    top_link_precision: float
    pair_precision: float
    n_links: int
    n_clerical: int
    thresholds: Thresholds
    attributes: tuple[AttributeParameters, ...]
    lambda_: float
    expected_lambda: float
    iterations: int | None = None
    converged: bool | None = None
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class ProbabilisticLinkageResult:
    """All estimations run; ``value`` is the worst (highest) risk among them."""

    value: float
    worst: str
    estimations: tuple[EstimationResult, ...]
    n_intruder: int
    n_released: int
    n_candidate_pairs: int
    pair_recall: float
    blocking: tuple[tuple[str, ...], ...]
    comparisons: tuple[ComparisonSpec, ...]
    warnings: tuple[str, ...] = field(default=())

    def get(self, estimation: str) -> EstimationResult:
        for e in self.estimations:
            if e.estimation == estimation:
                return e
        raise KeyError(estimation)


# --------------------------------------------------------------------------- encoding and levels


@dataclass(frozen=True)
class _Encoded:
    spec: ComparisonSpec
    left: np.ndarray  # int32 codes (categorical, -1 missing) or float64 (numeric, NaN missing)
    right: np.ndarray
    has_missing: bool

    @property
    def radix(self) -> int:
        return self.spec.n_levels + (1 if self.has_missing else 0)

    def levels(self, li: np.ndarray, ri: np.ndarray) -> np.ndarray:
        """Comparison level of pairs ``(li, ri)`` (int8); missing is coded ``n_levels``."""
        a = self.left[li]
        b = self.right[ri]
        if self.spec.kind == "categorical":
            lev = (a != b).view(np.int8)
            if self.has_missing:
                lev = lev.copy()
                lev[(a < 0) | (b < 0)] = self.spec.n_levels
            return lev
        d = np.abs(a - b)
        lev = (d > 0).view(np.int8).copy()
        for t in self.spec.tolerances:
            lev += d > t
        if self.has_missing:
            lev[np.isnan(d)] = self.spec.n_levels
        return lev


def _encode(spec: ComparisonSpec, left: pd.DataFrame, right: pd.DataFrame) -> _Encoded:
    a, b = left[spec.name], right[spec.name]
    if spec.kind == "numeric":
        x = pd.to_numeric(a, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
        y = pd.to_numeric(b, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
        return _Encoded(spec, x, y, bool(np.isnan(x).any() or np.isnan(y).any()))
    if a.dtype != b.dtype:
        a, b = a.astype(str).where(a.notna()), b.astype(str).where(b.notna())
    codes, _ = pd.factorize(pd.concat([a, b], ignore_index=True), use_na_sentinel=True)
    codes = np.asarray(codes, dtype=np.int32)
    x, y = codes[: len(a)], codes[len(a):]
    return _Encoded(spec, x, y, bool((codes < 0).any()))


class _PatternSpace:
    """Mixed-radix coding of comparison vectors: ``code = sum_a level_a * stride_a``."""

    def __init__(self, encoded: Sequence[_Encoded]):
        self.encoded = list(encoded)
        self.radix = np.array([e.radix for e in encoded], dtype=np.int64)
        self.n_levels = [e.spec.n_levels for e in encoded]
        self.stride = np.cumprod(np.r_[1, self.radix[:-1]]).astype(np.int64)
        size = 1
        for r in self.radix:
            size *= int(r)
        if size >= 2**62:
            raise ValueError("too many comparison levels: the pattern space exceeds 2**62")
        self.size = size
        self.dtype = np.int32 if size < 2**31 else np.int64

    def codes(self, li: np.ndarray, ri: np.ndarray) -> np.ndarray:
        code = np.zeros(li.shape[0], dtype=self.dtype)
        for enc, s in zip(self.encoded, self.stride):
            lev = enc.levels(li, ri)
            if s == 1:
                code += lev
            else:
                code += lev.astype(self.dtype) * self.dtype(s)
        return code

    def decode(self, codes: np.ndarray) -> np.ndarray:
        """``(K, A)`` levels of the given codes, ``-1`` for missing."""
        codes = np.asarray(codes, dtype=np.int64)
        out = (codes[:, None] // self.stride[None, :]) % self.radix[None, :]
        out[out == np.asarray(self.n_levels)[None, :]] = -1
        return out

    def weights(self, attr_weights: Sequence[np.ndarray], codes: np.ndarray) -> np.ndarray:
        """Total weight of every code; missing comparisons weigh 0."""
        levels = self.decode(codes)
        w = np.zeros(levels.shape[0])
        for a, wa in enumerate(attr_weights):
            w += np.r_[wa, 0.0][levels[:, a]]
        return w


def _quantise(w: np.ndarray) -> np.ndarray:
    return np.round(np.asarray(w, float) / _WEIGHT_QUANTUM) * _WEIGHT_QUANTUM


def _attribute_weights(m: np.ndarray, u: np.ndarray, floor_m: float, floor_u: float) -> np.ndarray:
    """``log2(m/u)`` with zero probabilities floored (half a count) so weights stay finite."""
    return _quantise(np.log2(np.maximum(m, floor_m) / np.maximum(u, floor_u)))


# --------------------------------------------------------------------------- thresholds


def _weight_distribution(weights: Sequence[np.ndarray], m: Sequence[np.ndarray], u: Sequence[np.ndarray], max_support: int = 1 << 20):
    """Exact distribution of ``W = sum_a w_a[gamma_a]`` under ``M`` and ``U``.

    Convolves the per-attribute level distributions one attribute at a time,
    merging equal totals.  Weights are multiples of a power-of-two quantum, so
    the sums are exact; if the support would exceed ``max_support`` points the
    totals are rounded down to a coarser power-of-two grid.
    """
    span = sum(float(np.max(w) - np.min(w)) for w in weights)
    grid = _WEIGHT_QUANTUM
    while span / grid > max_support:
        grid *= 2.0
    vals, pm, pu = np.zeros(1), np.ones(1), np.ones(1)
    for w, ma, ua in zip(weights, m, u):
        vals = (vals[:, None] + np.asarray(w)[None, :]).ravel()
        pm = (pm[:, None] * np.asarray(ma)[None, :]).ravel()
        pu = (pu[:, None] * np.asarray(ua)[None, :]).ravel()
        if grid > _WEIGHT_QUANTUM:
            vals = np.floor(vals / grid) * grid
        vals, inv = np.unique(vals, return_inverse=True)
        pm = np.bincount(inv, weights=pm, minlength=vals.size)
        pu = np.bincount(inv, weights=pu, minlength=vals.size)
    return vals, pm / pm.sum(), pu / pu.sum()


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
    vals, pm, pu = _weight_distribution([np.asarray(w, float) for w in weights], m, u)
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


# --------------------------------------------------------------------------- estimation from labels


def _label_parameters(enc: _Encoded, true_levels: np.ndarray) -> tuple[np.ndarray, np.ndarray, int, int]:
    """``m`` from the true pairs and exact ``u`` over all non-matching pairs of ``B x R``.

    ``u`` counts, for every level, the pairs of the full product at that level
    (from value frequencies: a dot product of code counts for exact
    agreement, binary search on the sorted released values for tolerances)
    and subtracts the true pairs.  Returns ``m``, ``u`` and the numbers of
    observations behind them.
    """
    n_lev = enc.spec.n_levels
    obs = true_levels < n_lev
    true_counts = np.bincount(true_levels[obs], minlength=n_lev)[:n_lev].astype(float)
    n_true = int(obs.sum())
    if enc.spec.kind == "categorical":
        a, b = enc.left[enc.left >= 0], enc.right[enc.right >= 0]
        size = int(max(a.max(initial=-1), b.max(initial=-1))) + 1
        agree = float(np.dot(np.bincount(a, minlength=size).astype(float), np.bincount(b, minlength=size).astype(float)))
        total = float(a.size) * float(b.size)
        full = np.array([agree, total - agree])
    else:
        a = enc.left[~np.isnan(enc.left)]
        b = np.sort(enc.right[~np.isnan(enc.right)])
        total = float(a.size) * float(b.size)
        within = [float(np.sum(np.searchsorted(b, a, "right") - np.searchsorted(b, a, "left")))]
        for t in enc.spec.tolerances:
            within.append(float(np.sum(np.searchsorted(b, a + t, "right") - np.searchsorted(b, a - t, "left"))))
        within.append(total)
        full = np.diff(np.r_[0.0, within])
    non = full - true_counts
    n_non = total - n_true
    m = true_counts / n_true if n_true else np.full(n_lev, 1.0 / n_lev)
    u = non / n_non if n_non > 0 else np.full(n_lev, 1.0 / n_lev)
    return m, u, n_true, int(n_non)


# --------------------------------------------------------------------------- scanning


class _PatternCounter:
    """Counts of pattern codes over all chunks (dense bincount or sparse unique)."""

    def __init__(self, size: int, chunk_size: int):
        self.dense = np.zeros(size, dtype=np.int64) if size <= _MAX_DENSE_COUNTS else None
        self._codes: list[np.ndarray] = []
        self._counts: list[np.ndarray] = []
        self._pending = 0
        self._limit = 4 * max(chunk_size, 1024)

    def add(self, codes: np.ndarray) -> None:
        if self.dense is not None:
            self.dense += np.bincount(codes, minlength=self.dense.size)
            return
        c, n = np.unique(codes, return_counts=True)
        self._codes.append(c.astype(np.int64))
        self._counts.append(n)
        self._pending += c.size
        if self._pending > self._limit:
            self._merge()

    def _merge(self) -> None:
        if len(self._codes) > 1:
            c, inv = np.unique(np.concatenate(self._codes), return_inverse=True)
            n = np.bincount(inv, weights=np.concatenate(self._counts)).astype(np.int64)
            self._codes, self._counts = [c], [n]
        self._pending = self._codes[0].size if self._codes else 0

    def result(self) -> tuple[np.ndarray, np.ndarray]:
        if self.dense is not None:
            nz = np.flatnonzero(self.dense)
            return nz.astype(np.int64), self.dense[nz]
        self._merge()
        if not self._codes:
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        return self._codes[0], self._counts[0]


@dataclass
class _Best:
    """Running per-record best weight, its tie count and the own record's weight."""

    best: np.ndarray
    n_best: np.ndarray
    own: np.ndarray

    @classmethod
    def empty(cls, n: int) -> "_Best":
        return cls(np.full(n, -np.inf), np.zeros(n, np.int64), np.full(n, -np.inf))

    def update(self, left: np.ndarray, w: np.ndarray, seg: np.ndarray, is_true: np.ndarray) -> None:
        ids = left[seg]
        seg_max = np.maximum.reduceat(w, seg)
        lengths = np.diff(np.r_[seg, w.size])
        at_max = w == np.repeat(seg_max, lengths)
        seg_cnt = np.add.reduceat(at_max, seg, dtype=np.int64)
        cur, cur_n = self.best[ids], self.n_best[ids]
        better = seg_max > cur
        self.n_best[ids] = np.where(better, seg_cnt, np.where(seg_max == cur, cur_n + seg_cnt, cur_n))
        self.best[ids] = np.maximum(seg_max, cur)
        self.own[left[is_true]] = w[is_true]


def _scan(space, rules, chunk_size, orig_index, tables, count_patterns, progress, done, total):
    """One pass over all candidate pairs: pattern counts and/or per-record best for each weight table."""
    n_left = orig_index.size
    counter = _PatternCounter(space.size, chunk_size) if count_patterns else None
    bests = [_Best.empty(n_left) for _ in tables]
    own_seen = np.zeros(n_left, dtype=bool)
    n_pairs = 0
    for chunk in iter_candidate_pairs(rules, chunk_size):
        left, right = chunk.left, chunk.right
        done += chunk.raw
        if left.size:
            n_pairs += left.size
            codes = space.codes(left, right)
            if counter is not None:
                counter.add(codes)
            is_true = right == orig_index[left]
            own_seen[left[is_true]] = True
            if tables:
                seg = np.flatnonzero(np.r_[True, left[1:] != left[:-1]])
                for best, table in zip(bests, tables):
                    w = table(codes)
                    best.update(left, w, seg, is_true)
        if progress is not None:
            progress(done, total)
    return counter, bests, own_seen, n_pairs, done


def _weight_lookup(space: _PatternSpace, attr_weights: Sequence[np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
    """Function mapping pattern codes to total weights (a table when the space is small)."""
    if space.size <= _MAX_TABLE:
        table = space.weights(attr_weights, np.arange(space.size))
        return lambda codes: table[codes]
    return lambda codes: space.weights(attr_weights, codes)


# --------------------------------------------------------------------------- main entry point


def sample_intruder_rows(n: int, rows: float | int, seed: int) -> np.ndarray:
    """Sorted positions of the intruder's records: a fraction (float) or a count (int) of ``n``."""
    if isinstance(rows, (bool, np.bool_)):
        raise TypeError("rows must be a fraction (float) or a count (int)")
    if isinstance(rows, (float, np.floating)):
        if not 0.0 < rows <= 1.0:
            raise ValueError("a fraction of rows must lie in (0, 1]")
        size = max(1, int(round(rows * n)))
    elif isinstance(rows, (int, np.integer)):
        if not 1 <= rows <= n:
            raise ValueError(f"a count of rows must lie in [1, {n}]")
        size = int(rows)
    else:
        raise TypeError("rows must be a fraction (float) or a count (int)")
    if size >= n:
        return np.arange(n)
    return np.sort(np.random.default_rng(seed).choice(n, size=size, replace=False))


def probabilistic_linkage(
    original: pd.DataFrame,
    released: pd.DataFrame,
    comparisons: Sequence[ComparisonSpec],
    *,
    blocking: Sequence[Sequence[str]] | None = None,
    rows: float | int = 1.0,
    seed: int = 0,
    estimation: Literal["labels", "em", "both"] = "labels",
    max_false_match_rate: float = 0.01,
    max_false_non_match_rate: float = 0.01,
    chunk_size: int = 1_000_000,
    em_max_iter: int = 1000,
    progress: Callable[[int, int], None] | None = None,
) -> ProbabilisticLinkageResult:
    """Fellegi–Sunter linkage of an intruder sample of ``original`` to ``released``.

    Parameters
    ----------
    original, released:
        same records in the same order (row ``i`` of one is row ``i`` of the other).
    comparisons:
        the intruder's columns and how they are compared.
    blocking:
        list of rules, each a list of columns that must agree exactly; the
        candidate pairs are the de-duplicated union.  ``None``: one rule per
        categorical comparison column among the three with the highest
        effective number of values (:func:`.blocking.default_blocking`).
        ``[]``: no blocking (full cross product).
    rows, seed:
        intruder sample: a fraction (float) or count (int) of the original's
        rows, drawn without replacement with ``seed``.
    estimation:
        ``"labels"``, ``"em"`` or ``"both"``; the result's ``value`` is the
        worst (highest) risk among those run.
    max_false_match_rate, max_false_non_match_rate:
        FS error-rate targets that set the upper and lower thresholds.
    chunk_size:
        approximate number of pairs scored at once (bounds memory).
    progress:
        optional ``callable(done, total)`` called after every chunk, counting
        raw pairs over all passes.
    """
    if estimation not in ("labels", "em", "both"):
        raise ValueError("estimation must be 'labels', 'em' or 'both'")
    if len(original) != len(released):
        raise ValueError("original and released must have the same records in the same order")
    comparisons = tuple(comparisons)
    if not comparisons:
        raise ValueError("at least one comparison is required")
    names = [c.name for c in comparisons]
    if len(set(names)) != len(names):
        raise ValueError("duplicate comparison columns")
    for c in names:
        if c not in original.columns or c not in released.columns:
            raise KeyError(f"comparison column {c!r} missing from one of the tables")

    idx = sample_intruder_rows(len(original), rows, seed)
    left = original.iloc[idx].reset_index(drop=True)
    right = released.reset_index(drop=True)
    n_left, n_right = len(left), len(right)

    if blocking is None:
        blocking = default_blocking(left, [c.name for c in comparisons if c.kind == "categorical"])
    blocking = [list(r) for r in blocking]
    if blocking:
        rules = encode_block_keys(left, right, blocking)
    else:
        rules = [BlockKeys((), np.zeros(n_left, np.int64), np.zeros(n_right, np.int64))]

    encoded = [_encode(c, left, right) for c in comparisons]
    space = _PatternSpace(encoded)
    true_codes = space.codes(np.arange(n_left, dtype=np.int32), idx.astype(np.int32))

    methods = ["labels", "em"] if estimation == "both" else [estimation]
    raw_total = sum(count_candidate_pairs(rules))
    passes = 2 if "em" in methods else 1
    total = raw_total * passes
    done = 0

    # labels: m and u are known before scanning, so one pass suffices
    params: dict[str, tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]] = {}
    if "labels" in methods:
        true_levels = space.decode(true_codes)
        ms, us, ws = [], [], []
        for a, enc in enumerate(encoded):
            lev = true_levels[:, a].copy()
            lev[lev < 0] = enc.spec.n_levels
            m, u, n_m, n_u = _label_parameters(enc, lev)
            ms.append(m)
            us.append(u)
            ws.append(_attribute_weights(m, u, 0.5 / max(n_m, 1), 0.5 / max(n_u, 1)))
        params["labels"] = (ms, us, ws)

    first_tables = [] if "em" in methods else [_weight_lookup(space, params["labels"][2])]
    counter, bests, own_seen, n_pairs, done = _scan(space, rules, chunk_size, idx, first_tables, True, progress, done, total)
    pattern_codes, pattern_counts = counter.result()
    best_by_method = dict(zip(["labels"], bests))

    warnings: list[str] = []
    expected_lambda = n_left / n_pairs if n_pairs else float("nan")
    em_fit = None
    if "em" in methods:
        if n_pairs == 0:
            raise ValueError("no candidate pairs: EM cannot be fitted")
        levels = space.decode(pattern_codes)
        counts = pattern_counts.astype(float)
        em_fit = fit_em(
            levels,
            counts,
            space.n_levels,
            m_init=default_m_init(space.n_levels),
            u_init=marginal_level_frequencies(levels, counts, space.n_levels),
            lambda_init=float(np.clip(expected_lambda, 1e-9, 0.5)),
            max_iter=em_max_iter,
        )
        floor = 0.5 / n_pairs
        ms = [np.asarray(x) for x in em_fit.m]
        us = [np.asarray(x) for x in em_fit.u]
        params["em"] = (ms, us, [_attribute_weights(m, u, floor, floor) for m, u in zip(ms, us)])
        tables = [_weight_lookup(space, params[k][2]) for k in methods]
        _, bests, _, _, done = _scan(space, rules, chunk_size, idx, tables, False, progress, done, total)
        best_by_method = dict(zip(methods, bests))

    true_cand_codes, true_cand_counts = np.unique(true_codes[own_seen].astype(np.int64), return_counts=True)
    n_true_cand = int(own_seen.sum())

    results = []
    for method in methods:
        ms, us, ws = params[method]
        th = fs_thresholds(ws, ms, us, max_false_match_rate=max_false_match_rate, max_false_non_match_rate=max_false_non_match_rate)
        pw = space.weights(ws, pattern_codes)
        tw = space.weights(ws, true_cand_codes)
        n_links = int(pattern_counts[pw >= th.upper].sum())
        n_true_links = int(true_cand_counts[tw >= th.upper].sum())
        n_clerical = int(pattern_counts[(pw >= th.lower) & (pw < th.upper)].sum())
        b = best_by_method[method]
        correct_top = own_seen & (b.own == b.best)
        credit = np.where(correct_top, 1.0 / np.maximum(b.n_best, 1), 0.0)
        linked = np.isfinite(b.best) & (b.best >= th.upper)
        value = float(credit[linked].sum() / n_left)
        top1 = float(credit.sum() / n_left)
        unique_top1 = float(np.sum(correct_top & (b.n_best == 1)) / n_left)
        top_prec = float(credit[linked].sum() / linked.sum()) if linked.any() else float("nan")
        pair_prec = n_true_links / n_links if n_links else float("nan")
        attrs = tuple(
            AttributeParameters(c.name, c.level_labels, tuple(map(float, m)), tuple(map(float, u)), tuple(map(float, w)))
            for c, m, u, w in zip(comparisons, ms, us, ws)
        )
        if method == "labels":
            results.append(EstimationResult(
                "labels", value, top1, unique_top1, top_prec, pair_prec, n_links, n_clerical, th, attrs,
                lambda_=n_true_cand / n_pairs if n_pairs else float("nan"), expected_lambda=expected_lambda,
            ))
        else:
            results.append(EstimationResult(
                "em", value, top1, unique_top1, top_prec, pair_prec, n_links, n_clerical, th, attrs,
                lambda_=em_fit.lambda_, expected_lambda=expected_lambda, iterations=em_fit.iterations,
                converged=em_fit.converged, warnings=_em_warnings(em_fit, attrs, expected_lambda, n_right),
            ))

    if n_true_cand < n_left:
        warnings.append(
            f"blocking keeps the own record of only {n_true_cand}/{n_left} intruder records among the candidates"
        )
    worst = max(results, key=lambda r: r.value)
    return ProbabilisticLinkageResult(
        value=worst.value,
        worst=worst.estimation,
        estimations=tuple(results),
        n_intruder=n_left,
        n_released=n_right,
        n_candidate_pairs=n_pairs,
        pair_recall=n_true_cand / n_left,
        blocking=tuple(tuple(r.columns) for r in rules),
        comparisons=comparisons,
        warnings=tuple(warnings),
    )


def _em_warnings(fit, attrs: Sequence[AttributeParameters], expected_lambda: float, n_released: int) -> tuple[str, ...]:
    """Plausibility checks of an EM fit: prior vs ``n_intruder/n_pairs``, ``m > u`` on exact agreement."""
    out = []
    ratio = fit.lambda_ / expected_lambda
    if not (1.0 / LAMBDA_RATIO_WARNING <= ratio <= LAMBDA_RATIO_WARNING):
        out.append(
            f"EM match prior lambda={fit.lambda_:.3g} is {ratio:.3g} times the expected "
            f"{expected_lambda:.3g} (n_intruder/n_pairs, i.e. 1/{n_released} over the full product): "
            "the fitted 'match' class is probably another structure than identity"
        )
    for a in attrs:
        if a.m[0] <= a.u[0]:
            out.append(f"EM m <= u for exact agreement on {a.name!r} (m={a.m[0]:.3g}, u={a.u[0]:.3g})")
    if not fit.converged:
        out.append(f"EM did not converge in {fit.iterations} iterations")
    return tuple(out)
