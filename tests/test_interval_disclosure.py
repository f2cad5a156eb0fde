"""Tests for privaudit.risk.interval (rank and sd interval disclosure)."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from privaudit.risk.interval import interval_disclosure, rank_interval_bounds


def frames(x, xm, name="v"):
    return pd.DataFrame({name: x}), pd.DataFrame({name: xm})


# ---------------------------------------------------------------- rank method, hand computed
def test_rank_hand_computed():
    # released values 10..100 stored in scrambled order; n = 10, p = 20 -> h = floor(20*10/200 + .5) = 1
    released = np.array([50, 10, 100, 30, 70, 20, 90, 40, 60, 80], dtype=float)
    # rank of 50 is 4 -> interval [40, 60]; 10 (rank 0) -> [10, 20]; 100 (rank 9) -> [90, 100];
    # 30 -> [20, 40]; 70 -> [60, 80]; 20 -> [10, 30]; 90 -> [80, 100]; 40 -> [30, 50]; 60 -> [50, 70];
    # 80 -> [70, 90]
    original = np.array([61, 20, 89, 20, 55, 31, 100, 29.9, 50, 75], dtype=float)
    expected = [False, True, False, True, False, False, True, False, True, True]
    o, r = frames(original, released)
    res = interval_disclosure(o, r, ["v"], method="rank", p=20)
    assert res.half_width_ranks == {"v": 1}
    assert res.disclosed["v"].tolist() == expected
    assert res.value == pytest.approx(0.5)
    # p = 0 -> h = 0: interval is the released value itself
    res0 = interval_disclosure(o, r, ["v"], method="rank", p=0)
    assert res0.value == 0.0
    # p = 40 -> h = 2: 50 -> [30, 70] now holds 61; 70 -> [50, 90] holds 55
    res40 = interval_disclosure(o, r, ["v"], method="rank", p=40)
    assert res40.disclosed["v"].iloc[0] and res40.disclosed["v"].iloc[4]


def test_rank_clamps_and_rounds_half_up():
    released = np.arange(8, dtype=float)  # n = 8
    # p = 25 -> p*n/200 = 1.0 -> h = 1; p = 18.75 -> 0.75 -> h = 1; p = 6.25 -> 0.25 -> h = 0
    assert rank_interval_bounds(released, 25)[2] == 1
    assert rank_interval_bounds(released, 18.75)[2] == 1
    assert rank_interval_bounds(released, 6.25)[2] == 0
    assert rank_interval_bounds(released, 12.5)[2] == 1  # 0.5 rounds up
    lo, hi, h = rank_interval_bounds(released, 50)  # h = 2
    assert h == 2
    assert lo.tolist() == [0, 0, 0, 1, 2, 3, 4, 5]
    assert hi.tolist() == [2, 3, 4, 5, 6, 7, 7, 7]


def test_rank_ties_share_one_interval():
    released = np.array([1, 2, 1, 3], dtype=float)  # sorted 1,1,2,3; tie block of 1 at positions 0-1
    lo, hi, h = rank_interval_bounds(released, 0)
    assert h == 0
    assert lo.tolist() == [1, 2, 1, 3] and hi.tolist() == [1, 2, 1, 3]
    lo, hi, h = rank_interval_bounds(released, 25)  # n = 4 -> h = 1
    assert h == 1
    assert lo.tolist() == [1, 1, 1, 2]
    assert hi.tolist() == [2, 3, 2, 3]  # the 1s: last tie position 1 + 1 = 2 -> value 2
    # a tie block wider than h: sorted 0,1,1,1,5 (n = 5, p = 20 -> h = 1); the 1s span positions 1-3
    lo5, hi5, h5 = rank_interval_bounds(np.array([1, 0, 1, 5, 1], dtype=float), 20)
    assert h5 == 1
    assert lo5.tolist() == [0, 0, 0, 1, 0]  # 1s: position 1 - 1 = 0 -> 0; 5 (pos 4) -> pos 3 -> 1
    assert hi5.tolist() == [5, 1, 5, 5, 5]  # 1s: position 3 + 1 = 4 -> 5; 0 (pos 0) -> pos 1 -> 1
    # order independence: permuting records permutes the result
    perm = np.array([3, 0, 2, 1])
    lo2, hi2, _ = rank_interval_bounds(released[perm], 25)
    assert lo2.tolist() == lo[perm].tolist() and hi2.tolist() == hi[perm].tolist()


# ---------------------------------------------------------------- sd method, hand computed
def test_sd_hand_computed_released_and_original_sd():
    xm = np.array([0.0, 10.0, 20.0])  # sample sd (n-1) = 10, population sd = 8.165
    x = np.array([0.4, 10.6, 20.5])  # |diff| = 0.4, 0.6, 0.5
    o, r = frames(x, xm)
    res = interval_disclosure(o, r, ["v"], method="sd", p=5, sd_of="released")  # bound 0.5
    assert res.disclosed["v"].tolist() == [True, False, True]
    assert res.value == pytest.approx(2 / 3)
    # sd of the original: mean 10.5, SS = 10.1^2 + 0.1^2 + 10^2 = 202.02, sd = sqrt(101.01) = 10.0504
    # p = 5.9 -> bound 0.59298: 0.6 still outside; p = 6 -> 0.60302: all inside
    assert interval_disclosure(o, r, ["v"], method="sd", p=5.9, sd_of="original").value == pytest.approx(2 / 3)
    assert interval_disclosure(o, r, ["v"], method="sd", p=6, sd_of="original").value == 1.0
    # with the released sd, p = 5.9 gives bound 0.59 (0.6 outside) -- same; p = 5.95 -> 0.595 outside
    assert interval_disclosure(o, r, ["v"], method="sd", p=5.95, sd_of="released").value == pytest.approx(2 / 3)


def test_sdcmicro_drisk_convention_two_attributes():
    """dRisk(x, xm, k = 0.05): released sd with n-1, closed bounds, all attributes inside.

    A: xm = 0,10,20,30 -> sd = sqrt(500/3) = 12.910, bound 0.6455 (population sd would give 0.5590)
    B: xm = 0,0,20,20  -> sd = sqrt(400/3) = 11.547, bound 0.5774 (population sd would give 0.5)
    offsets A: +0.6 in, +0.7 out, 0 in, -0.3 in;  B: 0 in, +0.55 in, +0.9 out, +0.1 in
    every attribute inside: records 0 and 3 -> 0.5 (sdcMicro 5.6.0: rowSums(outside) == 0)
    at most one outside: all four -> 1.0 (sdcMicro 4.5.0: rowSums(outside) %in% 0:1)
    with a population sd the first rule would give 0.25 (only record 3).
    """
    xm = pd.DataFrame({"A": [0.0, 10, 20, 30], "B": [0.0, 0, 20, 20]})
    x = pd.DataFrame({"A": [0.6, 10.7, 20.0, 29.7], "B": [0.0, 0.55, 20.9, 20.1]})
    res = interval_disclosure(x, xm, ["A", "B"], method="sd", p=5, sd_of="released")
    assert res.disclosed.to_numpy().tolist() == [[True, True], [False, True], [True, False], [True, True]]
    assert res.value == pytest.approx(0.5)
    assert res.per_attribute == {"A": pytest.approx(0.75), "B": pytest.approx(0.75)}
    old = interval_disclosure(x, xm, ["A", "B"], method="sd", p=5, sd_of="released", max_misses=1)
    assert old.value == 1.0


# ---------------------------------------------------------------- behaviour
@pytest.mark.parametrize("method", ["rank", "sd"])
def test_identity_release_is_fully_disclosed(method):
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"a": rng.normal(size=300), "b": rng.integers(0, 5, 300).astype(float)})
    res = interval_disclosure(df, df.copy(), ["a", "b"], method=method, p=1)
    assert res.value == 1.0 and res.per_attribute == {"a": 1.0, "b": 1.0}


def test_large_noise_gives_small_disclosure():
    rng = np.random.default_rng(2)
    x = rng.normal(size=2000)
    o, r = frames(x, x + rng.normal(scale=100.0, size=x.size))
    assert interval_disclosure(o, r, ["v"], method="sd", p=5, sd_of="original").value < 0.02
    # released values unrelated to the originals: a 5 % rank window catches about 5 %
    o, r = frames(x, rng.permutation(x))
    assert interval_disclosure(o, r, ["v"], method="rank", p=5).value < 0.1


def test_missing_values_are_not_disclosed():
    o = pd.DataFrame({"v": [1.0, np.nan, 3.0, 4.0]})
    r = pd.DataFrame({"v": [1.0, 2.0, np.nan, 4.0]})
    for method in ("rank", "sd"):
        res = interval_disclosure(o, r, ["v"], method=method, p=10)
        assert res.disclosed["v"].tolist() == [True, False, False, True]
        assert res.value == 0.5  # missing records stay in the denominator


def test_bad_input():
    o, r = frames([1.0, 2.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="rows"):
        interval_disclosure(o, r.iloc[:1], ["v"], method="sd", p=5)
    with pytest.raises(ValueError, match="lacks"):
        interval_disclosure(o, r, ["w"], method="sd", p=5)
    with pytest.raises(ValueError, match="not numeric"):
        interval_disclosure(pd.DataFrame({"v": ["a", "b"]}), r, ["v"], method="sd", p=5)
    with pytest.raises(ValueError, match="method"):
        interval_disclosure(o, r, ["v"], method="mad", p=5)


values = arrays(np.float64, st.integers(2, 40), elements=st.floats(-1e3, 1e3, allow_nan=False))


@settings(max_examples=60, deadline=None)
@given(
    values,
    st.data(),
    st.floats(0, 100),
    st.floats(0, 100),
    st.sampled_from(["rank", "sd"]),
    st.sampled_from(["original", "released"]),
)
def test_monotone_in_p(x, data, p1, p2, method, sd_of):
    noise = data.draw(arrays(np.float64, x.size, elements=st.floats(-50, 50, allow_nan=False)))
    o = pd.DataFrame({"a": x, "b": x[::-1].copy()})
    r = pd.DataFrame({"a": x + noise, "b": x[::-1] - noise})
    lo_p, hi_p = sorted((p1, p2))
    lo = interval_disclosure(o, r, ["a", "b"], method=method, p=lo_p, sd_of=sd_of)
    hi = interval_disclosure(o, r, ["a", "b"], method=method, p=hi_p, sd_of=sd_of)
    assert lo.value <= hi.value
    assert np.all(lo.disclosed.to_numpy() <= hi.disclosed.to_numpy())
