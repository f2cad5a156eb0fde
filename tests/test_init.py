"""``privaudit init`` (a drafted policy that passes ``policy check --data`` and audits unchanged) and the ready
policies in policies/."""

from __future__ import annotations

import shutil

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import ROOT

from privaudit.testing import run_cli

ADULT = ROOT / "examples" / "adult" / "adult.csv"
RELEASE = ROOT / "examples" / "adult" / "release.csv"


@pytest.mark.slow
def test_init_drafts_a_policy_that_fits_and_audits(tmp_path):
    data = tmp_path / "adult.csv"
    shutil.copy(ADULT, data)
    result = run_cli("init", data)
    assert result.code == 0, result.stderr
    policy = tmp_path / "adult.policy.yaml"
    text = policy.read_text()
    doc = yaml.safe_load(text)
    roles = {name: spec["role"] for name, spec in doc["columns"].items()}
    assert [c for c, r in roles.items() if r == "quasi_identifier"] == [
        "sex",
        "age",
        "race",
        "marital-status",
        "education",
        "native-country",
        "workclass",
        "occupation",
    ]  # a key variable
    assert roles["salary-class"] == "sensitive"
    # typed numeric, without a file: remediate builds the intervals (15-19 ...) and microaggregation can work on it
    assert doc["columns"]["age"] == {"role": "quasi_identifier", "type": "numeric", "importance": 2}
    assert doc["columns"]["sex"]["importance"] == 1 and not (tmp_path / "hierarchies" / "age.csv").exists()
    assert "numbers: intervals from the distribution" in text and "is built by remediate" in text
    assert (
        "#   age: " in text and "# known from elsewhere: sex or gender (its header)" in text
    )  # ranking and evidence comments
    assert {c["assessor"] for c in doc["checks"]} == {"k_anonymity", "l_diversity", "t_closeness", "uniqueness"}
    assert doc["columns"]["race"]["special_category"] == "ethnicity"
    check = run_cli("policy", "check", policy, "--data", data)
    assert check.code == 0 and "valid" in check.stdout, check.stderr
    audit = run_cli("audit", data, "--policy", policy, "--quiet")
    assert audit.code in (0, 1), audit.stderr
    fixed = run_cli(
        "remediate",
        data,
        "--policy",
        policy,
        "--method",
        "generalize",
        "--option",
        "max_suppression=0.05",
        "--out",
        tmp_path / "fixed.csv",
        "--quiet",
    )
    assert fixed.code in (0, 1) and not fixed.stderr, fixed.stderr
    again = run_cli("init", data)
    assert again.code == 2 and "exists; --force overwrites it" in again.stderr
    assert run_cli("init", data, "--force").code == 0


def test_init_reads_identifiers_dates_weights_ranges_and_mixed_columns(tmp_path):
    rng = np.random.default_rng(5)
    n = 400
    first = ["Maria", "John", "Jean", "Anna", "Lukas", "Sofia", "Pierre", "Lucia", "Jan", "Emma", "Paul", "Laura"]
    last = ["Schmidt", "Smith", "Dupont", "Rossi", "Garcia", "Jansen", "Martin", "Bianchi", "Nowak", "Keller"]
    frame = pd.DataFrame(
        {
            "full_name": [f"{rng.choice(first)} {rng.choice(last)}" for _ in range(n)],
            "email": [f"user{i}@example.org" for i in range(n)],
            "date_of_birth": [
                f"19{rng.integers(40, 99)}-0{rng.integers(1, 9)}-1{rng.integers(0, 9)}" for _ in range(n)
            ],
            "zip": rng.choice(["10115", "80331", "20095", "50667"], n),
            "income_band": rng.choice(["0-999", "1000-1999", "2000-2999"], n),
            "diagnosis": rng.choice(["flu", "cold", "asthma"], n),
            "weight": rng.uniform(10, 200, n).round(2),
            "mixed": rng.choice(["1", "2", "3", "n/a", "unknown"], n),
            "sex": rng.choice(["1", "2"], n),  # coded categories: a flat hierarchy, not intervals
            "hh_id": np.arange(n) // 3,  # three records per household
        }
    )
    frame.to_csv(tmp_path / "patients.csv", index=False)
    out = tmp_path / "drafts" / "p.yaml"
    out.parent.mkdir()
    result = run_cli("init", tmp_path / "patients.csv", "--out", out)
    assert result.code == 0, result.stderr
    text = out.read_text()
    doc = yaml.safe_load(text)
    columns = doc["columns"]
    assert columns["full_name"] == {"role": "identifier"} and columns["email"] == {"role": "identifier"}
    assert columns["date_of_birth"]["role"] == "quasi_identifier" and columns["date_of_birth"]["type"] == "nominal"
    assert "order" not in columns["date_of_birth"]  # with a hierarchy: nominal, its labels must fit
    dob = (out.parent / columns["date_of_birth"]["hierarchy"]).read_text().splitlines()[0].split(";")
    assert len(dob) == 5 and dob[1] == dob[0][:7] and dob[2] == dob[0][:4] and dob[3].endswith("0s") and dob[4] == "*"
    assert columns["income_band"]["type"] == "ordinal" and columns["income_band"]["order"] == [
        "0-999",
        "1000-1999",
        "2000-2999",
    ]
    assert columns["diagnosis"]["role"] == "sensitive" and columns["weight"]["role"] == "weight"
    assert columns["mixed"]["type"] == "nominal" and "mixed types" in text
    assert columns["sex"] == {
        "role": "quasi_identifier",
        "type": "nominal",
        "hierarchy": "hierarchies/sex.csv",
        "importance": 1,
    }
    assert (out.parent / "hierarchies" / "sex.csv").read_text() == "1;*\n2;*\n"
    # postcodes: one more digit masked per level, as ARX's example ZIP-code hierarchies
    assert columns["zip"] == {
        "role": "quasi_identifier",
        "type": "nominal",
        "hierarchy": "hierarchies/zip.csv",
        "importance": 3,
    }
    assert (out.parent / "hierarchies" / "zip.csv").read_text().splitlines()[0] == "10115;1011*;101**;10***;1****;*"
    assert columns["hh_id"] == {"role": "household_id", "type": "numeric"} and "household_id: hh_id" in result.stdout
    assert "% look like person names" in text and "% look like e-mail addresses" in text
    check = run_cli("policy", "check", out, "--data", tmp_path / "patients.csv")
    assert check.code == 0, check.stderr
    audit = run_cli("audit", tmp_path / "patients.csv", "--policy", out, "--quiet")
    assert audit.code in (0, 1), audit.stderr


@pytest.mark.parametrize(
    "content, expected",
    [
        (b"", "the file is empty"),
        (b"a,b\n", "the file has a header but no data rows"),
        (b"a\n1\n2\n", "a table needs at least two columns to draft a policy (it has 1)"),
        (b"a,b\n1,2,3\n", "line 2: expected 2 fields, found 3"),
    ],
)
def test_init_bad_input_is_one_line(tmp_path, content, expected):
    data = tmp_path / "data.csv"
    data.write_bytes(content)
    result = run_cli("init", data)
    assert result.code == 2 and expected in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "data.policy.yaml").exists()


def test_init_missing_file_and_unknown_profile(tmp_path):
    assert "table not found" in run_cli("init", tmp_path / "nope.csv").stderr
    shutil.copy(ADULT, tmp_path / "a.csv")
    result = run_cli("init", tmp_path / "a.csv", "--profile", "nope")
    assert result.code == 2 and "--profile nope: no such profile (available:" in result.stderr


PROFILES = ["hipaa-expert-determination", "public-use-file", "scientific-use-file"]


@pytest.mark.parametrize("profile", PROFILES)
def test_ready_policies_validate_and_audit_the_shipped_release(profile):
    policy = ROOT / "policies" / f"{profile}.yaml"
    text = policy.read_text()
    assert text.startswith("# Profile:") and ("Hundepool" in text or "El Emam" in text)  # commented and cited
    assert run_cli("policy", "check", policy, "--data", RELEASE).code == 0
    result = run_cli("audit", RELEASE, "--policy", policy, "--quiet")
    assert result.code == (1 if profile == "hipaa-expert-determination" else 0), result.stderr  # release has k = 5


@pytest.mark.parametrize("profile", PROFILES)
def test_init_starts_from_a_profile(tmp_path, profile):
    shutil.copy(ADULT, tmp_path / "adult.csv")
    result = run_cli("init", tmp_path / "adult.csv", "--profile", profile)
    assert result.code == 0, result.stderr
    doc = yaml.safe_load((tmp_path / "adult.policy.yaml").read_text())
    profile_doc = yaml.safe_load((ROOT / "policies" / f"{profile}.yaml").read_text())
    k = next(c["k"] for c in profile_doc["checks"] if c["assessor"] == "k_anonymity")
    assert next(c["k"] for c in doc["checks"] if c["assessor"] == "k_anonymity") == k
    sensitive_checks = [c for c in doc["checks"] if "sensitive" in c]
    assert {c["sensitive"] for c in sensitive_checks} == {"salary-class"}
    assert run_cli("policy", "check", tmp_path / "adult.policy.yaml", "--data", tmp_path / "adult.csv").code == 0


def test_numeric_quasi_identifiers_are_drafted_numeric_so_microaggregation_runs(tmp_path):
    """Ages and years of service are drafted ``type: numeric`` (no hierarchy file): microaggregation runs on
    the drafted policy as written, and its release audits clean under that same policy."""
    rng = np.random.default_rng(1)
    n = 500
    pd.DataFrame(
        {
            "age": rng.integers(18, 90, n),
            "yrs_service": rng.integers(0, 40, n),
            "salary": rng.uniform(1e4, 1e5, n).round(0),
        }
    ).to_csv(tmp_path / "staff.csv", index=False)
    assert run_cli("init", tmp_path / "staff.csv").code == 0
    policy = tmp_path / "staff.policy.yaml"
    doc = yaml.safe_load(policy.read_text())
    assert doc["columns"]["age"] == {"role": "quasi_identifier", "type": "numeric", "importance": 1}
    assert doc["columns"]["yrs_service"]["type"] == "numeric" and not (tmp_path / "hierarchies").exists()
    assert run_cli("audit", tmp_path / "staff.csv", "--policy", policy, "--quiet").code == 1
    out = tmp_path / "micro.csv"
    fixed = run_cli(
        "remediate", tmp_path / "staff.csv", "--policy", policy, "--method", "microaggregate", "--out", out, "--quiet"
    )
    assert fixed.code == 0, fixed.stderr
    assert run_cli("audit", out, "--policy", policy, "--quiet").code == 0
