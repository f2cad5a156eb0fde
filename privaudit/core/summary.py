"""The equivalence-class summary, computed once per audit and read by every class-based assessor.

Records with equal quasi-identifier (QI) values form an equivalence class. The summary holds

* ``class_of``: each record's class id (classes numbered in sorted order of their QI key, so the
  numbering does not depend on row order),
* ``sizes``: each class's number of records,
* ``record_size`` (f_k): the size of the group a record hides in; equal to ``sizes[class_of]`` except
  under ``missing_qi: wildcard`` (a missing value matches any value, as in sdcMicro's freqCalc),
* per sensitive attribute, a sparse class x value count matrix (:class:`SensitiveCounts`).

Everything is vectorised: QI columns are turned into integer codes, packed into one int64 key, and
factorized; per-class value counts come from one pass over (class, value) pairs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd
import scipy.sparse as sp

from privaudit.core.readonly import freeze_array

MISSING_LABEL = "*"
_KEY_LIMIT = 1 << 62
_CHUNK = 1 << 20  # records per step where a full-length temporary is not worth its memory
BLOCK_ENTRIES = 1 << 18  # stored entries per block of classes in per-class computations


@dataclass
class SensitiveCounts:
    """Counts of each sensitive value in each class (missing sensitive values are left out)."""

    column: str
    values: np.ndarray  # the domain in ground-distance order
    counts: sp.csr_matrix  # classes x values, int64
    total: np.ndarray  # per-value count over the whole table
    missing: int  # records whose sensitive value is missing

    @property
    def distinct(self) -> np.ndarray:
        """Number of distinct sensitive values per class."""
        return np.diff(self.counts.indptr)

    @cached_property
    def class_totals(self) -> np.ndarray:
        """Records of each class with a sensitive value (computed once, shared by the assessors)."""
        return freeze_array(np.asarray(self.counts.sum(axis=1)).ravel())  # shared: read-only (core/readonly.py)

    def row_of_entries(self) -> np.ndarray:
        """Class id of each stored (non-zero) entry."""
        return entry_rows(self.counts.indptr)

    def blocks(self, entries: int | None = None):
        """Consecutive class ranges of about ``entries`` stored entries each, for per-class figures
        computed a block at a time (see :func:`row_blocks`)."""
        return row_blocks(self.counts, entries)


def entry_rows(indptr: np.ndarray) -> np.ndarray:
    """The row of each stored entry of a CSR matrix with row pointers ``indptr``."""
    return np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))


def spread_ids(order: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Each record's group id, from the records listed group by group (``order``) and group sizes."""
    ids = np.empty(len(order), dtype=np.int64)
    ids[order] = np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)
    return ids


def narrowest_int(n_values: int) -> np.dtype:
    """The narrowest signed integer type that holds codes -1 .. n_values - 1."""
    for dtype in (np.int8, np.int16, np.int32):
        if n_values <= np.iinfo(dtype).max:
            return np.dtype(dtype)
    return np.dtype(np.int64)


def row_blocks(matrix: sp.csr_matrix, entries: int | None = None):
    """Yield ``(c0, c1, e0, e1, rows)`` over consecutive row ranges ``[c0, c1)`` of a CSR matrix holding
    about ``entries`` stored entries each: ``matrix.data[e0:e1]`` are their entries and ``rows`` the
    block-local row (0 .. c1 - c0 - 1) of each. Per-class figures computed block by block keep their
    temporaries small (cache-resident, no fresh memory) however many classes there are."""
    entries = entries or BLOCK_ENTRIES
    indptr = matrix.indptr
    n_rows, nnz = matrix.shape[0], int(indptr[-1])
    cuts = np.searchsorted(indptr, np.arange(entries, nnz, entries), side="right") - 1
    bounds = np.unique(np.concatenate(([0], cuts, [n_rows])))
    if len(bounds) == 1:
        bounds = np.array([0, n_rows])
    for c0, c1 in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=False):
        e0, e1 = int(indptr[c0]), int(indptr[c1])
        yield c0, c1, e0, e1, entry_rows(indptr[c0 : c1 + 1])


@dataclass
class ClassSummary:
    quasi_identifiers: list[str]
    missing_qi: str
    record_classes: np.ndarray | None  # class id of each record, or None: see ``class_of``
    sizes: np.ndarray  # records per class
    class_fk: np.ndarray  # f_k of the records of each class (= sizes unless missing_qi is wildcard)
    first_row: np.ndarray  # a representative (the first) record of each class
    frame: pd.DataFrame = field(repr=False)  # the records (or one representative per class) first_row points into
    sensitive: dict[str, SensitiveCounts] = field(default_factory=dict)
    weight_sums: np.ndarray | None = None  # per class F_k: the weights of the records it matches (weight column)
    order: np.ndarray | None = field(default=None, repr=False)  # the records class by class (Grouping.order)

    @property
    def class_of(self) -> np.ndarray | None:
        """The class id of each record; None from out-of-memory engines, which never hold the records.

        Class-based checks need only per-class figures, so the in-memory summary keeps the grouping's
        record order and spreads the ids over the records on first use (one scatter of n ids)."""
        order = self.order  # read once: a concurrent check may be spreading the ids too
        if self.record_classes is None and order is not None:
            self.record_classes = freeze_array(spread_ids(order, self.sizes))  # shared: read-only
            self.order = None
        return self.record_classes

    @property
    def n_records(self) -> int:
        return int(self.sizes.sum())

    @property
    def n_classes(self) -> int:
        return len(self.sizes)

    def representatives(self, class_ids: np.ndarray, columns: Sequence[str]) -> pd.DataFrame:
        """The quasi-identifier values of the given classes (one row per class)."""
        return self.frame.iloc[self.first_row[np.asarray(class_ids, dtype=np.int64)]][list(columns)].reset_index(
            drop=True
        )

    @property
    def record_size(self) -> np.ndarray:
        """f_k of each record (a gather over all records: prefer per-class figures weighted by sizes).

        Out-of-memory engines count records without holding them (``class_of`` is None)."""
        if self.class_of is None:
            raise RuntimeError(
                "record_size needs per-record class ids; this summary was computed by an "
                "out-of-memory engine (use the per-class figures weighted by sizes)"
            )
        return self.class_fk[self.class_of]

    def describe(self, class_ids: Sequence[int], limit_columns: Sequence[str] | None = None) -> list[dict]:
        """QI values (missing shown as ``*``) and size of the given classes, for reports."""
        class_ids = np.asarray(class_ids, dtype=np.int64)
        rows = self.frame.iloc[self.first_row[class_ids]]
        out = []
        for position, cid in enumerate(class_ids):
            row = rows.iloc[position]
            values = {}
            for col in limit_columns or self.quasi_identifiers:
                v = row[col]
                values[col] = MISSING_LABEL if pd.isna(v) else (f"{v:g}" if isinstance(v, float) else str(v))
            out.append(
                {
                    "class": int(cid),
                    "values": values,
                    "size": int(self.sizes[cid]),
                    "record_size": int(self.class_fk[cid]),
                }
            )
        return out


def column_codes(values: pd.Series | pd.Categorical) -> tuple[np.ndarray, int]:
    """Integer codes of a column (sorted value order) with missing as -1, and the number of values.

    Categorical codes keep their narrow type (int8 for a few values): callers widen as they combine."""
    if isinstance(values, pd.Series) and isinstance(values.dtype, pd.CategoricalDtype):
        values = values.array
    if isinstance(values, pd.Categorical):
        return values.codes, len(values.categories)
    small = _small_integer_codes(values)
    if small is not None:
        return small
    codes, uniques = pd.factorize(values, sort=True, use_na_sentinel=True)
    return codes, len(uniques)


def _small_integer_codes(values) -> tuple[np.ndarray, int] | None:
    """Codes of a float column of whole numbers within a small range (ages, years, counts) without
    hashing: each value's offset from the minimum marks the values present, whose running count is the
    code. None when the column is not of that kind."""
    x = values.to_numpy() if isinstance(values, pd.Series) else np.asarray(values)
    if x.dtype.kind != "f" or len(x) < _CHUNK:
        return None
    finite = np.isfinite(x)
    if not finite.any():
        return None
    lo, hi = float(np.min(x, where=finite, initial=np.inf)), float(np.max(x, where=finite, initial=-np.inf))
    if not finite.all() and np.isinf(x[~finite]).any():
        return None
    if hi - lo >= min(len(x), 1 << 24):
        return None
    span = int(hi - lo) + 1
    offsets = np.empty(len(x), dtype=np.int32)
    for start in range(0, len(x), _CHUNK):
        part = x[start : start + _CHUNK] - lo
        missing = np.isnan(part)
        part[missing] = span  # missing: one past the values
        whole = part.astype(np.int32)
        if not np.array_equal(whole, part):
            return None
        offsets[start : start + _CHUNK] = whole
    present = np.zeros(span + 1, dtype=bool)
    present[offsets] = True
    card = int(present[:span].sum())
    rank = np.cumsum(present, dtype=np.int64) - 1
    rank[span] = -1
    return rank.astype(narrowest_int(card))[offsets], card


def pack_keys(code_columns: Sequence[tuple[np.ndarray, int]], n: int) -> np.ndarray:
    """One int64 key per record from several code columns (missing = its own code), in lexicographic order.

    Codes are combined in mixed radix, in place; when the radix product would overflow, the partial key
    is re-factorized (sorted) first, which keeps the lexicographic order of the key.
    """
    key = np.zeros(n, dtype=np.int64)
    span = 1
    for codes, card in code_columns:
        radix = card + 1  # room for the missing code
        if span * radix >= _KEY_LIMIT:
            uniq, key = np.unique(key, return_inverse=True)
            key = key.astype(np.int64)
            span = len(uniq)
        if len(codes) and codes.min() < 0:
            codes = np.where(codes < 0, card, codes.astype(np.int64))
        key *= radix
        key += codes
        span *= radix
    return key


@dataclass
class Grouping:
    """Records grouped by key: ``sizes`` and ``first_row`` of each class (classes numbered in ascending
    key order), ``order``, the records listed class by class (each class's records in row order), and
    ``class_of``, each record's class id, spread from ``order`` when asked for."""

    sizes: np.ndarray
    first_row: np.ndarray
    order: np.ndarray

    @property
    def class_of(self) -> np.ndarray:
        return spread_ids(self.order, self.sizes)

    def sums(self, values: np.ndarray) -> np.ndarray:
        """Sum of ``values`` (one per record) over each group, added in row order within a group."""
        if len(self.sizes) == 0:
            return np.zeros(0, dtype=values.dtype)
        starts = np.zeros(len(self.sizes), dtype=np.int64)
        np.cumsum(self.sizes[:-1], out=starts[1:])
        return np.add.reduceat(values[self.order], starts)


def group(key: np.ndarray, consume: bool = False) -> Grouping:
    """Group records by ``key``.

    Sorting is the cost: the row index is packed into the low bits of the key so that numpy's fast
    (vectorised) value sort does the work of an argsort; it falls back to a stable argsort when the two
    do not fit in 63 bits together. ``consume=True`` lets it overwrite ``key``.
    """
    n = len(key)
    if n == 0:
        empty = np.zeros(0, np.int64)
        return Grouping(empty, empty, empty)
    bits = max(int(n - 1).bit_length(), 1)
    top = int(key.max())
    if top.bit_length() + bits <= 63 and int(key.min()) >= 0:
        packed = np.left_shift(key, bits, out=key if consume else None)
        for lo in range(0, n, _CHUNK):  # the row numbers, without a full-length temporary
            packed[lo : lo + _CHUNK] |= np.arange(lo, min(lo + _CHUNK, n), dtype=np.int64)
        packed.sort()
        order = packed & ((1 << bits) - 1)
        packed >>= bits
        sorted_key = packed
    else:
        order = np.argsort(key, kind="stable")
        sorted_key = key[order]
    new = np.empty(n, dtype=bool)
    new[0] = True
    np.not_equal(sorted_key[1:], sorted_key[:-1], out=new[1:])
    starts = np.flatnonzero(new)
    sizes = np.empty(len(starts), dtype=np.int64)
    np.subtract(starts[1:], starts[:-1], out=sizes[:-1])
    sizes[-1] = n - starts[-1]
    del new, sorted_key
    return Grouping(sizes, order[starts], order)


def group_sorted(key: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Class id per record (ids in ascending key order), class sizes, and each class's first row."""
    g = group(key)
    return g.class_of, g.sizes, g.first_row


def class_value_counts(values: np.ndarray, sizes: np.ndarray, m: int) -> sp.csr_matrix:
    """The classes x values count matrix (CSR, columns sorted within rows) from ``values``, each
    record's value code (-1 = missing) listed class by class (``Grouping.order``), and class ``sizes``.

    With few cells (classes x values not above twice the records) one dense ``bincount`` counts them
    (linear time); otherwise the (class, value) pairs are sorted, as 32-bit keys when they fit (twice
    as fast to sort as 64-bit ones).
    """
    n_classes = len(sizes)
    width = max(m, 1)
    cells = n_classes * width
    dtype = np.int32 if cells < np.iinfo(np.int32).max else np.int64
    pair = np.repeat(np.arange(0, cells, width, dtype=dtype), sizes)
    if values.min(initial=0) < 0:
        keep = values >= 0
        pair, values = pair[keep], values[keep]
    pair += values
    if cells <= 2 * len(pair):
        dense = np.bincount(pair, minlength=cells)
        distinct = np.flatnonzero(dense)
        data = dense[distinct]
    else:
        pair.sort()
        new = np.empty(len(pair), dtype=bool)
        new[:1] = True
        np.not_equal(pair[1:], pair[:-1], out=new[1:])
        starts = np.flatnonzero(new)
        distinct = pair[starts]
        data = _run_lengths(starts, len(pair))
    del pair
    rows = distinct // width
    cols = distinct - rows * width
    del distinct
    index = np.int32 if max(len(cols), n_classes, width) < np.iinfo(np.int32).max else np.int64
    indptr = np.zeros(n_classes + 1, dtype=index)
    np.cumsum(count_codes(rows, n_classes), out=indptr[1:])
    del rows
    # index arrays in the type scipy would pick for them, so it keeps them without a copy
    matrix = sp.csr_matrix(
        (data.astype(np.int64, copy=False), cols.astype(index, copy=False), indptr),
        shape=(n_classes, width if m else 0),
        copy=False,
    )
    matrix.has_sorted_indices = True
    return matrix


def _run_lengths(starts: np.ndarray, n: int) -> np.ndarray:
    """Lengths of the runs that begin at ``starts`` (ascending) in an array of ``n``, written over
    ``starts`` a chunk at a time (forward: a chunk reads one position past what it writes)."""
    for lo in range(0, len(starts), _CHUNK):
        hi = min(lo + _CHUNK, len(starts))
        nxt = np.empty(hi - lo, dtype=starts.dtype)
        nxt[:-1] = starts[lo + 1 : hi]
        nxt[-1] = starts[hi] if hi < len(starts) else n
        nxt -= starts[lo:hi]
        starts[lo:hi] = nxt
    return starts


def count_codes(codes: np.ndarray, minlength: int) -> np.ndarray:
    """``np.bincount`` of integer codes of any integer type (negative ones, missing, are left out), a
    chunk at a time: bincount widens its input to 64 bits, which for 10^7 one-byte codes would be an
    80 MB temporary."""
    out = np.zeros(minlength, dtype=np.int64)
    for lo in range(0, len(codes), _CHUNK):
        part = codes[lo : lo + _CHUNK]
        if part.min(initial=0) < 0:  # missing (-1) is not counted
            part = part[part >= 0]
        part = np.bincount(part, minlength=minlength)
        if len(part) > minlength:
            out = np.concatenate((out, np.zeros(len(part) - minlength, dtype=np.int64)))
            minlength = len(part)
        out[: len(part)] += part
    return out


def _wildcard_sums(
    code_columns: list[tuple[np.ndarray, int]], n: int, weights: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray | None]:
    """Per record, under sdcMicro's wildcard semantics (records j with x_j = x_i wherever both are
    present): how many records match (f_k) and, with ``weights``, the sum of their weights (F_k, as
    sdcMicro's freqCalc sums the weights of every matching record, not of the exact-match class only).
    The work is per pair of missing-value patterns, each a join on the columns both have."""
    if not code_columns:
        total = None if weights is None else np.full(n, float(weights.sum()))
        return np.full(n, n, dtype=np.int64), total
    missing = np.column_stack([codes < 0 for codes, _ in code_columns])
    bits = 1 << np.arange(missing.shape[1], dtype=np.int64)
    pattern = missing.astype(np.int64) @ bits
    patterns, pattern_of = np.unique(pattern, return_inverse=True)
    counts = np.zeros(n, dtype=np.int64)
    sums = None if weights is None else np.zeros(n)
    members = [np.flatnonzero(pattern_of == i) for i in range(len(patterns))]
    for i, p in enumerate(patterns):
        rows_p = members[i]
        for j, q in enumerate(patterns):
            rows_q = members[j]
            shared = [c for c in range(missing.shape[1]) if not (p >> c) & 1 and not (q >> c) & 1]
            if not shared:
                counts[rows_p] += len(rows_q)
                if sums is not None:
                    sums[rows_p] += weights[rows_q].sum()
                continue
            cols = [(code_columns[c][0], code_columns[c][1]) for c in shared]
            key_p = pack_keys([(codes[rows_p], card) for codes, card in cols], len(rows_p))
            key_q = pack_keys([(codes[rows_q], card) for codes, card in cols], len(rows_q))
            uq, inverse, cq = np.unique(key_q, return_inverse=True, return_counts=True)
            pos = np.minimum(np.searchsorted(uq, key_p), len(uq) - 1)
            hit = uq[pos] == key_p
            counts[rows_p] += np.where(hit, cq[pos], 0)
            if sums is not None:
                wq = np.bincount(inverse.ravel(), weights=weights[rows_q], minlength=len(uq))
                sums[rows_p] += np.where(hit, wq[pos], 0.0)
    return counts, sums


def wildcard_counts(
    code_columns: list[tuple[np.ndarray, int]], first_row: np.ndarray, counts: sp.csr_matrix
) -> sp.csr_matrix:
    """Per class, the sensitive-value counts of every record it matches under sdcMicro's wildcard
    semantics (a missing quasi-identifier value on either side matches any value), from the classes'
    exact counts ``counts`` (classes x values). This is what sdcMicro's ``ldiversity`` counts: its
    ``measure_risk_cpp`` (src/measure_risk.cpp, called by ``ldiversityWORK`` in R/measure_risk.R) collects
    the sensitive values of every record a record matches with NA as a wildcard. The work is per pair of
    missing-value patterns of the classes, as in :func:`_wildcard_sums`: the classes of pattern q summed per
    key on the columns both patterns have, and each class of pattern p given the sum of its key."""
    n_classes, m = counts.shape
    keys = [(codes[first_row], card) for codes, card in code_columns]
    missing = np.column_stack([c < 0 for c, _ in keys])
    pattern = missing.astype(np.int64) @ (1 << np.arange(missing.shape[1], dtype=np.int64))
    patterns, pattern_of = np.unique(pattern, return_inverse=True)
    members = [np.flatnonzero(pattern_of == i) for i in range(len(patterns))]
    total = sp.csr_matrix((n_classes, m), dtype=np.int64)
    for i, p in enumerate(patterns):
        rows_p = members[i]
        for j, q in enumerate(patterns):
            rows_q = members[j]
            shared = [c for c in range(len(keys)) if not (p >> c) & 1 and not (q >> c) & 1]
            if shared:
                key_p = pack_keys([(keys[c][0][rows_p], keys[c][1]) for c in shared], len(rows_p))
                key_q = pack_keys([(keys[c][0][rows_q], keys[c][1]) for c in shared], len(rows_q))
                uq, inverse = np.unique(key_q, return_inverse=True)
                pos = np.minimum(np.searchsorted(uq, key_p), len(uq) - 1)
                hit = uq[pos] == key_p
            else:  # no column in common: every class of q matches every class of p
                uq, inverse = np.zeros(1, dtype=np.int64), np.zeros(len(rows_q), dtype=np.int64)
                pos, hit = np.zeros(len(rows_p), dtype=np.int64), np.ones(len(rows_p), dtype=bool)
            gather = sp.csr_matrix(
                (np.ones(len(rows_q), dtype=np.int64), (inverse.ravel(), np.arange(len(rows_q)))),
                shape=(len(uq), len(rows_q)),
            )
            per_key = gather @ counts[rows_q]
            select = sp.csr_matrix(
                (np.ones(int(hit.sum()), dtype=np.int64), (rows_p[hit], pos[hit])), shape=(n_classes, len(uq))
            )
            total = total + select @ per_key
    total = sp.csr_matrix(total, dtype=np.int64)
    total.eliminate_zeros()
    total.sort_indices()
    return total


def sensitive_codes(values, leaves: Sequence[str] | None) -> tuple[np.ndarray, np.ndarray]:
    """The sensitive attribute's domain in ground-distance order and each record's position in it (-1 =
    missing). The domain is the table's distinct values, sorted (numeric), in the policy's order
    (ordinal), in hierarchy-leaf order (nominal with hierarchy), or alphabetically (nominal)."""
    series = pd.Series(values)
    if isinstance(series.dtype, pd.CategoricalDtype):
        codes = series.cat.codes.to_numpy()
        categories = [str(c) for c in series.cat.categories]
        used = count_codes(codes, len(categories)) > 0
        present = [categories[i] for i in np.flatnonzero(used)]
        if leaves is not None:
            pos = {v: i for i, v in enumerate(leaves)}
            present = sorted(present, key=lambda v: pos.get(v, len(pos)))
        domain = np.array(present, dtype=object)
        lookup = {v: i for i, v in enumerate(present)}
        position = np.array([lookup.get(c, -1) for c in categories] + [-1])
        return position.astype(narrowest_int(len(domain)))[codes], domain
    codes, uniques = pd.factorize(series.to_numpy(dtype=float), use_na_sentinel=True)
    domain = np.sort(uniques)
    rank = np.append(np.searchsorted(domain, uniques), -1).astype(narrowest_int(len(domain)))
    return rank[codes], domain


def summarise_sensitive(column: str, values, leaves: Sequence[str] | None, grouping: Grouping) -> SensitiveCounts:
    """The class x value counts of one sensitive column, in the classes of ``grouping``."""
    s, domain = sensitive_codes(values, leaves)
    m = len(domain)
    counts = class_value_counts(s[grouping.order], grouping.sizes, m)
    total = count_codes(s, m)
    return SensitiveCounts(column, domain, counts, total, int(len(s) - total.sum()))


def build_summary(
    frame: pd.DataFrame,
    quasi_identifiers: Sequence[str],
    sensitive: dict[str, tuple[str, Sequence[str] | None]] | None = None,
    missing_qi: str = "value",
    weight: str | None = None,
) -> ClassSummary:
    """Compute the class summary of ``frame``.

    ``sensitive`` maps each sensitive column to ``(type, hierarchy leaves or None)``. With ``weight`` (the
    policy's weight column) ``weight_sums`` holds each class's estimated population size F_k: the sum of
    the weights of the records its records match (a missing weight counts 1) -- the class's own records,
    or under ``missing_qi: wildcard`` every matching record.
    """
    n = len(frame)
    code_columns = [column_codes(frame[q]) for q in quasi_identifiers]
    key = pack_keys(code_columns, n)
    grouping = group(key, consume=True)
    del key
    weights = None
    if weight is not None:
        weights = np.nan_to_num(frame[weight].to_numpy(dtype=float), nan=1.0)
    weight_sums = None if weights is None else grouping.sums(weights)
    if missing_qi == "wildcard" and any(len(c) and c.min() < 0 for c, _ in code_columns):
        fk, Fk = _wildcard_sums(code_columns, n, weights)
        class_fk = fk[grouping.first_row]
        weight_sums = None if Fk is None else Fk[grouping.first_row]
    else:
        class_fk = grouping.sizes
    summary = ClassSummary(
        list(quasi_identifiers),
        missing_qi,
        None,
        grouping.sizes,
        class_fk,
        grouping.first_row,
        frame,
        order=grouping.order,
        weight_sums=weight_sums,
    )
    wild = missing_qi == "wildcard" and any(len(c) and c.min() < 0 for c, _ in code_columns)
    for column, (_kind, leaves) in (sensitive or {}).items():
        sc = summarise_sensitive(column, frame[column], leaves, grouping)
        if wild:  # the values of every record a class matches, as f_k counts every matching record
            sc = SensitiveCounts(
                column, sc.values, wildcard_counts(code_columns, grouping.first_row, sc.counts), sc.total, sc.missing
            )
        summary.sensitive[column] = sc
    return summary


def coarsened(summary: ClassSummary, quasi_identifiers: Sequence[str]) -> ClassSummary:
    """The class summary over a subset of the quasi-identifiers (an attacker scenario), from the classes
    alone: each class of the subset is a union of classes of the full set, so sizes, per-class sensitive
    counts and weight sums add up. Classes are numbered as :func:`build_summary` numbers them on the
    records (ascending key of the subset's codes: the representatives hold every value each column takes),
    so that an out-of-memory engine's summary answers a scenario's checks as the records would.
    ``first_row`` points at the representative of the first class of each union.

    Under ``missing_qi: wildcard`` a missing value matches every value, which the classes alone cannot
    count: refused (ValueError) when a column of the subset holds one."""
    columns = list(quasi_identifiers)
    reps = summary.frame.iloc[summary.first_row]
    code_columns = [column_codes(reps[q]) for q in columns]
    if summary.missing_qi == "wildcard" and any(len(c) and c.min() < 0 for c, _ in code_columns):
        raise ValueError(
            "an attacker scenario under missing_qi: wildcard with a missing quasi-identifier value needs the "
            "records: use the in-process engine"
        )
    grouping = group(pack_keys(code_columns, summary.n_classes), consume=True)
    union_of = grouping.class_of  # the subset's class of each full class
    sizes = grouping.sums(np.asarray(summary.sizes, dtype=np.int64))
    weight_sums = None if summary.weight_sums is None else grouping.sums(np.asarray(summary.weight_sums))
    out = ClassSummary(
        columns,
        summary.missing_qi,
        None,
        sizes,
        sizes,
        np.asarray(summary.first_row)[grouping.first_row],
        summary.frame,
        weight_sums=weight_sums,
    )
    n = len(sizes)
    gather = sp.csr_matrix(
        (np.ones(summary.n_classes, dtype=np.int64), (union_of, np.arange(summary.n_classes))),
        shape=(n, summary.n_classes),
    )
    for column, sc in summary.sensitive.items():
        counts = (gather @ sc.counts).tocsr()
        counts.sum_duplicates()
        counts.sort_indices()
        out.sensitive[column] = SensitiveCounts(column, sc.values, counts.astype(np.int64), sc.total, sc.missing)
    return out
