"""The always-run checks that see what a policy left out: ``refining_columns`` (a column giving back a generalized
quasi-identifier) and ``undeclared_key_variables`` (what an intruder who also knew a column would find), on
properties, on small built tables and on two public survey tables (tests/data/surveys/PROVENANCE.md)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from conftest import ROOT
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import privaudit
from privaudit.core.summary import column_codes
from privaudit.discovery.key_variables import key_variable
from privaudit.risk.undeclared import refinements, split_sizes
from privaudit.testing import assert_valid_report, audit_frame, check_result

SURVEYS = ROOT / "tests" / "data" / "surveys"


def _codes(values) -> tuple[np.ndarray, int]:
    codes, card = column_codes(pd.Series(values))
    return np.asarray(codes), int(card)


def _bands(age: np.ndarray, width: int = 5) -> np.ndarray:
    lo = age // width * width
    return np.array([f"{a}-{a + width - 1}" for a in lo])


# ------------------------------------------------------------------------------------------ properties
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(200, 2000),
    kind=st.sampled_from(["bijection", "finer"]),
    width=st.sampled_from([5, 10]),
)
def test_any_recoding_or_refinement_of_a_generalized_column_is_found(seed, n, kind, width):
    rng = np.random.default_rng(seed)
    age = rng.integers(20, 45, n)
    released = _bands(age, width)
    if kind == "bijection":  # any one-to-one recoding of the original values, under another name
        labels = rng.permutation(np.arange(1000, 1000 + 25))
        derived = labels[age - 20]
    else:  # a refinement: two-year bands inside the released ones
        derived = np.array([f"{a // width}.{(a % width) // 2}" for a in age])
    found = refinements({"age": _codes(released)}, {"derived": _codes(derived)})
    assert [(r.columns, r.source) for r in found] == [(("derived",), "age")]
    assert found[0].distinct > found[0].released


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(50, 2000), values=st.integers(2, 5000))
def test_a_column_independent_of_the_quasi_identifiers_is_never_flagged(seed, n, values):
    rng = np.random.default_rng(seed)
    released = _bands(rng.integers(20, 45, n))
    independent = rng.integers(0, values, n)
    assert refinements({"age": _codes(released)}, {"x": _codes(independent)}) == []


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 500))
def test_split_sizes_are_the_group_sizes_of_the_combined_columns(seed, n):
    rng = np.random.default_rng(seed)
    base = rng.integers(0, 7, n)
    extra = rng.integers(-1, 4, n)
    sizes = split_sizes(base, 7, [_codes(np.where(extra < 0, np.nan, extra))])
    expected = pd.DataFrame({"b": base, "e": extra}).value_counts().to_numpy()
    assert sorted(sizes.tolist()) == sorted(expected.tolist())


# ------------------------------------------------------------------------------------------ refining_columns
def _release(n=600, seed=3):
    rng = np.random.default_rng(seed)
    age = rng.integers(18, 70, n)
    return pd.DataFrame(
        {
            "age": _bands(age, 10),
            "sex": rng.choice(["f", "m"], n),
            "agesq": age**2,
            "income": rng.normal(3000, 800, n).round(2),
            "smoker": rng.choice(["y", "n"], n),
        }
    )


COLUMNS = {"age": {"role": "quasi_identifier"}, "sex": {"role": "quasi_identifier"}}
CHECKS = [{"assessor": "k_anonymity", "k": 2}]


def test_a_column_giving_back_a_banded_age_fails_naming_it():
    result = audit_frame(_release(), {"columns": COLUMNS, "checks": CHECKS})
    check = check_result(result, "refining_columns")
    assert check["status"] == "fail" and check["value"] == 1 and check["severity"] == "error"
    (finding,) = check["details"]["findings"]
    assert finding["columns"] == ["agesq"] and finding["quasi_identifier"] == "age"
    assert finding["records"] == 600 and finding["released"] == 6 and finding["distinct"] > 6
    assert "declare each a quasi-identifier" in check["message"] and "'agesq'" in check["message"]
    assert [g["column"] for g in check["details"]["generalized"]] == ["age"]


def test_a_column_refining_an_exact_quasi_identifier_is_not_flagged():
    frame = _release().assign(age=lambda f: f["agesq"] ** 0.5)
    result = audit_frame(frame, {"columns": {**COLUMNS, "age": {"role": "quasi_identifier", "type": "numeric"}}})
    check = check_result(result, "refining_columns")
    assert check["status"] == "pass" and check["details"]["generalized"] == []


def test_generalization_is_seen_from_the_hierarchy_and_pairs_refine_together():
    rng = np.random.default_rng(5)
    n = 900
    county = rng.choice([f"c{i}" for i in range(12)], n)
    state = np.array([f"s{int(c[1:]) // 4}" for c in county])
    # year and month of birth, interviews on one day: the pair gives back the exact age, neither alone does
    born = rng.integers(0, 12 * 40, n)
    year, month = 1960 + born // 12, 1 + born % 12
    age = 2010 - year - (month > 6)
    frame = pd.DataFrame(
        {"geo": state, "county_code": county, "age": _bands(age, 5), "yob": year, "mob": month, "x": rng.random(n)}
    )
    hierarchy = {"s0": ["c0", "c1", "c2", "c3"], "s1": ["c4", "c5", "c6", "c7"], "s2": ["c8", "c9", "c10", "c11"]}
    policy = {
        "columns": {
            "geo": {"role": "quasi_identifier", "hierarchy": {"*": hierarchy}},
            "age": {"role": "quasi_identifier"},
        }
    }
    check = check_result(audit_frame(frame, policy), "refining_columns")
    found = {(tuple(f["columns"]), f["quasi_identifier"]) for f in check["details"]["findings"]}
    assert (("county_code",), "geo") in found and (("yob", "mob"), "age") in found
    assert not any("x" in cols for cols, _ in found)
    assert "above the hierarchy's leaves" in check["details"]["generalized"][0]["evidence"]


# ------------------------------------------------------------------------------------------ undeclared_key_variables
def test_an_undeclared_knowable_column_is_measured_and_a_named_one_fails():
    rng = np.random.default_rng(8)
    n = 400
    frame = pd.DataFrame(
        {
            "age": rng.integers(30, 40, n),
            "gender": rng.choice(["f", "m"], n),
            "district": rng.choice([f"d{i}" for i in range(40)], n),
            "dummy": rng.choice([0, 1], n),
            "score": rng.normal(size=n),
        }
    )
    policy = {
        "columns": {"age": {"role": "quasi_identifier", "type": "numeric"}},
        "checks": [{"assessor": "uniqueness", "max_share": 0.05}],
    }
    check = check_result(audit_frame(frame, policy), "undeclared_key_variables")
    d = check["details"]
    assert check["status"] == "fail" and "district" in d["failing"] and "dummy" not in d["failing"]
    measured = {e["columns"][0]: e for e in d["columns"]}
    assert set(measured) == {"gender", "district", "dummy"} and d["not_measured"] == ["score"]
    assert measured["district"]["unique_share"] > 0.05 > d["unique_share"]
    assert measured["district"]["breaks"] == ["uniqueness: SampleUniqueness(0.05)"]
    assert "if an intruder also knew 'district'" in check["message"]
    assert len(d["pairs"]) == 3


def test_a_reason_is_respected_and_printed_in_the_report(tmp_path):
    rng = np.random.default_rng(8)
    n = 400
    frame = pd.DataFrame({"age": rng.integers(30, 40, n), "district": rng.choice([f"d{i}" for i in range(40)], n)})
    reason = "recoded by the agency with a random key, which no register holds"
    policy = {
        "columns": {
            "age": {"role": "quasi_identifier", "type": "numeric"},
            "district": {"role": "other", "reason": reason},
        },
        "checks": [{"assessor": "uniqueness", "max_share": 0.05}],
    }
    result = audit_frame(frame, policy)
    check = check_result(result, "undeclared_key_variables")
    assert check["status"] == "pass" and check["details"]["respected"] == [{"column": "district", "reason": reason}]
    report = privaudit.audit(frame, policy | {"version": 1, "name": "reason"})
    html = report.to_html()
    assert reason in html and html.index(reason, html.index('id="unknowable"')) < html.index("Signature")
    assert report.to_dict()["scope"]["unknowable"] == {"district": reason}
    assert_valid_report(report.to_dict())  # the report's JSON Schema knows the scope's reasons and both checks


def test_a_reason_on_a_column_not_other_is_one_line_and_exit_2(run_cli, tmp_path):
    data = tmp_path / "d.csv"
    pd.DataFrame({"age": [1, 2], "sex": ["f", "m"]}).to_csv(data, index=False)
    policy = tmp_path / "p.yaml"
    policy.write_text(
        "version: 1\nname: x\ncolumns:\n  age: {role: quasi_identifier, reason: unknowable}\n"
        "checks:\n  - {assessor: k_anonymity, k: 2}\n"
    )
    code, out, err = run_cli("audit", data, "--policy", policy)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "reason" in err and "Traceback" not in err


# ------------------------------------------------------------------------------------------ public survey tables
FERTIL2_POLICY = """version: 1
name: fertil2 with age banded and agesq left
columns:
  age: {role: quasi_identifier}
  urban: {role: quasi_identifier}
  children: {role: sensitive, type: numeric}
checks:
  - {assessor: k_anonymity, k: 5}
"""


@pytest.mark.slow
def test_fertil2_age_banded_and_agesq_left_fails_naming_agesq(run_cli, tmp_path):
    frame = pd.read_csv(SURVEYS / "leftout_fertil2.csv")
    low = frame["age"] // 5 * 5
    frame["age"] = low.astype(str) + "-" + (low + 4).astype(str)
    data, policy, out = tmp_path / "fertil2.csv", tmp_path / "p.yaml", tmp_path / "r.json"
    frame.to_csv(data, index=False)
    policy.write_text(FERTIL2_POLICY)
    code, stdout, err = run_cli("audit", data, "--policy", policy, "--json", out)
    assert code == 1, err
    checks = {c["id"]: c for c in json.loads(out.read_text())["checks"]}
    assert checks["k_anonymity"]["status"] == "pass"  # the policy's own check is met ...
    refining = checks["refining_columns"]  # ... while agesq gives back every woman's exact age
    assert refining["status"] == "fail" and [f["columns"] for f in refining["details"]["findings"]] == [["agesq"]]
    assert refining["details"]["findings"][0]["records"] == len(frame) == 4361
    assert "'agesq' refines generalized quasi-identifier 'age'" in stdout
    report = privaudit.audit(data, policy)
    assert not report.passed and "agesq" in report.to_html()


NHIS_POLICY = """version: 1
name: NHIS 2009 with the key variables left undeclared
columns:
  age: {role: quasi_identifier, type: numeric}
  famsize: {role: quasi_identifier, type: numeric}
  hlth: {role: sensitive}
  perweight: {role: weight, type: numeric}
checks:
  - {assessor: uniqueness, max_share: 0.05}
"""


def _nhis_audit(run_cli, tmp_path, rename=None):
    data, policy, out = tmp_path / "nhis.csv", tmp_path / "p.yaml", tmp_path / "r.json"
    pd.read_csv(SURVEYS / "leftout_mm_nhis.csv").rename(columns=rename or {}).to_csv(data, index=False)
    policy.write_text(NHIS_POLICY)
    code, _, err = run_cli("audit", data, "--policy", policy, "--json", out)
    return code, err, {c["id"]: c for c in json.loads(out.read_text())["checks"]}


@pytest.mark.slow
def test_nhis_key_variables_left_out_are_measured(run_cli, tmp_path):
    code, err, checks = _nhis_audit(run_cli, tmp_path)
    check = checks["undeclared_key_variables"]
    measured = {e["columns"][0]: e for e in check["details"]["columns"]}
    assert checks["uniqueness"]["status"] == "pass" and {"fml", "nwhite", "yedu", "empl"} <= set(measured)
    assert measured["yedu"]["unique_share"] > 10 * check["details"]["unique_share"]
    named = [c for c in ("fml", "nwhite", "yedu", "empl") if key_variable(c) is not None]
    assert set(check["details"]["failing"]) == set(named)  # the header vocabulary decides what fails
    assert (code == 1) == bool(named)


@pytest.mark.slow
@pytest.mark.skipif(key_variable("fml") is None, reason="the vocabulary does not read codebook abbreviations yet")
def test_nhis_abbreviated_key_variables_fail(run_cli, tmp_path):
    code, err, checks = _nhis_audit(run_cli, tmp_path)
    check = checks["undeclared_key_variables"]
    assert code == 1 and check["status"] == "fail"
    named = {c for c in ("fml", "nwhite", "yedu") if key_variable(c) is not None}
    assert "fml" in named and named <= set(check["details"]["failing"])


@pytest.mark.slow
def test_nhis_key_variables_the_vocabulary_names_fail(run_cli, tmp_path):
    rename = {"fml": "female", "nwhite": "race", "yedu": "education", "empl": "employed"}
    code, err, checks = _nhis_audit(run_cli, tmp_path, rename)
    check = checks["undeclared_key_variables"]
    assert code == 1 and check["status"] == "fail", err
    assert set(check["details"]["failing"]) == {"female", "race", "education", "employed"}
    together = check["details"]["together"]
    assert together["unique_share"] > 0.05 and together["breaks"] == ["uniqueness: SampleUniqueness(0.05)"]
    assert checks["uniqueness"]["status"] == "pass"


# ------------------------------------------------------------------------------------------ engines
@pytest.mark.slow
@pytest.mark.parametrize("engine", ["chunked", "duckdb"])
def test_out_of_memory_engines_give_the_same_findings(run_cli, tmp_path, engine):
    frame = _release()
    data, policy = tmp_path / "d.csv", tmp_path / "p.yaml"
    frame.to_csv(data, index=False)
    policy.write_text(
        "version: 1\nname: e\ncolumns:\n  age: {role: quasi_identifier}\n  sex: {role: quasi_identifier}\n"
        "checks:\n  - {assessor: k_anonymity, k: 2}\n"
    )
    reports = {}
    for name in ("in-process", engine):
        out = tmp_path / f"{name}.json"
        code, _, err = run_cli("audit", data, "--policy", policy, "--engine", name, "--json", out)
        assert code == 1, err
        reports[name] = {c["id"]: c for c in json.loads(out.read_text())["checks"]}
    for check in ("refining_columns", "undeclared_key_variables"):
        mine, theirs = reports["in-process"][check], reports[engine][check]
        assert theirs == mine  # the table is shorter than the rows read: the whole table, read alike


@pytest.mark.slow
def test_out_of_memory_engines_read_the_first_rows_of_a_longer_table_and_say_so(run_cli, tmp_path, monkeypatch):
    from privaudit.assessors import refining_columns

    monkeypatch.setattr(refining_columns, "SAMPLE_ROWS", 300)
    data, policy, out = tmp_path / "d.parquet", tmp_path / "p.yaml", tmp_path / "r.json"
    _release().to_parquet(data, index=False)
    policy.write_text("version: 1\nname: e\ncolumns:\n  age: {role: quasi_identifier}\n")
    code, stdout, err = run_cli("audit", data, "--policy", policy, "--engine", "chunked", "--json", out)
    assert code == 1, err
    checks = {c["id"]: c for c in json.loads(out.read_text())["checks"]}
    refining, keys = checks["refining_columns"], checks["undeclared_key_variables"]
    assert refining["details"]["sampled"] and refining["details"]["rows"] == 300
    assert refining["details"]["findings"][0]["columns"] == ["agesq"]
    assert "read on the first 300 rows" in refining["message"] and keys["details"]["sampled"]


REMEDIATE_POLICY = """version: 1
name: fertil2 remediated
columns:
  age: {role: quasi_identifier, type: numeric}
  educ: {role: quasi_identifier, type: numeric}
  urban: {role: quasi_identifier}
  children: {role: sensitive, type: numeric}
checks:
  - {assessor: k_anonymity, k: 30}
"""


@pytest.mark.slow
def test_a_generalization_that_leaves_agesq_is_not_offered(run_cli, tmp_path):
    data, policy, out, report = tmp_path / "f.csv", tmp_path / "p.yaml", tmp_path / "o.csv", tmp_path / "r.json"
    pd.read_csv(SURVEYS / "leftout_fertil2.csv").to_csv(data, index=False)
    policy.write_text(REMEDIATE_POLICY)
    code, stdout, err = run_cli(
        "remediate", data, "--policy", policy, "--method", "generalize", "--out", out, "--json", report
    )
    assert code == 1 and not out.exists(), err
    assert "no remediated table written" in stdout
    checks = {c["id"]: c for c in json.loads(report.read_text())["checks"]}
    assert checks["k_anonymity"]["status"] == "pass"  # the generalization meets k ...
    refining = checks["refining_columns"]  # ... but agesq gives the banded ages back
    assert refining["status"] == "fail" and ["agesq"] in [f["columns"] for f in refining["details"]["findings"]]
