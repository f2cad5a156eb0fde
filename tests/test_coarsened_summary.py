"""A scenario's class summary from the classes alone (:func:`privaudit.core.summary.coarsened`, what the
out-of-memory engines answer attacker scenarios with) is the one :func:`build_summary` makes from the
records: the same class numbering, sizes, weight sums, sensitive counts and representatives' values."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privaudit.core.summary import build_summary, coarsened

COLUMNS = ["a", "b", "c"]


def _frame(rows) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=["a", "b", "c", "s", "w"])
    frame["a"] = frame["a"].astype("category")  # a typed categorical, as the policy codes nominal columns
    frame["c"] = pd.to_numeric(frame["c"])
    frame["s"] = frame["s"].astype("category")  # a nominal sensitive column, as loading types it
    return frame


def _assert_same(got, expected, subset) -> None:
    assert got.quasi_identifiers == expected.quasi_identifiers == list(subset)
    np.testing.assert_array_equal(got.sizes, expected.sizes)
    np.testing.assert_array_equal(got.class_fk, expected.class_fk)
    np.testing.assert_allclose(got.weight_sums, expected.weight_sums, rtol=1e-12)
    shown = got.representatives(np.arange(got.n_classes), subset)
    pd.testing.assert_frame_equal(shown, expected.representatives(np.arange(expected.n_classes), subset))
    for column, sc in expected.sensitive.items():
        mine = got.sensitive[column]
        np.testing.assert_array_equal(mine.values, sc.values)
        assert (mine.counts != sc.counts).nnz == 0 and mine.counts.dtype == np.int64
        np.testing.assert_array_equal(mine.counts.indptr, sc.counts.indptr)
        np.testing.assert_array_equal(mine.counts.indices, sc.counts.indices)
        np.testing.assert_array_equal(mine.total, sc.total)
        assert mine.missing == sc.missing


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(
    rows=st.lists(
        st.tuples(
            st.sampled_from(["x", "y", "z"]),
            st.sampled_from(["p", "q", None]),
            st.sampled_from([1.0, 2.0, 7.5, np.nan]),
            st.sampled_from(["flu", "cold", None, "ulcer"]),
            st.sampled_from([0.5, 1.0, 2.0, 4.25]),
        ),
        min_size=1,
        max_size=80,
    )
)
def test_coarsened_equals_the_summary_of_the_records(rows):
    frame = _frame(rows)
    full = build_summary(frame, COLUMNS, {"s": ("nominal", None)}, "value", weight="w")
    for size in (1, 2):
        for subset in itertools.permutations(COLUMNS, size):
            expected = build_summary(frame, list(subset), {"s": ("nominal", None)}, "value", weight="w")
            _assert_same(coarsened(full, subset), expected, subset)


def test_wildcard_with_a_missing_value_needs_the_records():
    frame = _frame([("x", None, 1.0, "flu", 1.0), ("y", "p", 2.0, "cold", 1.0)])
    full = build_summary(frame, COLUMNS, {"s": ("nominal", None)}, "wildcard")
    with pytest.raises(ValueError, match="wildcard"):
        coarsened(full, ["b"])
    assert list(coarsened(full, ["a", "c"]).sizes) == [1, 1]  # no missing value in the subset: classes add up
