"""Top and bottom coding, and invariant PRAM, against sdcMicro 5.8 (R/topBotCoding.R, R/pram.R and its
tests/testthat) and the properties of Gouweleeuw, Kooiman, Willenborg & de Wolf (J. Official Statistics
14(4), 1998): the transition matrix is stochastic, the invariant one leaves the marginal unchanged."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privaudit.remediation.perturbation import draw, invariant_matrices, pram_codes, threshold_at, top_bottom_code

# sdcMicro's tests/testthat/test_topBotCoding.R: set.seed(3); runif(10, 1, 100), coded at 35 with replacement 0
VAR1 = [17.63611, 80.94412, 39.10929, 33.44570, 60.60797, 60.83501, 13.33871, 30.16549, 58.18338, 63.46695]


def test_top_coding_as_sdcmicro():
    coded, high, _ = top_bottom_code(np.array(VAR1), top=35, top_replacement=0)
    expected = [17.63611, 0, 0, 33.44570, 0, 0, 13.33871, 30.16549, 0, 0]
    np.testing.assert_allclose(coded, expected, atol=1e-3)
    assert high.sum() == 6


def test_bottom_coding_with_missing_as_sdcmicro():
    values = np.array(VAR1)
    values[[0, 1, 6]] = np.nan  # sample_Data[c(1,2,7),1] <- NA
    coded, _, low = top_bottom_code(values, bottom=35, bottom_replacement=0)
    expected = [np.nan, np.nan, 39.10929, 0, 60.60797, 60.83501, np.nan, 0, 58.18338, 63.46695]
    np.testing.assert_allclose(coded, expected, atol=1e-3)
    assert low.sum() == 2


def test_threshold_kept_and_default_replacement_is_the_threshold():
    coded, high, low = top_bottom_code(np.array([1.0, 5, 9, 10, 11, 30]), top=10, bottom=5)
    assert coded.tolist() == [5, 5, 9, 10, 10, 10] and high.sum() == 2 and low.sum() == 1


def test_quantile_threshold_is_a_value_of_the_column():
    values = np.arange(1, 101, dtype=float)
    assert threshold_at(values, 0.95) == 95.0  # R's quantile(type = 1)
    assert threshold_at(np.array([1.0, np.nan, 3.0, 2.0]), 0.5) == 2.0


marginal = st.lists(st.integers(0, 50), min_size=1, max_size=8).filter(lambda c: sum(c) > 0)


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(counts=marginal, pd=st.floats(0.01, 1.0), alpha=st.floats(0.0, 1.0), seed=st.integers(0, 2**31))
def test_invariant_matrix_rows_sum_to_one_and_keep_the_marginal(counts, pd, alpha, seed):
    L = len(counts)
    diagonals = np.random.default_rng(seed).uniform(pd, 1.0, size=(1, L))
    Rs = invariant_matrices(np.array([counts], dtype=float), diagonals, alpha)[0]
    assert (Rs >= -1e-15).all()
    np.testing.assert_allclose(Rs.sum(axis=1), 1.0, atol=1e-12)
    p = np.array(counts, dtype=float) / sum(counts)
    np.testing.assert_allclose(p @ Rs, p, atol=1e-12)  # p R = p (Gouweleeuw et al. 1998, §3)


@settings(max_examples=40, deadline=None)
@given(codes=st.lists(st.integers(-1, 5), min_size=1, max_size=200), seed=st.integers(0, 2**31))
def test_pd_one_changes_nothing(codes, seed):
    codes_ = np.array(codes, dtype=np.int64)
    result = pram_codes(codes_, np.zeros(len(codes_), dtype=np.int64), 6, 1.0, 0.5, np.random.default_rng(seed))
    assert result.codes.tolist() == codes


@settings(max_examples=40, deadline=None)
@given(
    rows=st.lists(st.tuples(st.integers(0, 3), st.integers(-1, 4)), min_size=1, max_size=300),
    pd=st.floats(0.01, 1.0),
    alpha=st.floats(0.0, 1.0),
    seed=st.integers(0, 2**31),
)
def test_strata_never_mix(rows, pd, alpha, seed):
    """A record is released as a category its stratum holds (the stratum's p gives any other zero weight in
    Q), and missing values stay missing."""
    strata = np.array([s for s, _ in rows], dtype=np.int64)
    codes = np.array([c for _, c in rows], dtype=np.int64)
    out = pram_codes(codes, strata, 5, pd, alpha, np.random.default_rng(seed)).codes
    assert ((out == -1) == (codes == -1)).all()
    for s in np.unique(strata):
        held = set(codes[(strata == s) & (codes >= 0)].tolist())
        assert set(out[(strata == s) & (out >= 0)].tolist()) <= held


def test_released_marginal_stays_close_to_the_original():
    """Invariance in expectation, seen on 200,000 records: each share within 5 standard errors."""
    rng = np.random.default_rng(5)
    p = np.array([0.5, 0.3, 0.15, 0.05])
    codes = rng.choice(4, 200_000, p=p).astype(np.int64)
    out = pram_codes(codes, np.zeros(len(codes), dtype=np.int64), 4, 0.5, 1.0, rng).codes
    before, after = np.bincount(codes, minlength=4) / len(codes), np.bincount(out, minlength=4) / len(codes)
    assert (out != codes).mean() > 0.05  # it did perturb
    assert np.all(np.abs(after - before) < 5 * np.sqrt(before * (1 - before) / len(codes)))


def test_draw_follows_each_row_and_never_draws_a_zero():
    matrix = np.array([[0.2, 0.0, 0.8], [0.0, 1.0, 0.0], [1 / 3, 1 / 3, 1 / 3]])
    rows = np.repeat([0, 1, 2], 60_000)
    out = draw(matrix, rows, np.random.default_rng(1))
    for r in range(3):
        freq = np.bincount(out[rows == r], minlength=3) / 60_000
        np.testing.assert_allclose(freq, matrix[r], atol=0.01)
        assert (freq[matrix[r] == 0] == 0).all()


def test_draw_in_blocks_matches_the_distribution(monkeypatch):
    """Many rows (strata x categories) are searched block by block; the draws still follow each row."""
    import privaudit.remediation.perturbation as perturbation

    monkeypatch.setattr(perturbation, "_BLOCK_CELLS", 6)  # two rows of three per block
    matrix = np.tile(np.array([[0.9, 0.1, 0.0], [0.0, 0.0, 1.0]]), (5, 1))
    rows = np.repeat(np.arange(10), 20_000)
    out = draw(matrix, rows, np.random.default_rng(2))
    for r in range(10):
        freq = np.bincount(out[rows == r], minlength=3) / 20_000
        np.testing.assert_allclose(freq, matrix[r], atol=0.01)


def test_one_category_is_left_alone():
    out = pram_codes(np.zeros(5, dtype=np.int64), np.zeros(5, dtype=np.int64), 1, 0.1, 1.0, np.random.default_rng(0))
    assert out.codes.tolist() == [0] * 5 and out.matrices.tolist() == [[[1.0]]]


def test_too_many_strata_refused():
    with pytest.raises(ValueError, match="stratify by fewer values"):
        pram_codes(np.zeros(3, dtype=np.int64), np.array([0, 1, 10**6]), 10, 0.8, 0.5, np.random.default_rng(0))


def test_missing_only_stays_missing():
    """sdcMicro's do.pram: "special case: na-only input"."""
    codes = np.full(4, -1, dtype=np.int64)
    for levels in (0, 3):
        out = pram_codes(codes, np.zeros(4, dtype=np.int64), levels, 0.5, 0.5, np.random.default_rng(0))
        assert out.codes.tolist() == [-1] * 4
