"""What the columns a release leaves out of its quasi-identifiers add back: refinements of generalized columns,
and the class sizes an intruder who also knows one more column would see.

Columns arrive as integer codes (``-1`` = missing) with their number of values, as
:func:`privaudit.core.summary.column_codes` gives them; nothing here knows a policy.

**Refinement.** A column C refines a column Q when every value of C falls within one value of Q (C → Q is a
functional dependency, records where either is missing aside) and C has more distinct values: C then
partitions Q's released groups more finely and gives back what a generalization of Q removed (``agesq`` of
banded age, county of state). This is the functional-dependency view of attribute disclosure through
"identifying variables derived from one another" (Hundepool et al., *Statistical Disclosure Control*, Wiley
2012, section 3.3: a recoded key variable must be recoded in every variable it can be derived from; Benschop,
Machingauta and Welch, *SDC Practice Guide*, section "Classifying variables": variables that allow the
reconstruction of a key variable, such as age derived from date of birth). A column whose values all differ
(a continuous measurement) trivially determines every column: the dependency is taken as a finding only
when the data show it, i.e. when the chance that C's repeated values would each fall within one value of Q
were C independent of Q, ``prod_c sum_q p_q ** m_c`` (``m_c`` the records of value c, ``p_q`` the shares of
Q's values), is below :data:`EVIDENCE`.

**Search.** A dependency that holds on the whole table holds on any part of it, so every candidate (each
column, and each pair of small-domain columns) is first screened on the first :data:`SCREEN_ROWS` rows and
only the survivors are checked on every row: the screen never drops a true refinement.

**Added keys.** The sizes of the classes of a base partition (the declared quasi-identifiers' classes) split
by one or two more columns, counted by one ``bincount`` over packed codes (a sort when the packed domain is
large): the sample-unique and below-k records an intruder who also knows those columns would find.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

Codes = tuple[np.ndarray, int]  # a column's codes (-1 missing) and its number of values

EVIDENCE = 1e-9  # largest chance, were the column independent, of a dependency taken as a refinement
SCREEN_ROWS = 50_000  # rows every candidate is screened on before the whole table is read
PAIR_MAX_VALUES = 400  # pairs are searched among columns of at most this many distinct values
_DENSE = 1 << 22  # packed domains up to max(this, 2 * rows) are counted with bincount


@dataclass(frozen=True)
class Refinement:
    """Columns (one or two) that refine ``source``: ``records`` are in a released value of ``source`` they split,
    ``distinct`` their distinct values (combinations) against ``released`` values of ``source``, over the
    ``compared`` records where both are present; ``log10_chance`` the evidence (see the module)."""

    columns: tuple[str, ...]
    source: str
    records: int
    compared: int
    distinct: int
    released: int
    log10_chance: float


def _pairs(a: np.ndarray, ca: int, b: np.ndarray, cb: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct (a, b) pairs of two non-negative code arrays and how many records hold each."""
    key = a.astype(np.int64) * cb
    key += b
    domain = ca * cb
    if domain <= max(_DENSE, 2 * len(a)):
        counts = np.bincount(key, minlength=domain)
        present = np.flatnonzero(counts)
        return present // cb, present % cb, counts[present]
    uniq, counts = np.unique(key, return_counts=True)
    return uniq // cb, uniq % cb, counts


def _both_present(c: Codes, q: Codes, rows: int | None) -> tuple[np.ndarray, np.ndarray]:
    cc, qc = c[0][:rows], q[0][:rows]
    keep = (cc >= 0) & (qc >= 0)
    return cc[keep], qc[keep]


def is_dependent(c: Codes, q: Codes, rows: int | None = None) -> bool:
    """Whether every value of ``c`` falls within one value of ``q`` (over the first ``rows`` rows)."""
    a, b = _both_present(c, q, rows)
    if len(a) == 0:
        return False
    ia, _, _ = _pairs(a, c[1], b, q[1])
    return bool(np.all(np.bincount(ia) <= 1))


def log10_chance(value_records: np.ndarray, source_records: np.ndarray) -> float:
    """log10 of ``prod_c sum_q p_q ** m_c``: the chance that every value of an independent column, held by
    ``value_records`` (m_c) records each, falls within one value of a column whose values hold
    ``source_records`` records each."""
    p = source_records[source_records > 0] / source_records.sum()
    logp = np.log(p)
    sizes, times = np.unique(value_records[value_records > 1], return_counts=True)
    total = 0.0
    for start in range(0, len(sizes), 256):  # a block of sizes at a time: sizes x values stays small
        m = sizes[start : start + 256, None].astype(float)
        terms = m * logp[None, :]
        top = terms.max(axis=1)
        log_sum = top + np.log(np.exp(terms - top[:, None]).sum(axis=1))
        total += float((log_sum * times[start : start + 256]).sum())
    return total / math.log(10)


def refinement(c: Codes, q: Codes, columns: tuple[str, ...], source: str) -> Refinement | None:
    """The refinement of ``q`` by ``c`` over every row, or None when ``c`` does not refine it (see the module)."""
    a, b = _both_present(c, q, None)
    if len(a) == 0:
        return None
    ia, ib, counts = _pairs(a, c[1], b, q[1])
    per_value = np.bincount(ia)
    if np.any(per_value > 1):
        return None
    distinct_q = np.bincount(ib, minlength=q[1])
    records_q = np.bincount(ib, weights=counts, minlength=q[1])
    released = int(np.count_nonzero(distinct_q))
    if len(ia) <= released:
        return None  # a one-to-one recoding of the released values: nothing finer
    chance = log10_chance(counts, records_q)
    if chance > math.log10(EVIDENCE):
        return None
    split = int(records_q[distinct_q > 1].sum())
    return Refinement(columns, source, split, len(a), len(ia), released, chance)


def combined(first: Codes, second: Codes) -> Codes:
    """The codes of two columns taken together (missing where either is)."""
    a, b = first[0].astype(np.int64), second[0]
    code = a * second[1]
    code += b
    code[(a < 0) | (b < 0)] = -1
    return code, first[1] * second[1]


def refinements(
    sources: Mapping[str, Codes],
    candidates: Mapping[str, Codes],
    pair_max_values: int = PAIR_MAX_VALUES,
    screen_rows: int = SCREEN_ROWS,
) -> list[Refinement]:
    """Every candidate column, and every pair of candidates of at most ``pair_max_values`` values neither of
    which refines the source alone, that refines a source column; screened on the first ``screen_rows`` rows."""
    found: list[Refinement] = []
    for source, q in sources.items():
        alone: set[str] = set()
        for name, c in candidates.items():
            if is_dependent(c, q, screen_rows):
                r = refinement(c, q, (name,), source)
                if r is not None:
                    found.append(r)
                    alone.add(name)
        small = [n for n, c in candidates.items() if c[1] <= pair_max_values and n not in alone]
        head = {n: (candidates[n][0][:screen_rows], candidates[n][1]) for n in small}
        for i, first in enumerate(small):
            for second in small[i + 1 :]:
                if is_dependent(combined(head[first], head[second]), q, screen_rows):  # on the first rows only
                    pair = combined(candidates[first], candidates[second])
                    r = refinement(pair, q, (first, second), source)
                    if r is not None:
                        found.append(r)
    return found


class Splitter:
    """The sizes of the classes of a base partition split by more columns, for one column after another: the
    base ids are widened once and one key buffer is reused, so each column costs a few in-place passes and one
    count (``bincount`` when the packed domain is small, else a sort)."""

    def __init__(self, base: np.ndarray, n_base: int) -> None:
        self.base = np.asarray(base, dtype=np.int64)
        self.n_base = int(n_base)
        self._key = np.empty(len(self.base), dtype=np.int64)

    def sizes(self, extra: Sequence[Codes]) -> np.ndarray:
        key, span = self._key, self.n_base
        key[:] = self.base
        for codes, card in extra:
            radix = card + 1  # missing (-1) becomes 0, a value of its own
            if span * radix >= 1 << 62:  # renumber the partial key before it overflows
                _, inverse = np.unique(key, return_inverse=True)
                key[:] = inverse
                span = int(inverse.max()) + 1 if len(inverse) else 1
            key *= radix
            key += codes
            key += 1
            span *= radix
        if span <= max(_DENSE, 2 * len(key)):
            counts = np.bincount(key, minlength=span)
            return counts[counts > 0]
        ordered = np.sort(key)
        if len(ordered) == 0:
            return np.zeros(0, dtype=np.int64)
        starts = np.flatnonzero(np.concatenate(([True], ordered[1:] != ordered[:-1])))
        return np.diff(np.append(starts, len(ordered)))


def split_sizes(base: np.ndarray, n_base: int, extra: Sequence[Codes]) -> np.ndarray:
    """The sizes of the classes of the partition ``base`` (each record's class id, 0 .. n_base - 1) split by the
    ``extra`` columns' values (missing is a value of its own)."""
    return Splitter(base, n_base).sizes(extra)


def below(sizes: np.ndarray, k: int) -> int:
    """Records in classes smaller than ``k``."""
    return int(sizes[sizes < k].sum())
