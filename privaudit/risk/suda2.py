"""SUDA2: minimal sample uniques, SUDA scores, DIS-SUDA scores and the contribution of each variable.

Definitions (Elliot, Manning & Ford 2002, section 2; Manning, Haglin & Keane 2008, sections 2-3)
------------------------------------------------------------------------------------------------
The released table has M key (quasi-identifier) variables. For a record r and a set S of key variables,
r is *sample unique on S* when no other record has r's values on every variable of S. A *minimal sample
unique* (MSU) of r is a set S on which r is sample unique while r is not unique on any proper subset of S.
Uniqueness is monotone (a superset of a unique set is unique), so S is an MSU of r iff r is unique on S
and on none of the |S| subsets S minus one variable. A record with at least one MSU is a *special
unique*. A missing value (as sdcMicro's ``missing``) is never part of an MSU and matches no value: a
record missing variable v has no MSU containing v, and is not counted by any combination containing v.

SUDA score (Elliot et al. 2002, section 3; sdcMicro ``suda2(original_scores = TRUE)``, the default):
each MSU of size k adds

    w(k) = prod_{i=k}^{min(m, M-1)} (M - i)        (an empty product is 1)

to the record's score, where m is the largest MSU size searched (``max_size``; sdcMicro always searches
every size, m = M, which gives w(k) = (M - k)!). Small MSUs weigh more: fewer facts single the record out.
With ``original_scores=False`` the weights are the IHSN variant sdcMicro used before 5.0.3,
w(k) = (2^(M-k) - 1) * k! (M-k)! / M!. Like sdcMicro, fewer than 3 key variables count as M = 3 in
the weights and in Q below (sdcMicro pads the data with constant dummy columns, which hold no MSU).

Contribution of a variable (sdcMicro ``attribute_contributions``): each MSU of size k of a record adds
w(k) to every variable it contains; a variable's contribution is the sum over records divided by the
sum of the scores, in percent. Per record, ``contributionPercent[r, v]`` is that record's sum divided by
its score. Variables of an MSU of size k each get the whole w(k), so contributions add up to more than
100 % when MSUs have several variables.

DIS-SUDA score (Elliot, Manning, Mayes, Gurd & Bane 2005, "SUDA: A Program for Detecting Special
Uniques", section 4; formula of sdcMicro's ``src/Suda2.h``): with f the sampling fraction
(``dis_fraction``, 0.01 by default), U the records unique on all M variables, P the records in pairs
(classes of exactly two records on all M variables), Dis = U f / (U f + P (1 - f)),
Q = 1 + (8 - M)/20 and A = sum over records with score s_j > 0 of s_j^(-Q),

    DIS(r) = 1 / (1 + (U / Dis - U) / (s_r^Q A))   for s_r > 0, else 0.

Since U / Dis - U = P (1 - f) / f, this is computed as 1 / (1 + P (1 - f) / (f s_r^Q A)), which is the
same number (up to sdcMicro's single-precision Dis). sdcMicro counts U as the records alone in their
bucket of a 16-bit hash of the key; when no unique record is alone in its bucket (large tables) its
DIS scores are NaN, whereas here they are finite.

Algorithm
---------
A depth-first search over the subsets of variables, each visited after all its subsets one variable
smaller (subsets are visited in lexicographic order of their variables listed in decreasing order;
a child adds a variable smaller than all of the parent's), in the spirit of SUDA2's recursion
(Manning et al. 2008, section 4) but vectorised over records:

* the table is first reduced to its distinct key rows; only rows of a single record (the sample uniques
  on all M variables) can have an MSU (a record with a twin is never unique);
* for each subset S the search keeps A(S), the candidate rows *not* unique on S. The candidates of
  S = S' + {u} are the rows of A(S - {v}) for every v in S (and not missing u): Apriori pruning; a subset
  with no candidate is not expanded;
* uniqueness on S is counted only over R(S'), the rows sharing their S' values with a row of A(S')
  (any record matching a candidate on S matches it on S'), with group ids extended one variable at a
  time (a multiply-add and a ``bincount``), so deep levels touch few rows.

Each MSU is found once, when its set is visited. ``tests/test_suda2.py`` (a brute force, record by record)
and ``benchmarks/bench_suda2.py`` (an exhaustive search over every subset) check the search.

References: M. J. Elliot, A. M. Manning, R. W. Ford, "A computational algorithm for handling the special
uniques problem", Int. J. Uncertainty, Fuzziness and Knowledge-Based Systems 10(5), 2002, 493-509;
M. J. Elliot, A. Manning, K. Mayes, J. Gurd, M. Bane, "SUDA: A Program for Detecting Special Uniques",
Joint UNECE/Eurostat work session on statistical data confidentiality, 2005; A. M. Manning, D. J. Haglin,
J. A. Keane, "A recursive search algorithm for statistical disclosure assessment", Data Min. Knowl.
Disc. 16, 2008, 165-196; sdcMicro ``suda2`` (Templ, Kowarik & Meindl, J. Stat. Softw. 67(4), 2015,
section 3.3; Templ, Statistical Disclosure Control for Microdata, Springer 2017, section 3.6).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

__all__ = ["SudaResult", "suda2", "suda_weights", "dis_scores"]

#: Largest dense key space (groups x values) counted with ``bincount``; larger ones are hashed.
_DENSE_LIMIT = 1 << 20


@dataclass(frozen=True)
class SudaResult:
    """SUDA2 figures of a table, per record in input order and in total.

    Attributes:
        scores: SUDA score per record (0 for a record with no MSU).
        dis_scores: DIS-SUDA score per record.
        msu_counts: number of MSUs per record.
        min_msu_size: size of the record's smallest MSU (0: none).
        msus_by_size: number of MSUs of each size 1..max_size over the table.
        contributions: percent of the total score contributed by each variable (sdcMicro's
            ``attribute_contributions``; 0 when no record has an MSU).
        record_contributions: per record and variable, the variable's part of the record's score
            (sdcMicro's ``contributionPercent``), when asked for; else None.
        weights: w(k) for k = 1..max_size.
        sample_uniques: records unique on all variables (U); pairs: records in classes of two (P).
        max_size: largest MSU size searched; subsets_visited: subsets of variables whose uniques were counted.
    """

    scores: np.ndarray
    dis_scores: np.ndarray
    msu_counts: np.ndarray
    min_msu_size: np.ndarray
    msus_by_size: np.ndarray
    contributions: np.ndarray
    weights: np.ndarray
    sample_uniques: int
    pairs: int
    max_size: int
    dis_fraction: float
    subsets_visited: int
    record_contributions: np.ndarray | None = field(default=None, repr=False)


def suda_weights(n_vars: int, max_size: int | None = None, original_scores: bool = True) -> np.ndarray:
    """w(k) for k = 1..max_size (see the module docstring); fewer than 3 variables count as 3."""
    m_att = max(int(n_vars), 3)
    top = m_att if max_size is None else int(max_size)
    sizes = range(1, (n_vars if max_size is None else min(int(max_size), n_vars)) + 1)
    if original_scores:
        last = min(top, m_att - 1)
        return np.array([float(math.prod(m_att - i for i in range(k, last + 1))) for k in sizes])
    return np.array(
        [
            (2.0 ** (m_att - k) - 1) * math.factorial(k) * math.factorial(m_att - k) / math.factorial(m_att)
            for k in sizes
        ]
    )


def dis_scores(scores: np.ndarray, n_vars: int, sample_uniques: int, pairs: int, dis_fraction: float) -> np.ndarray:
    """DIS-SUDA scores from SUDA scores (module docstring; sdcMicro's formula)."""
    scores = np.asarray(scores, dtype=float)
    out = np.zeros(len(scores))
    positive = scores > 0
    if not positive.any() or sample_uniques == 0:
        return out
    q = 1.0 + (8.0 - max(int(n_vars), 3)) / 20.0
    powered = scores[positive] ** q
    adj = float(np.sum(1.0 / powered))
    f = float(dis_fraction)
    excess = pairs * (1.0 - f) / f  # = U / Dis - U
    out[positive] = 1.0 / (1.0 + excess / (powered * adj))
    return out


def _dense(values: np.ndarray) -> tuple[np.ndarray, int]:
    """Codes 0..c-1 of an integer column whose missing values are negative; missing becomes code c
    (a value of its own, never a candidate's). Returns the codes and the number of codes."""
    values = np.asarray(values)
    missing = values < 0
    if values.dtype.kind in "iu" and len(values) and not missing.any() and int(values.max()) < 4 * len(values) + 16:
        present = np.zeros(int(values.max()) + 1, dtype=bool)
        present[values] = True
        remap = np.cumsum(present) - 1
        return remap[values].astype(np.int64), int(present.sum())
    codes, uniques = pd.factorize(np.where(missing, -1, values), sort=True)
    if missing.any():
        # -1 sorts first: shift it to the end so that real values keep codes 0..c-1
        codes = codes - 1
        codes[missing] = len(uniques) - 1
    return codes.astype(np.int64), max(len(uniques), 1)


def _combine(gid: np.ndarray, n_groups: int, codes: np.ndarray, n_codes: int) -> tuple[np.ndarray, int]:
    """Group ids of (gid, codes) pairs: ``gid * n_codes + codes``, or its hash codes when that space is
    large. Ids are in 0..n-1 but not necessarily all used."""
    if n_groups * n_codes <= max(_DENSE_LIMIT, 2 * len(gid)) and n_groups * n_codes < (1 << 62):
        return gid * n_codes + codes, n_groups * n_codes
    key = gid * n_codes + codes if n_groups * n_codes < (1 << 62) else None
    if key is None:  # pragma: no cover - needs > 2^62 groups x values
        key = pd.MultiIndex.from_arrays([gid, codes])
    ids, uniques = pd.factorize(key)
    return ids.astype(np.int64), len(uniques)


def _checked(codes: np.ndarray, max_size: int | None, dis_fraction: float) -> tuple[np.ndarray, int]:
    """The code matrix as an array, and the largest MSU size searched; one line for a bad argument."""
    codes = np.asarray(codes)
    if codes.ndim != 2:
        raise ValueError("codes must be a 2-dimensional (records x variables) array")
    n, m = codes.shape
    if n == 0:
        raise ValueError("SUDA2 needs at least one record")
    if m == 0:
        raise ValueError("SUDA2 needs at least one variable")
    if not 0 < dis_fraction <= 1:
        raise ValueError(f"dis_fraction must be in (0, 1], not {dis_fraction}")
    top = m if max_size is None else int(max_size)
    if top < 1:
        raise ValueError(f"max_size must be at least 1, not {max_size}")
    return codes, min(top, m)


@dataclass
class _DistinctRows:
    """The table's distinct rows (the key on all variables): per variable their dense codes (missing as a
    code of its own), whether the value is present, and the number of codes; each record's distinct row
    (``inverse``) and each distinct row's multiplicity."""

    codes: list[np.ndarray]
    present: list[np.ndarray]
    cards: list[int]
    inverse: np.ndarray
    mult: np.ndarray

    @classmethod
    def of(cls, codes: np.ndarray) -> _DistinctRows:
        n, m = codes.shape
        cols, cards, present = [], [], []
        for j in range(m):
            c, card = _dense(codes[:, j])
            cols.append(c)
            cards.append(card)
            present.append(~(codes[:, j] < 0))
        gid, ng = np.zeros(n, dtype=np.int64), 1
        for j in range(m):
            gid, ng = _combine(gid, ng, cols[j], cards[j])
        _, first, inverse, mult = np.unique(gid, return_index=True, return_inverse=True, return_counts=True)
        return cls([c[first] for c in cols], [p[first] for p in present], cards, inverse.reshape(-1), mult)


class _MsuSearch:
    """The depth-first search for minimal sample uniques over the distinct rows (Manning, Haglin & Keane
    2008: a child subset adds a variable smaller than all of its parent's; a row is a candidate on a subset
    only when it is not unique on every subset one smaller), with the per-row figures it accumulates."""

    def __init__(self, rows: _DistinctRows, weights: np.ndarray, top: int, record_contributions: bool):
        d, m = len(rows.mult), len(rows.cards)
        self.rows, self.weights, self.top = rows, weights, top
        self.index_type = np.int32 if d < (1 << 31) else np.int64
        self.candidates = np.flatnonzero(rows.mult == 1).astype(self.index_type)
        self.score = np.zeros(d)
        self.msu_count = np.zeros(d, dtype=np.int32)
        self.min_size = np.zeros(d, dtype=np.int8 if m < 127 else np.int16)
        self.by_size = np.zeros(top, dtype=np.int64)
        self.contrib_total = np.zeros(m)
        self.contrib = np.zeros((d, m)) if record_contributions else None
        self.not_unique: dict[int, np.ndarray] = {}  # subset bitmask -> sorted candidate rows not unique on it
        self.visited = 0
        self.flag = np.zeros(d, dtype=bool)  # scratch: membership of rows in a set (reset after each use)
        self.key_at = np.zeros(d, dtype=np.int64)  # scratch: group id of each row of R (only R's entries are read)

    def record(self, msu: np.ndarray, members: list[int]) -> None:
        k = len(members)
        w = self.weights[k - 1]
        self.score[msu] += w
        self.msu_count[msu] += 1
        current = self.min_size[msu]
        self.min_size[msu] = np.where((current == 0) | (current > k), k, current)
        self.by_size[k - 1] += len(msu)
        self.contrib_total[members] += w * len(msu)
        if self.contrib is not None:
            self.contrib[np.ix_(msu, members)] += w

    def _candidates(self, members_p: list[int], mask_p: int, mask: int, u: int) -> np.ndarray | None:
        """The rows that may be MSUs on the subset ``mask`` (its parent ``mask_p`` plus variable ``u``)."""
        present = self.rows.present[u]
        if not members_p:
            return self.candidates[present[self.candidates]]
        cand = self.not_unique.get(mask_p)
        if cand is None or not len(cand):
            return None
        cand = cand[present[cand]]
        for v in members_p:
            if not len(cand):
                break
            other = self.not_unique.get(mask & ~(1 << v))
            if other is None or not len(other):
                return None
            self.flag[other] = True
            cand = cand[self.flag[cand]]
            self.flag[other] = False
        return cand

    def visit(self, parent: tuple, u: int) -> tuple | None:
        """Add variable ``u`` to the subset of stack frame ``parent``: record the rows unique on it, and return
        the child's frame (members in decreasing order, bitmask, rows R, group ids of R, number of ids), or
        None when no row can be an MSU of a larger subset."""
        members_p, mask_p, rows_p, gid_p, ng_p = parent
        members, mask = members_p + [u], mask_p | (1 << u)
        cand = self._candidates(members_p, mask_p, mask, u)
        if cand is None or not len(cand):
            return None
        self.visited += 1
        key, nk = _combine(gid_p, ng_p, self.rows.codes[u][rows_p], self.rows.cards[u])
        count = np.bincount(key, minlength=nk)
        if len(members) > 1:
            self.key_at[rows_p] = key
            ck = self.key_at[cand]
        else:
            ck = key[cand]
        unique = count[ck] == 1
        if unique.any():
            self.record(cand[unique], members)
        rest = cand[~unique]
        if not len(rest) or len(members) >= self.top:
            return None
        self.not_unique[mask] = rest
        mark = np.zeros(nk, dtype=bool)
        mark[ck[~unique]] = True
        keep = mark[key]
        remap = np.cumsum(mark) - 1
        return members, mask, rows_p[keep], remap[key[keep]], int(mark.sum())

    def run(self) -> _MsuSearch:
        """Depth-first: a child adds a variable smaller than all of its parent's."""
        d = len(self.rows.mult)
        root = ([], 0, np.arange(d, dtype=self.index_type), np.zeros(d, dtype=np.int64), 1)
        stack: list[tuple[tuple, int]] = []
        for v in range(len(self.rows.cards)):
            frame = self.visit(root, v)
            if frame is not None:
                stack.append((frame, 0))
            while stack:
                frame, next_u = stack.pop()
                smallest = frame[0][-1]
                if next_u >= smallest:
                    continue
                stack.append((frame, next_u + 1))
                child = self.visit(frame, next_u)
                if child is not None:
                    stack.append((child, 0))
        return self


def suda2(
    codes: np.ndarray,
    *,
    max_size: int | None = None,
    dis_fraction: float = 0.01,
    original_scores: bool = True,
    record_contributions: bool = False,
) -> SudaResult:
    """SUDA2 on an (records x variables) integer matrix of value codes; negative codes are missing.

    ``max_size``: largest MSU size searched (default: the number of variables, as sdcMicro).
    ``dis_fraction``: sampling fraction f of the DIS-SUDA scores, in (0, 1] (sdcMicro's DisFraction).
    ``original_scores``: Elliot's weights (True, sdcMicro's default) or the IHSN ones.
    ``record_contributions``: also return the per-record contributions (an n x M float matrix).
    """
    codes, top = _checked(codes, max_size, dis_fraction)
    m = codes.shape[1]
    weights = suda_weights(m, max_size, original_scores)
    rows = _DistinctRows.of(codes)
    sample_uniques = int(np.count_nonzero(rows.mult == 1))
    pairs = int(2 * np.count_nonzero(rows.mult == 2))
    found = _MsuSearch(rows, weights, top, record_contributions).run()
    inverse, score = rows.inverse, found.score
    scores = score[inverse]
    total = float(score.sum())
    contributions = 100.0 * found.contrib_total / total if total > 0 else np.zeros(m)
    per_record = None
    if found.contrib is not None:
        with np.errstate(invalid="ignore", divide="ignore"):
            share = np.where(score[:, None] > 0, found.contrib / np.where(score > 0, score, 1.0)[:, None], 0.0)
        per_record = share[inverse]
    return SudaResult(
        scores=scores,
        dis_scores=dis_scores(scores, m, sample_uniques, pairs, dis_fraction),
        msu_counts=found.msu_count[inverse],
        min_msu_size=found.min_size[inverse],
        msus_by_size=found.by_size,
        contributions=contributions,
        weights=weights,
        sample_uniques=sample_uniques,
        pairs=pairs,
        max_size=top,
        dis_fraction=float(dis_fraction),
        subsets_visited=found.visited,
        record_contributions=per_record,
    )
