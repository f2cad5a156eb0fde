"""The 2-D dominance counts of privaudit/risk/synthetic_attacks/dominance.py, and the singling-out counts of
predicates with two numeric conditions built on them, against the straightforward count."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privaudit.risk.synthetic_attacks.dominance import DominanceIndex
from privaudit.risk.synthetic_attacks.singling_out import Predicates, count_matches


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 6), max_size=40), st.data())
def test_box_counts_equal_counting_every_position(y, data):
    y = np.array(y, dtype=np.int64)
    n = len(y)
    m = 30
    lo = np.array(data.draw(st.lists(st.integers(0, n), min_size=m, max_size=m)))
    hi = np.array(data.draw(st.lists(st.integers(0, n), min_size=m, max_size=m)))
    y_lo = np.array(data.draw(st.lists(st.integers(-1, 9), min_size=m, max_size=m)))
    y_hi = np.array(data.draw(st.lists(st.integers(-1, 9), min_size=m, max_size=m)))
    index = DominanceIndex(y)
    expected = [int(((y[a:b] >= c) & (y[a:b] < d)).sum()) for a, b, c, d in zip(lo, hi, y_lo, y_hi, strict=False)]
    assert index.count_boxes(lo, hi, y_lo, y_hi).tolist() == expected
    ordered = np.minimum(lo, hi), np.maximum(lo, hi)
    assert index.count(*ordered, y_hi).tolist() == [
        int((y[a:b] < d).sum()) for a, b, d in zip(*ordered, y_hi, strict=False)
    ]


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_two_numeric_conditions_agree_with_comparing_every_record(seed):
    """Two numeric columns (ties, missing values) within a categorical key: every operator, with values
    the table holds, lacks and missing ones, counted by key against comparing every record."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    table = np.column_stack(
        [rng.integers(0, 6, n), rng.integers(0, 3, n), rng.integers(0, 5, n) / 2, rng.integers(0, 4, n)]
    ).astype(float)  # numeric: columns 0 and 2
    for j in range(3):
        table[rng.random(n) < 0.15, j] = np.nan
    numeric = np.array([True, False, True, False])
    m = 80
    cols = np.tile([0, 1, 2], (m, 1))
    rows = rng.integers(n, size=m)
    vals = table[rows[:, None], cols]
    ops = np.column_stack([rng.integers(0, 8, m), np.where(rng.random(m) < 0.9, 0, 6), rng.integers(0, 8, m)])
    odd = rng.random(vals.shape) < 0.3
    vals = np.where(odd, rng.choice([np.nan, 0.5, 99.0, -1.0, 1.0], vals.shape), vals)
    vals[:, 1] = np.where(np.isnan(vals[:, 1]), np.nan, np.round(np.abs(vals[:, 1])))  # codes stay integers
    ops[:, 1] = np.where(np.isnan(vals[:, 1]), 6, ops[:, 1])  # as the attack writes them: a missing code is ISNA
    preds = Predicates(cols, ops.astype(np.int8), vals)
    assert (count_matches(table, preds, numeric) == count_matches(table, preds)).all()
    wider = Predicates(
        np.tile([0, 1, 2, 3], (m, 1)),
        np.column_stack([preds.ops, np.zeros(m, np.int8)]),
        np.column_stack([vals, table[rows, 3]]),
    )
    assert (count_matches(table, wider, numeric) == count_matches(table, wider)).all()
