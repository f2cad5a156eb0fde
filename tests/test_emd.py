"""The closed-form EMDs equal the optimal transport cost found by a generic LP solver."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from test_golden_tcloseness import emd_by_lp

from privaudit.risk import emd

# A 3-level tree over 6 leaves with an uneven fan-out: leaf -> group -> branch -> root
PATHS = np.array(
    [
        ["a", "g1", "b1", "*"],
        ["b", "g1", "b1", "*"],
        ["c", "g2", "b1", "*"],
        ["d", "g3", "b2", "*"],
        ["e", "g3", "b2", "*"],
        ["f", "g4", "b2", "*"],
    ],
    dtype=object,
)


def ground(distance: str, m: int) -> np.ndarray:
    i, j = np.indices((m, m))
    if distance == "ordered":
        return np.abs(i - j) / max(m - 1, 1)
    if distance == "equal":
        return (i != j).astype(float)
    lca = np.array([[int(np.argmax(PATHS[a] == PATHS[b])) for b in range(m)] for a in range(m)])
    return lca / (PATHS.shape[1] - 1)


def distributions(m: int):
    weights = st.lists(st.integers(0, 20), min_size=m, max_size=m).filter(lambda w: sum(w) > 0)
    return st.tuples(weights, weights).map(lambda pq: tuple(np.array(x, float) / sum(x) for x in pq))


@settings(max_examples=40, deadline=None)
@given(data=st.data(), distance=st.sampled_from(["ordered", "equal", "hierarchical"]))
def test_closed_form_equals_lp(data, distance):
    m = 6 if distance == "hierarchical" else data.draw(st.integers(2, 8))
    p, q = data.draw(distributions(m))
    closed = emd.emd_single(p, q, distance, PATHS if distance == "hierarchical" else None)
    assert closed == pytest.approx(emd_by_lp(p, q, ground(distance, m)), abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(data=st.data(), distance=st.sampled_from(["ordered", "equal", "hierarchical"]))
def test_bounds_and_symmetry(data, distance):
    m = 6 if distance == "hierarchical" else data.draw(st.integers(2, 8))
    p, q = data.draw(distributions(m))
    paths = PATHS if distance == "hierarchical" else None
    forward, backward = emd.emd_single(p, q, distance, paths), emd.emd_single(q, p, distance, paths)
    assert -1e-12 <= forward <= 1 + 1e-12
    assert forward == pytest.approx(backward, abs=1e-12)
    assert emd.emd_single(p, p, distance, paths) == pytest.approx(0, abs=1e-12)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.lists(st.integers(0, 9), min_size=7, max_size=7), min_size=1, max_size=12))
def test_matrix_form_equals_row_by_row(rows):
    counts = np.array(rows, dtype=float)
    counts = counts[counts.sum(axis=1) > 0]
    if not len(counts):
        return
    q = counts.sum(axis=0) / counts.sum()
    matrix = sp.csr_matrix(counts)
    for fn, name in ((emd.emd_ordered, "ordered"), (emd.emd_equal, "equal")):
        whole = fn(matrix, q)
        single = [emd.emd_single(r / r.sum(), q, name) for r in counts]
        assert whole == pytest.approx(single, abs=1e-12)


def test_class_without_values_is_nan():
    counts = sp.csr_matrix(np.array([[0, 0, 0], [1, 1, 0]], dtype=float))
    q = np.array([0.5, 0.5, 0.0])
    assert np.isnan(emd.emd_ordered(counts, q)[0])
    assert np.isnan(emd.emd_equal(counts, q)[0])


@pytest.mark.parametrize("m", range(2, 12))
def test_a_class_with_the_tables_distribution_is_exactly_zero(m):
    """EMD 0 by definition; the float sums left 1.249e-16 (m = 9, ordered) or -1.11e-16 (equal), which a signed
    report printed as a distance (found generalizing ARX's test2). Magnitudes below emd.ROUNDING are 0."""
    row = np.full(m, 3)
    counts = sp.csr_matrix(np.vstack([row, 6 * row]))  # class 0 has the table's distribution (1/m each)
    q = 7 * row / (7 * row).sum()
    assert emd.emd_ordered(counts, q)[0] == 0.0 and emd.emd_equal(counts, q)[0] == 0.0
    assert emd.emd_ordered(counts, q)[1] == 0.0
