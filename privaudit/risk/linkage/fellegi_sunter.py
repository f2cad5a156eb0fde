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
  distinct agreement patterns (never on pairs), one session per blocking
  rule with the rule's own columns marginalised, ``u`` fixed at the level
  frequencies over all pairs (the label-free analogue of Splink's random
  sampling) or fitted too (``em_u="em"``); ``m`` is averaged over sessions
  and the match prior among the candidates is fitted last.  Diagnostics
  compare that prior with ``n_intruder / n_pairs`` (expected if every
  intruder record has its match among the candidates; ``1 / n_released``
  over the full product), check ``m > u`` on exact agreement and report
  non-convergence, as warning strings.

Risk value of one estimation: the share of intruder records whose top
candidate (highest weight) is above ``upper`` and is their own record.  Ties
at the top weight are broken at random *in expectation*: a record whose own
record is one of ``t`` tied top candidates counts ``1 / t``.

Pairs are generated and scored chunk by chunk; only the per-record best
weight, its tie count and the pattern counts are kept (the own record's
weight follows from its pattern), so memory is ``O(n + chunk_size)``
whatever the number of pairs.  ``labels`` needs one pass over the pairs,
``em``/``both`` two (pattern counts, then scoring with the fitted weights).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Literal, Sequence

import numpy as np
import pandas as pd

from privaudit.risk.linkage.blocking import BlockKeys, RangeChunk, default_blocking, encode_block_keys, iter_rule_chunks, rule_order
from privaudit.risk.linkage.em import default_m_init, fit_em, fit_match_prior
from privaudit.risk.linkage.intruder import intruder_sample

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
_MAX_TABLE = 1 << 20
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
    rule_lambdas: tuple[float, ...] = ()
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
    #: for integer-valued numeric columns stored as offset int16: the tolerances rounded down
    #: (for integers ``|d| > t`` iff ``|d| > floor(t)``), compared in int16 arithmetic
    int_tolerances: tuple[int, ...] | None = None

    @property
    def radix(self) -> int:
        return self.spec.n_levels + (1 if self.has_missing else 0)

    def levels(self, li: np.ndarray, ri: np.ndarray) -> np.ndarray:
        """Comparison level of the pairs ``(li[k], ri[k])``."""
        return self.levels_of(self.left[li], self.right[ri])

    def levels_of(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Comparison level of value pairs ``(a[k], b[k])`` (int8); missing is coded ``n_levels``."""
        if self.spec.kind == "categorical":
            lev = (a != b).view(np.int8)
            if self.has_missing:
                lev = lev.copy()
                lev[(a < 0) | (b < 0)] = self.spec.n_levels
            return lev
        d = np.abs(a - b)
        lev = (d > 0).view(np.int8).copy()
        for t in self.int_tolerances if self.int_tolerances is not None else self.spec.tolerances:
            lev += d > t
        if self.has_missing:
            lev[np.isnan(d)] = self.spec.n_levels
        return lev


def _encode(spec: ComparisonSpec, left: pd.DataFrame, right: pd.DataFrame) -> _Encoded:
    a, b = left[spec.name], right[spec.name]
    if spec.kind == "numeric":
        x = pd.to_numeric(a, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
        y = pd.to_numeric(b, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
        has_missing = bool(np.isnan(x).any() or np.isnan(y).any())
        if not has_missing and x.size and y.size:
            lo = min(x.min(), y.min())
            span = max(x.max(), y.max()) - lo
            if span < 2**15 and np.all(x == np.round(x)) and np.all(y == np.round(y)):
                # integer values: compare offset values in int16 arithmetic
                tol = tuple(int(min(np.floor(t), 2**15 - 1)) for t in spec.tolerances)
                return _Encoded(spec, (x - lo).astype(np.int16), (y - lo).astype(np.int16), False, tol)
        return _Encoded(spec, x, y, has_missing)
    if a.dtype != b.dtype:
        a, b = a.astype(str).where(a.notna()), b.astype(str).where(b.notna())
    codes, _ = pd.factorize(pd.concat([a, b], ignore_index=True), use_na_sentinel=True)
    codes = np.asarray(codes, dtype=np.int32)
    x, y = codes[: len(a)], codes[len(a):]
    return _Encoded(spec, x, y, bool((codes < 0).any()))


_LOW7 = np.uint64(0x7F7F7F7F7F7F7F7F)
_ONES = np.uint64(0x0101010101010101)
_MAGIC = np.uint64(0x0102040810204080)


def _byte_disagreement_mask(x: np.ndarray) -> np.ndarray:
    """For 8 byte lanes of ``x`` (uint64), bit ``k`` of the result is 1 iff lane ``k`` is non-zero.

    SWAR: ``((x & 0x7F..) + 0x7F..) | x`` sets the top bit of every non-zero
    byte without carries between lanes; the multiply by ``0x0102040810204080``
    gathers the 8 top bits into the top byte (lane ``k`` -> bit ``56 + k``).
    """
    y = x & _LOW7  # in place from here on: no temporaries
    y += _LOW7
    y |= x
    y >>= np.uint64(7)
    y &= _ONES
    y *= _MAGIC
    y >>= np.uint64(56)
    return y


class _PatternSpace:
    """Mixed-radix coding of comparison vectors: ``code = sum_a level_a * stride_a``.

    Categorical attributes without missing values and with < 256 codes are
    *packed*: they get the strides ``1, 2, 4, ...`` and their codes are stored
    8 per uint64 word, one byte each, so that all of them are compared with
    one XOR and :func:`_byte_disagreement_mask` per word and pair.  The other
    attributes are compared one by one (:meth:`_Encoded.levels`).
    """

    def __init__(self, encoded: Sequence[_Encoded]):
        self.encoded = list(encoded)
        self.n_levels = [e.spec.n_levels for e in encoded]
        self.packed = [
            a for a, e in enumerate(encoded)
            if e.spec.kind == "categorical" and not e.has_missing and max(e.left.max(initial=0), e.right.max(initial=0)) < 256
        ]
        self.generic = [a for a in range(len(encoded)) if a not in self.packed]
        self.radix = np.array([e.radix for e in encoded], dtype=np.int64)
        self.stride = np.zeros(len(encoded), dtype=np.int64)
        size = 1
        for a in self.packed + self.generic:
            self.stride[a] = size
            size *= int(self.radix[a])
        if size >= 2**62:
            raise ValueError("too many comparison levels: the pattern space exceeds 2**62")
        self.size = size
        self.dtype = np.int32 if size < 2**31 - 1 else np.int64
        n_words = (len(self.packed) + 7) // 8
        self.words_left = np.zeros((n_words, encoded[0].left.size), dtype=np.uint64)
        self.words_right = np.zeros((n_words, encoded[0].right.size), dtype=np.uint64)
        for p, a in enumerate(self.packed):
            shift = np.uint64(8 * (p % 8))
            self.words_left[p // 8] |= encoded[a].left.astype(np.uint64) << shift
            self.words_right[p // 8] |= encoded[a].right.astype(np.uint64) << shift

    def codes(self, li: np.ndarray, ri: np.ndarray) -> np.ndarray:
        """Codes of arbitrary pairs ``(li[k], ri[k])``, attribute by attribute (reference path)."""
        code = np.zeros(len(li), dtype=self.dtype)
        for enc, s in zip(self.encoded, self.stride):
            code += enc.levels(li, ri).astype(self.dtype) * self.dtype(s)
        return code

    def decode(self, codes: np.ndarray) -> np.ndarray:
        """``(K, A)`` levels of the given codes, ``-1`` for missing."""
        codes = np.asarray(codes, dtype=np.int64)
        out = (codes[:, None] // self.stride[None, :]) % self.radix[None, :]
        out[out == np.asarray(self.n_levels)[None, :]] = -1
        return out

    def weights(self, attr_weights: Sequence[np.ndarray], codes: np.ndarray) -> np.ndarray:
        """Total weight of every code; missing comparisons weigh 0."""
        codes = np.asarray(codes, dtype=np.int64)
        w = np.zeros(codes.shape[0])
        for a, wa in enumerate(attr_weights):
            level = (codes // self.stride[a]) % self.radix[a]
            w += np.r_[wa, 0.0][level]  # level n_levels (missing) -> 0
        return w


def _quantise(w: np.ndarray) -> np.ndarray:
    return np.round(np.asarray(w, float) / _WEIGHT_QUANTUM) * _WEIGHT_QUANTUM


def _attribute_weights(m: np.ndarray, u: np.ndarray, floor_m: float, floor_u: float) -> np.ndarray:
    """``log2(m/u)`` with zero probabilities floored (half a count) so weights stay finite."""
    return _quantise(np.log2(np.maximum(m, floor_m) / np.maximum(u, floor_u)))


# --------------------------------------------------------------------------- thresholds


def _weight_distribution(weights: Sequence[np.ndarray], m: Sequence[np.ndarray], u: Sequence[np.ndarray], max_support: int = 1 << 20):
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
        for w, ma, ua in zip(weights, m, u):
            vals = (vals[:, None] + w[None, :]).ravel()
            pm = (pm[:, None] * ma[None, :]).ravel()
            pu = (pu[:, None] * ua[None, :]).ravel()
            vals, inv = np.unique(vals, return_inverse=True)
            pm = np.bincount(inv, weights=pm, minlength=vals.size)
            pu = np.bincount(inv, weights=pu, minlength=vals.size)
        return vals, pm / pm.sum(), pu / pu.sum()
    span = sum(float(w.max() - w.min()) for w in weights)
    h = _WEIGHT_QUANTUM
    while span / h > max_support - len(weights):
        h *= 2.0
    base = sum(float(w.min()) for w in weights)
    dm, du = np.ones(1), np.ones(1)
    for w, ma, ua in zip(weights, m, u):
        shift = np.round((w - w.min()) / h).astype(np.int64)
        size = dm.size + int(shift.max())
        nm, nu = np.zeros(size), np.zeros(size)
        for s_l, pml, pul in zip(shift, ma, ua):
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


def _full_product_level_counts(enc: _Encoded) -> tuple[np.ndarray, float]:
    """Number of pairs of the full product ``B x R`` at every level, without building pairs.

    Exact agreement on a categorical attribute: ``sum_v n_B(v) n_R(v)``.
    Numeric: for every left value ``x`` the released values in ``[x - t, x + t]``
    are counted by binary search on the sorted released values (``t = 0`` for
    exact), and levels are differences of these cumulative counts.  Pairs
    with a missing value are excluded.  Returns the counts and their total.
    """
    if enc.spec.kind == "categorical":
        a, b = enc.left[enc.left >= 0], enc.right[enc.right >= 0]
        size = int(max(a.max(initial=-1), b.max(initial=-1))) + 1
        agree = float(np.dot(np.bincount(a, minlength=size).astype(float), np.bincount(b, minlength=size).astype(float)))
        total = float(a.size) * float(b.size)
        return np.array([agree, total - agree]), total
    a = enc.left.astype(float)
    b = np.sort(enc.right.astype(float))
    a, b = a[~np.isnan(a)], b[~np.isnan(b)]
    total = float(a.size) * float(b.size)
    tolerances = enc.int_tolerances if enc.int_tolerances is not None else enc.spec.tolerances
    within = [float(np.sum(np.searchsorted(b, a, "right") - np.searchsorted(b, a, "left")))]
    for t in tolerances:
        within.append(float(np.sum(np.searchsorted(b, a + t, "right") - np.searchsorted(b, a - t, "left"))))
    within.append(total)
    return np.diff(np.r_[0.0, within]), total


def _label_parameters(enc: _Encoded, true_levels: np.ndarray) -> tuple[np.ndarray, np.ndarray, int, int]:
    """``m`` from the true pairs and exact ``u`` over all non-matching pairs of ``B x R``.

    ``u`` = (pairs of the full product at each level - true pairs at that
    level) / (number of non-matching pairs).  Returns ``m``, ``u`` and the
    numbers of observations behind them.
    """
    n_lev = enc.spec.n_levels
    obs = true_levels < n_lev
    true_counts = np.bincount(true_levels[obs], minlength=n_lev)[:n_lev].astype(float)
    n_true = int(obs.sum())
    full, total = _full_product_level_counts(enc)
    n_non = total - n_true
    m = true_counts / n_true if n_true else np.full(n_lev, 1.0 / n_lev)
    u = (full - true_counts) / n_non if n_non > 0 else np.full(n_lev, 1.0 / n_lev)
    return m, u, n_true, int(n_non)


def _random_pair_u(enc: _Encoded) -> np.ndarray:
    """Label-free ``u``: level frequencies over all pairs of ``B x R`` (matches included, ~1/n of them)."""
    full, total = _full_product_level_counts(enc)
    return full / total if total > 0 else np.full(enc.spec.n_levels, 1.0 / enc.spec.n_levels)


# --------------------------------------------------------------------------- scanning


class _RuleContext:
    """Per blocking rule: right-side arrays in the rule's sorted order and the de-duplication plan.

    A pair of rule ``r`` that agrees on an earlier rule ``k`` was already
    scored by ``k``.  When ``k``'s columns are all categorical comparisons,
    "agrees on ``k``" is a property of the agreement pattern (all those
    attributes at level 0), so it is precomputed once per pattern
    (``dup_patterns``) and costs nothing per pair; otherwise the rule keys
    are compared per pair and duplicates get the sentinel code ``space.size``.
    Categorical generic attributes that belong to rule ``r`` itself agree by
    construction and are not compared.
    """

    def __init__(self, r: int, rules: Sequence[BlockKeys], order: np.ndarray, space: "_PatternSpace"):
        self.order = order
        self.words = np.ascontiguousarray(space.words_right[:, order])
        own_cols = set(rules[r].columns)
        self.generic = []
        self.known_exact = []
        for a in space.generic:
            enc = space.encoded[a]
            if enc.spec.kind == "categorical" and enc.spec.name in own_cols:
                self.known_exact.append(a)
            else:
                self.generic.append((a, enc, enc.right[order]))
        categorical = {e.spec.name: a for a, e in enumerate(space.encoded) if e.spec.kind == "categorical"}
        self.dup_patterns = None
        self.pair_checks = []
        for earlier in rules[:r]:
            cols = earlier.columns
            if cols and all(c in categorical for c in cols) and space.size <= _MAX_TABLE:
                codes = np.arange(space.size, dtype=np.int64)
                agree = np.ones(space.size, dtype=bool)
                for c in cols:
                    a = categorical[c]
                    agree &= (codes // space.stride[a]) % space.radix[a] == 0
                self.dup_patterns = agree if self.dup_patterns is None else self.dup_patterns | agree
            else:
                self.pair_checks.append((earlier.left, earlier.right[order]))

    def codes(self, space: "_PatternSpace", ch: RangeChunk) -> tuple[np.ndarray, np.ndarray | None]:
        """Pattern codes of the chunk's pairs and the per-pair duplicate mask (or None)."""
        cnt, sl, pos = ch.counts, slice(ch.start, ch.stop), ch.pos
        code = None
        for w in range(self.words.shape[0]):
            x = np.repeat(space.words_left[w, sl], cnt)
            x ^= self.words[w][pos]
            mask = _byte_disagreement_mask(x)
            if w:
                mask <<= np.uint64(8 * w)
            code = mask.astype(space.dtype) if code is None else code + mask.astype(space.dtype)
        if code is None:
            code = np.zeros(pos.size, dtype=space.dtype)
        for a, enc, right_sorted in self.generic:
            lev = enc.levels_of(np.repeat(enc.left[sl], cnt), right_sorted[pos])
            stride = space.stride[a]
            code += lev if stride == 1 else np.multiply(lev, space.dtype(stride), dtype=space.dtype)
        dup = None
        if self.pair_checks:
            dup = np.zeros(pos.size, dtype=bool)
            for keys_left, keys_right_sorted in self.pair_checks:
                kl = np.repeat(keys_left[sl], cnt)
                dup |= (kl == keys_right_sorted[pos]) & (kl >= 0)
        return code, dup


class _PatternCounter:
    """Counts of pattern codes over all chunks (dense bincount or sparse unique)."""

    def __init__(self, size: int, chunk_size: int):
        self.size = size
        self.dense = np.zeros(size, dtype=np.int64) if size <= _MAX_DENSE_COUNTS else None
        self._codes: list[np.ndarray] = []
        self._counts: list[np.ndarray] = []
        self._pending = 0
        self._limit = 4 * max(chunk_size, 1024)

    def add(self, codes: np.ndarray, dup_patterns: np.ndarray | None) -> None:
        if self.dense is not None:
            counts = np.bincount(codes, minlength=self.size + 1)[: self.size]
            if dup_patterns is not None:
                counts[dup_patterns] = 0
            self.dense += counts
            return
        c, n = np.unique(codes, return_counts=True)
        keep = c < self.size
        c, n = c[keep], n[keep]
        if dup_patterns is not None:
            keep = ~dup_patterns[c]
            c, n = c[keep], n[keep]
        self._codes.append(c.astype(np.int64))
        self._counts.append(n.astype(np.int64))
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


class _Best:
    """Running per-record best weight and the number of candidates tied at it."""

    def __init__(self, n: int):
        self.best = np.full(n, -np.inf)
        self.n_best = np.zeros(n, dtype=np.int64)

    def update(self, ids: np.ndarray, seg: np.ndarray, lengths: np.ndarray, w: np.ndarray) -> None:
        """Merge a chunk: ``w[seg[k] : seg[k] + lengths[k]]`` are candidates of record ``ids[k]``."""
        seg_max = np.maximum.reduceat(w, seg)
        at_max = w == np.repeat(seg_max, lengths)
        seg_cnt = np.add.reduceat(at_max, seg, dtype=np.int64)
        cur, cur_n = self.best[ids], self.n_best[ids]
        self.n_best[ids] = np.where(seg_max > cur, seg_cnt, np.where(seg_max == cur, cur_n + seg_cnt, cur_n))
        self.best[ids] = np.maximum(seg_max, cur)


def _weight_lookup(space: _PatternSpace, attr_weights: Sequence[np.ndarray], dup_patterns: np.ndarray | None):
    """Map pattern codes to total weights; duplicates and the sentinel map to ``-inf``.

    A table of ``size + 1`` weights when the pattern space is small, else the
    weights are summed per pair from the decoded levels.
    """
    if space.size <= _MAX_TABLE:
        table = np.empty(space.size + 1)
        table[: space.size] = space.weights(attr_weights, np.arange(space.size))
        table[space.size] = -np.inf
        if dup_patterns is not None:
            table[: space.size][dup_patterns] = -np.inf
        return lambda codes: table[codes]

    def lookup(codes: np.ndarray) -> np.ndarray:
        sentinel = codes == space.size
        w = space.weights(attr_weights, np.where(sentinel, 0, codes))
        w[sentinel] = -np.inf
        return w

    return lookup


def _scan(space, rules, orders, contexts, chunk_size, weight_sets, counter, rule_counters, progress, done, total):
    """One pass over all candidate pairs.

    ``weight_sets``: one list of attribute weights per estimation whose
    per-record best is wanted.  ``counter``: a :class:`_PatternCounter` of the
    de-duplicated candidate pairs, or None.  ``rule_counters``: one counter
    per rule of *all* its pairs (duplicates included, as needed for per-rule
    EM), or None.  Per-pair duplicates get the sentinel code ``space.size``.
    """
    n_left = rules[0].left.size
    lookups = [[_weight_lookup(space, ws, ctx.dup_patterns) for ctx in contexts] for ws in weight_sets]
    bests = [_Best(n_left) for _ in weight_sets]
    for ch in iter_rule_chunks(rules, orders, chunk_size):
        ctx = contexts[ch.rule]
        codes, dup = ctx.codes(space, ch)
        if rule_counters is not None:
            rule_counters[ch.rule].add(codes, None)
        if dup is not None:
            np.putmask(codes, dup, space.size)
        if counter is not None:
            counter.add(codes, ctx.dup_patterns)
        if bests:
            nz = ch.counts > 0
            seg = (np.cumsum(ch.counts) - ch.counts)[nz]
            ids = np.arange(ch.start, ch.stop)[nz]
            lengths = ch.counts[nz]
            for best, lk in zip(bests, lookups):
                best.update(ids, seg, lengths, lk[ch.rule](codes))
        done += ch.size
        if progress is not None:
            progress(done, total)
    return bests, done


def _em_estimate(space, rules, rule_counts, pooled_codes, pooled_counts, u_random, n_left, fit_u, max_iter):
    """Label-free ``m``/``u`` by EM, one session per blocking rule (as in Splink's training).

    Within rule ``r`` its own categorical columns agree by construction, so
    they are marginalised (level -1) in that session; every session starts
    from :func:`.em.default_m_init` and ``u`` = level frequencies over all
    pairs of ``B x release`` (``u_random``, no labels), kept fixed unless
    ``fit_u``.  ``m`` (and a fitted ``u``) of an attribute is the mean over the
    sessions in which it was estimable.  Finally the match prior among the
    de-duplicated candidates is fitted with ``m``/``u`` fixed
    (:func:`.em.fit_match_prior`).
    """
    col_of = {e.spec.name: a for a, e in enumerate(space.encoded) if e.spec.kind == "categorical"}
    n_attr = len(space.n_levels)
    m_acc = [[] for _ in range(n_attr)]
    u_acc = [[] for _ in range(n_attr)]
    sessions = []
    for r, (codes, counts) in enumerate(rule_counts):
        n_r = float(counts.sum())
        if n_r == 0:
            sessions.append(None)
            continue
        levels = space.decode(codes)
        blocked = sorted({col_of[c] for c in rules[r].columns if c in col_of})
        levels[:, blocked] = -1
        fit = fit_em(
            levels, counts.astype(float), space.n_levels,
            m_init=default_m_init(space.n_levels), u_init=u_random,
            lambda_init=float(np.clip(n_left / n_r, 1e-9, 0.5)), max_iter=max_iter, fix_u=not fit_u,
        )
        sessions.append((fit, n_r))
        for a in range(n_attr):
            if a not in blocked:
                m_acc[a].append(np.asarray(fit.m[a]))
                u_acc[a].append(np.asarray(fit.u[a]))
    m_init = default_m_init(space.n_levels)
    m = [np.mean(acc, axis=0) if acc else m_init[a] for a, acc in enumerate(m_acc)]
    u = [np.mean(acc, axis=0) if (acc and fit_u) else np.asarray(u_random[a]) for a, acc in enumerate(u_acc)]
    not_estimable = [space.encoded[a].spec.name for a, acc in enumerate(m_acc) if not acc]
    lam = fit_match_prior(
        space.decode(pooled_codes), pooled_counts, m, u,
        lambda_init=float(np.clip(n_left / max(pooled_counts.sum(), 1), 1e-9, 0.5)),
    )
    return m, u, lam, sessions, not_estimable


# --------------------------------------------------------------------------- main entry point


# The intruder's records are drawn exactly as for distance linkage (same rows for the same seed).
sample_intruder_rows = intruder_sample


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
    em_u: Literal["random", "em"] = "random",
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
        effective number of values, or the three pairs of these columns when
        single columns would give more than 1e8 pairs
        (:func:`.blocking.default_blocking`).  ``[]``: no blocking (full
        cross product).
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
    em_max_iter, em_u:
        EM iteration cap per session; ``em_u="random"`` fixes ``u`` at the
        level frequencies over all pairs of ``B x release`` (label-free, as
        Splink does with random sampling), ``"em"`` fits ``u`` too.
    progress:
        optional ``callable(done, total)`` called after every chunk, counting
        raw pairs over all passes.
    """
    if estimation not in ("labels", "em", "both"):
        raise ValueError("estimation must be 'labels', 'em' or 'both'")
    if em_u not in ("random", "em"):
        raise ValueError("em_u must be 'random' or 'em'")
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
        blocking = default_blocking(left, [c.name for c in comparisons if c.kind == "categorical"], n_other=len(right))
    blocking = [list(r) for r in blocking]
    if blocking:
        rules = encode_block_keys(left, right, blocking)
    else:
        rules = [BlockKeys((), np.zeros(n_left, np.int64), np.zeros(n_right, np.int64))]
    orders = [rule_order(k) for k in rules]

    encoded = [_encode(c, left, right) for c in comparisons]
    space = _PatternSpace(encoded)
    contexts = [_RuleContext(r, rules, orders[r][0], space) for r in range(len(rules))]
    true_codes = space.codes(np.arange(n_left), idx)
    own_seen = np.zeros(n_left, dtype=bool)
    for k in rules:
        own_seen |= (k.left == k.right[idx]) & (k.left >= 0)

    methods = ["labels", "em"] if estimation == "both" else [estimation]
    total = sum(int(o[2].sum()) for o in orders) * (2 if "em" in methods else 1)

    params: dict[str, tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]] = {}
    if "labels" in methods:  # m and u are known before scanning: one pass suffices
        true_levels = space.decode(true_codes)
        ms, us, ws = [], [], []
        for a, enc in enumerate(encoded):
            lev = np.where(true_levels[:, a] < 0, enc.spec.n_levels, true_levels[:, a])
            m, u, n_m, n_u = _label_parameters(enc, lev)
            ms.append(m)
            us.append(u)
            ws.append(_attribute_weights(m, u, 0.5 / max(n_m, 1), 0.5 / max(n_u, 1)))
        params["labels"] = (ms, us, ws)

    counter = _PatternCounter(space.size, chunk_size)
    rule_counters = [_PatternCounter(space.size, chunk_size) for _ in rules] if "em" in methods else None
    first = [] if "em" in methods else [params["labels"][2]]
    bests, done = _scan(space, rules, orders, contexts, chunk_size, first, counter, rule_counters, progress, 0, total)
    pattern_codes, pattern_counts = counter.result()
    n_pairs = int(pattern_counts.sum())
    expected_lambda = n_left / n_pairs if n_pairs else float("nan")

    em_info = None
    if "em" in methods:
        if n_pairs == 0:
            raise ValueError("no candidate pairs: EM cannot be fitted")
        u_random = [_random_pair_u(enc) for enc in encoded]
        m, u, lam, sessions, not_estimable = _em_estimate(
            space, rules, [c.result() for c in rule_counters], pattern_codes, pattern_counts.astype(float),
            u_random, n_left, em_u == "em", em_max_iter,
        )
        floor = 0.5 / n_pairs
        params["em"] = (m, u, [_attribute_weights(ma, ua, floor, floor) for ma, ua in zip(m, u)])
        em_info = (lam, sessions, not_estimable)
        bests, done = _scan(space, rules, orders, contexts, chunk_size, [params[k][2] for k in methods], None, None, progress, done, total)
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
        own_w = space.weights(ws, true_codes)
        correct_top = own_seen & (own_w == b.best)
        credit = np.where(correct_top, 1.0 / np.maximum(b.n_best, 1), 0.0)
        linked = np.isfinite(b.best) & (b.best >= th.upper)
        value = float(credit[linked].sum() / n_left)
        attrs = tuple(
            AttributeParameters(c.name, c.level_labels, tuple(map(float, m)), tuple(map(float, u)), tuple(map(float, w)))
            for c, m, u, w in zip(comparisons, ms, us, ws)
        )
        common = dict(
            value=value,
            top1_correct=float(credit.sum() / n_left),
            unique_top1_correct=float(np.sum(correct_top & (b.n_best == 1)) / n_left),
            top_link_precision=float(credit[linked].sum() / linked.sum()) if linked.any() else float("nan"),
            pair_precision=n_true_links / n_links if n_links else float("nan"),
            n_links=n_links,
            n_clerical=n_clerical,
            thresholds=th,
            attributes=attrs,
            expected_lambda=expected_lambda,
        )
        if method == "labels":
            results.append(EstimationResult("labels", lambda_=n_true_cand / n_pairs if n_pairs else float("nan"), **common))
        else:
            lam, sessions, not_estimable = em_info
            fits = [f for f, _ in filter(None, sessions)]
            results.append(EstimationResult(
                "em", lambda_=lam,
                iterations=max(f.iterations for f in fits), converged=all(f.converged for f in fits),
                rule_lambdas=tuple(float("nan") if s is None else s[0].lambda_ for s in sessions),
                warnings=_em_warnings(lam, sessions, not_estimable, attrs, expected_lambda, n_left, n_right, [r.columns for r in rules]),
                **common,
            ))

    warnings: list[str] = []
    if n_true_cand < n_left:
        warnings.append(f"blocking keeps the own record of only {n_true_cand}/{n_left} intruder records among the candidates")
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


def _em_warnings(lam, sessions, not_estimable, attrs, expected_lambda, n_left, n_released, rule_columns) -> tuple[str, ...]:
    """Plausibility checks of an EM fit.

    * the match prior among the candidates vs ``n_intruder / n_pairs`` (each
      intruder record has at most one match; over the full product this is
      the prior ``1 / n_released``);
    * per session: estimated matches ``lambda_r * n_r`` vs ``n_intruder``;
    * ``m <= u`` on exact agreement (the attribute then lowers the weight of
      agreeing pairs: the "match" class is not identity);
    * non-convergence, attributes whose ``m`` could not be estimated.
    """
    out = []
    ratio = lam / expected_lambda
    if not (1.0 / LAMBDA_RATIO_WARNING <= ratio <= LAMBDA_RATIO_WARNING):
        out.append(
            f"EM match prior lambda={lam:.3g} among candidate pairs is {ratio:.3g} times the expected "
            f"{expected_lambda:.3g} (n_intruder/n_pairs; 1/{n_released} over the full product): "
            "the fitted 'match' class is probably another structure than identity"
        )
    for cols, sess in zip(rule_columns, sessions):
        if sess is None:
            continue
        fit, n_r = sess
        share = fit.lambda_ * n_r / n_left
        if not (1.0 / LAMBDA_RATIO_WARNING <= share <= LAMBDA_RATIO_WARNING):
            out.append(
                f"EM session blocked on {list(cols)} estimates {fit.lambda_ * n_r:.4g} matches for "
                f"{n_left} intruder records ({share:.3g} per record)"
            )
        if not fit.converged:
            out.append(f"EM session blocked on {list(cols)} did not converge in {fit.iterations} iterations")
    for a in attrs:
        if a.m[0] <= a.u[0]:
            out.append(f"EM m <= u for exact agreement on {a.name!r} (m={a.m[0]:.3g}, u={a.u[0]:.3g})")
    for name in not_estimable:
        out.append(f"EM cannot estimate m for {name!r}: it is a blocking column of every rule (starting value kept)")
    return tuple(out)
