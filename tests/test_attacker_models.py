"""reidentification_risk: ARX's prosecutor, journalist and marketer models.

Golden figure: ARX's own test ``TestRiskMetrics.testAverageRisk2`` (github.com/arx-deidentifier/arx,
src/test/org/deidentifier/arx/test/TestRiskMetrics.java): on ARX's ``data/adult.csv`` with every attribute
that has a hierarchy as quasi-identifier (all nine columns) and no population table, the average
(prosecutor) risk is exactly 0.6465751607983555 and the highest risk 1.0 (``testHighestIndividualRisk2``).
``examples/adult/adult.csv`` is ARX's file, byte for byte."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from conftest import ROOT

from privaudit.risk.attacker_models import attacker_risks
from privaudit.testing import assert_section_renders, run_cli


def test_arx_average_risk_on_adult():
    import privaudit

    adult = pd.read_csv(ROOT / "examples" / "adult" / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    policy = {
        "columns": {c: {"role": "quasi_identifier"} for c in adult.columns},
        "checks": [{"id": "r", "assessor": "reidentification_risk", "max_risk": 1}],
    }
    check = next(c for c in privaudit.audit(adult, policy).to_dict()["checks"] if c["id"] == "r")
    assert check["value"] == 0.6465751607983555  # ARX TestRiskMetrics.testAverageRisk2, exactly
    assert check["details"]["prosecutor"]["highest"] == 1.0
    # without a population the release is the population: the three models agree (ARX)
    assert check["details"]["journalist"] == check["details"]["prosecutor"]
    assert check["details"]["marketer"]["average"] == pytest.approx(0.6465751607983555)


def test_hand_computed_models_with_a_population():
    f, big_f = np.array([1, 2, 5]), np.array([4, 2, 10])  # n = 8 records, c = 3 classes, sum F = 16
    r = attacker_risks(f, big_f, threshold=0.3)
    assert (r.prosecutor.highest, r.prosecutor.lowest, r.prosecutor.average) == (1.0, 0.2, 3 / 8)
    assert r.prosecutor.records_at_risk == pytest.approx(3 / 8)  # classes of 1 and 2 records: 1 > .3, .5 > .3
    assert r.journalist.highest == 0.5 and r.journalist.lowest == 0.1
    assert r.journalist.records_at_risk == pytest.approx(2 / 8)  # only 1/2 > 0.3
    marketer = (1 / 4 + 2 / 2 + 5 / 10) / 8
    assert r.marketer == pytest.approx(marketer)
    assert r.journalist.average == pytest.approx(max(3 / 16, marketer))
    with pytest.raises(ValueError, match="contain the release"):
        attacker_risks(f, np.array([1, 1, 5]), 0.3)


POLICY = """version: 1
name: attackers
columns:
  age: {role: quasi_identifier}
  zip: {role: quasi_identifier}
checks:
  - {id: j, assessor: reidentification_risk, model: journalist, measure: highest, max_risk: 0.4, population: population.csv}
"""


def _files(tmp_path):
    release = pd.DataFrame({"age": ["30", "30", "40", "50"], "zip": ["1", "1", "2", "3"]})
    population = pd.concat(
        [release, pd.DataFrame({"age": ["30", "40", "40", "50", "50", "50"], "zip": ["1", "2", "2", "3", "3", "3"]})]
    )
    release.to_csv(tmp_path / "release.csv", index=False)
    population.to_csv(tmp_path / "population.csv", index=False)
    (tmp_path / "policy.yaml").write_text(POLICY)
    return release, population


def test_cli_journalist_with_a_population_table(tmp_path):
    _files(tmp_path)
    out = tmp_path / "r.json"
    result = run_cli(
        "audit",
        tmp_path / "release.csv",
        "--policy",
        tmp_path / "policy.yaml",
        "--json",
        out,
        "--html",
        tmp_path / "r.html",
        "--quiet",
    )
    assert result.code == 0, result.stderr
    check = next(c for c in json.loads(out.read_text())["checks"] if c["id"] == "j")
    # population classes: (30,1) 3, (40,2) 3, (50,3) 4 -> highest journalist risk 1/3
    assert check["value"] == pytest.approx(1 / 3) and check["details"]["population"] == "file"
    assert check["details"]["prosecutor"]["highest"] == 1.0
    assert "Re-identification risk under the three attacker models" in (tmp_path / "r.html").read_text()


def test_report_section_renders(tmp_path):
    import privaudit

    release, _ = _files(tmp_path)
    report = privaudit.audit(
        release,
        {
            "columns": {"age": {"role": "quasi_identifier"}},
            "checks": [{"id": "p", "assessor": "reidentification_risk", "max_risk": 0.5}],
        },
    )
    assert_section_renders(report.result, "p")


@pytest.mark.parametrize(
    "edit, expected",
    [
        (
            lambda t: t.replace("measure: highest", "model: marketer, measure: highest").replace(
                "model: journalist, ", ""
            ),
            "the marketer model has only the average",
        ),
        (lambda t: t.replace("population: population.csv", "use_weights: true"), "no column with role 'weight'"),
    ],
)
def test_bad_input_is_one_line(tmp_path, edit, expected):
    release, _ = _files(tmp_path)
    release.head(2).to_csv(tmp_path / "small.csv", index=False)
    (tmp_path / "policy.yaml").write_text(edit(POLICY))
    result = run_cli("audit", tmp_path / "release.csv", "--policy", tmp_path / "policy.yaml")
    assert result.code == 2 and result.stderr.count("\n") == 1 and expected in result.stderr, result.stderr


def test_a_population_without_the_release_is_one_line(tmp_path):
    """Found while the check runs (the population is read then): one line, exit 2, nothing written."""
    release, _ = _files(tmp_path)
    release.head(2).to_csv(tmp_path / "small.csv", index=False)
    (tmp_path / "policy.yaml").write_text(POLICY.replace("population.csv", "small.csv"))
    out = tmp_path / "r.json"
    result = run_cli("audit", tmp_path / "release.csv", "--policy", tmp_path / "policy.yaml", "--json", out)
    assert result.code == 2 and result.stderr.count("\n") == 1 and not out.exists()
    assert "small.csv: the population table does not contain the release (2 classes" in result.stderr
