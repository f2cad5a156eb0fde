r"""Distance to closest record (DCR) and nearest-neighbour distance ratio (NNDR) of a synthetic release.

A synthetic record that lies much closer to a record of the *training* table (the table the generator
was fitted on) than fresh records from the same population do is a sign that the generator memorised
that person. The measures here compare the synthetic records with the training table and, when a
*holdout* (control) table from the same population is given, with it: the holdout was not used for
training, so its distances are what a generator that does not copy should produce.

Distance: Gower (Gower 1971)
----------------------------
For records ``a`` and ``b`` over the ``p`` audited columns, ``d(a, b) = (1/p) * sum_j d_j(a_j, b_j)`` with

* numeric columns: ``d_j = min(1, |a_j - b_j| / R_j)``, ``R_j`` the range (max - min) of column ``j`` in
  the **training** table; the cap at 1 keeps a synthetic value outside the training range from weighing
  more than a categorical mismatch. A numeric column constant in the training table (``R_j = 0``) is
  compared as a categorical one (equal or not);
* ordinal columns: the rank within the policy's ``order`` (0 .. L-1) as a numeric value with
  ``R_j = L - 1`` (the declared scale, not the range observed in training);
* nominal columns: ``d_j = 0`` if equal, else ``1``;
* missing values (the rule of SDMetrics and of most DCR tools, not Gower's original one): missing is a
  value of its own: two missing values are at distance 0, a missing and a present value at distance 1.
  Gower's original rule drops the column from both the sum and ``p``; it is not a metric and makes a
  record with many missing values look close to everything, so a copy could hide behind missing values.

``d`` lies in ``[0, 1]``; ``d = 0`` exactly when the two records agree on every audited column (an
*exact copy*). Infinite numeric values are treated as missing.

Search: exact, blocked, vectorised
----------------------------------
:func:`nearest_two` finds, for every query record, the two nearest reference records exactly. Identical
records are searched once (query and reference rows are de-duplicated first; a reference row's
multiplicity counts for the second neighbour). Then, in :mod:`~privaudit.risk.synthetic.pruning`:

* **joins on the nominal codes.** A record that differs from the query in ``m`` nominal columns is at
  a Gower sum (``p * d``) of at least ``m``. So the query's nearest two among the reference records with
  its nominal codes (a hash join) are its nearest two when the second is nearer than 1; failing that,
  among the records that differ in at most one nominal column (one join per column left out) when the
  second is nearer than 2. Resampled and lightly perturbed tables settle most queries so (two thirds and
  nearly all the rest on the adult benchmark);
* **a blocked search with lower bounds** for the others: ``block_rows`` query records against
  ``tile_rows`` reference records at a time (default 128 x 1024: a few MB of buffers per worker thread
  whatever the table sizes; no ``n x m`` matrix is formed), keeping a running best two, records sorted so
  that tiles are homogeneous; a tile whose lower bound (the columns whose query value the tile lacks,
  the numeric gaps) exceeds a query's current second sum -- or the joins' -- is skipped for that query.

Every distance that is computed is computed with the same arithmetic in the same order (per tile:
numeric columns by vectorised ``|a - b|``, with ``fmin(., 1)`` when a value lies outside the training
range or is missing; low-cardinality nominal columns by one matrix product of one-hot codes
(``mismatches = groups - matches``, float32, exact for counts); high-cardinality nominal columns by code
comparison; the joins replay that sequence pair by pair), so the results are those of a search over every
pair, bit for bit, ties included (of equally near records, the first distinct row in key order wins).
Blocks run on ``workers`` threads (numpy and BLAS release the GIL). SDMetrics users report slow runs and
running out of memory on tens of thousands of rows; ``benchmarks/bench_synthetic.py`` and
``benchmarks/bench_synthetic_distance.py`` measure these searches against brute force side by side.

Measures
--------
* **DCR** of a synthetic record: ``d1``, the Gower distance to its nearest training record (Park et al.
  2018, "Data synthesis based on generative adversarial networks", PVLDB 11(10), who use the 5th
  percentile of DCR; SDMetrics' DCRBaselineProtection and DCROverfittingProtection documentation).
* **NNDR**: ``d1 / d2``, ``d2`` the distance to the second nearest training record (Zhao et al. 2021,
  "CTAB-GAN: effective table data synthesizing", ACML). Values near 0 single out one training record;
  ``0/0`` (two identical training records at distance 0) is defined as 1, since no single record is
  singled out (exact copies are counted separately).
* **Exact copies**: the share of synthetic records with ``d1 = 0``. With a holdout, the share of holdout
  records that equal a training record is the baseline (a small domain makes chance matches common).
* **Below the holdout's 5th percentile**: the holdout records' DCR to the training table gives the
  distances of fresh records; the share of synthetic records with DCR strictly below its 5th percentile
  (linear interpolation) should be about 5% for a generator that does not copy.
* **Closer to training than to holdout** (the idea of SDMetrics' DCROverfittingProtection): for each
  synthetic record, 1 if its DCR to training is smaller than its DCR to the holdout, 0 if larger, and
  on a tie ``c_t / (c_t + c_h)``, the share of training records among the records at that distance.
  If the synthetic record is independent of the training records (exchangeable with them and the
  holdout's), its nearest record in the union is a training record with probability
  ``n_t / (n_t + n_h)`` (ties broken uniformly), which is the mean of that score. The share is reported
  with a binomial confidence interval (Clopper-Pearson by default, or Wilson); tie scores in (0, 1) make
  the variance at most the binomial one, so the interval is conservative. The records share the same
  training and holdout tables, which the interval ignores (as SDMetrics does).
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd
from scipy import stats

from privaudit.common.numeric import to_numeric
from privaudit.risk.synthetic.pruning import (
    MARGIN,
    TileSummary,
    distinct,
    homogeneous_order,
    near_pattern_two,
    same_pattern_count,
)
from privaudit.runtime.concurrency import ordered_map

__all__ = ["DistanceResult", "Encoded", "GowerSpace", "Neighbours", "binomial_interval", "binomial_sf", "count_within", "gower_matrix", "nearest_two", "distance_to_closest_record"]  # fmt: skip

Kind = Literal["numeric", "ordinal", "nominal"]
KINDS = ("numeric", "ordinal", "nominal")
BLOCK_ROWS = 128
TILE_ROWS = 1024
ONE_HOT_MAX_LEVELS = 64  # a nominal column with more values (missing included) is compared code by code
ONE_HOT_MAX_WIDTH = 256  # one-hot columns in all (float32: 1 kB per record at most)
PAIR_BUDGET = 64  # pairs of records joined on their nominal codes, per distinct record searched
TIE = 1e-10  # Gower distances closer than this are equal (sums of p rounded terms)
QUANTILES = (0.0, 0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0)


def default_workers() -> int:
    return max(1, min(4, os.cpu_count() or 1))


# ------------------------------------------------------------------------------------------- encoding
@dataclass(frozen=True)
class Encoded:
    """Records in the coordinates of a :class:`GowerSpace`.

    ``scaled``: numeric and ordinal columns in units of their range (NaN = missing); ``codes``: nominal
    columns compared code by code (missing has a code of its own); ``onehot``: float32 indicators of the
    low-cardinality nominal values (missing included) and of missingness in the scaled columns that can be
    missing; ``key``: the columns' values as integers, equal rows have equal keys (de-duplication)."""

    scaled: np.ndarray
    codes: np.ndarray
    onehot: np.ndarray
    key: np.ndarray

    @property
    def n(self) -> int:
        return self.key.shape[0]

    def take(self, rows: np.ndarray) -> Encoded:
        return Encoded(self.scaled[rows], self.codes[rows], self.onehot[rows], self.key[rows])


@dataclass(frozen=True)
class GowerSpace:
    """How records are compared: the columns, how each is treated and the training ranges.

    ``treated`` gives each column's treatment (``numeric``, ``ordinal``, ``nominal``; a numeric column
    constant in the training table is ``nominal``); ``scaled`` lists the numeric/ordinal columns with
    their ``low`` and ``span`` (training min and range, or 0 and L - 1); ``onehot_groups`` counts the
    nominal columns coded one-hot, ``code_columns`` the others."""

    columns: tuple[str, ...]
    treated: tuple[str, ...]
    scaled: tuple[str, ...]
    low: tuple[float, ...]
    span: tuple[float, ...]
    onehot_columns: tuple[str, ...]
    code_columns: tuple[str, ...]
    onehot_groups: int

    @property
    def p(self) -> int:
        return len(self.columns)

    @classmethod
    def build(
        cls, kinds: Mapping[str, str], training: pd.DataFrame, *others: pd.DataFrame
    ) -> tuple[GowerSpace, list[Encoded]]:
        """The space of ``kinds`` (column -> numeric | ordinal | nominal) fitted on ``training`` (ranges),
        and every table (``training`` first, then ``others``) encoded in it with shared nominal codes."""
        frames = [training, *others]
        columns = list(kinds)
        if not columns:
            raise ValueError("no column to compare records on")
        for name, kind in kinds.items():
            if kind not in KINDS:
                raise ValueError(f"column {name!r}: unknown kind {kind!r} (expected one of {', '.join(KINDS)})")
            for f in frames:
                if name not in f.columns:
                    raise ValueError(f"column {name!r} is absent from a table")
        sizes = [len(f) for f in frames]
        treated: list[str] = []
        scaled_cols, low, span, scaled_vals = [], [], [], []  # per scaled column: values of every frame
        nominal_cols, nominal_codes, nominal_levels = [], [], []  # per nominal column: codes >= 0 of every frame
        for name in columns:
            treatment, scale, nominal = _treat_column(kinds[name], [f[name] for f in frames])
            treated.append(treatment)
            if scale is not None:
                scaled_cols.append(name)
                low.append(scale[0])
                span.append(scale[1])
                scaled_vals.append(scale[2])
            else:
                assert nominal is not None
                nominal_cols.append(name)
                nominal_codes.append(nominal[0])
                nominal_levels.append(nominal[1])
        # which nominal columns go one-hot (fewest levels first, within the width budget)
        order = sorted(range(len(nominal_cols)), key=lambda i: nominal_levels[i])
        onehot_idx, width = [], 0
        for i in order:
            if nominal_levels[i] <= ONE_HOT_MAX_LEVELS and width + nominal_levels[i] <= ONE_HOT_MAX_WIDTH:
                onehot_idx.append(i)
                width += nominal_levels[i]
        onehot_idx.sort()
        code_idx = [i for i in range(len(nominal_cols)) if i not in onehot_idx]
        missing_scaled = [j for j in range(len(scaled_cols)) if any(np.isnan(v).any() for v in scaled_vals[j])]
        space = cls(
            tuple(columns),
            tuple(treated),
            tuple(scaled_cols),
            tuple(low),
            tuple(span),
            tuple(nominal_cols[i] for i in onehot_idx),
            tuple(nominal_cols[i] for i in code_idx),
            len(onehot_idx),
        )
        encoded = []
        for t, n in enumerate(sizes):
            scaled = np.empty((n, len(scaled_cols)))
            for j in range(len(scaled_cols)):
                scaled[:, j] = scaled_vals[j][t]
            scaled[np.isnan(scaled)] = np.nan  # one NaN bit pattern, for the de-duplication key
            codes = np.empty((n, len(code_idx)), dtype=np.int64)
            for c, i in enumerate(code_idx):
                codes[:, c] = nominal_codes[i][t]
            onehot = np.zeros((n, width + len(missing_scaled)), dtype=np.float32)
            pos, rows = 0, np.arange(n)
            for i in onehot_idx:
                onehot[rows, pos + nominal_codes[i][t]] = 1.0
                pos += nominal_levels[i]
            for j in missing_scaled:
                onehot[:, pos] = np.isnan(scaled[:, j])
                pos += 1
            bits = np.ascontiguousarray(scaled).view(np.int64)
            lowcodes = np.empty((n, len(onehot_idx)), dtype=np.int64)
            for c, i in enumerate(onehot_idx):
                lowcodes[:, c] = nominal_codes[i][t]
            encoded.append(Encoded(scaled, codes, onehot, np.hstack([bits, codes, lowcodes])))
        return space, encoded


def _treat_column(
    kind: str, columns: list[pd.Series]
) -> tuple[str, tuple[float, float, list[np.ndarray]] | None, tuple[list[np.ndarray], int] | None]:
    """How :meth:`GowerSpace.build` treats one column of every frame (the training one first): its treatment,
    and either ``(low, span, values scaled to [0, 1])`` for a numeric column varying in training or an ordinal
    one of several levels, or ``(codes, number of levels)`` for a nominal one (or a constant numeric or
    single-level ordinal column)."""
    if kind == "numeric":
        vals = [_numeric(c) for c in columns]
        ref = vals[0][~np.isnan(vals[0])]
        lo, hi = (float(ref.min()), float(ref.max())) if len(ref) else (0.0, 0.0)
        if hi > lo and math.isfinite(hi - lo):
            return "numeric", (lo, hi - lo, [(v - lo) / (hi - lo) + 0.0 for v in vals]), None
        return "nominal", None, _factorize([pd.Series(v).where(~np.isnan(v)) for v in vals])
    if kind == "ordinal":
        levels_list = _ordinal_levels(columns)
        ranks = [
            pd.Categorical(c.astype(object).where(c.notna(), None), categories=levels_list).codes.astype(float)
            for c in columns
        ]
        ranks = [np.where(r < 0, np.nan, r) for r in ranks]
        if len(levels_list) > 1:
            top = len(levels_list) - 1
            return "ordinal", (0.0, float(top), [r / top + 0.0 for r in ranks]), None
        return "nominal", None, _factorize([pd.Series(r) for r in ranks])
    return "nominal", None, _factorize(columns)


def _numeric(series: pd.Series) -> np.ndarray:
    values = to_numeric(series, errors="coerce").to_numpy(dtype=float, na_value=np.nan).copy()
    values[~np.isfinite(values)] = np.nan
    return values


def _ordinal_levels(columns: Sequence[pd.Series]) -> list:
    first = columns[0]
    if isinstance(first.dtype, pd.CategoricalDtype):
        return list(first.cat.categories)
    seen = pd.concat([c.dropna() for c in columns], ignore_index=True)
    return sorted(seen.unique().tolist())


def _factorize(columns: Sequence[pd.Series]) -> tuple[list[np.ndarray], int]:
    """Shared codes of the values of ``columns`` (missing: code ``levels - 1`` when any is missing)."""
    joined = pd.concat(
        [c.astype(object).where(c.notna(), None).reset_index(drop=True) for c in columns], ignore_index=True
    )
    codes, uniques = pd.factorize(joined, use_na_sentinel=True)
    levels = len(uniques)
    if (codes < 0).any():
        codes = np.where(codes < 0, levels, codes)
        levels += 1
    levels = max(levels, 1)
    out, start = [], 0
    for c in columns:
        out.append(codes[start : start + len(c)].astype(np.int64))
        start += len(c)
    return out, levels


# ------------------------------------------------------------------------------------------- search
@dataclass(frozen=True)
class Neighbours:
    """Gower distances to the nearest (``d1``) and second nearest (``d2``; inf with one reference record)
    reference record, and the index of a nearest one (the first of tied ones)."""

    d1: np.ndarray
    d2: np.ndarray
    index: np.ndarray

    @property
    def nndr(self) -> np.ndarray:
        """``d1 / d2``; 1 where ``d1 = d2 = 0``; NaN when there is no second record."""
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = self.d1 / self.d2
        ratio = np.where(self.d2 == 0, 1.0, ratio)
        return np.where(np.isinf(self.d2), np.nan, ratio)


class _Kernel:
    """Un-normalised Gower sums (``p * d``) between a block of queries and a tile of reference rows."""

    def __init__(self, space: GowerSpace, reference: Encoded, block_rows: int, tile_rows: int):
        self.space = space
        self.ref = reference
        self.m = reference.n
        self.block_rows, self.tile_rows = block_rows, min(tile_rows, max(reference.n, 1))
        self.rT = np.ascontiguousarray(reference.scaled.T)
        self.cT = np.ascontiguousarray(reference.codes.T)
        self.oh = np.ascontiguousarray(reference.onehot)
        self.ref_wide = [bool(np.any(np.isnan(c) | (c < 0) | (c > 1))) for c in self.rT]
        self._local = threading.local()

    def buffers(self) -> tuple[np.ndarray, ...]:
        bufs = getattr(self._local, "bufs", None)
        if bufs is None:
            shape = (self.block_rows, self.tile_rows)
            bufs = (np.empty(shape), np.empty(shape), np.empty(shape, dtype=np.float32), np.empty(shape, dtype=bool))
            self._local.bufs = bufs
        return bufs

    def wide(self, q: Encoded) -> list[bool]:
        """Per scaled column: must ``|a - b|`` be capped at 1 (a value outside [0, 1] or missing)?"""
        return [self.ref_wide[j] or bool(np.any(np.isnan(c) | (c < 0) | (c > 1))) for j, c in enumerate(q.scaled.T)]

    def fill(self, q: Encoded, wide: list[bool], t0: int, t1: int) -> np.ndarray:
        acc, tmp, tmp32, eq = self.buffers()
        b, w = q.n, t1 - t0
        a = acc[:b, :w]
        if self.oh.shape[1]:
            m32 = tmp32[:b, :w]
            np.matmul(q.onehot, self.oh[t0:t1].T, out=m32)
            np.subtract(float(self.space.onehot_groups), m32, out=a)
        else:
            a.fill(0.0)
        m = tmp[:b, :w]
        for j in range(q.scaled.shape[1]):
            np.subtract(q.scaled[:, j, None], self.rT[j, None, t0:t1], out=m)
            np.abs(m, out=m)
            if wide[j]:
                np.fmin(m, 1.0, out=m)  # fmin: a missing value (NaN) on one side counts 1
            np.add(a, m, out=a)
        e = eq[:b, :w]
        for j in range(q.codes.shape[1]):
            np.not_equal(q.codes[:, j, None], self.cT[j, None, t0:t1], out=e)
            np.add(a, e, out=a)
        return a


def _unique_rows(enc: Encoded) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """First index, inverse and count of the distinct rows of ``enc``."""
    if enc.n == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    if enc.key.shape[1] == 0:
        return np.zeros(1, dtype=np.int64), np.zeros(enc.n, dtype=np.int64), np.array([enc.n])
    return distinct(enc.key)  # np.unique(axis=0)'s order, faster


def _joined_two(
    space: GowerSpace, uq: Encoded, reference: Encoded, rfirst: np.ndarray, rcounts: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The joins of :func:`nearest_two` (pruning.py): the nearest two (sums) and nearest position among the
    distinct reference rows ``rfirst`` of the records sharing every nominal code of each query, then all but
    one for the queries this does not settle; and whether each query is settled (its second sum below 2)."""
    rkey, rscaled, n_codes = reference.key[rfirst], reference.scaled[rfirst], reference.codes.shape[1]
    budget = PAIR_BUDGET * (uq.n + len(rfirst))
    j1, j2, jpos, complete = near_pattern_two(
        uq.key, uq.scaled, rkey, rscaled, rcounts, space.onehot_groups, n_codes, budget
    )
    again = np.flatnonzero(~(complete & (j2 < 1.0 - MARGIN)))
    if len(again):
        sub = uq.take(again)
        k1, k2, kpos, kcomplete = near_pattern_two(
            sub.key, sub.scaled, rkey, rscaled, rcounts, space.onehot_groups, n_codes, budget, mismatches=1
        )
        j1[again], j2[again], jpos[again] = k1, k2, kpos
        complete[again] = kcomplete & (k2 < 2.0 - MARGIN)
    return j1, j2, jpos, complete & (j2 < 2.0 - MARGIN)


def _nearest_in_tiles(
    q: Encoded,
    cap: np.ndarray,
    kernel: _Kernel,
    tiles: TileSummary,
    n_ref: int,
    mult: np.ndarray,
    rorder: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The blocked search of one block of queries ``q`` in :func:`nearest_two`: the tiles in order of their
    lower bound, skipping those too far (beyond ``cap`` or the second distance found so far). Returns the
    nearest and second sums and the nearest's position among the ``n_ref`` tiled reference rows; of equally
    near rows the first distinct row (``rorder``) wins, and a row of multiplicity ``mult >= 2`` is its own
    second."""
    wide = kernel.wide(q)
    b = q.n
    d1 = np.full(b, np.inf)
    d2 = np.full(b, np.inf)
    i1 = np.full(b, -1, dtype=np.int64)
    p1 = np.full(b, len(rorder), dtype=np.int64)  # distinct-row position of the nearest
    bound = tiles.bounds(q.key, q.scaled)
    nearest_bound = bound.min(axis=0)
    for t in np.argsort(nearest_bound, kind="stable"):  # the most promising tiles first
        reach = np.minimum(d2, cap)
        if nearest_bound[t] > reach.max() + MARGIN:
            break  # this tile and every later one are too far for every query
        active = np.flatnonzero(bound[:, t] <= reach + MARGIN)
        if not len(active):
            continue
        sub = q if len(active) == b else q.take(active)
        t0 = int(tiles.starts[t])
        t1 = min(n_ref, t0 + kernel.tile_rows)
        a = kernel.fill(sub, wide, t0, t1)
        rows = np.arange(len(active))
        i = a.argmin(axis=1)
        first = a[rows, i]
        a[rows, i] = np.inf
        second = a.min(axis=1) if t1 - t0 > 1 else np.full(len(active), np.inf)
        second = np.where(mult[t0 + i] >= 2, first, second)
        pos = rorder[t0 + i]
        old1, old2 = d1[active], d2[active]
        better = (first < old1) | ((first == old1) & (pos < p1[active]))
        d2[active] = np.where(better, np.minimum(old1, second), np.minimum(old2, first))
        d1[active] = np.where(better, first, old1)
        i1[active] = np.where(better, t0 + i, i1[active])
        p1[active] = np.where(better, pos, p1[active])
    return d1, d2, i1


def nearest_two(
    space: GowerSpace,
    queries: Encoded,
    reference: Encoded,
    *,
    workers: int | None = None,
    block_rows: int = BLOCK_ROWS,
    tile_rows: int = TILE_ROWS,
    progress: Callable[[int, int], None] | None = None,
) -> Neighbours:
    """The two nearest ``reference`` records of every query record, exactly, under the Gower distance of
    ``space`` (see the module docstring for the blocking). ``progress(done, total)`` counts distinct
    query records."""
    n = queries.n
    if reference.n == 0:
        raise ValueError("the reference table has no records")
    qfirst, qinverse, _ = _unique_rows(queries)
    rfirst, _, rcounts = _unique_rows(reference)
    # homogeneous blocks and tiles (pruning.py); a tile's records in their distinct-row order, so that of
    # equally near records the first distinct row wins as before
    tile_rows = min(tile_rows, max(len(rfirst), 1))
    rorder = homogeneous_order(reference.key[rfirst], reference.scaled[rfirst])
    rorder = rorder[np.lexsort((rorder, np.arange(len(rorder)) // tile_rows))]
    qorder = homogeneous_order(queries.key[qfirst], queries.scaled[qfirst])
    uq, ur = queries.take(qfirst[qorder]), reference.take(rfirst[rorder])
    # queries whose nearest two share their nominal codes, or all but one, are settled by joins
    # (pruning.py); the others are searched, with the joins' second distance as a first bound
    j1, j2, jpos, settled = _joined_two(space, uq, reference, rfirst, rcounts)
    searched = np.flatnonzero(~settled)
    limit = j2[searched]
    uq = uq.take(searched)
    kernel = _Kernel(space, ur, block_rows, tile_rows)
    tiles = TileSummary.build(ur.key, ur.scaled, ur.codes.shape[1], kernel.tile_rows)
    mult = rcounts[rorder]
    starts = list(range(0, uq.n, block_rows))
    p = float(space.p)

    def block(start: int) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
        q = uq.take(np.arange(start, min(uq.n, start + block_rows)))
        return start, *_nearest_in_tiles(q, limit[start : start + block_rows], kernel, tiles, ur.n, mult, rorder)

    d1 = np.empty(uq.n)
    d2 = np.empty(uq.n)
    i1 = np.empty(uq.n, dtype=np.int64)
    done = 0
    for start, a, b, c in ordered_map(
        block, starts, workers=workers or default_workers(), ahead=2 * (workers or default_workers())
    ):
        d1[start : start + len(a)], d2[start : start + len(a)], i1[start : start + len(a)] = a, b, c
        done += len(a)
        if progress is not None:
            progress(done, uq.n)
    j1[searched], j2[searched], jpos[searched] = d1, d2, rorder[i1]
    back = np.empty_like(qorder)
    back[qorder] = np.arange(len(qorder))
    d1, d2, i1 = j1[back], j2[back], jpos[back]
    d1, d2 = np.maximum(d1, 0.0) / p, np.maximum(d2, 0.0) / p
    index = rfirst[i1]
    if n == 0:
        return Neighbours(np.zeros(0), np.zeros(0), np.zeros(0, dtype=np.int64))
    return Neighbours(d1[qinverse], d2[qinverse], index[qinverse])


def count_within(
    space: GowerSpace,
    queries: Encoded,
    reference: Encoded,
    radius: np.ndarray,
    *,
    workers: int | None = None,
    block_rows: int = BLOCK_ROWS,
    tile_rows: int = TILE_ROWS,
) -> np.ndarray:
    """For every query record, how many reference records lie at Gower distance ``<= radius`` (+ :data:`TIE`):
    below a sum of 1 by the join on nominal codes, otherwise by the blocked search with lower bounds."""
    radius = np.asarray(radius, dtype=float).reshape(-1)
    out = np.zeros(queries.n, dtype=np.int64)
    if queries.n == 0 or reference.n == 0:
        return out
    rfirst, _, rcounts = _unique_rows(reference)
    limit = (radius + TIE) * space.p
    searched = np.ones(queries.n, dtype=bool)
    near = np.flatnonzero(limit < 1.0 - MARGIN)  # within a sum below 1 only records of the same nominal codes
    if len(near):
        chosen, counts = same_pattern_count(
            queries.key[near],
            queries.scaled[near],
            reference.key[rfirst],
            reference.scaled[rfirst],
            rcounts,
            space.onehot_groups,
            reference.codes.shape[1],
            limit[near],
            budget=PAIR_BUDGET * (len(near) + len(rfirst)),
        )
        out[near[chosen]] = counts
        searched[near[chosen]] = False
    left = np.flatnonzero(searched)
    if not len(left):
        return out
    tile_rows = min(tile_rows, max(len(rfirst), 1))
    rorder = homogeneous_order(reference.key[rfirst], reference.scaled[rfirst])
    ur = reference.take(rfirst[rorder])
    kernel = _Kernel(space, ur, block_rows, tile_rows)
    tiles = TileSummary.build(ur.key, ur.scaled, ur.codes.shape[1], kernel.tile_rows)
    weight = rcounts[rorder].astype(float)
    qorder = left[homogeneous_order(queries.key[left], queries.scaled[left])]
    uq, lim = queries.take(qorder), limit[qorder]

    def block(start: int) -> tuple[int, np.ndarray]:
        q = uq.take(np.arange(start, min(uq.n, start + block_rows)))
        cap = lim[start : start + q.n]
        wide = kernel.wide(q)
        total = np.zeros(q.n)
        bound = tiles.bounds(q.key, q.scaled)
        for t in np.flatnonzero(bound.min(axis=0) <= cap.max() + MARGIN):  # other tiles are too far
            active = np.flatnonzero(bound[:, t] <= cap + MARGIN)
            if not len(active):
                continue
            t0 = int(tiles.starts[t])
            t1 = min(ur.n, t0 + kernel.tile_rows)
            a = kernel.fill(q if len(active) == q.n else q.take(active), wide, t0, t1)
            total[active] += np.where(a <= cap[active, None], weight[t0:t1], 0.0).sum(axis=1)
        return start, np.rint(total).astype(np.int64)

    for start, total in ordered_map(block, range(0, uq.n, block_rows), workers=workers or default_workers()):
        out[qorder[start : start + len(total)]] = total
    return out


def gower_matrix(space: GowerSpace, a: Encoded, b: Encoded) -> np.ndarray:
    """The dense ``a.n x b.n`` Gower distance matrix (small tables only: tests, examples)."""
    kernel = _Kernel(space, b, max(a.n, 1), max(b.n, 1))
    if a.n == 0 or b.n == 0:
        return np.zeros((a.n, b.n))
    return kernel.fill(a, kernel.wide(a), 0, b.n).copy() / space.p


# --------------------------------------------------------------------------------------- binomial
def binomial_interval(
    successes: float,
    trials: int,
    confidence: float = 0.95,
    method: Literal["clopper-pearson", "wilson"] = "clopper-pearson",
) -> tuple[float, float]:
    """Two-sided ``confidence`` interval for a binomial proportion. Clopper & Pearson (1934), from beta
    quantiles (a fractional number of successes interpolates), or Wilson (1927) score interval."""
    if trials <= 0:
        return (0.0, 1.0)
    k, n = float(successes), float(trials)
    alpha = 1.0 - confidence
    if method == "wilson":
        z = float(stats.norm.ppf(1 - alpha / 2))
        phat = k / n
        centre = (phat + z * z / (2 * n)) / (1 + z * z / n)
        half = z / (1 + z * z / n) * math.sqrt(phat * (1 - phat) / n + z * z / (4 * n * n))
        return (max(0.0, centre - half), min(1.0, centre + half))
    lo = 0.0 if k <= 0 else float(stats.beta.ppf(alpha / 2, k, n - k + 1))
    hi = 1.0 if k >= n else float(stats.beta.ppf(1 - alpha / 2, k + 1, n - k))
    return (lo, hi)


def binomial_sf(successes: float, trials: int, p0: float) -> float:
    """One-sided p-value ``P(X >= successes)`` for ``X ~ Binomial(trials, p0)`` (the regularised incomplete
    beta function, so that a fractional count interpolates)."""
    k, n = float(successes), int(trials)
    if k <= 0:
        return 1.0
    if k > n:
        return 0.0
    if p0 <= 0:
        return 0.0
    if p0 >= 1:
        return 1.0
    return float(stats.beta.cdf(p0, k, n - k + 1))


# --------------------------------------------------------------------------------------- measures
@dataclass
class DistanceResult:
    """Distances of a synthetic release to its training table (and to a holdout); see the module docs."""

    space: GowerSpace
    n_synthetic: int
    n_training: int
    dcr: np.ndarray  # synthetic -> training, Gower
    nndr: np.ndarray  # synthetic -> training
    exact_copies: int
    n_control: int | None = None
    dcr_to_control: np.ndarray | None = None  # synthetic -> holdout
    holdout_dcr: np.ndarray | None = None  # holdout -> training
    holdout_nndr: np.ndarray | None = None
    holdout_exact: int | None = None  # holdout records equal to a training record
    holdout_p5: float | None = None
    below_holdout_p5: int | None = None
    closer_score: float | None = None  # sum over synthetic records of the "closer to training" score
    closer_ties: int | None = None

    @property
    def has_control(self) -> bool:
        return self.n_control is not None

    @property
    def exact_share(self) -> float:
        return self.exact_copies / self.n_synthetic if self.n_synthetic else 0.0

    @property
    def expected_closer(self) -> float | None:
        """``n_t / (n_t + n_h)``: the share closer to training expected of records independent of it."""
        return None if self.n_control is None else self.n_training / (self.n_training + self.n_control)

    @property
    def closer_share(self) -> float | None:
        return None if self.closer_score is None else self.closer_score / self.n_synthetic

    def closer_interval(self, confidence: float = 0.95, method: str = "clopper-pearson") -> tuple[float, float] | None:
        if self.closer_score is None:
            return None
        return binomial_interval(self.closer_score, self.n_synthetic, confidence, method)  # type: ignore[arg-type]

    def closer_p_value(self, margin: float = 0.0) -> float | None:
        """One-sided p-value of "the share closer to training is at most expected + margin"."""
        if self.closer_score is None:
            return None
        return binomial_sf(self.closer_score, self.n_synthetic, min(1.0, self.expected_closer + margin))


def quantiles(values: np.ndarray | None, qs: Sequence[float] = QUANTILES) -> dict[str, float] | None:
    """``{"p5": ..., "p50": ...}`` of the finite values (None when there are none)."""
    if values is None:
        return None
    finite = values[np.isfinite(values)]
    if not len(finite):
        return None
    got = np.quantile(finite, qs)
    return {f"p{100 * q:g}": float(v) for q, v in zip(qs, got, strict=False)}


def distance_to_closest_record(
    synthetic: pd.DataFrame,
    training: pd.DataFrame,
    control: pd.DataFrame | None,
    kinds: Mapping[str, str],
    *,
    workers: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    block_rows: int = BLOCK_ROWS,
    tile_rows: int = TILE_ROWS,
) -> DistanceResult:
    """DCR, NNDR and exact copies of ``synthetic`` against ``training`` over the columns of ``kinds``
    (column -> numeric | ordinal | nominal), and with a ``control`` (holdout) table the holdout's DCR to
    the training table, the share below its 5th percentile and the "closer to training" score.
    ``progress(done, total)`` is in thousandths of the work."""
    frames = [synthetic] + ([control] if control is not None else [])
    space, encoded = GowerSpace.build(kinds, training, *frames)
    enc_train, enc_syn = encoded[0], encoded[1]
    enc_ctrl = encoded[2] if control is not None else None
    stages = 1 if control is None else 3
    options = {"workers": workers, "block_rows": block_rows, "tile_rows": tile_rows}

    def stage(k: int) -> Callable[[int, int], None] | None:
        if progress is None:
            return None
        return lambda done, total: progress(int(1000 * (k + done / max(total, 1)) / stages), 1000)

    to_train = nearest_two(space, enc_syn, enc_train, progress=stage(0), **options)
    result = DistanceResult(
        space, enc_syn.n, enc_train.n, to_train.d1, to_train.nndr, int(np.count_nonzero(to_train.d1 == 0))
    )
    if enc_ctrl is None:
        return result
    if enc_ctrl.n == 0:
        raise ValueError("the control table has no records")
    holdout = nearest_two(space, enc_ctrl, enc_train, progress=stage(1), **options)
    to_ctrl = nearest_two(space, enc_syn, enc_ctrl, progress=stage(2), **options)
    p5 = float(np.quantile(holdout.d1, 0.05))
    dt, dh = to_train.d1, to_ctrl.d1
    score = np.where(dt < dh - TIE, 1.0, 0.0)
    tie = np.flatnonzero(np.abs(dt - dh) <= TIE)
    if len(tie):
        at = np.maximum(dt[tie], dh[tie])
        sub = enc_syn.take(tie)
        ct = count_within(space, sub, enc_train, at, workers=workers, block_rows=block_rows, tile_rows=tile_rows)
        ch = count_within(space, sub, enc_ctrl, at, workers=workers, block_rows=block_rows, tile_rows=tile_rows)
        score[tie] = ct / np.maximum(ct + ch, 1)
    result.n_control = enc_ctrl.n
    result.dcr_to_control = dh
    result.holdout_dcr = holdout.d1
    result.holdout_nndr = holdout.nndr
    result.holdout_exact = int(np.count_nonzero(holdout.d1 == 0))
    result.holdout_p5 = p5
    result.below_holdout_p5 = int(np.count_nonzero(dt < p5 - TIE))
    result.closer_score = float(score.sum())
    result.closer_ties = int(len(tie))
    if progress is not None:
        progress(1000, 1000)
    return result
