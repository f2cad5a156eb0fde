"""top_bottom_coding and pram through the command line and the library: written tables audit again with
their own policy, the PRAM matrices are written as rr_attribute_disclosure reads them (Guo, Ying & Wu,
JCSE 2011: a published distortion matrix per column), bad options are one line and exit 2, and both
methods are candidates of ``remediate --explore``."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from conftest import write_policy, write_rr_table

import privaudit

AGES = """version: 1
name: ages
columns:
  age: {role: quasi_identifier, type: numeric}
  sex: {role: quasi_identifier}
  weight: {role: weight, type: numeric}
checks:
  - {assessor: k_anonymity, k: 3}
"""

RR = """version: 1
name: pram
columns:
  sex: {role: quasi_identifier}
  region: {role: quasi_identifier}
  disease: {role: sensitive}
checks:
  - {assessor: k_anonymity, k: 2}
  - {assessor: rr_attribute_disclosure, sensitive: disease, max_risk: 0.99RANDOMIZED}
"""


@pytest.fixture
def ages(tmp_path):
    """Ages 30-39 for both sexes, ten of each, and six women older than 90, each alone at her age: k = 3
    fails on them only, and top coding at 80 puts them in one class of six."""
    rows = [(a, s) for a in range(30, 40) for s in "FM" for _ in range(10)] + [(a, "F") for a in range(91, 97)]
    frame = pd.DataFrame(rows, columns=["age", "sex"])
    frame["weight"] = np.linspace(10, 500, len(frame)).round(1)
    path = tmp_path / "ages.csv"
    frame.to_csv(path, index=False)
    return path


@pytest.mark.slow
def test_top_coding_passes_and_audits_again(tmp_path, ages, run_cli):
    policy = write_policy(tmp_path, AGES)
    out, report = tmp_path / "out.csv", tmp_path / "r.json"
    code, _, err = run_cli(
        "remediate", ages, "--policy", policy, "--method", "top_bottom_coding", "--option", "top=80",
        "--out", out, "--json", report,
    )  # fmt: skip
    assert code == 0, err
    fixed = pd.read_csv(out)
    assert fixed["age"].max() == 80 and (fixed["age"] == 80).sum() == 6  # numeric, the threshold itself
    changes = json.loads(report.read_text())["remediation"]["changes"]["columns"]["age"]
    assert changes["records_top_coded"] == 6 and changes["top_replacement"] == 80
    assert run_cli("audit", out, "--policy", policy)[0] == 0


def test_weight_top_coded_at_a_quantile(tmp_path, ages, run_cli):
    policy = write_policy(tmp_path, AGES.replace("k: 3", "k: 1"))
    out = tmp_path / "out.csv"
    code, _, err = run_cli(
        "remediate", ages, "--policy", policy, "--method", "top_bottom_coding", "--even-if-passing",
        "--option", "columns=[weight]", "--option", "top_quantile={weight: 0.9}", "--out", out,
    )  # fmt: skip
    assert code == 0, err
    before, after = pd.read_csv(ages)["weight"], pd.read_csv(out)["weight"]
    threshold = float(np.quantile(before, 0.9, method="inverted_cdf"))
    assert after.max() == threshold and (after == before.clip(upper=threshold)).all()
    assert run_cli("audit", out, "--policy", policy)[0] in (0, 1)


@pytest.mark.slow
def test_nominal_column_gets_the_hierarchys_top_code(tmp_path, ages, run_cli):
    """A nominal quasi-identifier holding numbers is written with privaudit's top-code label (``80+``), which
    its hierarchy holds, so the output audits again under the same policy."""
    (tmp_path / "age.csv").write_text(
        "".join(f"{a};{'80+' if a >= 80 else f'{a // 10 * 10}-{a // 10 * 10 + 9}'};*\n" for a in range(100))
    )
    policy = write_policy(
        tmp_path, AGES.replace("age: {role: quasi_identifier, type: numeric}", "age: {role: quasi_identifier, hierarchy: age.csv}")
    )  # fmt: skip
    out = tmp_path / "out.csv"
    code, _, err = run_cli(
        "remediate", ages, "--policy", policy, "--method", "top_bottom_coding", "--option", "columns=[age]",
        "--option", "top=80", "--out", out,
    )  # fmt: skip
    assert code == 0, err
    assert (pd.read_csv(out, dtype=str)["age"] == "80+").sum() == 6
    assert run_cli("audit", out, "--policy", policy)[0] == 0
    code, _, err = run_cli(
        "remediate", ages, "--policy", policy, "--method", "top_bottom_coding", "--option", "columns=[age]",
        "--option", "top=75", "--out", tmp_path / "o2.csv",
    )  # fmt: skip
    assert code == 2 and "'75+' is not in its hierarchy" in err and len(err.strip().splitlines()) == 1


@pytest.mark.slow
def test_pram_writes_its_matrices_and_audits_again(tmp_path, run_cli):
    data = write_rr_table(tmp_path / "rr.csv", 3000)
    policy = write_policy(tmp_path, RR.split("  - {assessor: rr_")[0])
    out, report = tmp_path / "out.csv", tmp_path / "r.json"
    code, _, err = run_cli(
        "remediate", data, "--policy", policy, "--method", "pram", "--even-if-passing", "--option", "pd=0.9", "--out", out, "--json", report,
    )  # fmt: skip
    assert code == 0, err
    rem = json.loads(report.read_text())["remediation"]
    assert rem["changes"]["variables"] == ["sex", "region"] and rem["changes"]["pd"] == 0.9
    # the matrices as rr_attribute_disclosure reads them (rows released, columns original: columns sum to 1)
    from privaudit.risk.randomized_response import load_distortion_matrix

    labels, matrix = load_distortion_matrix(tmp_path / "out.pram-region.csv")
    assert sorted(labels) == ["east", "north", "south"]
    np.testing.assert_allclose(matrix.sum(axis=0), 1.0, atol=1e-9)
    p = pd.read_csv(data)["region"].value_counts(normalize=True)[labels].to_numpy()
    np.testing.assert_allclose(matrix @ p, p, atol=1e-9)  # invariant: P p = p in the assessor's orientation
    assert run_cli("audit", out, "--policy", policy)[0] == 0
    # a policy publishing the matrices: the assessor reads them and measures the release under them
    published = ", randomized: {sex: {matrix: out.pram-sex.csv}, region: {matrix: out.pram-region.csv}}"
    with_matrices = write_policy(tmp_path, RR.replace("RANDOMIZED", published), "published.yaml")
    code, _, err = run_cli("audit", out, "--policy", with_matrices, "--original", data, "--json", tmp_path / "a.json")
    assert code in (0, 1), err
    check = next(c for c in json.loads((tmp_path / "a.json").read_text())["checks"] if c["id"].startswith("rr_"))
    assert check["value"] < 1  # women in the east are all 'cancer': only the published randomization hides it
    assert check["details"]["matrix_files"] == {"sex": "out.pram-sex.csv", "region": "out.pram-region.csv"}


def test_pram_with_strata_keeps_each_stratum(tmp_path, run_cli):
    data = write_rr_table(tmp_path / "rr.csv", 2000)
    policy = write_policy(tmp_path, RR.replace("k: 2", "k: 1").replace("0.99RANDOMIZED", "1"))
    out = tmp_path / "out.csv"
    code, _, err = run_cli(
        "remediate", data, "--policy", policy, "--method", "pram", "--even-if-passing", "--option", "variables=[region]",
        "--option", "strata_variables=[sex]", "--option", "pd=0.5", "--option", "seed=4", "--out", out,
    )  # fmt: skip
    assert code == 0, err
    before, after = pd.read_csv(data), pd.read_csv(out)
    assert (before["sex"] == after["sex"]).all() and (before["region"] != after["region"]).any()
    blocks = pd.read_csv(tmp_path / "out.pram-region.strata.csv")
    assert list(blocks.columns[:2]) == ["sex", "released \\ original"] and set(blocks["sex"]) == {"F", "M"}
    for _, block in blocks.groupby("sex"):
        np.testing.assert_allclose(block[["east", "north", "south"]].sum(axis=0), 1.0, atol=1e-9)
    assert run_cli("audit", out, "--policy", policy)[0] == 0


@pytest.mark.parametrize(
    ("method", "option", "message"),
    [
        ("pram", "pd=0", "pd: Input should be greater than 0"),
        ("pram", "pd=1.2", "pd: Input should be less than or equal to 1"),
        ("pram", "alpha=1.5", "alpha: Input should be less than or equal to 1"),
        ("pram", "alpha=-0.1", "alpha: Input should be greater than or equal to 0"),
        ("pram", "variables=[age]", "variables: 'age' is not a nominal quasi-identifier"),
        ("top_bottom_coding", "top_quantile=1", "top_quantile: not a share in (0, 1)"),
        ("top_bottom_coding", "bottom_quantile={age: 0}", "bottom_quantile: not a share in (0, 1)"),
        ("top_bottom_coding", "columns=[sex]", "columns: 'sex' is not a numeric quasi-identifier"),
    ],
)
def test_bad_options_one_line_exit_2(tmp_path, ages, run_cli, method, option, message):
    policy = write_policy(tmp_path, AGES)
    code, _, err = run_cli(
        "remediate", ages, "--policy", policy, "--method", method, "--option", option, "--out", tmp_path / "o.csv"
    )
    assert code == 2 and message in err, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not (tmp_path / "o.csv").exists()


@pytest.mark.slow
def test_library_remediate_and_explore_show_both_methods(tmp_path, ages):
    frame = pd.read_csv(ages)
    frame["region"] = np.resize(["north", "south", "east"], len(frame))
    path = tmp_path / "both.csv"
    frame.to_csv(path, index=False)
    policy = write_policy(
        tmp_path, AGES.replace("  weight:", "  region: {role: quasi_identifier}\n  weight:").replace("k: 3", "k: 1")
    )
    done = privaudit.remediate(str(path), str(policy), method="pram", pd=0.7, seed=1, even_if_passing=True)
    assert done.offered and (done.table["region"].astype(str) != frame["region"]).any()
    assert (done.table["age"] == frame["age"]).all()  # pram leaves the numeric quasi-identifier
    found = privaudit.explore(str(path), str(policy), methods=["top_bottom_coding", "pram"])
    by_method = {}
    for c in found.candidates:
        by_method.setdefault(c["method"], []).append(c)
    assert [c["options"]["top_quantile"] for c in by_method["top_bottom_coding"]] == [0.99, 0.98, 0.95]
    # class sizes say nothing of pramed values: without a check of perturbed values' risk, pram is left out
    assert "pram" not in by_method
    assert any(n.startswith("pram: left out") for n in found.report.to_dict()["explore"]["notes"])
    assert all(c["risk"] is not None and "failure" not in c for c in found.candidates)


def test_explore_cli_maps_both(tmp_path, ages, run_cli):
    policy = write_policy(tmp_path, AGES)
    report = tmp_path / "r.json"
    code, out, err = run_cli(
        "remediate", ages, "--policy", policy, "--explore", "--methods", "top_bottom_coding,pram", "--json", report
    )
    assert code in (0, 1), err
    ex = json.loads(report.read_text())["explore"]
    assert {c["method"] for c in ex["candidates"]} == {"top_bottom_coding"}  # pram: no check of perturbed risk
    assert any(c["passes"] for c in ex["candidates"] if c["method"] == "top_bottom_coding")  # the 95th percentile
