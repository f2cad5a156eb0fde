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
    class_of: np.ndarray
    sizes: np.ndarray
    record_size: np.ndarray
    first_row: np.ndarray
    frame: pd.DataFrame = field(repr=False)
    sensitive: dict[str, SensitiveCounts] = field(default_factory=dict)

    @property
    def n_records(self) -> int:
        return len(self.class_of)

    @property
    def n_classes(self) -> int:
        return len(self.sizes)

    @property
    def class_record_size(self) -> np.ndarray:
        """f_k of the records of each class (all records of a class share it)."""
        return self.record_size[self.first_row]

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
                        "record_size": int(self.record_size[self.first_row[cid]])})
        return out

    def smallest_classes(self, limit: int, key: np.ndarray | None = None) -> np.ndarray:
        """Ids of up to ``limit`` classes ordered by ``key`` (default: f_k) ascending, ties by id."""
        key = self.class_record_size if key is None else key
        order = np.lexsort((np.arange(len(key)), key))
        return order[:limit]


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


def _factorize_sorted(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    codes, _ = pd.factorize(key, sort=True)
    codes = codes.astype(np.int64)
    return codes, np.bincount(codes)


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
        cat_pos = np.array([lookup.get(str(c), -1) for c in series.cat.categories], dtype=np.int64)
        codes = series.cat.codes.to_numpy().astype(np.int64)
        s = np.where(codes >= 0, cat_pos[np.maximum(codes, 0)], -1)
    else:
        arr = series.to_numpy(dtype=float)
        s = np.searchsorted(domain, arr)
        s[np.isnan(arr)] = -1
    present = s >= 0
    m = len(domain)
    cls, val = class_of[present], s[present]
    if n_classes * max(m, 1) <= 50_000_000:
        dense = np.bincount(cls * m + val, minlength=n_classes * m)
        nz = np.flatnonzero(dense)
        rows, cols, data = nz // m, nz % m, dense[nz]
    else:
        pair, data = np.unique(cls * m + val, return_counts=True)
        rows, cols = pair // m, pair % m
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
    class_of, sizes = _factorize_sorted(key)
    order = np.argsort(class_of, kind="stable")
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    first_row = order[starts] if n else np.zeros(0, dtype=np.int64)
    if missing_qi == "wildcard" and any((c < 0).any() for c, _ in code_columns):
        record_size = _wildcard_sizes(code_columns, n)
    else:
        record_size = sizes[class_of]
    summary = ClassSummary(list(quasi_identifiers), missing_qi, class_of, sizes, record_size, first_row, frame)
    for column, (kind, leaves) in (sensitive or {}).items():
        domain = sensitive_domain(frame[column], kind, leaves)
        summary.sensitive[column] = sensitive_counts(column, frame[column], domain, class_of, len(sizes))
    return summary
