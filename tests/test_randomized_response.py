"""Tests for privaudit.risk.randomized_response (Guo, Ying & Wu 2011 attribute disclosure under RR)."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privaudit.risk.randomized_response import (
    apply_kronecker,
    distortion_matrix_keep,
    estimate_joint,
    keep_probability_matrices,
    load_distortion_matrix,
    randomize,
    reconstruction_probability,
    rr_attribute_disclosure,
    rr_risk_table,
)

SEX = ["female", "male"]
DISEASE = ["cancer", "flu", "hiv"]
# 2 x 3 table, pi(female, cancer) = 0.12; 100 records reproduce it exactly
PI_2x3 = np.array([[0.12, 0.20, 0.08], [0.10, 0.35, 0.15]])


def table_frame(pi, labels, names, n=100):
    """A frame whose cell counts are exactly n * pi (pi must be a multiple of 1/n)."""
    counts = np.rint(pi * n).astype(int)
    assert counts.sum() == n
    cells = np.repeat(np.arange(pi.size), counts.ravel())
    idx = np.unravel_index(cells, pi.shape)
    return pd.DataFrame({c: np.asarray(lab, dtype=object)[i] for c, lab, i in zip(names, labels, idx, strict=False)})


def column_stochastic(rng, d):
    m = rng.random((d, d)) + np.eye(d) * d  # diagonally dominant -> invertible
    return m / m.sum(axis=0)


# ---------------------------------------------------------------- Kronecker-free algebra
@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 4), st.booleans()), min_size=1, max_size=4), st.integers(0, 2**32 - 1))
def test_kronecker_free_product_equals_np_kron(spec, seed):
    rng = np.random.default_rng(seed)
    dims = [d for d, _ in spec]
    factors = [None if ident else rng.normal(size=(d, d)) for d, ident in spec]
    x = rng.normal(size=dims)
    full = np.ones((1, 1))
    for f, d in zip(factors, dims, strict=False):
        full = np.kron(full, np.eye(d) if f is None else f)
    assert np.allclose(apply_kronecker(factors, x).ravel(), full @ x.ravel())
    # elementwise square and transpose factor too: (P∘P)^T = ⊗ (P_i∘P_i)^T
    sq_t = [None if f is None else (f * f).T for f in factors]
    assert np.allclose(apply_kronecker(sq_t, x).ravel(), (full * full).T @ x.ravel())


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=2, max_size=4), st.integers(0, 2**32 - 1))
def test_reconstruction_probability_and_risk_match_explicit_formulas(dims, seed):
    rng = np.random.default_rng(seed)
    factors = [column_stochastic(rng, d) for d in dims]
    pi = rng.dirichlet(np.ones(int(np.prod(dims)))).reshape(dims)
    full = np.ones((1, 1))
    for f in factors:
        full = np.kron(full, f)
    lam = full @ pi.ravel()
    eta = (full**2 / lam[:, None]).sum(axis=0) * pi.ravel()  # Lemma 1, term by term
    assert np.allclose(reconstruction_probability(factors, pi).ravel(), eta)
    # risk(alpha, u) = eta_QI(alpha) eta_S(u|alpha) pi_au / pi_a, written out with the full QI matrix
    pq = np.ones((1, 1))
    for f in factors[:-1]:
        pq = np.kron(pq, f)
    ps = factors[-1]
    flat = pi.reshape(-1, dims[-1])
    pa = flat.sum(axis=1)
    eta_q = (pq**2 / (pq @ pa)[:, None]).sum(axis=0) * pa
    expected = np.empty_like(flat)
    for a in range(flat.shape[0]):
        for u in range(flat.shape[1]):
            eta_s = sum(ps[v, u] ** 2 * flat[a, u] / (ps[v] @ flat[a]) for v in range(dims[-1]))
            expected[a, u] = eta_q[a] * eta_s * flat[a, u] / pa[a]
    assert np.allclose(rr_risk_table(pi, factors).reshape(flat.shape), expected)


# ---------------------------------------------------------------- limits on the 2 x 3 table
def test_no_randomization_gives_l_diversity_risk():
    df = table_frame(PI_2x3, [SEX, DISEASE], ["sex", "disease"])
    res = rr_attribute_disclosure(df, ["sex"], "disease", {}, original=df)
    assert np.allclose(res.risk, PI_2x3 / PI_2x3.sum(axis=1, keepdims=True))
    assert res.value == pytest.approx(0.35 / 0.60)
    assert res.argmax == {"sex": "male", "disease": "flu"}
    # released-only estimate with identity matrices is the same table
    assert np.allclose(rr_attribute_disclosure(df, ["sex"], "disease", {}).risk, res.risk)


def test_full_qi_randomization_gives_joint_probability():
    df = table_frame(PI_2x3, [SEX, DISEASE], ["sex", "disease"])
    full = {"sex": (SEX, distortion_matrix_keep(2, 0.5))}  # p = 1/d: released sex carries no information
    res = rr_attribute_disclosure(df, ["sex"], "disease", full, original=df)
    assert res.risk[0, 0] == pytest.approx(0.12, abs=1e-15)
    assert np.allclose(res.risk, PI_2x3)
    assert res.value == pytest.approx(0.35)
    # S randomized as well (keep 0.6, off-diagonal 0.2): risk = eta_S(u|alpha) pi_au. By hand for
    # (female, cancer): S | female = (0.3, 0.5, 0.2); lambda_v = 0.32, 0.40, 0.28;
    # eta_S = 0.36*0.3/0.32 + 0.04*0.3/0.40 + 0.04*0.3/0.28 = 0.41035714; risk = 0.12 * that
    both = dict(full, disease=(DISEASE, distortion_matrix_keep(3, 0.6)))
    risk = rr_attribute_disclosure(df, ["sex"], "disease", both, original=df).risk
    ps = distortion_matrix_keep(3, 0.6)
    row = PI_2x3[0] / PI_2x3[0].sum()
    eta_s = sum(ps[v, 0] ** 2 * row[0] / (ps[v] @ row) for v in range(3))
    assert risk[0, 0] == pytest.approx(eta_s * 0.12)
    assert risk[0, 0] == pytest.approx(0.12 * (0.3375 + 0.03 + 0.012 / 0.28), abs=1e-12)


def test_risk_decreases_with_stronger_qi_randomization():
    values = [rr_risk_table(PI_2x3, [distortion_matrix_keep(2, p), None]).max() for p in (1.0, 0.9, 0.75, 0.6, 0.5)]
    assert values == sorted(values, reverse=True)
    assert values[0] == pytest.approx(0.35 / 0.60) and values[-1] == pytest.approx(0.35)


# ---------------------------------------------------------------- Monte Carlo attack
@pytest.mark.slow
def test_monte_carlo_attack_agrees_with_formula():
    """Simulate the linking attack on a large randomized sample and compare with eta_QI eta_S pi_au/pi_a.

    The attacker estimates pi from the released data, samples each record's QI from the posterior
    Pr(QI | released QI), its S from Pr(S | released S, QI group), and draws a record of the
    victim's group (the pi_au / pi_a factor). Success = all three hit the truth.
    """
    rng = np.random.default_rng(7)
    names, labels = ["sex", "age", "disease"], [SEX, ["young", "mid", "old"], DISEASE]
    pi = rng.dirichlet(np.ones(18)).reshape(2, 3, 3)
    n = 200_000
    cells = rng.choice(18, size=n, p=pi.ravel())
    orig = np.column_stack(np.unravel_index(cells, pi.shape))
    df = pd.DataFrame(
        {c: np.asarray(lab, dtype=object)[orig[:, i]] for i, (c, lab) in enumerate(zip(names, labels, strict=False))}
    )
    mats = {
        "sex": (SEX, distortion_matrix_keep(2, 0.75)),
        "age": (labels[1], distortion_matrix_keep(3, 0.6)),
        "disease": (DISEASE, distortion_matrix_keep(3, 0.7)),
    }
    released = randomize(df, mats, seed=11)
    rel = np.column_stack([pd.Index(lab).get_indexer(released[c]) for c, lab in zip(names, labels, strict=False)])

    estimated = rr_attribute_disclosure(released, ["sex", "age"], "disease", mats)
    truth = rr_attribute_disclosure(released, ["sex", "age"], "disease", mats, original=df)
    assert estimated.estimated and truth.records_mapped_to == "original"
    assert np.abs(estimated.pi - truth.pi).max() < 0.01  # inversion estimator is close
    pi_hat = estimated.pi.reshape(6, 3)

    def sample(cdf_rows):
        return (rng.random(len(cdf_rows))[:, None] > cdf_rows).sum(axis=1)

    # QI: posterior[nu, mu] = P[nu, mu] pi_mu / lambda_nu with the estimated QI marginal
    pq = np.kron(mats["sex"][1], mats["age"][1])
    pa_hat = pi_hat.sum(axis=1)
    post_q = pq * pa_hat[None, :] / (pq @ pa_hat)[:, None]
    mu, nu = orig[:, 0] * 3 + orig[:, 1], rel[:, 0] * 3 + rel[:, 1]
    hit_q = sample(np.cumsum(post_q, axis=1)[nu]) == mu
    # S inside the victim's group: posterior[v, alpha, u] ∝ P_s[v, u] pi_hat[alpha, u]
    ps = mats["disease"][1]
    post_s = ps[:, None, :] * pi_hat[None, :, :]
    post_s /= post_s.sum(axis=-1, keepdims=True)
    hit_s = sample(np.cumsum(post_s, axis=-1)[rel[:, 2], mu]) == orig[:, 2]
    # a random original record of the victim's group carries the victim's S
    order = np.argsort(mu, kind="stable")
    start, size = np.searchsorted(mu[order], np.arange(6)), np.bincount(mu, minlength=6)
    pick = order[start[mu] + (rng.random(n) * size[mu]).astype(int)]
    hit_c = orig[pick, 2] == orig[:, 2]

    cell = mu * 3 + orig[:, 2]
    count = np.bincount(cell, minlength=18)
    empirical = np.bincount(cell, weights=hit_q & hit_s & hit_c, minlength=18) / count
    formula = truth.risk.ravel()
    se = np.sqrt(formula * (1 - formula) / count)
    # sampling error of the attack (4.5 se) plus a small allowance for the estimated posterior
    assert np.all(np.abs(empirical - formula) <= 4.5 * se + 0.006), np.c_[empirical, formula, se]
    # the QI factor alone: Lemma 1's eta(alpha) is the chance that the posterior guess is right
    eta_q = reconstruction_probability([mats["sex"][1], mats["age"][1]], truth.pi.sum(axis=-1)).ravel()
    emp_q = np.bincount(mu, weights=hit_q, minlength=6) / size
    se_q = np.sqrt(eta_q * (1 - eta_q) / size)
    assert np.all(np.abs(emp_q - eta_q) <= 4.5 * se_q + 0.006), np.c_[emp_q, eta_q, se_q]


# ---------------------------------------------------------------- estimation and record mapping
def test_estimate_joint_inverts_and_clips():
    f = [distortion_matrix_keep(2, 0.8), distortion_matrix_keep(3, 0.7)]
    pi = np.array([[0.1, 0.2, 0.3], [0.25, 0.15, 0.0]])
    lam = apply_kronecker(f, pi)
    assert np.allclose(estimate_joint(lam, f), pi)  # exact lambda -> exact pi
    # a released table that is impossible under P: the estimate has a negative cell, clipped to 0
    lam_bad = np.array([[0.5, 0.0, 0.0], [0.0, 0.0, 0.5]])
    raw = apply_kronecker([np.linalg.inv(m) for m in f], lam_bad)
    assert raw.min() < 0
    est = estimate_joint(lam_bad, f)
    assert est.min() >= 0 and est.sum() == pytest.approx(1.0)
    assert np.allclose(est, np.clip(raw, 0, None) / np.clip(raw, 0, None).sum())


def test_records_share_above_threshold_and_mapping():
    df = table_frame(PI_2x3, [SEX, DISEASE], ["sex", "disease"])
    res = rr_attribute_disclosure(df, ["sex"], "disease", {}, original=df, max_risk=0.5)
    # only (male, flu) has risk 0.35/0.60 > 0.5: 35 records of 100
    assert res.share_above == pytest.approx(0.35)
    assert np.isclose(res.record_risk, res.risk[df["sex"].map(SEX.index), df["disease"].map(DISEASE.index)]).all()
    # missing values: records left out, NaN risk
    holed = df.copy()
    holed.loc[0, "disease"] = None
    res2 = rr_attribute_disclosure(holed, ["sex"], "disease", {}, original=holed, max_risk=0.5)
    assert np.isnan(res2.record_risk[0]) and res2.n_records == 99
    # released-only audit maps records to their released cell
    mats = {"sex": (SEX, distortion_matrix_keep(2, 0.9))}
    rel = randomize(df, mats, seed=3)
    res3 = rr_attribute_disclosure(rel, ["sex"], "disease", mats, max_risk=0.5)
    assert res3.records_mapped_to == "released" and res3.estimated
    idx = (rel["sex"].map(SEX.index).to_numpy(), rel["disease"].map(DISEASE.index).to_numpy())
    assert np.allclose(res3.record_risk, res3.risk[idx])


def test_table_size_limit(monkeypatch):
    import privaudit.risk.randomized_response as rr

    monkeypatch.setattr(rr, "MAX_CELLS", 5)
    df = table_frame(PI_2x3, [SEX, DISEASE], ["sex", "disease"])
    with pytest.raises(ValueError, match="exceeds 5 cells"):
        rr.rr_attribute_disclosure(df, ["sex"], "disease", {}, original=df)


def test_released_only_needs_invertible_matrix():
    df = table_frame(PI_2x3, [SEX, DISEASE], ["sex", "disease"])
    with pytest.raises(ValueError, match="singular"):
        rr_attribute_disclosure(df, ["sex"], "disease", {"sex": (SEX, distortion_matrix_keep(2, 0.5))})


# ---------------------------------------------------------------- randomize
def test_randomize_transition_frequencies_and_reproducibility():
    n = 60_000
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"g": rng.choice(["a", "b", "c"], n), "k": rng.integers(0, 4, n), "x": np.arange(n)})
    pg = np.array([[0.7, 0.1, 0.0], [0.2, 0.8, 0.5], [0.1, 0.1, 0.5]])  # has a zero entry
    mats = {"g": (["a", "b", "c"], pg)} | keep_probability_matrices(df, {"k": 0.6})
    r1, r2 = randomize(df, mats, seed=5), randomize(df, mats, seed=5)
    pd.testing.assert_frame_equal(r1, r2)
    assert not r1.equals(randomize(df, mats, seed=6))
    assert r1["k"].dtype == df["k"].dtype and (r1["x"] == df["x"]).all()
    for col, (labels, m) in mats.items():
        obs = pd.crosstab(pd.Categorical(r1[col], labels), pd.Categorical(df[col], labels), dropna=False)
        freq = obs.to_numpy() / obs.to_numpy().sum(axis=0)
        se = np.sqrt(m * (1 - m) / obs.to_numpy().sum(axis=0))
        assert np.all(np.abs(freq - m) <= 5 * se + 1e-12), col
    assert not ((df["g"] == "c") & (r1["g"] == "a")).any()  # P[a, c] = 0 is never drawn


def test_randomize_keeps_missing_and_matches_string_labels():
    df = pd.DataFrame({"k": pd.array([1, 2, None, 3], dtype="Int64")})
    mats = {"k": (["1", "2", "3"], distortion_matrix_keep(3, 1.0))}  # labels as read from a CSV
    out = randomize(df, mats, seed=0)
    assert out["k"].isna().tolist() == [False, False, True, False]
    assert out["k"].dropna().astype(int).tolist() == [1, 2, 3]
    with pytest.raises(ValueError, match="not among the matrix labels"):
        randomize(pd.DataFrame({"k": [1, 7]}), mats, seed=0)


# ---------------------------------------------------------------- matrix CSV loader
def write(tmp_path, text, name="m.csv"):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_load_distortion_matrix_ok(tmp_path):
    p = write(tmp_path, ",a,b,c\na,0.8,0.1,0.1\nc,0.1,0.1,0.8\nb,0.1,0.8,0.1\n")
    labels, m = load_distortion_matrix(p)
    assert labels == ["a", "b", "c"]
    assert np.allclose(m, [[0.8, 0.1, 0.1], [0.1, 0.8, 0.1], [0.1, 0.1, 0.8]])  # rows reordered to header
    p2 = write(tmp_path, "from;x;y\nx;0.9;0.3\ny;0.1;0.7\n", "semi.csv")
    assert load_distortion_matrix(p2)[0] == ["x", "y"]


@pytest.mark.parametrize(
    "text, message",
    [
        (",a,b\na,0.9,0.1\n", "not square"),
        (",a,b\na,0.9,0.1\nb,0.1\n", "line 3 has 2 cells"),
        (",a,b\na,0.9,0.1\nc,0.1,0.9\n", "row labels do not match"),
        (",a,a\na,0.9,0.1\na,0.1,0.9\n", "duplicate column label"),
        (",a,b\na,0.9,0.2\nb,0.1,0.9\n", "column 'b' sums to"),
        (",a,b\na,1.2,0.1\nb,-0.2,0.9\n", "negative probability"),
        (",a,b\na,0.5,0.5\nb,0.5,0.5\n", "singular"),
        (",a,b\na,0.9,x\nb,0.1,0.9\n", "non-numeric"),
        (",a,b\n", "at least one matrix row"),
    ],
)
def test_load_distortion_matrix_errors(tmp_path, text, message):
    p = write(tmp_path, text)
    with pytest.raises(ValueError, match=message) as err:
        load_distortion_matrix(p)
    assert str(p) in str(err.value) and "\n" not in str(err.value)


def test_load_distortion_matrix_missing_file(tmp_path):
    with pytest.raises(ValueError, match="cannot read"):
        load_distortion_matrix(tmp_path / "nope.csv")


def test_distortion_matrix_keep():
    m = distortion_matrix_keep(4, 0.7)
    assert np.allclose(m.sum(axis=0), 1) and np.allclose(np.diag(m), 0.7) and m[0, 1] == pytest.approx(0.1)
    assert np.allclose(np.sort(np.linalg.eigvalsh(m)), [0.6, 0.6, 0.6, 1.0])  # (dp-1)/(d-1) and 1
    with pytest.raises(ValueError):
        distortion_matrix_keep(3, 1.5)
