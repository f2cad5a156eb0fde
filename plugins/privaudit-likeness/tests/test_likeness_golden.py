"""Golden values computed by hand on small tables, and the boundaries of each check."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from conftest import policy

from privaudit.testing import audit_frame, check_result, class_violations, run_assessor, summary_of
from privaudit_likeness import likeness
from privaudit_likeness.binning import failing_bins, threshold_histogram

# Ten records, one QI. Table: A 6/10, B 4/10.
#   z1: A A A      p_A = 1     D_A = (1 - .6)/.6 = 2/3 (> -ln .6 = 0.5108: over the enhanced cap); B absent
#   z2: A A B      p_A = 2/3   D_A = 1/9;  p_B = 1/3  D_B = -1/6
#   z3: A B B B    p_A = 1/4   D_A = -7/12; p_B = 3/4  D_B = 7/8 (<= -ln .4 = 0.9163)
SMALL = pd.DataFrame({"zip": ["z1"] * 3 + ["z2"] * 3 + ["z3"] * 4, "disease": list("AAA") + list("AAB") + list("ABBB")})
POLICY = policy()


def measure(check: dict, frame=SMALL, pol=POLICY):
    return run_assessor(frame, pol, check)


def test_gains_per_entry_by_hand():
    e = likeness.entries(summary_of(SMALL, ["zip"], ["disease"]).sensitive["disease"])
    assert e.rows.tolist() == [0, 1, 1, 2, 2]
    assert e.gain == pytest.approx([2 / 3, 1 / 9, -1 / 6, -7 / 12, 7 / 8], abs=1e-15)
    assert e.table_share[e.values] == pytest.approx([0.6, 0.6, 0.4, 0.6, 0.4])
    assert likeness.basic_beta(e) == pytest.approx([2 / 3, 1 / 9, 7 / 8])
    needed, capped = likeness.enhanced_beta(e)
    assert capped.tolist() == [True, False, False]
    assert needed[0] == math.inf and needed[1:] == pytest.approx([1 / 9, 7 / 8])
    d, present = likeness.delta(e)
    assert d[0] == math.inf and d[1:] == pytest.approx([math.log(6 / 5), math.log(2.4)])
    assert present == pytest.approx([math.log(1 / 0.6), math.log(6 / 5), math.log(2.4)])


def test_basic_beta_small_table():
    m = measure({"assessor": "beta_likeness", "sensitive": "disease", "beta": 0.8})
    assert m.value == pytest.approx(0.875) and not m.passed and m.threshold == 0.8
    d = m.details
    assert (d["classes"], d["classes_failing"], d["records_failing"], d["values"]) == (3, 1, 4, 2)
    assert [w["values"]["zip"] for w in d["worst_classes"]] == ["z3"]
    assert d["worst_classes"][0]["beta"] == pytest.approx(0.875)
    assert measure({"assessor": "beta_likeness", "sensitive": "disease", "beta": 0.875}).passed  # <= β passes


def test_enhanced_beta_small_table_is_infinite():
    # z1's posterior 1 for A exceeds 0.6 (1 - ln 0.6) = 0.906: no β allows it.
    for beta in (0.9, 5.0, 1e6):
        m = measure({"assessor": "beta_likeness", "sensitive": "disease", "beta": beta, "variant": "enhanced"})
        assert m.value == math.inf and not m.passed
        assert m.details["classes_over_cap"] == 1 and m.details["basic_value"] == pytest.approx(0.875)
    m = measure({"assessor": "beta_likeness", "sensitive": "disease", "beta": 0.5, "variant": "enhanced"})
    assert m.details["classes_failing"] == 2 and m.details["records_failing"] == 7  # z1 (cap) and z3 (0.875 > 0.5)
    assert [w["values"]["zip"] for w in m.details["worst_classes"]] == ["z1", "z3"]


def test_delta_small_table():
    m = measure({"assessor": "delta_disclosure", "sensitive": "disease", "delta": 2})
    assert m.value == math.inf and not m.passed
    d = m.details
    assert d["classes_lacking_a_value"] == 1 and d["classes_failing"] == 1 and d["records_failing"] == 3
    assert d["delta_present_values"] == pytest.approx(math.log(2.4))  # z3: p_A falls from .6 to .25
    # without z1 every class holds both values. Table now A 3/7, B 4/7; z2: A 2/3 -> ln(14/9) = 0.442,
    # B 1/3 -> |ln(7/12)| = 0.539; z3: A 1/4 -> |ln(7/12)|, B 3/4 -> ln(21/16) = 0.272.
    rest = SMALL[SMALL.zip != "z1"]
    m = measure({"assessor": "delta_disclosure", "sensitive": "disease", "delta": 0.54}, rest)
    assert m.value == pytest.approx(math.log(12 / 7)) and m.passed  # set by UNDER-represented values
    assert m.details["classes_lacking_a_value"] == 0 and m.value == m.details["delta_present_values"]
    # while basic β only sees the over-represented side: max(5/9, 5/16) (z2's A: (2/3 - 3/7)/(3/7) = 5/9)
    b = measure({"assessor": "beta_likeness", "sensitive": "disease", "beta": 1}, rest)
    assert b.value == pytest.approx(5 / 9) and math.log1p(b.value) < m.value


# The 3-diverse release of Li, Li & Venkatasubramanian (ICDE 2007, Table 3; also ARX's data/test2.csv
# generalized with its hierarchies): ZIP to 3 digits and age to decades.
PAPER = pd.DataFrame(
    {
        "zip": ["476**"] * 3 + ["479**"] * 3 + ["476**"] * 3,
        "age": ["2*"] * 3 + [">=40"] * 3 + ["3*"] * 3,
        "salary": [3, 4, 5, 6, 11, 8, 7, 9, 10],
        "disease": [
            "gastric ulcer",
            "gastritis",
            "stomach cancer",
            "gastritis",
            "flu",
            "bronchitis",
            "bronchitis",
            "pneumonia",
            "stomach cancer",
        ],
    }
)
PAPER_POLICY = policy(qis=("zip", "age"), sensitive=("salary", "disease"), types={"salary": "numeric"})


@pytest.mark.parametrize("column", ["disease", "salary"])
def test_paper_table(column):
    # Each class holds 3 distinct values of share 1/3; the rarest have table share 1/9: D = 2 exactly.
    basic = run_assessor(PAPER, PAPER_POLICY, {"assessor": "beta_likeness", "sensitive": column, "beta": 2})
    assert basic.value == 2.0 and basic.passed  # exact integer arithmetic: D = (1*9 - 3*1) / (3*1)
    assert not run_assessor(
        PAPER, PAPER_POLICY, {"assessor": "beta_likeness", "sensitive": column, "beta": 1.999}
    ).passed
    enhanced = run_assessor(
        PAPER, PAPER_POLICY, {"assessor": "beta_likeness", "sensitive": column, "beta": 2, "variant": "enhanced"}
    )
    assert enhanced.value == 2.0 and enhanced.passed  # 2 <= -ln(1/9) = 2.197 and D = 1/2 <= -ln(2/9) = 1.504
    delta = run_assessor(PAPER, PAPER_POLICY, {"assessor": "delta_disclosure", "sensitive": column, "delta": 5})
    assert delta.value == math.inf and delta.details["classes_lacking_a_value"] == 3
    assert delta.details["delta_present_values"] == pytest.approx(math.log(3))


def test_delta_is_strict_and_log2_convention():
    # Table A 2/8, B 6/8. c1 = {A, B}: p_A/p_t = 2 -> log2 = 1 exactly; c2 = {A, B x5}: ratios 2/3, 10/9.
    frame = pd.DataFrame({"zip": ["c1"] * 2 + ["c2"] * 6, "disease": ["A", "B", "A"] + ["B"] * 5})
    at = run_assessor(
        frame, POLICY, {"assessor": "delta_disclosure", "sensitive": "disease", "delta": 1, "log_base": "2"}
    )
    assert at.value == 1.0 and not at.passed  # |log2(2)| = 1 is not < 1
    assert at.details["classes_failing"] == 1 and at.details["worst_classes"][0]["values"] == {"zip": "c1"}
    assert run_assessor(
        frame, POLICY, {"assessor": "delta_disclosure", "sensitive": "disease", "delta": 1.0001, "log_base": "2"}
    ).passed
    natural = run_assessor(frame, POLICY, {"assessor": "delta_disclosure", "sensitive": "disease", "delta": 1})
    assert natural.value == pytest.approx(math.log(2)) and natural.passed


def test_class_violations_match_the_run():
    check = {"assessor": "beta_likeness", "sensitive": "disease", "beta": 0.5, "variant": "enhanced"}
    mask, summary = class_violations(SMALL, POLICY, check)
    assert mask.tolist() == [True, False, True]
    assert int(summary.sizes[mask].sum()) == measure(check).details["records_failing"]
    mask, _ = class_violations(SMALL, POLICY, {"assessor": "delta_disclosure", "sensitive": "disease", "delta": 0.7})
    assert mask.tolist() == [True, False, True]  # z1 lacks B; z3: ln 2.4 = 0.875 >= 0.7


def test_missing_sensitive_values_and_empty_classes():
    frame = pd.DataFrame({"zip": ["a", "a", "b", "b", "c"], "disease": ["X", "Y", "X", "Y", None]})
    m = run_assessor(frame, POLICY, {"assessor": "beta_likeness", "sensitive": "disease", "beta": 0.1})
    # class c has no sensitive value: no distribution, no figure, no violation; a and b match the table
    assert m.value == 0.0 and m.passed
    assert m.details["classes_without_values"] == 1 and m.details["missing_sensitive"] == 1
    d = run_assessor(frame, POLICY, {"assessor": "delta_disclosure", "sensitive": "disease", "delta": 0.1})
    assert d.value == 0.0 and d.passed and d.details["classes_lacking_a_value"] == 0


def test_single_value_table():
    frame = pd.DataFrame({"zip": list("aab"), "disease": ["X"] * 3})
    for check in (
        {"assessor": "beta_likeness", "sensitive": "disease", "beta": 0.01, "variant": "enhanced"},
        {"assessor": "delta_disclosure", "sensitive": "disease", "delta": 0.01},
    ):
        m = run_assessor(frame, POLICY, check)
        assert m.value == 0.0 and m.passed  # p_t = 1: -ln 1 = 0 caps nothing that is not over-represented


def test_histogram_splits_at_the_threshold():
    m = measure({"assessor": "beta_likeness", "sensitive": "disease", "beta": 0.5})
    hist = m.details["per_class_histogram"]
    assert 0.5 in hist["edges"] and hist["edges"][0] == 0.0 and hist["edges"][-1] == pytest.approx(0.875)
    above = sum(c for lo, c in zip(hist["edges"][:-1], hist["counts"], strict=False) if lo >= 0.5)
    assert above == m.details["classes_failing"] == 2 and sum(hist["counts"]) == 3


def test_report_json_writes_infinity_as_text():
    result = audit_frame(SMALL, policy(checks=[{"assessor": "delta_disclosure", "sensitive": "disease", "delta": 1}]))
    c = check_result(result, "delta_disclosure")
    assert c["value"] == "inf" and c["status"] == "fail"
    assert c["details"]["worst_classes"][0]["delta"] == "inf"
    assert c["details"]["per_class_histogram"]["infinite"] == 1
    assert isinstance(c["details"]["delta_present_values"], float)
    assert np.isfinite(c["details"]["delta_present_values"])


def test_a_figure_equal_to_the_threshold_is_binned_on_its_verdict_side():
    values = np.array([0.0, 0.5, 1.0, 2.0, np.inf])
    right = threshold_histogram(values, 1.0, closed="right", bins=4)  # β: 1.0 <= β passes
    left = threshold_histogram(values, 1.0, closed="left", bins=4)  # δ: 1.0 < δ fails
    assert right["edges"] == left["edges"] == [0.0, 0.5, 1.0, 1.5, 2.0]
    assert right["counts"] == [2, 1, 0, 1] and left["counts"] == [1, 1, 1, 1]
    assert right["infinite"] == left["infinite"] == 1
    assert failing_bins(right["edges"], 1.0) == [False, False, True, True]
    # at β = 0.875 the z3 class (D = 7/8 exactly) passes and is drawn below the line
    m = measure({"assessor": "beta_likeness", "sensitive": "disease", "beta": 0.875})
    hist = m.details["per_class_histogram"]
    assert m.passed and hist["edges"][-1] == 0.875 and sum(hist["counts"]) == 3
