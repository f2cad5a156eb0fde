"""remediate on a table that already passes every check of error severity: no change needed, nothing written
(as ``remediate --explore`` leaves a passing input alone), unless the user asks with --even-if-passing."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from conftest import write_policy

import privaudit

POLICY = """version: 1
name: no change tests
columns:
  zip: {role: quasi_identifier}
  age: {role: quasi_identifier, type: numeric}
  disease: {role: sensitive}
checks:
  - {assessor: k_anonymity, k: 3}
  - {assessor: l_diversity, sensitive: disease, l: 2}
"""


def passing_table() -> str:
    rows = ["zip,age,disease"]
    for z in "ABC":  # three classes of six records, two diseases each: k = 6, l = 2
        rows += [f"{z},30,flu"] * 3 + [f"{z},30,cold"] * 3
    return "\n".join(rows) + "\n"


@pytest.fixture
def case(tmp_path):
    data = tmp_path / "release.csv"
    data.write_text(passing_table())
    return data, write_policy(tmp_path, POLICY)


@pytest.mark.slow
def test_passing_table_is_not_rewritten(case, tmp_path, run_cli):
    data, policy = case
    out, report, html, md = tmp_path / "fixed.csv", tmp_path / "r.json", tmp_path / "r.html", tmp_path / "r.md"
    code, stdout, err = run_cli(
        "remediate",
        data,
        "--policy",
        policy,
        "--method",
        "suppress",
        "--out",
        out,
        "--json",
        report,
        "--html",
        html,
        "--markdown",
        md,
    )
    assert code == 0, err
    assert "no change needed: the table already passes the policy" in stdout
    assert "not written" in stdout and "--even-if-passing" in stdout
    assert not out.exists()
    found = json.loads(report.read_text())
    assert found["summary"]["passed"] is True  # the input's own audit
    rem = found["remediation"]  # every format says why nothing was written
    assert rem["no_change_needed"] is True and rem["offered"] is False and rem["method"] == "suppress"
    assert rem["changes"] == {} and rem["before"] == rem["after"]
    page = html.read_text()
    assert "NO CHANGE NEEDED" in page and "no change needed" in page and "best attempt" not in page
    assert "**No change needed**" in md.read_text()


@pytest.mark.slow
def test_even_if_passing_remediates_anyway(case, tmp_path, run_cli):
    data, policy = case
    out, report = tmp_path / "fixed.csv", tmp_path / "r.json"
    code, stdout, err = run_cli(
        "remediate",
        data,
        "--policy",
        policy,
        "--method",
        "suppress",
        "--out",
        out,
        "--json",
        report,
        "--even-if-passing",
    )
    assert code == 0, err
    assert "no change needed" not in stdout
    assert len(pd.read_csv(out)) == 18
    assert json.loads(report.read_text())["remediation"]["offered"] is True


def test_even_if_passing_is_refused_with_explore(case, tmp_path, run_cli):
    data, policy = case
    code, _, err = run_cli("remediate", data, "--policy", policy, "--explore", "--even-if-passing")
    assert code == 2 and "--even-if-passing" in err and "Traceback" not in err


@pytest.mark.slow
def test_api_says_no_change_needed(case):
    data, policy = case
    frame = pd.read_csv(data)
    found = privaudit.remediate(frame, str(policy), method="suppress")
    assert found.no_change_needed and not found.offered
    assert found.after.passed and len(found.table) == len(frame)  # the input's own audit, the input's records
    anyway = privaudit.remediate(frame, str(policy), method="suppress", even_if_passing=True)
    assert not anyway.no_change_needed and anyway.offered
