"""Class counts of lattice nodes rolled up from finer nodes (Flash's reuse of a node's result for its
successors; Kohlmayer, Prasser, Eckert, Kemper & Kuhn, "Flash: efficient, stable and optimal k-anonymity",
SocialCom/PASSAT 2012, Section IV; ARX's "snapshots").

The tagging phase of :class:`~privaudit.remediation.generalization.lattice.LatticeSearch` asks, for many
level vectors, how many records sit in classes breaking the monotone checks. Building the audit summary of
the whole table for each node costs O(n log n) on the records. Here the table is first reduced to its
*snapshot*: the distinct rows of (QI node ids, sensitive codes) with their record counts. A node's snapshot
is obtained from the snapshot of any evaluated node below it (componentwise smaller levels) by generalizing
its few rows and merging equal ones (hash factorisation, O(rows)), since generalization only ever merges
classes. From a snapshot, class sizes are weighted counts and distinct l-diversity is the number of distinct
sensitive codes per class.

Used only where it gives exactly the verdict of the re-audit: the tagging checks are k-anonymity and
distinct l-diversity, a missing QI value is a value of its own (``missing_qi: value``) and the sensitive
columns of the l-diversity checks have no missing value. Otherwise the search falls back to the audit
summary. A property test checks both paths agree.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pandas as pd

from privaudit.assessors.helpers import reaches

#: evaluated snapshots kept for roll-ups (least recently used dropped)
CACHE = 256


def _codes(values: pd.Series) -> tuple[np.ndarray, int]:
    if isinstance(values.dtype, pd.CategoricalDtype):
        return values.cat.codes.to_numpy().astype(np.int64), len(values.cat.categories)
    codes, uniques = pd.factorize(values, use_na_sentinel=True)
    return codes.astype(np.int64), len(uniques)


class SnapshotCounter:
    """Violating-record counts of lattice nodes from rolled-up snapshots; ``supported`` says if usable."""

    def __init__(self, problem, checks):
        self.problem = problem
        self.supported = False
        self.k = 1
        self.ldiv: list[tuple[int, float]] = []  # (snapshot column, l)
        policy = problem.policy
        if getattr(policy.model.data, "missing_qi", "value") != "value" or not checks:
            return
        sensitive: dict[str, int] = {}
        extra: list[np.ndarray] = []
        radices = [d.n_nodes for d in problem.domains]
        q = len(problem.domains)
        for check in checks:
            name, params = check.assessor.name, check.params
            if name == "k_anonymity":
                self.k = max(self.k, int(params.k))
            elif name == "l_diversity" and params.variant == "distinct":
                column = params.sensitive
                if column not in sensitive:
                    codes, n = _codes(problem.table[column])
                    if (codes < 0).any():
                        return
                    sensitive[column] = q + len(extra)
                    extra.append(codes)
                    radices.append(max(n, 1))
                self.ldiv.append((sensitive[column], float(params.l)))
            else:
                return
        if float(np.prod(np.array(radices, dtype=float))) >= 2.0 ** 62:
            return
        self.radices = np.array(radices, dtype=np.int64)
        self.strides = np.array([int(np.prod(self.radices[j + 1:])) for j in range(len(radices))], dtype=np.int64)
        rows = np.column_stack([problem.nodes] + extra) if extra else problem.nodes
        self.q = q
        self.bottom = self._merge(rows.astype(np.int64), np.ones(len(rows), dtype=np.int64))
        self.cache: OrderedDict[tuple[int, ...], tuple[np.ndarray, np.ndarray]] = OrderedDict()
        self.cache[(0,) * q] = self.bottom
        self.supported = True

    def _merge(self, rows: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        key = rows @ self.strides
        codes, uniques = pd.factorize(key)
        merged = np.bincount(codes, weights=counts, minlength=len(uniques)).astype(np.int64)
        first = np.full(len(uniques), -1, dtype=np.int64)
        first[codes[::-1]] = np.arange(len(codes))[::-1]
        return rows[first], merged

    def snapshot(self, levels) -> tuple[np.ndarray, np.ndarray]:
        """Distinct (QI nodes at ``levels``, sensitive codes) rows and their record counts."""
        levels = tuple(int(x) for x in levels)
        hit = self.cache.get(levels)
        if hit is not None:
            self.cache.move_to_end(levels)
            return hit
        known = list(self.cache)
        below = (np.array(known, dtype=np.int64).reshape(len(known), self.q) <= np.array(levels)).all(axis=1)
        sizes = np.array([len(self.cache[key][0]) for key in known])
        base = self.cache[known[int(np.flatnonzero(below)[np.argmin(sizes[below])])]]  # smallest finer snapshot
        rows = base[0].copy()
        for j, d in enumerate(self.problem.domains):
            rows[:, j] = d.generalize(rows[:, j], levels[j])
        snap = self._merge(rows, base[1])
        self.cache[levels] = snap
        if len(self.cache) > CACHE:
            oldest = next(iter(self.cache))
            if oldest == (0,) * self.q:  # keep the bottom
                self.cache.move_to_end(oldest)
                oldest = next(iter(self.cache))
            del self.cache[oldest]
        return snap

    def violating_records(self, levels) -> int:
        """Records in classes breaking k-anonymity or a distinct l-diversity check at ``levels``."""
        rows, counts = self.snapshot(levels)
        if rows.shape[1] == self.q:  # no sensitive column: a snapshot's rows are its classes already
            return int(counts[counts < self.k].sum())
        cls, sizes, bad = self._classes(rows, counts)
        return int(sizes[bad].sum())

    def exact_cost(self, levels, costs, budget: int, rounds: int) -> tuple[bool, float] | None:
        """:meth:`LatticeSearch.exact` on the snapshot: violating classes suppressed (every QI missing, so
        they join one class) until nothing breaks; (passes, table cost). None where the exact step would
        have to pick among the remaining classes (its tie order is the summary's): the caller falls back."""
        rows, counts = self.snapshot(levels)
        rows = rows.copy()
        suppressed = np.zeros(len(rows), dtype=bool)
        missing = np.array([d.missing for d in self.problem.domains], dtype=np.int64)
        for _ in range(rounds):
            cls, sizes, bad = self._classes(rows, counts)
            if not bad.any():
                cost = sum(float(counts @ c[rows[:, j]]) for j, c in enumerate(costs.costs))
                return True, cost
            new = bad[cls] & ~suppressed
            if not new.any():
                return None
            suppressed |= new
            if int(counts[suppressed].sum()) > budget:
                return False, np.inf
            rows[suppressed, :self.q] = missing
        return None

    def _classes(self, rows: np.ndarray, counts: np.ndarray):
        key = rows[:, :self.q] @ self.strides[:self.q]
        cls, uniques = pd.factorize(key)
        sizes = np.bincount(cls, weights=counts, minlength=len(uniques))
        bad = sizes < self.k
        single = len({col for col, _ in self.ldiv}) == 1  # rows are distinct (class, sensitive) pairs
        for col, l in self.ldiv:
            if single:
                distinct = np.bincount(cls, minlength=len(uniques))
            else:
                pair = cls.astype(np.int64) * int(self.radices[col]) + rows[:, col]
                first = np.flatnonzero(~pd.Series(pair).duplicated().to_numpy())
                distinct = np.bincount(cls[first], minlength=len(uniques))
            bad |= ~reaches(distinct.astype(float), l)
        return cls, sizes, bad
