"""Noise addition and rank swapping against sdcMicro 5.8.1 (R/addNoise.r, R/rankSwap.R and its C++
src/RankSwapping.h ``RankSwap``; sdcTools/sdcMicro commit cf32510) and the properties that define them
(Brand 2002; Moore 1996): additive noise keeps each mean and adds ``(noise/100)^2`` of the variance,
correlated2 keeps the covariance structure, a rank swap keeps every value within P percent of ranks and
releases a permutation of the values it swaps. µ-ARGUS's weight noise (libmuargus Variable.cpp
``DoWeightNoise``). sdcMicro's figures were produced by ``benchmarks/sdcmicro/run_noise_rankswap.R figures``
(sdcMicro 5.8.1, R 4); its draws are R's, so the random methods are compared in distribution."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privaudit.remediation.noise_addition import add_noise, weight_noise
from privaudit.remediation.rank_swapping import coded_counts, pair_within, rank_swap


def synthetic(n: int = 2000) -> np.ndarray:
    """The R script's table: whole-number arithmetic, so R and NumPy hold the same doubles."""
    i = np.arange(n)
    x1 = ((i * 7919) % n) / 10 + 20
    x2 = ((i * 7919) % n) / 20 + ((i * 104729) % 997) / 10
    x3 = ((i * 31) % 101) * 3 + (i % 7)
    return np.column_stack([x1, x2, x3]).astype(float)


@pytest.mark.slow
@settings(max_examples=20, deadline=None)
@given(noise=st.one_of(st.just(0.0), st.floats(1, 300)), seed=st.integers(0, 2**31))
def test_additive_keeps_the_mean_and_adds_the_variance_specified(noise, seed):
    """sdcMicro's addNoise_additive: noise of sd noise/100 * sd(x), so E[mean] = mean and E[var] = (1 + (noise/100)^2)
    var; checked on 40,000 records within 5 standard errors."""
    rng = np.random.default_rng(seed)
    x = rng.gamma(2.0, 10.0, size=(40_000, 2))
    out = add_noise(x, "additive", noise, 0.1, np.random.default_rng(seed + 1))
    sd, n, s = x.std(axis=0, ddof=1), len(x), noise / 100
    noise_part = out - x
    assert np.all(np.abs(noise_part.mean(axis=0)) <= 5 * s * sd / np.sqrt(n) + 1e-12)
    np.testing.assert_allclose(noise_part.std(axis=0, ddof=1), s * sd, rtol=5 * np.sqrt(1 / (2 * n)) + 1e-12)
    assert abs(np.corrcoef(noise_part.T)[0, 1]) < 5 / np.sqrt(n) or s == 0  # independent across variables


def test_correlated2_keeps_the_covariance_structure():
    """addNoise_correlated2 (delta 0.1): means and variances kept, covariances times 1 - delta^2, so the released
    covariance is the original within 2 % on 100,000 seeded records."""
    rng = np.random.default_rng(7)
    cov = np.array([[4.0, 2.4, -1.0], [2.4, 9.0, 0.5], [-1.0, 0.5, 1.0]])
    x = rng.multivariate_normal([10, 50, -3], cov, size=100_000)
    for delta in (0.1, 0.3):
        out = add_noise(x, "correlated2", 150, delta, np.random.default_rng(1))
        before, after = np.cov(x, rowvar=False), np.cov(out, rowvar=False)
        expected = before * (1 - delta**2) + np.diag(np.diag(before)) * delta**2
        np.testing.assert_allclose(after, expected, atol=0.02 * np.abs(before).max())
        np.testing.assert_allclose(out.mean(axis=0), x.mean(axis=0), atol=0.02)
        assert np.abs(out - x).mean() > 0.05  # it did perturb


def test_correlated_noise_has_the_covariance_asked_for():
    """addNoise_correlated: noise of covariance noise/100 * cov(x)."""
    rng = np.random.default_rng(3)
    x = rng.multivariate_normal([0, 0], [[1.0, 0.8], [0.8, 2.0]], size=100_000)
    noise = add_noise(x, "correlated", 50, 0.1, np.random.default_rng(4)) - x
    np.testing.assert_allclose(np.cov(noise, rowvar=False), 0.5 * np.cov(x, rowvar=False), atol=0.03)
    with pytest.raises(ValueError, match="two or more variables"):
        add_noise(x[:, :1], "correlated", 50, 0.1, np.random.default_rng(4))


def test_restr_is_sdcmicros_figure_for_figure():
    """addNoise(x, noise = 150, method = "restr") on the synthetic table: sdcMicro's first three records. R's
    ``cc * x + d`` recycles the shift vector d down the rows; with that recycling, sdcMicro's figures are cc and
    d to 1e-12, and privaudit shifts each variable by its own mean's share."""
    x = synthetic()
    sdcmicro = np.array(
        [
            [56.7455542711434, 56.2677558732357, 36.6384241609422],
            [170.6356432699438, 107.5557315028956, 115.7096558083284],
            [185.1428538176176, 100.3171403680043, 162.9821413891815],
        ]
    )
    n = len(x)
    cc = np.sqrt((n - 1) / (n + n * 1.5 - 1))
    d = (1 - cc) * x.mean(axis=0)
    recycled = np.array([[cc * x[r, j] + d[(r + j * n) % 3] for j in range(3)] for r in range(3)])
    np.testing.assert_allclose(recycled, sdcmicro, rtol=1e-12)
    out = add_noise(x, "restr", 150, 0.1, np.random.default_rng(0))
    np.testing.assert_allclose(out, cc * x + d, rtol=1e-12)
    np.testing.assert_allclose(out.mean(axis=0), x.mean(axis=0), rtol=1e-12)
    small = x[:100]  # N < 500: sdcMicro's other cc
    cc_small = np.sqrt((100 - 1 - 1.5) / (101 * 2.5))
    np.testing.assert_allclose(
        add_noise(small, "restr", 150, 0.1, None), cc_small * small + (1 - cc_small) * small.mean(0)
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    ("method", "sdcmicro"),
    [
        ("additive", [3.242127, 3.237149, 3.242807, 0.306193]),
        ("correlated2", [0.999771, 0.999664, 0.999576, 0.990042]),
    ],
)
def test_released_variance_and_correlation_agree_with_sdcmicro(method, sdcmicro):
    """The variance of each released variable over the original's, and cor(x1, x2) released over original, each the
    mean of 200 seeds: sdcMicro's addNoise(x, noise = 150, method) on the synthetic table (set.seed(1..200)) against
    privaudit's (NumPy seeds 0..199). The two means differ by less than 4 of their standard errors (~0.007 for the
    additive variances, ~0.0003 for correlated2's)."""
    x = synthetic()
    ratios = []
    for seed in range(200):
        out = add_noise(x, method, 150, 0.1, np.random.default_rng(seed))
        cor = np.corrcoef(out.T)[0, 1] / np.corrcoef(x.T)[0, 1]
        ratios.append([*(out.var(axis=0, ddof=1) / x.var(axis=0, ddof=1)), cor])
    mean, se = np.mean(ratios, axis=0), np.std(ratios, axis=0) / np.sqrt(200)
    assert np.all(np.abs(mean - np.array(sdcmicro)) < 4 * np.sqrt(2) * se), (mean, se)


def test_missing_stays_missing_and_a_constant_column_is_kept():
    x = np.array([[1.0, 5.0], [np.nan, 5.0], [3.0, 5.0], [4.0, np.nan]])
    for method in ("additive", "correlated2", "restr"):
        out = add_noise(x, method, 100, 0.1, np.random.default_rng(0))
        assert (np.isnan(out) == np.isnan(x)).all()
    out = add_noise(x, "additive", 100, 0.1, np.random.default_rng(0))
    assert (out[[0, 2], 1] == 5.0).all()  # sd 0: no noise


@settings(max_examples=30, deadline=None)
@given(percent=st.floats(0.01, 100), seed=st.integers(0, 2**31))
def test_weight_noise_is_muarguss(percent, seed):
    """µ-ARGUS's DoWeightNoise: w (1 + i/10000), i uniform in [-v/2, v - 1 - v/2], v = int(percent * 200)."""
    w = np.random.default_rng(seed).uniform(1, 1000, 5000)
    out = weight_noise(w, percent, np.random.default_rng(seed))
    steps = np.round((out / w - 1) * 10000)
    np.testing.assert_allclose(out, w * (1 + steps / 10000), rtol=1e-12)
    v = int(percent * 200)
    assert steps.min() >= -(v // 2) and steps.max() <= v - 1 - v // 2


def test_weight_noise_keeps_the_total_in_expectation():
    w = np.full(200_000, 100.0)
    out = weight_noise(w, 20, np.random.default_rng(2))
    assert abs(out.mean() / 100 - 1) < 5 * 0.2 / np.sqrt(3 * len(w)) + 5e-5
    assert out.min() >= 80 and out.max() < 120


def test_rank_swap_figures_are_sdcmicros():
    """rankSwap(x, variables = "x1") on the synthetic table (2,000 distinct values): sdcMicro groups 99 records
    at each end (its single-precision 2000 * 0.05f is 99.99999), to means 215 and 24.9, and the largest rank
    distance it swapped over 30 seeds is the bound D of privaudit's rank_swap, for R0 = 0.95 (the default),
    P = 0.10 (privaudit's P = 10 percent), P = 0.10 with no grouping, and K0 = 0.1."""
    x1 = synthetic()[:, 0]
    assert coded_counts(2000, 5, 5) == (99, 99)
    cases = [
        ({}, 163),
        ({"p": 10.0}, 179),
        ({"p": 10.0, "top_percent": 0, "bottom_percent": 0}, 199),
        ({"k0": 0.1}, 194),
    ]
    for options, largest in cases:
        result = rank_swap(x1, np.random.default_rng(1), **options)
        assert result.max_distance == largest, options
        if "top_percent" in options:
            assert result.top == result.bottom == 0 and sorted(result.values) == sorted(x1)
        else:
            assert (result.top, result.bottom) == (99, 99)
            assert result.top_mean == pytest.approx(215, rel=1e-12) and result.bottom_mean == pytest.approx(24.9)
            assert (result.values == result.top_mean).sum() == 99


def ranks(values: np.ndarray) -> np.ndarray:
    return np.argsort(np.argsort(values, kind="stable"), kind="stable")


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(st.integers(-(10**6), 10**6), min_size=2, max_size=400, unique=True),
    p=st.floats(0.1, 100),
    seed=st.integers(0, 2**31),
)
def test_rank_swap_is_a_permutation_of_pairs_within_p_percent(values, p, seed):
    """Without grouping, the released column is a permutation of the original; each record received the value
    of exactly one other, which received its value (a swap), and their ranks differ by less than n P / 100."""
    x = np.array(values, dtype=float)
    result = rank_swap(x, np.random.default_rng(seed), top_percent=0, bottom_percent=0, p=p)
    out = result.values
    assert sorted(out) == sorted(x)
    source = {v: i for i, v in enumerate(x)}
    partner = np.array([source[v] for v in out])  # whose value each record received
    assert (partner[partner] == np.arange(len(x))).all()  # pairs: a swap is mutual
    r = ranks(x)
    assert np.all(np.abs(r - r[partner]) < len(x) * p / 100)
    assert np.all(np.abs(r - r[partner]) <= result.max_distance)
    assert result.swapped == int((partner != np.arange(len(x))).sum())


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(
    values=st.lists(st.one_of(st.none(), st.integers(0, 50)), min_size=3, max_size=300),
    top=st.floats(0, 30),
    bottom=st.floats(0, 30),
    seed=st.integers(0, 2**31),
)
def test_rank_swap_groups_the_ends_and_permutes_the_rest(values, top, bottom, seed):
    """With ties and missing values: missing stays missing, the top and bottom groups get their means, and the
    other values are a permutation of the original ones."""
    x = np.array([np.nan if v is None else v for v in values], dtype=float)
    result = rank_swap(x, np.random.default_rng(seed), top_percent=top, bottom_percent=bottom, p=20)
    out = result.values
    assert (np.isnan(out) == np.isnan(x)).all()
    present = np.flatnonzero(~np.isnan(x))
    order = present[np.lexsort((-present, -x[present]))]
    high, low = order[: result.top], order[len(order) - result.bottom :]
    middle = order[result.top : len(order) - result.bottom]
    if result.top:
        assert np.allclose(out[high], x[high].mean())
    if result.bottom:
        assert np.allclose(out[low], x[low].mean())
    assert sorted(out[middle]) == sorted(x[middle])


def test_missing_value_option_is_never_swapped():
    x = np.array([0.0, 5, 0, 7, 9, 0, 11, 13, 0, 2])
    result = rank_swap(x, np.random.default_rng(0), 0, 0, p=100, missing=0.0)
    assert (result.values[x == 0] == 0).all() and sorted(result.values[x != 0]) == sorted(x[x != 0])


@pytest.mark.parametrize(("m", "distance"), [(10, 1), (1000, 2), (1000, 3), (5000, 40), (100_000, 5000)])
def test_pairing_is_within_the_distance_and_leaves_few(m, distance):
    partner = pair_within(m, distance, np.random.default_rng(m + distance))
    i = np.arange(m)
    assert (partner[partner] == i).all() and (np.abs(partner - i) <= distance).all()
    unpaired = (partner == i).mean()
    assert unpaired <= {1: 0.0, 2: 0.06, 3: 0.05, 40: 0.01, 5000: 0.001}[distance]


def test_pairing_distance_law_is_near_the_sequential_one():
    """The C++'s sequential draw (each free rank picks uniformly among the free ones within D above it), run in
    Python on 3,000 ranks, against the vectorised rounds: the mean distance of the pairs within 10 %."""

    def sequential(m: int, distance: int, rng: np.random.Generator) -> np.ndarray:
        taken, partner = np.zeros(m, dtype=bool), np.arange(m)
        for j in range(m):
            if taken[j]:
                continue
            free = [k for k in range(j + 1, min(m, j + distance + 1)) if not taken[k]]
            if free:
                k = free[int(rng.random() * len(free))]
                partner[j], partner[k], taken[j], taken[k] = k, j, True, True
        return partner

    i = np.arange(3000)
    for distance in (5, 60):
        a = sequential(3000, distance, np.random.default_rng(0))
        b = pair_within(3000, distance, np.random.default_rng(0))
        da, db = np.abs(a - i)[a != i].mean(), np.abs(b - i)[b != i].mean()
        assert abs(da - db) < 0.1 * da, (distance, da, db)
