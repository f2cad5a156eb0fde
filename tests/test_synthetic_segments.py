"""best_two of privaudit/risk/synthetic/segments.py against the sort it replaces."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from privaudit.risk.synthetic.segments import best_two


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_run_minima_equal_the_head_of_the_sorted_pairs(seed):
    rng = np.random.default_rng(seed)
    nq = int(rng.integers(1, 12))
    per = rng.integers(1, 8, nq)  # pairs per query, records distinct within a query
    qi = np.repeat(np.sort(rng.choice(50, nq, replace=False)), per)
    ri = np.concatenate([rng.choice(30, m, replace=False) for m in per])
    a = rng.choice([0.0, 0.1 + 0.2, 0.3, 1.0, 2.5], len(qi))  # many ties
    ranked = np.lexsort((ri, a, qi))
    sq, sr, sa = qi[ranked], ri[ranked], a[ranked]
    head = np.flatnonzero(np.r_[True, sq[1:] != sq[:-1]])
    has_next = np.r_[head[1:], len(sq)] - head > 1
    nxt = np.where(has_next, sa[np.minimum(head + 1, len(sa) - 1)], np.inf)
    got = best_two(qi, ri, a)
    for x, y in zip(got, (sq[head], sa[head], sr[head], nxt), strict=False):
        assert np.array_equal(x, y)
