"""Turn class-level counts from any engine into the :class:`~privaudit.core.summary.ClassSummary` the
assessors read, numbered exactly as :func:`~privaudit.core.summary.build_summary` numbers classes.

Engines hand over *combinations*: one row per distinct combination of quasi-identifier codes (codes in
sorted value order, -1 = missing) with its record count and weight sum, and per sensitive column
``(combination, value index, count)`` triples. A combination may appear more than once; it is summed.
Classes are then numbered in ascending packed-key order (:func:`~privaudit.core.summary.pack_keys`: codes
combined in mixed radix, missing as the largest code of each column), i.e. lexicographic order of the
code tuples, which is the order ``build_summary``'s :func:`~privaudit.core.summary.group_sorted` gives.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.sparse as sp

from privaudit.core.errors import DataError
from privaudit.core.summary import ClassSummary, SensitiveCounts, group_sorted, pack_keys

KEY_BITS = 62  # a packed key part stays below 2**62, as pack_keys keeps it


@dataclass
class QIColumn:
    """One quasi-identifier's final coding: ``card`` codes, decoded into frame values by ``labels``."""

    name: str
    kind: str  # numeric | ordinal | nominal
    card: int
    labels: np.ndarray  # label of each code (floats for numeric)

    def decode(self, codes: np.ndarray) -> pd.Series | pd.Categorical:
        """Frame values of ``codes`` with the dtypes ``data.load_table`` gives the column."""
        if self.kind == "numeric":
            out = np.full(len(codes), np.nan)
            present = codes >= 0
            out[present] = self.labels[codes[present]]
            return pd.Series(out, name=self.name)
        return pd.Categorical.from_codes(codes, categories=list(self.labels), ordered=self.kind == "ordinal")


def key_parts(cards: Sequence[int]) -> list[list[int]]:
    """Split columns (by index) into consecutive groups whose mixed-radix key (radix card+1) fits in
    62 bits; lexicographic order of the tuple of group keys is that of the code tuples."""
    parts: list[list[int]] = []
    span = None
    for i, card in enumerate(cards):
        radix = int(card) + 1
        if span is None or span * radix >= (1 << KEY_BITS):
            parts.append([i])
            span = radix
        else:
            parts[-1].append(i)
            span *= radix
    return parts


def decode_part(part: np.ndarray, cards: Sequence[int]) -> list[np.ndarray]:
    """Codes (-1 = missing) of the columns packed into ``part`` (mixed radix card+1, missing = card)."""
    out = []
    rest = np.asarray(part, dtype=np.int64)
    for card in reversed(cards):
        radix = int(card) + 1
        codes = rest % radix
        rest = rest // radix
        out.append(np.where(codes == card, -1, codes))
    return out[::-1]


def single_keys(tables: Sequence[Sequence[np.ndarray]]) -> list[np.ndarray]:
    """One order-preserving int64 key per row for several tables of multi-part keys (same parts in each
    table): lexicographic order of the parts is kept, and equal tuples get equal keys across tables."""
    if len(tables[0]) == 1:
        return [np.asarray(t[0], dtype=np.int64) for t in tables]
    lengths = [len(t[0]) for t in tables]
    columns = []
    for i in range(len(tables[0])):
        stacked = np.concatenate([np.asarray(t[i], dtype=np.int64) for t in tables])
        uniq, inverse = np.unique(stacked, return_inverse=True)
        columns.append((inverse.astype(np.int64), len(uniq) - 1))  # no missing: card-1 keeps radix = len
    key = pack_keys(columns, int(sum(lengths)))
    return np.split(key, np.cumsum(lengths)[:-1])


@dataclass
class CountMatrix:
    """A class x value count matrix built already (CSR parts, entries sorted within rows) and its
    per-value totals; only for combinations that are the classes themselves, in order."""

    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray
    total: np.ndarray


def assemble(
    policy,
    qi_columns: Sequence[QIColumn],
    combo_codes: Sequence[np.ndarray],
    combo_sizes: np.ndarray,
    combo_weights: np.ndarray | None,
    pairs: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray] | CountMatrix],
    domains: dict[str, np.ndarray],
    n_rows: int,
    engine: str,
    ordered: bool = False,
) -> ClassSummary:
    """The class summary from combinations (see the module docstring).

    ``pairs[col] = (combination index, value index in domains[col], count)``, or a :class:`CountMatrix`
    when the combinations are unique and sorted (they are then the classes). ``ordered``: the caller
    made them so (their packed keys are not recomputed to find out).
    """
    n_combos = len(combo_sizes)
    if ordered:
        class_of = first = np.arange(n_combos, dtype=np.int64)
    else:
        key = pack_keys([(np.asarray(c), q.card) for c, q in zip(combo_codes, qi_columns, strict=False)], n_combos)
        class_of, first = _group(key)
        del key
    n_classes = len(first)
    sizes = np.asarray(combo_sizes, np.int64) if first is class_of else _sum_by(class_of, combo_sizes, n_classes)
    if policy.data.missing_qi == "wildcard" and any((np.asarray(c)[first] < 0).any() for c in combo_codes):
        raise DataError(
            f"data.missing_qi: 'wildcard' matching of missing quasi-identifier values needs the "
            f"whole table in memory; the {engine} engine cannot apply it: use --engine in-process"
        )
    frame = pd.DataFrame(
        {
            q.name: q.decode(np.asarray(c, dtype=np.int64) if ordered else np.asarray(c, dtype=np.int64)[first])
            for q, c in zip(qi_columns, combo_codes, strict=False)
        }
    )
    weight_sums = None
    if combo_weights is not None:
        weight_sums = (
            np.asarray(combo_weights, dtype=float)
            if first is class_of
            else np.bincount(class_of, weights=combo_weights, minlength=n_classes)
        )
    summary = ClassSummary(
        [q.name for q in qi_columns],
        policy.data.missing_qi,
        None,
        sizes,
        sizes,
        np.arange(n_classes, dtype=np.int64),
        frame,
        weight_sums=weight_sums,
    )
    for column, given in pairs.items():
        if isinstance(given, CountMatrix):
            if first is not class_of:
                raise ValueError("a prebuilt count matrix needs unique, sorted combinations")
            m = len(domains[column])
            counts = sp.csr_matrix((given.data, given.indices, given.indptr), shape=(n_classes, m))
            summary.sensitive[column] = SensitiveCounts(
                column, domains[column], counts, given.total, int(n_rows - given.total.sum())
            )
            continue
        combo, value, count = given
        summary.sensitive[column] = _sensitive(
            column, domains[column], class_of[combo], value, count, n_classes, n_rows
        )
    return summary


def _group(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Group id per element (ids in ascending key order) and one element of each group; no sort when
    the keys are strictly increasing already (the chunked engine hands over merged, sorted blocks): both
    results are then the same ``arange``, which callers test with ``is``."""
    if len(key) < 2 or bool((key[1:] > key[:-1]).all()):
        ids = np.arange(len(key), dtype=np.int64)
        return ids, ids
    group, _, first = group_sorted(key)
    return group, first


def _sum_by(group: np.ndarray, counts: np.ndarray, n: int) -> np.ndarray:
    """Integer sums of ``counts`` per group (exact: counts stay far below 2**53)."""
    return np.rint(np.bincount(group, weights=np.asarray(counts, dtype=float), minlength=n)).astype(np.int64)


def _sensitive(
    column: str, domain: np.ndarray, cls: np.ndarray, value: np.ndarray, count: np.ndarray, n_classes: int, n_rows: int
) -> SensitiveCounts:
    """The class x value count matrix (CSR, columns sorted within rows, as ``summary.sensitive_counts``)."""
    m = len(domain)
    keep = (value >= 0) & (count > 0)
    cls, value, count = cls[keep], value[keep], count[keep]
    pair = pack_keys([(cls, max(n_classes, 1)), (value, max(m, 1))], len(cls))
    group, first = _group(pair)
    del pair
    data = np.asarray(count, np.int64) if first is group else _sum_by(group, count, len(first))
    rows, cols = cls[first].astype(np.int64), value[first].astype(np.int64)
    indptr = np.zeros(n_classes + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n_classes), out=indptr[1:])
    counts = sp.csr_matrix((data, cols, indptr), shape=(n_classes, m))
    total = _sum_by(cols, data, m)
    return SensitiveCounts(column, domain, counts, total, int(n_rows - total.sum()))
