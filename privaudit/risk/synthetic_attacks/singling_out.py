"""Singling-out attack on a synthetic release (Giomi et al., PETS 2023, the section on the singling-out
attack; the Article 29 Working Party's first criterion, WP216 § 3; predicate singling out after Cohen &
Nissim, PNAS 117, 2020).

The attacker writes predicates on the released attributes that match exactly one synthetic record,
hoping that they also isolate exactly one real person. A predicate is a conjunction of conditions
``column op value``; it *singles out* a table when exactly one (distinct) record satisfies it.

* ``univariate``: one condition each, from values that are rare in the release: a value held by one
  synthetic record (``== v``), the extremes of a numeric column (``<= min``, ``>= max``), a column with
  one missing value (``is missing``).
* ``multivariate``: ``n_cols`` conditions built from a random synthetic record and random columns:
  ``== v`` for a categorical column, ``>= v`` above the column's median and ``<= v`` otherwise for a
  numeric one (the more extreme side), ``is missing`` for a missing value.

Of the predicates that single out the release, ``n_attacks`` are kept; the attack's successes are those
that single out the training table, its control successes those that single out the control table (the
count rescaled to the training table's size when the two differ, by fitting Cohen & Nissim's
probability that a predicate of weight ``w`` singles out among ``n`` records, ``n w (1 - w)^(n-1)``,
integrated over ``w`` to the counts on subsamples of the control table). The naive baseline draws
random predicates (random columns, values and comparison operators), as many as the predicates found.
Rates divide by the number of predicates found, which is ``n_attacks`` unless fewer single out the
release (a note says so; anonymeter divides by ``n_attacks`` regardless, which lowers both rates and the
risk as ``n_attacks`` grows past what the release allows); duplicate rows are dropped first, and a
missing value satisfies no comparison, only ``is missing``/``is not missing``.

Predicates are held as arrays (columns, operators, values). Single-condition predicates are counted by
binary search in the sorted columns. A predicate whose categorical conditions are ``==`` or ``is
missing`` and which has at most one numeric condition is counted by binary search too: the records are
sorted by the joint key of the predicate's columns (categorical codes, numeric missingness) extended by the
rank of the numeric value, so the records of a key below or above a bound form a run; the sorted keys of
every column combination live in one array, each in a key range of its own, so one ``searchsorted``
counts a whole batch of predicates, whatever their columns. A predicate with two numeric conditions
(``age >= a`` and ``hours <= b`` within its categorical key) is a sum of rectangle counts in the ranks of
the two columns, counted by 2-D dominance counting (:mod:`.dominance`: the records sorted by key and first
rank, a merge-sort tree over the second rank; ``benchmarks/bench_synthetic.py --ten-columns`` measures it
against counting record by record). Other predicates compare their numeric
conditions with the records of their key, and the rest (``!=`` on a category) are evaluated for blocks of predicates against the whole table with
numpy comparisons.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from privaudit.risk.synthetic_attacks.dominance import DominanceIndex
from privaudit.risk.synthetic_attacks.rates import AttackOutcome, outcome
from privaudit.risk.synthetic_attacks.shared import EncodedTables

EQ, NE, LT, GT, LE, GE, ISNA, NOTNA = range(8)
OPERATORS = ("==", "!=", "<", ">", "<=", ">=", "is missing", "is not missing")
#: predicate x record cells compared at once
BLOCK_CELLS = 8_000_000
EXHAUSTIVE = 2_000_000  # most (record, column combination) draws tracked to stop a search that has seen them all


@dataclass(frozen=True)
class Predicates:
    """``n`` predicates of ``m`` conditions: condition ``j`` of predicate ``i`` is
    ``column[cols[i, j]] ops[i, j] vals[i, j]``."""

    cols: np.ndarray
    ops: np.ndarray
    vals: np.ndarray

    def __len__(self) -> int:
        return len(self.cols)

    def take(self, rows: np.ndarray) -> Predicates:
        return Predicates(self.cols[rows], self.ops[rows], self.vals[rows])


def _compare(values: np.ndarray, ops: np.ndarray, vals: np.ndarray) -> np.ndarray:
    """``values`` (predicates x records) against each predicate's operator and value."""
    out = np.empty(values.shape, dtype=bool)
    for op in np.unique(ops):
        r = ops == op
        v, x = values[r], vals[r, None]
        with np.errstate(invalid="ignore"):
            if op == EQ:
                out[r] = v == x
            elif op == NE:
                out[r] = (v != x) & ~np.isnan(v)
            elif op == LT:
                out[r] = v < x
            elif op == GT:
                out[r] = v > x
            elif op == LE:
                out[r] = v <= x
            elif op == GE:
                out[r] = v >= x
            elif op == ISNA:
                out[r] = np.isnan(v)
            else:
                out[r] = ~np.isnan(v)
    return out


def match_blocks(table: np.ndarray, preds: Predicates) -> Iterator[tuple[int, np.ndarray]]:
    """``(first predicate, mask)`` per block of predicates: ``mask[i, r]`` says whether record ``r``
    satisfies predicate ``first + i``."""
    step = max(1, BLOCK_CELLS // max(len(table), 1))
    for lo in range(0, len(preds), step):
        block = preds.take(slice(lo, lo + step))
        mask = np.ones((len(block), len(table)), dtype=bool)
        for j in range(block.cols.shape[1]):
            mask &= _compare(table[:, block.cols[:, j]].T, block.ops[:, j], block.vals[:, j])
        yield lo, mask


def distinct_counts(column: np.ndarray, codes: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The sorted distinct non-missing values of ``column`` and how often each occurs
    (``np.unique(..., return_counts=True)``); ``codes``: the column holds category codes (non-negative
    integers, :mod:`.shared`), counted by ``np.bincount`` instead of a sort."""
    present = column[~np.isnan(column)]
    if codes and len(present):
        times = np.bincount(present.astype(np.int64))
        held = np.flatnonzero(times)
        return held.astype(float), times[held]
    return np.unique(present, return_counts=True)


def count_matches(
    table: np.ndarray, preds: Predicates, numeric: np.ndarray | None = None, cache: dict | None = None
) -> np.ndarray:
    """How many records of ``table`` satisfy each predicate (``numeric``: which columns are numeric, to
    count predicates with categorical equalities by key instead of comparing them with every record; the
    other columns then hold category codes, as :func:`.linkability.encode` gives them)."""
    counts = np.zeros(len(preds), dtype=np.int64)
    if len(preds) == 0:
        return counts
    if preds.cols.shape[1] == 1:  # binary search among the column's distinct values
        for c in np.unique(preds.cols[:, 0]):
            r = preds.cols[:, 0] == c
            column = table[:, c]
            values, times = distinct_counts(column, numeric is not None and not numeric[c])
            before = np.concatenate(([0], np.cumsum(times)))  # records below each distinct value
            n = int(before[-1])
            missing = len(column) - n
            x, op = preds.vals[r, 0], preds.ops[r, 0]
            left, right = before[np.searchsorted(values, x, "left")], before[np.searchsorted(values, x, "right")]
            by_op = np.stack(
                [
                    right - left,
                    n - (right - left),
                    left,
                    n - right,
                    right,
                    n - left,
                    np.full(len(x), missing),
                    np.full(len(x), n),
                ]
            )
            counts[r] = by_op[op, np.arange(len(x))]
        return counts
    if numeric is not None:
        cat = ~numeric[preds.cols]
        keyed = ~(cat & (preds.ops != EQ) & (preds.ops != ISNA)).any(axis=1)
        rows = np.flatnonzero(keyed)
        if len(rows):
            counts[rows] = _count_keyed(table, preds.take(rows), numeric, cache)
        preds, rest = preds.take(np.flatnonzero(~keyed)), np.flatnonzero(~keyed)
    else:
        rest = np.arange(len(preds))
    for lo, mask in match_blocks(table, preds):
        counts[rest[lo : lo + len(mask)]] = mask.sum(axis=1)
    return counts


def _table_key(table: np.ndarray, combo: np.ndarray, numeric: np.ndarray) -> tuple:
    """The records of ``table`` sorted by the joint key of ``combo``'s columns (categorical codes, numeric
    missingness) in mixed radix: ``(radices, order, sorted keys)``; None when the radix product would not fit
    in 62 bits."""
    parts, radices = [], []
    for c in combo:
        column = table[:, c]
        part = (
            np.isnan(column).astype(np.int64) if numeric[c] else np.nan_to_num(column, nan=-1.0).astype(np.int64) + 1
        )  # codes >= 0
        parts.append(part)
        radices.append(int(part.max()) + 2 if len(part) else 2)  # one more: values the table lacks
    if np.prod([float(r) for r in radices]) >= 2.0**62:
        return None
    key = np.zeros(len(table), dtype=np.int64)
    for part, radix in zip(parts, radices, strict=False):
        key = key * radix + part
    order = np.argsort(key, kind="stable")
    return radices, order, key[order]


def _value_key(table: np.ndarray, keyed: tuple, c: int) -> tuple | None:
    """For a column combination whose only numeric column is ``c``: the records' joint key extended by the
    rank of their value of ``c`` among the column's distinct values, sorted: ``(radix, distinct values,
    sorted extended keys)``, so that a key's records with a value below a bound form a prefix of its run;
    None when the extended key would not fit in 62 bits."""
    radices, order, ranked = keyed
    column = table[:, c]
    distinct = np.unique(column[~np.isnan(column)])
    radix = len(distinct) + 1
    if np.prod([float(r) for r in radices]) * radix >= 2.0**62:
        return None
    rank = np.searchsorted(distinct, column[order])  # missing values: any rank (their key differs)
    return radix, distinct, np.sort(ranked * radix + rank)


def _count_one_numeric(extended: tuple, p_key: np.ndarray, ops: np.ndarray, vals: np.ndarray) -> np.ndarray:
    """Counts of predicates whose records are those of key ``p_key`` (-1: none) compared on one numeric
    column (``ops``, ``vals``), by binary search in the extended keys of :func:`_value_key`."""
    radix, distinct, keys = extended
    base = p_key * radix
    lo = np.searchsorted(keys, base, "left")
    size = np.searchsorted(keys, base + radix, "left") - lo
    missing = np.isnan(vals)
    x = np.where(missing, 0.0, vals)
    at_most = np.searchsorted(keys, base + np.searchsorted(distinct, x, "right"), "left") - lo  # value <= x
    below = np.searchsorted(keys, base + np.searchsorted(distinct, x, "left"), "left") - lo  # value < x
    by_op = np.stack(
        [at_most - below, size - (at_most - below), below, size - at_most, at_most, size - below, size, size]
    )  # EQ, NE, LT, GT, LE, GE, ISNA, NOTNA (the key holds the missingness)
    counts = by_op[ops.astype(np.int64), np.arange(len(ops))]
    compared = (ops != ISNA) & (ops != NOTNA)
    counts[missing & compared] = np.where(ops[missing & compared] == NE, size[missing & compared], 0)
    return np.where(size > 0, counts, 0)


def _place(
    index: dict,
    names: list,
    eligible: list[int],
    combos: np.ndarray,
    inverse: np.ndarray,
    parts: np.ndarray,
    position: np.ndarray,
    done: np.ndarray,
) -> tuple[np.ndarray, ...]:
    """Where the predicates of the ``eligible`` combinations fall in a joint index (:func:`_joint_index`,
    :func:`_pair_index`: ``index["at"]``, combination -> (offset, radix, radices, numeric positions)):
    marks them in ``done``, fills ``position`` per combination, and returns the predicates' ``rows``, their
    combinations ``g``, the per-combination ``radix``, ``outside`` (a value the table does not hold, which
    matches nothing) and ``base``, the first key of each predicate's categorical key."""
    m = combos.shape[1]
    offset, radix = np.zeros(len(combos), dtype=np.int64), np.ones(len(combos), dtype=np.int64)
    radices = np.ones((len(combos), m), dtype=np.int64)
    entries = [index["at"][names[g]] for g in eligible]
    offset[eligible] = [e[0] for e in entries]
    radix[eligible] = [e[1] for e in entries]
    radices[eligible] = [e[2] for e in entries]
    position[eligible] = [e[3] for e in entries]
    done[eligible] = True
    rows = np.flatnonzero(done[inverse])
    g = inverse[rows]
    part, rad = parts[rows], radices[g]
    outside = ((part < 0) | (part >= rad - 1)).any(axis=1)
    p_key = np.zeros(len(rows), dtype=np.int64)
    for j in range(m):
        p_key = p_key * rad[:, j] + np.clip(part[:, j], 0, rad[:, j] - 1)
    return rows, g, radix, outside, offset[g] + p_key * radix[g]


def _pair_key(table: np.ndarray, keyed: tuple, first: int, second: int) -> tuple | None:
    """For a column combination whose numeric columns are ``first`` and ``second``: its records sorted by
    their joint key extended by the rank of their ``first`` value (as :func:`_value_key`), and the ranks of
    their ``second`` value in that order (missing: the last rank): ``(radix of first, sorted extended keys,
    ranks of second)``; None when the extended key would not fit in 62 bits."""
    radices, order, ranked = keyed
    column = table[:, first]
    distinct = np.unique(column[~np.isnan(column)])
    radix = len(distinct) + 1
    if np.prod([float(r) for r in radices]) * radix >= 2.0**62:
        return None
    extended = ranked * radix + np.searchsorted(distinct, column[order])
    by = np.argsort(extended, kind="stable")
    other = table[:, second]
    return radix, extended[by], np.searchsorted(np.unique(other[~np.isnan(other)]), other[order[by]])


def _pair_index(table: np.ndarray, combos: list[tuple[int, ...]], numeric: np.ndarray, cache: dict) -> dict | None:
    """The records of every column combination of ``combos`` (two numeric columns each; and of those indexed
    before on this table) in one array: their extended keys (:func:`_pair_key`) shifted into a key range of
    their own, and one :class:`~.dominance.DominanceIndex` over the ranks of their second numeric column:
    ``{"keys", "index", "at": combination -> (offset, radix, radices, numeric positions)}``; cached. None
    when the ranges would not fit in 62 bits."""
    entry = (id(table), table.shape, "pairs")
    held = cache.get(entry)
    if held is not None and all(c in held["at"] for c in combos):
        return held
    members = sorted(set(combos) | (set(held["at"]) if held else set()))
    at, keys, ranks, offset = {}, [], [], 0
    for combo in members:
        radices = cache[(id(table), table.shape, combo)][0]
        radix, extended, second = cache[(id(table), table.shape, combo, "pair")]
        at[combo] = (offset, radix, tuple(radices), tuple(j for j, c in enumerate(combo) if numeric[c]))
        keys.append(extended + offset)
        ranks.append(second)
        offset += int(np.prod([int(r) for r in radices], dtype=object)) * radix
        if offset >= 2**62:
            return None
    held = {"keys": np.concatenate(keys), "index": DominanceIndex(np.concatenate(ranks)), "at": at}
    cache[entry] = held
    return held


def _rank_intervals(
    distinct: np.ndarray, ops: np.ndarray, vals: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The ranks (among ``distinct``, the column's sorted distinct values; ``len(distinct)`` for a missing
    value) satisfying each numeric condition of a predicate whose key already fixes the column's
    missingness: two half-open intervals ``[lo1, hi1)`` and ``[lo2, hi2)`` (the second empty but for ``!=``)."""
    ops = ops.astype(np.int64)
    missing = np.isnan(vals)
    x = np.where(missing, 0.0, vals)
    left, right = np.searchsorted(distinct, x, "left"), np.searchsorted(distinct, x, "right")
    zero, top = np.zeros(len(ops), dtype=np.int64), np.full(len(ops), len(distinct) + 1, dtype=np.int64)
    rows = np.arange(len(ops))
    # EQ, NE, LT, GT, LE, GE, ISNA, NOTNA (ISNA/NOTNA: the key holds the missingness, any rank is fine)
    lo1 = np.stack([left, zero, zero, right, zero, left, zero, zero])[ops, rows]
    hi1 = np.stack([right, left, left, top, right, top, top, top])[ops, rows]
    ne = ops == NE
    lo2, hi2 = np.where(ne, right, 0), np.where(ne, top, 0)
    compared = missing & (ops != ISNA) & (ops != NOTNA)  # NaN compares false; != NaN holds for every value
    lo1[compared], hi1[compared] = 0, np.where(ne[compared], top[compared], 0)
    lo2[compared], hi2[compared] = 0, 0
    return lo1, hi1, lo2, hi2


def _eligible(
    table: np.ndarray,
    combos: np.ndarray,
    numeric: np.ndarray,
    cache: dict,
    kind: str,
    wanted: Callable[[int], bool],
    usable: Callable[[np.ndarray, tuple], bool],
) -> tuple[list, list[int]]:
    """The combinations' names and which of them ``kind``'s index (``"joint"`` or ``"pairs"``) counts: those
    it holds already, and those whose number of numeric columns is ``wanted`` and that have a table key
    and are ``usable(combo, table key's cache entry)``. A combination found ineligible is remembered per
    table, so a batch looks each combination up once."""
    names = [tuple(c) for c in combos.tolist()]
    held = cache.get((id(table), table.shape, kind))
    known = held["at"] if held is not None else {}
    skip = cache.setdefault((id(table), table.shape, f"{kind}: ineligible"), set())
    eligible = []
    for g, name in enumerate(names):
        if name in known:
            eligible.append(g)
            continue
        if name in skip:
            continue
        combo = combos[g]
        entry = (id(table), table.shape, name)
        if wanted(int(numeric[combo].sum())):
            if entry not in cache:
                cache[entry] = _table_key(table, combo, numeric)
            if cache[entry] is not None and usable(combo, entry):
                eligible.append(g)
                continue
        skip.add(name)
    return names, eligible


def _count_pairs(
    table: np.ndarray,
    preds: Predicates,
    combos: np.ndarray,
    inverse: np.ndarray,
    parts: np.ndarray,
    numeric: np.ndarray,
    cache: dict,
    counts: np.ndarray,
) -> np.ndarray:
    """Counts, into ``counts``, of the predicates whose combination has exactly two numeric columns, all at
    once: a sum of rectangle counts in the ranks of the two columns within the predicate's key, by 2-D
    dominance counting in :func:`_pair_index`; returns which combinations were counted."""
    done = np.zeros(len(combos), dtype=bool)

    def usable(combo, entry) -> bool:
        pair = entry + ("pair",)
        if pair not in cache:
            cache[pair] = _pair_key(table, cache[entry], *[int(c) for c in combo if numeric[c]])
        return cache[pair] is not None

    names, eligible = _eligible(table, combos, numeric, cache, "pairs", lambda n: n == 2, usable)
    if not eligible:
        return done
    index = _pair_index(table, [names[g] for g in eligible], numeric, cache)
    if index is None:
        return done
    position = np.zeros((len(combos), 2), dtype=np.int64)
    rows, g, radix, outside, base = _place(index, names, eligible, combos, inverse, parts, position, done)
    bounds = []
    for side in (0, 1):  # per numeric condition, its rank intervals, column by column
        pos = position[g, side]
        col, op, val = preds.cols[rows, pos], preds.ops[rows, pos], preds.vals[rows, pos]
        got = [np.zeros(len(rows), dtype=np.int64) for _ in range(4)]
        for c in np.unique(col):
            here = np.flatnonzero(col == c)
            entry = (id(table), table.shape, int(c), "distinct")
            if entry not in cache:
                cache[entry] = np.unique(table[~np.isnan(table[:, c]), c])
            for target, value in zip(got, _rank_intervals(cache[entry], op[here], val[here]), strict=False):
                target[here] = value
        bounds.append(got)
    (x1, x2, x3, x4), (y1, y2, y3, y4) = bounds
    boxes = []  # per pair of intervals: (predicates, x from, x to, y from, y to)
    for x_lo, x_hi in ((x1, x2), (x3, x4)):
        for y_lo, y_hi in ((y1, y2), (y3, y4)):
            at = np.flatnonzero(~outside & (x_hi > x_lo) & (y_hi > y_lo))
            boxes.append((at, base[at] + x_lo[at], base[at] + x_hi[at], y_lo[at], y_hi[at]))
    at, x_from, x_to, y_from, y_to = (np.concatenate(part) for part in zip(*boxes, strict=False))
    found = np.zeros(len(rows), dtype=np.int64)
    if len(at):  # every box in one search and one dominance count
        lo, hi = _search_left(index["keys"], x_from, x_to)
        np.add.at(found, at, index["index"].count_boxes(lo, hi, y_from, y_to))
    counts[rows] = found
    return done


def _joint_index(table: np.ndarray, combos: list[tuple[int, ...]], numeric: np.ndarray, cache: dict) -> dict | None:
    """One sorted array holding the sorted keys of every column combination of ``combos`` (and of those
    indexed before on this table), each shifted into a key range of its own: ``{"keys", "at": combination ->
    (offset, radix of the numeric rank or 1, radices, numeric position or -1)}``; cached. None when the
    ranges would not fit in 62 bits."""
    entry = (id(table), table.shape, "joint")
    held = cache.get(entry)
    if held is not None and all(c in held["at"] for c in combos):
        return held
    members = sorted(set(combos) | (set(held["at"]) if held else set()))
    at, parts, offset = {}, [], 0
    for combo in members:
        radices, _, ranked = cache[(id(table), table.shape, combo)]
        compared = [j for j, c in enumerate(combo) if numeric[c]]
        if compared:
            radix, _, keys = cache[(id(table), table.shape, combo, "values")]
        else:
            radix, keys = 1, ranked
        at[combo] = (offset, radix, tuple(radices), compared[0] if compared else -1)
        parts.append(keys + offset)
        offset += int(np.prod([int(r) for r in radices], dtype=object)) * radix
        if offset >= 2**62:
            return None
    held = {"keys": np.concatenate(parts), "at": at}
    cache[entry] = held
    return held


def _search_left(keys: np.ndarray, *needles: np.ndarray) -> list[np.ndarray]:
    """``np.searchsorted(keys, x, "left")`` for each array of ``needles``, in one search of the needles
    sorted: neighbouring needles walk the same path of a large ``keys``, so its cache lines are reused."""
    joined = np.concatenate(needles)
    order = np.argsort(joined, kind="stable")
    found = np.empty(len(joined), dtype=np.int64)
    found[order] = np.searchsorted(keys, joined[order], "left")
    return np.split(found, np.cumsum([len(x) for x in needles])[:-1])


def _count_joint(
    table: np.ndarray,
    preds: Predicates,
    combos: np.ndarray,
    inverse: np.ndarray,
    parts: np.ndarray,
    numeric: np.ndarray,
    cache: dict,
    counts: np.ndarray,
) -> np.ndarray:
    """Counts, into ``counts``, of the predicates whose combination has at most one numeric column, all at
    once by binary search in :func:`_joint_index` (the per-combination searches of :func:`_count_keyed` and
    :func:`_count_one_numeric` in one array); returns which combinations were counted."""
    done = np.zeros(len(combos), dtype=bool)

    def usable(combo, entry) -> bool:
        compared = [int(c) for c in combo if numeric[c]]
        if not compared:
            return True
        values = entry + ("values",)
        if values not in cache:
            cache[values] = _value_key(table, cache[entry], compared[0])
        return cache[values] is not None

    names, eligible = _eligible(table, combos, numeric, cache, "joint", lambda n: n <= 1, usable)
    if not eligible:
        return done
    index = _joint_index(table, [names[g] for g in eligible], numeric, cache)
    if index is None:
        return done
    position = np.full(len(combos), -1)
    rows, g, radix, outside, base = _place(index, names, eligible, combos, inverse, parts, position, done)
    keys = index["keys"]
    pos = position[g]
    one = np.flatnonzero(pos >= 0)
    if len(one):
        col = preds.cols[rows[one], pos[one]]
        op = preds.ops[rows[one], pos[one]].astype(np.int64)
        x = preds.vals[rows[one], pos[one]]
        missing = np.isnan(x)
        right, left = np.zeros(len(one), dtype=np.int64), np.zeros(len(one), dtype=np.int64)
        for c in np.unique(col):
            here = col == c
            distinct = cache[(id(table), table.shape, names[g[one][here][0]], "values")][1]
            right[here] = np.searchsorted(distinct, np.where(missing[here], 0.0, x[here]), "right")
            left[here] = np.searchsorted(distinct, np.where(missing[here], 0.0, x[here]), "left")
        b = base[one]
        lo, end, at_most, below = _search_left(keys, base, base + radix[g], b + right, b + left)
        size = end - lo
        n = size[one]
        at_most -= lo[one]  # value <= x
        below -= lo[one]  # value < x
        by_op = np.stack([at_most - below, n - (at_most - below), below, n - at_most, at_most, n - below, n, n])
        value = by_op[op, np.arange(len(one))]
        compared = missing & (op != ISNA) & (op != NOTNA)
        value[compared] = np.where(op[compared] == NE, n[compared], 0)
        got = size.copy()
        got[one] = value
    else:
        lo, end = _search_left(keys, base, base + radix[g])
        size = end - lo
        got = size
    counts[rows] = np.where(outside | (size == 0), 0, got)
    return done


def _count_keyed(table: np.ndarray, preds: Predicates, numeric: np.ndarray, cache: dict | None = None) -> np.ndarray:
    """Counts of predicates whose categorical conditions are all ``==`` or ``is missing``: the records are
    sorted by the joint key of those columns (and of the numeric columns' missingness), so each predicate
    compares its numeric conditions only with the records of its own key -- by binary search when it has
    one numeric condition (:func:`_count_one_numeric`), by dominance counting when it has two
    (:func:`_count_pairs`), record by record otherwise. The sorted keys of a
    column combination are computed once per table (``cache``: kept across calls on the same table)."""
    counts = np.zeros(len(preds), dtype=np.int64)
    cache = {} if cache is None else cache
    combos, inverse = np.unique(preds.cols, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    is_numeric = numeric[preds.cols]
    codes = np.where(is_numeric | np.isnan(preds.vals), -1.0, preds.vals).astype(np.int64) + 1
    parts = np.where(preds.ops == ISNA, np.where(is_numeric, 1, 0), np.where(is_numeric, 0, codes))
    by_combo = np.argsort(inverse, kind="stable")
    bounds = np.searchsorted(inverse[by_combo], np.arange(len(combos) + 1))
    done = _count_joint(table, preds, combos, inverse, parts, numeric, cache, counts)
    done |= _count_pairs(table, preds, combos, inverse, parts, numeric, cache, counts)
    for g, combo in enumerate(combos):
        if done[g]:
            continue
        sel = by_combo[bounds[g] : bounds[g + 1]]
        ops, vals = preds.ops[sel], preds.vals[sel]
        compared = [j for j, c in enumerate(combo) if numeric[c]]
        entry = (id(table), table.shape, tuple(int(c) for c in combo))
        if entry not in cache:
            cache[entry] = _table_key(table, combo, numeric)
        keyed = cache[entry]
        if keyed is None:  # too many combinations for one integer key: the slow exact path
            counts[sel] = _count_factorized(table, combo, ops, vals, numeric)
            continue
        radices, order, ranked = keyed
        part = parts[sel]
        top = np.asarray(radices, dtype=np.int64) - 1
        outside = ((part < 0) | (part >= top)).any(axis=1)  # a value the table does not hold matches nothing
        p_key = np.zeros(len(sel), dtype=np.int64)
        for j, radix in enumerate(radices):
            p_key = p_key * radix + part[:, j]
        p_key[outside] = -1
        if len(compared) == 1:
            entry_v = entry + ("values",)
            if entry_v not in cache:
                cache[entry_v] = _value_key(table, keyed, int(combo[compared[0]]))
            if cache[entry_v] is not None:
                counts[sel] = _count_one_numeric(cache[entry_v], p_key, ops[:, compared[0]], vals[:, compared[0]])
                continue
        lo, hi = np.searchsorted(ranked, p_key, "left"), np.searchsorted(ranked, p_key, "right")
        if not compared:
            counts[sel] = hi - lo
            continue
        sizes = hi - lo
        start = 0
        while start < len(sel):  # predicates in chunks holding at most BLOCK_CELLS (predicate, record) pairs
            total = np.cumsum(sizes[start:])
            stop = start + max(1, int(np.searchsorted(total, BLOCK_CELLS, "right")))
            chunk = np.arange(start, stop)
            owner = np.repeat(chunk, sizes[chunk])
            offset = np.arange(len(owner)) - np.repeat(np.cumsum(sizes[chunk]) - sizes[chunk], sizes[chunk])
            record = order[lo[owner] + offset]
            ok = np.ones(len(owner), dtype=bool)
            for j in compared:
                op = ops[owner, j]
                ok &= _compare(table[record, combo[j]][:, None], op, vals[owner, j])[:, 0] | (op == ISNA)
            counts[sel[chunk]] = np.bincount(owner[ok] - start, minlength=len(chunk))
            start = stop
    return counts


def _unique_rows(preds: Predicates, seen: set[bytes]) -> np.ndarray:
    """Positions of predicates not in ``seen`` (nor repeated within ``preds``), in order; ``seen`` is updated."""
    if len(preds) == 0:
        return np.zeros(0, dtype=np.int64)
    rows = np.hstack(
        [
            preds.cols.astype(np.int64),
            preds.ops.astype(np.int64),
            np.ascontiguousarray(np.nan_to_num(preds.vals, nan=0.0)).view(np.int64),
        ]
    )
    rows = np.ascontiguousarray(rows)
    keys = rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).ravel()
    _, first = np.unique(keys, return_index=True)
    keep = []
    for i in np.sort(first).tolist():  # one look-up per distinct predicate
        key = keys[i].tobytes()
        if key not in seen:
            seen.add(key)
            keep.append(i)
    return np.array(keep, dtype=np.int64)


def univariate_predicates(
    synthetic: np.ndarray, numeric: np.ndarray, n_attacks: int, rng: np.random.Generator
) -> Predicates:
    """Up to ``n_attacks`` one-condition predicates from rare values that single out ``synthetic``.

    Each candidate's count in the release is known from the column's value counts (a rare value and the
    only missing value match once, ``<= min`` and ``>= max`` as often as the extreme value occurs), so the
    candidates are filtered without counting them again."""
    cols, ops, vals, matches = [], [], [], []
    for j in range(synthetic.shape[1]):
        column = synthetic[:, j]
        missing = np.isnan(column)
        if missing.sum() == 1:
            cols.append(j), ops.append(ISNA), vals.append(np.nan), matches.append(1)
        present = column[~missing]
        values, counts = distinct_counts(column, not numeric[j])
        if len(present) and numeric[j]:
            cols += [j, j]
            ops += [LE, GE]
            vals += [present.min(), present.max()]
            matches += [counts[0], counts[-1]]
        rare = values[counts == 1]
        cols += [j] * len(rare)
        ops += [EQ] * len(rare)
        vals += list(rare)
        matches += [1] * len(rare)
    preds = Predicates(
        np.array(cols, dtype=np.int64).reshape(-1, 1),
        np.array(ops, dtype=np.int8).reshape(-1, 1),
        np.array(vals, dtype=float).reshape(-1, 1),
    )
    order = rng.permutation(len(preds))
    preds = preds.take(order[np.asarray(matches, dtype=np.int64)[order] == 1])
    return preds.take(_unique_rows(preds, set())[:n_attacks])


def _count_factorized(
    table: np.ndarray, combo: np.ndarray, ops: np.ndarray, vals: np.ndarray, numeric: np.ndarray
) -> np.ndarray:
    """Counts by comparing each predicate with every record (the fallback of :func:`_count_keyed`)."""
    ok = np.ones((len(ops), len(table)), dtype=bool)
    for j, c in enumerate(combo):
        ok &= _compare(np.broadcast_to(table[:, c], ok.shape), ops[:, j], vals[:, j])
    return ok.sum(axis=1)


class _Draws:
    """Which (record, column combination) pairs the predicate search has drawn. A predicate is a function of
    its pair (the record's values, operators from the medians), so once every pair has been drawn no new
    predicate can appear and the search may stop: the same predicates as trying all ``max_attempts``
    (anonymeter's default 10^7), without thousands of fruitless batches on a small release (300 records and
    6 columns make 6,000 pairs, all drawn long before 10^7 tries). Tracked only where the pairs are few
    (:data:`EXHAUSTIVE`)."""

    def __init__(self, n: int, d: int, n_cols: int):
        from math import comb

        self.combos = comb(d, n_cols) if 0 < n_cols <= d else 0
        self.tracked = 0 < n * self.combos <= EXHAUSTIVE and d <= 24
        self.exhausted = False
        if self.tracked:
            masks = np.array([sum(1 << c for c in combo) for combo in _combinations(d, n_cols)], dtype=np.int64)
            self.index = np.full(1 << d, -1, dtype=np.int64)
            self.index[masks] = np.arange(len(masks))
            self.seen = np.zeros(n * self.combos, dtype=bool)

    def mark(self, rows: np.ndarray, cols: np.ndarray) -> None:
        if not self.tracked:
            return
        masks = (np.int64(1) << cols.astype(np.int64)).sum(axis=1)
        self.seen[rows.astype(np.int64) * self.combos + self.index[masks]] = True
        self.exhausted = bool(self.seen.all())


def _combinations(d: int, k: int):
    from itertools import combinations

    return combinations(range(d), k)


def multivariate_predicates(
    synthetic: np.ndarray, numeric: np.ndarray, n_attacks: int, n_cols: int, max_attempts: int, rng: np.random.Generator
) -> Predicates:
    """Up to ``n_attacks`` predicates of ``n_cols`` conditions built from random synthetic records that
    single out ``synthetic``, in at most ``max_attempts`` tries."""
    n, d = synthetic.shape
    with np.errstate(all="ignore"):
        medians = np.array(
            [
                np.nanmedian(synthetic[:, j]) if numeric[j] and (~np.isnan(synthetic[:, j])).any() else np.nan
                for j in range(d)
            ]
        )
    found: list[Predicates] = []
    seen: set[bytes] = set()
    cache: dict = {}  # sorted keys of the synthetic table per column combination, shared by every batch
    have = attempts = 0
    draws = _Draws(n, d, n_cols)
    while have < n_attacks and attempts < max_attempts and not draws.exhausted:
        size = int(min(max(2 * (n_attacks - have), 256), 20_000, max_attempts - attempts))
        attempts += size
        rows = rng.integers(n, size=size)
        cols = np.sort(np.argsort(rng.random((size, d)), axis=1)[:, :n_cols], axis=1)
        draws.mark(rows, cols)
        vals = synthetic[rows[:, None], cols]
        upper = numeric[cols] & (vals > medians[cols])
        ops = np.where(np.isnan(vals), ISNA, np.where(numeric[cols], np.where(upper, GE, LE), EQ)).astype(np.int8)
        batch = Predicates(cols, ops, vals)
        batch = batch.take(np.flatnonzero(count_matches(synthetic, batch, numeric, cache) == 1))
        batch = batch.take(_unique_rows(batch, seen)[: n_attacks - have])
        found.append(batch)
        have += len(batch)
    if not found:
        return Predicates(np.empty((0, n_cols), np.int64), np.empty((0, n_cols), np.int8), np.empty((0, n_cols)))
    return Predicates(*(np.concatenate([getattr(p, f) for p in found]) for f in ("cols", "ops", "vals")))


def random_predicates(
    synthetic: np.ndarray, numeric: np.ndarray, n_attacks: int, n_cols: int, rng: np.random.Generator
) -> Predicates:
    """The naive baseline's predicates: random columns, a random value each column takes in the release,
    a random operator (``==``/``!=`` for categorical columns, any comparison for numeric ones)."""
    d = synthetic.shape[1]
    cols = np.sort(np.argsort(rng.random((n_attacks, d)), axis=1)[:, :n_cols], axis=1)
    vals = np.empty(cols.shape)
    for j in range(d):
        where = cols == j
        if where.any():
            values, _ = distinct_counts(synthetic[:, j], not numeric[j])
            if np.isnan(synthetic[:, j]).any():  # np.unique's order: the values, then one NaN
                values = np.append(values, np.nan)
            vals[where] = values[rng.integers(len(values), size=int(where.sum()))]
    ops = np.where(numeric[cols], rng.integers(0, 6, size=cols.shape), rng.integers(0, 2, size=cols.shape))
    ops = np.where(np.isnan(vals), np.where(ops == EQ, ISNA, NOTNA), ops).astype(np.int8)
    return Predicates(cols, ops, vals)


def _model(n: np.ndarray, w: float, scale: float) -> np.ndarray:
    """Expected number of the predicates singling out among ``n`` records, for predicate weights spread
    uniformly over [0, w]: ``scale * integral_0^w n x (1 - x)^(n-1) dx``."""
    return scale * (1.0 - (n * w + 1.0) * (1.0 - w) ** n) / (n + 1.0)


def size_correction(
    control: np.ndarray,
    preds: Predicates,
    target_size: int,
    rng: np.random.Generator,
    sizes: int = 10,
    repeats: int = 5,
) -> float | None:
    """Factor turning the count of predicates that single out ``control`` into the count expected on a
    table of ``target_size`` records: fitted on subsamples of the control table. None if the fit fails."""
    from scipy.optimize import curve_fit

    n = len(control)
    smallest = min(1000, n)
    # a predicate matching c control records singles out a subsample holding a share f of them with
    # probability <= c exp(-f (c - 1)): beyond this many matches it never counts
    cap = int(np.ceil(50.0 * n / smallest)) + 1
    owners, records = [], []
    for lo, mask in match_blocks(control, preds):
        small = (mask.sum(axis=1) > 0) & (mask.sum(axis=1) <= cap)
        i, r = np.nonzero(mask[small])
        owners.append(np.flatnonzero(small)[i] + lo)
        records.append(r)
    owner, record = np.concatenate(owners), np.concatenate(records)
    x, y = [], []
    for size in np.linspace(smallest, n, sizes).astype(int):
        for _ in range(repeats):
            chosen = np.zeros(n, dtype=bool)
            chosen[rng.choice(n, size=size, replace=False)] = True
            hits = np.bincount(owner[chosen[record]], minlength=len(preds))
            x.append(size)
            y.append(int((hits == 1).sum()))
    x, y = np.array(x, dtype=float), np.array(y, dtype=float)
    if not y.any():
        return None
    w0 = 1.0 / x.max()
    p0 = (w0, 1.0 / _model(np.array([x.max()]), w0, 1.0)[0])
    try:
        (w, scale), _ = curve_fit(_model, x, y, p0=p0, bounds=(0, (1, np.inf)))
        factor = float(_model(np.array([float(target_size)]), w, scale)[0] / _model(np.array([float(n)]), w, scale)[0])
    except (RuntimeError, ValueError, FloatingPointError, ZeroDivisionError):
        return None
    return factor if np.isfinite(factor) and factor > 0 else None


#: one keyed index of a column combination costs about as much as comparing this many predicate
#: conditions with every record (the ratio of the two, measured on 7 x 10^4 records and 3 conditions)
INDEX_COST = 16


def _count_once(table: np.ndarray, preds: Predicates, numeric: np.ndarray) -> np.ndarray:
    """:func:`count_matches` for predicates counted once on a table (no cache kept): by key when the
    predicates outnumber the key indexes they would build (:data:`INDEX_COST`), otherwise by comparing
    every record -- the same counts either way."""
    if len(preds) and preds.cols.shape[1] > 1:
        combos = len(np.unique(preds.cols, axis=0))
        if len(preds) * preds.cols.shape[1] <= INDEX_COST * combos:
            return count_matches(table, preds)
    return count_matches(table, preds, numeric)


@dataclass(frozen=True)
class SinglingOutResult:
    """The attack's outcome and how many predicates singling out the release it found."""

    outcome: AttackOutcome
    n_predicates: int


def singling_out_attack(
    training: pd.DataFrame,
    synthetic: pd.DataFrame,
    control: pd.DataFrame,
    columns: Sequence[str],
    numeric: Mapping[str, bool],
    *,
    mode: Literal["univariate", "multivariate"] = "multivariate",
    n_attacks: int = 500,
    n_cols: int = 3,
    max_attempts: int = 10_000_000,
    confidence_level: float = 0.95,
    seed: int = 0,
    tables: EncodedTables | None = None,
) -> SinglingOutResult:
    """Run the singling-out attack over ``columns`` (``mode``, ``n_cols`` conditions per multivariate
    predicate), the same predicates on the control table, and the naive baseline. The tables' distinct
    records are attacked; ``tables``: the three tables already encoded (shared by an audit, :mod:`.shared`)."""
    columns = list(columns)
    if tables is None or not tables.holds(synthetic, training, control):
        tables = EncodedTables(synthetic, training, control)
    syn, train, ctrl = tables.distinct_matrices(columns, numeric)
    mask = np.array([bool(numeric[c]) for c in columns])
    rng = np.random.default_rng(seed)
    width = 1 if mode == "univariate" else min(n_cols, len(columns))
    if mode == "univariate":
        preds = univariate_predicates(syn, mask, n_attacks, rng)
    else:
        preds = multivariate_predicates(syn, mask, n_attacks, width, max_attempts, rng)
    notes = []
    # the rates are over the predicates found: counting predicates that were never written as failed
    # attacks (anonymeter's choice) scales both rates down, so a larger n_attacks would lower the risk
    trials = len(preds) or n_attacks
    if len(preds) < n_attacks:
        notes.append(
            f"only {len(preds)} of the {n_attacks} requested predicates single out the release: the "
            f"rates are over those {len(preds)}"
        )
    singles = _count_once(train, preds, mask) == 1
    n_success = int(singles.sum())
    n_control: float = float((_count_once(ctrl, preds, mask) == 1).sum())
    if len(ctrl) != len(train) and n_control > 0:
        factor = size_correction(ctrl, preds, len(train), rng)
        if factor is None:
            notes.append(
                "the control count could not be rescaled to the training table's size (the fit failed); "
                "it is used as counted"
            )
        else:
            n_control = min(n_control * factor, float(trials))
    baseline = random_predicates(syn, mask, trials, width, rng)
    n_baseline = int((_count_once(train, baseline, mask) == 1).sum())
    result = outcome(n_success, trials, n_control, trials, n_baseline, trials, confidence_level, tuple(notes))
    return SinglingOutResult(result, len(preds))
