"""Golden tests from Soria-Comas, Domingo-Ferrer, Sánchez & Martínez, "t-Closeness through Microaggregation"
(IEEE TKDE 27(11), 2015; the source papers, seeds/004): Propositions 1 and 2, Expressions (3) and (4), Table III on
the CASC "Census" data set, and Algorithm 2's GenerateCluster against a line-by-line reading of its listing.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privaudit.remediation.microaggregation._pool import RecordPool
from privaudit.remediation.microaggregation.api import microaggregate
from privaudit.remediation.microaggregation.cluster_emd import SensitiveDistribution, emd_ordered
from privaudit.remediation.microaggregation.tcloseness import _generate_cluster, t_closeness_first_k

CASC = Path(__file__).resolve().parent / "data" / "casc" / "CASCrefmicrodata.csv"


# ----------------------------------------------------------------------------- Propositions 1-2
def test_proposition_1_lower_bound_is_reached_by_the_medians():
    """Proposition 1, Formula (1): n = 15, k = 3; the cluster of the strata medians {3, 8, 13} reaches
    (n + k)(n - k) / (4 n (n - 1) k) = 18 * 12 / 2520 = 3/35."""
    n, k = 15, 3
    bound = Fraction((n + k) * (n - k), 4 * n * (n - 1) * k)
    assert bound == Fraction(3, 35)
    assert emd_ordered([3, 8, 13], np.arange(1, n + 1)) == pytest.approx(float(bound), abs=1e-15)
    dist = SensitiveDistribution.from_values(np.arange(1, n + 1))
    assert dist.emd_of_members([2, 7, 12]) == pytest.approx(3 / 35, abs=1e-15)
    # any other cluster of 3 is at least as far (the bound is tight and a minimum)
    rng = np.random.default_rng(0)
    for _ in range(200):
        assert dist.emd_of_members(rng.choice(n, 3, replace=False)) >= 3 / 35 - 1e-15


def test_proposition_2_upper_bound_is_reached_by_the_strata_minima():
    """Proposition 2, Formula (2): n = 12, k = 3; one record from each stratum, the smallest of each
    ({1, 5, 9}), reaches (n - k) / (2 (n - 1) k) = 9/66, and no one-per-stratum cluster exceeds it."""
    n, k = 12, 3
    bound = Fraction(n - k, 2 * (n - 1) * k)
    assert bound == Fraction(9, 66)
    assert emd_ordered([1, 5, 9], np.arange(1, n + 1)) == pytest.approx(float(bound), abs=1e-15)
    dist = SensitiveDistribution.from_values(np.arange(1, n + 1))
    for a in range(0, 4):
        for b in range(4, 8):
            for c in range(8, 12):
                assert dist.emd_of_members([a, b, c]) <= 9 / 66 + 1e-15


# ------------------------------------------------------------------------ Expressions (3) and (4)
@pytest.mark.parametrize("k", range(2, 31))
def test_expression_4_uses_the_floor_as_table_iii_does(k):
    """t = 0.01, n = 1080: (3) gives ceil(1080 / 22.58) = 48; 1080 mod 48 = 24, floor(1080/48) = 22;
    (4): 48 + floor(24/22) = 49 (Table III's 49 for every k); the listing's ceiling would give 50."""
    assert t_closeness_first_k(1080, k, 0.01) == 49


# ------------------------------------------------------------------------------------ Table III
TABLE_III = {  # k: minimum/average cluster size for t = 0.01, 0.05, ..., 0.25 (MCD and HCD alike)
    2: [49, 10, 6, 4, 3, 3, 2],
    5: [49, 10, 6, 5, 5, 5, 5],
    10: [49, 10, 10, 10, 10, 10, 10],
    15: [49, 15, 15, 15, 15, 15, 15],
    20: [49, 20, 20, 20, 20, 20, 20],
    25: [49, 25, 25, 25, 25, 25, 25],
    30: [49, 30, 30, 30, 30, 30, 30],
}
T_VALUES = [0.01, 0.05, 0.09, 0.13, 0.17, 0.21, 0.25]


@pytest.mark.slow
@pytest.mark.parametrize("confidential", ["FEDTAX", "FICA"])  # MCD, HCD
def test_table_iii_algorithm_3_cluster_sizes_on_casc(confidential):
    """Table III: Algorithm 3's minimum / average (rounded) cluster size on the 1,080 CASC records with
    TAXINC and POTHVAL as quasi-identifiers, every k in {2, 5, ..., 30} and t in {0.01, ..., 0.25}."""
    data = pd.read_csv(CASC)
    X, s = data[["TAXINC", "POTHVAL"]].to_numpy(), data[confidential].to_numpy()
    for k, row in TABLE_III.items():
        for t, expected in zip(T_VALUES, row, strict=False):
            result = microaggregate(X, s, k, t, "t-closeness-first")
            sizes = result.cluster_sizes
            assert (int(sizes.min()), int(round(sizes.mean()))) == (expected, expected), (confidential, k, t)
            assert result.verification.ok


# ------------------------------------------------------------------- Algorithm 2, GenerateCluster
def _listing_generate_cluster(Z, s, remaining: list[int], x: int, k: int, t: float) -> set[int]:
    """GenerateCluster read line by line (records are row indices of ``Z``; EMD against all of ``s``)."""
    if len(remaining) < 2 * k:
        return set(remaining)
    d = {r: float(((Z[r] - Z[x]) ** 2).sum()) for r in remaining}
    by_distance = sorted(remaining, key=lambda r: (d[r], r != x, r))
    C = by_distance[:k]  # kept in distance order
    rest = [r for r in sorted(remaining, key=lambda r: (d[r], r)) if r not in C]  # X' = X' \ C

    def emd(members):
        return emd_ordered(s[list(members)], s)

    while emd(C) > t + 1e-9 and rest:
        y = rest[0]
        trials = [emd([m for m in C if m != out] + [y]) for out in C]
        best = next(i for i, v in enumerate(trials) if v <= min(trials) + 1e-9)  # ties: the member nearer x
        if trials[best] < emd(C) - 1e-9:
            C = [m if i != best else y for i, m in enumerate(C)]
        rest = rest[1:]  # X' = X' \ {y}
    return set(C)


@settings(max_examples=60, deadline=None)
@given(st.integers(4, 28), st.integers(1, 4), st.sampled_from([0.0, 0.05, 0.1, 0.2, 0.3]), st.integers(0, 10**6))
def test_generate_cluster_follows_the_listing(n, k, t, seed):
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, 2))
    s = rng.integers(0, 6, size=n).astype(float)
    dist = SensitiveDistribution.from_values(s)
    pool = RecordPool(Z)
    x = int(rng.integers(n))
    got = {int(pool.ids[i]) for i in _generate_cluster(pool, x, dist, k, t, 1e-9)}
    assert got == _listing_generate_cluster(Z, s, list(range(n)), x, k, t)


def test_generate_cluster_may_swap_out_its_seed():
    """The listing lets y' be any member of C, the seed x included: here only x's value is wrong."""
    Z = np.array([[0.0], [0.1], [0.2], [5.0], [6.0], [7.0]])
    s = np.array([0.0, 1.0, 2.0, 0.0, 2.0, 1.0])  # C = {x, 1} has values {0, 1}; the table {0, 0, 1, 1, 2, 2}
    dist = SensitiveDistribution.from_values(s)
    C = _generate_cluster(RecordPool(Z), 0, dist, 2, 0.0, 1e-9)
    assert 0 not in set(C.tolist()) or dist.emd_of_members(C) <= dist.emd_of_members([0, 1])
    assert {int(i) for i in C} == _listing_generate_cluster(Z, s, list(range(6)), 0, 2, 0.0)
