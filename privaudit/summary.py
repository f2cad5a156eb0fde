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

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
import pandas as pd
import scipy.sparse as sp

MISSING_LABEL = "*"
_KEY_LIMIT = 1 << 62


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

    @property
    def class_totals(self) -> np.ndarray:
        return np.asarray(self.counts.sum(axis=1)).ravel()

    def row_of_entries(self) -> np.ndarray:
        """Class id of each stored (non-zero) entry."""
        return np.repeat(np.arange(self.counts.shape[0]), np.diff(self.counts.indptr))


@dataclass
class ClassSummary:
    quasi_identifiers: list[str]
    missing_qi: str
    class_of: np.ndarray | None  # class id of each record (None from out-of-memory engines)
    sizes: np.ndarray  # records per class
    class_fk: np.ndarray  # f_k of the records of each class (= sizes unless missing_qi is wildcard)
    first_row: np.ndarray  # a representative (the first) record of each class
    frame: pd.DataFrame = field(repr=False)  # the records (or one representative per class) first_row points into
    sensitive: dict[str, SensitiveCounts] = field(default_factory=dict)
    weight_sums: np.ndarray | None = None  # per class sum of the weight column, when an engine computed it

    @property
    def n_records(self) -> int:
        return int(self.sizes.sum())

    @property
    def n_classes(self) -> int:
        return len(self.sizes)

    def representatives(self, class_ids: np.ndarray, columns: Sequence[str]) -> pd.DataFrame:
        """The quasi-identifier values of the given classes (one row per class)."""
        return self.frame.iloc[self.first_row[np.asarray(class_ids, dtype=np.int64)]][list(columns)].reset_index(drop=True)

    @property
    def record_size(self) -> np.ndarray:
        """f_k of each record (a gather over all records: prefer per-class figures weighted by sizes).

        Out-of-memory engines count records without holding them (``class_of`` is None)."""
        if self.class_of is None:
            raise RuntimeError("record_size needs per-record class ids; this summary was computed by an "
                               "out-of-memory engine (use the per-class figures weighted by sizes)")
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
            out.append({"class": int(cid), "values": values, "size": int(self.sizes[cid]),
                        "record_size": int(self.class_fk[cid])})
        return out


def column_codes(values: pd.Series | pd.Categorical) -> tuple[np.ndarray, int]:
    """Integer codes of a column (sorted value order) with missing as -1, and the number of values."""
    if isinstance(values, pd.Series) and isinstance(values.dtype, pd.CategoricalDtype):
        values = values.array
    if isinstance(values, pd.Categorical):
        return values.codes.astype(np.int64), len(values.categories)
    codes, uniques = pd.factorize(values, sort=True, use_na_sentinel=True)
    return codes.astype(np.int64), len(uniques)


def pack_keys(code_columns: Sequence[tuple[np.ndarray, int]], n: int) -> np.ndarray:
    """One int64 key per record from several code columns (missing = its own code), in lexicographic order.

    Codes are combined in mixed radix; when the radix product would overflow, the partial key is
    re-factorized (sorted) first, which keeps the lexicographic order of the key.
    """
    key = np.zeros(n, dtype=np.int64)
    span = 1
    for codes, card in code_columns:
        radix = card + 1  # room for the missing code
        if span * radix >= _KEY_LIMIT:
            uniq, key = np.unique(key, return_inverse=True)
            key = key.astype(np.int64)
            span = len(uniq)
        codes = np.where(codes < 0, card, codes)
        key = key * radix + codes
        span *= radix
    return key


def group_sorted(key: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Class id per record (ids in ascending key order), class sizes, and each class's first row.

    Sorting is the cost: the row index is packed into the low bits of the key so that numpy's fast
    (vectorised) value sort does the work of an argsort; it falls back to a stable argsort when the two
    do not fit in 63 bits together.
    """
    n = len(key)
    if n == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64)
    bits = max(int(n - 1).bit_length(), 1)
    top = int(key.max())
    if top.bit_length() + bits <= 63 and int(key.min()) >= 0:
        packed = np.sort((key << bits) | np.arange(n, dtype=np.int64))
        order = packed & ((1 << bits) - 1)
        sorted_key = packed >> bits
        del packed
    else:
        order = np.argsort(key, kind="stable")
        sorted_key = key[order]
    new = np.empty(n, dtype=bool)
    new[0] = True
    np.not_equal(sorted_key[1:], sorted_key[:-1], out=new[1:])
    starts = np.flatnonzero(new)
    sizes = np.diff(np.append(starts, n))
    class_of = np.empty(n, dtype=np.int64)
    class_of[order] = np.cumsum(new) - 1
    return class_of, sizes, order[starts]


def count_pairs(first: np.ndarray, second: np.ndarray, radix: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct (first, second) pairs, sorted, with their counts (second in [0, radix))."""
    pair = np.sort(first * radix + second)
    if len(pair) == 0:
        empty = np.zeros(0, np.int64)
        return empty, empty, empty
    new = np.empty(len(pair), dtype=bool)
    new[0] = True
    np.not_equal(pair[1:], pair[:-1], out=new[1:])
    starts = np.flatnonzero(new)
    counts = np.diff(np.append(starts, len(pair)))
    distinct = pair[starts]
    return distinct // radix, distinct % radix, counts


def _wildcard_sizes(code_columns: list[tuple[np.ndarray, int]], n: int) -> np.ndarray:
    """f_k under sdcMicro's wildcard semantics: records j with x_j = x_i wherever both are present."""
    if not code_columns:
        return np.full(n, n, dtype=np.int64)
    missing = np.column_stack([codes < 0 for codes, _ in code_columns])
    weights = 1 << np.arange(missing.shape[1], dtype=np.int64)
    pattern = missing.astype(np.int64) @ weights
    patterns, pattern_of = np.unique(pattern, return_inverse=True)
    result = np.zeros(n, dtype=np.int64)
    members = [np.flatnonzero(pattern_of == i) for i in range(len(patterns))]
    for i, p in enumerate(patterns):
        rows_p = members[i]
        for j, q in enumerate(patterns):
            rows_q = members[j]
            shared = [c for c in range(missing.shape[1]) if not (p >> c) & 1 and not (q >> c) & 1]
            if not shared:
                result[rows_p] += len(rows_q)
                continue
            cols = [(code_columns[c][0], code_columns[c][1]) for c in shared]
            key_p = pack_keys([(codes[rows_p], card) for codes, card in cols], len(rows_p))
            key_q = pack_keys([(codes[rows_q], card) for codes, card in cols], len(rows_q))
            uq, cq = np.unique(key_q, return_counts=True)
            pos = np.searchsorted(uq, key_p)
            pos_clip = np.minimum(pos, len(uq) - 1)
            hit = uq[pos_clip] == key_p
            result[rows_p] += np.where(hit, cq[pos_clip], 0)
    return result


def sensitive_domain(values: pd.Series | pd.Categorical, kind: str, leaves: Sequence[str] | None) -> np.ndarray:
    """The sensitive attribute's domain in ground-distance order: the table's distinct values, sorted
    (numeric), in the policy's order (ordinal), in hierarchy-leaf order (nominal with hierarchy),
    or alphabetically (nominal)."""
    series = pd.Series(values)
    if isinstance(series.dtype, pd.CategoricalDtype):
        codes = series.cat.codes.to_numpy()
        present = series.cat.categories[np.unique(codes[codes >= 0])]
        present = [str(v) for v in present]
        if leaves is not None:
            pos = {v: i for i, v in enumerate(leaves)}
            present = sorted(present, key=lambda v: pos.get(v, len(pos)))
        return np.array(present, dtype=object)
    return np.unique(series.dropna().to_numpy())


def sensitive_counts(column: str, values, domain: np.ndarray, class_of: np.ndarray, n_classes: int) -> SensitiveCounts:
    series = pd.Series(values)
    if isinstance(series.dtype, pd.CategoricalDtype):
        lookup = {v: i for i, v in enumerate(domain)}
        cat_pos = np.array([lookup.get(str(c), -1) for c in series.cat.categories] + [-1], dtype=np.int64)
        codes = series.cat.codes.to_numpy().astype(np.int64)
        s = cat_pos[codes]  # code -1 (missing) picks the trailing -1
    else:
        arr = series.to_numpy(dtype=float)
        s = np.searchsorted(domain, arr)
        s[np.isnan(arr)] = -1
    present = s >= 0
    m = len(domain)
    cls, val = class_of[present], s[present]
    rows, cols, data = count_pairs(cls, val, max(m, 1))
    indptr = np.zeros(n_classes + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n_classes), out=indptr[1:])
    counts = sp.csr_matrix((data.astype(np.int64), cols.astype(np.int64), indptr), shape=(n_classes, m))
    total = np.bincount(val, minlength=m).astype(np.int64)
    return SensitiveCounts(column, domain, counts, total, int((~present).sum()))


def build_summary(
    frame: pd.DataFrame,
    quasi_identifiers: Sequence[str],
    sensitive: dict[str, tuple[str, Sequence[str] | None]] | None = None,
    missing_qi: str = "value",
) -> ClassSummary:
    """Compute the class summary of ``frame``.

    ``sensitive`` maps each sensitive column to ``(type, hierarchy leaves or None)``.
    """
    n = len(frame)
    code_columns = [column_codes(frame[q]) for q in quasi_identifiers]
    key = pack_keys(code_columns, n)
    class_of, sizes, first_row = group_sorted(key)
    if missing_qi == "wildcard" and any((c < 0).any() for c, _ in code_columns):
        class_fk = _wildcard_sizes(code_columns, n)[first_row]
    else:
        class_fk = sizes
    summary = ClassSummary(list(quasi_identifiers), missing_qi, class_of, sizes, class_fk, first_row, frame)
    for column, (kind, leaves) in (sensitive or {}).items():
        domain = sensitive_domain(frame[column], kind, leaves)
        summary.sensitive[column] = sensitive_counts(column, frame[column], domain, class_of, len(sizes))
    return summary
