"""The JSON Schema of the report: ``privaudit report schema`` prints a valid draft 2020-12
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
    result = run_cli(
        "audit",
        ROOT / "examples" / "adult" / "release.csv",
        "--policy",
        ROOT / "policies" / "adult.yaml",
        "--json",
        out,
        "--quiet",
    )
    assert result.code == 0, result.stderr
    return json.loads(out.read_text())


def test_the_cli_prints_a_valid_schema(report):
    result = run_cli("report", "schema")
    schema = json.loads(result.stdout)
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(report)
    assert schema["properties"]["schema_version"] == {"const": report["schema_version"]}


@pytest.mark.parametrize(
    "drift",
    [
        lambda r: r.pop("summary"),
        lambda r: r["input"].update(sha256="not a hash"),
        lambda r: r["checks"][0].update(status="maybe"),
        lambda r: r["checks"][0].update(value=float("nan")) or r["checks"][0].update(value="NaN"),
        lambda r: r.update(extra_key=1),
        lambda r: r["scope"].update(missing_qi="sometimes"),
        lambda r: r["checks"][1]["details"].update(surprise=1),  # k_anonymity's details model is closed
        lambda r: r["checks"][1]["details"].pop("records_below_k"),
        lambda r: r["checks"][1]["details"].update(classes="many"),
    ],
)
def test_a_drifting_report_is_caught(report, drift):
    broken = copy.deepcopy(report)
    drift(broken)
    with pytest.raises(AssertionError, match="does not follow its schema"):
        assert_valid_report(broken)


def test_remediation_and_api_reports_follow_it(tmp_path):
    import pandas as pd

    import privaudit

    frame = pd.DataFrame({"age": ["30", "30", "40", "41"], "zip": ["1", "1", "2", "2"]})
    policy = {
        "columns": {"age": {"role": "quasi_identifier"}, "zip": {"role": "quasi_identifier"}},
        "checks": [{"assessor": "k_anonymity", "k": 2}],
    }
    assert_valid_report(privaudit.audit(frame, policy).to_dict())
    outcome = privaudit.remediate(frame, policy, method="suppress", max_suppression=1.0)
    assert_valid_report(outcome.after.to_dict())


def test_the_schema_lists_every_assessors_details(report):
    """``$defs`` holds each installed assessor's details schema by name, and a check's details follow it."""
    from privaudit.pipeline.plugins import get_registry

    schema = json.loads(run_cli("report", "schema").stdout)
    registry = get_registry()
    for name, assessor in registry.assessors.items():
        if registry.origin[f"assessor:{name}"].package != "privaudit":
            continue  # an installed plugin's assessors are listed when they declare a model
        assert assessor.details is not None, name
        assert name in schema["$defs"], name
    k = schema["$defs"][schema["$defs"]["k_anonymity"]["$ref"].rsplit("/", 1)[1]]
    assert k["additionalProperties"] is False and "records_below_k" in k["required"]
    assert report["checks"][1]["assessor"] == "k_anonymity"
