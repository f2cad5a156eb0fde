"""The microaggregate remediator through the CLI: output passes k-anonymity and t-closeness re-audits."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from conftest import write_policy

POLICY = """version: 1
name: microaggregation
columns:
  income: {role: quasi_identifier, type: numeric}
  wealth: {role: quasi_identifier, type: numeric}
  tax: {role: sensitive, type: numeric}
checks:
  - {assessor: k_anonymity, k: 4}
TCHECK"""


@pytest.fixture
def data(tmp_path):
    rng = np.random.default_rng(11)
    income = rng.lognormal(10, 0.6, 400).round()
    frame = pd.DataFrame(
        {
            "income": income,
            "wealth": (income * rng.uniform(0.5, 3, 400)).round(),
            "tax": (income * 0.2 + rng.normal(0, 500, 400)).round(),
        }
    )
    path = tmp_path / "data.csv"
    frame.to_csv(path, index=False)
    return path


@pytest.mark.parametrize("algorithm", ["t-closeness-first", "merge", "k-anonymity-first"])
def test_t_close_algorithms_pass(tmp_path, data, run_cli, algorithm):
    policy = write_policy(tmp_path, POLICY.replace("TCHECK", "  - {assessor: t_closeness, sensitive: tax, t: 0.15}\n"))
    out, report = tmp_path / "out.csv", tmp_path / "r.json"
    code, _, err = run_cli(
        "remediate",
        data,
        "--policy",
        policy,
        "--method",
        "microaggregate",
        "--option",
        f"algorithm={algorithm}",
        "--out",
        out,
        "--json",
        report,
    )
    assert code == 0, err
    rem = json.loads(report.read_text())["remediation"]
    assert rem["loss"]["min_cluster_size"] >= 4 and rem["loss"]["max_cluster_emd"] <= 0.15 + 1e-9
    assert 0 < rem["loss"]["normalized_sse"] < 1
    fixed = pd.read_csv(out)
    assert len(fixed) == 400 and (fixed["tax"] == pd.read_csv(data)["tax"]).all()
    assert run_cli("audit", out, "--policy", policy)[0] == 0


def test_mdav_for_k_only(tmp_path, data, run_cli):
    policy = write_policy(tmp_path, POLICY.replace("TCHECK", ""))
    out = tmp_path / "out.csv"
    assert run_cli("remediate", data, "--policy", policy, "--method", "microaggregate", "--out", out)[0] == 0
    sizes = pd.read_csv(out).groupby(["income", "wealth"]).size()
    assert sizes.min() >= 4


def test_categorical_qi_refused(tmp_path, data, run_cli):
    frame = pd.read_csv(data).assign(region="north")
    frame.to_csv(data, index=False)
    policy = write_policy(
        tmp_path, POLICY.replace("TCHECK", "").replace("  tax:", "  region: {role: quasi_identifier}\n  tax:")
    )
    code, _, err = run_cli(
        "remediate", data, "--policy", policy, "--method", "microaggregate", "--out", tmp_path / "o.csv"
    )
    assert code == 2 and "microaggregation needs numeric quasi-identifiers; 'region' is nominal" in err


def test_option_k_aims_at_that_class_size(tmp_path, data, run_cli):
    """``--option k=7`` aims past the policy's k (4); with no check implying a k the option alone is the target."""
    policy = write_policy(tmp_path, POLICY.replace("TCHECK", ""))
    out, report = tmp_path / "out.csv", tmp_path / "r.json"
    code, _, err = run_cli(
        "remediate",
        data,
        "--policy",
        policy,
        "--method",
        "microaggregate",
        "--option",
        "k=7",
        "--out",
        out,
        "--json",
        report,
    )
    assert code == 0, err
    rem = json.loads(report.read_text())["remediation"]
    assert rem["options"]["k"] == 7 and rem["changes"]["k"] == 7 and rem["loss"]["min_cluster_size"] >= 7
    assert pd.read_csv(out).groupby(["income", "wealth"]).size().min() >= 7
    # the policy's checks imply no k (an average-risk check only): the option is the whole target
    risk_only = write_policy(
        tmp_path,
        POLICY.replace(
            "  - {assessor: k_anonymity, k: 4}\n", "  - {assessor: reidentification_risk, max_risk: 0.5}\n"
        ).replace("TCHECK", ""),
        "risk.yaml",
    )
    code, _, err = run_cli(
        "remediate",
        data,
        "--policy",
        risk_only,
        "--method",
        "microaggregate",
        "--option",
        "k=7",
        "--out",
        tmp_path / "o2.csv",
        "--json",
        tmp_path / "r2.json",
    )
    assert code == 0, err
    assert json.loads((tmp_path / "r2.json").read_text())["remediation"]["changes"]["k"] == 7
    code, _, err = run_cli(
        "remediate", data, "--policy", risk_only, "--method", "microaggregate", "--out", tmp_path / "o3.csv"
    )
    assert code != 0 and "no error-severity check implying a class size" in err
