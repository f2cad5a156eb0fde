"""Individual re-identification risk (Benedetti-Franconi approximation, as sdcMicro's measure_risk).

Golden values: sdcMicro's measure_risk example on its testdata (bundled in tests/data/riskmodels,
see PROVENANCE.md there).
"""

from __future__ import annotations

import warnings
from decimal import Decimal, getcontext
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privaudit.risk.individual_risk import expected_reidentifications, global_risk, individual_risk

DATA = Path(__file__).resolve().parent / "data" / "riskmodels"
KEYS = ["urbrur", "roof", "walls", "water", "sex"]


@pytest.fixture(scope="module")
def testdata_frequencies() -> tuple[np.ndarray, np.ndarray]:
    """f_k and F_k (sum of sampling weights) per record, by a plain pandas groupby."""
    df = pd.read_csv(DATA / "testdata.csv")
    grouped = df.groupby(KEYS, dropna=False)["sampling_weight"]
    return grouped.transform("size").to_numpy(), grouped.transform("sum").to_numpy()


def reference_risk(f: int, big_f: float) -> float:
    """The three Benedetti-Franconi formulas in 50-digit decimal arithmetic (limit 1/f at p = 1)."""
    getcontext().prec = 50
    p = Decimal(f) / Decimal(big_f)
    if p == 1:
        return float(Decimal(1) / Decimal(f))
    q = p / (1 - p)
    log_inv_p = (1 / p).ln()
    if f == 1:
        return float(q * log_inv_p)
    if f == 2:
        return float(q - q * q * log_inv_p)
    return float(p / (f - (1 - p)))


# ----------------------------------------------------------------------------------------------
# Golden values
# ----------------------------------------------------------------------------------------------


def test_testdata_unweighted(testdata_frequencies):
    fk, _ = testdata_frequencies
    risk = individual_risk(fk, fk)
    assert np.allclose(risk, 1.0 / fk, rtol=0, atol=1e-15)
    assert expected_reidentifications(risk) == pytest.approx(93.0, rel=1e-12)


def test_testdata_weighted(testdata_frequencies):
    fk, big_fk = testdata_frequencies
    risk = individual_risk(fk, big_fk)
    assert round(expected_reidentifications(risk), 4) == 1.5272
    assert round(100 * global_risk(risk), 4) == 0.0333
    assert global_risk(risk) == pytest.approx(expected_reidentifications(risk) / len(fk))


# ----------------------------------------------------------------------------------------------
# Accuracy, including the removable singularity at p = 1
# ----------------------------------------------------------------------------------------------


def test_p_equal_one_gives_one_over_f_without_warnings():
    f = np.array([1, 2, 3, 10, 1, 2])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        risk = individual_risk(f, f.astype(float))
    assert np.array_equal(risk, 1.0 / f)


@pytest.mark.parametrize("f", [1, 2, 3, 8])
@pytest.mark.parametrize(
    "ratio",  # F / f
    [
        1 + 1e-15,
        1 + 1e-12,
        1 + 1e-8,
        1 + 1e-4,
        1 / 0.9501,
        1 / 0.95,
        1 / 0.9499,
        1.5,
        2.0,
        1.9999,
        2.0001,
        10,
        1e3,
        1e9,
    ],
)
def test_matches_high_precision_reference(f, ratio):
    big_f = f * ratio
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        risk = individual_risk(np.array([f]), np.array([big_f]))[0]
    assert risk == pytest.approx(reference_risk(f, big_f), rel=1e-13)


@settings(max_examples=200, deadline=None)
@given(f=st.integers(1, 50), log_ratio=st.floats(0.0, 25.0))
def test_bounded_and_matches_reference(f, log_ratio):
    big_f = f * float(np.exp(log_ratio))
    risk = individual_risk(np.array([f]), np.array([big_f]))[0]
    assert 0.0 < risk <= 1.0 / f * (1 + 1e-15)
    assert risk == pytest.approx(reference_risk(f, big_f), rel=1e-12)


@settings(max_examples=100, deadline=None)
@given(f=st.integers(1, 6), log_ratios=st.lists(st.floats(0.0, 12.0), min_size=2, max_size=30))
def test_risk_decreases_as_the_population_grows(f, log_ratios):
    big_f = f * np.exp(np.sort(np.array(log_ratios)))
    risk = individual_risk(np.full(big_f.size, f), big_f)
    assert np.all(np.diff(risk) <= 1e-15)


def test_population_smaller_than_sample_is_capped():
    # weights summing below f_k: treated as F_k = f_k (risk 1/f_k), not extrapolated past p = 1
    risk = individual_risk(np.array([1, 2, 4]), np.array([0.5, 1.0, 3.0]))
    assert np.array_equal(risk, np.array([1.0, 0.5, 0.25]))


def test_vectorised_over_mixed_records():
    fk = np.array([1, 2, 3, 1, 2, 5, 1])
    big_fk = np.array([10.0, 2.0, 300.0, 1.0, 7.5, 5.0, 1e6])
    risk = individual_risk(fk, big_fk)
    expected = [reference_risk(int(a), float(b)) for a, b in zip(fk, big_fk, strict=False)]
    assert risk == pytest.approx(expected, rel=1e-13)
    assert expected_reidentifications(risk) == pytest.approx(sum(expected), rel=1e-13)


@pytest.mark.parametrize(
    ("fk", "big_fk", "message"),
    [
        ([1, 2], [1.0], "same shape"),
        ([0, 2], [1.0, 2.0], "whole numbers >= 1"),
        ([1.5, 2], [3.0, 2.0], "whole numbers >= 1"),
        ([1, 2], [0.0, 2.0], "positive"),
        ([1, 2], [np.nan, 2.0], "finite"),
    ],
)
def test_invalid_input(fk, big_fk, message):
    with pytest.raises(ValueError, match=message):
        individual_risk(np.array(fk), np.array(big_fk))


def test_empty_input():
    risk = individual_risk(np.array([], dtype=int), np.array([]))
    assert risk.size == 0
    assert expected_reidentifications(risk) == 0.0 and global_risk(risk) == 0.0
