"""Lower bounds that let the exact Gower nearest-neighbour search skip most of its work.

:func:`~privaudit.risk.synthetic.distance.nearest_two` and
:func:`~privaudit.risk.synthetic.distance.count_within` look for reference records near every query
record. Both shortcuts here rest on one lower bound: a nominal column where two records differ adds 1
to their Gower sum (``p * d``), and no term is negative.

* **Joins on the nominal codes** (:func:`pattern_pairs`). The reference records with the query's
  nominal codes are found by a hash join; every other record is at a sum of at least 1. So when the
  query's second nearest among them is nearer than 1, they are its nearest two (:func:`near_pattern_two`),
  and within a radius below 1 they are all the records there are (:func:`same_pattern_count`). Failing
  that, one join per nominal column left out finds the records that differ in that column only; every
  other record is at a sum of at least 2. Resampled and lightly perturbed tables (synthetic releases,
  holdouts) settle most queries so. Per query, the nearest two among a chunk of joined pairs are run
  minima (:mod:`.segments`), not a sort of the chunk (with a continuous column the joins hold millions of
  pairs; ``benchmarks/bench_synthetic.py`` measures the searches).
* **Tile bounds** (:class:`TileSummary`). The blocked search compares blocks of queries with tiles of
  reference records. If a tile lacks the query's value of a nominal column, every record of the tile
  mismatches there, and if a numeric column's values in the tile all lie above (below) the query's value,
  each record is at least the gap away; the sum over columns is a lower bound of the query's sum to any
  record of the tile (the branch-and-bound idea of exact nearest-neighbour search, Fukunaga & Narendra
  1975, with the tile as the bounding region). A tile whose bound exceeds the query's current second
  sum is skipped for that query. The bounds bite when tiles and blocks are homogeneous:
  :func:`homogeneous_order` sorts records by their nominal codes (columns with fewer values first), then
  by their scaled values. Per tile and column the summary is small: a 64-bit mask of the codes present
  (nominal columns of at most 64 values, the one-hot ones), the smallest and largest code (the others),
  the smallest and largest scaled value and whether one is missing (numeric and ordinal columns).

The distances that are computed are computed with the kernel's arithmetic in its order, so the results
are those of the full search bit for bit; the tests compare them with it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from privaudit.core.summary import pack_keys
from privaudit.risk.synthetic.segments import best_two

#: a bound must exceed the current second-nearest sum by this much (sums of p rounded terms)
MARGIN = 1e-9


def _code_columns(key: np.ndarray, n_scaled: int) -> np.ndarray:
    """The nominal codes of the ``Encoded.key`` layout (scaled bits, then codes, then one-hot codes)."""
    return key[:, n_scaled:]


def homogeneous_order(key: np.ndarray, scaled: np.ndarray) -> np.ndarray:
    """A permutation of the records sorting them by nominal codes (fewest distinct codes first), then by
    scaled values."""
    codes = _code_columns(key, scaled.shape[1])
    if len(key) == 0:
        return np.zeros(0, dtype=np.int64)
    widths = [len(np.unique(codes[:, j])) for j in range(codes.shape[1])]
    leading = [codes[:, j] for j in np.argsort(widths, kind="stable")]
    trailing = [np.nan_to_num(scaled[:, j], nan=np.inf) for j in range(scaled.shape[1])]
    return np.lexsort(list(reversed(leading + trailing)))  # the last key is the primary one


@dataclass(frozen=True)
class TileSummary:
    """What the tiles of a reference table hold, per column (see the module docstring)."""

    starts: np.ndarray  # first record of every tile
    masks: np.ndarray  # tiles x one-hot columns, uint64 bit masks of the codes present
    code_low: np.ndarray  # tiles x other nominal columns
    code_high: np.ndarray
    low: np.ndarray  # tiles x scaled columns (NaN when the tile holds only missing values)
    high: np.ndarray
    missing: np.ndarray  # tiles x scaled columns: a value is missing

    @classmethod
    def build(cls, key: np.ndarray, scaled: np.ndarray, n_codes: int, tile_rows: int) -> TileSummary:
        """Summaries of tiles of ``tile_rows`` consecutive records; ``n_codes`` code columns precede the
        one-hot codes in ``key``."""
        n = len(key)
        starts = np.arange(0, max(n, 1), tile_rows)
        codes = _code_columns(key, scaled.shape[1])
        wide, narrow = codes[:, :n_codes], codes[:, n_codes:]
        if n == 0:
            empty = np.zeros((len(starts), 0))
            return cls(starts, empty.astype(np.uint64), empty, empty, empty, empty, empty.astype(bool))
        bits = np.left_shift(np.uint64(1), narrow.astype(np.uint64))
        masks = (
            np.bitwise_or.reduceat(bits, starts, axis=0) if narrow.shape[1] else np.zeros((len(starts), 0), np.uint64)
        )
        if wide.shape[1]:
            code_low, code_high = np.minimum.reduceat(wide, starts, axis=0), np.maximum.reduceat(wide, starts, axis=0)
        else:
            code_low = code_high = np.zeros((len(starts), 0), dtype=np.int64)
        if scaled.shape[1]:
            with np.errstate(invalid="ignore"):
                low, high = np.fmin.reduceat(scaled, starts, axis=0), np.fmax.reduceat(scaled, starts, axis=0)
            missing = np.logical_or.reduceat(np.isnan(scaled), starts, axis=0)
        else:
            low = high = np.zeros((len(starts), 0))
            missing = np.zeros((len(starts), 0), dtype=bool)
        return cls(starts, masks, code_low, code_high, low, high, missing)

    def bounds(self, key: np.ndarray, scaled: np.ndarray) -> np.ndarray:
        """``queries x tiles`` lower bounds of the Gower sums (``p * d``) of the queries (their ``key`` and
        ``scaled`` rows) to any record of each tile."""
        codes = _code_columns(key, scaled.shape[1])
        n_codes = self.code_low.shape[1]
        wide, narrow = codes[:, :n_codes], codes[:, n_codes:]
        out = np.zeros((len(key), len(self.starts)))
        for j in range(narrow.shape[1]):
            bit = np.left_shift(np.uint64(1), narrow[:, j].astype(np.uint64))
            out += (self.masks[None, :, j] & bit[:, None]) == 0
        for j in range(n_codes):
            out += (wide[:, j, None] < self.code_low[None, :, j]) | (wide[:, j, None] > self.code_high[None, :, j])
        for j in range(scaled.shape[1]):
            x = scaled[:, j, None]
            with np.errstate(invalid="ignore"):
                gap = np.fmax(self.low[None, :, j] - x, x - self.high[None, :, j])
            gap = np.where(np.isnan(gap) | np.isnan(x) | self.missing[None, :, j], 0.0, np.clip(gap, 0.0, 1.0))
            out += gap
        return out


#: (query, reference) pairs compared at once by the join on nominal codes
PAIR_CHUNK = 500_000


def distinct(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``np.unique(matrix, axis=0, return_index=True, return_inverse=True, return_counts=True)`` without its
    values, in the same (lexicographic) order, faster: each column ranked on its own, the ranks folded into
    one integer (:func:`privaudit.core.summary.pack_keys`)."""
    n, d = matrix.shape
    ranks = np.empty((n, d), dtype=np.int64)
    radices = []
    for j in range(d):
        values, ranks[:, j] = np.unique(matrix[:, j], return_inverse=True)
        radices.append(len(values))
    key = pack_keys([(ranks[:, j], radix) for j, radix in enumerate(radices)], n)  # the class summary's packing
    _, first, inverse, counts = np.unique(key, return_index=True, return_inverse=True, return_counts=True)
    return first, inverse.reshape(-1), counts


def pattern_pairs(
    q_key: np.ndarray,
    q_scaled: np.ndarray,
    r_key: np.ndarray,
    r_scaled: np.ndarray,
    onehot_groups: int,
    n_codes: int,
    budget: int,
    drop: int | None = None,
) -> tuple[np.ndarray, Iterator[tuple[np.ndarray, ...]]]:
    """The join of queries and reference records on their nominal codes: ``(joined queries, chunks)``, the
    chunks ``(query, reference record, Gower sum)`` of every pair with equal nominal codes -- or, with
    ``drop`` (a nominal column, counted from the first), of every pair that differs in that column only. At
    most ``budget`` pairs: the queries of the smallest patterns first; the others are left out (and absent
    from ``joined queries``; a joined query may have no pair). A record that differs from the query in
    ``m`` nominal columns is at a sum of at least ``m``.

    The sums are computed with the kernel's arithmetic in its order -- ``onehot_groups - matches`` (the
    matches: the one-hot columns that agree and the scaled columns missing on both sides), then each
    scaled column's ``min(1, |a - b|)``, then the code columns' mismatches -- so they are equal floats."""
    nq, nr, s = len(q_key), len(r_key), q_scaled.shape[1]
    nominal = list(range(s, q_key.shape[1]))
    if nq == 0 or nr == 0 or not nominal:  # no nominal column: no pattern to join on
        return np.zeros(0, dtype=np.int64), iter(())
    on = [c for c in nominal if drop is None or c != s + drop]
    if on:
        group = distinct(np.vstack([r_key[:, on], q_key[:, on]]))[1]
    else:
        group = np.zeros(nq + nr, dtype=np.int64)
    gr, gq = group[:nr], group[nr:]
    by_group = np.argsort(gr, kind="stable")  # reference records by pattern, then position
    edges = np.searchsorted(gr[by_group], np.arange(group.max() + 2))
    size = (edges[1:] - edges[:-1])[gq]
    cheapest = np.argsort(size, kind="stable")
    chosen = np.sort(cheapest[np.cumsum(size[cheapest]) <= budget])
    code_mismatch = drop is not None and drop < n_codes
    onehot_mismatch = float(drop is not None and drop >= n_codes)

    def chunks() -> Iterator[tuple[np.ndarray, ...]]:
        start = 0
        while start < len(chosen):
            total = np.cumsum(size[chosen[start:]])
            stop = start + max(1, int(np.searchsorted(total, PAIR_CHUNK, "right")))
            qs = chosen[start:stop]
            qi = np.repeat(qs, size[qs])
            offset = np.arange(len(qi)) - np.repeat(np.cumsum(size[qs]) - size[qs], size[qs])
            ri = by_group[edges[gq[qi]] + offset]
            start = stop
            if drop is not None:
                differ = q_key[qi, s + drop] != r_key[ri, s + drop]
                qi, ri = qi[differ], ri[differ]
            if not len(qi):
                continue
            both = np.zeros(len(qi))
            for j in range(s):
                both += np.isnan(q_scaled[qi, j]) & np.isnan(r_scaled[ri, j])
            a = float(onehot_groups) - (float(onehot_groups) - onehot_mismatch + both)
            for j in range(s):
                m = np.abs(q_scaled[qi, j] - r_scaled[ri, j])
                np.fmin(m, 1.0, out=m)
                a += m
            if code_mismatch:
                a += 1.0
            yield qi, ri, a

    return chosen, chunks()


def near_pattern_two(
    q_key: np.ndarray,
    q_scaled: np.ndarray,
    r_key: np.ndarray,
    r_scaled: np.ndarray,
    mult: np.ndarray,
    onehot_groups: int,
    n_codes: int,
    budget: int,
    mismatches: int = 0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The nearest two reference records (``mult``: each one's multiplicity) of every query among those
    that differ from it in at most ``mismatches`` (0 or 1) nominal columns (:func:`pattern_pairs`, one
    join per column left out): ``(d1, d2, position of the nearest, complete)`` as Gower sums, inf where
    there is none; ``complete`` is false for a query some join left out (its figures are then bounds
    only). Of equally near records the first position wins. A complete query whose ``d2`` here is below
    ``mismatches + 1`` has its nearest two exactly: any other record is at least that far."""
    nq = len(q_key)
    d1, d2 = np.full(nq, np.inf), np.full(nq, np.inf)
    pos1 = np.full(nq, len(r_key), dtype=np.int64)
    complete = np.ones(nq, dtype=bool)
    n_nominal = q_key.shape[1] - q_scaled.shape[1]
    drops = [None] + (list(range(n_nominal)) if mismatches >= 1 else [])
    for drop in drops:
        chosen, chunks = pattern_pairs(q_key, q_scaled, r_key, r_scaled, onehot_groups, n_codes, budget, drop)
        joined = np.zeros(nq, dtype=bool)
        joined[chosen] = True
        complete &= joined
        for qi, ri, a in chunks:
            q, c1, cp, nxt = best_two(qi, ri, a)  # the chunk's pairs come query by query
            c2 = np.where(mult[cp] >= 2, c1, nxt)
            o1, o2, op = d1[q], d2[q], pos1[q]
            better = (c1 < o1) | ((c1 == o1) & (cp < op))
            d2[q] = np.where(better, np.minimum(o1, c2), np.minimum(o2, c1))
            d1[q] = np.where(better, c1, o1)
            pos1[q] = np.where(better, cp, op)
    pos1[np.isinf(d1)] = -1
    return d1, d2, pos1, complete


def same_pattern_count(
    q_key: np.ndarray,
    q_scaled: np.ndarray,
    r_key: np.ndarray,
    r_scaled: np.ndarray,
    mult: np.ndarray,
    onehot_groups: int,
    n_codes: int,
    limit: np.ndarray,
    budget: int,
) -> tuple[np.ndarray, np.ndarray]:
    """For the queries joined by :func:`pattern_pairs`: ``(joined queries, their counts)``, how many
    reference records (``mult``: each one's multiplicity) with the query's nominal codes lie at a Gower
    sum ``<= limit``. When ``limit`` is below 1 that is every such reference record."""
    counts = np.zeros(len(q_key))
    chosen, chunks = pattern_pairs(q_key, q_scaled, r_key, r_scaled, onehot_groups, n_codes, budget)
    for qi, ri, a in chunks:
        counts += np.bincount(qi, weights=np.where(a <= limit[qi], mult[ri], 0), minlength=len(q_key))
    return chosen, np.rint(counts[chosen]).astype(np.int64)
