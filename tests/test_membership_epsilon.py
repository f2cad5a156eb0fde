"""The ε lower bounds (Steinke, Nasr & Jagielski 2023 one-run; Jagielski et al. 2020 / TAPAS
Clopper–Pearson) and the ROC figures: closed forms, the paper's own procedure, and soundness with
mechanisms whose ε is known exactly, over repeated seeds."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from privaudit.risk.membership.epsilon import (
    clopper_pearson_epsilon,
    cp_epsilon,
    one_run_audit,
    one_run_lower_bound,
    one_run_p_value,
)
from privaudit.risk.membership.roc import auc, roc_curve, summarize


def appendix_d_p_value(m, r, v, eps, delta):
    """Steinke et al., arXiv:2305.08846, Appendix D ``p_value_DP_audit``, written as the paper's loop."""
    q = 1 / (1 + math.exp(-eps))
    beta = stats.binom.sf(v - 1, r, q)
    pmf = stats.binom.pmf(np.arange(v + 1), r, q)  # the paper calls binom.pmf(v - i, r, q) in the loop
    alpha, total = 0.0, 0.0
    for i in range(1, v + 1):
        total += pmf[v - i]
        if total > i * alpha:
            alpha = total / i
    return min(beta + alpha * delta * 2 * m, 1.0)


@pytest.mark.parametrize(
    "m,r,v,eps,delta",
    [(1000, 100, 80, 0.5, 0.0), (1000, 100, 80, 0.5, 1e-5), (10_000, 500, 420, 1.2, 1e-6), (200, 200, 150, 2.0, 1e-3)],
)
def test_p_value_is_the_papers_appendix_d_procedure(m, r, v, eps, delta):
    assert one_run_p_value(m, r, v, eps, delta) == pytest.approx(appendix_d_p_value(m, r, v, eps, delta), rel=1e-10)


def appendix_d_eps(m, r, v, delta, p):
    """Appendix D ``get_eps_audit``: eps_max grown by 1 until not rejected, then 30 bisection steps."""
    lo, hi = 0.0, 1.0
    while appendix_d_p_value(m, r, v, hi, delta) < p:
        hi += 1
    for _ in range(30):
        mid = (lo + hi) / 2
        if appendix_d_p_value(m, r, v, mid, delta) < p:
            lo = mid
        else:
            hi = mid
    return lo


@pytest.mark.parametrize("m,r,v,delta", [(1000, 600, 600, 1e-5), (1000, 100, 90, 0.0), (5000, 1000, 800, 1e-6)])
def test_bound_is_the_papers_get_eps_audit(m, r, v, delta):
    """The bound of Appendix D's ``get_eps_audit`` (its example: m = 1000 canaries, 600 guesses all right,
    δ = 1e-5, 95 %), to the bisection's resolution."""
    assert one_run_lower_bound(m, r, v, 0.05, delta) == pytest.approx(appendix_d_eps(m, r, v, delta, 0.05), abs=1e-5)


@pytest.mark.parametrize("r", [10, 100, 1000])
def test_every_guess_right_gives_the_closed_form(r):
    """Theorem 3.1 with v = r and δ = 0: P[Bin(r, q) >= r] = q^r = β, so ε = log(q / (1 - q)), q = β^(1/r)
    (r = 100 at 95 %: 3.49; r = 1000: 5.81)."""
    q = 0.05 ** (1 / r)
    assert one_run_lower_bound(10 * r, r, r, 0.05) == pytest.approx(math.log(q / (1 - q)), abs=1e-5)


def test_bound_is_the_largest_rejected_epsilon_and_delta_lowers_it():
    eps = one_run_lower_bound(10_000, 1000, 900, 0.05)
    assert one_run_p_value(10_000, 1000, 900, eps - 1e-4) < 0.05 <= one_run_p_value(10_000, 1000, 900, eps + 1e-4)
    assert one_run_lower_bound(10_000, 1000, 900, 0.05, delta=1e-5) < eps
    assert one_run_lower_bound(10_000, 1000, 500, 0.05) == 0.0  # chance accuracy proves nothing


def test_randomized_response_soundness_over_seeds():
    """Each of m records answers its membership by ε-DP randomized response (right with probability
    e^ε/(1+e^ε)); guessing every answer, the 95 % bound may exceed ε in at most 5 % of runs, and is not
    vacuous."""
    rng = np.random.default_rng(7)
    m, runs = 2000, 300
    for eps in (0.5, 1.0, 2.0):
        correct = rng.binomial(m, 1 / (1 + math.exp(-eps)), runs)  # v per run, vectorised over seeds
        values, where = np.unique(correct, return_inverse=True)  # the bound of each count once
        bounds = np.array([one_run_lower_bound(m, m, int(v), 0.05) for v in values])[where]
        assert np.mean(bounds > eps) <= 0.05 + 2 * math.sqrt(0.05 * 0.95 / runs)
        assert np.median(bounds) > 0.6 * eps


def test_laplace_count_soundness_with_the_guess_grid():
    """An ε-DP noisy count per record (membership + Laplace(1/ε)); one_run_audit tries every attack and
    number of guesses (a union bound): its bound stays below ε in at least 95 % of the seeds."""
    eps, m, runs = 1.0, 1000, 30
    over = 0
    for seed in range(runs):
        rng = np.random.default_rng(seed)
        member = rng.random(m) < 0.5
        noisy = member + rng.laplace(0, 1 / eps, m)
        b = one_run_audit([noisy, -np.abs(noisy - 0.5)], member, beta=0.05, seed=seed)
        over += b.epsilon > eps
        assert b.epsilon < 2 * eps
    assert over <= 0.05 * runs + 2


def test_copies_and_independent_scores():
    rng = np.random.default_rng(0)
    member = rng.random(4000) < 0.5
    leak = one_run_audit(np.where(member, 1.0, 0.0) + rng.random(4000) * 1e-3, member)
    assert leak.epsilon > 5 and leak.accuracy == 1.0
    nothing = one_run_audit(rng.random(4000), member)
    assert nothing.epsilon < 0.3


# ---------------------------------------------------------------------------------- TAPAS / CP
def test_cp_epsilon_is_tapas_estimate():
    """TAPAS ``_estimate_effective_epsilon``: scipy's binomtest Clopper–Pearson intervals at 1 - (1-c)/2."""
    tp, n_pos, fp, n_neg, c = 706, 4488, 273, 4512, 0.95
    half = 1 - (1 - c) / 2
    t = stats.binomtest(tp, n_pos).proportion_ci(half)
    f = stats.binomtest(fp, n_neg).proportion_ci(half)
    low, high = cp_epsilon(tp, n_pos, fp, n_neg, c)
    assert low == pytest.approx(max(0, math.log(t.low / f.high)), rel=1e-9)
    assert high == pytest.approx(math.log(t.high / f.low), rel=1e-9)


def test_tapas_reporting_example_laplace_epsilon_one():
    """TAPAS examples/report_example.py, part 2: 10,000 trials of M(D) = 1{t in D} + Lap(1), ε = 1;
    "with 95% confidence, epsilon >= 0.9 (where the exact number varies with the randomness)". Over 15
    seeds the bound's median lies in [0.8, 1] and no seed exceeds the true ε = 1."""
    bounds = []
    for seed in range(15):
        rng = np.random.default_rng(seed)
        labels = rng.integers(0, 2, 10_000).astype(bool)
        bounds.append(clopper_pearson_epsilon(labels + rng.laplace(0, 1, 10_000), labels).epsilon)
    assert 0.8 <= np.median(bounds) <= 1.0 and max(bounds) <= 1.0


# ----------------------------------------------------------------------------------------- ROC
def test_roc_matches_its_definition_and_the_low_fpr_rule():
    """AUC = Mann–Whitney U / (n1 n0) (scipy); the ROC points are (FPR, TPR) of ``score >= t`` for every
    distinct t, counted directly; TPR at FPR f is the best TPR with FPR <= f (Carlini et al.'s rule)."""
    rng = np.random.default_rng(3)
    member = rng.random(5000) < 0.4
    scores = np.round(member * 0.7 + rng.normal(size=5000), 2)  # ties
    u = stats.mannwhitneyu(scores[member], scores[~member]).statistic
    assert auc(scores, member) == pytest.approx(u / (member.sum() * (~member).sum()), rel=1e-12)
    fpr, tpr, thr = roc_curve(scores, member)
    t = np.unique(scores)[::-1]
    direct_tpr = (scores[member][None, :] >= t[:, None]).mean(axis=1)
    direct_fpr = (scores[~member][None, :] >= t[:, None]).mean(axis=1)
    assert np.allclose(thr[1:], t) and np.allclose(tpr[1:], direct_tpr) and np.allclose(fpr[1:], direct_fpr)
    assert fpr[0] == tpr[0] == 0
    s = summarize(scores, member, (0.001, 0.01))
    for f in (0.001, 0.01):
        assert s.tpr_at_fpr[f"{f:g}"]["value"] == pytest.approx(np.r_[0, direct_tpr[direct_fpr <= f]].max())
        lo, hi = s.tpr_at_fpr[f"{f:g}"]["ci"]
        assert lo <= s.tpr_at_fpr[f"{f:g}"]["value"] <= hi
    assert s.advantage == pytest.approx(np.max(direct_tpr - direct_fpr))
    assert s.auc_ci[0] < s.auc < s.auc_ci[1]


@settings(max_examples=60, deadline=None)
@given(r=st.integers(1, 400), frac=st.floats(0, 1), eps=st.floats(0, 6), delta=st.sampled_from([0.0, 1e-6, 1e-3]))
def test_p_value_properties(r, frac, eps, delta):
    """The p-value is a probability, grows with ε (a stronger claim makes many right guesses likelier) and
    shrinks as right guesses grow; chance accuracy proves no ε."""
    v = int(round(frac * r))
    m = 2 * r
    p = one_run_p_value(m, r, v, eps, delta)
    assert 0 <= p <= 1
    assert one_run_p_value(m, r, v, eps + 0.5, delta) >= p - 1e-12
    if v < r and delta == 0:  # the binomial tail falls as v grows
        assert one_run_p_value(m, r, v + 1, eps, delta) <= p + 1e-12
    if 2 * v <= r:
        assert one_run_lower_bound(m, r, v, 0.05, delta) == 0.0
