"""uniqueness with population models and individual risk, end to end through the CLI.

Golden values: ARX's own test on its adult.csv (all 9 columns as quasi-identifiers) and sdcMicro's
testdata (key variables urbrur, roof, walls, water, sex).

ARX's SNB equations differ from the model's definition (see privaudit/riskmodels/population.py); with
the definition (``snb: corrected``, the default) the SNB model converges at f = 0.2 and Dankar's rule
picks it (0.31946); ``snb: arx`` reproduces ARX's published 0.3577099234829125 (Zayatz fallback).
"""

from __future__ import annotations

import pytest
from conftest import DATA, ROOT, write_policy

ADULT_POLICY = (
    """version: 1
name: adult, all columns quasi-identifying
data: {delimiter: ";"}
columns:
"""
    + "".join(
        f"  {c}: {{role: quasi_identifier}}\n"
        for c in [
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
    )
    + """checks:
  - {id: f01, assessor: uniqueness, max_share: 1, sampling_fraction: 0.1}
  - {id: f02, assessor: uniqueness, max_share: 1, sampling_fraction: 0.2}
  - {id: f02arx, assessor: uniqueness, max_share: 1, population_size: 150810, snb: arx}
  - {id: f001, assessor: uniqueness, max_share: 1, sampling_fraction: 0.01}
  - {id: f1, assessor: uniqueness, max_share: 1, sampling_fraction: 1.0}
"""
)


def test_arx_adult_golden(tmp_path, audit_json):
    _, report = audit_json(ROOT / "examples" / "adult" / "adult.csv", write_policy(tmp_path, ADULT_POLICY))
    checks = {c["id"]: c for c in report["checks"]}
    f01 = checks["f01"]
    assert f01["value"] == pytest.approx(0.5142895033485844, rel=1e-4)  # sample uniqueness
    assert f01["details"]["average_risk"] == pytest.approx(0.6465751607983555, rel=1e-4)  # prosecutor risk
    pu = f01["details"]["population_uniqueness"]
    assert pu["model"] == "pitman" and pu["pitman_converged"]
    assert pu["dankar"] == pytest.approx(0.27684993883653597, rel=1e-4)
    assert pu["zayatz"] == pytest.approx(0.3207402393466189, rel=1e-4)  # ARX's figure if Pitman fell back
    assert checks["f001"]["details"]["population_uniqueness"]["dankar"] == pytest.approx(0.1446083531167384, rel=1e-4)
    arx = checks["f02arx"]["details"]["population_uniqueness"]
    assert arx["dankar"] == pytest.approx(0.3577099234829125, rel=1e-4) and arx["model"] == "zayatz"
    corrected = checks["f02"]["details"]["population_uniqueness"]
    assert corrected["model"] == "snb" and corrected["dankar"] == pytest.approx(0.31946, rel=1e-4)
    assert checks["f1"]["details"]["population_uniqueness"]["dankar"] == pytest.approx(0.5142895033485844, rel=1e-9)


SDC_POLICY = """version: 1
name: sdcMicro testdata
columns:
  urbrur: {role: quasi_identifier}
  roof: {role: quasi_identifier}
  walls: {role: quasi_identifier}
  water: {role: quasi_identifier}
  sex: {role: quasi_identifier}
WEIGHT
checks:
  - {assessor: uniqueness, max_share: 1}
"""


@pytest.mark.slow
def test_sdcmicro_individual_risk(tmp_path, audit_json):
    data = DATA / "riskmodels" / "testdata.csv"
    weighted = SDC_POLICY.replace("WEIGHT", "  sampling_weight: {role: weight, type: numeric}")
    _, report = audit_json(data, write_policy(tmp_path, weighted))
    d = report["checks"][1]["details"]
    assert d["expected_reidentifications"] == pytest.approx(1.5272, abs=5e-5)
    assert d["global_risk"] == pytest.approx(0.000333, abs=5e-7)
    assert d["weight_column"] == "sampling_weight"
    _, report = audit_json(data, write_policy(tmp_path, SDC_POLICY.replace("WEIGHT\n", ""), "unweighted.yaml"))
    assert report["checks"][1]["details"]["expected_reidentifications"] == pytest.approx(93)


def test_population_parameters_validated(tmp_path, run_cli):
    policy = write_policy(
        tmp_path, ADULT_POLICY.replace("sampling_fraction: 0.1}", "sampling_fraction: 0.1, population_size: 5}")
    )
    code, _, err = run_cli("audit", ROOT / "examples" / "adult" / "adult.csv", "--policy", policy)
    assert code == 2 and "give sampling_fraction or population_size, not both" in err
