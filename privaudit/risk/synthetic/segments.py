"""The nearest two of every query among its candidate pairs, by run minima instead of a sort.

The nominal-code joins of :mod:`.pruning` produce, chunk by chunk, pairs ``(query, reference record,
Gower sum)`` grouped by query (the queries in increasing order, each query's pairs in one run), and keep
per query the nearest record (the smallest sum; of equal sums the first record) and the next smallest
sum. A three-key ``np.lexsort`` of the chunk gives them but costs ``n log n`` with a large constant;
the same three figures are run minima, each one linear ``np.minimum.reduceat`` pass: the smallest sum, the first record at that sum, and the smallest
sum once that one pair is set aside (a record occurs once per query in a join, so exactly one pair is).
``fmin`` ignores NaN as the sort does by placing it last (the sums hold none: missing terms are 1 or 0).
"""

from __future__ import annotations

import numpy as np


def best_two(qi: np.ndarray, ri: np.ndarray, a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For pairs grouped by query (``qi`` non-decreasing, ``ri`` distinct within a query, ``len(qi) > 0``):
    ``(queries, smallest sum, its record -- the smallest at that sum --, next smallest sum or inf)``, one
    per query -- what the head and the next entry of ``np.lexsort((ri, a, qi))`` give."""
    head = np.flatnonzero(np.r_[True, qi[1:] != qi[:-1]])
    run = np.repeat(np.arange(len(head)), np.diff(np.r_[head, len(qi)]))
    c1 = np.fmin.reduceat(a, head)
    at_best = a == c1[run]
    cp = np.minimum.reduceat(np.where(at_best, ri, np.iinfo(np.int64).max), head)
    rest = np.where(at_best & (ri == cp[run]), np.inf, a)
    return qi[head], c1, cp, np.fmin.reduceat(rest, head)
