"""privaudit remediate: the output is offered only when its re-audit passes; inputs are never touched."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from conftest import write_policy

POLICY = """version: 1
name: remediation tests
columns:
  zip: {role: quasi_identifier}
  age: {role: quasi_identifier, type: numeric}
  disease: {role: sensitive}
  note: {role: other}
checks:
  - {assessor: k_anonymity, k: 3}
  - {assessor: l_diversity, sensitive: disease, l: 2}
"""


def table(n_big: int = 6) -> str:
    rows = ["zip,age,disease,note"]
    for z in "ABC":  # three passing classes of 2 * n_big records, two diseases each
        rows += [f"{z},30,flu,x"] * n_big + [f"{z},30,cold,x"] * n_big
    rows += ["D,41,flu,=cmd|' /C calc'!A0", "E,52,cold,y", "F,63,flu,y"]  # three singletons
    return "\n".join(rows) + "\n"


@pytest.fixture
def case(tmp_path):
    data = tmp_path / "release.csv"
    data.write_text(table())
    return data, write_policy(tmp_path, POLICY)


def test_suppression_fixes_and_writes(case, tmp_path, run_cli):
    data, policy = case
    before = data.read_bytes()
    out, report = tmp_path / "fixed.csv", tmp_path / "r.json"
    code, stdout, err = run_cli(
        "remediate", data, "--policy", policy, "--method", "suppress", "--out", out, "--json", report
    )
    assert code == 0, err
    assert data.read_bytes() == before
    fixed = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert len(fixed) == 39 and list(fixed.columns) == ["zip", "age", "disease", "note"]
    assert (fixed.iloc[-3:][["zip", "age"]] == "*").all().all()
    assert fixed["note"].iloc[-3] == "'=cmd|' /C calc'!A0"  # spreadsheet formula neutralised
    rem = json.loads(report.read_text())["remediation"]
    assert rem["offered"] is True and rem["method"] == "suppress"
    assert rem["before"]["passed"] is False and rem["after"]["passed"] is True
    assert rem["loss"]["records_suppressed"] == 3 and rem["loss"]["cells_suppressed"] == 6
    # the written file passes when audited from disk with the same policy
    assert run_cli("audit", out, "--policy", policy)[0] == 0


def test_deterministic(case, tmp_path, run_cli):
    data, policy = case
    for name in ("a.csv", "b.csv"):
        assert run_cli("remediate", data, "--policy", policy, "--method", "suppress", "--out", tmp_path / name)[0] == 0
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes()


def test_over_budget_writes_no_table_but_the_report(case, tmp_path, run_cli):
    data, policy = case
    out, report = tmp_path / "fixed.csv", tmp_path / "r.json"
    code, stdout, _ = run_cli(
        "remediate",
        data,
        "--policy",
        policy,
        "--method",
        "suppress",
        "--option",
        "max_suppression=0.05",
        "--out",
        out,
        "--json",
        report,
    )
    assert code == 1 and not out.exists()
    rem = json.loads(report.read_text())["remediation"]
    assert rem["offered"] is False and "exceed the budget" in rem["notes"][0]
    assert "no remediated table written" in stdout


def test_records_mode_removes_records(case, tmp_path, run_cli):
    data, policy = case
    out = tmp_path / "fixed.csv"
    code, _, err = run_cli(
        "remediate", data, "--policy", policy, "--method", "suppress", "--option", "mode=records", "--out", out
    )
    assert code == 0, err
    assert len(pd.read_csv(out)) == 36


def test_method_from_policy_and_option_errors(case, tmp_path, run_cli):
    data, policy = case
    policy.write_text(POLICY + "remediation: {method: suppress, options: {max_suppression: 0.5}}\n")
    assert run_cli("remediate", data, "--policy", policy, "--out", tmp_path / "f.csv")[0] == 0
    code, _, err = run_cli(
        "remediate", data, "--policy", policy, "--option", "max_supression=1", "--out", tmp_path / "g.csv"
    )
    assert code == 2 and "did you mean 'max_suppression'" in err and not (tmp_path / "g.csv").exists()
    code, _, err = run_cli("remediate", data, "--policy", policy, "--method", "magic", "--out", tmp_path / "g.csv")
    assert code == 2 and "unknown remediation method 'magic' (available:" in err
    code, _, err = run_cli(
        "remediate", data, "--policy", policy, "--option", "columns=[disease]", "--out", tmp_path / "g.csv"
    )
    assert code == 2 and "'disease' is not a quasi-identifier" in err


def test_list(run_cli):
    code, out, _ = run_cli("remediate", "--list")
    assert code == 0 and "max_suppression=0.1" in out
    names = [line.split()[0] for line in out.splitlines() if line and not line.startswith(" ")]
    assert {"suppress", "randomize", "microaggregate"} <= set(names)
