"""Where pycanon's and ARX's conventions differ from ours, on tables built to show it.

* pycanon's enhanced β figure is ``min(β*, -ln min p_t)``: it can sit below a β for which the table
  still fails enhanced β-likeness (ARX's check and ours); our figure is the smallest β that passes.
* pycanon's and ARX's δ look only at the values a class holds; the definition (and we) also count a
  value the class lacks (|ln 0| = ∞). Our ``details.delta_present_values`` is their figure.
* ARX uses log2 for δ; ``log_base: "2"`` gives ARX's figure.
* Basic β-likeness: all three agree.
"""

from __future__ import annotations

import math

import likeness_reference as ref
import pandas as pd
import pytest
from conftest import policy

from privaudit.testing import run_assessor

POLICY = policy()
# A 6/10, B 4/10; z1 = AAA (posterior 1 for A), z2 = AAB, z3 = ABBB
SMALL = pd.DataFrame({"zip": ["z1"] * 3 + ["z2"] * 3 + ["z3"] * 4, "disease": list("AAA") + list("AAB") + list("ABBB")})


def check(frame, **params):
    kind = "delta_disclosure" if "delta" in params else "beta_likeness"
    return run_assessor(frame, POLICY, {"assessor": kind, "sensitive": "disease", **params})


def test_basic_beta_agrees_with_pycanon_and_arx():
    prior, classes = ref.distributions(SMALL, ["zip"], "disease")
    ours = check(SMALL, beta=1)
    assert ours.value == pytest.approx(ref.basic_beta(prior, classes)) == pytest.approx(0.875)
    for beta in (0.5, 0.875, 0.9):
        m = check(SMALL, beta=beta)
        arx = [ref.arx_basic_fails(prior, c, beta) for c in classes]
        assert m.details["classes_failing"] == sum(arx) and m.passed == (not any(arx))


def test_enhanced_beta_pycanon_figure_would_pass_a_failing_table():
    prior, classes = ref.distributions(SMALL, ["zip"], "disease")
    pycanon = ref.pycanon_enhanced(prior, classes)
    assert pycanon == pytest.approx(0.875)  # min(0.875, -ln 0.4 = 0.916)
    m = check(SMALL, beta=0.9, variant="enhanced")
    # pycanon's 0.875 <= 0.9 suggests a pass; ARX's check fails z1 (D_A = 2/3 > min(0.9, -ln 0.6)); so do we
    assert not m.passed and m.value == math.inf
    assert [ref.arx_enhanced_fails(prior, c, 0.9) for c in classes] == [True, False, False]
    assert m.details["classes_failing"] == 1 and m.details["worst_classes"][0]["values"] == {"zip": "z1"}


def test_enhanced_beta_agrees_with_pycanon_when_no_cap_binds():
    # Li et al.'s table (every posterior 1/3 against priors 1/9 and 2/9): all three say 2
    frame = pd.DataFrame(
        {
            "zip": ["a"] * 3 + ["b"] * 3 + ["c"] * 3,
            "disease": [
                "ulcer",
                "gastritis",
                "cancer",
                "gastritis",
                "flu",
                "bronchitis",
                "bronchitis",
                "pneumonia",
                "cancer",
            ],
        }
    )
    prior, classes = ref.distributions(frame, ["zip"], "disease")
    m = check(frame, beta=2, variant="enhanced")
    assert m.value == pytest.approx(ref.pycanon_enhanced(prior, classes)) == pytest.approx(2.0)
    assert m.passed and not any(ref.arx_enhanced_fails(prior, c, 2) for c in classes)


def test_delta_counts_absent_values_unlike_pycanon_and_arx():
    prior, classes = ref.distributions(SMALL, ["zip"], "disease")
    m = check(SMALL, delta=1.0)
    assert m.value == math.inf and not m.passed  # z1 lacks B: being in z1 rules B out
    assert m.details["delta_present_values"] == pytest.approx(ref.pycanon_delta(prior, classes))
    assert m.details["delta_present_values"] == pytest.approx(math.log(2.4))
    # ARX (log2 over held values; 1/0.6 -> 0.737, 2.4 -> 1.263) passes δ = 1.3 although z1 lacks B
    assert not any(ref.arx_delta_fails(prior, c, 1.3) for c in classes)
    base2 = check(SMALL, delta=1.3, log_base="2")
    assert not base2.passed and base2.details["delta_present_values"] == pytest.approx(math.log2(2.4))


def test_delta_agrees_with_arx_when_every_class_holds_every_value():
    frame = SMALL[SMALL.zip != "z1"]
    prior, classes = ref.distributions(frame, ["zip"], "disease")
    for delta in (0.5, math.log2(12 / 7), 0.8, 1.0):
        m = check(frame, delta=delta, log_base="2")
        arx = [ref.arx_delta_fails(prior, c, delta) for c in classes]
        assert m.details["classes_failing"] == sum(arx), delta
    assert check(frame, delta=1.0, log_base="2").value == pytest.approx(math.log2(12 / 7))
