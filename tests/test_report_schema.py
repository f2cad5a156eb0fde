"""The JSON Schema of the report (issue #16): ``privaudit report schema`` prints a valid draft 2020-12
schema, real reports follow it (every report the suite writes is checked, see conftest.py), and a report
that drifts from it is caught."""

from __future__ import annotations

import copy
import json

import jsonschema
import pytest

from conftest import ROOT
from privaudit.testing import assert_valid_report, run_cli


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("schema") / "r.json"
    result = run_cli("audit", ROOT / "examples" / "adult" / "release.csv", "--policy", ROOT / "policies" / "adult.yaml",
                     "--json", out, "--quiet")
    assert result.code == 0, result.stderr
    return json.loads(out.read_text())


def test_the_cli_prints_a_valid_schema(report):
    result = run_cli("report", "schema")
    schema = json.loads(result.stdout)
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(report)
    assert schema["properties"]["schema_version"] == {"const": report["schema_version"]}


@pytest.mark.parametrize("drift", [
    lambda r: r.pop("summary"),
    lambda r: r["input"].update(sha256="not a hash"),
    lambda r: r["checks"][0].update(status="maybe"),
    lambda r: r["checks"][0].update(value=float("nan")) or r["checks"][0].update(value="NaN"),
    lambda r: r.update(extra_key=1),
    lambda r: r["scope"].update(missing_qi="sometimes"),
])
def test_a_drifting_report_is_caught(report, drift):
    broken = copy.deepcopy(report)
    drift(broken)
    with pytest.raises(AssertionError, match="does not follow its schema"):
        assert_valid_report(broken)


def test_remediation_and_api_reports_follow_it(tmp_path):
    import pandas as pd

    import privaudit

    frame = pd.DataFrame({"age": ["30", "30", "40", "41"], "zip": ["1", "1", "2", "2"]})
    policy = {"columns": {"age": {"role": "quasi_identifier"}, "zip": {"role": "quasi_identifier"}},
              "checks": [{"assessor": "k_anonymity", "k": 2}]}
    assert_valid_report(privaudit.audit(frame, policy).to_dict())
    outcome = privaudit.remediate(frame, policy, method="suppress", max_suppression=1.0)
    assert_valid_report(outcome.after.to_dict())
