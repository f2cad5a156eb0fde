"""F_k under ``data.missing_qi: wildcard``: sdcMicro's freqCalc sums the weights of every record a record
matches (a missing value matches any value), not of its exact-match class only.

Golden figures: sdcMicro's tests/testthat/test_indivRisk.R, "with missing", weighted, indivRisk(method =
"approx", qual = 1, survey = TRUE) on its 8-record example (keys A, B, C; weights 18, 45.5, 39, 17, 92, 8,
123.5, 51): f_k = 3, 1, 4, 2, 3, 3, 1, 5 and the risks below. Record 3, (2, 3, NA), matches records 1, 3, 4
and 8: F_k = 18 + 39 + 17 + 51 = 125 (its exact class alone weighs 39).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from privaudit.risk.individual_risk import individual_risk
from privaudit.testing import audit_context, audit_frame, check_result

SAMPLE = pd.DataFrame(
    {
        "A": ["2", "3", "2", "2", "3", "3", "1", ""],
        "B": ["3", "3", "3", "3", "3", "3", "4", "3"],
        "C": ["1", "3", "", "2", "1", "1", "", "1"],
        "weight": [18.0, 45.5, 39.0, 17.0, 92.0, 8.0, 123.5, 51.0],
    }
)
POLICY = {
    "data": {"missing_qi": "wildcard"},
    "columns": {
        "A": {"role": "quasi_identifier"},
        "B": {"role": "quasi_identifier"},
        "C": {"role": "quasi_identifier"},
        "weight": {"role": "weight", "type": "numeric"},
    },
    "checks": [{"assessor": "uniqueness", "max_share": 1.0}],
}
SDCMICRO_FK = [3, 1, 4, 2, 3, 3, 1, 5]
SDCMICRO_RK = [0.013698630, 0.085791288, 0.010554090, 0.032466112, 0.009836066, 0.009836066, 0.039316254, 0.005973716]


def test_population_sizes_sum_the_weights_of_every_matching_record():
    s = audit_context(SAMPLE, POLICY).summary
    records = s.class_of
    assert s.class_fk[records].tolist() == SDCMICRO_FK
    # record 1 (2, 3, 1) matches 1, 3, 8; 4 (2, 3, 2) matches 3, 4; 5 and 6 (3, 3, 1) match 5, 6, 8;
    # 8 (NA, 3, 1) matches 1, 3, 5, 6, 8
    expected = [18 + 39 + 51, 45.5, 18 + 39 + 17 + 51, 39 + 17, 92 + 8 + 51, 92 + 8 + 51, 123.5, 18 + 39 + 92 + 8 + 51]
    assert s.weight_sums[records].tolist() == pytest.approx(expected)


def test_individual_risk_matches_sdcmicro_with_missing_values():
    s = audit_context(SAMPLE, POLICY).summary
    risk = individual_risk(s.class_fk, s.weight_sums)[s.class_of]
    np.testing.assert_allclose(risk, SDCMICRO_RK, rtol=1e-6)
    details = check_result(audit_frame(SAMPLE, POLICY), "uniqueness")["details"]
    assert details["expected_reidentifications"] == pytest.approx(sum(SDCMICRO_RK), rel=1e-6)


def test_without_missing_values_wildcard_and_value_agree():
    full = SAMPLE.assign(A=SAMPLE["A"].replace("", "1"), C=SAMPLE["C"].replace("", "2"))
    wild = audit_context(full, POLICY).summary
    exact = audit_context(full, {**POLICY, "data": {"missing_qi": "value"}}).summary
    assert wild.weight_sums.tolist() == exact.weight_sums.tolist()


# sdcMicro tests/testthat/test_indivRisk.R, method = "exact", with and without missing values, qual 1 and 2
SDCMICRO_RK_EXACT_MISSING = [
    0.013552968,
    0.085791288,
    0.010504889,
    0.032466112,
    0.009756889,
    0.009756889,
    0.039316254,
    0.005962551,
]
SDCMICRO_RK_EXACT_FULL_QUAL2 = [
    0.02710594,
    0.17158258,
    0.02710594,
    0.35415167,
    0.03755767,
    0.03755767,
    0.07863251,
    0.02710594,
]


def test_exact_individual_risk_and_qual_match_sdcmicro(tmp_path):
    exact = {**POLICY, "checks": [{"assessor": "uniqueness", "max_share": 1.0, "individual_risk": "exact"}]}
    s = audit_context(SAMPLE, exact).summary
    from privaudit.risk.individual_risk import individual_risk_exact

    np.testing.assert_allclose(
        individual_risk_exact(s.class_fk, s.weight_sums)[s.class_of], SDCMICRO_RK_EXACT_MISSING, rtol=1e-6
    )
    full = pd.DataFrame(
        {
            "A": ["2", "3", "2", "2", "3", "3", "1", "2"],
            "B": ["3", "3", "3", "3", "3", "3", "4", "3"],
            "C": ["1", "3", "1", "2", "1", "1", "1", "1"],
            "weight": SAMPLE["weight"],
        }
    )
    qual2 = {
        **POLICY,
        "checks": [{"id": "u", "assessor": "uniqueness", "max_share": 1.0, "individual_risk": "exact", "qual": 2}],
    }
    details = check_result(audit_frame(full, qual2), "u")["details"]
    assert details["expected_reidentifications"] == pytest.approx(sum(SDCMICRO_RK_EXACT_FULL_QUAL2), rel=1e-6)
    assert details["individual_risk_method"] == "exact" and details["qual"] == 2
