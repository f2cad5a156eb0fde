"""The fast paths of loading and of the class summary give what the plain ones give.

* Parquet numbers stored as numbers skip the text round trip: same frame, same errors, as through text.
* Per-class figures computed a block of classes at a time equal the figures of one block.
* The class x value counts are the same by dense counting and by sorting pairs.
* The worst-class selection equals a full sort (ties by class id).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import scipy.sparse as sp
from conftest import write_policy
from hypothesis import given, settings
from hypothesis import strategies as st

from privaudit.core import summary
from privaudit.core.context import top_classes
from privaudit.core.errors import DataError
from privaudit.io.data import load_table
from privaudit.risk import emd
from privaudit.risk.ldiversity import entropy_per_class, recursive_ratio_per_class
from privaudit.testing import load_policy

POLICY = """version: 1
name: native numbers
data: {missing: ["-1"]}
columns:
  age: {role: quasi_identifier, type: numeric}
  zip: {role: quasi_identifier}
  w: {role: weight, type: numeric}
  income: {role: sensitive, type: numeric}
checks:
  - {assessor: k_anonymity, k: 2}
"""


def _write_both(tmp_path, columns: dict) -> tuple:
    """The same table as Parquet (numbers stored as numbers) and as CSV text (numbers as Arrow writes them)."""
    table = pa.table(columns)
    pq.write_table(table, tmp_path / "t.parquet")
    text = {name: pc_text(table.column(name)) for name in table.column_names}
    lines = [",".join(text)] + [",".join(row) for row in zip(*text.values(), strict=False)]
    (tmp_path / "t.csv").write_text("\n".join(lines) + "\n")
    return tmp_path / "t.parquet", tmp_path / "t.csv"


def pc_text(column) -> list[str]:
    return ["" if v is None else v for v in column.cast(pa.string()).to_pylist()]


def test_parquet_numbers_load_as_their_text_would(tmp_path):
    parquet, csv = _write_both(
        tmp_path,
        {
            "age": pa.array([30, 41, None, -1, 30], pa.int16()),
            "zip": pa.array(["a", "b", "a", None, "a"]),
            "w": pa.array([1.5, 2.0, 3.0, 1.0, 2.5], pa.float64()),
            "income": pa.array([100, 200, 300, 400, 100], pa.int64()),
        },
    )
    policy = load_policy(write_policy(tmp_path, POLICY))
    native, text = load_table(parquet, policy).frame, load_table(csv, policy).frame
    pd.testing.assert_frame_equal(native, text)
    assert native["age"].isna().tolist() == [False, False, True, True, False]  # null and the "-1" token


@pytest.mark.parametrize(
    "column, message",
    [
        (pa.array([1.0, float("nan"), 2.0, 3.0, 4.0]), "column 'w', row 2: 'nan' is not a number"),
        (pa.array([1.0, 2.0, 0.0, 3.0, 4.0]), "column 'w', row 3: weights must be positive numbers"),
    ],
)
def test_parquet_numbers_errors_name_the_row(tmp_path, column, message):
    parquet, _ = _write_both(
        tmp_path,
        {
            "age": pa.array([30, 41, 30, 41, 30], pa.int16()),
            "zip": pa.array(list("ababa")),
            "w": column,
            "income": pa.array([1, 2, 3, 4, 5]),
        },
    )
    policy = load_policy(write_policy(tmp_path, POLICY))
    with pytest.raises(DataError, match=message):
        load_table(parquet, policy)


count_matrices = st.integers(1, 30).flatmap(
    lambda n: st.tuples(
        st.lists(st.lists(st.integers(0, 6), min_size=4, max_size=4), min_size=n, max_size=n),
        st.integers(1, 7),
    )
)


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(count_matrices)
def test_blockwise_figures_equal_one_block(case):
    rows, entries = case
    counts = sp.csr_matrix(np.array(rows, dtype=np.int64))
    q = np.array([0.1, 0.2, 0.3, 0.4])
    paths = np.array([["a", "x", "*"], ["b", "x", "*"], ["c", "y", "*"], ["d", "y", "*"]], dtype=object)
    sc = summary.SensitiveCounts(
        "s", np.array(list("abcd"), dtype=object), counts, np.asarray(counts.sum(axis=0)).ravel(), 0
    )

    def figures():
        return [
            emd.emd_ordered(counts, q),
            emd.emd_equal(counts, q),
            emd.emd_hierarchical(counts, q, paths),
            entropy_per_class(sc),
            recursive_ratio_per_class(sc, 2),
            recursive_ratio_per_class(sc, 3),
        ]

    whole = figures()
    old = summary.BLOCK_ENTRIES
    summary.BLOCK_ENTRIES = entries  # blocks of a few entries: many blocks, some classes empty
    try:
        sc.__dict__.pop("class_totals", None)
        blocked = figures()
        blocks = list(summary.row_blocks(counts))
        # the blocks tile the classes in order (a class's entries are never split)
        assert [b[0] for b in blocks[1:]] == [b[1] for b in blocks[:-1]] and blocks[-1][1] == counts.shape[0]
    finally:
        summary.BLOCK_ENTRIES = old
    for a, b in zip(whole, blocked, strict=False):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-12, equal_nan=True)


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 6), min_size=1, max_size=40), st.integers(1, 9), st.randoms(use_true_random=False))
def test_class_value_counts_dense_and_sorted_agree(sizes, m, rnd):
    sizes = np.array(sizes)
    values = np.array([rnd.randrange(-1, m) for _ in range(int(sizes.sum()))], dtype=np.int8)
    cls = np.repeat(np.arange(len(sizes)), sizes)
    expected = np.zeros((len(sizes), m), dtype=np.int64)
    np.add.at(expected, (cls[values >= 0], values[values >= 0]), 1)
    got = summary.class_value_counts(values, sizes, m)  # dense or sorted, as the shape decides
    assert got.has_sorted_indices and np.array_equal(got.toarray(), expected)
    # force the other path: many more cells than records
    wide = summary.class_value_counts(values.astype(np.int64), sizes, m + 3 * int(sizes.sum()))
    assert np.array_equal(wide.toarray()[:, :m], expected) and wide.nnz == got.nnz


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.integers(0, 5), min_size=1, max_size=200),
    st.integers(1, 25),
    st.booleans(),
    st.randoms(use_true_random=False),
)
def test_worst_classes_are_those_of_a_full_sort(keys, limit, masked, rnd):
    key = np.array(keys, dtype=float)
    mask = np.array([rnd.random() < 0.5 for _ in keys]) if masked else None
    ids = np.arange(len(key)) if mask is None else np.flatnonzero(mask)
    expected = ids[np.lexsort((ids, key[ids]))][:limit]
    assert np.array_equal(top_classes(key, mask, limit), expected)


def test_worst_classes_from_millions_of_ties_are_the_first_ids():
    key = np.ones(2_000_000)
    key[[1_999_990, 7]] = 0.0
    assert top_classes(key, None, 5).tolist() == [7, 1_999_990, 0, 1, 2]


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.one_of(st.integers(-5, 40).map(float), st.just(float("nan")), st.just(2.5), st.just(float("inf"))),
        min_size=1,
        max_size=60,
    )
)
def test_small_integer_codes_equal_sorted_factorization(values):
    old = summary._CHUNK
    summary._CHUNK = 4  # the fast path is taken from _CHUNK values on, in chunks of _CHUNK
    try:
        codes, card = summary.column_codes(pd.Series(values, dtype=float))
    finally:
        summary._CHUNK = old
    expected, uniques = pd.factorize(pd.Series(values, dtype=float), sort=True, use_na_sentinel=True)
    assert card == len(uniques) and np.array_equal(codes, expected)
