"""Tests for privaudit.risk.rr_selection (choosing RR keep probabilities under a risk bound)."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privaudit.risk.randomized_response import (
    apply_kronecker,
    distortion_matrix_keep,
    rr_attribute_disclosure,
    rr_risk_table,
)
from privaudit.risk.rr_selection import (
    inverse_frobenius_sq,
    reconstruction_error,
    select_keep_probabilities,
    utility_loss,
)

# joint of (a: 2 values) x (b: 3 values) x (s: 3 values), multiples of 1/200
PI = np.array(
    [
        [[0.100, 0.030, 0.020], [0.060, 0.040, 0.010], [0.050, 0.005, 0.005]],
        [[0.090, 0.070, 0.040], [0.120, 0.030, 0.050], [0.030, 0.160, 0.090]],
    ]
)
LABELS = [["a0", "a1"], ["b0", "b1", "b2"], ["s0", "s1", "s2"]]


@pytest.fixture(scope="module")
def data():
    n = 200
    counts = np.rint(PI * n).astype(int)
    assert counts.sum() == n
    cells = np.repeat(np.arange(PI.size), counts.ravel())
    idx = np.unravel_index(cells, PI.shape)
    return pd.DataFrame({c: np.asarray(lab, dtype=object)[i] for c, lab, i in zip("abs", LABELS, idx, strict=False)})


# ---------------------------------------------------------------- closed form of the loss
@settings(max_examples=80, deadline=None)
@given(st.integers(2, 9), st.floats(0.0, 1.0))
def test_inverse_frobenius_closed_form_matches_numpy(d, t):
    p = 1.0 / d + (1.0 - 1.0 / d) * max(t, 1e-3)  # p in (1/d, 1]
    numeric = np.linalg.norm(np.linalg.inv(distortion_matrix_keep(d, p)), "fro") ** 2
    assert inverse_frobenius_sq(d, p) == pytest.approx(numeric, rel=1e-9)


def test_inverse_frobenius_values():
    assert inverse_frobenius_sq(3, 1.0) == pytest.approx(3.0)  # identity: ||I||_F^2 = d
    assert inverse_frobenius_sq(2, 0.75) == pytest.approx(1 + 1 / 0.25)  # = 5
    assert inverse_frobenius_sq(4, 0.25) == float("inf")
    assert utility_loss([2, 3], [0.75, 1.0]) == pytest.approx(15.0)


# ---------------------------------------------------------------- selection
def test_no_randomization_needed_keeps_everything(data):
    initial = rr_risk_table(PI, [None, None, None]).max()  # (a0, b2, s0): 0.05 / 0.06 = 0.8333
    assert initial == pytest.approx(0.05 / 0.06)
    sel = select_keep_probabilities(data, ["a", "b"], "s", ["a", "b", "s"], max_risk=0.85)
    assert sel.keep_probabilities == {"a": 1.0, "b": 1.0, "s": 1.0}
    assert sel.initial_risk == pytest.approx(initial) and sel.achieved_risk == pytest.approx(initial)
    assert sel.utility_loss == pytest.approx(2 * 3 * 3) and sel.feasible
    assert np.allclose(sel.matrices["b"][1], np.eye(3))


@pytest.mark.parametrize("columns", [["a", "b"], ["s"], ["a", "b", "s"], ["b"]])
def test_achieved_risk_is_within_bound(data, columns):
    max_risk = 0.75
    sel = select_keep_probabilities(data, ["a", "b"], "s", columns, max_risk=max_risk, seed=1)
    assert sel.feasible
    assert sel.initial_risk > max_risk
    assert sel.achieved_risk <= max_risk
    assert sel.achieved_risk == pytest.approx(max_risk, rel=1e-4)  # loss falls with p: bound is active
    for c in columns:
        d = len(sel.matrices[c][0])
        assert 1.0 / d < sel.keep_probabilities[c] <= 1.0
    # independent path: audit the chosen matrices with the risk model on the original data
    audit = rr_attribute_disclosure(data, ["a", "b"], "s", sel.matrices, original=data)
    assert audit.value == pytest.approx(sel.achieved_risk, abs=1e-12)
    assert sel.utility_loss == pytest.approx(
        np.prod([np.linalg.norm(np.linalg.inv(sel.matrices[c][1]), "fro") ** 2 for c in columns])
    )


@pytest.mark.slow
def test_loss_is_minimal_against_grid_search(data):
    max_risk = 0.45
    sel = select_keep_probabilities(data, ["a", "b"], "s", ["a", "b"], max_risk=max_risk)
    best = np.inf
    for pa in np.linspace(0.5, 1.0, 81)[1:]:
        for pb in np.linspace(1 / 3, 1.0, 81)[1:]:
            risk = rr_risk_table(PI, [distortion_matrix_keep(2, pa), distortion_matrix_keep(3, pb), None]).max()
            if risk <= max_risk:
                best = min(best, utility_loss([2, 3], [pa, pb]))
    assert np.isfinite(best)
    assert sel.utility_loss <= best * (1 + 1e-9)
    assert sel.utility_loss >= best * 0.97  # and the grid is fine enough to come close


def test_both_beats_or_matches_single_side(data):
    both = select_keep_probabilities(data, ["a", "b"], "s", ["a", "b", "s"], max_risk=0.45)
    qi = select_keep_probabilities(data, ["a", "b"], "s", ["a", "b"], max_risk=0.45)
    s = select_keep_probabilities(data, ["a", "b"], "s", ["s"], max_risk=0.45)
    # the RR-QI and RR-S optima are feasible points of RR-Both (with p = 1 elsewhere)
    assert both.utility_loss_full <= min(qi.utility_loss_full, s.utility_loss_full) * (1 + 1e-6)


def test_infeasible_bound_is_reported(data):
    # randomizing S alone cannot push risk below (pi_au/pi_a)^2 of the top cell: (0.05/0.06)^2 = 0.694
    # (eta_S -> pi_au/pi_a as p_s -> 1/d_s, and eta_QI = 1 with the QIs kept)
    sel = select_keep_probabilities(data, ["a", "b"], "s", ["s"], max_risk=0.5)
    assert not sel.feasible
    assert sel.achieved_risk > 0.5
    assert sel.achieved_risk == pytest.approx((0.05 / 0.06) ** 2, rel=0.01)


def test_bad_columns(data):
    with pytest.raises(ValueError, match="neither QI nor sensitive"):
        select_keep_probabilities(data, ["a"], "s", ["b"], max_risk=0.5)
    with pytest.raises(ValueError, match="max_risk"):
        select_keep_probabilities(data, ["a"], "s", ["a"], max_risk=0.0)


# ---------------------------------------------------------------- reconstruction error
def test_reconstruction_error_matches_explicit_covariance():
    factors = [distortion_matrix_keep(2, 0.8), None, distortion_matrix_keep(3, 0.7)]
    n = 500
    full = np.kron(np.kron(factors[0], np.eye(3)), factors[2])
    lam = full @ PI.ravel()
    cov = (np.diag(lam) - np.outer(lam, lam)) / n
    inv = np.linalg.inv(full)
    expected = np.trace(inv @ cov @ inv.T)
    assert reconstruction_error(PI, factors, n) == pytest.approx(expected, rel=1e-10)
    # no randomization: trace of the multinomial covariance, (1 - sum pi^2) / n
    assert reconstruction_error(PI, [None] * 3, n) == pytest.approx((1 - np.sum(PI**2)) / n)


def test_reconstruction_error_monte_carlo():
    rng = np.random.default_rng(4)
    factors = [distortion_matrix_keep(2, 0.7), distortion_matrix_keep(3, 0.6), None]
    n, reps = 400, 4000
    lam = apply_kronecker(factors, PI).ravel()
    lam_hat = rng.multinomial(n, lam / lam.sum(), size=reps) / n
    inverses = [None if f is None else np.linalg.inv(f) for f in factors]
    pi_hat = np.stack([apply_kronecker(inverses, row.reshape(PI.shape)).ravel() for row in lam_hat])
    mc = np.sum(np.var(pi_hat, axis=0, ddof=1))
    assert mc == pytest.approx(reconstruction_error(PI, factors, n), rel=0.08)


def test_selection_reports_reconstruction_error(data):
    sel = select_keep_probabilities(data, ["a", "b"], "s", ["a"], max_risk=0.5)
    factors = [sel.matrices["a"][1], None, None]
    assert sel.reconstruction_error == pytest.approx(reconstruction_error(PI, factors, 200))
    assert sel.reconstruction_error > reconstruction_error(PI, [None] * 3, 200)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=2, max_size=4), st.integers(0, 2**32 - 1), st.data())
def test_structured_risk_equals_general_risk_table(dims, seed, data):
    """The selection's fast keep-matrix evaluation agrees with rr_risk_table (dense factors)."""
    from privaudit.risk.rr_selection import _Problem

    rng = np.random.default_rng(seed)
    pi = rng.dirichlet(np.ones(int(np.prod(dims)))).reshape(dims)
    pi[rng.random(dims) < 0.2] = 0.0  # some empty cells
    if pi.sum() == 0:
        return
    pi /= pi.sum()
    axes = [ax for ax in range(len(dims)) if dims[ax] >= 2 and data.draw(st.booleans())]
    prob = _Problem(pi, axes, [dims[ax] for ax in axes], max_risk=1.0)
    x = rng.uniform(0.01, 1.0, size=len(axes))
    expected = rr_risk_table(pi, prob.factors(x))[pi > 0]
    assert np.allclose(prob.cell_risk(x), expected, rtol=1e-10, atol=1e-14)
