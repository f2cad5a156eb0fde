"""Class counts of lattice nodes rolled up from finer nodes (Flash's reuse of a node's result for its
successors; Kohlmayer, Prasser, Eckert, Kemper & Kuhn, "Flash: efficient, stable and optimal k-anonymity",
SocialCom/PASSAT 2012, Section IV; ARX's "snapshots").

The tagging phase of :class:`~privaudit.remediation.generalization.lattice.LatticeSearch` asks, for many
level vectors, how many records sit in classes breaking the monotone checks. Building the audit summary of
the whole table for each node costs O(n log n) on the records. Here the table is first reduced to its
*snapshot*: the distinct rows of (QI node ids, sensitive codes) with their record counts. A node's snapshot
is obtained from the snapshot of any evaluated node below it (componentwise smaller levels) by generalizing
its few rows and merging equal ones (hash factorisation of packed keys, O(rows):
:mod:`privaudit.remediation.generalization.packed`), since generalization only ever merges classes. From a
snapshot, class sizes are weighted counts and distinct l-diversity is the number of distinct sensitive
codes per class.

Used only where it gives exactly the verdict of the re-audit: the tagging checks are k-anonymity and
distinct l-diversity and a missing QI value is a value of its own (``missing_qi: value``). A check on an
attacker scenario (``checks[].quasi_identifiers``) groups the snapshot's rows by the scenario's QI digits
alone, as the audit builds the scenario's classes; a missing sensitive value is a code of its own that
distinct counts leave out, as the summary does. The exact step with suppression runs on snapshots only
without either (otherwise on the records). The QI digits and the sensitive digits are packed in two int64
keys, each of which must fit alone (13 QIs with their hierarchies' nodes already take about 2^52). Otherwise
the search falls back to the audit summary. Property tests check both paths agree.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
import pandas as pd

from privaudit.common.thresholds import reaches
from privaudit.remediation.generalization.packed import column, generalized_key, key_steps, merge, pack

#: evaluated snapshots kept for roll-ups (least recently used dropped)
CACHE = 256


def _codes(values: pd.Series) -> tuple[np.ndarray, int]:
    if isinstance(values.dtype, pd.CategoricalDtype):
        return values.cat.codes.to_numpy().astype(np.int64), len(values.cat.categories)
    codes, uniques = pd.factorize(values, use_na_sentinel=True)
    return codes.astype(np.int64), len(uniques)


@dataclass(frozen=True)
class Snapshot:
    """Distinct rows of one node as packed keys (:mod:`~privaudit.remediation.generalization.packed`): the QI
    part ``qkey`` (equal iff same class), the sensitive part ``skey`` (None without sensitive columns), and
    each row's record ``counts``."""

    qkey: np.ndarray
    skey: np.ndarray | None
    counts: np.ndarray
    #: class of each row (numbered 0 .. n_classes - 1) when the roll-up found it; None: factorize ``qkey``
    cls: np.ndarray | None = None
    n_classes: int = 0

    def __len__(self) -> int:
        return len(self.counts)


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
        #: per snapshot column of a sensitive column: the code standing for a missing value (-1: none missing)
        self.absent: dict[int, int] = {}
        #: per attacker scenario (None: every quasi-identifier), its k and (snapshot column, l) pairs
        scenarios: dict[tuple[int, ...] | None, tuple[int, list[tuple[int, float]]]] = {}
        position = {d.column: j for j, d in enumerate(problem.domains)}
        for check in checks:  # counted here only when the check's violations are exactly sizes and distinct counts
            rule = check.assessor.rule(check.params, policy)
            if rule is None or not rule.exact:
                return
            subset = getattr(check, "quasi_identifiers", None)
            if subset and any(c not in position for c in subset):
                return
            scenario = None if not subset or len(set(subset)) == q else tuple(sorted(position[c] for c in subset))
            k, ldiv = scenarios.setdefault(scenario, (1, []))
            if rule.min_size is not None:
                k = max(k, int(rule.min_size))
            for name_s, least in rule.min_distinct.items():
                if name_s not in sensitive:
                    codes, n = _codes(problem.table[name_s])
                    sensitive[name_s] = q + len(extra)
                    if (codes < 0).any():  # a missing value is no value of the class (the summary leaves it out)
                        self.absent[q + len(extra)] = n
                        codes = np.where(codes < 0, n, codes)
                        n += 1
                    extra.append(codes)
                    radices.append(max(n, 1))
                ldiv.append((sensitive[name_s], float(least)))
            scenarios[scenario] = (k, ldiv)
        self.k, self.ldiv = scenarios.get(None, (1, []))
        self.scenarios = scenarios
        #: classes on every quasi-identifier and no missing sensitive value: the roll-up's own fast paths
        self.plain = list(scenarios) == [None] and not self.absent
        # the QI digits and the sensitive digits are packed apart (qkey, skey), each in an int64
        n = len(problem.table)
        self.sensitive_span = int(np.prod(radices[q:])) if extra else 1
        if (
            float(np.prod(np.array(radices[:q], dtype=float))) >= 2.0**62
            or float(max(n, 1)) * float(np.prod(np.array(radices[q:], dtype=float))) >= 2.0**62
        ):
            return
        self.radices = np.array(radices, dtype=np.int64)
        self.strides = np.array(
            [int(np.prod(radices[j + 1 : q])) for j in range(q)]
            + [int(np.prod(radices[j + 1 :])) for j in range(q, len(radices))],
            dtype=np.int64,
        )
        self.q = q
        #: one sensitive column (the last digit of a packed row, stride 1): roll-ups merge by class first
        self.one_sensitive = len(extra) == 1 and self.plain
        self.narrow = np.int32 if len(problem.table) < 2**31 else np.int64  # codes, counts, class ids
        # per QI and level: how generalizing a node changes a packed key (packed.py)
        self.steps = [key_steps(d, int(self.strides[j])) for j, d in enumerate(problem.domains)]
        self.missing_key = int(sum(d.missing * int(self.strides[j]) for j, d in enumerate(problem.domains)))
        qkey = pack([problem.nodes[:, j] for j in range(q)], [int(x) for x in self.strides[:q]], n)
        skey = pack(extra, [int(x) for x in self.strides[q:]], n) if extra else None
        first, merged = merge(self._row_key(qkey, skey), np.ones(n, dtype=np.int64))
        self.bottom = Snapshot(qkey[first], None if skey is None else skey[first], merged)
        # the cache: snapshots by level vector (least recently used first), and per slot its levels and size
        # as arrays, so that finding the smallest finer snapshot is one vectorised comparison
        self.cache: OrderedDict[tuple[int, ...], Snapshot] = OrderedDict()
        self.slot: dict[tuple[int, ...], int] = {}
        self.slot_levels = np.full((CACHE, q), np.iinfo(np.int64).max, dtype=np.int64)
        self.slot_sizes = np.full(CACHE, np.iinfo(np.int64).max, dtype=np.int64)
        self._store((0,) * q, self.bottom)
        self.supported = True

    def snapshot(self, levels) -> Snapshot:
        """Distinct (QI nodes at ``levels``, sensitive codes) rows and their record counts."""
        levels = tuple(int(x) for x in levels)
        hit = self.cache.get(levels)
        if hit is not None:
            self.cache.move_to_end(levels)
            return hit
        levels_array = np.array(levels, dtype=np.int64)
        below = (self.slot_levels <= levels_array).all(axis=1)
        slot = int(np.argmin(np.where(below, self.slot_sizes, np.iinfo(np.int64).max)))  # smallest finer snapshot
        base_levels = tuple(int(x) for x in self.slot_levels[slot])
        base = self.cache[base_levels]
        changes = [
            (self.steps[j][level], int(self.strides[j]), int(self.radices[j]))
            for j, level in enumerate(levels)
            if level != base_levels[j]
        ]
        qkey = generalized_key(base.qkey, changes)
        snap = self._merge_by_class(qkey, base) if self.one_sensitive else None
        if snap is None:
            first, merged = merge(self._row_key(qkey, base.skey), base.counts)
            snap = Snapshot(qkey[first], None if base.skey is None else base.skey[first], merged)
        self._store(levels, snap)
        return snap

    def _row_key(self, qkey: np.ndarray, skey: np.ndarray | None) -> np.ndarray:
        """One int64 per row, equal iff the rows' QI and sensitive digits are: the QI key's code (in order of
        first appearance) packed with the sensitive key (the two need not fit one int64 together)."""
        if skey is None:
            return qkey
        codes, _ = pd.factorize(qkey)
        return codes.astype(np.int64) * np.int64(self.sensitive_span) + skey.astype(np.int64)

    def _store(self, levels: tuple[int, ...], snap: Snapshot) -> None:
        if len(self.cache) >= CACHE:  # drop the least recently used, never the bottom
            oldest = next(iter(self.cache))
            if oldest == (0,) * self.q:
                self.cache.move_to_end(oldest)
                oldest = next(iter(self.cache))
            del self.cache[oldest]
            free = self.slot.pop(oldest)
        else:
            free = len(self.cache)
        self.cache[levels] = snap
        self.slot[levels] = free
        self.slot_levels[free] = levels
        self.slot_sizes[free] = len(snap)

    def _merge_by_class(self, qkey: np.ndarray, base: Snapshot) -> Snapshot | None:
        """The merged snapshot when there is one sensitive column (its code is the whole ``skey``): rows are
        numbered by class first (one factorisation), then (class, sensitive code) pairs are merged in a
        dense count table, which also gives each new row its class. None when that table would be large."""
        cls_in, classes = pd.factorize(qkey)
        radix = int(self.radices[-1])
        if len(classes) * radix > 8 * len(qkey) + (1 << 16):
            return None
        pair = cls_in.astype(np.int64) * radix + base.skey
        weights = np.bincount(pair, weights=base.counts, minlength=len(classes) * radix)
        rows = np.flatnonzero(weights)
        cls = rows // radix
        # narrow dtypes: cached snapshots are fresh memory (architecture.md), and codes and counts fit in 32 bits
        narrow = self.narrow
        return Snapshot(
            classes[cls],
            (rows - cls * radix).astype(narrow),
            weights[rows].astype(narrow),
            cls.astype(narrow),
            len(classes),
        )

    def violating_records(self, levels) -> int:
        """Records in classes breaking k-anonymity or a distinct l-diversity check at ``levels``."""
        snap = self.snapshot(levels)
        if not self.plain:
            return self._scenario_violating(snap)
        if snap.skey is None:  # no sensitive column: a snapshot's rows are its classes already
            return int(snap.counts[snap.counts < self.k].sum())
        if snap.cls is not None:  # rows are distinct (class, sensitive code) pairs of known classes
            sizes = np.bincount(snap.cls, weights=snap.counts, minlength=snap.n_classes)
            bad = sizes < self.k
            distinct = np.bincount(snap.cls, minlength=snap.n_classes).astype(float)
            for _, l in self.ldiv:
                bad |= ~reaches(distinct, l)
            return int(sizes[bad].sum())
        cls, sizes, bad = self._classes(snap.skey, snap.counts, snap.qkey)
        return int(sizes[bad].sum())

    def exact_cost(self, levels, costs, budget: int, rounds: int) -> tuple[bool, float] | None:
        """:meth:`LatticeSearch.exact` on the snapshot: violating classes suppressed (every QI missing, so
        they join one class) until nothing breaks; (passes, table cost). None where the exact step would
        have to pick among the remaining classes (its tie order is the summary's): the caller falls back."""
        found = self.exact_suppression(levels, costs, budget, rounds)
        return None if found is None else found[:2]

    def exact_suppression(self, levels, costs, budget: int, rounds: int) -> tuple[bool, float, np.ndarray] | None:
        """:meth:`exact_cost` and the packed QI keys (at ``levels``) of the classes it suppresses (None, the
        caller falling back to the records, with attacker scenarios or missing sensitive values)."""
        if not self.plain:
            return None
        snap = self.snapshot(levels)
        counts, qkey = snap.counts, snap.qkey.copy()
        suppressed = np.zeros(len(counts), dtype=bool)
        for _ in range(rounds):
            cls, sizes, bad = self._classes(snap.skey, counts, qkey, distinct_rows=not suppressed.any())
            if not bad.any():
                cost = sum(
                    float(counts @ c[column(qkey, int(self.strides[j]), int(self.radices[j]))])
                    for j, c in enumerate(costs.costs)
                )
                return True, cost, np.unique(snap.qkey[suppressed])
            new = bad[cls] & ~suppressed
            if not new.any():
                return None
            suppressed |= new
            if int(counts[suppressed].sum()) > budget:
                return False, np.inf, np.unique(snap.qkey[suppressed])
            qkey[suppressed] = self.missing_key  # every QI missing
        return None

    def _scenario_violating(self, snap: Snapshot) -> int:
        """Records in classes breaking a check, each check on its scenario's classes (the snapshot's QI digits
        of the scenario packed alone: its classes are unions of the snapshot's), as
        :func:`~privaudit.plugin.remediator.class_violations` maps a scenario's violations to the records;
        distinct values counted without the code of a missing value."""
        qkey = snap.qkey
        row_bad = np.zeros(len(snap), dtype=bool)
        for scenario, (k, ldiv) in self.scenarios.items():
            key = qkey
            if scenario is not None:
                strides = [int(self.strides[j]) for j in scenario]
                digits = [
                    column(qkey, stride, int(self.radices[j])) for j, stride in zip(scenario, strides, strict=True)
                ]
                key = pack(digits, strides, len(qkey))
            cls, uniques = pd.factorize(key)
            sizes = np.bincount(cls, weights=snap.counts, minlength=len(uniques))
            bad = sizes < k
            for col, l in ldiv:
                radix = int(self.radices[col])
                codes = column(snap.skey, int(self.strides[col]), radix)
                present = codes != self.absent.get(col, -1)
                pairs = pd.unique(cls[present].astype(np.int64) * radix + codes[present])
                distinct = np.bincount(pairs // radix, minlength=len(uniques))
                bad |= ~reaches(distinct.astype(float), l)
            row_bad |= bad[cls]
        return int(snap.counts[row_bad].sum())

    def record_keys(self, nodes: np.ndarray) -> np.ndarray:
        """Packed QI key of every record of an (n, q) node matrix (the keys :meth:`exact_suppression` gives)."""
        return pack([nodes[:, j] for j in range(self.q)], [int(x) for x in self.strides[: self.q]], len(nodes))

    def _classes(self, skey: np.ndarray | None, counts: np.ndarray, qkey: np.ndarray, distinct_rows: bool = True):
        """(class of each row, class sizes, class breaks a check); ``skey`` holds the sensitive codes.
        ``distinct_rows``: no two rows share QIs and sensitive codes (true of a snapshot; not once suppressed
        rows have joined the class of missing values)."""
        cls, uniques = pd.factorize(qkey)
        sizes = np.bincount(cls, weights=counts, minlength=len(uniques))
        bad = sizes < self.k
        # one sensitive column and distinct rows: rows are distinct (class, sensitive) pairs
        single = distinct_rows and len({col for col, _ in self.ldiv}) == 1
        for col, l in self.ldiv:
            if single:
                distinct = np.bincount(cls, minlength=len(uniques))
            else:
                pair = cls.astype(np.int64) * int(self.radices[col]) + column(
                    skey, int(self.strides[col]), int(self.radices[col])
                )
                first = np.flatnonzero(~pd.Series(pair).duplicated().to_numpy())
                distinct = np.bincount(cls[first], minlength=len(uniques))
            bad |= ~reaches(distinct.astype(float), l)
        return cls, sizes, bad
