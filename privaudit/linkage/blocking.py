"""Exact-match blocking: candidate pair generation in bounded-size chunks.

Blocking (Fellegi & Sunter 1969, section 4; Christen 2012, *Data Matching*, ch. 4)
restricts the comparison space ``A x B`` to the pairs that agree exactly on a
*blocking key*.  With several blocking rules the candidate set is the union of
the per-rule pair sets.  This module

* encodes each rule as one integer key per record on both sides
  (:func:`encode_block_keys`), with ``-1`` for records whose key has a missing
  component (such records are never paired by that rule);
* enumerates the pairs rule by rule without ever holding all of them
  (:func:`iter_candidate_pairs`): the right-hand keys are sorted once, every
  left record gets the range ``[lo, hi)`` of equal keys via binary search, and
  ranges are expanded with ``np.repeat`` for a slice of left records whose
  pair count fits the chunk size.  A pair produced by rule ``r`` is dropped
  when it also agrees on an earlier rule ``k < r``, so the union is
  de-duplicated without a global set of pairs;
* chooses a default set of rules (:func:`default_blocking`).

Within every yielded chunk the left indices are non-decreasing, which lets
callers reduce per left record with ``np.*.reduceat``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Sequence

import numpy as np
import pandas as pd

__all__ = [
    "BlockKeys",
    "PairChunk",
    "default_blocking",
    "encode_block_keys",
    "count_candidate_pairs",
    "iter_candidate_pairs",
]


@dataclass(frozen=True)
class BlockKeys:
    """Integer block keys of one rule for the left and right tables (``-1`` = no key)."""

    columns: tuple[str, ...]
    left: np.ndarray
    right: np.ndarray


@dataclass(frozen=True)
class PairChunk:
    """A chunk of candidate pairs.

    ``left``/``right`` are positional indices (int32) into the left and right
    tables; ``left`` is non-decreasing.  ``raw`` is the number of pairs the
    rule produced for this chunk before de-duplication against earlier rules
    (useful for progress reporting).
    """

    rule: int
    left: np.ndarray
    right: np.ndarray
    raw: int


def _joint_codes(left: pd.DataFrame, right: pd.DataFrame, columns: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Codes of the value tuple on ``columns``, shared between both tables.

    Each column is factorised over the concatenation of both sides, so equal
    values get equal codes; tuples are then combined by mixed radix and
    compressed again with ``np.unique`` to stay within int64.
    """
    n_left = len(left)
    joint = np.zeros(n_left + len(right), dtype=np.int64)
    missing = np.zeros(n_left + len(right), dtype=bool)
    for col in columns:
        a, b = left[col], right[col]
        if a.dtype != b.dtype:
            a, b = a.astype(str).where(a.notna()), b.astype(str).where(b.notna())
        codes, uniques = pd.factorize(pd.concat([a, b], ignore_index=True), use_na_sentinel=True)
        codes = np.asarray(codes, dtype=np.int64)
        missing |= codes < 0
        joint = joint * (len(uniques) + 1) + (codes + 1)
        # re-compress after each column so the radix product never overflows
        _, joint = np.unique(joint, return_inverse=True)
        joint = joint.astype(np.int64, copy=False)
    joint[missing] = -1
    return joint[:n_left], joint[n_left:]


def encode_block_keys(left: pd.DataFrame, right: pd.DataFrame, rules: Sequence[Sequence[str]]) -> list[BlockKeys]:
    """Encode every blocking rule (a list of columns matched exactly) as integer keys."""
    out = []
    for rule in rules:
        cols = tuple(rule)
        if not cols:
            raise ValueError("a blocking rule must name at least one column")
        for c in cols:
            if c not in left.columns or c not in right.columns:
                raise KeyError(f"blocking column {c!r} missing from one of the tables")
        kl, kr = _joint_codes(left, right, cols)
        out.append(BlockKeys(cols, kl, kr))
    return out


def default_blocking(frame: pd.DataFrame, columns: Sequence[str], n_rules: int = 3) -> list[list[str]]:
    """Default rules: one single-column exact block per most *discriminating* categorical column.

    Columns are ranked by the inverse Simpson index ``1 / sum_v p_v**2`` (the
    effective number of distinct values).  ``sum_v p_v**2`` is the share of
    all pairs that fall in a common block, so this ranking picks the columns
    with the smallest candidate sets, unlike a raw distinct-value count which
    would favour skewed columns such as a country with one dominant value.
    """
    scores = []
    for col in columns:
        p = frame[col].value_counts(normalize=True, dropna=True).to_numpy(dtype=float)
        if p.size:
            scores.append((1.0 / float(np.sum(p * p)), col))
    scores.sort(key=lambda t: -t[0])
    return [[col] for _, col in scores[:n_rules]]


def _rule_ranges(keys: BlockKeys) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sorted right order plus, for every left record, the range of equal right keys."""
    order = np.argsort(keys.right, kind="stable")
    sorted_keys = keys.right[order]
    lo = np.searchsorted(sorted_keys, keys.left, side="left")
    hi = np.searchsorted(sorted_keys, keys.left, side="right")
    counts = hi - lo
    counts[keys.left < 0] = 0
    return order.astype(np.int32), lo, counts


def count_candidate_pairs(rules: Sequence[BlockKeys]) -> list[int]:
    """Number of pairs each rule produces *before* de-duplication (cheap, no pairs built)."""
    return [int(_rule_ranges(k)[2].sum()) for k in rules]


def iter_candidate_pairs(rules: Sequence[BlockKeys], chunk_size: int = 1_000_000) -> Iterator[PairChunk]:
    """Yield the de-duplicated union of all rules' pairs, at most ~``chunk_size`` pairs per chunk.

    A chunk covers whole left records of one rule, so a single left record
    whose block exceeds ``chunk_size`` yields a larger chunk on its own.
    """
    if chunk_size < 1:
        raise ValueError("chunk_size must be positive")
    for r, keys in enumerate(rules):
        order, lo, counts = _rule_ranges(keys)
        cum = np.cumsum(counts)
        n = counts.size
        start = 0
        while start < n:
            base = cum[start - 1] if start else 0
            stop = int(np.searchsorted(cum, base + chunk_size, side="right"))
            stop = max(stop, start + 1)
            cnt = counts[start:stop]
            total = int(cnt.sum())
            if total:
                left = np.repeat(np.arange(start, stop, dtype=np.int32), cnt)
                offsets = np.cumsum(cnt) - cnt
                pos = np.repeat(lo[start:stop] - offsets, cnt) + np.arange(total)
                right = order[pos]
                if r:
                    keep = np.ones(total, dtype=bool)
                    for earlier in rules[:r]:
                        kl = earlier.left[left]
                        keep &= ~((kl == earlier.right[right]) & (kl >= 0))
                    left, right = left[keep], right[keep]
                yield PairChunk(r, left, right, total)
            start = stop
