"""interval_disclosure through the CLI, with the original table."""

from __future__ import annotations

import pytest
from conftest import write_policy

POLICY = """version: 1
name: interval
columns:
  id: {role: record_id}
  age: {role: quasi_identifier, type: numeric}
  income: {role: sensitive, type: numeric}
checks:
  - {id: sd, assessor: interval_disclosure, method: sd, p: 50, sd_of: original, max_rate: 0.5}
  - {id: rank, assessor: interval_disclosure, attributes: [income], method: rank, p: 40, max_rate: 1}
"""


def test_interval_disclosure_end_to_end(tmp_path, run_cli, audit_json):
    # original income 10..50 (sd = 15.81); released shifted by 0, 5, 20, 0, 9 -> |diff| <= 7.9 for 3 of 5
    (tmp_path / "original.csv").write_text("id,age,income\n1,20,10\n2,30,20\n3,40,30\n4,50,40\n5,60,50\n")
    (tmp_path / "released.csv").write_text("id,age,income\n5,60,59\n1,20,10\n2,30,25\n3,40,50\n4,50,40\n")
    policy = write_policy(tmp_path, POLICY)
    code, report = audit_json(tmp_path / "released.csv", policy, "--original", tmp_path / "original.csv")
    checks = {c["id"]: c for c in report["checks"]}
    sd = checks["sd"]
    # joined by record_id; age is identical (disclosed everywhere); income: ids 1, 4 exact and 2 off by 5
    # are inside 0.5 * 15.81; id 5 (off by 9) and id 3 (off by 20) are not
    assert sd["details"]["per_attribute"] == {"age": 1.0, "income": pytest.approx(3 / 5)}
    assert sd["value"] == pytest.approx(3 / 5) and sd["status"] == "fail" and code == 1
    assert report["original"]["rows"] == 5
    code, _, err = run_cli("audit", tmp_path / "released.csv", "--policy", policy)
    assert code == 2 and "needs the original table" in err


def test_attributes_must_be_numeric(tmp_path, run_cli):
    (tmp_path / "r.csv").write_text("id,age,income\n1,2,3\n")
    policy = write_policy(tmp_path, POLICY.replace("attributes: [income]", "attributes: [id]"))
    code, _, err = run_cli("audit", tmp_path / "r.csv", "--policy", policy, "--original", tmp_path / "r.csv")
    assert code == 2 and "column 'id' is nominal, not numeric" in err
