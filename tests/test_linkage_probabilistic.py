"""Fellegi–Sunter probabilistic linkage: EM, label estimation, thresholds, blocking, chunking."""

from __future__ import annotations

import math
from itertools import product
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from privaudit.risk.linkage.blocking import default_blocking, encode_block_keys, iter_candidate_pairs
from privaudit.risk.linkage.em import fit_em, fit_match_prior
from privaudit.risk.linkage.fellegi_sunter import (
    ComparisonSpec,
    fs_thresholds,
    probabilistic_linkage,
)
from privaudit.risk.linkage.intruder import intruder_sample

DATA = Path(__file__).resolve().parent / "data" / "linkage_probabilistic"
ADULT = Path(__file__).resolve().parents[1] / "examples" / "adult" / "adult.csv"  # ARX's adult.csv (see README: Data)
ADULT_COLUMNS = [
    "sex",
    "age",
    "race",
    "marital-status",
    "education",
    "native-country",
    "workclass",
    "occupation",
    "salary-class",
]


def adult_comparisons(tolerances=(1, 5)):
    return [ComparisonSpec("age", "numeric", tolerances)] + [
        ComparisonSpec(c, "categorical") for c in ADULT_COLUMNS if c != "age"
    ]


def perturb(df: pd.DataFrame, seed: int, swap: float = 0.1, age_noise: int = 2) -> pd.DataFrame:
    """Age + uniform integer noise in [-age_noise, age_noise]; a share ``swap`` of every categorical column permuted."""
    rng = np.random.default_rng(seed)
    out = df.copy()
    if "age" in out:
        out["age"] = df["age"] + rng.integers(-age_noise, age_noise + 1, len(df))
    for c in out.columns:
        if c == "age":
            continue
        sel = np.flatnonzero(rng.random(len(df)) < swap)
        values = out[c].to_numpy(copy=True)
        values[sel] = values[rng.permutation(sel)]
        out[c] = values
    return out


# --------------------------------------------------------------------------- EM


def simulate_patterns(rng, lam, m, u, n_pairs, missing=0.0):
    """Agreement patterns from a known two-class mixture with conditionally independent attributes."""
    is_match = rng.random(n_pairs) < lam
    cols = []
    for ma, ua in zip(m, u, strict=False):
        lev = np.where(is_match, rng.choice(len(ma), n_pairs, p=ma), rng.choice(len(ua), n_pairs, p=ua))
        if missing:
            lev[rng.random(n_pairs) < missing] = -1
        cols.append(lev)
    levels, counts = np.unique(np.column_stack(cols), axis=0, return_counts=True)
    return levels, counts


M_TRUE = [np.array([0.9, 0.1]), np.array([0.85, 0.15]), np.array([0.6, 0.3, 0.1]), np.array([0.5, 0.3, 0.15, 0.05])]
U_TRUE = [np.array([0.3, 0.7]), np.array([0.1, 0.9]), np.array([0.05, 0.15, 0.8]), np.array([0.02, 0.08, 0.2, 0.7])]


@pytest.mark.parametrize("seed,lam,missing", [(0, 0.2, 0.0), (1, 0.05, 0.0), (2, 0.15, 0.1)])
def test_em_recovers_known_mixture(seed, lam, missing):
    rng = np.random.default_rng(seed)
    levels, counts = simulate_patterns(rng, lam, M_TRUE, U_TRUE, 200_000, missing)
    assert len(counts) <= 2 * 2 * 3 * 4 * 2 * 2 * 2 * 2  # EM input is the distinct patterns, not the pairs
    fit = fit_em(levels, counts, [2, 2, 3, 4])
    assert fit.converged
    assert fit.lambda_ == pytest.approx(lam, abs=0.02)
    for a in range(4):
        np.testing.assert_allclose(fit.m[a], M_TRUE[a], atol=0.02)
        np.testing.assert_allclose(fit.u[a], U_TRUE[a], atol=0.02)


def test_em_with_fixed_u_and_prior_only():
    rng = np.random.default_rng(3)
    levels, counts = simulate_patterns(rng, 0.1, M_TRUE, U_TRUE, 100_000)
    fit = fit_em(levels, counts, [2, 2, 3, 4], u_init=U_TRUE, fix_u=True)
    for a in range(4):
        np.testing.assert_allclose(fit.u[a], U_TRUE[a])  # held fixed
        np.testing.assert_allclose(fit.m[a], M_TRUE[a], atol=0.02)
    assert fit_match_prior(levels, counts, M_TRUE, U_TRUE) == pytest.approx(0.1, abs=0.01)


def test_em_on_counts_equals_em_on_pairs():
    rng = np.random.default_rng(4)
    levels, counts = simulate_patterns(rng, 0.3, M_TRUE[:2], U_TRUE[:2], 400)
    grouped = fit_em(levels, counts, [2, 2], max_iter=50)
    expanded = fit_em(np.repeat(levels, counts, axis=0), np.ones(counts.sum()), [2, 2], max_iter=50)
    assert grouped.lambda_ == pytest.approx(expanded.lambda_, rel=1e-9)
    np.testing.assert_allclose(grouped.m, expanded.m, rtol=1e-9)
    np.testing.assert_allclose(grouped.u, expanded.u, rtol=1e-9)


# --------------------------------------------------------------------------- labels on a hand-made case

HAND_ORIGINAL = pd.DataFrame({"age": [30, 31, 40, 50, 52], "sex": list("MFMFM")})
HAND_RELEASED = pd.DataFrame({"age": [30, 33, 41, 50, 60], "sex": list("MFFFM")})
HAND_SPECS = [ComparisonSpec("age", "numeric", (1, 5)), ComparisonSpec("sex", "categorical")]


def test_labels_hand_made_frequencies_and_decisions():
    # True pairs: age levels exact, <=5, <=1, exact, disagree; sex agrees except record 2.
    # Non-matching pairs (20): age differences give one <=1 (31 vs 30), two <=5 (30 vs 33, 52 vs 50),
    # 17 disagreements; sex agrees on 8 of them.
    r = probabilistic_linkage(
        HAND_ORIGINAL,
        HAND_RELEASED,
        HAND_SPECS,
        blocking=[],
        max_false_match_rate=0.1,
        max_false_non_match_rate=0.05,
    )
    e = r.get("labels")
    age, sex = e.attributes
    assert age.levels == ("exact", "<=1", "<=5", "disagree")
    np.testing.assert_allclose(age.m, [0.4, 0.2, 0.2, 0.2])
    np.testing.assert_allclose(age.u, [0.0, 0.05, 0.10, 0.85])
    np.testing.assert_allclose(sex.m, [0.8, 0.2])
    np.testing.assert_allclose(sex.u, [0.4, 0.6])
    # log2(m/u); u = 0 floored at half a count (0.5/20): log2(0.4/0.025) = 4
    np.testing.assert_allclose(age.weights, [4, 2, 1, math.log2(0.2 / 0.85)], atol=2**-19)
    np.testing.assert_allclose(sex.weights, [1, math.log2(0.2 / 0.6)], atol=2**-19)
    # Under U the total weight is >= 2 + log2(1/3) with probability 0.02+0.04+0.03 = 0.09 <= 0.1,
    # >= 1 + log2(1/3) with 0.15; under M it is below 1 + log2(0.2/0.85) with probability 0.04 <= 0.05.
    assert e.thresholds.upper == pytest.approx(2 + math.log2(1 / 3), abs=2**-18)
    assert e.thresholds.lower == pytest.approx(1 + math.log2(0.2 / 0.85), abs=2**-18)
    assert e.thresholds.false_match_rate == pytest.approx(0.09)
    assert e.thresholds.false_non_match_rate == pytest.approx(0.04)
    # pairs >= upper: (0,0) (1,0) (1,1) (2,2) (3,3); record 4's best candidate is record 3.
    assert e.n_links == 5
    assert e.pair_precision == pytest.approx(0.8)
    assert e.n_clerical == 11
    assert e.value == pytest.approx(0.8)
    assert e.top1_correct == pytest.approx(0.8)
    assert e.top_link_precision == pytest.approx(1.0)
    assert r.n_candidate_pairs == 25 and r.pair_recall == 1.0
    assert r.value == e.value and r.worst == "labels"


def test_missing_values_are_neutral_and_excluded_from_m_u():
    orig = pd.DataFrame({"age": [30.0, np.nan, 40.0, 50.0], "sex": ["M", "F", None, "F"]})
    rel = pd.DataFrame({"age": [30.0, 31.0, np.nan, 50.0], "sex": ["M", "F", "M", "F"]})
    r = probabilistic_linkage(orig, rel, HAND_SPECS, blocking=[])
    age, sex = r.get("labels").attributes
    # true pairs observed on age: records 0 and 3 (both exact)
    np.testing.assert_allclose(age.m, [1.0, 0.0, 0.0, 0.0])
    # sex observed on records 0, 1, 3 (all exact); non-matches observed: 3 left x 4 right - 3 = 9, 3 agree
    np.testing.assert_allclose(sex.m, [1.0, 0.0])
    np.testing.assert_allclose(sex.u, [3 / 9, 6 / 9])


# --------------------------------------------------------------------------- identity releases


def test_identity_release_with_distinctive_values_links_everything():
    rng = np.random.default_rng(5)
    n = 400
    df = pd.DataFrame(
        {
            "id": [f"p{i:04d}" for i in rng.permutation(n)],
            "zip": rng.integers(0, 20, n).astype(str),
            "age": rng.integers(18, 90, n),
            "sex": rng.choice(["M", "F"], n),
        }
    )
    specs = [
        ComparisonSpec("id", "categorical"),
        ComparisonSpec("zip", "categorical"),
        ComparisonSpec("age", "numeric", (2,)),
        ComparisonSpec("sex", "categorical"),
    ]
    r = probabilistic_linkage(df, df, specs, blocking=[["zip"], ["sex"]], estimation="both")
    assert r.pair_recall == 1.0
    assert r.get("labels").value == pytest.approx(1.0)
    assert r.get("labels").unique_top1_correct == pytest.approx(1.0)
    assert r.get("em").value >= 0.99
    assert r.value == pytest.approx(1.0)


def test_identity_release_top1_is_number_of_classes_over_n():
    """With every column compared and identical data, the own record ties with its class mates:
    the expected top-1 rate under random tie-breaking is (number of classes) / n."""
    df = pd.read_csv(DATA / "adult_first1000.csv", sep=";")
    expected = df.groupby(ADULT_COLUMNS).ngroups / len(df)
    r = probabilistic_linkage(df, df, adult_comparisons(), blocking=[["occupation"], ["education"]])
    e = r.get("labels")
    assert e.top1_correct == pytest.approx(expected, abs=1e-12)
    assert e.value == pytest.approx(expected, abs=1e-12)


def test_golden_adult_identity_equals_arx_average_prosecutor_risk():
    # ARX TestRiskMetrics.testAverageRisk2: average prosecutor risk of adult (all 9 attributes as QIs)
    df = pd.read_csv(ADULT, sep=";")
    r = probabilistic_linkage(df, df, adult_comparisons(), blocking=[ADULT_COLUMNS])
    assert r.get("labels").top1_correct == pytest.approx(0.6465751607983555, abs=1e-12)


# --------------------------------------------------------------------------- brute-force reference


def reference_linkage(orig, rel, specs, blocking, weights, upper):
    """Independent reference: the candidate pairs as a de-duplicated union of pandas merges,
    per-pair weights summed over an explicit pair list (missing values neutral), per-record top by groupby.
    Returns (number of pairs, top-1 rate, value) with ties credited 1/t."""
    n = len(orig)
    frames = []
    for rule in blocking:
        lk = orig[rule].assign(i=np.arange(n)).dropna()
        rk = rel[rule].assign(j=np.arange(len(rel))).dropna()
        frames.append(lk.merge(rk, on=rule)[["i", "j"]])
    pairs = pd.concat(frames).drop_duplicates()
    i, j = pairs["i"].to_numpy(), pairs["j"].to_numpy()
    w = np.zeros(len(pairs))
    for spec, ws in zip(specs, weights, strict=False):
        a = orig[spec.name].to_numpy(dtype=object)[i]
        b = rel[spec.name].to_numpy(dtype=object)[j]
        missing = pd.isna(a) | pd.isna(b)
        if spec.kind == "categorical":
            level = np.where(a == b, 0, 1)
        else:
            d = np.abs(np.where(missing, 0, a).astype(float) - np.where(missing, 0, b).astype(float))
            level = np.where(d == 0, 0, 1 + sum((d > t).astype(int) for t in spec.tolerances))
        w += np.where(missing, 0.0, np.asarray(ws)[level])
    g = pd.DataFrame({"i": i, "j": j, "w": w})
    g["top"] = g.groupby("i")["w"].transform("max")
    at_top = g[g["w"] >= g["top"] - 1e-9]
    ties = at_top.groupby("i").size()
    own = at_top[at_top["i"] == at_top["j"]]
    credit = 1.0 / ties.loc[own["i"]].to_numpy()
    return len(pairs), credit.sum() / n, credit[own["top"].to_numpy() >= upper].sum() / n


small_tables = (
    st.integers(20, 60)
    .flatmap(
        lambda n: st.fixed_dictionaries(
            {
                "a": st.lists(st.sampled_from("xyz"), min_size=n, max_size=n),
                "b": st.lists(st.sampled_from("pq"), min_size=n, max_size=n),
                "c": st.lists(st.integers(0, 3), min_size=n, max_size=n),
                "age": st.lists(st.integers(20, 30), min_size=n, max_size=n),
            }
        )
    )
    .map(pd.DataFrame)
)


@pytest.mark.slow
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_tables, st.integers(0, 10_000), st.integers(1, 500))
def test_vectorised_scan_matches_brute_force(df, seed, chunk):
    rel = perturb(df, seed, swap=0.3, age_noise=3)
    specs = [
        ComparisonSpec("a", "categorical"),
        ComparisonSpec("b", "categorical"),
        ComparisonSpec("c", "categorical"),
        ComparisonSpec("age", "numeric", (1, 2.5)),
    ]
    blocking = [["a"], ["b", "c"]]
    r = probabilistic_linkage(df, rel, specs, blocking=blocking, chunk_size=chunk)
    e = r.get("labels")
    n_pairs, top1, value = reference_linkage(
        df, rel, specs, blocking, [a.weights for a in e.attributes], e.thresholds.upper
    )
    assert r.n_candidate_pairs == n_pairs
    assert e.top1_correct == pytest.approx(top1, abs=1e-12)
    assert e.value == pytest.approx(value, abs=1e-12)


def test_packed_and_generic_paths_agree_with_many_columns_and_missing():
    """>8 packed categorical columns (two words), a column with >255 codes and one with missing values."""
    rng = np.random.default_rng(6)
    n = 300
    df = pd.DataFrame({f"k{i}": rng.integers(0, 3, n).astype(str) for i in range(10)})
    df["big"] = rng.integers(0, 280, n).astype(str)
    df["miss"] = pd.Series(rng.choice(["u", "v", None], n), dtype=object)
    df["num"] = rng.normal(0, 1, n).round(2)
    rel = perturb(df, 7, swap=0.2)
    rel["num"] = df["num"] + rng.normal(0, 0.3, n)
    specs = [ComparisonSpec(c, "categorical") for c in df.columns if c != "num"] + [
        ComparisonSpec("num", "numeric", (0.1, 0.5))
    ]
    blocking = [["k0", "k1"], ["k2", "k3"], ["miss"]]
    r = probabilistic_linkage(df, rel, specs, blocking=blocking, chunk_size=997)
    e = r.get("labels")
    n_pairs, top1, value = reference_linkage(
        df, rel, specs, blocking, [a.weights for a in e.attributes], e.thresholds.upper
    )
    assert r.n_candidate_pairs == n_pairs
    assert e.top1_correct == pytest.approx(top1, abs=1e-12)
    assert e.value == pytest.approx(value, abs=1e-12)


@pytest.mark.slow
def test_large_pattern_space_uses_sparse_counts_and_per_pair_deduplication():
    """12 numeric attributes with 3 tolerances (5**12 patterns): no weight table, sparse pattern counts,
    duplicates across rules found by comparing keys per pair; float values with missing ones."""
    rng = np.random.default_rng(9)
    n = 150
    df = pd.DataFrame({f"x{i}": rng.normal(0, 1, n).round(1) for i in range(12)})
    df["g"] = rng.integers(0, 4, n).astype(str)
    df["h"] = rng.integers(0, 3, n).astype(str)
    df.loc[rng.random(n) < 0.1, "x0"] = np.nan
    rel = df.copy()
    for i in range(12):
        rel[f"x{i}"] = df[f"x{i}"] + rng.normal(0, 0.4, n).round(1)
    specs = [ComparisonSpec(f"x{i}", "numeric", (0.15, 0.55, 1.05)) for i in range(12)] + [
        ComparisonSpec("g", "categorical")
    ]
    blocking = [["g"], ["h"]]
    r = probabilistic_linkage(df, rel, specs, blocking=blocking, estimation="both", chunk_size=777)
    for e in r.estimations:
        n_pairs, top1, value = reference_linkage(
            df, rel, specs, blocking, [a.weights for a in e.attributes], e.thresholds.upper
        )
        assert r.n_candidate_pairs == n_pairs
        assert e.top1_correct == pytest.approx(top1, abs=1e-12)
        assert e.value == pytest.approx(value, abs=1e-12)
    assert r.get("labels").top1_correct > 0.9


# --------------------------------------------------------------------------- chunking invariance


@pytest.fixture(scope="module")
def adult_small():
    df = pd.read_csv(DATA / "adult_first1000.csv", sep=";").iloc[:400].reset_index(drop=True)
    return df, perturb(df, 11)


def _summary(r):
    out = [r.n_candidate_pairs, r.pair_recall]
    for e in r.estimations:
        out += [
            e.value,
            e.top1_correct,
            e.unique_top1_correct,
            e.n_links,
            e.n_clerical,
            e.lambda_,
            e.thresholds.lower,
            e.thresholds.upper,
            [(a.m, a.u, a.weights) for a in e.attributes],
            e.warnings,
        ]
    return out


@pytest.mark.slow
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(chunk=st.integers(1, 20_000))
def test_chunking_does_not_change_results(adult_small, chunk):
    df, rel = adult_small
    kwargs = dict(blocking=[["occupation"], ["education", "sex"]], estimation="both", rows=0.5, seed=3)
    reference = probabilistic_linkage(df, rel, adult_comparisons(), chunk_size=10**7, **kwargs)
    chunked = probabilistic_linkage(df, rel, adult_comparisons(), chunk_size=chunk, **kwargs)
    np.testing.assert_equal(_summary(chunked), _summary(reference))


# --------------------------------------------------------------------------- thresholds


def test_thresholds_hand_case():
    w = [[math.log2(9), -math.log2(9)]]
    m, u = [[0.9, 0.1]], [[0.1, 0.9]]
    t = fs_thresholds(w, m, u, max_false_match_rate=0.1, max_false_non_match_rate=0.1)
    assert t.upper == pytest.approx(math.log2(9)) and t.lower == pytest.approx(math.log2(9))
    t = fs_thresholds(w, m, u, max_false_match_rate=0.05, max_false_non_match_rate=0.05)
    assert t.upper == math.inf and t.lower == pytest.approx(-math.log2(9))
    assert t.false_match_rate == 0.0 and t.false_non_match_rate == 0.0


def test_weight_distribution_grid_approximation_matches_exact():
    from privaudit.risk.linkage.fellegi_sunter.weights import weight_distribution as _weight_distribution

    rng = np.random.default_rng(10)
    m = [rng.dirichlet(np.ones(4)) for _ in range(6)]
    u = [rng.dirichlet(np.ones(4)) for _ in range(6)]
    w = [np.round(np.log2(a / b) * 2**20) / 2**20 for a, b in zip(m, u, strict=False)]
    exact = _weight_distribution(w, m, u)  # 4**6 patterns: exact enumeration
    grid = _weight_distribution(w, m, u, max_support=512)
    span = sum(x.max() - x.min() for x in w)
    step = 2.0 ** math.ceil(math.log2(span / (512 - 6)))
    for _vals, pm, pu in (exact, grid):
        assert pm.sum() == pytest.approx(1) and pu.sum() == pytest.approx(1)
    assert exact[0].size > 512 >= grid[0].size
    for k in (1, 2):  # means under M and U agree within the rounding bound
        assert np.dot(grid[0], grid[k]) == pytest.approx(np.dot(exact[0], exact[k]), abs=6 * step / 2)
    # CDFs agree up to a shift of at most A * step / 2
    for t in np.linspace(exact[0].min(), exact[0].max(), 25):
        for k in (1, 2):
            lo = exact[k][exact[0] <= t - 3 * step].sum()
            hi = exact[k][exact[0] <= t + 3 * step].sum()
            assert lo - 1e-12 <= grid[k][grid[0] <= t].sum() <= hi + 1e-12


def _distribution(draw, n):
    p = np.array(draw(st.lists(st.floats(0.01, 1.0), min_size=n, max_size=n)))
    return p / p.sum()


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(st.data())
def test_thresholds_are_ordered_and_meet_targets(data):
    n_attr = data.draw(st.integers(1, 5))
    sizes = [data.draw(st.integers(2, 4)) for _ in range(n_attr)]
    m = [_distribution(data.draw, k) for k in sizes]
    u = [_distribution(data.draw, k) for k in sizes]
    w = [np.round(np.log2(a / b) * 2**20) / 2**20 for a, b in zip(m, u, strict=False)]
    mu = data.draw(st.floats(0.0, 0.5))
    lam = data.draw(st.floats(0.0, 0.5))
    t = fs_thresholds(w, m, u, max_false_match_rate=mu, max_false_non_match_rate=lam)
    assert t.lower <= t.upper
    assert t.false_match_rate <= mu + 1e-9
    assert t.false_non_match_rate <= lam + 1e-9
    # brute force over all patterns
    totals, pm, pu = [], [], []
    for pattern in product(*[range(k) for k in sizes]):
        totals.append(sum(w[a][lv] for a, lv in enumerate(pattern)))
        pm.append(np.prod([m[a][lv] for a, lv in enumerate(pattern)]))
        pu.append(np.prod([u[a][lv] for a, lv in enumerate(pattern)]))
    totals, pm, pu = map(np.array, (totals, pm, pu))
    assert t.false_match_rate == pytest.approx(pu[totals >= t.upper].sum(), abs=1e-12)
    if math.isfinite(t.upper):  # no smaller attainable weight meets the false-match bound
        smaller = totals[totals < t.upper]
        if smaller.size:
            assert pu[totals >= smaller.max()].sum() > mu


# --------------------------------------------------------------------------- blocking and sampling


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(small_tables, st.integers(1, 300))
def test_candidate_pairs_are_the_deduplicated_union(df, chunk):
    rel = perturb(df, 1, swap=0.5)
    rules = [["a"], ["b", "c"], ["c"]]
    keys = encode_block_keys(df, rel, rules)
    got = []
    for ch in iter_candidate_pairs(keys, chunk):
        assert np.all(np.diff(ch.left) >= 0)
        got += list(zip(ch.left.tolist(), ch.right.tolist(), strict=False))
    expected = set()
    for rule in rules:
        merged = df[rule].assign(i=np.arange(len(df))).merge(rel[rule].assign(j=np.arange(len(rel))), on=rule)
        expected |= set(zip(merged["i"], merged["j"], strict=False))
    assert len(got) == len(set(got)) == len(expected)
    assert set(got) == expected


def test_default_blocking_prefers_effective_number_of_values():
    df = pd.DataFrame(
        {
            "skewed": ["a"] * 90 + [f"r{i}" for i in range(10)],  # 11 values, one dominant
            "even": [f"e{i % 8}" for i in range(100)],  # 8 balanced values
            "binary": ["x", "y"] * 50,
        }
    )
    assert default_blocking(df, ["skewed", "even", "binary"], n_rules=2) == [["even"], ["binary"]]
    # too many pairs with single columns: all pairs of the three best columns instead
    assert default_blocking(df, ["skewed", "even", "binary"], max_pairs=1000) == [
        ["even", "binary"],
        ["even", "skewed"],
        ["binary", "skewed"],
    ]
    assert default_blocking(df, ["skewed", "even", "binary"], max_pairs=None) == [["even"], ["binary"], ["skewed"]]


def test_default_blocking_on_adult_bounds_the_pairs():
    df = pd.read_csv(ADULT, sep=";")
    rules = default_blocking(df, [c for c in ADULT_COLUMNS if c != "age"])
    assert rules == [["occupation", "education"], ["occupation", "marital-status"], ["education", "marital-status"]]


def test_intruder_sample():
    assert intruder_sample(10, 1.0, 0).tolist() == list(range(10))
    s = intruder_sample(100, 0.25, 7)
    assert len(s) == 25 and np.all(np.diff(s) > 0)
    assert s.tolist() == intruder_sample(100, 0.25, 7).tolist()
    assert len(intruder_sample(100, 30, 7)) == 30
    with pytest.raises(ValueError):
        intruder_sample(10, 11, 0)
    with pytest.raises(ValueError):
        intruder_sample(10, 0.0, 0)
    with pytest.raises(TypeError):
        intruder_sample(10, True, 0)


def test_sample_and_progress(adult_small):
    df, rel = adult_small
    calls = []
    r = probabilistic_linkage(
        df,
        rel,
        adult_comparisons(),
        rows=100,
        estimation="both",
        chunk_size=5000,
        progress=lambda done, total: calls.append((done, total)),
    )
    assert r.n_intruder == 100 and r.n_released == len(df)
    assert calls and calls[-1][0] == calls[-1][1]
    assert all(a[0] <= b[0] for a, b in zip(calls, calls[1:], strict=False))
    assert r.blocking == tuple(
        map(
            tuple,
            default_blocking(
                df.iloc[intruder_sample(len(df), 100, 0)], [c for c in ADULT_COLUMNS if c != "age"], n_other=len(df)
            ),
        )
    )


def test_input_validation():
    with pytest.raises(ValueError):
        ComparisonSpec("x", "categorical", (1,))
    with pytest.raises(ValueError):
        ComparisonSpec("x", "numeric", (5, 1))
    with pytest.raises(ValueError):
        probabilistic_linkage(HAND_ORIGINAL, HAND_RELEASED.iloc[:4], HAND_SPECS)
    with pytest.raises(KeyError):
        probabilistic_linkage(HAND_ORIGINAL, HAND_RELEASED, [ComparisonSpec("zip", "categorical")])
    with pytest.raises(ValueError):
        probabilistic_linkage(HAND_ORIGINAL, HAND_RELEASED, HAND_SPECS, estimation="bayes")


# --------------------------------------------------------------------------- EM diagnostics


def test_em_diagnostics_flag_household_structure():
    """Households share surname/address; persons differ by age and sex, heavily perturbed in the release.
    Unsupervised EM with fitted u (no labels) learns 'same household', not identity, and says so."""
    rng = np.random.default_rng(8)
    n_hh, size = 150, 4
    hh = np.repeat(np.arange(n_hh), size)
    df = pd.DataFrame(
        {
            "surname": np.array([f"s{i}" for i in rng.integers(0, 60, n_hh)])[hh],
            "street": np.array([f"st{i}" for i in rng.integers(0, 40, n_hh)])[hh],
            "town": np.array([f"t{i}" for i in rng.integers(0, 5, n_hh)])[hh],
            "age": rng.integers(0, 90, n_hh * size),
            "sex": rng.choice(["M", "F"], n_hh * size),
        }
    )
    rel = df.copy()
    rel["age"] = df["age"] + rng.integers(-15, 16, len(df))
    rel["sex"] = np.where(rng.random(len(df)) < 0.4, rng.choice(["M", "F"], len(df)), df["sex"])
    specs = [
        ComparisonSpec("surname", "categorical"),
        ComparisonSpec("street", "categorical"),
        ComparisonSpec("age", "numeric", (2, 10)),
        ComparisonSpec("sex", "categorical"),
    ]
    r = probabilistic_linkage(df, rel, specs, blocking=[["town"]], estimation="both", em_u="em")
    em = r.get("em")
    assert em.warnings, "implausible EM fit must carry a warning"
    assert any("lambda" in w for w in em.warnings)
    assert em.lambda_ / em.expected_lambda > 3
    assert r.value == max(e.value for e in r.estimations)
