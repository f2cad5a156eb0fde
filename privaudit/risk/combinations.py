"""Risky cells of combinations of quasi-identifiers (sdcMicro's ``riskyCells``, ``R/riskyCells.R``; µ-ARGUS's
"unsafe combinations", manual §5.3.2), counted from the class summary.

A combination's cells are the distinct value combinations of its columns that occur; a cell's count is how
many records hold it. The summary's classes are regrouped on the combination's columns (the class keys counted
in a dense array, or hashed, and one weighted bincount per combination: a cell's records are the sizes of
the classes in it),
so the work per combination is over classes, not records, and no Python loop runs over either.

Missing values: sdcMicro's riskyCells tabulates with data.table's ``by =``, where NA is a group of its own;
so here, under ``data.missing_qi: value``, a missing value is a value of its own and a cell of missing values
is a cell like any other. Under ``missing_qi: wildcard`` (sdcMicro's freqCalc and localSuppression: a missing
value matches every value) a cell's count is the number of records its value combination matches, missing
values matching anything, so that a table local suppression blanked under that setting is judged as it
was made; a fully observed cell then counts the records that agree on its observed values and those missing
them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from privaudit.core.summary import _wildcard_sums, column_codes, pack_keys

if TYPE_CHECKING:  # pragma: no cover - types only
    from collections.abc import Sequence

    from privaudit.core.summary import ClassSummary


@dataclass
class CombinationCells:
    """The cells of one combination: how many there are, the risky ones (count < k), their records and the
    smallest count; ``worst`` holds (class id of a representative, cell count, records in the cell) of the
    smallest risky cells, at most ``limit`` of them."""

    columns: tuple[str, ...]
    k: int
    cells: int
    risky_cells: int
    risky_records: int
    smallest: int
    worst: list[tuple[int, int, int]] = field(default_factory=list)


def class_codes(summary: ClassSummary, columns: Sequence[str]) -> dict[str, tuple[np.ndarray, int]]:
    """Integer codes (missing -1) and cardinality of each column over the summary's classes."""
    frame = summary.representatives(np.arange(summary.n_classes), list(columns))
    out = {}
    for c in columns:
        codes, card = column_codes(frame[c])
        out[c] = (np.asarray(codes, dtype=np.int64), int(card))
    return out


#: a combination's packed keys are counted in a dense array up to this span (else hashed)
DENSE_SPAN = 1 << 22


def cell_counts(
    codes: dict[str, tuple[np.ndarray, int]], sizes: np.ndarray, columns: Sequence[str], wildcard: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The cells of the combination ``columns`` over classes of the given ``sizes`` (``codes`` per column, one
    entry per class): each class's cell, the records in each cell and each cell's count (the records it
    matches: the same, but under wildcard matching of missing values). The packed keys are counted in a dense
    array when their span is small (a few columns of few values), else factorized by hashing; no sort."""
    import pandas as pd

    n = len(sizes)
    parts = [codes[c] for c in columns]
    span = 1
    for _, card in parts:
        span *= card + 1
    key = pack_keys(parts, n)
    if span <= max(DENSE_SPAN, 4 * n):
        dense = np.bincount(key, weights=sizes, minlength=span)
        present = np.flatnonzero(dense)
        index = np.full(span, -1, dtype=np.int64)
        index[present] = np.arange(len(present))
        cell_of, records = index[key], dense[present].astype(np.int64)
    else:
        cell_of, uniques = pd.factorize(key)
        records = np.bincount(cell_of, weights=sizes, minlength=len(uniques)).astype(np.int64)
    counts = records
    if wildcard and any(len(c) and c.min() < 0 for c, _ in parts):
        _, matched = _wildcard_sums(parts, n, sizes.astype(np.float64))
        counts = np.zeros(len(records), dtype=np.int64)
        counts[cell_of] = np.rint(np.asarray(matched)).astype(np.int64)  # the same for every class of a cell
    return cell_of, records, counts


def combination_cells(
    codes: dict[str, tuple[np.ndarray, int]],
    sizes: np.ndarray,
    columns: Sequence[str],
    k: int,
    *,
    wildcard: bool = False,
    limit: int = 20,
) -> tuple[CombinationCells, np.ndarray]:
    """The cells of the combination ``columns`` (:func:`cell_counts`) summed up, and which classes lie in a
    risky cell (count < k). The ``limit`` smallest risky cells are listed by a representative class each."""
    cell_of, records, counts = cell_counts(codes, sizes, columns, wildcard)
    risky = counts < k
    order = np.flatnonzero(risky)
    order = order[np.lexsort((order, counts[order]))][:limit]
    wanted = np.zeros(len(records), dtype=bool)
    wanted[order] = True
    rows = np.flatnonzero(wanted[cell_of])  # the classes of the listed cells; the first of each represents it
    listed, at = np.unique(cell_of[rows], return_index=True)
    first_of = dict(zip(listed.tolist(), rows[at].tolist(), strict=True))
    first = [first_of[i] for i in order.tolist()]
    found = CombinationCells(
        columns=tuple(columns),
        k=int(k),
        cells=len(records),
        risky_cells=int(risky.sum()),
        risky_records=int(records[risky].sum()),
        smallest=int(counts.min()) if len(counts) else 0,
        worst=[(f, int(counts[i]), int(records[i])) for f, i in zip(first, order, strict=True)],
    )
    return found, risky[cell_of]
