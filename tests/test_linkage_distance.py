"""Tests of distance-based record linkage (privaudit.risk.linkage.distance and helpers)."""

from __future__ import annotations

import contextlib
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import cdist

import privaudit.risk.linkage.neighbours as nb
from privaudit.risk.linkage import AttributeSpec, distance_linkage, intruder_sample
from privaudit.risk.linkage.assignment import one_to_one, row_types
from privaudit.risk.linkage.encoding import build_categorical_table, encode_pair
from privaudit.risk.linkage.neighbours import brute_force_knn

DATA = Path(__file__).resolve().parent / "data" / "linkage_distance"


def _read_hierarchy(path: Path) -> dict[str, list[str]]:
    rows = [line.strip().split(";") for line in path.read_text().splitlines() if line.strip()]
    return {r[0]: r[1:] for r in rows}


def _numeric_frame(rng: np.random.Generator, n: int, p: int) -> pd.DataFrame:
    return pd.DataFrame(rng.normal(size=(n, p)), columns=[f"x{j}" for j in range(p)])


# --------------------------------------------------------------------------- exact small cases


def test_identity_release_links_everything():
    rng = np.random.default_rng(1)
    orig = _numeric_frame(rng, 300, 3)
    orig["c"] = rng.choice(list("abcd"), 300)
    attrs = [AttributeSpec(c, "numeric") for c in ["x0", "x1", "x2"]] + [AttributeSpec("c", "categorical")]
    for assignment in ("nearest", "one_to_one"):
        res = distance_linkage(orig, orig.copy(), attrs, assignment=assignment)
        assert res.rate == 1.0 and res.correct == 300.0
        assert np.array_equal(res.linked_to, res.intruder_rows)
        assert np.all(res.nearest_distance == 0.0)


def test_identity_on_adult_counts_distinct_combinations():
    """Golden: identity release => expected correct links = number of distinct QI combinations."""
    df = pd.read_csv(DATA / "adult_head400.csv", sep=";")
    qis = ["age", "sex", "race", "marital-status", "education", "workclass"]
    attrs = [AttributeSpec("age", "numeric")] + [AttributeSpec(c, "categorical") for c in qis[1:]]
    expected = len(df[qis].drop_duplicates())
    assert expected < len(df)  # the slice does contain duplicates, so ties are exercised
    for assignment in ("nearest", "one_to_one"):
        res = distance_linkage(df, df.copy(), attrs, assignment=assignment)
        assert res.correct == pytest.approx(expected, abs=1e-9)


def test_ties_count_one_over_k():
    orig = pd.DataFrame({"c": ["a", "a", "a", "b", "c", "c"]})
    res = distance_linkage(orig, orig.copy(), [AttributeSpec("c", "categorical")])
    np.testing.assert_allclose(res.credit, [1 / 3, 1 / 3, 1 / 3, 1, 1 / 2, 1 / 2])
    assert res.correct == pytest.approx(3.0)
    # own record not among the tied nearest records: no credit at all
    rel = pd.DataFrame({"c": ["b", "a", "a", "b", "c", "c"]})
    res = distance_linkage(orig, rel, [AttributeSpec("c", "categorical")])
    np.testing.assert_allclose(res.credit, [0, 1 / 2, 1 / 2, 1 / 2, 1 / 2, 1 / 2])


def test_one_to_one_beats_nearest_on_crafted_case():
    # Each file standardized by its own mean and sd (slides 001): the original [0, 1, 2, 3] has z-scores
    # [-1.16, -0.39, 0.39, 1.16], the release [0, 0.5, 1, 6] (one far outlier) [-0.70, -0.52, -0.33, 1.55].
    # Record 1 (z = -0.39) is nearest to released 2 (-0.33): greedy links it wrongly; the global
    # assignment gives every record its own.
    orig = pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0]})
    rel = pd.DataFrame({"x": [0.0, 0.5, 1.0, 6.0]})
    attrs = [AttributeSpec("x", "numeric")]
    near = distance_linkage(orig, rel, attrs)
    o2o = distance_linkage(orig, rel, attrs, assignment="one_to_one")
    assert near.rate == 0.75 and list(near.linked_to) == [0, 2, 2, 3]
    assert o2o.rate == 1.0 and list(o2o.linked_to) == [0, 1, 2, 3]


def test_distinct_links_and_precision():
    orig = pd.DataFrame({"x": [0.0, 10.0, 20.0, 21.0]})
    rel = pd.DataFrame({"x": [0.1, 10.2, 21.0, 20.0]})  # 2 and 3 swapped
    res = distance_linkage(orig, rel, [AttributeSpec("x", "numeric")])
    # records 0, 1: distinct and correct; 2, 3: nearest is the other one at distance 0 -> distinct, wrong
    assert res.distinct_share == 1.0
    assert res.distinct_precision == 0.5
    assert res.rate == 0.5


def test_rate_by_class_size_buckets():
    orig = pd.DataFrame({"c": list("aabbbcccccccccccccdd")})  # 20 records
    rel = orig.copy()
    sizes = orig["c"].map(orig["c"].value_counts()).to_numpy()
    res = distance_linkage(orig, rel, [AttributeSpec("c", "categorical")], class_sizes=sizes, class_size_cap=10)
    by = {c.label: c for c in res.rate_by_class_size}
    assert set(by) == {"2", "3", ">10"}
    assert by["2"].records == 4 and by["2"].rate == pytest.approx(0.5)
    assert by["3"].records == 3 and by["3"].rate == pytest.approx(1 / 3)
    assert by[">10"].records == 13 and by[">10"].rate == pytest.approx(1 / 13)
    assert sum(c.correct for c in res.rate_by_class_size) == pytest.approx(res.correct)
    with pytest.raises(ValueError):
        distance_linkage(orig, rel, [AttributeSpec("c", "categorical")], class_sizes=sizes[:5])


def test_missing_values():
    # missing categorical = its own category; missing numeric = its own file's mean (z = 0)
    orig = pd.DataFrame({"c": ["a", None, "b"], "x": [-1.0, 0.0, 1.0]})
    rel = pd.DataFrame({"c": ["a", None, "b"], "x": [-1.0, np.nan, 1.0]})
    attrs = [AttributeSpec("c", "categorical"), AttributeSpec("x", "numeric")]
    res = distance_linkage(orig, rel, attrs)
    assert res.rate == 1.0
    assert res.nearest_distance[1] == 0.0  # NaN imputed by the mean 0, missing equals missing
    pair = encode_pair(orig, rel, attrs, np.arange(3))
    d = cdist(pair.query, pair.released, "sqeuclidean")
    # missing vs "a" is 1 on c; on x the original's z = 0 against the release's own z-score of -1,
    # (-1 - 0) / sd([-1, 1]) = -1/sqrt(2): 1/2 (each file standardized by its own mean and sd)
    assert d[1, 0] == pytest.approx(1.5)
    assert d[1, 1] == pytest.approx(0.0)


def test_zero_weight_equals_dropping_the_attribute():
    rng = np.random.default_rng(3)
    orig = _numeric_frame(rng, 200, 2)
    orig["c"] = rng.choice(list("ab"), 200)
    rel = orig.copy()
    rel[["x0", "x1"]] += rng.normal(scale=0.3, size=(200, 2))
    rel["c"] = rng.choice(list("ab"), 200)
    a = distance_linkage(
        orig,
        rel,
        [AttributeSpec("x0", "numeric"), AttributeSpec("x1", "numeric"), AttributeSpec("c", "categorical", weight=0)],
    )
    b = distance_linkage(orig, rel, [AttributeSpec("x0", "numeric"), AttributeSpec("x1", "numeric")])
    np.testing.assert_allclose(a.credit, b.credit)
    np.testing.assert_allclose(a.nearest_distance, b.nearest_distance)


def test_intruder_sample_rows_and_validation():
    assert list(intruder_sample(10, 1.0, 0)) == list(range(10))
    s = intruder_sample(100, 0.25, 7)
    assert len(s) == 25 and np.all(np.diff(s) > 0)
    assert np.array_equal(s, intruder_sample(100, 0.25, 7))
    assert len(intruder_sample(100, 3, 7)) == 3
    for bad in (0.0, 1.5, 0, 101, True, "x"):
        with pytest.raises((ValueError, TypeError)):
            intruder_sample(100, bad, 0)
    rng = np.random.default_rng(0)
    orig = _numeric_frame(rng, 50, 2)
    res = distance_linkage(orig, orig, [AttributeSpec("x0", "numeric")], rows=10, seed=4)
    assert res.n_intruder == 10 and np.array_equal(res.intruder_rows, intruder_sample(50, 10, 4))


def test_input_validation():
    df = pd.DataFrame({"x": [1.0, 2.0]})
    with pytest.raises(ValueError):
        distance_linkage(df, pd.DataFrame({"x": [1.0]}), [AttributeSpec("x", "numeric")])
    with pytest.raises(KeyError):
        distance_linkage(df, df, [AttributeSpec("y", "numeric")])
    with pytest.raises(ValueError):
        distance_linkage(df, df, [AttributeSpec("x", "numeric")], assignment="greedy")
    with pytest.raises(ValueError):
        distance_linkage(df, df, [AttributeSpec("x", "numeric")], metric="manhattan")
    with pytest.raises(ValueError):
        AttributeSpec("x", "numeric", hierarchy={"a": ["*"]})
    with pytest.raises(ValueError):
        AttributeSpec("x", "numeric", weight=-1)
    with pytest.raises(ValueError):
        distance_linkage(df, df, [AttributeSpec("x", "numeric", weight=0)])


def test_progress_is_monotone_and_complete():
    rng = np.random.default_rng(5)
    orig = _numeric_frame(rng, 400, 2)
    orig["c"] = rng.choice(list("abc"), 400)
    calls = []
    distance_linkage(
        orig,
        orig,
        [AttributeSpec("x0", "numeric"), AttributeSpec("c", "categorical")],
        worst_case=True,
        worst_case_sample=100,
        progress=lambda d, t: calls.append((d, t)),
    )
    done = [d for d, _ in calls]
    assert done == sorted(done) and calls[-1][0] == calls[-1][1]
    assert len({t for _, t in calls}) == 1


# --------------------------------------------------------------------------- hierarchies


def _lca_level(chains: dict[str, list[str]], a: str, b: str) -> int:
    ca, cb = [a, *chains[a]], [b, *chains[b]]
    return next(k for k in range(len(ca)) if ca[k:] == cb[k:])


def test_hierarchy_embedding_reproduces_tree_distance():
    chains = _read_hierarchy(DATA / "adult_hierarchy_education.csv")
    leaves = list(chains)
    height = len(next(iter(chains.values())))
    values = leaves + ["Higher education", "*", "Kindergarten", "\x00<missing>"]
    table = build_categorical_table(values, chains)
    emb = table.embedding
    d = np.sqrt(np.maximum(cdist(emb, emb, "sqeuclidean"), 0))
    for i, a in enumerate(leaves):
        for j, b in enumerate(leaves):
            assert d[i, j] == pytest.approx(_lca_level(chains, a, b) / height, abs=1e-12)
    hi, root, foreign, missing = (values.index(v) for v in ["Higher education", "*", "Kindergarten", "\x00<missing>"])
    level_hi = 2  # "Higher education" is a level-2 node in the ARX education hierarchy
    for i, a in enumerate(leaves):
        below = chains[a][level_hi - 1] == "Higher education"
        if below:
            assert d[i, hi] == pytest.approx(level_hi / (height * math.sqrt(2)))
        else:
            assert d[i, hi] > level_hi / (height * math.sqrt(2))
        assert d[i, root] == pytest.approx(1 / math.sqrt(2))
        assert d[i, foreign] == pytest.approx(1.0)
    assert d[foreign, missing] == pytest.approx(1.0)
    assert table.min_sq <= np.min(d[np.triu_indices(len(values), 1)] ** 2) + 1e-12


def test_hierarchy_object_and_mapping_agree():
    from privaudit.core.hierarchy import Hierarchy

    path = DATA / "adult_hierarchy_education.csv"
    chains = _read_hierarchy(path)
    df = pd.read_csv(DATA / "adult_head400.csv", sep=";")
    rel = df.copy()
    rel.loc[::7, "education"] = rel.loc[::7, "education"].map(lambda v: chains[v][0])  # generalise some
    a = distance_linkage(
        df, rel, [AttributeSpec("age", "numeric"), AttributeSpec("education", "categorical", hierarchy=chains)]
    )
    b = distance_linkage(
        df,
        rel,
        [
            AttributeSpec("age", "numeric"),
            AttributeSpec("education", "categorical", hierarchy=Hierarchy.from_csv(path)),
        ],
    )
    np.testing.assert_allclose(a.credit, b.credit)
    # the hierarchy makes generalised values informative: better than treating them as new categories
    c = distance_linkage(df, rel, [AttributeSpec("age", "numeric"), AttributeSpec("education", "categorical")])
    assert a.rate > c.rate


# --------------------------------------------------------------------------- search = brute force


@st.composite
def mixed_problem(draw):
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    m = draw(st.integers(1, 120))
    n = draw(st.integers(1, 60))
    p_num = draw(st.integers(0, 3))
    cards = draw(st.lists(st.integers(1, 5), min_size=0 if p_num else 1, max_size=3))
    noise = draw(st.sampled_from([0.0, 0.05, 0.5]))
    swap = draw(st.sampled_from([0.0, 0.2, 0.6]))
    weights = draw(
        st.lists(st.sampled_from([0.0, 0.5, 1.0, 3.0]), min_size=p_num + len(cards), max_size=p_num + len(cards))
    )
    if sum(weights) == 0:
        weights[0] = 1.0
    k = draw(st.integers(1, 6))
    orig = pd.DataFrame({f"x{j}": np.round(rng.normal(size=m), 1) for j in range(p_num)})
    for j, c in enumerate(cards):
        orig[f"c{j}"] = rng.integers(0, c, m).astype(str)
    rel = orig.copy()
    for j in range(p_num):
        rel[f"x{j}"] = orig[f"x{j}"] + rng.normal(scale=noise, size=m) * (noise > 0)
    for j, c in enumerate(cards):
        hit = rng.random(m) < swap
        rel.loc[hit, f"c{j}"] = rng.integers(0, c + 1, int(hit.sum())).astype(str)  # may add a new value
    names = [f"x{j}" for j in range(p_num)] + [f"c{j}" for j in range(len(cards))]
    attrs = [
        AttributeSpec(nm, "numeric" if nm[0] == "x" else "categorical", weight=w)
        for nm, w in zip(names, weights, strict=False)
    ]
    rows = np.sort(rng.choice(m, size=min(n, m), replace=False))
    return orig, rel, attrs, rows, k


def _index_for(orig, rel, attrs, rows):
    from privaudit.risk.linkage.distance import _Linker

    pair = encode_pair(orig, rel, attrs, rows)
    linker = _Linker(pair, rows)
    query, released = linker.scaled(pair.weights)
    index, active = linker.index(pair.weights, released)
    return index, query, released, pair.codes_query[:, active]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mixed_problem())
def test_blocked_search_equals_brute_force(problem):
    orig, rel, attrs, rows, k = problem
    index, query, released, codes = _index_for(orig, rel, attrs, rows)
    with tiny_chunks():
        dist, idx = index.query(query, codes, k)
    full = cdist(query, released)  # exact reference: all n x m distances (small problems)
    kk = min(k, len(released))
    np.testing.assert_allclose(dist[:, :kk], np.sort(full, axis=1)[:, :kk], rtol=1e-9, atol=1e-12)
    assert np.all(np.isinf(dist[:, kk:])) and np.all(idx[:, kk:] == -1)
    np.testing.assert_allclose(brute_force_knn(query, released, k)[0], dist, rtol=1e-9, atol=1e-12)
    # every returned index is at the returned distance, without repeats
    for i in range(len(query)):
        for j in range(min(k, len(released))):
            assert full[i, idx[i, j]] == pytest.approx(dist[i, j], abs=1e-9)
        assert len(set(idx[i, : min(k, len(released))])) == min(k, len(released))
    # tie counts equal brute-force counts
    radius = dist[:, 0] * (1 + 1e-9) + 1e-12
    with tiny_chunks():
        counts = index.count_within(query, codes, radius)
    np.testing.assert_array_equal(counts, np.count_nonzero(full <= radius[:, None] + 1e-12, axis=1))


@contextlib.contextmanager
def tiny_chunks():
    """Tiny chunk sizes so that the chunk loops, the probe and both far-point methods run."""
    saved = nb._CHUNK, nb._BRUTE_CELLS, nb._PROBE
    nb._CHUNK, nb._BRUTE_CELLS, nb._PROBE = 7, 50, 2
    try:
        yield
    finally:
        nb._CHUNK, nb._BRUTE_CELLS, nb._PROBE = saved


def test_far_points_use_both_methods_consistently():
    rng = np.random.default_rng(11)
    m = 400
    orig = pd.DataFrame(
        {"x": rng.normal(size=m), "a": rng.integers(0, 3, m).astype(str), "b": rng.integers(0, 3, m).astype(str)}
    )
    rel = orig.copy()
    rel["a"] = rng.integers(0, 3, m).astype(str)  # most records differ in a and/or b -> stages 2 and 3
    rel["b"] = rng.integers(0, 3, m).astype(str)
    attrs = [
        AttributeSpec("x", "numeric", weight=0.05),
        AttributeSpec("a", "categorical"),
        AttributeSpec("b", "categorical"),
    ]
    results = []
    for method in ("tree", "scan"):
        index, query, released, codes = _index_for(orig, rel, attrs, np.arange(m))
        index._far_method = method
        results.append(index.query(query, codes, 3))
    ref = brute_force_knn(query, released, 3)[0]
    for d, _ in results:
        np.testing.assert_allclose(d, ref, rtol=1e-9, atol=1e-12)


# --------------------------------------------------------------------------- assignment


def test_sparse_assignment_equals_dense_on_unique_data():
    rng = np.random.default_rng(2)
    n = 150
    x = rng.normal(size=(n, 3))
    y = x + rng.normal(scale=0.4, size=(n, 3))
    own = np.arange(n)

    def knn(q_rows, r_rows, k):
        d, i = brute_force_knn(x[q_rows], y[r_rows], k)
        return d, i

    dense = one_to_one(x, y, own, knn)
    sparse = one_to_one(x, y, own, knn, candidates=n, dense_max=0)
    np.testing.assert_array_equal(dense.p_own, sparse.p_own)
    assert sparse.p_unassigned.sum() == 0
    # restricted candidates stay feasible thanks to the dummies
    few = one_to_one(x, y, own, knn, candidates=1, dense_max=0)
    assert np.all((few.p_unassigned == 0) | (few.p_unassigned == 1))
    assert np.all(few.p_own + few.p_unassigned <= 1)


def test_assignment_with_identical_records_uses_expected_credit():
    # 3 identical intruder records and 3 identical released ones: each is correct w.p. 1/3
    x = np.array([[0.0], [0.0], [0.0], [5.0]])
    own = np.arange(4)

    def knn(q_rows, r_rows, k):
        return brute_force_knn(x[q_rows], x[r_rows], k)

    for kwargs in ({}, {"dense_max": 0, "candidates": 2}, {"dense_max": 0, "candidates": 2, "max_edges": 0}):
        res = one_to_one(x, x.copy(), own, knn, **kwargs)
        np.testing.assert_allclose(res.p_own, [1 / 3, 1 / 3, 1 / 3, 1])
    _, types, mult = row_types(x)
    assert list(mult) == [3, 1] and list(types) == [0, 0, 0, 1]


# --------------------------------------------------------------------------- metrics


def test_mahalanobis_equals_euclidean_after_whitening():
    rng = np.random.default_rng(8)
    n = 500
    cov = np.array([[1.0, 0.8, 0.3], [0.8, 1.0, 0.5], [0.3, 0.5, 2.0]])
    x = rng.multivariate_normal([0, 1, 2], cov, size=n)
    y = x + rng.normal(scale=0.3, size=x.shape)
    cols = ["a", "b", "c"]
    attrs = [AttributeSpec(c, "numeric") for c in cols]
    maha = distance_linkage(pd.DataFrame(x, columns=cols), pd.DataFrame(y, columns=cols), attrs, metric="mahalanobis")
    # each file standardized by its own mean and sd, then the Mahalanobis form with the original's
    # correlation matrix, averaged over the p = 3 attributes
    from privaudit.risk.linkage.encoding import _standardized

    zx, zy = _standardized(x), _standardized(y)
    d2 = cdist(zx, zy, "mahalanobis", VI=np.linalg.inv(np.cov(zx, rowvar=False))) ** 2 / 3
    np.testing.assert_allclose(maha.nearest_distance, np.sqrt(d2.min(axis=1)), rtol=1e-9)
    np.testing.assert_array_equal(maha.linked_to, d2.argmin(axis=1))
    # and it differs from euclidean on the raw, correlated data
    raw = distance_linkage(pd.DataFrame(x, columns=cols), pd.DataFrame(y, columns=cols), attrs)
    assert not np.allclose(raw.nearest_distance, maha.nearest_distance)


@pytest.mark.slow
def test_worst_case_weights_discard_a_pure_noise_attribute():
    rng = np.random.default_rng(21)
    n = 1500
    orig = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n), "z": rng.normal(size=n)})
    orig["c"] = rng.choice(list("abcdef"), n)
    rel = orig.copy()
    rel["a"] += rng.normal(scale=0.2, size=n)
    rel["b"] += rng.normal(scale=0.2, size=n)
    rel["z"] = rng.normal(size=n)  # pure noise: unrelated to the original
    hit = rng.random(n) < 0.1
    rel.loc[hit, "c"] = rng.choice(list("abcdef"), int(hit.sum()))
    attrs = [AttributeSpec(c, "numeric") for c in ["a", "b", "z"]] + [AttributeSpec("c", "categorical")]
    res = distance_linkage(orig, rel, attrs, worst_case=True, worst_case_sample=600)
    weights = dict(res.worst_case_weights)
    assert weights["z"] < 0.05
    assert res.worst_case_rate > res.rate  # uniform weights give the noise a quarter of the distance
    assert math.isclose(sum(weights.values()), 1.0)
    assert res.max_rate == res.worst_case_rate
    # the plain rate with the noise attribute dropped is what the learned weights approach
    clean = distance_linkage(orig, rel, [a for a in attrs if a.name != "z"])
    assert res.worst_case_rate >= 0.9 * clean.rate


def test_result_to_dict_is_json_serialisable():
    import json

    orig = pd.DataFrame({"x": [0.0, 1.0, 2.0], "c": ["a", "b", "a"]})
    res = distance_linkage(
        orig, orig, [AttributeSpec("x", "numeric"), AttributeSpec("c", "categorical")], class_sizes=np.array([2, 1, 2])
    )
    d = json.loads(json.dumps(res.to_dict()))
    assert d["rate"] == 1.0 and d["weights"] == {"x": 0.5, "c": 0.5}
    assert [c["class_size"] for c in d["rate_by_class_size"]] == ["1", "2"]


def test_embedding_size_guard():
    df = pd.DataFrame({"id": [f"v{i}" for i in range(3000)], "x": np.arange(3000.0)})
    attrs = [AttributeSpec("id", "categorical"), AttributeSpec("x", "numeric")]
    with pytest.raises(ValueError, match="GiB"):
        encode_pair(df, df, attrs, np.arange(3000), max_bytes=10_000_000)
    pair = encode_pair(df, df, attrs, np.arange(10))  # 3001 coordinates: fine under the default
    assert pair.released.shape == (3000, 3001)


def test_weight_lp_and_logistic_pick_the_separating_attribute():
    from privaudit.risk.linkage.worst_case import solve_weight_logistic, solve_weight_lp

    rng = np.random.default_rng(4)
    n_rec = 50
    record = np.repeat(np.arange(n_rec), 3)
    gaps = np.column_stack(
        [rng.uniform(0.5, 1.0, len(record)), rng.uniform(-1.0, -0.5, len(record)), rng.normal(0, 1, len(record))]
    )  # attribute 0 always favours the own record, 1 never, 2 at random
    w_lp = solve_weight_lp(gaps, record, n_rec, margin=0.1)
    w_lg = solve_weight_logistic(gaps, record, n_rec, np.ones(3))
    # the LP reaches zero total slack (every constraint met with the margin): any such w is optimal
    assert np.min(gaps @ w_lp) >= 0.1 - 1e-7
    assert w_lp.sum() == pytest.approx(1.0) and w_lp[1] < 1e-9
    assert w_lg.sum() == pytest.approx(1.0) and w_lg[0] > 0.9


@pytest.mark.slow
def test_worst_case_does_not_collapse_on_an_unperturbed_attribute():
    # the hinge LP alone puts all weight on the unperturbed binary d (every own record then ties
    # with half of the file); the learned weights must still link at least as well as uniform ones
    rng = np.random.default_rng(0)
    n = 800
    orig = pd.DataFrame({"x": rng.normal(size=n), "y": rng.normal(size=n), "d": rng.choice(["p", "q"], n)})
    rel = orig.copy()
    rel[["x", "y"]] += rng.normal(scale=0.3, size=(n, 2))
    attrs = [AttributeSpec("x", "numeric"), AttributeSpec("y", "numeric"), AttributeSpec("d", "categorical")]
    res = distance_linkage(orig, rel, attrs, worst_case=True)
    assert res.worst_case_rate >= 0.95 * res.rate
    assert dict(res.worst_case_weights)["d"] < 0.99
