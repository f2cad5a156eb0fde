"""Composition of several releases of one population: the intersection attack and m-invariance.

Ganta, Kasiviswanathan & Smith, "Composition attacks and auxiliary information in data privacy" (KDD 2008),
Section 3: an intruder who knows that a person is in two independently anonymized releases finds the
person's equivalence class in each and intersects the sets of sensitive values those classes hold; the
person's value is in every one of them, so the intersection can shrink to a single value although each
release is k-anonymous and l-diverse on its own (their example: two hospitals' releases).

Xiao & Tao, "m-Invariance: Towards Privacy Preserving Re-publication of Dynamic Datasets" (SIGMOD 2007),
Section 3 (its definitions; the numbering is not checked here, the paper not being among the seeds): the
*signature* of a record in a release is the set of sensitive values of its QI group; a release is
*m-unique* if every QI group has at least m records, all with different sensitive values; a sequence of
releases is *m-invariant* if every release is m-unique and every record has the same signature in every
release it appears in.

This module is the arithmetic only; it knows nothing of policies, tables or reports. Its inputs are, per
release ``r``, ``group_of[r]`` (for every person, the id of the group of records the intruder finds them in,
-1 when the person is not in the release or cannot be found there) and ``sets[r]`` (a groups x values
boolean CSR matrix: which sensitive values each group holds, over one domain shared by all releases).

Everything is computed on *combinations* (the tuple of groups a person falls in across the releases):
people with the same combination share every figure, so the work grows with the combinations' stored
values, not with people x releases x values, and it is vectorised (one sort to find the combinations, then
one membership test per release over the stored values of the combinations' base sets).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

#: the largest groups x values table tested for membership by a dense lookup (bytes); larger ones are
#: searched in the sorted keys of the stored entries
DENSE_CELLS = 1 << 25


@dataclass
class Composition:
    """What the intersection attack leaves, per combination of groups (rows) and release (columns).

    ``groups``: combinations x releases, the group of each release (-1: not in it). ``people``: people per
    combination. ``combo_of``: each person's combination. ``present``: combinations x releases, how many of
    the releases 0..j the combination is in. ``remaining``: combinations x releases, how many sensitive
    values lie in every group of releases 0..j the combination is in (0 where it is in none of them).
    ``changed``: whether the combination's signature (its group's set of values) differs between two of
    the releases it is in (m-invariance). ``base``: the release whose set the remaining values
    are counted in (the first one the combination is in); ``alive``/``entry_combo``/``entry_value``: the
    stored values of the base sets and whether each lies in every set after the last release."""

    groups: np.ndarray
    people: np.ndarray
    combo_of: np.ndarray
    present: np.ndarray
    remaining: np.ndarray
    changed: np.ndarray
    entry_combo: np.ndarray
    entry_value: np.ndarray
    alive: np.ndarray

    @property
    def releases_in(self) -> np.ndarray:
        """How many releases each combination is in."""
        return self.present[:, -1] if self.present.size else np.zeros(len(self.people), dtype=np.int64)

    def remaining_values(self, combo: int) -> np.ndarray:
        """The value ids left for one combination after every release (sorted)."""
        keep = (self.entry_combo == combo) & self.alive
        return np.sort(self.entry_value[keep])


def combinations(group_of: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Group people by their tuple of groups: ``(groups, people, combo_of)`` with ``groups`` the
    combinations x releases group ids (-1 kept), ``people`` the people per combination and ``combo_of``
    each person's combination (combinations in ascending order of their tuple)."""
    n = len(group_of[0]) if group_of else 0
    key = np.zeros(n, dtype=np.int64)
    span = 1
    for g in group_of:
        if len(g) != n:
            raise ValueError("every release needs one group id per person")
        radix = int(g.max(initial=-1)) + 2  # -1 (absent) becomes 0
        if span * radix >= 1 << 62:  # re-number the partial key (keeps its order) before it overflows
            uniq, inverse = np.unique(key, return_inverse=True)
            key, span = inverse.astype(np.int64).ravel(), len(uniq)
        key *= radix
        key += g.astype(np.int64) + 1
        span *= radix
    uniq, first, combo_of, people = np.unique(key, return_index=True, return_inverse=True, return_counts=True)
    groups = (
        np.stack([np.asarray(g, dtype=np.int64)[first] for g in group_of], axis=1)
        if group_of
        else np.zeros((0, 0), dtype=np.int64)
    )
    return groups, people.astype(np.int64), combo_of.astype(np.int64).ravel()


def _expand(sets: sp.csr_matrix, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The stored entries of the given rows of a CSR matrix: ``(position in rows, column)`` of each."""
    indptr = sets.indptr
    lengths = (indptr[rows + 1] - indptr[rows]).astype(np.int64)
    owner = np.repeat(np.arange(len(rows), dtype=np.int64), lengths)
    starts = np.repeat(indptr[rows].astype(np.int64) - np.concatenate(([0], np.cumsum(lengths)[:-1])), lengths)
    columns = sets.indices[starts + np.arange(int(lengths.sum()), dtype=np.int64)]
    return owner, columns.astype(np.int64)


class _Membership:
    """Whether (group, value) pairs are stored in a groups x values CSR matrix: a dense lookup when the
    table is small, else a binary search in the sorted keys ``group * width + value`` of the stored entries."""

    def __init__(self, sets: sp.csr_matrix):
        sets = sets.tocsr()
        sets.sort_indices()
        self.width = max(sets.shape[1], 1)
        rows = np.repeat(np.arange(sets.shape[0], dtype=np.int64), np.diff(sets.indptr))
        keys = rows * self.width + sets.indices.astype(np.int64)
        cells = sets.shape[0] * self.width
        if cells <= DENSE_CELLS:
            self.dense: np.ndarray | None = np.zeros(cells, dtype=bool)
            self.dense[keys] = True
            self.keys = None
        else:
            self.dense, self.keys = None, keys

    def __call__(self, groups: np.ndarray, values: np.ndarray) -> np.ndarray:
        needles = groups * self.width + values
        if self.dense is not None:
            return self.dense[needles]
        pos = np.searchsorted(self.keys, needles)
        hit = pos < len(self.keys)
        hit[hit] = self.keys[pos[hit]] == needles[hit]
        return hit


def compose(group_of: Sequence[np.ndarray], sets: Sequence[sp.csr_matrix]) -> Composition:
    """The intersection attack over releases ``0 .. R-1`` in that order (see the module docstring).

    For every combination of groups, the values of its base set (the group of the first release it is in)
    are tested for membership in its group of every later release it is in; after release ``j`` the
    values still in every set are counted (``remaining[:, j]``). The signature changes (m-invariance)
    come from the same tests: two sets are equal when their intersection is as large as both."""
    if len(group_of) != len(sets):
        raise ValueError("one set matrix per release is needed")
    groups, people, combo_of = combinations(group_of)
    n_combos, n_releases = groups.shape
    in_release = groups >= 0
    present = np.cumsum(in_release, axis=1, dtype=np.int64)
    base = np.argmax(in_release, axis=1)  # first release each combination is in (0 when in none)
    owners, values = [], []
    for r in range(n_releases):
        rows = np.flatnonzero(in_release[:, r] & (base == r))
        owner, columns = _expand(sets[r], groups[rows, r])
        owners.append(rows[owner])
        values.append(columns)
    entry_combo = np.concatenate(owners) if owners else np.zeros(0, dtype=np.int64)
    entry_value = np.concatenate(values) if values else np.zeros(0, dtype=np.int64)
    base_size = np.bincount(entry_combo, minlength=n_combos)
    alive = np.ones(len(entry_combo), dtype=bool)
    remaining = np.zeros((n_combos, n_releases), dtype=np.int64)
    changed = np.zeros(n_combos, dtype=bool)
    for r in range(n_releases):
        there = in_release[entry_combo, r]
        member = np.ones(len(entry_combo), dtype=bool)
        later = there & (base[entry_combo] != r)
        if later.any():
            member[later] = _Membership(sets[r])(groups[entry_combo[later], r], entry_value[later])
        alive &= member | ~there
        remaining[:, r] = np.bincount(entry_combo[alive], minlength=n_combos)
        # signature of release r against the base set: equal iff |B & S_r| == |B| == |S_r|
        inter = np.bincount(entry_combo[member & there], minlength=n_combos)
        size_r = np.zeros(n_combos, dtype=np.int64)
        rows = np.flatnonzero(in_release[:, r])
        size_r[rows] = np.diff(sets[r].indptr)[groups[rows, r]]
        changed |= in_release[:, r] & ((inter != base_size) | (size_r != base_size))
    remaining[present == 0] = 0
    return Composition(groups, people, combo_of, present, remaining, changed, entry_combo, entry_value, alive)


def m_unique(sizes: np.ndarray, distinct: np.ndarray, m: int) -> np.ndarray:
    """Xiao & Tao's m-uniqueness (Section 3), per QI group: at least ``m`` records, all with different sensitive values
    (``distinct`` values among ``sizes`` records; a record without a value is not a different value)."""
    return (np.asarray(sizes) >= m) & (np.asarray(distinct) == np.asarray(sizes))


def union_sets(members: sp.csr_matrix, sets: sp.csr_matrix) -> sp.csr_matrix:
    """The sets of values of groups made of several classes: ``members`` (groups x classes, True where a
    class belongs to the group) times ``sets`` (classes x values), as a boolean groups x values CSR."""
    product = (members.astype(np.int64) @ sets.astype(np.int64)).tocsr()
    product.data = product.data > 0
    product.eliminate_zeros()
    product.sort_indices()
    return product.astype(bool)
