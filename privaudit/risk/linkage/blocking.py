"""Exact-match blocking: candidate pair generation in bounded-size chunks.

Blocking (Christen 2012, *Data Matching*, the chapter on indexing)
restricts the comparison space ``A x B`` to the pairs that agree exactly on a
*blocking key*.  With several blocking rules the candidate set is the union of
the per-rule pair sets.  This module

* encodes each rule as one integer key per record on both sides
  (:func:`encode_block_keys`), with ``-1`` for records whose key has a missing
  component (such records are never paired by that rule);
* enumerates the pairs rule by rule without ever holding all of them
  (:func:`iter_rule_chunks`): the right-hand keys are sorted once
  (:func:`rule_order`), every left record gets the range ``[lo, hi)`` of
  equal keys via binary search, and ranges are expanded with ``np.repeat``
  for a slice of left records whose pair count fits the chunk size;
* de-duplicates the union (:func:`iter_candidate_pairs`): a pair produced by
  rule ``r`` is dropped when it also agrees on an earlier rule ``k < r``, so
  no global set of pairs is needed;
* chooses a default set of rules (:func:`default_blocking`).

Within every yielded chunk the left indices are non-decreasing, which lets
callers reduce per left record with ``np.*.reduceat``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = [
    "BlockKeys",
    "PairChunk",
    "blocking_from_counts",
    "default_blocking",
    "encode_block_keys",
    "RangeChunk",
    "count_candidate_pairs",
    "iter_candidate_pairs",
    "iter_rule_chunks",
    "rule_order",
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


def default_blocking(
    frame: pd.DataFrame,
    columns: Sequence[str],
    n_rules: int = 3,
    max_pairs: float | None = 1e8,
    n_other: int | None = None,
) -> list[list[str]]:
    """Default rules: exact blocks on the most *discriminating* categorical columns.

    Columns are ranked by the inverse Simpson index ``1 / sum_v p_v**2`` (the
    effective number of distinct values).  ``sum_v p_v**2`` is the share of
    all pairs that fall in a common block, so this ranking picks the columns
    with the smallest candidate sets, unlike a raw distinct-value count which
    would favour skewed columns such as a country with one dominant value.

    The rules are one single-column block for each of the ``n_rules`` best
    columns.  If those would produce more than ``max_pairs`` pairs (estimated
    as ``len(frame) * n_other * sum_v p_v**2`` per rule, ``n_other`` defaulting
    to ``len(frame)``), the rules become all pairs of these columns instead
    (e.g. ``(a, b), (a, c), (b, c)``): a record's own match is still found
    when any two of the three columns agree.
    """
    counts = {col: frame[col].value_counts(dropna=True).to_numpy() for col in columns}
    return blocking_from_counts(counts, len(frame), n_rules, max_pairs, n_other)


def blocking_from_counts(
    counts: dict[str, np.ndarray],
    n_rows: int,
    n_rules: int = 3,
    max_pairs: float | None = 1e8,
    n_other: int | None = None,
) -> list[list[str]]:
    """:func:`default_blocking` from each column's value counts (missing values excluded) over a table of
    ``n_rows`` rows: the same rules whoever counted the values (pandas here, SQL in
    :mod:`.fellegi_sunter.sql`)."""
    n_other = n_rows if n_other is None else n_other
    scores = []
    for col, c in counts.items():
        c = np.sort(np.asarray(c, dtype=np.int64))[::-1]  # as value_counts orders them: the same float sum
        if c.size:
            p = c / c.sum()
            scores.append((float(np.sum(p * p)), col))
    scores.sort(key=lambda t: t[0])
    best = scores[:n_rules]
    rules = [[col] for _, col in best]
    expected = sum(n_rows * n_other * collision for collision, _ in best)
    if max_pairs is not None and expected > max_pairs and len(best) >= 3:
        cols = [col for _, col in best]
        rules = [[a, b] for i, a in enumerate(cols) for b in cols[i + 1 :]]
    return rules


def rule_order(keys: BlockKeys) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Right records sorted by key, and for every left record the range of equal keys.

    Returns ``(order, lo, counts)``: the right records with the same key as
    left record ``i`` are ``order[lo[i] : lo[i] + counts[i]]`` (``counts`` is
    0 for a missing key).
    """
    order = np.argsort(keys.right, kind="stable")
    sorted_keys = keys.right[order]
    lo = np.searchsorted(sorted_keys, keys.left, side="left")
    hi = np.searchsorted(sorted_keys, keys.left, side="right")
    counts = hi - lo
    counts[keys.left < 0] = 0
    return order, lo, counts


def count_candidate_pairs(rules: Sequence[BlockKeys]) -> list[int]:
    """Number of pairs each rule produces *before* de-duplication (cheap, no pairs built)."""
    return [int(rule_order(k)[2].sum()) for k in rules]


@dataclass(frozen=True)
class RangeChunk:
    """Pairs of one rule for the left records ``start..stop-1``, in compact form.

    Left record ``start + k`` is paired with the ``counts[k]`` right records
    at positions ``pos[offsets[k] : offsets[k] + counts[k]]`` of the rule's
    sorted order (``order[pos]`` are right row indices).  Not de-duplicated.
    """

    rule: int
    start: int
    stop: int
    counts: np.ndarray
    pos: np.ndarray

    @property
    def size(self) -> int:
        return int(self.pos.size)

    def left(self) -> np.ndarray:
        """Left index of every pair (non-decreasing)."""
        return np.repeat(np.arange(self.start, self.stop, dtype=np.intp), self.counts)


def iter_rule_chunks(
    rules: Sequence[BlockKeys], orders: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray]], chunk_size: int
) -> Iterator[RangeChunk]:
    """Walk every rule's pairs in chunks of whole left records, ~``chunk_size`` pairs each.

    ``orders`` are the :func:`rule_order` results of ``rules``.  A single left
    record whose block exceeds ``chunk_size`` forms a larger chunk on its own.
    """
    if chunk_size < 1:
        raise ValueError("chunk_size must be positive")
    for r, (_order, lo, counts) in enumerate(orders):
        cum = np.cumsum(counts)
        n = counts.size
        start = 0
        while start < n:
            base = cum[start - 1] if start else 0
            stop = max(int(np.searchsorted(cum, base + chunk_size, side="right")), start + 1)
            cnt = counts[start:stop]
            total = int(cnt.sum())
            if total:
                offsets = np.cumsum(cnt) - cnt
                pos = np.repeat(lo[start:stop] - offsets, cnt) + np.arange(total)
                yield RangeChunk(r, start, stop, cnt, pos)
            start = stop


def iter_candidate_pairs(rules: Sequence[BlockKeys], chunk_size: int = 1_000_000) -> Iterator[PairChunk]:
    """Yield the de-duplicated union of all rules' pairs, ~``chunk_size`` pairs per chunk.

    A pair of rule ``r`` is dropped when it also agrees on the key of an
    earlier rule.  Within a chunk ``left`` is non-decreasing.
    """
    orders = [rule_order(k) for k in rules]
    for ch in iter_rule_chunks(rules, orders, chunk_size):
        left = ch.left()
        right = orders[ch.rule][0][ch.pos]
        if ch.rule:
            dup = np.zeros(left.size, dtype=bool)
            for earlier in rules[: ch.rule]:
                kl = earlier.left[left]
                dup |= (kl == earlier.right[right]) & (kl >= 0)
            keep = np.flatnonzero(~dup)
            left, right = left[keep], right[keep]
        yield PairChunk(ch.rule, left.astype(np.int32), right.astype(np.int32), ch.size)
