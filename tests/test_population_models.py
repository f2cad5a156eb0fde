"""Population-uniqueness models (Pitman, Zayatz, SNB) and Dankar's decision rule.

Golden values: ARX's TestRiskMetrics on adult.csv (all 9 attributes as quasi-identifiers); the
class-size table is bundled in tests/data/riskmodels (see PROVENANCE.md there).
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import special, stats

from privaudit.risk.population import (
    PopulationUniqueness,
    class_size_histogram,
    pitman_fit,
    population_size_from_sampling_fraction,
    population_uniqueness,
    population_uniqueness_from_histogram,
    sampling_fraction_from_population_size,
    shlosser_classes,
    snb_fit,
    zayatz_uniqueness,
)

DATA = Path(__file__).resolve().parent / "data" / "riskmodels"


@pytest.fixture(scope="module")
def adult() -> tuple[np.ndarray, np.ndarray]:
    table = pd.read_csv(DATA / "adult_class_sizes.csv")
    return table["class_size"].to_numpy(), table["num_classes"].to_numpy()


@pytest.fixture(scope="module")
def adult_class_sizes(adult) -> np.ndarray:
    sizes, counts = adult
    return np.repeat(sizes, counts)


def arx_equal(value: float, expected: float) -> bool:
    """ARX's comparison: equal after truncation to four decimals."""
    return int(value * 10000) == int(expected * 10000)


# ----------------------------------------------------------------------------------------------
# Golden values (ARX TestRiskMetrics.testAverageRisk2 / testDecisionRule2)
# ----------------------------------------------------------------------------------------------


def test_adult_table_is_the_published_sample(adult):
    sizes, counts = adult
    assert int(np.dot(sizes, counts)) == 30162
    assert int(counts.sum()) == 19502


def test_adult_sample_measures(adult_class_sizes):
    res = population_uniqueness(adult_class_sizes, 0.1)
    assert res.average_prosecutor_risk == pytest.approx(0.6465751607983555, rel=1e-12)
    assert res.sample_uniqueness == pytest.approx(0.5142895033485844, rel=1e-12)
    assert res.n_records == 30162 and res.n_classes == 19502
    assert res.population_size == 301620


@pytest.mark.parametrize(
    ("fraction", "expected", "model"),
    [
        (0.1, 0.27684993883653597, "pitman"),
        (0.2, 0.3577099234829125, "zayatz"),
        (0.01, 0.1446083531167384, "pitman"),
        (1.0, 0.5142895033485844, "census"),
    ],
)
def test_adult_dankar_golden(adult_class_sizes, fraction, expected, model):
    res = population_uniqueness(adult_class_sizes, fraction)
    assert res.dankar_model == model
    assert arx_equal(res.dankar, expected)
    assert res.dankar == pytest.approx(expected, rel=1e-6)
    assert res.dankar <= res.sample_uniqueness + 1e-15


def test_adult_pitman_converges_and_zayatz_fallback_value(adult_class_sizes):
    res = population_uniqueness(adult_class_sizes, 0.1)
    assert res.pitman_converged
    assert res.pitman == res.dankar
    # the value ARX reports when Pitman does not converge and Zayatz is used instead
    assert arx_equal(res.zayatz, 0.3207402393466189)
    assert res.zayatz == pytest.approx(0.3207402393466189, rel=1e-9)


def test_adult_arx_snb_has_no_root(adult_class_sizes):
    # ARX's SNB equations have no admissible root on adult, so Dankar's rule uses Zayatz at f=0.2
    res = population_uniqueness(adult_class_sizes, 0.2)
    assert not res.snb_converged and math.isnan(res.snb)
    assert res.dankar == res.zayatz


def test_histogram_and_per_class_inputs_agree(adult, adult_class_sizes):
    sizes, counts = adult
    a = population_uniqueness_from_histogram(sizes, counts, 0.2)
    b = population_uniqueness(np.random.default_rng(3).permutation(adult_class_sizes), 0.2)
    assert a == b


def test_population_size_is_an_alternative_to_the_fraction(adult_class_sizes):
    by_fraction = population_uniqueness(adult_class_sizes, 0.1)
    by_size = population_uniqueness(adult_class_sizes, population_size=301620)
    assert by_fraction == by_size
    assert population_size_from_sampling_fraction(30162, 0.1) == 301620
    assert sampling_fraction_from_population_size(30162, 301620) == pytest.approx(0.1, rel=1e-15)


# ----------------------------------------------------------------------------------------------
# Each model against an independent computation of its defining equations
# ----------------------------------------------------------------------------------------------


def _pitman_loglik(theta, alpha, sizes, counts):
    """Log-likelihood of Pitman's sampling formula, written out with explicit sums."""
    n = int(np.dot(sizes, counts))
    u = int(counts.sum())
    i = np.arange(1, u)
    k = np.arange(1, n)
    within = sum(c * np.log(np.arange(1, j) - alpha).sum() for j, c in zip(sizes, counts, strict=False) if j > 1)
    return np.log(theta + i * alpha).sum() - np.log(theta + k).sum() + within


def _pitman_score(theta, alpha, sizes, counts):
    n = int(np.dot(sizes, counts))
    u = int(counts.sum())
    i = np.arange(1, u)
    k = np.arange(1, n)
    within = sum(c * (1.0 / (np.arange(1, j) - alpha)).sum() for j, c in zip(sizes, counts, strict=False) if j > 1)
    d_theta = (1.0 / (theta + i * alpha)).sum() - (1.0 / (theta + k)).sum()
    d_alpha = (i / (theta + i * alpha)).sum() - within
    return d_theta, d_alpha


def test_pitman_root_is_a_likelihood_maximum(adult):
    sizes, counts = adult
    fit = pitman_fit(sizes, counts, 301620)
    assert fit.converged
    d_theta, d_alpha = _pitman_score(fit.theta, fit.alpha, sizes, counts)
    assert abs(d_theta) <= 1e-6 and abs(d_alpha) <= 1e-6
    best = _pitman_loglik(fit.theta, fit.alpha, sizes, counts)
    for dt, da in [(1.0, 0), (-1.0, 0), (0, 1e-3), (0, -1e-3), (5.0, 1e-3), (-5.0, -1e-3)]:
        assert _pitman_loglik(fit.theta + dt, fit.alpha + da, sizes, counts) < best
    # population uniques: Gamma(theta+1)/Gamma(theta+alpha) N^alpha
    expected = math.exp(special.gammaln(fit.theta + 1) - special.gammaln(fit.theta + fit.alpha)) * 301620**fit.alpha
    assert fit.uniqueness == pytest.approx(expected / 301620, rel=1e-10)


def test_pitman_without_non_singleton_classes_has_no_estimate():
    fit = pitman_fit(np.array([1]), np.array([500]), 5000)
    assert not fit.converged and math.isnan(fit.uniqueness)


def test_zayatz_matches_scipy_hypergeometric():
    sizes = np.array([1, 2, 3, 5, 8, 40])
    counts = np.array([70, 20, 9, 4, 2, 1])
    n = int(np.dot(sizes, counts))
    big_n = 7 * n
    h = stats.hypergeom.pmf(1, big_n, sizes, n)
    conditional = counts[0] * h[0] / np.dot(counts, h)
    expected = counts[0] * conditional / (n / big_n) / big_n
    assert zayatz_uniqueness(sizes, counts, big_n) == pytest.approx(expected, rel=1e-9)


def test_zayatz_in_a_census_is_sample_uniqueness():
    sizes = np.array([1, 2, 7])
    counts = np.array([11, 4, 3])
    n = int(np.dot(sizes, counts))
    assert zayatz_uniqueness(sizes, counts, n) == pytest.approx(11 / n, rel=1e-14)


def _snb_expected_counts(k, alpha, beta, f):
    """E[c_1], E[c_2] by summing the NB(alpha, beta) x Binomial(F, f) mixture term by term."""
    big_f = np.arange(1, 20000)
    p_f = stats.nbinom.pmf(big_f - 1, alpha, beta)
    return (
        k * np.sum(p_f * stats.binom.pmf(1, big_f, f)),
        k * np.sum(p_f * stats.binom.pmf(2, big_f, f)),
    )


def test_corrected_snb_matches_the_first_two_sample_counts(adult):
    sizes, counts = adult
    fit = snb_fit(sizes, counts, 150810, variant="corrected")
    assert fit.converged and 0 < fit.alpha and 0 < fit.beta < 1
    e1, e2 = _snb_expected_counts(fit.classes, fit.alpha, fit.beta, 0.2)
    assert e1 == pytest.approx(15512, rel=1e-8)
    assert e2 == pytest.approx(2098, rel=1e-8)
    assert fit.uniqueness == pytest.approx(fit.classes * fit.beta**fit.alpha / 150810, rel=1e-12)


def test_corrected_snb_changes_dankar_choice_on_adult(adult_class_sizes):
    res = population_uniqueness(adult_class_sizes, 0.2, snb_variant="corrected")
    assert res.snb_converged
    assert res.snb < res.zayatz
    assert res.dankar_model == "snb" and res.dankar == res.snb


def test_arx_snb_root_solves_arx_equations():
    # ARX's second equation multiplies by (1-d)^(alpha+2); on this table (f = 0.9) it has a root
    sizes = np.arange(1, 14)
    counts = np.array([12000, 4764, 1958, 757, 317, 97, 66, 25, 10, 3, 1, 1, 1])
    n = int(np.dot(sizes, counts))
    big_n = population_size_from_sampling_fraction(n, 0.9)
    f = n / big_n
    fit = snb_fit(sizes, counts, big_n, variant="arx")
    assert fit.converged
    a, b, k = fit.alpha, fit.beta, fit.classes
    d = (1 - f) * (1 - b)
    e1 = k * f * (b / (1 - d)) ** a * (a * d / (1 - d) + 1)
    e2 = k * a * b**a * f * f * (1 - b) / 2 * (1 - d) ** (a + 2) * (2 - (1 - a) * d)
    assert e1 == pytest.approx(12000, rel=1e-8)
    assert e2 == pytest.approx(4764, rel=1e-8)


def test_shlosser_variants():
    sizes = np.array([1, 2, 3])
    counts = np.array([10, 5, 2])
    q = 0.3
    j, c = sizes.astype(float), counts.astype(float)
    ratio = (np.sum((1 - q) ** j * c) / np.sum(j * q * (1 - q) ** (j - 1) * c)) ** 2
    top = np.sum(j * q * q * (1 - q * q) ** (j - 1) * c)
    corrected = 17 + 10 * top / np.sum((1 - q) ** j * ((1 + q) ** j - 1) * c) * ratio
    arx = 17 + 10 * top / (np.sum(c * (1 - q) ** j * (1 + q) ** j) - 3) * ratio
    assert shlosser_classes(sizes, counts, q, "corrected") == pytest.approx(corrected, rel=1e-13)
    assert shlosser_classes(sizes, counts, q, "arx") == pytest.approx(arx, rel=1e-13)


# ----------------------------------------------------------------------------------------------
# Special cases and input handling
# ----------------------------------------------------------------------------------------------


def test_no_sample_uniques_means_no_population_uniques():
    res = population_uniqueness(np.array([2, 3, 3, 9]), 0.05)
    assert (res.pitman, res.zayatz, res.snb, res.dankar) == (0.0, 0.0, 0.0, 0.0)
    assert res.dankar_model == "none"


def test_census_returns_sample_uniqueness():
    res = population_uniqueness(np.array([1, 1, 1, 2, 5]), 1.0)
    assert res.dankar_model == "census"
    assert res.dankar == pytest.approx(3 / 10)


def test_all_unique_sample():
    res = population_uniqueness(np.ones(2000, dtype=int), 0.05)
    assert not res.pitman_converged
    assert res.dankar_model == "zayatz" and res.dankar == pytest.approx(1.0, rel=1e-12)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(class_sizes=np.array([1, 0, 2]), sampling_fraction=0.1), ">= 1"),
        (dict(class_sizes=np.array([1.5, 2]), sampling_fraction=0.1), "whole"),
        (dict(class_sizes=np.array([], dtype=int), sampling_fraction=0.1), "non-empty"),
        (dict(class_sizes=np.array([1, 2]), sampling_fraction=0.0), "sampling_fraction"),
        (dict(class_sizes=np.array([1, 2]), sampling_fraction=1.5), "sampling_fraction"),
        (dict(class_sizes=np.array([1, 2])), "exactly one"),
        (dict(class_sizes=np.array([1, 2]), sampling_fraction=0.1, population_size=30), "exactly one"),
        (dict(class_sizes=np.array([1, 2]), population_size=2), "at least"),
        (dict(class_sizes=np.array([1, 2]), sampling_fraction=0.1, snb_variant="x"), "variant"),
    ],
)
def test_invalid_input(kwargs, message):
    with pytest.raises(ValueError, match=message):
        population_uniqueness(**kwargs)


def test_class_size_histogram():
    sizes, counts = class_size_histogram(np.array([3, 1, 1, 3, 7]))
    assert sizes.tolist() == [1, 3, 7] and counts.tolist() == [2, 2, 1]


def test_many_classes_is_fast_enough_and_warning_free():
    rng = np.random.default_rng(11)
    class_sizes = rng.zipf(1.8, size=300_000).clip(max=100_000)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = population_uniqueness(class_sizes, 0.05)
    assert res.pitman_converged and res.dankar_model == "pitman"
    assert 0.0 < res.dankar < res.sample_uniqueness


# ----------------------------------------------------------------------------------------------
# Properties
# ----------------------------------------------------------------------------------------------

# class-size histograms: mostly with sample uniques (size 1), plus up to 7 larger sizes
histograms = st.tuples(
    st.integers(0, 300),
    st.lists(st.tuples(st.integers(2, 40), st.integers(1, 80)), min_size=0, max_size=7, unique_by=lambda t: t[0]),
).filter(lambda h: h[0] > 0 or h[1])


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hist=histograms, fraction=st.one_of(st.floats(0.001, 0.1), st.floats(0.1, 1.0)))
def test_properties(hist, fraction):
    uniques, others = hist
    sizes = np.array([1] + [s for s, _ in others])
    counts = np.array([uniques] + [c for _, c in others])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res: PopulationUniqueness = population_uniqueness_from_histogram(sizes, counts, fraction)
    for value in (res.pitman, res.zayatz, res.snb, res.dankar):
        assert math.isnan(value) or 0.0 <= value <= 1.0
    # Zayatz: a share of the sample uniques, so never above the sample uniqueness
    assert res.zayatz <= res.sample_uniqueness * (1 + 1e-12)
    chosen = {"pitman": res.pitman, "zayatz": res.zayatz, "snb": res.snb}
    if res.dankar_model in chosen:
        assert res.dankar == chosen[res.dankar_model]
    if res.sample_uniqueness == 0:
        assert res.dankar_model == "none" and res.dankar == 0.0
    elif res.population_size == res.n_records:
        assert res.dankar_model == "census" and res.dankar == res.sample_uniqueness
    elif res.sampling_fraction <= 0.1:
        usable = res.pitman_converged and res.pitman != 0.0
        assert res.dankar_model == ("pitman" if usable else "zayatz")
    else:
        if res.snb_converged and res.snb != 0.0:
            assert res.dankar == min(res.zayatz, res.snb)
        else:
            assert res.dankar_model == "zayatz"
    # the result depends on the multiset of class sizes only
    shuffled = np.random.default_rng(0).permutation(np.repeat(sizes, counts))
    assert population_uniqueness(shuffled, fraction) == res
