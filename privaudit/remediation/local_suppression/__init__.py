"""Local suppression for k-anonymity: blank the fewest, least important quasi-identifier cells.

The peer is sdcMicro's ``localSuppression`` (``R/localSuppression.R``: ``localSuppressionWORK``,
``suppSubset``; ``src/calcSuppInds.cpp``: ``cpp_calcSuppInds``), with its semantics kept:

* a record's class count f_k counts every record that agrees with it wherever both are present (a missing
  value is a wildcard, sdcMicro's ``alpha = 1``; under ``missing_qi: value`` a missing value is a value
  of its own instead);
* ``importance`` ranks the key variables, 1 the most important (suppressed last); without one, sdcMicro's
  default: the variable with more categories is the less important;
* ``combs``: k-anonymity for every subset of that many key variables in turn (``utils::combn``), each with
  its own k, each subset's importances ranked within it (``rank(importance[kV], ties.method = "min")``).

Where sdcMicro gives every record of a violating class one cell per pass (the least important variable in
which it differs from a nearest neighbour, ``cpp_calcSuppInds``) without recounting between records, the
search here recounts between rounds and, in each round, looks ahead one cell: for every violating record
and every candidate variable it counts the records the record would match with that cell blanked (g_c),
and blanks the least important variable that gains it matches (among equally important ones, one that
reaches k alone, then the largest gain); a record whose only gaining cell is not its least important one
waits while others blank theirs, since their wildcards may lift it. Rounds take the violating records of least f_k first, since a blanked rare record
becomes a wildcard that lifts the records near it, and in each group of records that would merge on the
same blanked variable the largest part is spared when the others' blanking already lifts it to k. Every
step is vectorised over the distinct rows of the quasi-identifiers.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

#: Rounds of the search before giving up (each blanks at least one cell while a record violates).
MAX_ROUNDS = 10_000


@dataclass
class SuppressionResult:
    """Which cells were blanked (``suppressed``, records x columns), and how the search went."""

    suppressed: np.ndarray
    rounds: int
    ok: bool
    notes: list[str] = field(default_factory=list)


def default_importance(codes: np.ndarray) -> np.ndarray:
    """sdcMicro's default importance (``localSuppressionWORK``): the key variables ranked by their number of
    categories, fewest first, so a variable with many categories is suppressed first."""
    counts = np.array([len(np.unique(col[col >= 0])) for col in codes.T])
    order = np.argsort(counts, kind="stable")
    importance = np.empty(len(counts), dtype=np.int64)
    importance[order] = np.arange(1, len(counts) + 1)
    return importance


def _keys(rows: np.ndarray, columns: np.ndarray, cards: np.ndarray) -> np.ndarray:
    """One int64 key per row over ``columns`` (missing, -1, is a code of its own), unique per combination:
    one matrix product when the mixed radix fits in 62 bits, else refactorised column by column."""
    radix = cards[columns] + 1
    if float(np.prod(radix.astype(np.float64))) < 2.0**62:
        weights = np.ones(len(columns), dtype=np.int64)
        if len(columns) > 1:
            weights[:-1] = np.cumprod(radix[::-1])[::-1][1:]
        return (rows[:, columns].astype(np.int64) + 1) @ weights
    key = np.zeros(len(rows), dtype=np.int64)
    span = 1
    for c in columns:
        r = int(cards[c]) + 1
        if span * r >= 1 << 62:
            key = pd.factorize(key)[0].astype(np.int64)
            span = int(key.max(initial=0)) + 1
        key *= r
        key += rows[:, c] + 1
        span *= r
    return key


class Counter:
    """Counts of matching data rows for query rows, the data side of each join kept for the next queries.

    With ``wildcard`` a missing value (-1) on either side matches anything (sdcMicro's f_k at ``alpha = 1``,
    ``freqCalc``); otherwise rows match when equal, missing included. The work is one sorted join per query
    missing-value pattern and set of columns the data rows share with it (data patterns missing the same
    observed columns joined together), each data side kept for the round's later queries."""

    def __init__(self, data: np.ndarray, weights: np.ndarray, cards: np.ndarray, wildcard: bool) -> None:
        self.data, self.weights, self.cards, self.wildcard = data, weights, cards, wildcard
        m = data.shape[1]
        self.bits = 1 << np.arange(m, dtype=np.int64)
        self.full = (1 << m) - 1
        pattern = (data < 0).astype(np.int64) @ self.bits if wildcard else np.zeros(len(data), dtype=np.int64)
        patterns, of = np.unique(pattern, return_inverse=True)
        members = np.split(np.argsort(of, kind="stable"), np.cumsum(np.bincount(of))[:-1])
        self.patterns = list(zip(patterns.tolist(), members, [float(weights[r].sum()) for r in members], strict=True))
        self.cache: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}
        self.groups: dict[int, dict] = {}

    def _side(self, d: int, rows: np.ndarray, shared: int) -> tuple[np.ndarray, np.ndarray]:
        found = self.cache.get((d, shared))
        if found is None:
            columns = np.flatnonzero(shared & self.bits)
            keys, inverse = np.unique(_keys(self.data[rows], columns, self.cards), return_inverse=True)
            found = (keys, np.bincount(inverse.ravel(), weights=self.weights[rows], minlength=len(keys)))
            self.cache[(d, shared)] = found
        return found

    def count(self, queries: np.ndarray) -> np.ndarray:
        """For each query row, the total weight of the data rows it matches."""
        out = np.zeros(len(queries), dtype=np.float64)
        if not len(queries) or not len(self.data):
            return out
        if not self.wildcard:
            (d, rows, _), shared = self.patterns[0], self.full
            keys, sums = self._side(d, rows, shared)
            return _lookup(keys, sums, _keys(queries, np.flatnonzero(shared & self.bits), self.cards))
        q_pattern = (queries < 0).astype(np.int64) @ self.bits
        q_patterns, q_of = np.unique(q_pattern, return_inverse=True)
        q_members = np.split(np.argsort(q_of, kind="stable"), np.cumsum(np.bincount(q_of))[:-1])
        for p, q_rows in zip(q_patterns.tolist(), q_members, strict=True):
            sub = queries[q_rows]
            observed = ~p & self.full
            for shared, side in self._sides(observed).items():
                if not shared:
                    out[q_rows] += side
                    continue
                keys, sums = side
                out[q_rows] += _lookup(keys, sums, _keys(sub, np.flatnonzero(shared & self.bits), self.cards))
        return out

    def _sides(self, observed: int) -> dict:
        """For a query observing ``observed``: per set of columns a data row shares with it, the sorted keys and
        weight sums of those data rows (data patterns missing the same columns within ``observed`` joined),
        or the total weight of rows sharing none."""
        found = self.groups.get(observed)
        if found is not None:
            return found
        rows_by: dict[int, list[np.ndarray]] = {}
        for d, d_rows, _ in self.patterns:
            rows_by.setdefault(observed & ~d, []).append(d_rows)
        found = {}
        for shared, parts in rows_by.items():
            rows = np.concatenate(parts)
            if not shared:
                found[shared] = float(self.weights[rows].sum())
                continue
            columns = np.flatnonzero(shared & self.bits)
            keys, inverse = np.unique(_keys(self.data[rows], columns, self.cards), return_inverse=True)
            found[shared] = (keys, np.bincount(inverse.ravel(), weights=self.weights[rows], minlength=len(keys)))
        self.groups[observed] = found
        return found


def _lookup(keys: np.ndarray, sums: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    pos = np.minimum(np.searchsorted(keys, wanted), len(keys) - 1)
    return np.where(keys[pos] == wanted, sums[pos], 0.0)


def match_counts(
    data: np.ndarray, weights: np.ndarray, queries: np.ndarray, cards: np.ndarray, wildcard: bool
) -> np.ndarray:
    """For each query row, the total weight of the data rows it matches (:class:`Counter`)."""
    return Counter(data, weights, cards, wildcard).count(queries)


def _distinct(codes: np.ndarray, cards: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct rows of ``codes``, each row's distinct row, and their counts."""
    ids, uniq = pd.factorize(_keys(codes, np.arange(codes.shape[1]), cards))
    first = np.full(len(uniq), len(ids), dtype=np.int64)
    np.minimum.at(first, ids, np.arange(len(ids)))
    return codes[first], ids, np.bincount(ids, minlength=len(uniq)).astype(np.float64)


def _choose(
    rows: np.ndarray, fk: np.ndarray, gains: np.ndarray, k: int, priority: np.ndarray, allowed: np.ndarray
) -> np.ndarray:
    """Per violating row, the column to blank, by importance first (sdcMicro's ``colIndsSorted``): the one of
    highest suppression ``priority`` (least important) among those whose blanking gains the row matches;
    among equally important ones, one whose blanking alone reaches k, then the largest gain. When no
    column gains, the highest-priority one still present; -1 when none is left."""
    present = (rows >= 0) & allowed[None, :]
    reach = present & (gains >= k)
    gain = present & (gains > fk[:, None])
    # score: by importance first among the columns that gain; reaching k breaks ties, then the gain itself
    score = gain * (len(priority) + 1) * 4 + priority[None, :] * 4 + reach * 2.0
    score = score + np.minimum(gains, k) / (k + 1)
    score[~present] = -np.inf
    choice = np.argmax(score, axis=1)
    choice[~present.any(axis=1)] = -1
    return choice


def _spare(rows: np.ndarray, fk: np.ndarray, w: np.ndarray, choice: np.ndarray, k: int, cards: np.ndarray):
    """Which chosen rows need not be blanked this round: in each group of rows blanking the same column and
    agreeing everywhere else, the heaviest row is spared when the others, once blanked, match it in enough
    numbers (its f_k plus their weight reaches k). Returns a boolean mask of rows to spare."""
    spare = np.zeros(len(rows), dtype=bool)
    masked = rows.copy()
    masked[np.arange(len(rows)), choice] = -1
    base = pd.factorize(_keys(masked, np.arange(rows.shape[1]), cards))[0].astype(np.int64)
    group = pd.factorize(base * len(cards) + choice)[0]
    total = np.bincount(group, weights=w)
    order = np.lexsort((-w, group))
    heaviest = order[np.r_[True, group[order][1:] != group[order][:-1]]]
    lifted = fk[heaviest] + total[group[heaviest]] - w[heaviest]
    ok = (lifted >= k) & (total[group[heaviest]] > w[heaviest])
    spare[heaviest[ok]] = True
    return spare


def _join_blanked(work: np.ndarray, rows: np.ndarray, row_of: np.ndarray, allowed: np.ndarray) -> bool:
    """When a missing value is a value of its own, the records blanked in every column they may be blanked in
    form one class, which only more such records can fill: the distinct row with the fewest cells left to
    blank joins it (every one of its records). False when no row is left to join."""
    left = ((rows >= 0) & allowed[None, :]).sum(axis=1)
    candidates = np.flatnonzero(left > 0)
    if not len(candidates):
        return False
    row = candidates[np.argmin(left[candidates])]
    hit = np.flatnonzero(row_of == row)
    columns = np.flatnonzero(allowed)
    work[np.ix_(hit, columns)] = -1
    return True


def suppress_for_k(
    codes: np.ndarray,
    k: int,
    priority: np.ndarray,
    *,
    wildcard: bool = True,
    allowed: np.ndarray | None = None,
    progress: Callable[[int], None] | None = None,
) -> SuppressionResult:
    """Blank cells of ``codes`` (records x key variables, -1 = missing) until every record's f_k reaches ``k``.

    ``priority`` per column: the higher, the earlier it is blanked (sdcMicro's importance read backwards,
    ``importanceI``); ``allowed`` the columns that may be blanked (default all). The input is not changed."""
    n, m = codes.shape
    allowed = np.ones(m, dtype=bool) if allowed is None else np.asarray(allowed, dtype=bool)
    work = codes.astype(np.int32, copy=True)
    cards = np.maximum(work.max(axis=0, initial=-1) + 1, 1).astype(np.int64)
    priority = np.asarray(priority, dtype=np.float64)
    notes: list[str] = []
    if n == 0 or m == 0:
        return SuppressionResult(np.zeros((n, m), dtype=bool), 0, True, notes)
    if n < k:
        notes.append(f"the table has {n} records, fewer than k = {k}")
        return SuppressionResult(np.zeros((n, m), dtype=bool), 0, False, notes)
    rounds = 0
    ok = False
    for rounds in range(1, MAX_ROUNDS + 1):
        rows, row_of, w = _distinct(work, cards)
        counter = Counter(rows, w, cards, wildcard)
        fk = counter.count(rows)
        bad = np.flatnonzero(fk < k)
        if not len(bad):
            ok = True
            break
        movable = ((rows[bad] >= 0) & allowed[None, :]).any(axis=1)
        if not movable.any():  # only fully blanked records are short (missing_qi: value): others must join
            if not _join_blanked(work, rows, row_of, allowed):
                notes.append("records still below k have no quasi-identifier left that may be suppressed")
                break
            continue
        bad = bad[movable]
        level = fk[bad].min()
        bad = bad[fk[bad] <= level]  # the rarest first: once blanked they lift the records near them
        gains = np.full((len(bad), m), -1.0)
        for c in range(m):
            if not allowed[c]:
                continue
            hypo = rows[bad].copy()
            present = hypo[:, c] >= 0
            hypo[:, c] = -1
            if present.any():
                gains[present, c] = counter.count(hypo[present])
        choice = _choose(rows[bad], fk[bad], gains, k, priority, allowed)
        # a row whose choice is not its least important cell waits while other rows blank theirs: their
        # wildcards may lift it (sdcMicro's pass updates its matrix record by record to the same effect)
        present = (rows[bad] >= 0) & allowed[None, :]
        least = np.where(present, priority[None, :], -np.inf).max(axis=1)
        cheap = (choice >= 0) & (priority[np.maximum(choice, 0)] >= least)
        if cheap.any() and not cheap.all():
            bad, choice = bad[cheap], choice[cheap]
        if wildcard and len(bad) > 1:
            spared = _spare(rows[bad], fk[bad], w[bad], choice, k, cards)
            bad, choice = bad[~spared], choice[~spared]
        blank = np.full(len(rows), -1, dtype=np.int64)
        blank[bad] = choice
        target = blank[row_of]
        hit = np.flatnonzero(target >= 0)
        work[hit, target[hit]] = -1
        if progress:
            progress(rounds)
    else:
        notes.append(f"stopped after {MAX_ROUNDS} rounds with records still below k")
    return SuppressionResult((work < 0) & (codes >= 0), rounds, ok, notes)


def suppress_for_combinations(
    codes: np.ndarray,
    ks: Sequence[int],
    combs: Sequence[int],
    importance: np.ndarray,
    *,
    wildcard: bool = True,
    allowed: np.ndarray | None = None,
    progress: Callable[[int], None] | None = None,
) -> SuppressionResult:
    """k-anonymity for every subset of ``combs[i]`` key variables with ``ks[i]``, subsets in turn as sdcMicro's
    ``localSuppressionWORK`` takes them (``utils::combn`` order), each suppressing on top of the last, the
    importances ranked within each subset."""
    m = codes.shape[1]
    steps = [
        (subset, k) for size, k in zip(combs, ks, strict=True) for subset in itertools.combinations(range(m), size)
    ]
    return suppress_for_subsets(codes, steps, importance, wildcard=wildcard, allowed=allowed, progress=progress)


def suppress_for_subsets(
    codes: np.ndarray,
    steps: Sequence[tuple[Sequence[int], int]],
    importance: np.ndarray,
    *,
    wildcard: bool = True,
    allowed: np.ndarray | None = None,
    progress: Callable[[int], None] | None = None,
    passes: int = 1,
) -> SuppressionResult:
    """k-anonymity on each (columns, k) of ``steps`` in turn, each suppressing on top of the last, the
    importances ranked within each subset (sdcMicro's combs, for any list of subsets: the policy's combination
    rules). With ``passes`` > 1 the steps are taken again while a pass blanks cells: under ``missing_qi:
    value`` a cell blanked for one subset is a value of its own that may leave an earlier subset short."""
    m = codes.shape[1]
    work = codes.astype(np.int32, copy=True)
    allowed = np.ones(m, dtype=bool) if allowed is None else np.asarray(allowed, dtype=bool)
    rounds, ok, notes = 0, True, []
    for pass_ in range(passes):
        blanked, ok = int((work < 0).sum()), True
        for subset, k in steps:
            columns = np.array(subset)
            rank = pd.Series(importance[columns]).rank(method="min").to_numpy()
            result = suppress_for_k(
                work[:, columns], k, rank, wildcard=wildcard, allowed=allowed[columns], progress=progress
            )
            rounds += result.rounds
            ok &= result.ok
            notes += [n for n in result.notes if n not in notes]
            sub = work[:, columns]
            sub[result.suppressed] = -1
            work[:, columns] = sub
        if pass_ + 1 < passes and int((work < 0).sum()) == blanked:
            break
        if pass_ + 1 == passes and passes > 1 and int((work < 0).sum()) != blanked:
            ok = False
            notes.append(f"cells were still being blanked after {passes} passes over the combinations")
    return SuppressionResult((work < 0) & (codes >= 0), rounds, ok, notes)
