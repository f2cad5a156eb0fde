"""Hypothesis properties: the vectorised figures equal the definitions, and relations we can prove.

Relations used (D = relative gain, β* basic figure, δ* our δ, δ*_present over present values only):

* for the (class, value) attaining β*: |ln(p_c/p_t)| = ln(1 + β*), so δ* >= δ*_present >= ln(1 + β*);
  hence δ-disclosure privacy with δ implies basic β-likeness with β = e^δ − 1;
* enhanced β-likeness is stricter: its figure is β* or ∞, and its failing classes include the basic ones;
* β* <= 1/min p_t − 1 (a share never exceeds 1);
* the figures depend on the distributions only: row order and duplicating every row change nothing.
"""

from __future__ import annotations

import math

import likeness_reference as ref
import numpy as np
import pandas as pd
from conftest import policy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from privaudit.core.summary import build_summary
from privaudit.testing import run_assessor
from privaudit_likeness import likeness

SETTINGS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def tables(draw, missing=True):
    n = draw(st.integers(1, 30))
    sensitive = st.sampled_from("PQRS") if not missing else st.one_of(st.sampled_from("PQRS"), st.none())
    values = draw(st.lists(sensitive, min_size=n, max_size=n))
    # at least one value present: privaudit's summary cannot yet take an all-missing sensitive column
    values[draw(st.integers(0, n - 1))] = draw(st.sampled_from("PQRS"))
    return pd.DataFrame(
        {
            "zip": draw(st.lists(st.sampled_from("abc"), min_size=n, max_size=n)),
            "sex": draw(st.lists(st.sampled_from("mf"), min_size=n, max_size=n)),
            "disease": values,
        }
    )


def figures(frame):
    """Our per-class figures keyed by the class's QI values, and the reference distributions."""
    # build_summary directly (categorical columns, as the loader types nominal columns): the CSV/YAML
    # round trip of privaudit.testing.summary_of costs ~30 ms an example; test_likeness_golden uses it.
    typed = frame.astype({"zip": "category", "sex": "category", "disease": "category"})
    s = build_summary(typed, ["zip", "sex"], {"disease": ("nominal", None)})
    e = likeness.entries(s.sensitive["disease"])
    keys = [tuple(row) for row in frame[["zip", "sex"]].to_numpy()[s.first_row].tolist()]
    prior, classes = ref.distributions(frame, ["zip", "sex"], "disease")
    by_key = {c.key: c for c in classes}
    return s, e, keys, prior, [by_key[k] for k in keys]


@SETTINGS
@given(tables(), st.floats(0.01, 5))
def test_vectorised_figures_equal_the_definitions(frame, beta):
    s, e, keys, prior, classes = figures(frame)
    basic = likeness.basic_beta(e)
    enhanced, _ = likeness.enhanced_beta(e)
    delta, present = likeness.delta(e)
    for c, cls in enumerate(classes):
        if not cls.share:
            assert math.isnan(basic[c]) and math.isnan(delta[c])
            continue
        assert basic[c] == np.float64(max(ref.gains(prior, cls).values())) or math.isclose(
            basic[c], max(ref.gains(prior, cls).values()), rel_tol=1e-12, abs_tol=1e-12
        )
        expected = ref.class_enhanced_beta(prior, cls)
        assert enhanced[c] == expected or math.isclose(enhanced[c], expected, rel_tol=1e-12, abs_tol=1e-12)
        expected = ref.class_delta(prior, cls)
        assert delta[c] == expected or math.isclose(delta[c], expected, rel_tol=1e-12, abs_tol=1e-12)
        expected = ref.class_delta(prior, cls, present_only=True)
        assert math.isclose(present[c], expected, rel_tol=1e-12, abs_tol=1e-12)
        # the checks' class verdicts are ARX's (basic and enhanced β-likeness), except on a tie: a gain
        # equal to β up to rounding passes here (likeness.TOLERANCE), while ARX's float comparison goes
        # either way (1/8 against a prior of 1/12 gives 0.5000000000000001 > β = 0.5)
        if math.isclose(basic[c], beta, rel_tol=1e-9) or math.isclose(enhanced[c], beta, rel_tol=1e-9):
            continue
        assert bool(likeness.exceeds(basic[c], beta)) == ref.arx_basic_fails(prior, cls, beta)
        assert bool(likeness.enhanced_failing(e, beta)[c]) == ref.arx_enhanced_fails(prior, cls, beta)


@SETTINGS
@given(tables(), st.floats(0.01, 5))
def test_relations_between_the_models(frame, beta):
    _, e, _, prior, _ = figures(frame)
    basic = likeness.basic_beta(e)
    b = likeness.table_figure(basic)
    enhanced, capped = likeness.enhanced_beta(e)
    delta, present = likeness.delta(e)
    if not prior:
        return
    assert b >= 0
    assert likeness.table_figure(present) >= math.log1p(b) - 1e-12
    assert likeness.table_figure(delta) >= likeness.table_figure(present)
    assert b <= 1 / min(prior.values()) - 1 + 1e-9
    defined = ~np.isnan(basic)
    # enhanced: β* or ∞, per class, and ∞ exactly where a cap is exceeded
    assert np.all(np.where(capped, np.isinf(enhanced), enhanced == basic)[defined])
    basic_fail = likeness.exceeds(basic, beta)
    enhanced_fail = likeness.enhanced_failing(e, beta)
    assert not np.any(basic_fail & ~enhanced_fail)
    assert np.array_equal(enhanced_fail, likeness.exceeds(enhanced, beta))  # entry-wise == figure-wise
    # δ-disclosure with δ passes => basic β-likeness with e^δ − 1 passes
    d = float(np.exp(likeness.table_figure(delta)))
    if math.isfinite(d):
        assert not likeness.exceeds(basic, d - 1 + 1e-9).any()


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables(), st.randoms(use_true_random=False), st.integers(2, 3))
def test_row_order_and_duplication_change_nothing(frame, rnd, times):
    order = list(range(len(frame)))
    rnd.shuffle(order)
    shuffled = frame.iloc[order].reset_index(drop=True)
    doubled = pd.concat([frame] * times, ignore_index=True)
    pol = policy(qis=("zip", "sex"))
    for check in (
        {"assessor": "beta_likeness", "sensitive": "disease", "beta": 0.5, "variant": "enhanced"},
        {"assessor": "delta_disclosure", "sensitive": "disease", "delta": 1.0},
    ):
        a, b, c = (run_assessor(f, pol, check) for f in (frame, shuffled, doubled))
        assert a.value == b.value and a.passed == b.passed
        assert a.details["per_class_histogram"] == b.details["per_class_histogram"]
        assert [w["values"] for w in a.details["worst_classes"]] == [w["values"] for w in b.details["worst_classes"]]
        assert (a.value == c.value or math.isclose(a.value, c.value, rel_tol=1e-12)) and a.passed == c.passed
        assert c.details["records_failing"] == times * a.details["records_failing"]


@settings(max_examples=20, deadline=None)
@given(tables(missing=False))
def test_one_class_is_the_table(frame):
    frame = frame.assign(zip="a", sex="m")
    _, e, _, _, _ = figures(frame)
    assert likeness.basic_beta(e).tolist() == [0.0]
    assert likeness.delta(e)[0].tolist() == [0.0]
